# mk/parity.mk: the simulator against the real control plane (docs/simulator.md, "Parity with the
# real control plane").
#
#   make bench-parity   one generated workload (bench/parity/gen.py, 44 DAG jobs with deadlines,
#                       at least 300 tasks of seconds) on two fresh local clusters, under dagsched
#                       (extender, admission webhook, controller) and under the default
#                       kube-scheduler, then through bin/dagsched-sim with the delays measured on
#                       the clusters; prints both sides, the ratios dagsched/default and their
#                       agreement, then pod by pod the wait in kube-scheduler's queue on both
#                       sides (bench/parity/run.sh; about 7 minutes; PARITY_REUSE=DIR simulates a
#                       recorded run again without a cluster). It starts local
#                       clusters: run it as  flock /tmp/dagsched-cluster.lock make bench-parity
#                       ETA_SAMPLE=1: also the error of the plugin's ETA during the dagsched
#                       run (bench/eta)
#   make bench-parity-all   bench-parity on every workload shape (PARITY_SHAPES: generator,
#                       backlog, long-backlog, wide, urgent) and seed (PARITY_SEEDS, default
#                       "1 2"), then one agreement table (bench/parity/all.sh)
#   make parity-test    the generator's invariants and the report's arithmetic on a recorded
#                       result (tests/parity; no cluster); the ETA error report's arithmetic on
#                       a sample file and the sampler (tests/eta)

.PHONY: bench-parity bench-parity-all parity-test

bench-parity: $(BIN)/dagsched-sim $(BIN)/dagsched-extender $(BIN)/dagsched-controller \
		$(BIN)/kubectl-dagsched
	@bench/parity/run.sh

bench-parity-all: $(BIN)/dagsched-sim $(BIN)/dagsched-extender $(BIN)/dagsched-controller
	@bench/parity/all.sh

parity-test: $(BIN)/dagsched-sim
	@python3 tests/parity/test_parity.py
	@python3 tests/eta/test_eta.py

INTEGRATION_TESTS += parity-test
