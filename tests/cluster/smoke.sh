#!/usr/bin/env bash
# smoke.sh: smoke test of the local control plane (hack/cluster), run by `make test`.
#
# Outside a cluster it checks the node profiles, then runs itself with --inside against a fresh
# cluster (hack/cluster/with-cluster.sh) and finally checks that tearing the cluster down left no
# process and no listening port behind. Inside, it checks that:
#   - the profile's nodes are Ready and served by kube-apiserver of the pinned version;
#   - kube-scheduler binds a Job's pod to a kwok node, the pod runs and then succeeds after its
#     dagsched.io/runtime divided by the node's dagsched.io/speed, and the Job completes;
#   - a Job pod without a run time runs as long as its command's `sleep N`;
#   - a bare pod pinned to a fast node gets exactly half its run time; an unreadable run time is
#     reported on the pod, which then keeps running;
#   - a Deployment's pods run, avoid the tainted node, a PodDisruptionBudget gets its status, an
#     eviction removes a pod and the ReplicaSet replaces it;
#   - ServiceAccount tokens authenticate and RBAC limits them;
#   - up.sh is idempotent, kube-apiserver and kube-scheduler can be restarted (also after SIGKILL),
#     and a replacement scheduler configuration with a second profile is used.
# Prints "cluster smoke: N passed, M failed".
# shellcheck disable=SC2317 # the check helpers are called through wait_until
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SELF="$ROOT/tests/cluster/smoke.sh"
PASSED="${SMOKE_PASSED_BEFORE:-0}" # checks passed before (the outer run passes its count in)

pass() {
  PASSED=$((PASSED + 1))
  echo "smoke: ok $PASSED - $*"
}
fail() {
  echo "smoke: FAILED - $*" >&2
  if [[ -n "${SMOKE_RESULT_FILE:-}" ]]; then
    echo "$PASSED" >"$SMOKE_RESULT_FILE" # the outer run prints the summary
  else
    echo "cluster smoke: $PASSED passed, 1 failed"
  fi
  exit 1
}

# wait_until SECONDS DESCRIPTION COMMAND...: polls COMMAND every 0.5 s.
wait_until() {
  local timeout="$1" what="$2" deadline
  shift 2
  deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || fail "$what (not within ${timeout} s)"
    sleep 0.5
  done
}

