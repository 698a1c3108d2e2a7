# mk/fairness.mk: fair share across tenants and gang release on a real control plane
# (docs/controller.md, "Fair share on a real cluster").
#
#   make bench-fairness  two tenants (namespace flood: 30 small batch jobs that fill the cluster
#                       and two gang jobs beside them; namespace light: four small DAGs with
#                       deadlines behind the flood; bench/fairness/gen.py), each seed on four
#                       fresh local clusters: the light tenant alone under dagsched, dagsched
#                       with spec.fairness, dagsched without it, the default kube-scheduler;
#                       then through bin/dagsched-sim with the delays measured on the clusters.
#                       Prints per run the light tenant's mean JCT and its ratio to running
#                       alone, the flood's, deadlines met, Jain's index of the tenants' dominant
#                       shares over time, cpu utilisation, the gangs' hold time and partial
#                       starts, and the simulator's agreement (bench/fairness/run.sh; about 10
#                       minutes a seed). FAIR_SEEDS="1 2", FAIR_RUNS, FAIR_POLICY, NOFAIR_POLICY
#                       and FAIR_REUSE=DIR (the report again from recorded cluster results)
#                       select. It starts local clusters: run it as
#                         flock /tmp/dagsched-cluster.lock make bench-fairness
#   make fairness-test  the report's arithmetic (JCT, Jain's index, utilisation, gang hold time
#                       and partial starts) and the generator, without a cluster
#                       (tests/fairness); part of make parity-test

.PHONY: bench-fairness fairness-test

bench-fairness: $(BIN)/dagsched-sim $(BIN)/dagsched-extender $(BIN)/dagsched-controller
	@bench/fairness/run.sh

fairness-test:
	@python3 tests/fairness/test_fairness.py

parity-test: fairness-test
