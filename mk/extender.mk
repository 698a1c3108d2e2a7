# mk/extender.mk: the scheduler extender (bin/dagsched-extender), its unit tests on recorded
# request bodies, its integration suite on the local control plane, the request-parser fuzzer
# (make fuzz) and the latency benchmark (make bench-extender).

EXT_SRCS      := $(filter-out extender/main.c,$(wildcard extender/*.c))
EXT_TESTS     := $(patsubst tests/extender/%.c,%,$(wildcard tests/extender/test_*.c))
EXT_LIBS      := -ljansson
EXT_CFLAGS    := -Iextender -Iruntime -Ikube -pthread

define extender_variant
$(BUILD)/$(1)/extender/%.o: extender/%.c
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_BASE) $(2) $$(EXT_CFLAGS) -c $$< -o $$@

$(BUILD)/$(1)/libdsextender.a: $$(patsubst extender/%.c,$(BUILD)/$(1)/extender/%.o,$$(EXT_SRCS))
	@mkdir -p $$(@D)
	rm -f $$@
	ar rcs $$@ $$^

$(BUILD)/$(1)/tests/extender/%: tests/extender/%.c $(wildcard tests/extender/*.h) \
		$(BUILD)/$(1)/libdsextender.a $(BUILD)/$(1)/libdsruntime.a $(BUILD)/$(1)/libdskube.a \
		$(BUILD)/$(1)/libdagsched.a
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_BASE) $(2) $$(EXT_CFLAGS) -Itests/extender $$< -o $$@ \
		$(BUILD)/$(1)/libdsextender.a $(BUILD)/$(1)/libdsruntime.a $(BUILD)/$(1)/libdskube.a \
		$(BUILD)/$(1)/libdagsched.a $$(EXT_LIBS) $$(RUNTIME_LIBS) $$(KUBE_LIBS) $$(CMOCKA_LIBS) \
		$$(LIBS_COMMON)
endef

$(eval $(call extender_variant,rel,$(OPT_FLAGS)))
$(eval $(call extender_variant,asan,$(SAN_FLAGS)))

EXT_VERSION := 0.1.0
EXT_GIT     := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

$(BIN)/dagsched-extender: extender/main.c $(BUILD)/rel/libdsextender.a $(BUILD)/rel/libdsruntime.a \
		$(BUILD)/rel/libdskube.a $(BUILD)/rel/libdagsched.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(OPT_FLAGS) $(EXT_CFLAGS) -DDAGSCHED_VERSION='"$(EXT_VERSION)"' \
		-DDAGSCHED_GIT='"$(EXT_GIT)"' -MF $(BUILD)/rel/extender/main.d $< -o $@ \
		$(BUILD)/rel/libdsextender.a \
		$(BUILD)/rel/libdsruntime.a $(BUILD)/rel/libdskube.a $(BUILD)/rel/libdagsched.a \
		$(EXT_LIBS) $(RUNTIME_LIBS) $(KUBE_LIBS) $(LIBS_COMMON)

BINARIES += $(BIN)/dagsched-extender

.PHONY: extender-test extender-test-asan
extender-test: $(addprefix $(BUILD)/rel/tests/extender/,$(EXT_TESTS))
	@set -e; for t in $^; do echo "== $$t"; $$t; done

extender-test-asan: $(addprefix $(BUILD)/asan/tests/extender/,$(EXT_TESTS))
	@set -e; for t in $^; do echo "== $$t (asan+ubsan)"; \
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 $$t; done

# Against the real kube-scheduler of a fresh local control plane (hack/cluster); about a minute.
.PHONY: extender-integration-test
extender-integration-test: $(BIN)/dagsched-extender
	@tests/extender/integration.sh $(BIN)/dagsched-extender

INTEGRATION_TESTS += extender-test extender-test-asan

# Fuzzing the request parser with libFuzzer (clang). `make fuzz` runs FUZZ_SECONDS (default 600),
# `make fuzz-short` (part of make test) 30 s. The corpus grows in build/fuzz/corpus, seeded with
# the recorded request bodies.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 600
FUZZ_BIN     := $(BUILD)/fuzz/fuzz_protocol
FUZZ_SRCS    := tests/extender/fuzz_protocol.c extender/jscan.c extender/protocol.c

$(FUZZ_BIN): $(FUZZ_SRCS) extender/jscan.h extender/protocol.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CSTD) $(WARN) -g -O1 -Iextender -Ilib -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all $(FUZZ_SRCS) -o $@ -ljansson

.PHONY: fuzz fuzz-short
fuzz-run = mkdir -p $(BUILD)/fuzz/corpus && \
	$(FUZZ_BIN) -max_total_time=$(1) -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/corpus tests/extender/data

fuzz: $(FUZZ_BIN)
	$(call fuzz-run,$(FUZZ_SECONDS))

fuzz-short: $(FUZZ_BIN)
	@$(call fuzz-run,30) 2>&1 | tail -n 12

INTEGRATION_TESTS += fuzz-short extender-integration-test

# Latency/throughput benchmark of filter+prioritize against a floor server (needs wrk).
.PHONY: bench-extender
bench-extender: $(BUILD)/rel/tests/extender/bench_server
	@tests/extender/bench.sh $(BUILD)/rel/tests/extender/bench_server $(or $(BENCH_SECONDS),5)