# ------------------------------------------------------------------------------------------------
inside() {
  k() { "$KUBECTL" "$@"; }
  # shellcheck disable=SC1091
  source "$CLUSTER_DIR/cluster.env"
  cp "$CLUSTER_DIR/cluster.env" "$SMOKE_RESULT_FILE.env" # for the port checks after teardown
  local profile="$ROOT/hack/cluster/nodes/default.tsv"
  local want_nodes
  want_nodes="$(awk '!/^[ \t]*(#|$)/' "$profile" | wc -l)"

  # ---- nodes and versions
  local ready
  ready="$(k get nodes -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' | grep -c '^True$' || true)"
  [[ "$ready" == "$want_nodes" ]] || fail "expected $want_nodes Ready nodes, got $ready"
  local server
  server="$(k version -o json | jq -r .serverVersion.gitVersion)"
  [[ "$server" == "$K8S_VERSION" ]] || fail "kube-apiserver reports $server, expected $K8S_VERSION"
  pass "$ready Ready kwok nodes served by kube-apiserver $server"

  [[ "$(k get node cpu-fast-1 -o jsonpath='{.status.allocatable.cpu} {.metadata.labels.dagsched\.io/speed}')" == "16 2" ]] ||
    fail "node cpu-fast-1 lacks its profile's allocatable cpu 16 and speed 2"
  [[ "$(k get node gpu-fast-1 -o jsonpath='{.status.allocatable.nvidia\.com/gpu} {.spec.taints[0].key}')" == "2 nvidia.com/gpu" ]] ||
    fail "node gpu-fast-1 lacks its 2 GPUs or its taint"
  pass "nodes carry the profile's capacity, labels and taints"

  # ---- a Job whose pod has a run time
  k apply -f - >/dev/null <<'EOF'
apiVersion: batch/v1
kind: Job
metadata:
  name: smoke-job
spec:
  backoffLimit: 0
  template:
    metadata:
      annotations:
        dagsched.io/runtime: "4s"
    spec:
      restartPolicy: Never
      containers:
      - name: task
        image: registry.invalid/task:1
        resources:
          requests: {cpu: 500m, memory: 256Mi}
EOF
  local jpod=""
  get_job_pod() {
    jpod="$(k get pods -l job-name=smoke-job -o jsonpath='{.items[0].metadata.name}')"
    [[ -n "$jpod" ]]
  }
  wait_until 30 "the Job controller creates the Job's pod" get_job_pod
  local node
  bound() {
    node="$(k get pod "$jpod" -o jsonpath='{.spec.nodeName}')"
    [[ -n "$node" ]]
  }
  wait_until 30 "kube-scheduler binds pod $jpod" bound
  [[ "$(k get node "$node" -o jsonpath='{.metadata.annotations.kwok\.x-k8s\.io/node}')" == fake ]] ||
    fail "pod $jpod was bound to $node, which is not a kwok node"
  k get events --field-selector "involvedObject.name=$jpod,reason=Scheduled" -o jsonpath='{.items[*].source.component}{.items[*].reportingComponent}' |
    grep -q default-scheduler || fail "no Scheduled event from default-scheduler for pod $jpod"
  pass "kube-scheduler bound Job pod $jpod to kwok node $node"

  phase_is() { [[ "$(k get pod "$1" -o jsonpath='{.status.phase}')" == "$2" ]]; }
  wait_until 30 "Job pod $jpod becomes Running" phase_is "$jpod" Running
  pass "Job pod $jpod is Running"

  local speed expect scaled
  speed="$(k get node "$node" -o jsonpath='{.metadata.labels.dagsched\.io/speed}')"
  expect="$(awk -v s="${speed:-1}" 'BEGIN { v = 4000 / s; printf "%dms", (v == int(v)) ? v : int(v) + 1 }')"
  scaled="$(k get pod "$jpod" -o jsonpath='{.metadata.annotations.dagsched\.io/runtime-scaled}')"
  [[ "$scaled" == "$expect" ]] || fail "pod $jpod on $node (speed ${speed:-1}): runtime-scaled is '$scaled', expected $expect"
  pass "runtime 4s on speed ${speed:-1} became $scaled"

  wait_until 30 "Job pod $jpod Succeeds" phase_is "$jpod" Succeeded
  check_not_early "$jpod"
  job_complete() { [[ "$(k get job smoke-job -o jsonpath='{.status.succeeded} {.status.conditions[?(@.type=="Complete")].status}')" == "1 True" ]]; }
  wait_until 30 "Job smoke-job completes" job_complete
  pass "Job pod succeeded no earlier than its scaled run time; the Job is Complete"

  # ---- a Job pod without a run time annotation runs as long as its command's `sleep N`
  k apply -f - >/dev/null <<'EOF'
apiVersion: batch/v1
kind: Job
metadata:
  name: smoke-sleep
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: task
        image: registry.invalid/task:1
        command: [sleep]
        args: ["3"]
EOF
  local spod started finished
  get_sleep_pod() {
    spod="$(k get pods -l job-name=smoke-sleep -o jsonpath='{.items[0].metadata.name}')"
    [[ -n "$spod" ]]
  }
  wait_until 30 "the Job controller creates Job smoke-sleep's pod" get_sleep_pod
  wait_until 30 "Job pod $spod Succeeds" phase_is "$spod" Succeeded
  started="$(k get pod "$spod" -o jsonpath='{.metadata.annotations.dagsched\.io/started-unix-ms}')"
  finished="$(k get pod "$spod" -o jsonpath='{.status.containerStatuses[0].state.terminated.finishedAt}')"
  [[ "$started" =~ ^[0-9]+$ && -n "$finished" ]] ||
    fail "pod $spod lacks started-unix-ms ('$started') or finishedAt ('$finished')"
  (($(date -d "$finished" +%s) >= (started + 3000) / 1000)) ||
    fail "pod $spod (sleep 3, no run time annotation) finished at $finished, before 3 s had passed since $started ms"
  pass "a Job pod without a run time ran its command's sleep 3 and succeeded"

  # ---- bare pods: a fast node halves the run time; an unreadable run time is reported
  k apply -f - >/dev/null <<'EOF'
apiVersion: v1
kind: Pod
metadata:
  name: smoke-bare
  annotations:
    dagsched.io/runtime: "3s"
spec:
  nodeSelector:
    dagsched.io/speed: "2"
  containers:
  - name: task
    image: registry.invalid/task:1
---
apiVersion: v1
kind: Pod
metadata:
  name: smoke-bad-runtime
  annotations:
    dagsched.io/runtime: "soon"
spec:
  containers:
  - name: task
    image: registry.invalid/task:1
EOF
  wait_until 30 "bare pod smoke-bare becomes Running" phase_is smoke-bare Running
  scaled="$(k get pod smoke-bare -o jsonpath='{.metadata.annotations.dagsched\.io/runtime-scaled}')"
  [[ "$scaled" == 1500ms ]] || fail "bare pod on a speed-2 node: runtime-scaled is '$scaled', expected 1500ms"
  wait_until 30 "bare pod smoke-bare Succeeds" phase_is smoke-bare Succeeded
  check_not_early smoke-bare
  pass "bare pod on a speed-2 node ran 3s/2 = $scaled and succeeded"

  wait_until 30 "pod smoke-bad-runtime becomes Running" phase_is smoke-bad-runtime Running
  local err
  err="$(k get pod smoke-bad-runtime -o jsonpath='{.metadata.annotations.dagsched\.io/runtime-error}')"
  [[ "$err" == *"not a Go duration"* ]] || fail "pod smoke-bad-runtime: runtime-error is '$err'"
  sleep 2
  phase_is smoke-bad-runtime Running || fail "pod smoke-bad-runtime should keep running"
  pass "an unreadable run time is reported on the pod ($err)"

  # ---- a Deployment, a PodDisruptionBudget and an eviction
  k apply -f - >/dev/null <<'EOF'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: smoke-web
spec:
  replicas: 3
  selector:
    matchLabels: {app: smoke-web}
  template:
    metadata:
      labels: {app: smoke-web}
    spec:
      containers:
      - name: web
        image: registry.invalid/web:1
        resources:
          requests: {cpu: 250m, memory: 128Mi}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: smoke-web
spec:
  minAvailable: 2
  selector:
    matchLabels: {app: smoke-web}
EOF
  running_web() { [[ "$(k get pods -l app=smoke-web --field-selector=status.phase=Running -o name | wc -l)" == "$1" ]]; }
  deploy_ready() { [[ "$(k get deploy smoke-web -o jsonpath='{.status.readyReplicas}')" == 3 ]]; }
  wait_until 60 "3 pods of Deployment smoke-web Running" running_web 3
  wait_until 30 "Deployment smoke-web reports 3 ready replicas" deploy_ready
  if k get pods -l app=smoke-web -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | grep -qx gpu-fast-1; then
    fail "a smoke-web pod landed on the tainted node gpu-fast-1"
  fi
  pass "Deployment smoke-web has 3 Running pods, none on the tainted node"

  pdb_status() { [[ "$(k get pdb smoke-web -o jsonpath='{.status.currentHealthy} {.status.disruptionsAllowed}')" == "3 1" ]]; }
  wait_until 30 "PodDisruptionBudget smoke-web reports 3 healthy, 1 disruption allowed" pdb_status
  pass "the disruption controller keeps the PodDisruptionBudget's status"

  local victim code
  victim="$(k get pods -l app=smoke-web -o jsonpath='{.items[0].metadata.name}')"
  code="$(curl -sS -o /dev/null -w '%{http_code}' --cacert "$CLUSTER_DIR/pki/ca.crt" \
    --cert "$CLUSTER_DIR/pki/admin.crt" --key "$CLUSTER_DIR/pki/admin.key" \
    -H 'Content-Type: application/json' -X POST \
    --data "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\"$victim\",\"namespace\":\"default\"}}" \
    "https://127.0.0.1:$APISERVER_PORT/api/v1/namespaces/default/pods/$victim/eviction")"
  [[ "$code" == 201 ]] || fail "eviction of $victim returned HTTP $code, expected 201"
  gone() { ! k get pod "$victim" >/dev/null 2>&1; }
  wait_until 30 "evicted pod $victim goes away" gone
  replaced() { running_web 3 && ! k get pods -l app=smoke-web -o name | grep -q "/$victim\$"; }
  wait_until 60 "the ReplicaSet replaces $victim with a Running pod" replaced
  pass "eviction of $victim completed and the ReplicaSet replaced it"

  # ---- ServiceAccount tokens and RBAC
  local token who
  token="$(k create token default --duration=10m)"
  sa_kubectl() {
    "$KUBECTL" --kubeconfig=/dev/null --server="https://127.0.0.1:$APISERVER_PORT" \
      --certificate-authority="$CLUSTER_DIR/pki/ca.crt" --token="$token" "$@"
  }
  who="$(sa_kubectl auth whoami -o jsonpath='{.status.userInfo.username}')"
  [[ "$who" == system:serviceaccount:default:default ]] || fail "a ServiceAccount token authenticated as '$who'"
  [[ "$(sa_kubectl auth can-i list nodes 2>/dev/null || true)" == no ]] || fail "RBAC lets the default ServiceAccount list nodes"
  [[ "$(k auth can-i list nodes 2>/dev/null)" == yes ]] || fail "the admin cannot list nodes"
  pass "ServiceAccount tokens authenticate ($who) and RBAC applies"

  # ---- idempotent up, restarts, replacement scheduler configuration
  local pids_before pids_after
  pids_before="$(cat "$CLUSTER_DIR"/pids/*.pid | tr '\n' ' ')"
  "$ROOT/hack/cluster/up.sh" >/dev/null 2>&1 || fail "up.sh on the running cluster failed"
  pids_after="$(cat "$CLUSTER_DIR"/pids/*.pid | tr '\n' ' ')"
  [[ "$pids_before" == "$pids_after" ]] || fail "up.sh on a running cluster restarted components ($pids_before -> $pids_after)"
  pass "up.sh on a running cluster changes nothing"

  "$ROOT/hack/cluster/restart-component.sh" kube-apiserver >/dev/null 2>&1 || fail "restarting kube-apiserver failed"
  [[ "$(k get nodes --no-headers | wc -l)" == "$want_nodes" ]] || fail "nodes not listed after the kube-apiserver restart"
  "$ROOT/hack/cluster/restart-component.sh" --stop --signal KILL kube-scheduler >/dev/null 2>&1 || fail "killing kube-scheduler failed"
  k run smoke-after-restart --image=registry.invalid/task:1 --restart=Never \
    --annotations=dagsched.io/runtime=1s >/dev/null
  sleep 1
  [[ -z "$(k get pod smoke-after-restart -o jsonpath='{.spec.nodeName}')" ]] || fail "a pod was bound while kube-scheduler was down"
  "$ROOT/hack/cluster/restart-component.sh" --start kube-scheduler >/dev/null 2>&1 || fail "starting kube-scheduler again failed"
  wait_until 60 "pod smoke-after-restart Succeeds after the restarts" phase_is smoke-after-restart Succeeded
  pass "kube-apiserver restart and kube-scheduler SIGKILL + start: new pods still run to completion"

  local cfg="$CLUSTER_DIR/two-profiles.yaml"
  cat >"$cfg" <<'EOF'
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: "@SCHEDULER_KUBECONFIG@"
leaderElection:
  leaderElect: false
