# mk/urgent.mk: the deadline guarantee on a real control plane (docs/controller.md, "Urgent work
# behind batch work").
#
#   make bench-urgent   an urgent DAG job 0, 10 and 30 s after a batch DAG job that fills the
#                       cluster, side by side under dagsched, the default scheduler and the
#                       default scheduler with a preempting PriorityClass, declared as Argo
#                       Workflows (the real Argo controller) and as plain batch/v1 Jobs
#                       (bench/urgent/run.sh; about 25 minutes a seed). OFFSETS="0 10 30",
#                       ENGINES="argo jobs", SEEDS="1" and ANNOTATE=1 (run-time annotations
#                       instead of learned run times) select.
#                       It starts a local cluster: flock /tmp/dagsched-cluster.lock make bench-urgent

.PHONY: bench-urgent

bench-urgent: $(BIN)/dagsched-extender $(BIN)/dagsched-controller argo-build
	@bench/urgent/run.sh $(BIN)/dagsched-extender $(BIN)/dagsched-controller
