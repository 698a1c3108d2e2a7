#!/usr/bin/env bash
# demo.sh: `make demo`. Runs the sample DAG workloads of examples/ twice, on two fresh local
# clusters side by side (hack/cluster: real Kubernetes control plane, kwok fake nodes):
#
#   dagsched           kube-scheduler with the dagsched profile and extender (configured as the Helm
#                      chart configures its scheduler), the extender and the controller running as
#                      local processes, the policy delivered as a ConfigMap; every task's Job and
#                      pod is created at once and dagsched holds the downstream tasks back.
#   default-scheduler  plain kube-scheduler; a workflow driver (hack/demo/baseline_driver.py) creates
#                      each task only when its upstream tasks have succeeded, as Argo Workflows or a
#                      script chaining Jobs does today.
#
# It installs what it needs (Debian packages, the cached Kubernetes build), builds bin/, shows a live
# progress table while the jobs run and ends with a per-job summary of both runs: makespan, deadline
# met or missed, evictions, where each task ran. Every process it started is stopped on exit,
# including Ctrl-C; logs and results stay in .cache/demo/last/.
#
# Environment:
#   DEMO_RUNS      "dagsched default-scheduler" (default), or one of them
#   DEMO_PARALLEL  1 (default): both runs at the same time; 0: one after the other
#   DEMO_POLICY    SchedulingPolicy file (default policies/demo.yaml: default.yaml with its time
#                  guards scaled to the demo's short tasks)
#   DEMO_WORKLOAD  workload files (default: the PriorityClass and the three demo jobs of examples/:
#                  deadline-priority-class, batch-backfill, etl-urgent, ml-pipeline)
#   DEMO_TIMEOUT   seconds the workload may take in each run (default 420)
#   DEMO_PLAIN     1: no in-place redraw (also when stdout is not a terminal), for CI logs
#   DEMO_CHECK     1: after the report, assert its key claims (make demo-test): every job of
#                  every run completed, no dependency violation under dagsched, and the deadline
#                  of each job in DEMO_URGENT_JOBS (default "etl") met under dagsched
#   DEMO_KEEP      1: keep the clusters' data (etcd, certificates), not only logs and results
#   NODE_PROFILE   node profile of both clusters (default hack/cluster/nodes/default.tsv)
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEMO_TOOLS="$REPO_ROOT/hack/demo"
CLUSTER_TOOLS="$REPO_ROOT/hack/cluster"
cd "$REPO_ROOT"

RUNS="${DEMO_RUNS:-dagsched default-scheduler}"
PARALLEL="${DEMO_PARALLEL:-1}"
POLICY_FILE="${DEMO_POLICY:-policies/demo.yaml}"
TIMEOUT="${DEMO_TIMEOUT:-420}"
PLAIN="${DEMO_PLAIN:-0}"
CHECK="${DEMO_CHECK:-0}"
KEEP="${DEMO_KEEP:-0}"
NAMESPACE=dagsched-demo
SYSTEM_NAMESPACE=dagsched-system
EXTENDER="$REPO_ROOT/bin/dagsched-extender"
CONTROLLER="$REPO_ROOT/bin/dagsched-controller"
T_START=$SECONDS

# The cluster tools' definitions (pick_port, CLUSTER_PACKAGES); say and die below replace its log
# helpers.
# shellcheck source=hack/cluster/lib.sh
source "$CLUSTER_TOOLS/lib.sh"
# shellcheck source=hack/admission-webhook.sh
source "$REPO_ROOT/hack/admission-webhook.sh"
say() { printf 'demo: %s\n' "$*"; }
die() {
  printf 'demo: error: %s\n' "$*" >&2
  exit 1
}

# ---- arguments
for r in $RUNS; do
  case "$r" in dagsched | default-scheduler) ;; *) die "DEMO_RUNS: unknown run '$r' (use dagsched and/or default-scheduler)" ;; esac