profiles:
  - schedulerName: default-scheduler
  - schedulerName: dagsched
    plugins:
      score:
        disabled:
          - name: NodeResourcesBalancedAllocation
EOF
  SCHEDULER_CONFIG="$cfg" "$ROOT/hack/cluster/restart-component.sh" kube-scheduler >/dev/null 2>&1 ||
    fail "restarting kube-scheduler with a replacement configuration failed"
  k run smoke-profile --image=registry.invalid/task:1 --restart=Never \
    --overrides='{"spec":{"schedulerName":"dagsched"}}' >/dev/null
  wait_until 30 "pod smoke-profile is Running under the dagsched profile" phase_is smoke-profile Running
  k get events --field-selector "involvedObject.name=smoke-profile,reason=Scheduled" -o jsonpath='{.items[*].reportingComponent}{.items[*].source.component}' |
    grep -q dagsched || fail "pod smoke-profile was not scheduled by the dagsched profile"
  pass "a replacement KubeSchedulerConfiguration with a dagsched profile is used"
  echo "$PASSED" >"$SMOKE_RESULT_FILE"
}

# A pod must not have completed before started-unix-ms + runtime-scaled (finishedAt has whole
# seconds, so it may not lie before the second in which the run time ended).
check_not_early() {
  local pod="$1" started scaled finished finished_s end_s
  started="$("$KUBECTL" get pod "$pod" -o jsonpath='{.metadata.annotations.dagsched\.io/started-unix-ms}')"
  scaled="$("$KUBECTL" get pod "$pod" -o jsonpath='{.metadata.annotations.dagsched\.io/runtime-scaled}')"
  finished="$("$KUBECTL" get pod "$pod" -o jsonpath='{.status.containerStatuses[0].state.terminated.finishedAt}')"
  [[ "$started" =~ ^[0-9]+$ && "$scaled" =~ ^[0-9]+ms$ && -n "$finished" ]] ||
    fail "pod $pod lacks started-unix-ms ('$started'), runtime-scaled ('$scaled') or finishedAt ('$finished')"
  finished_s="$(date -d "$finished" +%s)"
  end_s=$(((started + ${scaled%ms}) / 1000))
  ((finished_s >= end_s)) || fail "pod $pod finished at $finished, before its run time ended ($((started + ${scaled%ms})) ms)"
}

