# mk/urgent.mk: the deadline guarantee on a real control plane (docs/controller.md, "Urgent work
# behind batch work").
#
#   make bench-urgent   an urgent Argo Workflow 0, 10 and 30 s after a batch Workflow that fills
#                       the cluster, side by side under dagsched, the default scheduler and the
#                       default scheduler with a preempting PriorityClass (bench/urgent/run.sh,
#                       the real Argo controller; about 12 minutes). OFFSETS="0 10 30" and
#                       ANNOTATE=1 (run-time annotations instead of learned run times) select.
#                       It starts a local cluster: flock /tmp/dagsched-cluster.lock make bench-urgent

.PHONY: bench-urgent

bench-urgent: $(BIN)/dagsched-extender $(BIN)/dagsched-controller argo-build
	@bench/urgent/run.sh $(BIN)/dagsched-extender $(BIN)/dagsched-controller