done
[[ -n "${RUNS// /}" ]] || die "DEMO_RUNS is empty"
[[ "$PARALLEL" =~ ^[01]$ ]] || die "DEMO_PARALLEL must be 0 or 1 (got '$PARALLEL')"
if ! [[ "$TIMEOUT" =~ ^[0-9]{1,5}$ ]] || ((TIMEOUT < 30)); then
  die "DEMO_TIMEOUT must be a number of seconds from 30 to 99999 (got '$TIMEOUT')"
fi
[[ -r "$POLICY_FILE" ]] || die "DEMO_POLICY '$POLICY_FILE' is not a readable file"
if [[ -n "${DEMO_WORKLOAD:-}" ]]; then
  read -r -a WORKLOAD <<<"$DEMO_WORKLOAD"
else
  WORKLOAD=(examples/deadline-priority-class.yaml examples/batch-backfill.yaml examples/etl-urgent.yaml examples/ml-pipeline.yaml)
fi
for f in "${WORKLOAD[@]}"; do [[ -r "$f" ]] || die "workload file '$f' is not readable"; done
has_run() { [[ " $RUNS " == *" $1 "* ]]; }
if [[ "$PLAIN" != 1 && ! -t 1 ]]; then PLAIN=1; fi
WATCH_FLAGS=()
[[ "$PLAIN" == 1 ]] && WATCH_FLAGS+=(--plain)

# ---- run directory: .cache/demo/run.<time>, .cache/demo/last points at the newest
DEMO_BASE="$REPO_ROOT/.cache/demo"
mkdir -p "$DEMO_BASE"
RUN_DIR="$(mktemp -d "$DEMO_BASE/run.$(date +%Y%m%d-%H%M%S).XXXX")"
ln -sfn "$(basename "$RUN_DIR")" "$DEMO_BASE/last"
# Keep the three newest runs.
mapfile -t old_runs < <(find "$DEMO_BASE" -maxdepth 1 -type d -name 'run.*' -printf '%T@ %p\n' | sort -rn | awk 'NR > 3 { print $2 }')
for d in "${old_runs[@]}"; do [[ -f "$d/.dagsched-demo" ]] && rm -rf "$d"; done
: >"$RUN_DIR/.dagsched-demo"

# ---- everything started is stopped on exit
declare -A PIDS=()   # name -> pid of a local process this script started
CLUSTERS=()          # cluster directories brought up
stop_pid() {
  local name="$1" pid="${PIDS[$1]:-}" i
  [[ -n "$pid" ]] || return 0
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      say "$name (pid $pid) did not stop after SIGTERM; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  wait "$pid" 2>/dev/null || true
  unset "PIDS[$name]"
}
teardown_done=0
teardown() { # stops every process started here and every cluster brought up; fails if one did not stop
  ((teardown_done)) && return 0
  teardown_done=1
  local n d rc=0
  for n in "${!PIDS[@]}"; do stop_pid "$n"; done
  for d in "${CLUSTERS[@]}"; do
    if ! CLUSTER_DIR="$d" "$CLUSTER_TOOLS/down.sh" >>"$RUN_DIR/teardown.log" 2>&1; then
      say "stopping the cluster in $d failed; see $RUN_DIR/teardown.log"
      rc=1
    fi
    [[ "$KEEP" == 1 ]] || rm -rf "${d:?}/etcd" "${d:?}/pki" "${d:?}/certs" "${d:?}/kubeconfigs" "${d:?}/kubeconfig" "${d:?}/bin"
  done
  return "$rc"
}
on_exit() {
  local rc=$?
  trap '' INT TERM
  teardown || true
  ((rc == 0)) || say "failed (exit $rc) after $((SECONDS - T_START)) s; logs in $RUN_DIR"
  exit "$rc"
}
trap on_exit EXIT
trap 'echo; say "interrupted; stopping everything"; exit 130' INT TERM