# ------------------------------------------------------------------------------------------------
if [[ "${1:-}" == --inside ]]; then
  inside
  exit 0
fi

t0=$SECONDS
gen="$ROOT/hack/cluster/nodes/gen-large.sh"
cmp -s <("$gen" 1024) "$ROOT/hack/cluster/nodes/large.tsv" ||
  fail "hack/cluster/nodes/large.tsv differs from the output of gen-large.sh 1024"
n="$("$ROOT/hack/cluster/create-nodes.sh" --print "$ROOT/hack/cluster/nodes/large.tsv" | grep -c '"kind":"Node"')"
[[ "$n" == 1024 ]] || fail "the large profile renders $n nodes, expected 1024"
pass "node profiles are valid; large.tsv matches its generator (1024 nodes)"

bad="$(mktemp)"
printf 'n1 8 32Gi 100Gi 0 110 dagsched.io/speed=fast -\n' >"$bad"
msg="$("$ROOT/hack/cluster/create-nodes.sh" --print "$bad" 2>&1 >/dev/null || true)"
rm -f "$bad"
[[ "$msg" == *"line 1: field labels: dagsched.io/speed must be a positive decimal"*'(got "fast")'* ]] ||
  fail "a bad speed label gave the message: $msg"
pass "a bad node profile is refused with the line, field and value"

