#!/usr/bin/env bash
# integration.sh: Argo Workflows under dagsched, against the real Argo controller
# (github.com/argoproj/argo-workflows/v4, hack/cluster/build-argo.sh) on a local control plane
# (hack/cluster/with-cluster.sh with ARGO=1) with two 4-cpu nodes (tests/controller/nodes.tsv) and
# the scheduler profile "dagsched" (tests/extender/admission-scheduler-config.yaml). kwok plays the
# pods (hack/cluster/kwok/pod-complete-argo.yaml: `sleep N` in the main container). The extender
# serves the admission webhook that gates every dagsched pod at creation, as installed clusters
# do; the controller releases them. The Workflows carry no dagsched annotation but the deadline.
#   diamond   extract -> (clean, enrich) -> load (`dependencies`), each `sleep 2`: it succeeds; every
#             pod was gated at creation and released by the controller (released-at annotation)
#             never before its upstream tasks finished, as a task of the Workflow's DAG (its
#             Released Event names its upstream tasks); no pod got an InvalidJob Event
#   fan-out   (`depends`) a task with withItems of 20 after a root and before a join, 1 cpu each on 8 cpus, podGC
#             OnPodSuccess, and a retried task whose first attempt fails (retryStrategy): the
#             Workflow succeeds; the join ran after every item; the retried task ran twice
#   invalid   a DAG with `depends: "a || b"`, which dagsched does not support: the Workflow still
#             runs to Succeeded, and its pods get a Warning Event InvalidJobGraph saying why
# Usage: integration.sh EXTENDER CONTROLLER   (prints "argo integration: N passed, M failed")
#        integration.sh --inside EXTENDER CONTROLLER (run by with-cluster.sh)
# shellcheck disable=SC2317 # helpers are called through wait_until
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SELF="$ROOT/tests/argo/integration.sh"

abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
if [[ "${1:-}" != --inside ]]; then
  [[ $# -eq 2 && -x "$1" && -x "$2" ]] || {
    echo "usage: $0 EXTENDER CONTROLLER (executables)" >&2
    exit 2
  }
  export NODE_PROFILE="$ROOT/tests/controller/nodes.tsv"
  export SCHEDULER_CONFIG="$ROOT/tests/extender/admission-scheduler-config.yaml"
  export ARGO=1
  exec "$ROOT/hack/cluster/with-cluster.sh" "$SELF" --inside "$(abs "$1")" "$(abs "$2")"
fi
EXT="$2"
CTL="$3"
K() { "$KUBECTL" "$@"; }
LOGDIR="$CLUSTER_DIR/argo-logs"
CERTS="$CLUSTER_DIR/argo-certs"
mkdir -p "$LOGDIR"
"$ROOT/hack/gen-test-certs.sh" "$CERTS"
PASSED=0
FAILED=0
INSTALL_NS=dagsched-system
NS=wf

pass() {
  PASSED=$((PASSED + 1))
  echo "argo: ok $PASSED - $*"
}
failed() {
  FAILED=$((FAILED + 1))
  echo "argo: FAILED - $*" >&2
  ((FAILED == 1)) || return 0 # the logs' tails once, at the first failure
  for f in "$LOGDIR"/*.log "$CLUSTER_DIR/logs/argo-controller.log"; do
    [[ -f "$f" ]] || continue
    echo "---- tail of $f" >&2
    tail -n 15 "$f" >&2
  done
  K get workflows -A -o wide >&2 2>&1 || true
}
check() {
  local what="$1"
  shift
  if "$@"; then pass "$what"; else failed "$what"; fi
}
wait_until() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

EXT_PORT="$(free_port)"
ADM_PORT="$(free_port)"
CTL_PORT="$(free_port)"
EXT_PID=""
CTL_PID=""
stop_pid() { # PID
  [[ -n "$1" ]] || return 0
  kill -TERM "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
stop_all() {
  stop_pid "$CTL_PID"
  CTL_PID=""
  stop_pid "$EXT_PID"
  EXT_PID=""
}
trap stop_all EXIT

K create namespace "$INSTALL_NS" >/dev/null
K create namespace "$NS" >/dev/null
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}" \
  UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
  "$EXT" --kubeconfig "$KUBECONFIG" --log-level debug --listen "127.0.0.1:$EXT_PORT" \
  --tls-cert "$CERTS/a.crt" --tls-key "$CERTS/a.key" --admission-listen "127.0.0.1:$ADM_PORT" \
  --admission-install-namespace "$INSTALL_NS" --policy-namespace "$INSTALL_NS" \
  >>"$LOGDIR/extender.log" 2>&1 &
EXT_PID=$!
check "the extender serves its webhook" \
  wait_until 60 curl -sf --cacert "$CERTS/ca.crt" "https://127.0.0.1:$ADM_PORT/healthz"
check "the extender watches Workflows (the Argo CRDs are installed)" \
  grep -q "Argo Workflows are installed: watching Workflows" "$LOGDIR/extender.log"
K apply -f - >/dev/null <<YAML
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: dagsched-admission-test}
webhooks:
  - name: gate.dagsched.io
    admissionReviewVersions: [v1]
    sideEffects: None
    timeoutSeconds: 5
    failurePolicy: Ignore
    reinvocationPolicy: IfNeeded
    clientConfig:
      url: https://127.0.0.1:$ADM_PORT/mutate-pods
      caBundle: $(base64 -w0 "$CERTS/ca.crt")
    rules:
      - {operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods], scope: Namespaced}
    namespaceSelector:
      matchExpressions:
        - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, argo]}
YAML
probe_gated() {
  K -n "$NS" delete pod probe --ignore-not-found --wait=true >/dev/null 2>&1
  K -n "$NS" create -f - >/dev/null <<'YAML' || return 1
apiVersion: v1
kind: Pod
metadata: {name: probe}
spec:
  schedulerName: dagsched
  containers: [{name: main, image: busybox}]
YAML
  [[ "$(K -n "$NS" get pod probe -o jsonpath='{.spec.schedulingGates[*].name}')" == *dagsched.io/dependencies* ]]
}
check "the webhook is called by the API server" wait_until 30 probe_gated
K -n "$NS" delete pod probe --wait=false >/dev/null 2>&1 || true

"$CTL" --kubeconfig "$KUBECONFIG" --log-level debug --leader-elect=false \
  --policy-namespace "$INSTALL_NS" --metrics-listen "127.0.0.1:$CTL_PORT" >"$LOGDIR/controller.log" 2>&1 &
CTL_PID=$!
check "the controller watches Workflows" \
  wait_until 60 grep -q "Argo Workflows are installed: watching Workflows" "$LOGDIR/controller.log"

wf_phase() { K -n "$NS" get workflow "$1" -o jsonpath='{.status.phase}' 2>/dev/null; }
wf_done() { [[ "$(wf_phase "$1")" == Succeeded ]]; }
deadline_in() { date -u -d "+$1 sec" +%Y-%m-%dT%H:%M:%SZ; }
# not_before A B: both timestamps (RFC 3339, any precision) are set and A >= B.
not_before() {
  [[ -n "$1" && -n "$2" && "$1" != null && "$2" != null ]] || return 1
  awk -v a="$(date -u -d "$1" +%s.%N)" -v b="$(date -u -d "$2" +%s.%N)" 'BEGIN { exit !(a >= b) }'
}

# ---- diamond
K -n "$NS" create -f - >/dev/null <<YAML
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  name: etl
  annotations: {dagsched.io/deadline: "$(deadline_in 600)"}
spec:
  entrypoint: main
  schedulerName: dagsched
  templates:
    - name: main
      dag:
        tasks:
          - {name: extract, template: work}
          - {name: clean, template: work, dependencies: [extract]}
          - {name: enrich, template: work, dependencies: [extract]}
          - {name: load, template: work, dependencies: [clean, enrich]}
    - name: work
      container:
        image: busybox
        command: [sleep]
        args: ["2"]
        resources: {requests: {cpu: "1"}}
YAML
check "the diamond Workflow runs to Succeeded under dagsched" wait_until 180 wf_done etl
json="$(K -n "$NS" get pods -l workflows.argoproj.io/workflow=etl -o json)"
task_pod() { jq -r --arg n "etl.$1" '.items[] | select(.metadata.annotations["workflows.argoproj.io/node-name"]==$n) | .metadata.name' <<<"$json"; }
start_of() { jq -r --arg n "$1" '.items[] | select(.metadata.name==$n) | .status.startTime' <<<"$json"; }
end_of() { jq -r --arg n "$1" '.items[] | select(.metadata.name==$n) | [.status.containerStatuses[].state.terminated.finishedAt] | max' <<<"$json"; }
released_at() { jq -r --arg n "$1" '.items[] | select(.metadata.name==$n) | .metadata.annotations["dagsched.io/released-at"] // ""' <<<"$json"; }
order_ok=1
for pair in clean:extract enrich:extract load:clean load:enrich; do
  t="$(task_pod "${pair%%:*}")" u="$(task_pod "${pair#*:}")"
  if ! not_before "$(start_of "$t")" "$(end_of "$u")" || ! not_before "$(released_at "$t")" "$(end_of "$u")"; then
    echo "  $t (released $(released_at "$t"), started $(start_of "$t")) before $u finished at $(end_of "$u")" >&2
    order_ok=0
  fi
done
check "no task was released or started before its upstream tasks finished" test "$order_ok" = 1
released=0
for t in extract clean enrich load; do [[ -n "$(released_at "$(task_pod "$t")")" ]] && released=$((released + 1)); done
check "all four pods were gated at creation and released by the controller" test "$released" = 4
released_msg() { K -n "$NS" get events --field-selector "reason=Released,involvedObject.name=$1" -o jsonpath='{.items[*].message}' 2>/dev/null; }
check "load was released as the DAG task after clean and enrich (Released Event)" \
  grep -qF "its upstream tasks (clean, enrich) have succeeded" <<<"$(released_msg "$(task_pod load)")"
check "extract was released as a root task of the DAG" \
  grep -qF "its upstream tasks (none) have succeeded" <<<"$(released_msg "$(task_pod extract)")"
invalid_events() { K -n "$NS" get events --field-selector "reason=$1" -o name 2>/dev/null | grep -c . || true; }
check "no InvalidJob or InvalidJobGraph Event for the diamond" \
  test "$(invalid_events InvalidJob)" = 0 -a "$(invalid_events InvalidJobGraph)" = 0

# ---- fan-out of 20, podGC, a retry
K -n "$NS" create -f - >/dev/null <<YAML
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  name: fan
  annotations: {dagsched.io/deadline-after: "10m"}
spec:
  entrypoint: main
  schedulerName: dagsched
  podGC: {strategy: OnPodSuccess}
  templates:
    - name: main
      dag:
        tasks:
          - {name: root, template: work}
          - {name: shard, template: work, depends: root, withItems: [$(seq -s, 0 19)]}
          - {name: flaky, template: fail-once, depends: root}
          - {name: join, template: work, depends: "shard && flaky"}
    - name: work
      container:
        image: busybox
        command: [sleep]
        args: ["1"]
        resources: {requests: {cpu: "1"}}
    - name: fail-once
      retryStrategy: {limit: 2}
      container:
        image: busybox
        command: [exit]
        args: ["{{=asInt(retries) < 1 ? '1' : '0'}}"]
        resources: {requests: {cpu: "1"}}
YAML
check "the fan-out Workflow runs to Succeeded under dagsched" wait_until 300 wf_done fan
wfjson="$(K -n "$NS" get workflow fan -o json)"
node_time() { jq -r --arg n "$1" --arg f "$2" '.status.nodes[] | select(.name==$n) | .[$f]' <<<"$wfjson"; }
items_done_before_join=1
join_start="$(node_time fan.join startedAt)"
for i in $(seq 0 19); do
  f="$(jq -r --arg p "fan.shard($i:" '.status.nodes[] | select(.type=="Pod" and (.name | startswith($p))) | .finishedAt' <<<"$wfjson")"
  not_before "$join_start" "$f" || items_done_before_join=0
done
check "20 items ran and the join started after every one of them" test "$items_done_before_join" = 1
no_succeeded_pods() { [[ -z "$(K -n "$NS" get pods -l workflows.argoproj.io/workflow=fan --field-selector=status.phase=Succeeded -o name)" ]]; }
check "podGC deleted the succeeded pods" wait_until 60 no_succeeded_pods
check "the retried task ran twice, its first attempt failed" \
  test "$(jq '[.status.nodes[] | select(.type=="Pod" and (.name | startswith("fan.flaky(")))] | length' <<<"$wfjson")" -ge 2

# ---- a DAG dagsched does not support: left to run, with a Warning Event
K -n "$NS" create -f - >/dev/null <<YAML
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: {name: either}
spec:
  entrypoint: main
  schedulerName: dagsched
  templates:
    - name: main
      dag:
        tasks:
          - {name: a, template: work}
          - {name: b, template: work}
          - {name: c, template: work, depends: "a || b"}
    - name: work
      container:
        image: busybox
        command: [sleep]
        args: ["1"]
        resources: {requests: {cpu: "1"}}
YAML
check "a Workflow dagsched cannot model still runs to Succeeded" wait_until 180 wf_done either
why() { K -n "$NS" get events --field-selector reason=InvalidJobGraph -o jsonpath='{range .items[*]}{.message}{"\n"}{end}' 2>/dev/null; }
has_why() { why | grep -qF 'depends "a || b": dagsched supports only'; }
check "... and its pods got a Warning Event saying why" wait_until 30 has_why

stop_all
check "the extender and the controller left no sanitizer report" \
  bash -c "! grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' '$LOGDIR/extender.log' '$LOGDIR/controller.log'"
K delete mutatingwebhookconfiguration dagsched-admission-test >/dev/null 2>&1 || true
echo "argo integration: $PASSED passed, $FAILED failed"
((FAILED == 0))