# ---- 1. dependencies and builds
say "dagsched demo: the same DAG workload under dagsched and under the default kube-scheduler"
say "[1/5] dependencies and builds"
DAGSCHED_EXTRA_PACKAGES="$CLUSTER_PACKAGES" "$REPO_ROOT/hack/install-deps.sh"
# Kubernetes and kwok are built once and cached (~/.cache/dagsched); the first build takes minutes
# and says so itself.
"$CLUSTER_TOOLS/build.sh" 2>&1 | tee "$RUN_DIR/cluster-build.log" ||
  die "building the local Kubernetes failed; see $RUN_DIR/cluster-build.log"
if has_run dagsched; then
  say "      building bin/dagsched-extender and bin/dagsched-controller (log: ${RUN_DIR#"$REPO_ROOT"/}/make.log)"
  # make names the binaries relative to the repository root (mk/extender.mk, mk/controller.mk).
  if ! make --no-print-directory -j2 -C "$REPO_ROOT" bin/dagsched-extender bin/dagsched-controller >"$RUN_DIR/make.log" 2>&1; then
    tail -n 15 "$RUN_DIR/make.log" >&2
    die "building bin/dagsched-extender and bin/dagsched-controller failed (see $RUN_DIR/make.log): the dagsched run needs the extender and the controller. DEMO_RUNS=default-scheduler runs the baseline alone."
  fi
  for b in "$EXTENDER" "$CONTROLLER"; do
    [[ -x "$b" ]] || die "make succeeded but ${b#"$REPO_ROOT"/} is not an executable file (see $RUN_DIR/make.log)"
  done
fi
python3 -c 'import yaml' 2>/dev/null || die "python3 with PyYAML is needed (Debian package python3-yaml)"
# The workload is checked before any cluster starts.
NTASKS="$(python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
import workload
try:
    t, _ = workload.load(sys.argv[2:])
except workload.WorkloadError as e:
    sys.exit(f"demo: error: {e}")
if not t:
    sys.exit("demo: error: the workload files hold no DAG task")
print(len(t), len({x.job for x in t}))' "$DEMO_TOOLS" "${WORKLOAD[@]}")" || exit 1
say "      workload: ${NTASKS#* } jobs, ${NTASKS% *} tasks from ${WORKLOAD[*]}"

# ---- per-run setup
kc() { # kc CLUSTER_DIR kubectl-args...
  local d="$1"
  shift
  "$d/bin/kubectl" --kubeconfig "$d/kubeconfig" "$@"
}

cluster_up() { # cluster_up NAME [SCHEDULER_CONFIG]
  local name="$1" cfg="${2:-}" d="$RUN_DIR/$1/cluster"
  mkdir -p "$RUN_DIR/$name"
  CLUSTERS+=("$d")
  if ! CLUSTER_DIR="$d" SCHEDULER_CONFIG="$cfg" "$CLUSTER_TOOLS/up.sh" >"$RUN_DIR/$name/cluster-up.log" 2>&1; then
    tail -n 20 "$RUN_DIR/$name/cluster-up.log" >&2
    die "the $name cluster did not start; see $RUN_DIR/$name/cluster-up.log"
  fi
  kc "$d" create namespace "$NAMESPACE" >/dev/null
}

wait_http() { # wait_http NAME URL PID SECONDS [CA_FILE]
  local name="$1" url="$2" pid="$3" deadline=$((SECONDS + $4)) ca=()
  [[ -n "${5:-}" ]] && ca=(--cacert "$5")
  while ((SECONDS < deadline)); do
    kill -0 "$pid" 2>/dev/null || return 2
    [[ "$(curl -s "${ca[@]}" -o /dev/null -w '%{http_code}' --max-time 2 "$url" 2>/dev/null)" == 200 ]] && return 0
    sleep 0.2
  done
  return 1
}

