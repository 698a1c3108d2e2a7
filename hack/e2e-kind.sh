#!/usr/bin/env bash
# e2e-kind.sh: for users with Docker and kind, after hack/kind-up.sh. Runs sample DAG workloads of
# examples/ on the kind cluster with dagsched, waits for every Job to complete, and prints the
# same per-job report as `make demo` (makespan, deadline met or missed, evictions, placement).
#   CLUSTER_NAME (default dagsched), NAMESPACE for the workloads (default dagsched-e2e),
#   TIMEOUT in seconds (default 600),
#   WORKLOAD: files to run (default examples/hello-dag.yaml, three 100m-CPU tasks that fit one
#   2-CPU kind node); WORKLOAD=demo runs the demo's jobs instead, whose requests are sized for the
#   demo's fake 16-CPU nodes: give the kind nodes that much capacity first.
set -euo pipefail
cd "$(dirname "$0")/.."
CLUSTER_NAME=${CLUSTER_NAME:-dagsched}
NAMESPACE=${NAMESPACE:-dagsched-e2e}
TIMEOUT=${TIMEOUT:-600}
K=(kubectl --context "kind-$CLUSTER_NAME")
for tool in kubectl python3; do
  command -v "$tool" >/dev/null || { echo "e2e-kind: $tool is required" >&2; exit 1; }
done
"${K[@]}" get deployment -n dagsched-system dagsched-extender >/dev/null 2>&1 || {
  echo "e2e-kind: dagsched is not installed in kind-$CLUSTER_NAME; run hack/kind-up.sh first" >&2
  exit 1
}
out=$(mktemp -d)
trap '"${K[@]}" delete namespace "$NAMESPACE" --wait=false >/dev/null 2>&1 || true' EXIT
"${K[@]}" create namespace "$NAMESPACE"
"${K[@]}" apply -f examples/deadline-priority-class.yaml
case "${WORKLOAD:-examples/hello-dag.yaml}" in
  demo) workloads=(examples/batch-backfill.yaml examples/etl-urgent.yaml examples/ml-pipeline.yaml) ;;
  *) read -r -a workloads <<<"${WORKLOAD:-examples/hello-dag.yaml}" ;;
esac
for w in "${workloads[@]}"; do
  [[ -r "$w" ]] || { echo "e2e-kind: workload file '$w' is not readable" >&2; exit 1; }
done
for w in "${workloads[@]}"; do
  "${K[@]}" create -n "$NAMESPACE" -f "$w"
done
echo "e2e-kind: waiting up to ${TIMEOUT}s for every Job in $NAMESPACE to complete"
"${K[@]}" wait -n "$NAMESPACE" --for=condition=complete job --all --timeout="${TIMEOUT}s"
for kind in pods jobs events; do
  "${K[@]}" get -n "$NAMESPACE" "$kind" -o json >"$out/$kind.json"
done
"${K[@]}" get nodes -o json >"$out/nodes.json"
python3 hack/demo/summary.py report --run "dagsched=$out" --workload "${workloads[@]}"
