# mk/sim.mk: the simulator bin/dagsched-sim, its tests (tests/sim) and the outcome benchmark.
#
#   make bin/dagsched-sim     build the simulator
#   make sim-test             simulator tests (optimised);  make sim-test-asan  under ASan+UBSan
#   make bench-outcomes       all policies on the same seeds and workloads: ratio table + plots;
#                             dagsched with spec.order.withinJob dsp (shipped) and criticalPath
#   make bench-sim-scale      DSP's largest setting (2,500 jobs, up to 2,000 tasks each)
#   make bench-preemption     does preemption pay? dagsched with preemption as shipped, off, the
#                             paper's rule and one rule changed at a time, on six shapes
#   make bench-gain           where dagsched's gain comes from: one part of the release changed
#                             at a time (order, rounds, latency, look-ahead, starvation guard)
#   (the three benchmarks above run on SIM_MODEL_ARGS, the model parity was shown with)
#   make bench-sim-nobackoff  the medium workload with kube-scheduler's back-off and without: run
#                             time and event heap of both, and their ratios

SIM_SRCS       := $(wildcard sim/*.c)
SIM_LIB_SRCS   := $(filter-out sim/main.c,$(SIM_SRCS))
SIM_TEST_NAMES := $(patsubst tests/sim/%.c,%,$(wildcard tests/sim/test_*.c))
SIM_LIBS       := $(YAML_LIBS) $(LIBS_COMMON)

BINARIES          += $(BIN)/dagsched-sim
INTEGRATION_TESTS += sim-test sim-test-asan

define sim_variant
# $(1) = variant name, $(2) = extra flags
$(BUILD)/$(1)/sim/%.o: sim/%.c
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_BASE) $(2) -Isim -Iruntime -c $$< -o $$@

$(BUILD)/$(1)/libdagsched-sim.a: $$(patsubst sim/%.c,$(BUILD)/$(1)/sim/%.o,$$(SIM_LIB_SRCS))
	@mkdir -p $$(@D)
	rm -f $$@
	ar rcs $$@ $$^

$(BUILD)/$(1)/tests/sim/%: tests/sim/%.c $(BUILD)/$(1)/libdagsched-sim.a $(BUILD)/$(1)/libdsruntime.a \
		$(BUILD)/$(1)/libdagsched.a
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_BASE) $(2) -Isim -Iruntime -Itests/sim $$< -o $$@ $(BUILD)/$(1)/libdagsched-sim.a \
		$(BUILD)/$(1)/libdsruntime.a $(BUILD)/$(1)/libdagsched.a $$(SIM_LIBS) $$(CMOCKA_LIBS)
endef

$(eval $(call sim_variant,rel,$(OPT_FLAGS)))
$(eval $(call sim_variant,asan,$(SAN_FLAGS)))

$(BIN)/dagsched-sim: $(BUILD)/rel/sim/main.o $(BUILD)/rel/libdagsched-sim.a $(BUILD)/rel/libdsruntime.a \
		$(BUILD)/rel/libdagsched.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(OPT_FLAGS) $^ -o $@ $(SIM_LIBS)

SIM_TEST_REL  := $(addprefix $(BUILD)/rel/tests/sim/,$(SIM_TEST_NAMES))
SIM_TEST_ASAN := $(addprefix $(BUILD)/asan/tests/sim/,$(SIM_TEST_NAMES))

.PHONY: sim-test sim-test-asan bench-outcomes bench-sim-scale bench-preemption bench-sim-nobackoff

# Run from the repository root: the tests read tests/sim/data.
sim-test: $(SIM_TEST_REL)
	@set -e; for t in $(SIM_TEST_REL); do echo "== $$t"; $$t; done

sim-test-asan: $(SIM_TEST_ASAN)
	@set -e; for t in $(SIM_TEST_ASAN); do echo "== $$t (asan+ubsan)"; \
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 $$t; done

BENCH_DIR ?= $(BUILD)/bench
# The model the outcome and preemption figures are measured on (docs/simulator.md): kube-scheduler's
# timing on the local control plane (a scheduling cycle of 0.5 ms, 0.75 ms when it fails, the
# back-off queue flushed every 1.00085 s: "Parity with the real control plane") and the release
# cost measured by make bench-release (0.136 s a release, 16 at once); held room is on by default.
# SIM_MODEL_ARGS= measures them on the simulator's defaults (instantaneous attempts, free releases).
SIM_MODEL_ARGS ?= --sched-cycle 0.0005 --sched-cycle-failed 0.00075 --backoff-flush 1.00085 \
	--release-cost 0.136 --release-concurrency 16
# The medium workload: DSP's smallest setting (150 jobs: 50 small, 50 medium, 50 large, 165,000
# tasks) on 50 nodes of two speed classes (720 cores, loaded enough that queues form), two seeds;
# tasks are released by a workflow engine.
BENCH_OUTCOMES_ARGS ?= --jobs 150 --seeds 1,2 --nodes 40x12:48Gi:1,10x24:96Gi:1.5
# Small workloads for the Gantt charts and for the dependency-disorder comparison (pods created up
# front, so DAG-unaware policies can start a task before its inputs exist).
BENCH_GANTT_ARGS ?= --jobs 6 --task-scale 0.03 --nodes 4x2:8Gi:1,2x4:16Gi:1.5 --seed 1 \
	--high-priority 0.3
BENCH_UPFRONT_ARGS ?= --jobs 60 --task-scale 0.1 --release upfront --seeds 1,2,3

bench-outcomes: $(BIN)/dagsched-sim
	@mkdir -p $(BENCH_DIR)
	@echo "== outcomes: medium workload ($(BENCH_OUTCOMES_ARGS)), workflow-engine release"
	$(BIN)/dagsched-sim --policy all $(BENCH_OUTCOMES_ARGS) $(SIM_MODEL_ARGS) --table \
		--csv $(BENCH_DIR)/outcomes.csv --json $(BENCH_DIR)/outcomes.json \
		--bars-svg $(BENCH_DIR)/outcomes.svg
	@sed 's/^    withinJob: dsp$$/    withinJob: criticalPath/' policies/default.yaml \
		>$(BENCH_DIR)/critical-path.yaml
	@grep -q '^    withinJob: criticalPath$$' $(BENCH_DIR)/critical-path.yaml
	@echo "== outcomes: medium workload, dagsched with spec.order.withinJob: criticalPath"
	$(BIN)/dagsched-sim --policy default,dagsched $(BENCH_OUTCOMES_ARGS) $(SIM_MODEL_ARGS) --table \
		--policy-file $(BENCH_DIR)/critical-path.yaml --csv $(BENCH_DIR)/outcomes-critical-path.csv
	@echo "== outcomes: pods created up front ($(BENCH_UPFRONT_ARGS))"
	$(BIN)/dagsched-sim --policy all $(BENCH_UPFRONT_ARGS) $(SIM_MODEL_ARGS) --table \
		--csv $(BENCH_DIR)/outcomes-upfront.csv --bars-svg $(BENCH_DIR)/outcomes-upfront.svg
	@echo "== outcomes: pods created up front, dagsched with withinJob: criticalPath"
	$(BIN)/dagsched-sim --policy default,dagsched $(BENCH_UPFRONT_ARGS) $(SIM_MODEL_ARGS) --table \
		--policy-file $(BENCH_DIR)/critical-path.yaml \
		--csv $(BENCH_DIR)/outcomes-upfront-critical-path.csv
	@echo "== Gantt charts ($(BENCH_GANTT_ARGS))"
	$(BIN)/dagsched-sim --policy all $(BENCH_GANTT_ARGS) --quiet \
		--gantt-svg $(BENCH_DIR)/gantt-%s.svg
	@echo "bench-outcomes: tables above; CSV, JSON and SVG plots in $(BENCH_DIR)/"

# DSP's largest setting: 2,500 jobs (small: 100-500, medium: 1,000, large: 2,000 tasks).
# 50 nodes sized so that the cluster is about half busy (an overloaded cluster only grows queues).
BENCH_SCALE_ARGS ?= --jobs 2500 --seed 1 --nodes 40x32:128Gi:1,10x64:256Gi:1.5
bench-sim-scale: $(BIN)/dagsched-sim
	$(BIN)/dagsched-sim --policy dagsched $(BENCH_SCALE_ARGS)

# Five SchedulingPolicy files derived from policies/default.yaml into $(BENCH_DIR), four workload
# shapes, eight seeds; prints a fixed-column table and a verdict per shape (docs/simulator.md,
# "Does preemption pay?"). About a minute on two cores.
BENCH_PREEMPT_SEEDS ?= 1,2,3,4,5,6,7,8
bench-preemption: $(BIN)/dagsched-sim
	SIM_MODEL_ARGS="$(SIM_MODEL_ARGS)" sh sim/bench-preemption.sh $(BIN)/dagsched-sim \
		policies/default.yaml $(BENCH_DIR) $(BENCH_PREEMPT_SEEDS)

# Where dagsched's gain comes from: the release order, rounds, latency, look-ahead and the
# starvation guard, one at a time, on the medium workload at a fifth of its size, eight seeds
# (sim/bench-gain.sh; docs/simulator.md). A few minutes on two cores.
BENCH_GAIN_SEEDS ?= 1,2,3,4,5,6,7,8
.PHONY: bench-gain
bench-gain: $(BIN)/dagsched-sim
	SIM_MODEL_ARGS="$(SIM_MODEL_ARGS)" sh sim/bench-gain.sh $(BIN)/dagsched-sim \
		policies/default.yaml $(BENCH_DIR) $(BENCH_GAIN_SEEDS)

# The medium workload's default policy, seed 1, with kube-scheduler's back-off and with back-off
# disabled (every pod end then retries every parked pod: the heap stays bounded, the work does
# not). Prints each run's time and heap peak and the ratios disabled / back-off. About 8 minutes.
BENCH_NOBACKOFF_ARGS ?= --policy default --jobs 150 --seed 1 --nodes 40x12:48Gi:1,10x24:96Gi:1.5
bench-sim-nobackoff: $(BIN)/dagsched-sim
	@mkdir -p $(BENCH_DIR)
	$(BIN)/dagsched-sim $(BENCH_NOBACKOFF_ARGS) --quiet --csv $(BENCH_DIR)/backoff.csv
	$(BIN)/dagsched-sim $(BENCH_NOBACKOFF_ARGS) --pod-initial-backoff 0 --pod-max-backoff 0 \
		--backoff-flush 0 --quiet --csv $(BENCH_DIR)/nobackoff.csv
	@awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) col[$$i] = i; next } \
		{ w[FILENAME] = $$col["wall_s"]; p[FILENAME] = $$col["peak_events"]; \
		  m[FILENAME] = $$col["makespan_s"] } \
		END { b = "$(BENCH_DIR)/backoff.csv"; n = "$(BENCH_DIR)/nobackoff.csv"; \
		  printf "back-off:          run %.2f s, heap peak %d events, makespan %.0f s\n", w[b], p[b], m[b]; \
		  printf "back-off disabled: run %.2f s, heap peak %d events, makespan %.0f s\n", w[n], p[n], m[n]; \
		  printf "disabled / back-off: run time x%.1f, heap peak x%.2f\n", w[n] / w[b], p[n] / p[b] }' \
		$(BENCH_DIR)/backoff.csv $(BENCH_DIR)/nobackoff.csv