# The admission webhook as the chart registers it (helm/dagsched/templates/admission-webhook.yaml,
# default values: failurePolicy Ignore, every namespace but kube-system and the components' own),
# with a URL instead of a Service since the extender runs as a local process. Every pod of the
# dagsched scheduler is then gated at creation and released by the controller in the policy's
# order, including the pod a Job creates again for an evicted task. Waits until the API server
# calls it: a throw-away pod in a namespace of its own comes back gated.
register_webhook() { # register_webhook CLUSTER_DIR ADMISSION_PORT CA_FILE
  local d="$1" port="$2" ca="$3" probe_ns=dagsched-demo-probe deadline=$((SECONDS + 30)) gates=""
  admission_webhook_yaml dagsched-demo "$port" "$ca" "$SYSTEM_NAMESPACE" | kc "$d" apply -f - >/dev/null ||
    die "registering the admission webhook failed"
  kc "$d" create namespace "$probe_ns" >/dev/null || die "creating namespace $probe_ns failed"
  while ((SECONDS < deadline)); do
    kc "$d" -n "$probe_ns" delete pod probe --ignore-not-found --wait=true >/dev/null 2>&1
    kc "$d" -n "$probe_ns" create -f - >/dev/null 2>&1 <<YAML
apiVersion: v1
kind: Pod
metadata: {name: probe}
spec:
  schedulerName: dagsched
  containers: [{name: main, image: busybox}]
YAML
    gates="$(kc "$d" -n "$probe_ns" get pod probe -o jsonpath='{.spec.schedulingGates[*].name}' 2>/dev/null || true)"
    [[ -n "$gates" ]] && break
    sleep 0.5
  done
  kc "$d" delete namespace "$probe_ns" --wait=false >/dev/null 2>&1 || true
  [[ -n "$gates" ]] || die "the API server does not call the admission webhook after 30 s (https://127.0.0.1:$port/mutate-pods); see $RUN_DIR/dagsched/extender.log"
}

start_dagsched() {
  local d="$RUN_DIR/dagsched/cluster" certs="$RUN_DIR/dagsched/certs" ext_port adm_port metrics_port policy_name rc
  mkdir -p "$RUN_DIR/dagsched"
  ext_port="$(pick_port)"
  adm_port="$(pick_port)"
  metrics_port="$(pick_port)"
  # TLS as the chart sets it up (extender.tls.enabled): a CA made for this run signs the
  # extender's certificate; kube-scheduler and the API server (webhook) trust that CA.
  "$REPO_ROOT/hack/gen-test-certs.sh" "$certs" || die "generating the demo's TLS certificates failed (openssl)"
  sed -e "s|@EXTENDER_URL@|https://127.0.0.1:$ext_port|" -e "s|@EXTENDER_CA@|$certs/ca.crt|" \
    "$DEMO_TOOLS/scheduler-config.yaml" >"$RUN_DIR/dagsched/scheduler-config.yaml"
  cluster_up dagsched "$RUN_DIR/dagsched/scheduler-config.yaml"

  # The policy, as the chart delivers it: a labelled ConfigMap in the components' namespace.
  policy_name="$(python3 -c '
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
n = (d or {}).get("metadata", {}).get("name") if isinstance(d, dict) else None
if not isinstance(n, str) or not n: sys.exit("metadata.name missing")
print(n)' "$POLICY_FILE")" || die "DEMO_POLICY $POLICY_FILE: no metadata.name"
  kc "$d" create namespace "$SYSTEM_NAMESPACE" >/dev/null
  kc "$d" -n "$SYSTEM_NAMESPACE" create configmap "dagsched-policy-$policy_name" \
    --from-file=policy.yaml="$POLICY_FILE" >/dev/null
  kc "$d" -n "$SYSTEM_NAMESPACE" label configmap "dagsched-policy-$policy_name" \
    dagsched.io/kind=SchedulingPolicy app.kubernetes.io/name=dagsched >/dev/null

  # Each local process runs in a session of its own, so that a Ctrl-C in the terminal reaches only
  # this script, whose exit trap then stops them in order.
  setsid "$EXTENDER" --kubeconfig "$d/kubeconfig" --listen "127.0.0.1:$ext_port" \
    --tls-cert "$certs/a.crt" --tls-key "$certs/a.key" \
    --admission-listen "127.0.0.1:$adm_port" --admission-install-namespace "$SYSTEM_NAMESPACE" \
    --policy-namespace "$SYSTEM_NAMESPACE" --policy-name "$policy_name" --log-format json \
    >"$RUN_DIR/dagsched/extender.log" 2>&1 </dev/null &
  PIDS[extender]=$!
  rc=0
  wait_http extender "https://127.0.0.1:$ext_port/readyz" "${PIDS[extender]}" 60 "$certs/ca.crt" || rc=$?
  if ((rc != 0)); then
    tail -n 20 "$RUN_DIR/dagsched/extender.log" >&2
    ((rc == 2)) && die "the extender exited at start; see $RUN_DIR/dagsched/extender.log"
    die "the extender is not ready after 60 s (https://127.0.0.1:$ext_port/readyz); see $RUN_DIR/dagsched/extender.log"
  fi
  register_webhook "$d" "$adm_port" "$certs/ca.crt"

  setsid "$CONTROLLER" --kubeconfig "$d/kubeconfig" \
    --policy-namespace "$SYSTEM_NAMESPACE" --policy-name "$policy_name" \
    --metrics-listen "127.0.0.1:$metrics_port" --log-format json \
    --leader-elect=true --leader-elect-lease-name dagsched-controller \
    --leader-elect-identity dagsched-demo-controller --leader-elect-lease-duration 15s \
    --leader-elect-renew-deadline 10s --leader-elect-retry-period 2s \
    >"$RUN_DIR/dagsched/controller.log" 2>&1 </dev/null &
  PIDS[controller]=$!
  rc=0
  wait_http controller "http://127.0.0.1:$metrics_port/healthz" "${PIDS[controller]}" 60 || rc=$?
  if ((rc != 0)); then
    tail -n 20 "$RUN_DIR/dagsched/controller.log" >&2
    ((rc == 2)) && die "the controller exited at start; see $RUN_DIR/dagsched/controller.log"
    die "the controller is not healthy after 60 s (http://127.0.0.1:$metrics_port/healthz); see $RUN_DIR/dagsched/controller.log"
  fi
  say "      dagsched: extender on https://127.0.0.1:$ext_port (webhook :$adm_port), controller metrics on 127.0.0.1:$metrics_port, policy $POLICY_FILE"
}

