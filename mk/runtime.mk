# mk/runtime.mk: runtime support shared by the binaries (HTTP(S) server, metrics registry, clocks,
# command-line flags), built into $(BUILD)/<variant>/libdsruntime.a, and its tests (real servers on
# loopback, driven by libcurl).
#
#   make runtime-test         tests/runtime/test_*.c (cmocka);  make runtime-test-asan  under ASan+UBSan
#   make runtime-flags-test   every binary's flags through runtime/flags.h: the same usage errors,
#                             exit 2 (tests/runtime/flags_binaries.sh, the built binaries, no cluster)

RUNTIME_SRCS  := $(wildcard runtime/*.c)
RUNTIME_TESTS := $(patsubst tests/runtime/%.c,%,$(wildcard tests/runtime/test_*.c))
RUNTIME_LIBS  := -lwebsockets -lssl -lcrypto -lpthread
RUNTIME_TEST_LIBS := -lcurl $(CMOCKA_LIBS) $(LIBS_COMMON)

define runtime_variant
$(BUILD)/$(1)/runtime/%.o: runtime/%.c
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_BASE) $(2) -Iruntime -c $$< -o $$@

$(BUILD)/$(1)/libdsruntime.a: $$(patsubst runtime/%.c,$(BUILD)/$(1)/runtime/%.o,$$(RUNTIME_SRCS))
	@mkdir -p $$(@D)
	rm -f $$@
	ar rcs $$@ $$^

$(BUILD)/$(1)/tests/runtime/%: tests/runtime/%.c $(BUILD)/$(1)/libdsruntime.a $(BUILD)/$(1)/libdagsched.a
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_BASE) $(2) -Iruntime $$< -o $$@ $(BUILD)/$(1)/libdsruntime.a \
		$(BUILD)/$(1)/libdagsched.a $$(RUNTIME_LIBS) $$(RUNTIME_TEST_LIBS)
endef

$(eval $(call runtime_variant,rel,$(OPT_FLAGS)))
$(eval $(call runtime_variant,asan,$(SAN_FLAGS)))

# Test certificates for the HTTPS tests (generated, never committed).
RUNTIME_CERTS := $(BUILD)/testcerts/a.crt
$(RUNTIME_CERTS): hack/gen-test-certs.sh
	@hack/gen-test-certs.sh $(BUILD)/testcerts

.PHONY: runtime-test runtime-test-asan
runtime-test: $(addprefix $(BUILD)/rel/tests/runtime/,$(RUNTIME_TESTS)) $(RUNTIME_CERTS)
	@set -e; for t in $(filter $(BUILD)/rel/tests/%,$^); do echo "== $$t"; \
		DAGSCHED_TEST_CERTS=$(BUILD)/testcerts $$t; done

runtime-test-asan: $(addprefix $(BUILD)/asan/tests/runtime/,$(RUNTIME_TESTS)) $(RUNTIME_CERTS)
	@set -e; for t in $(filter $(BUILD)/asan/tests/%,$^); do echo "== $$t (asan+ubsan)"; \
		DAGSCHED_TEST_CERTS=$(BUILD)/testcerts ASAN_OPTIONS=detect_leaks=1 $$t; done

INTEGRATION_TESTS += runtime-test runtime-test-asan

.PHONY: runtime-flags-test
runtime-flags-test: $(BIN)/dagsched-extender $(BIN)/dagsched-controller $(BIN)/dagsched-sim \
		$(BIN)/kubectl-dagsched
	@tests/runtime/flags_binaries.sh $^

INTEGRATION_TESTS += runtime-flags-test

# libFuzzer target over the server's request framing (tests/runtime/fuzz_httpd.c): a real server
# in the fuzzer's process, the input cut into writes at fuzzer-chosen points. `make fuzz-httpd`
# explores for FUZZ_SECONDS with random seeds; `make fuzz-httpd-short` (part of make test) runs
# FUZZ_HTTPD_SHORT_RUNS inputs with a fixed seed from a fresh corpus seeded with
# tests/runtime/fuzz_httpd_seeds (reproducible; about 30 s). Crashes are written to build/fuzz/.
# fuzz-deps, FUZZ_CC and FUZZ_SECONDS come from mk/extender.mk.
RT_FUZZ_FLAGS := $(CSTD) $(WARN) -g -O1 -Ilib -Iruntime \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
RT_FUZZ_SRCS  := runtime/httpd.c runtime/httpd_listen.c runtime/http1.c runtime/metrics.c runtime/clock.c \
	runtime/malloc_setup.c runtime/readfile.c lib/bytebuf.c lib/ds_error.c
FUZZ_HTTPD_SHORT_RUNS ?= 6000

$(BUILD)/fuzz/fuzz_httpd: tests/runtime/fuzz_httpd.c $(RT_FUZZ_SRCS) $(wildcard runtime/*.h lib/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(RT_FUZZ_FLAGS) $< $(RT_FUZZ_SRCS) -o $@ $(RUNTIME_LIBS) -lm

fuzz-httpd-run = mkdir -p $(BUILD)/fuzz/corpus-fuzz_httpd && \
	$(BUILD)/fuzz/fuzz_httpd $(1) -max_len=65536 -timeout=20 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/corpus-fuzz_httpd \
		tests/runtime/fuzz_httpd_seeds

.PHONY: fuzz-httpd fuzz-httpd-short
fuzz-httpd: fuzz-deps
	@$(MAKE) --no-print-directory $(BUILD)/fuzz/fuzz_httpd
	$(call fuzz-httpd-run,-max_total_time=$(FUZZ_SECONDS))

fuzz-httpd-short: fuzz-deps
	@$(MAKE) --no-print-directory $(BUILD)/fuzz/fuzz_httpd
	@rm -rf $(BUILD)/fuzz/corpus-fuzz_httpd && \
	$(call fuzz-httpd-run,-seed=1 -runs=$(FUZZ_HTTPD_SHORT_RUNS)) >$(BUILD)/fuzz/fuzz_httpd.log 2>&1 || \
	{ tail -n 60 $(BUILD)/fuzz/fuzz_httpd.log; \
	  grep -a '^fuzz_httpd: ' $(BUILD)/fuzz/fuzz_httpd.log; \
	  echo "fuzz-httpd-short: failed (log $(BUILD)/fuzz/fuzz_httpd.log)"; exit 1; }; \
	echo "== fuzz_httpd: $$(grep -o 'stat::number_of_executed_units: *[0-9]*' \
	  $(BUILD)/fuzz/fuzz_httpd.log | grep -o '[0-9]*$$') runs, no failure"

INTEGRATION_TESTS += fuzz-httpd-short

# The pipelining attack replayed on both binaries against a fresh local control plane
# (tests/runtime/pipelining-replay.sh): the sanitizer builds of both binaries; then the memory
# attack on both binaries' release builds (resident memory under the documented caps).
.PHONY: runtime-replay-test
runtime-replay-test: $(BUILD)/asan/bin/dagsched-extender $(BUILD)/asan/bin/dagsched-controller \
		$(BIN)/dagsched-extender $(BIN)/dagsched-controller
	@tests/runtime/pipelining-replay.sh $(BUILD)/asan/bin/dagsched-extender \
		$(BUILD)/asan/bin/dagsched-controller $(BIN)/dagsched-extender $(BIN)/dagsched-controller

INTEGRATION_TESTS += runtime-replay-test
