# mk/extender.mk: the scheduler extender (bin/dagsched-extender), its unit tests on recorded
# request bodies, its integration suite on the local control plane, the request-parser fuzzer
# (make fuzz), the latency benchmark (make bench-extender), the end-to-end throughput
# benchmark against kube-scheduler alone (make bench-e2e) and the JSON tokenizer against
# jansson (make bench-jscan).

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
		$(BUILD)/$(1)/libdsextender.a $(BUILD)/$(1)/libdskube.a $(BUILD)/$(1)/libdsruntime.a \
		$(BUILD)/$(1)/libdagsched.a
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_BASE) $(2) $$(EXT_CFLAGS) -Itests/extender $$< -o $$@ \
		$(BUILD)/$(1)/libdsextender.a $(BUILD)/$(1)/libdskube.a $(BUILD)/$(1)/libdsruntime.a \
		$(BUILD)/$(1)/libdagsched.a $$(EXT_LIBS) $$(RUNTIME_LIBS) $$(KUBE_LIBS) $$(CMOCKA_LIBS) \
		$$(LIBS_COMMON)
endef

$(eval $(call extender_variant,rel,$(OPT_FLAGS)))
$(eval $(call extender_variant,asan,$(SAN_FLAGS)))


$(BIN)/dagsched-extender: extender/main.c $(BUILD)/rel/libdsextender.a $(BUILD)/rel/libdskube.a \
		$(BUILD)/rel/libdsruntime.a $(BUILD)/rel/libdagsched.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(OPT_FLAGS) $(EXT_CFLAGS) $(VERSION_FLAGS) -MF $(BUILD)/rel/extender/main.d $< -o $@ \
		$(BUILD)/rel/libdsextender.a \
		$(BUILD)/rel/libdskube.a $(BUILD)/rel/libdsruntime.a $(BUILD)/rel/libdagsched.a \
		$(EXT_LIBS) $(RUNTIME_LIBS) $(KUBE_LIBS) $(LIBS_COMMON)

BINARIES += $(BIN)/dagsched-extender

# The same binary with AddressSanitizer and UndefinedBehaviorSanitizer, for the integration suite.
$(BUILD)/asan/bin/dagsched-extender: extender/main.c $(BUILD)/asan/libdsextender.a \
		$(BUILD)/asan/libdskube.a $(BUILD)/asan/libdsruntime.a $(BUILD)/asan/libdagsched.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(SAN_FLAGS) $(EXT_CFLAGS) $(VERSION_FLAGS) -MF $(BUILD)/asan/extender/main.d $< -o $@ \
		$(BUILD)/asan/libdsextender.a \
		$(BUILD)/asan/libdskube.a $(BUILD)/asan/libdsruntime.a $(BUILD)/asan/libdagsched.a \
		$(EXT_LIBS) $(RUNTIME_LIBS) $(KUBE_LIBS) $(LIBS_COMMON)

.PHONY: extender-test extender-test-asan
extender-test: $(addprefix $(BUILD)/rel/tests/extender/,$(EXT_TESTS))
	@set -e; for t in $^; do echo "== $$t"; $$t; done

extender-test-asan: $(addprefix $(BUILD)/asan/tests/extender/,$(EXT_TESTS))
	@set -e; for t in $^; do echo "== $$t (asan+ubsan)"; \
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 $$t; done

# Against the real kube-scheduler of a fresh local control plane (hack/cluster); about a minute.
# The extender under test is the sanitizer build: a memory error, undefined behaviour or a leak
# at its graceful exit fails the suite.
.PHONY: extender-integration-test
extender-integration-test: $(BUILD)/asan/bin/dagsched-extender
	@tests/extender/integration.sh $(BUILD)/asan/bin/dagsched-extender

INTEGRATION_TESTS += extender-test extender-test-asan

# Fuzzing with libFuzzer (clang, AddressSanitizer + UndefinedBehaviorSanitizer), two targets:
# fuzz_protocol (the request parsers and result writers) and fuzz_handlers (the three verbs end
# to end on a fixed snapshot, including the Kubernetes Pod decoder). `make fuzz` runs each for
# FUZZ_SECONDS (default 600) with random seeds; `make fuzz-short` (part of make test) runs
# FUZZ_SHORT_RUNS inputs each with a fixed seed from a fresh corpus (reproducible). Corpora grow in
# build/fuzz/corpus-<target>, seeded with the recorded request bodies; crashes are written to
# build/fuzz/.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 600
FUZZ_FLAGS   := $(CSTD) $(WARN) -g -O1 -Iextender -Ilib -Ikube -Iruntime -Itests/extender \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_LIB_SRCS := extender/jscan.c extender/protocol.c extender/handlers.c extender/snapshot.c \
	extender/snapcache.c \
	kube/policy_source.c kube/model_input.c $(LIB_SRCS) kube/objects.c kube/argo_decode.c \
	kube/kutil.c kube/log.c runtime/clock.c

# libFuzzer ships in libclang-rt-<version>-dev on Debian; installed when the probe fails to link.
.PHONY: fuzz-deps
fuzz-deps:
	@printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' | \
		$(FUZZ_CC) -x c -fsanitize=fuzzer - -o /dev/null 2>/dev/null || \
		DAGSCHED_EXTRA_PACKAGES="libclang-rt-$$($(FUZZ_CC) -dumpversion | cut -d. -f1)-dev" \
		hack/install-deps.sh