start_default() {
  cluster_up default-scheduler
}

submit_dagsched() {
  local args=() f
  for f in "${WORKLOAD[@]}"; do args+=(-f "$f"); done
  kc "$RUN_DIR/dagsched/cluster" -n "$NAMESPACE" create "${args[@]}" >"$RUN_DIR/dagsched/submit.log" 2>&1 ||
    die "submitting the workload to the dagsched cluster failed: $(tail -n 3 "$RUN_DIR/dagsched/submit.log")"
}

submit_default() {
  local d="$RUN_DIR/default-scheduler/cluster"
  setsid python3 "$DEMO_TOOLS/baseline_driver.py" --kubectl "$d/bin/kubectl" --kubeconfig "$d/kubeconfig" \
    --namespace "$NAMESPACE" --scheduler-name default-scheduler --poll 1 --timeout "$((TIMEOUT + 60))" \
    --status-file "$RUN_DIR/default-scheduler/driver.status" "${WORKLOAD[@]}" \
    >"$RUN_DIR/default-scheduler/driver.log" 2>&1 </dev/null &
  PIDS[driver]=$!
}

collect() { # collect NAME: the run's objects for the report
  local name="$1" d="$RUN_DIR/$1/cluster" out="$RUN_DIR/$1/result" k
  mkdir -p "$out"
  for k in pods jobs events; do
    kc "$d" -n "$NAMESPACE" get "$k" -o json >"$out/$k.json" || die "reading $k from the $name cluster failed"
  done
  kc "$d" get nodes -o json >"$out/nodes.json" || die "reading the nodes of the $name cluster failed"
}