mkdir -p "$ROOT/.cache/clusters"
dir="$(mktemp -d "$ROOT/.cache/clusters/smoke.XXXXXX")"
rc=0
result="$(mktemp)"
SMOKE_PASSED_BEFORE="$PASSED" SMOKE_RESULT_FILE="$result" \
  "$ROOT/hack/cluster/with-cluster.sh" --dir "$dir" -- "$SELF" --inside || rc=$?
inner="$(cat "$result" 2>/dev/null || true)"
[[ "$inner" =~ ^[0-9]+$ ]] && PASSED="$inner"
if ((rc != 0)); then
  rm -f "$result" "$result.env"
  echo "smoke: logs of the failed run in $dir/logs" >&2
  echo "cluster smoke: $PASSED passed, 1 failed"
  exit 1
fi

# Nothing of the cluster may survive its teardown: no process naming the run directory, no
# listener on its ports.
leftover=""
for p in /proc/[0-9]*; do
  cmd="$( { tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null || true)"
  [[ "$cmd" == *"$dir/"* ]] && leftover+=" ${p#/proc/}:${cmd:0:80}"
done
[[ -z "$leftover" ]] || fail "processes of the cluster survived cluster-down:$leftover"
# shellcheck disable=SC1090
source "$result.env"
rm -f "$result" "$result.env"
for port in "$ETCD_CLIENT_PORT" "$APISERVER_PORT" "$KCM_PORT" "$SCHEDULER_PORT" "$KWOK_PORT"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then fail "port $port still accepts connections after cluster-down"; fi
done
pass "cluster down left no process and no open port behind"
echo "cluster smoke: $PASSED passed, 0 failed ($((SECONDS - t0)) s)"