$(BUILD)/fuzz/fuzz_protocol: tests/extender/fuzz_protocol.c extender/jscan.c extender/protocol.c \
		extender/admission.c lib/bytebuf.c $(wildcard extender/*.h lib/bytebuf.h tests/extender/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $< extender/jscan.c extender/protocol.c extender/admission.c \
		lib/bytebuf.c -o $@ -ljansson -lcrypto

$(BUILD)/fuzz/fuzz_handlers: tests/extender/fuzz_handlers.c $(FUZZ_LIB_SRCS) \
		$(wildcard extender/*.h lib/*.h kube/*.h tests/extender/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $< $(FUZZ_LIB_SRCS) -o $@ -ljansson -lyaml -lcrypto -lm -lpthread

.PHONY: fuzz fuzz-short
# $(2): libFuzzer's limit, -max_total_time=S or (make test: reproducible) -seed=1 -runs=N.
fuzz-run = mkdir -p $(BUILD)/fuzz/corpus-$(1) && \
	$(BUILD)/fuzz/$(1) $(2) -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/corpus-$(1) \
		tests/extender/data

fuzz: fuzz-deps
	@$(MAKE) --no-print-directory $(BUILD)/fuzz/fuzz_protocol $(BUILD)/fuzz/fuzz_handlers
	$(call fuzz-run,fuzz_protocol,-max_total_time=$(FUZZ_SECONDS))
	$(call fuzz-run,fuzz_handlers,-max_total_time=$(FUZZ_SECONDS))

# The full log is kept; on failure its end (the crash report) is shown and make fails.
# make test runs a fixed seed and a fixed number of inputs from a fresh corpus, so that its result
# does not depend on the machine's speed or on chance; `make fuzz` explores with random seeds.
FUZZ_SHORT_RUNS ?= 200000
fuzz-short-run = rm -rf $(BUILD)/fuzz/corpus-$(1) && \
	$(call fuzz-run,$(1),-seed=1 -runs=$(FUZZ_SHORT_RUNS)) >$(BUILD)/fuzz/$(1).log 2>&1 || \
	{ tail -n 60 $(BUILD)/fuzz/$(1).log; echo "fuzz-short: $(1) failed (log $(BUILD)/fuzz/$(1).log)"; \
	  exit 1; }; echo "== $(1): $$(grep -c . $(BUILD)/fuzz/$(1).log) log lines, \
	$$(grep -o 'stat::number_of_executed_units: *[0-9]*' $(BUILD)/fuzz/$(1).log | grep -o '[0-9]*$$') runs, no failure"

fuzz-short: fuzz-deps
	@$(MAKE) --no-print-directory $(BUILD)/fuzz/fuzz_protocol $(BUILD)/fuzz/fuzz_handlers
	@$(call fuzz-short-run,fuzz_protocol)
	@$(call fuzz-short-run,fuzz_handlers)

INTEGRATION_TESTS += fuzz-short extender-integration-test

# Latency/throughput benchmark of filter+prioritize against a floor server (needs wrk).
.PHONY: bench-extender
bench-extender: $(BUILD)/rel/tests/extender/bench_server
	@DAGSCHED_EXTRA_PACKAGES=wrk hack/install-deps.sh
	@tests/extender/bench.sh $(BUILD)/rel/tests/extender/bench_server $(or $(BENCH_SECONDS),3)

# The admission webhook on the local control plane (tests/extender/admission_integration.sh): pods
# created without a gate are gated by the extender (sanitizer build) and released in dependency
# order by the controller. About a minute.
.PHONY: admission-integration-test
admission-integration-test: $(BUILD)/asan/bin/dagsched-extender $(BIN)/dagsched-controller
	@DAGSCHED_EXTRA_PACKAGES="jq" hack/install-deps.sh
	@tests/extender/admission_integration.sh $(BUILD)/asan/bin/dagsched-extender \
		$(BIN)/dagsched-controller

INTEGRATION_TESTS += admission-integration-test

# kube-scheduler's throughput with the extender against its default profile on a local cluster of
# kwok nodes, the extender as the chart configures it over HTTPS and, for comparison, over plain
# HTTP (tests/extender/bench_e2e.sh; NODES, PODS, ROUNDS adjust it; about 12 minutes at the
# defaults 1000, 2000, 6). Starts a local control plane: run it under
# `flock /tmp/dagsched-cluster.lock make bench-e2e` when other clusters may start.
.PHONY: bench-e2e
bench-e2e: $(BIN)/dagsched-extender
	@tests/extender/bench_e2e.sh $(BIN)/dagsched-extender

# The cost of keeping the snapshot current at 20,000 pods on 1,000 nodes, in process (no cluster):
# a snapshot built from scratch (the baseline) against the incremental update, for batches of 50
# pod changes, measured in the same run (tests/extender/bench_snapshot.c; SNAPSHOT_BENCH_ARGS =
# "NODES PODS BATCH ROUNDS" adjusts it).
# The extender's JSON tokenizer against jansson on an ExtenderArgs of 5,000 node names, in the
# same run (tests/extender/bench_jscan.c; JSCAN_BENCH_ARGS = "NAMES ROUNDS" adjusts it).
.PHONY: bench-jscan
bench-jscan: $(BUILD)/rel/tests/extender/bench_jscan
	@$(BUILD)/rel/tests/extender/bench_jscan $(JSCAN_BENCH_ARGS)

.PHONY: bench-snapshot
bench-snapshot: $(BUILD)/rel/tests/extender/bench_snapshot
	@$(BUILD)/rel/tests/extender/bench_snapshot $(SNAPSHOT_BENCH_ARGS)