SUBMITTED=() # runs whose workload was submitted
report_results() { # collects the submitted runs' objects and prints the report
  local args=() r
  for r in "${SUBMITTED[@]}"; do
    collect "$r"
    args+=(--run "$r=$RUN_DIR/$r/result")
  done
  echo
  python3 "$DEMO_TOOLS/summary.py" report "${args[@]}" --workload "${WORKLOAD[@]}" \
    --json "$RUN_DIR/results.json" | tee "$RUN_DIR/report.txt"
  echo
}

watch_runs() { # watch_runs NAME...
  local args=() n
  for n in "$@"; do
    args+=(--run "$n=$RUN_DIR/$n/cluster")
    if [[ "$n" == dagsched ]]; then
      args+=(--pid "extender=${PIDS[extender]}" --pid "controller=${PIDS[controller]}")
    else
      args+=(--status-file "driver=$RUN_DIR/default-scheduler/driver.status")
    fi
  done
  # In the background, so that a signal to this script (Ctrl-C, kill) runs its trap at once rather
  # than after the display ends; the trap stops the display with everything else.
  local rc=0
  python3 "$DEMO_TOOLS/summary.py" watch "${args[@]}" --namespace "$NAMESPACE" \
    --workload "${WORKLOAD[@]}" --timeout "$TIMEOUT" "${WATCH_FLAGS[@]}" &
  PIDS[progress]=$!
  wait "${PIDS[progress]}" || rc=$?
  unset "PIDS[progress]"
  case "$rc" in
  0) ;;
  3)
    say "the workload did not finish within DEMO_TIMEOUT=${TIMEOUT}s; what happened so far:"
    report_results
    die "the workload did not finish within DEMO_TIMEOUT=${TIMEOUT}s; logs in $RUN_DIR"
    ;;
  130 | 143)
    echo
    say "interrupted; stopping everything"
    exit 130
    ;;
  4) die "a process the demo needs exited (see above); logs in $RUN_DIR" ;;
  *) die "the progress display failed (exit $rc)" ;;
  esac
}

# ---- 2. clusters and dagsched
say "[2/5] local clusters (${NODE_PROFILE:-hack/cluster/nodes/default.tsv}: fake nodes of speed 1 and 2)"
t=$SECONDS
has_run dagsched && start_dagsched
has_run default-scheduler && start_default
say "      ready in $((SECONDS - t)) s"

# ---- 3. workload
ordered=()
for r in dagsched default-scheduler; do has_run "$r" && ordered+=("$r"); done
say "[3/5] submitting the workload; live progress (done/run/wait: tasks, evict: evictions):"
submit() {
  if [[ "$1" == dagsched ]]; then submit_dagsched; else submit_default; fi
  SUBMITTED+=("$1")
}
if [[ "$PARALLEL" == 1 ]]; then
  for r in "${ordered[@]}"; do submit "$r"; done
  watch_runs "${ordered[@]}"
else
  for r in "${ordered[@]}"; do
    submit "$r"
    watch_runs "$r"
  done
fi
[[ -n "${PIDS[driver]:-}" ]] && stop_pid driver

# ---- 4. results
say "[4/5] results"
report_results

if [[ "$CHECK" == 1 ]]; then
  say "checks"
  check_args=()
  for r in "${ordered[@]}"; do check_args+=(--complete "$r"); done
  if has_run dagsched; then
    check_args+=(--no-violations dagsched)
    for j in ${DEMO_URGENT_JOBS:-etl}; do check_args+=(--deadline-met "dagsched:$j"); done
  fi
  python3 "$DEMO_TOOLS/summary.py" check --json "$RUN_DIR/results.json" "${check_args[@]}" |
    tee "$RUN_DIR/checks.txt"
  [[ "${PIPESTATUS[0]}" == 0 ]] || die "a check failed; logs in $RUN_DIR"
fi

# ---- 5. teardown
say "[5/5] stopping dagsched and the clusters"
teardown || die "teardown incomplete"
say "done in $((SECONDS - T_START)) s; report, results and logs in ${RUN_DIR#"$REPO_ROOT"/} (also .cache/demo/last)"
