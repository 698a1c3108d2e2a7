#!/usr/bin/env bash
# install_cluster.sh: the chart against a real kube-apiserver (run inside hack/cluster/with-cluster.sh):
# every rendered object passes server-side dry-run, `helm install` creates them, the Deployments
# roll out on the fake nodes, each ServiceAccount is allowed exactly what it needs, and `helm
# uninstall` removes everything. Prints 'N passed, N failed'.
set -uo pipefail
cd "$(dirname "$0")/../.."
: "${KUBECONFIG:?run inside hack/cluster/with-cluster.sh}"
tools=$(hack/install-helm.sh | tail -n 1)
HELM="$tools/helm"
K="${KUBECTL:-$tools/kubectl}"
NS=dagsched-system
passed=0 failed=0
check() { # name, command...
  local name=$1
  shift
  if "$@" >/tmp/install-check.$$ 2>&1; then
    passed=$((passed + 1))
    echo "ok   $name"
  else
    failed=$((failed + 1))
    echo "FAIL $name"
    sed 's/^/     /' /tmp/install-check.$$ | tail -n 15
  fi
}
expect_no() { ! "$@"; }

"$K" create namespace "$NS" >/dev/null

check "rendered defaults pass server-side dry-run" \
  bash -c "'$HELM' template dagsched helm/dagsched -n $NS | '$K' apply --dry-run=server -f -"
check "rendered non-default values pass server-side dry-run" \
  bash -c "'$HELM' template dagsched helm/dagsched -n $NS --set controller.dryRun=true \
    --set extender.tls.enabled=true --set extender.tls.secretName=dagsched-tls \
    --set controller.leaderElection.enabled=false --set-json 'policy.extra={\"strict\":{\"preemption\":{\"rho\":3}}}' \
    | '$K' apply --dry-run=server -f -"
check "manifests/dagsched.yaml passes server-side dry-run" \
  "$K" apply --dry-run=server -f manifests/dagsched.yaml

check "helm install" "$HELM" install dagsched helm/dagsched -n "$NS" --wait --timeout 120s
for d in dagsched-extender dagsched-controller dagsched-scheduler; do
  check "deployment $d rolled out" "$K" -n "$NS" rollout status "deployment/$d" --timeout=60s
done
check "policy ConfigMap labelled for discovery" bash -c \
  "'$K' -n $NS get configmap -l dagsched.io/kind=SchedulingPolicy -o name | grep -qx configmap/dagsched-policy-default"
check "extender Service" "$K" -n "$NS" get service dagsched-extender
check "controller PDB" "$K" -n "$NS" get pdb dagsched-controller

sa() { echo "system:serviceaccount:$NS:dagsched-$1"; }
can() { "$K" auth can-i --as "$(sa "$1")" "${@:2}"; }
# controller: what it needs
check "controller can evict pods" can controller create pods --subresource=eviction -n default
check "controller can patch pods" can controller patch pods -n default
check "controller can watch nodes" can controller watch nodes
check "controller can patch jobs" can controller patch jobs.batch -n default
check "controller can read PDBs" can controller list poddisruptionbudgets.policy -n default
check "controller can list namespaces" can controller list namespaces
check "controller can watch namespaces" can controller watch namespaces
check "controller can get a namespace" can controller get namespaces/default
check "controller can post events" can controller create events -n default
check "controller can nominate a node" can controller patch pods --subresource=status -n default
check "controller can write its ledger" can controller update configmaps -n "$NS"
check "controller cannot write configmaps elsewhere" expect_no can controller update configmaps -n default
check "controller can update its lease" can controller update leases.coordination.k8s.io -n "$NS"
# controller: what it must not do
check "controller cannot read secrets" expect_no can controller get secrets -n "$NS"
check "controller cannot delete pods" expect_no can controller delete pods -n default
check "controller cannot delete nodes" expect_no can controller delete nodes
check "controller cannot take leases elsewhere" expect_no can controller update leases.coordination.k8s.io -n kube-system
check "controller cannot label namespaces" expect_no can controller patch namespaces
check "controller cannot create namespaces" expect_no can controller create namespaces
check "controller cannot delete namespaces" expect_no can controller delete namespaces
# extender
check "extender can list pods" can extender list pods -n default
check "extender can watch nodes" can extender watch nodes
check "extender can read policies" can extender get configmaps -n "$NS"
check "extender can list namespaces" can extender list namespaces
check "extender can watch namespaces" can extender watch namespaces
check "extender cannot update namespaces" expect_no can extender update namespaces
check "extender cannot patch pods" expect_no can extender patch pods -n default
check "extender cannot evict" expect_no can extender create pods --subresource=eviction -n default
check "extender cannot read secrets" expect_no can extender get secrets -n default
# scheduler
check "scheduler can bind pods" can scheduler create pods --subresource=binding -n default
check "scheduler can use its lease" can scheduler update leases.coordination.k8s.io/dagsched-scheduler -n "$NS"
check "scheduler cannot delete nodes" expect_no can scheduler delete nodes

check "helm uninstall" "$HELM" uninstall dagsched -n "$NS" --wait --timeout 60s
check "no cluster-scoped leftovers" bash -c \
  "! '$K' get clusterroles,clusterrolebindings -o name | grep -q dagsched"
rm -f /tmp/install-check.$$
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
