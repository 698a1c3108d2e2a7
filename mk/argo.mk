# mk/argo.mk: Argo Workflows, natively (docs/dag-jobs.md, "Argo Workflows").
#
#   make argo-build              build (once) and cache Argo's workflow-controller and CRDs
#                                (hack/cluster/build-argo.sh; ~6 min and ~115 MB the first time)
#   make argo-integration-test   tests/argo/integration.sh: Workflows without dagsched annotations
#                                run under dagsched against the real Argo controller on a local
#                                control plane started with ARGO=1; kubectl-dagsched shows them
#                                (ARGO_SCENARIOS="..." picks scenarios)

.PHONY: argo-build argo-integration-test

argo-build:
	@DAGSCHED_EXTRA_PACKAGES="jq" hack/install-deps.sh
	@hack/cluster/build-argo.sh

argo-integration-test: $(BUILD)/asan/bin/dagsched-extender $(BUILD)/asan/bin/dagsched-controller \
		$(BUILD)/asan/bin/kubectl-dagsched argo-build
	@tests/argo/integration.sh $(BUILD)/asan/bin/dagsched-extender \
		$(BUILD)/asan/bin/dagsched-controller $(BUILD)/asan/bin/kubectl-dagsched

INTEGRATION_TESTS += argo-integration-test
