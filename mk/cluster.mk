# mk/cluster.mk: the local Kubernetes control plane (hack/cluster) and its smoke test.
#
#   make cluster-build    build/install the cached Kubernetes binaries and kwok (once per version)
#   make cluster-up       start etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok
#                         and the runtime scaler on 127.0.0.1, create the fake nodes; kubeconfig
#                         in .cache/cluster/kubeconfig (NODE_PROFILE=..., SCHEDULER_CONFIG=...)
#   make cluster-down     stop exactly the processes cluster-up started
#   make cluster-status   show components, nodes and pods
#   make cluster-smoke-test  fresh cluster: a Job and a bare pod run and succeed after their
#                         scaled run times, a Deployment runs, evictions and restarts work
# See docs/local-cluster.md.

.PHONY: cluster-build cluster-up cluster-down cluster-status cluster-smoke-test

cluster-build:
	@hack/cluster/build.sh

cluster-up:
	@hack/cluster/up.sh

cluster-down:
	@hack/cluster/down.sh

cluster-status:
	@hack/cluster/status.sh

cluster-smoke-test:
	@tests/cluster/smoke.sh

INTEGRATION_TESTS += cluster-smoke-test
