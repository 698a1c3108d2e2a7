# mk/controller.mk: the DAG controller (bin/dagsched-controller) and its tests.
#
#   bin/dagsched-controller                     the binary (release build)
#   $(BUILD)/<variant>/libdsctl.a               the controller's pure decision modules
#   make controller-unit-test / -asan           tests/controller/test_*.c (cmocka, no cluster)
#   make controller-integration-test            tests/controller/integration.sh on a local control
#                                               plane, with the ASan+UBSan build of the binary and
#                                               of tests/controller/prog_releaser_itest.c
#   make bench-scale                            the controller and the extender at 1,000 nodes
#                                               and 20,000 pods
#   make bench-release                          the controller's release rate at 1,000 nodes:
#                                               2,000 gated ready tasks a run, one release at a
#                                               time and 16 at once, against the API server's own
#                                               PATCH ceiling
#
# The decision modules (view, ledger, guards, preempt, release, publish, tracker, workset, memo) are pure
# and linked into the unit tests; the rest (actions, round, ledger_store, main...) talks to the API
# server. The tracker reads decoded API objects (kube/objects.h) but does no I/O.

CTL_CORE_NAMES := view ledger guards preempt reserve release publish tracker outcomes wqueue \
                  tenants \
                  cadence workset memo
CTL_CORE_SRCS  := $(addprefix controller/,$(addsuffix .c,$(CTL_CORE_NAMES)))
CTL_IO_SRCS    := $(filter-out $(CTL_CORE_SRCS),$(wildcard controller/*.c))
CTL_TEST_SRCS  := $(wildcard tests/controller/test_*.c)
CTL_TEST_NAMES := $(patsubst tests/controller/%.c,%,$(CTL_TEST_SRCS))
CTL_CFLAGS     := -Icontroller -Ilib -Ikube -Iruntime -pthread
CTL_CORE_LIBS  := -ljansson -lyaml -lm

define ctl_variant
# $(1) = variant name, $(2) = extra flags
$(BUILD)/$(1)/controller/%.o: controller/%.c
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_BASE) $(2) $$(CTL_CFLAGS) -c $$< -o $$@

$(BUILD)/$(1)/libdsctl.a: $$(patsubst controller/%.c,$(BUILD)/$(1)/controller/%.o,$$(CTL_CORE_SRCS))
	@mkdir -p $$(@D)
	rm -f $$@
	ar rcs $$@ $$^

$(BUILD)/$(1)/tests/controller/%: tests/controller/%.c $(wildcard tests/controller/*.h) \
		$(BUILD)/$(1)/libdsctl.a $(BUILD)/$(1)/libdskube.a $(BUILD)/$(1)/libdsruntime.a \
		$(BUILD)/$(1)/libdagsched.a
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_BASE) $(2) $$(CTL_CFLAGS) -Itests/controller $$< $$(filter %.o,$$^) -o $$@ \
		$(BUILD)/$(1)/libdsctl.a $(BUILD)/$(1)/libdskube.a $(BUILD)/$(1)/libdsruntime.a \
		$(BUILD)/$(1)/libdagsched.a \
		$$(CTL_TEST_LIBS) $$(CTL_CORE_LIBS) -lpthread $$(CMOCKA_LIBS)

# test_uninstall checks the flags of `dagsched-controller uninstall` (an I/O module, linked in with
# the Kubernetes client's libraries); no server: what it does on a cluster is the integration
# suite's uninstall scenario.
$(BUILD)/$(1)/tests/controller/test_uninstall: $(BUILD)/$(1)/controller/uninstall.o
$(BUILD)/$(1)/tests/controller/test_uninstall: CTL_TEST_LIBS = $$(KUBE_LIBS) $$(RUNTIME_LIBS)
# test_releaser checks the release window (an I/O module) where it sends nothing; what it sends
# is prog_releaser_itest's, a program of the integration suite (scenario releaser) that releases
# real pods through the real kube-apiserver behind the fault proxy of tests/kube.
$(BUILD)/$(1)/tests/controller/test_releaser: $(BUILD)/$(1)/controller/releaser.o
$(BUILD)/$(1)/tests/controller/test_releaser: CTL_TEST_LIBS = $$(KUBE_LIBS) $$(RUNTIME_LIBS)
$(BUILD)/$(1)/tests/controller/prog_releaser_itest: $(BUILD)/$(1)/controller/releaser.o \
		tests/kube/itest_util.h tests/kube/fault_proxy.h
$(BUILD)/$(1)/tests/controller/prog_releaser_itest: CTL_TEST_LIBS = $$(KUBE_LIBS) $$(RUNTIME_LIBS)
endef

$(eval $(call ctl_variant,rel,$(OPT_FLAGS)))
$(eval $(call ctl_variant,asan,$(SAN_FLAGS)))

CTL_UNIT_REL  := $(addprefix $(BUILD)/rel/tests/controller/,$(CTL_TEST_NAMES))
CTL_UNIT_ASAN := $(addprefix $(BUILD)/asan/tests/controller/,$(CTL_TEST_NAMES))

.PHONY: controller-unit-test controller-unit-test-asan controller-integration-test
controller-unit-test: $(CTL_UNIT_REL)
	@set -e; for t in $(CTL_UNIT_REL); do echo "== $$t"; $$t; done

controller-unit-test-asan: $(CTL_UNIT_ASAN)
	@set -e; for t in $(CTL_UNIT_ASAN); do echo "== $$t (asan+ubsan)"; \
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 $$t; done

INTEGRATION_TESTS += controller-unit-test controller-unit-test-asan

# The binary: the decision modules, the I/O modules, the Kubernetes client and the HTTP runtime.
$(BUILD)/rel/controller/main.o: CTL_CFLAGS += $(VERSION_FLAGS)
BINARIES += $(BIN)/dagsched-controller
$(BIN)/dagsched-controller: $(patsubst controller/%.c,$(BUILD)/rel/controller/%.o,$(CTL_IO_SRCS)) \
		$(BUILD)/rel/libdsctl.a $(BUILD)/rel/libdskube.a $(BUILD)/rel/libdsruntime.a \
		$(BUILD)/rel/libdagsched.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(OPT_FLAGS) -o $@ $(filter %.o,$^) $(BUILD)/rel/libdsctl.a \
		$(BUILD)/rel/libdskube.a $(BUILD)/rel/libdsruntime.a $(BUILD)/rel/libdagsched.a \
		$(KUBE_LIBS) $(RUNTIME_LIBS) $(CTL_CORE_LIBS)

# The same binary with AddressSanitizer and UndefinedBehaviorSanitizer, for the integration suite.
$(BUILD)/asan/controller/main.o: CTL_CFLAGS += $(VERSION_FLAGS)
$(BUILD)/asan/bin/dagsched-controller: $(patsubst controller/%.c,$(BUILD)/asan/controller/%.o,$(CTL_IO_SRCS)) \
		$(BUILD)/asan/libdsctl.a $(BUILD)/asan/libdskube.a $(BUILD)/asan/libdsruntime.a \
		$(BUILD)/asan/libdagsched.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(SAN_FLAGS) -o $@ $(filter %.o,$^) $(BUILD)/asan/libdsctl.a \
		$(BUILD)/asan/libdskube.a $(BUILD)/asan/libdsruntime.a $(BUILD)/asan/libdagsched.a \
		$(KUBE_LIBS) $(RUNTIME_LIBS) $(CTL_CORE_LIBS)

# The suite runs the sanitizer build: a memory error, undefined behaviour or a leak at a graceful
# exit fails it (tests/controller/integration.sh checks every controller's log), and the release
# window's program (tests/controller/prog_releaser_itest.c), built the same way.
controller-integration-test: $(BUILD)/asan/bin/dagsched-controller \
		$(BUILD)/asan/tests/controller/prog_releaser_itest
	@DAGSCHED_EXTRA_PACKAGES="jq" hack/install-deps.sh
	@tests/controller/integration.sh $(BUILD)/asan/bin/dagsched-controller \
		$(BUILD)/asan/tests/controller/prog_releaser_itest

INTEGRATION_TESTS += controller-integration-test

# The controller and the extender at scale (issue 16's goals): NODES kwok nodes (default 1000),
# PODS DAG task pods (default 20000), URGENT urgent pods (default 5); prints RSS, CPU per idle
# minute, churn CPU (the extender's too), round CPU
# time, urgent Unschedulable -> eviction latency and the write queue next to the goals
# (tests/controller/bench_scale.sh). A benchmark, not part of `make test`; it starts a cluster:
# `flock /tmp/dagsched-cluster.lock make bench-scale` when other clusters may start.
.PHONY: bench-scale
bench-scale: $(BIN)/dagsched-controller $(BIN)/dagsched-extender
	@tests/controller/bench_scale.sh $(BIN)/dagsched-controller $(BIN)/dagsched-extender

# Release throughput (issue 33's target: >= 100 releases/s sustained), on NODES kwok nodes (default
# 1000): for each --release-concurrency of RELEASE_CONCURRENCY (default "1 16"), PODS gated ready DAG
# task pods (default 2000) with room for all, then the controller (release build) started: the
# sustained release rate from the pods' dagsched.io/released-at, the rounds' duration and CPU time,
# each release's PATCH and Event as the controller waited for them and the PATCH at the API server;
# then, as a baseline, the same number of plain PATCHes sent by curl WINDOW at a time (default 16)
# and SERIAL_N (300) one at a time (bench/release/run.sh; CTL_ARGS adds controller flags,
# CTL_BEFORE=BINARY a first run of another build). A benchmark that prints figures, not part of
# `make test`; about 6 minutes. It starts a cluster:
# `flock /tmp/dagsched-cluster.lock make bench-release` when other clusters may start.
.PHONY: bench-release
bench-release: $(BIN)/dagsched-controller
	@DAGSCHED_EXTRA_PACKAGES="python3" hack/install-deps.sh
	@bench/release/run.sh $(BIN)/dagsched-controller

# The bound on graph work per round (controller/workset.h): the CPU time of the controller's
# snapshot with JobGraphs of 41,000 tasks, without a bound and with --max-graph-tasks-per-round's
# default (bench/bench_graph_work.c). No cluster.
BENCH_GRAPH_WORK := $(BUILD)/rel/bench/bench_graph_work

$(BENCH_GRAPH_WORK): bench/bench_graph_work.c $(BUILD)/rel/libdsctl.a $(BUILD)/rel/libdskube.a \
		$(BUILD)/rel/libdsruntime.a $(BUILD)/rel/libdagsched.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(OPT_FLAGS) $(CTL_CFLAGS) $< -o $@ $(BUILD)/rel/libdsctl.a \
		$(BUILD)/rel/libdskube.a $(BUILD)/rel/libdsruntime.a $(BUILD)/rel/libdagsched.a \
		$(CTL_CORE_LIBS) -lpthread

.PHONY: bench-graph-work
bench-graph-work: $(BENCH_GRAPH_WORK)
	$(BENCH_GRAPH_WORK)

# Dependency order whatever the order in which pods are created, with the admission webhook up and
# down, and jobs whose graph is invalid (tests/order/integration.sh). About four minutes.
.PHONY: order-integration-test
order-integration-test: $(BUILD)/asan/bin/dagsched-extender $(BUILD)/asan/bin/dagsched-controller
	@DAGSCHED_EXTRA_PACKAGES="jq" hack/install-deps.sh
	@tests/order/integration.sh $(BUILD)/asan/bin/dagsched-extender \
		$(BUILD)/asan/bin/dagsched-controller

INTEGRATION_TESTS += order-integration-test
