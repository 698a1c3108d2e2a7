# mk/install.mk: the Helm chart and the plain-YAML bundle: static chart checks (lint, schema,
# rendered objects, RBAC, pod security, bundle in sync) and `make manifests` to re-render the bundle.

.PHONY: helm-test manifests
helm-test:
	@tools=$$(hack/install-helm.sh | tail -n 1) && python3 tests/install/helm_static.py "$$tools"

manifests:
	hack/render-manifests.sh

INTEGRATION_TESTS += helm-test

# The chart installed into a fresh real local control plane (see hack/cluster).
.PHONY: install-test
# The extender binary serves the installed certificate on 127.0.0.1 (the cluster's pods are fake).
install-test: $(BIN)/dagsched-extender $(BUILD)/asan/bin/dagsched-controller
	@hack/cluster/with-cluster.sh tests/install/install_cluster.sh $(BIN)/dagsched-extender \
		$(BUILD)/asan/bin/dagsched-controller

INTEGRATION_TESTS += install-test
