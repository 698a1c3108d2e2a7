# shellcheck shell=bash disable=SC2034
# cluster_suite.sh: helpers shared by the scripts that run against the local control plane
# (tests/controller/integration.sh, tests/extender/admission_integration.sh,
# tests/argo/integration.sh, bench/parity/run.sh, bench/fairness/run.sh); sourced, not run.
#
# Assertions: a suite sets SUITE (the prefix of its output lines) and may define on_failure
# (called after each failed check, e.g. to show the tails of its logs); SCENARIO, when set,
# prefixes each description. Components: the extender and the controller started in the
# background with the sanitizer options, their pids in EXT_PID and CTL_PID. The cluster helpers
# (K, probe_gated, register_webhook) need KUBECTL, which hack/cluster/with-cluster.sh sets.

SUITE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PASSED=0
FAILED=0
# Sanitizer options of every component started here: leaks checked at a graceful exit, a
# report in the log instead of an abort, the first undefined behaviour stops the process.
SANITIZER_ENV=(
  "ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
  "UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
)
SANITIZER_REPORT='ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:'
EXT_PID=""
CTL_PID=""

# abs_path FILE: FILE's absolute path (its folder must exist).
abs_path() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
K() { "$KUBECTL" "$@"; }

# run_in_cluster SELF N USAGE ARG...: unless there are N ARGs, each an executable, prints
# "usage: USAGE" and exits 2; else runs "SELF --inside ARG..." (absolute paths) in a fresh local
# cluster (hack/cluster/with-cluster.sh, which reads NODE_PROFILE, SCHEDULER_CONFIG and ARGO) in
# place of this process.
run_in_cluster() {
  local self="$1" n="$2" usage="$3" a
  shift 3
  local -a args=()
  for a in "$@"; do
    [[ -x "$a" ]] && args+=("$(abs_path "$a")")
  done
  if [[ $# -ne "$n" || ${#args[@]} -ne "$n" ]]; then
    echo "usage: $usage" >&2
    exit 2
  fi
  exec "$SUITE_ROOT/hack/cluster/with-cluster.sh" "$self" --inside "${args[@]}"
}

# apply_policy NS SPEC: the SchedulingPolicy "default" whose spec is SPEC (YAML lines indented by
# six spaces) as the ConfigMap dagsched-policy-default in NS, as the chart installs it.
apply_policy() {
  K apply -f - >/dev/null <<YAML
apiVersion: v1
kind: ConfigMap
metadata:
  name: dagsched-policy-default
  namespace: $1
  labels: {dagsched.io/kind: SchedulingPolicy}
data:
  policy.yaml: |
    apiVersion: dagsched.io/v1alpha1
    kind: SchedulingPolicy
    metadata: {name: default}
    spec:
$2
YAML
}

# ---- assertions
pass() {
  PASSED=$((PASSED + 1))
  echo "$SUITE: ok $PASSED - ${SCENARIO:+$SCENARIO: }$*"
}
FAILED_CHECKS=()
failed() {
  FAILED=$((FAILED + 1))
  FAILED_CHECKS+=("${SCENARIO:+$SCENARIO: }$*")
  echo "$SUITE: FAILED - ${SCENARIO:+$SCENARIO: }$*" >&2
  if declare -F on_failure >/dev/null; then on_failure; fi
}
# check DESCRIPTION COMMAND...: one assertion.
check() {
  local what="$1"
  shift
  if "$@"; then pass "$what"; else failed "$what"; fi
}
# wait_until SECONDS COMMAND...: polls COMMAND every 0.5 s; status 1 on timeout.
wait_until() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
}
# suite_result NAME: prints "NAME: N passed, M failed", then each failed check again (a log's
# last lines then name them); status 0 when none failed.
suite_result() {
  echo "$1: $PASSED passed, $FAILED failed"
  local f
  for f in "${FAILED_CHECKS[@]}"; do echo "$1: failed: $f"; done
  ((FAILED == 0))
}
# tail_logs LINES FILE...: the last LINES lines of each FILE that exists, on stderr.
tail_logs() {
  local n="$1" f
  shift
  for f in "$@"; do
    [[ -f "$f" ]] || continue
    echo "---- tail of $f" >&2
    tail -n "$n" "$f" >&2
  done
}
# no_sanitizer_report FILE...: none of the logs holds a sanitizer report.
no_sanitizer_report() { ! grep -qE "$SANITIZER_REPORT" "$@"; }

# ---- time stamps
# not_before A B: both timestamps (RFC 3339, any precision) are set and A >= B.
not_before() {
  [[ -n "$1" && -n "$2" && "$1" != null && "$2" != null ]] || return 1
  awk -v a="$(date -u -d "$1" +%s.%N)" -v b="$(date -u -d "$2" +%s.%N)" 'BEGIN { exit !(a >= b) }'
}
deadline_in() { date -u -d "+$1 sec" +%Y-%m-%dT%H:%M:%SZ; }
# Of the pod NAME in the pod list held in $json: when it started, when its last container
# finished, its dagsched.io/released-at annotation ("" when absent).
start_of() { jq -r --arg n "$1" '.items[] | select(.metadata.name==$n) | .status.startTime' <<<"$json"; }
end_of() { jq -r --arg n "$1" '.items[] | select(.metadata.name==$n) | [.status.containerStatuses[].state.terminated.finishedAt] | max' <<<"$json"; }
released_at() { jq -r --arg n "$1" '.items[] | select(.metadata.name==$n) | .metadata.annotations["dagsched.io/released-at"] // ""' <<<"$json"; }

# ---- processes and endpoints
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# stop_pid PID [SIGNAL]: signals PID (TERM by default) and reaps it; nothing when PID is empty.
stop_pid() {
  [[ -n "$1" ]] || return 0
  kill "-${2:-TERM}" "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
# stop_components: stops the controller, then the extender, started by the two functions below.
stop_components() {
  stop_pid "$CTL_PID"
  CTL_PID=""
  stop_pid "$EXT_PID"
  EXT_PID=""
}
# metric_of URL NAME_WITH_LABELS [CURL_ARGS...]: the sample's value on the metrics page URL
# (0 when absent).
metric_of() {
  local url="$1" name="$2" v
  shift 2
  v="$(curl -s "$@" "$url" | awk -v m="$name" '$1 == m {print $2}')"
  echo "${v:-0}"
}
# start_extender BIN LOG INSTALL_NS ARGS...: the extender over HTTPS (certificates of
# hack/gen-test-certs.sh in $CERTS) on $EXT_PORT with its admission webhook on $ADM_PORT,
# policies from INSTALL_NS, its output appended to LOG; EXT_PID is its pid.
start_extender() {
  local bin="$1" log="$2" ns="$3"
  shift 3
  env "${SANITIZER_ENV[@]}" "$bin" --kubeconfig "$KUBECONFIG" --listen "127.0.0.1:$EXT_PORT" \
    --tls-cert "$CERTS/a.crt" --tls-key "$CERTS/a.key" --admission-listen "127.0.0.1:$ADM_PORT" \
    --admission-install-namespace "$ns" --policy-namespace "$ns" "$@" >>"$log" 2>&1 </dev/null &
  EXT_PID=$!
}
extender_webhook_ready() { curl -sf --cacert "$CERTS/ca.crt" "https://127.0.0.1:$ADM_PORT/healthz"; }
# schedule_through_extender DIR: restarts kube-scheduler with the extender of start_extender
# configured as the chart does (tests/common/extender-scheduler-config.yaml, rendered into DIR).
schedule_through_extender() {
  sed -e "s|@EXTENDER_URL@|https://127.0.0.1:$EXT_PORT|" -e "s|@CA_FILE@|$CERTS/ca.crt|" \
    "$(dirname "${BASH_SOURCE[0]}")/extender-scheduler-config.yaml" >"$1/scheduler-config.yaml"
  SCHEDULER_CONFIG="$1/scheduler-config.yaml" \
    "$(dirname "${BASH_SOURCE[0]}")/../../hack/cluster/restart-component.sh" kube-scheduler
}
# start_controller BIN LOG INSTALL_NS ARGS...: one controller without leader election, policies
# from INSTALL_NS, metrics on $CTL_PORT, its output in LOG; CTL_PID is its pid.
start_controller() {
  local bin="$1" log="$2" ns="$3"
  shift 3
  env "${SANITIZER_ENV[@]}" "$bin" --kubeconfig "$KUBECONFIG" --leader-elect=false \
    --policy-namespace "$ns" --metrics-listen "127.0.0.1:$CTL_PORT" "$@" >"$log" 2>&1 </dev/null &
  CTL_PID=$!
}

# shellcheck source=hack/admission-webhook.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../hack/admission-webhook.sh"
# ---- the admission webhook
# register_webhook NAME EXCLUDED_NS...: a MutatingWebhookConfiguration NAME sending every Pod
# CREATE outside kube-system and EXCLUDED_NS to the extender's webhook on $ADM_PORT: the chart's
# webhook (helm/dagsched/templates/admission-webhook.yaml, default values) with a url instead of
# a Service, as the extender runs as a local process.
register_webhook() {
  local name="$1"
  shift
  admission_webhook_yaml "$name" "$ADM_PORT" "$CERTS/ca.crt" "$@" | K apply -f - >/dev/null
}
# probe_gated NS: creates a throw-away pod "probe" of the dagsched scheduler in NS (deleting an
# earlier one first); true when it came back with the gate dagsched.io/dependencies. The API
# server picks up a new webhook configuration within a second or so: callers poll this with
# wait_until, before any controller runs (a controller would release the probe).
probe_gated() {
  K -n "$1" delete pod probe --ignore-not-found --wait=true >/dev/null 2>&1
  printf '%s\n' "apiVersion: v1" "kind: Pod" "metadata: {name: probe}" \
    "spec: {schedulerName: dagsched, containers: [{name: main, image: busybox}]}" |
    K -n "$1" create -f - >/dev/null || return 1
  [[ " $(K -n "$1" get pod probe -o jsonpath='{.spec.schedulingGates[*].name}') " == *" dagsched.io/dependencies "* ]]
}

# ---- a dagsched installation and a run's results (bench/parity/run.sh, bench/fairness/run.sh)
# install_dagsched POLICY_FILE LOGDIR INSTALL_NS WEBHOOK PROBE_NS: dagsched as the chart installs
# it, on a cluster whose kube-scheduler already calls the extender on $EXT_PORT: POLICY_FILE as
# the policy ConfigMap in INSTALL_NS, the extender (LOGDIR/extender.log), the admission webhook
# WEBHOOK (probed in the throw-away namespace PROBE_NS until a pod comes back gated), then the
# controller (LOGDIR/controller.log); both with that policy and JSON logs. EXT_PID and CTL_PID are
# their pids; on failure it says why on stderr and returns 1.
install_dagsched() {
  local policy="$1" logdir="$2" ns="$3" webhook="$4" probe_ns="$5" name
  name="$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["metadata"]["name"])' "$policy")" ||
    return 1
  K create namespace "$ns" >/dev/null
  K -n "$ns" create configmap "dagsched-policy-$name" --from-file=policy.yaml="$policy" >/dev/null
  K -n "$ns" label configmap "dagsched-policy-$name" \
    dagsched.io/kind=SchedulingPolicy app.kubernetes.io/name=dagsched >/dev/null
  start_extender "$EXTENDER" "$logdir/extender.log" "$ns" --policy-name "$name" --log-format json
  if ! wait_until 60 extender_webhook_ready; then
    echo "the extender is not ready after 60 s; see $logdir/extender.log" >&2
    return 1
  fi
  register_webhook "$webhook" "$ns"
  # The API server takes the configuration within a second or so: probe (before the controller
  # runs, so the probe stays gated) until a throw-away pod comes back gated.
  K create namespace "$probe_ns" >/dev/null
  if ! wait_until 30 probe_gated "$probe_ns"; then
    echo "the admission webhook does not gate pods after 30 s; see $logdir/extender.log" >&2
    return 1
  fi
  K delete namespace "$probe_ns" --wait=false >/dev/null
  start_controller "$CONTROLLER" "$logdir/controller.log" "$ns" --policy-name "$name" --log-format json
  if ! wait_until 60 curl -sf "http://127.0.0.1:$CTL_PORT/healthz"; then
    echo "the controller is not healthy after 60 s; see $logdir/controller.log" >&2
    return 1
  fi
}
# save_results DIR NS...: the pods, Jobs and Events of the namespaces NS (one List each:
# pods.json, jobs.json, events.json), the nodes (nodes.json) and kube-scheduler's metrics page
# (scheduler-metrics.txt, read with the admin certificate; a note on stderr when it cannot be
# read) into DIR.
save_results() {
  local dir="$1" k ns sport
  shift
  mkdir -p "$dir"
  for k in pods jobs events; do
    for ns in "$@"; do K -n "$ns" get "$k" -o json; done |
      jq -s '{apiVersion: "v1", kind: "List", items: (map(.items) | add)}' >"$dir/$k.json"
  done
  K get nodes -o json >"$dir/nodes.json"
  sport="$(sed -n 's/^SCHEDULER_PORT=//p' "$CLUSTER_DIR/cluster.env")"
  curl -sk --max-time 10 --cert "$CLUSTER_DIR/pki/admin.crt" --key "$CLUSTER_DIR/pki/admin.key" \
    "https://127.0.0.1:$sport/metrics" >"$dir/scheduler-metrics.txt" 2>/dev/null ||
    echo "kube-scheduler's metrics could not be read" >&2
}
