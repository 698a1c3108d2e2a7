# mk/kube.mk: the Kubernetes API client library (kube/), shared by the extender and the controller.
#
#   $(BUILD)/rel/libdskube.a, $(BUILD)/asan/libdskube.a   the library, per variant (link it before
#       libdsruntime.a and libdagsched.a, then $(KUBE_LIBS))
#   make kube-unit-test / kube-unit-test-asan   unit tests in tests/kube/test_*.c (cmocka): what
#                                               needs no server (decoders, parsers, paths, flags)
#   make kube-integration-test                  tests/kube/prog_*_itest programs against one fresh
#                                               local control plane (tests/kube/integration-run.sh):
#                                               every request, write, informer and election check,
#                                               transport faults through a byte-forwarding proxy
#                                               in front of the real kube-apiserver
#   make kube-bench                             memory per cached object (bytes per pod)

KUBE_SRCS       := $(wildcard kube/*.c)
KUBE_TEST_SRCS  := $(wildcard tests/kube/test_*.c)
KUBE_TEST_NAMES := $(patsubst tests/kube/%.c,%,$(KUBE_TEST_SRCS))
KUBE_PROG_SRCS  := $(wildcard tests/kube/prog_*.c)
KUBE_PROG_NAMES := $(patsubst tests/kube/%.c,%,$(KUBE_PROG_SRCS))
KUBE_CFLAGS     := -Ikube -Ilib -Iruntime -pthread
KUBE_LIBS       := -lcurl -ljansson -lyaml -lssl -lcrypto -lpthread -lm

define kube_variant
# $(1) = variant name, $(2) = extra flags
$(BUILD)/$(1)/kube/%.o: kube/%.c
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_BASE) $(2) $$(KUBE_CFLAGS) -c $$< -o $$@

$(BUILD)/$(1)/libdskube.a: $$(patsubst kube/%.c,$(BUILD)/$(1)/kube/%.o,$$(KUBE_SRCS))
	@mkdir -p $$(@D)
	rm -f $$@
	ar rcs $$@ $$^

$(BUILD)/$(1)/tests/kube/%: tests/kube/%.c $(wildcard tests/kube/*.h) $(BUILD)/$(1)/libdskube.a \
		$(BUILD)/$(1)/libdsruntime.a $(BUILD)/$(1)/libdagsched.a
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_BASE) $(2) $$(KUBE_CFLAGS) -Itests/kube $$< -o $$@ \
		$(BUILD)/$(1)/libdskube.a $(BUILD)/$(1)/libdsruntime.a $(BUILD)/$(1)/libdagsched.a \
		$$(KUBE_LIBS) $$(CMOCKA_LIBS)
endef

$(eval $(call kube_variant,rel,$(OPT_FLAGS)))
$(eval $(call kube_variant,asan,$(SAN_FLAGS)))

KUBE_UNIT_REL  := $(addprefix $(BUILD)/rel/tests/kube/,$(KUBE_TEST_NAMES))
KUBE_UNIT_ASAN := $(addprefix $(BUILD)/asan/tests/kube/,$(KUBE_TEST_NAMES))
KUBE_PROGS_REL := $(addprefix $(BUILD)/rel/tests/kube/,$(KUBE_PROG_NAMES))

.PHONY: kube-lib kube-unit-test kube-unit-test-asan kube-integration-test kube-bench
kube-lib: $(BUILD)/rel/libdskube.a $(BUILD)/asan/libdskube.a
lib: $(BUILD)/rel/libdskube.a

# Run from the repository root so tests can read tests/kube/data/.
kube-unit-test: $(KUBE_UNIT_REL)
	@set -e; for t in $(KUBE_UNIT_REL); do echo "== $$t"; $$t; done

kube-unit-test-asan: $(KUBE_UNIT_ASAN)
	@set -e; for t in $(KUBE_UNIT_ASAN); do echo "== $$t (asan+ubsan)"; \
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 $$t; done

kube-bench: $(BUILD)/rel/tests/kube/prog_pod_memory
	$(BUILD)/rel/tests/kube/prog_pod_memory

kube-integration-test: $(KUBE_PROGS_REL)
	@tests/kube/integration.sh $(BUILD)/rel/tests/kube

INTEGRATION_TESTS += kube-unit-test kube-unit-test-asan kube-integration-test

# libFuzzer target over every decoder of cluster input (tests/kube/fuzz_decoders.c): the
# Kubernetes object decoder for each kind, the JobGraph and policy YAML parsers, and the job model
# built from a list of pods; seeds at each bound from tests/kube/fuzz_decoders_seeds.py.
# `make fuzz-decoders` explores for FUZZ_SECONDS (default 600) with random seeds; `make
# fuzz-decoders-short` (part of make test) runs FUZZ_DEC_SHORT_RUNS inputs from seed 1.
FUZZ_DEC_SRCS  := $(LIB_SRCS) kube/objects.c kube/argo_decode.c kube/model_input.c kube/kutil.c \
	kube/log.c runtime/clock.c
FUZZ_DEC_SEEDS := $(BUILD)/fuzz/seeds-fuzz_decoders
FUZZ_DEC_SHORT_RUNS ?= 100000

$(BUILD)/fuzz/fuzz_decoders: tests/kube/fuzz_decoders.c $(FUZZ_DEC_SRCS) \
		$(wildcard lib/*.h kube/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $< $(FUZZ_DEC_SRCS) -o $@ -ljansson -lyaml -lcrypto -lm -lpthread

$(FUZZ_DEC_SEEDS): tests/kube/fuzz_decoders_seeds.py $(wildcard policies/*.yaml)
	@rm -rf $@ && python3 $< $@

fuzz-dec-run = mkdir -p $(BUILD)/fuzz/corpus-fuzz_decoders && \
	$(BUILD)/fuzz/fuzz_decoders $(1) -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/ \
		$(BUILD)/fuzz/corpus-fuzz_decoders $(FUZZ_DEC_SEEDS)

.PHONY: fuzz-decoders fuzz-decoders-short
fuzz-decoders: fuzz-deps $(BUILD)/fuzz/fuzz_decoders $(FUZZ_DEC_SEEDS)
	$(call fuzz-dec-run,-max_total_time=$(FUZZ_SECONDS))

fuzz-decoders-short: fuzz-deps $(BUILD)/fuzz/fuzz_decoders $(FUZZ_DEC_SEEDS)
	@rm -rf $(BUILD)/fuzz/corpus-fuzz_decoders && \
	$(call fuzz-dec-run,-seed=1 -runs=$(FUZZ_DEC_SHORT_RUNS)) >$(BUILD)/fuzz/fuzz_decoders.log 2>&1 || \
	{ tail -n 60 $(BUILD)/fuzz/fuzz_decoders.log; \
	  echo "fuzz-decoders-short: failed (log $(BUILD)/fuzz/fuzz_decoders.log)"; exit 1; }; \
	echo "== fuzz_decoders: $$(grep -o 'stat::number_of_executed_units: *[0-9]*' \
		$(BUILD)/fuzz/fuzz_decoders.log | grep -o '[0-9]*$$') runs, no failure"

INTEGRATION_TESTS += fuzz-decoders-short
