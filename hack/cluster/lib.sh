# shellcheck shell=bash disable=SC2034
# lib.sh: shared definitions for the local control-plane scripts in hack/cluster (sourced, not run).
#
# Versions, cache and run-directory locations, logging, free-port selection, process start/stop by
# pid file and health waiting. Every script that sources this file may override:
#   CLUSTER_DIR        run directory of one cluster (default: <repo>/.cache/cluster)
#   DAGSCHED_CACHE_DIR cache of built binaries, shared by all work trees (default: ~/.cache/dagsched)

CLUSTER_LIB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$CLUSTER_LIB_DIR/../.." && pwd)"
K8S_BUILD_DIR="$REPO_ROOT/hack/k8s-build"

KWOK_VERSION="v0.7.0"
# Argo Workflows, run on request (ARGO=1 up.sh; hack/cluster/build-argo.sh builds it).
ARGO_VERSION="v4.0.5"
# The Kubernetes version is the one hack/k8s-build/go.mod requires: a single place to change it.
K8S_VERSION="$(awk '$1 == "require" && $2 == "k8s.io/kubernetes" { print $3 }' "$K8S_BUILD_DIR/go.mod")"

CACHE_BASE="${DAGSCHED_CACHE_DIR:-$HOME/.cache/dagsched}"
K8S_BIN_DIR="$CACHE_BASE/k8s/$K8S_VERSION"
KWOK_BIN_DIR="$CACHE_BASE/kwok/$KWOK_VERSION"
ARGO_BIN_DIR="$CACHE_BASE/argo/$ARGO_VERSION"

CLUSTER_DIR="${CLUSTER_DIR:-$REPO_ROOT/.cache/cluster}"

# Components in start order; stopped in reverse order.
CLUSTER_COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok runtime-scaler)
# Started on request only (argo-up.sh); stopped before the others.
CLUSTER_OPTIONAL_COMPONENTS=(argo-controller)

# Packages the cluster needs beyond hack/install-deps.sh's base list.
CLUSTER_PACKAGES="etcd-server jq iproute2"

log() { printf '%s: %s\n' "${LOG_PREFIX:-cluster}" "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

# Locates the Go toolchain: PATH first, then the usual install location.
find_go() {
  local g
  g="$(command -v go 2>/dev/null || true)"
  [[ -z "$g" && -x /usr/local/go/bin/go ]] && g=/usr/local/go/bin/go
  [[ -n "$g" ]] || die "the Go toolchain (1.23 or newer) is needed to build Kubernetes $K8S_VERSION and kwok $KWOK_VERSION; 'go' is not on PATH nor at /usr/local/go/bin/go"
  printf '%s\n' "$g"
}

# Installs the Debian packages the cluster needs (idempotent, quiet when all are present).
ensure_cluster_packages() {
  DAGSCHED_EXTRA_PACKAGES="${DAGSCHED_EXTRA_PACKAGES:-} $CLUSTER_PACKAGES" "$REPO_ROOT/hack/install-deps.sh"
}

# Validates that CLUSTER_DIR is a path we may create files in and remove files from.
check_cluster_dir() {
  [[ "$CLUSTER_DIR" == /* ]] || CLUSTER_DIR="$PWD/$CLUSTER_DIR"
  case "$CLUSTER_DIR" in
  / | /root | /home | /tmp | "$HOME" | "$REPO_ROOT") die "CLUSTER_DIR=$CLUSTER_DIR is not a dedicated directory" ;;
  esac
  if [[ "$CLUSTER_DIR" =~ [[:space:]] ]]; then
    die "CLUSTER_DIR must not contain white space (got '$CLUSTER_DIR')"
  fi
}

pid_file() { printf '%s/pids/%s.pid\n' "$CLUSTER_DIR" "$1"; }
log_file() { printf '%s/logs/%s.log\n' "$CLUSTER_DIR" "$1"; }
launcher() { printf '%s/run/%s.sh\n' "$CLUSTER_DIR" "$1"; }

# True when the process exists and is not a zombie (an exited process that its parent, here
# often PID 1, has not reaped yet).
process_alive() {
  local line rest
  { read -r line <"/proc/$1/stat"; } 2>/dev/null || return 1
  rest="${line##*) }"
  [[ "${rest%% *}" != Z ]]
}

# Prints the pid of a component if its pid file names a live process that belongs to this cluster
# (its command line mentions CLUSTER_DIR, which guards against a recycled pid); else fails.
component_pid() {
  local f pid
  f="$(pid_file "$1")"
  [[ -s "$f" ]] || return 1
  pid="$(head -c 32 "$f")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  process_alive "$pid" || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$CLUSTER_DIR/" || return 1
  printf '%s\n' "$pid"
}

# Starts a component from its launcher script in a session of its own (it outlives the caller).
# The launcher writes its own pid file and then execs the component, so the pid is the component's.
start_component() {
  local name="$1" f
  f="$(pid_file "$name")"
  rm -f "$f"
  mkdir -p "$CLUSTER_DIR/logs" "$CLUSTER_DIR/pids"
  printf '\n==== start %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$(log_file "$name")"
  setsid -f bash "$(launcher "$name")" >>"$(log_file "$name")" 2>&1 </dev/null
  local i
  for ((i = 0; i < 50; i++)); do
    [[ -s "$f" ]] && return 0
    sleep 0.1
  done
  return 1
}

# Stops one component: SIGTERM (or the given signal) to its process group, SIGKILL after 15 s.
stop_component() {
  local name="$1" sig="${2:-TERM}" pid i
  if ! pid="$(component_pid "$name")"; then
    rm -f "$(pid_file "$name")"
    return 0
  fi
  # The launcher made the component a session (and group) leader: signal the group so that helper
  # children (the runtime scaler's pipeline) go too. Fall back to the pid alone otherwise.
  local pgid="" line rest
  if { read -r line <"/proc/$pid/stat"; } 2>/dev/null; then
    rest="${line##*) }" # state ppid pgrp ...
    read -r _ _ pgid _ <<<"$rest"
  fi
  if [[ "$pgid" == "$pid" ]]; then
    kill "-$sig" -- "-$pid" 2>/dev/null || true
  else
    kill "-$sig" "$pid" 2>/dev/null || true
  fi
  for ((i = 0; i < 150; i++)); do
    process_alive "$pid" || break
    sleep 0.1
  done
  if process_alive "$pid"; then
    log "$name (pid $pid) did not stop after SIG$sig; sending SIGKILL"
    if [[ "$pgid" == "$pid" ]]; then kill -KILL -- "-$pid" 2>/dev/null || true; else kill -KILL "$pid" 2>/dev/null || true; fi
    for ((i = 0; i < 50; i++)); do
      process_alive "$pid" || break
      sleep 0.1
    done
  fi
  rm -f "$(pid_file "$name")"
}

# Prints the last lines of a component's log, indented, for error messages.
show_log_tail() {
  local f
  f="$(log_file "$1")"
  if [[ -s "$f" ]]; then
    log "last lines of $f:"
    tail -n "${2:-25}" "$f" | sed 's/^/    /' >&2
  else
    log "$f is empty or missing"
  fi
}

# Picks a free TCP port on 127.0.0.1 that is not yet in PICKED_PORTS (ports chosen in this run).
# Ports come from below the kernel's ephemeral range, so that the local end of some outgoing
# connection cannot take the port between choosing and binding it; a port any socket uses is
# skipped.
PICKED_PORTS=" "
pick_port() {
  local p i used lo=10000 hi=32767 eph_lo eph_hi
  if read -r eph_lo eph_hi </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null && ((eph_lo > lo + 1000)); then
    hi=$((eph_lo - 1))
  fi
  used="$(ss -Htan 2>/dev/null | awk '{ n = split($4, a, ":"); print a[n] }' | sort -u | tr '\n' ' ')"
  for ((i = 0; i < 200; i++)); do
    p=$((lo + RANDOM % (hi - lo + 1)))
    [[ "$PICKED_PORTS" == *" $p "* ]] && continue
    [[ " $used " == *" $p "* ]] && continue
    # A connection that succeeds means something listens there (ss may be missing).
    if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then continue; fi
    PICKED_PORTS+="$p "
    printf '%s\n' "$p"
    return 0
  done
  die "no free TCP port found on 127.0.0.1 after 200 tries"
}

# curl against the cluster's API server with the admin client certificate.
api_curl() {
  curl -sS --max-time "${API_CURL_TIMEOUT:-10}" --cacert "$CLUSTER_DIR/pki/ca.crt" \
    --cert "$CLUSTER_DIR/pki/admin.crt" --key "$CLUSTER_DIR/pki/admin.key" "$@"
}

# Health probe for one component; returns 0 when it answers healthy.
component_healthy() {
  # shellcheck disable=SC1091
  source "$CLUSTER_DIR/cluster.env"
  case "$1" in
  etcd) curl -sf --max-time 3 "http://127.0.0.1:$ETCD_CLIENT_PORT/health" | grep -q '"health":"true"' ;;
  kube-apiserver) [[ "$(API_CURL_TIMEOUT=3 api_curl "https://127.0.0.1:$APISERVER_PORT/readyz" 2>/dev/null)" == ok ]] ;;
  kube-controller-manager) [[ "$(curl -sk --max-time 3 "https://127.0.0.1:$KCM_PORT/healthz")" == ok ]] ;;
  kube-scheduler) [[ "$(curl -sk --max-time 3 "https://127.0.0.1:$SCHEDULER_PORT/healthz")" == ok ]] ;;
  kwok) [[ "$(curl -s --max-time 3 "http://127.0.0.1:$KWOK_PORT/healthz")" == ok ]] ;;
  runtime-scaler) [[ -s "$CLUSTER_DIR/runtime-scaler.ready" ]] ;;
  argo-controller) [[ "$(curl -s --max-time 3 "http://127.0.0.1:6060/healthz")" == ok ]] ;;
  *) return 1 ;;
  esac
}

# Waits until a component is healthy; fails early when its process has exited.
wait_healthy() {
  local name="$1" timeout="${2:-60}" deadline
  deadline=$((SECONDS + timeout))
  while ((SECONDS < deadline)); do
    if ! component_pid "$name" >/dev/null && component_gone "$name"; then
      return 2
    fi
    component_healthy "$name" && return 0
    sleep 0.2
  done
  return 1
}

# Has the component exited? component_pid fails for a moment while the launcher execs it (the
# kernel shows an empty /proc/PID/cmdline during execve), so only a second of failures says so.
component_gone() {
  local k
  for ((k = 0; k < 10; k++)); do
    sleep 0.1
    component_pid "$1" >/dev/null && return 1
  done
  return 0
}

# Renders a KubeSchedulerConfiguration into the run directory, replacing the placeholders
# @SCHEDULER_KUBECONFIG@ and @CLUSTER_DIR@.
render_scheduler_config() {
  local src="$1" dst="$CLUSTER_DIR/scheduler-config.yaml"
  [[ -r "$src" ]] || die "scheduler configuration '$src' is not a readable file"
  (($(stat -c %s "$src") <= 1048576)) || die "scheduler configuration '$src' is larger than 1 MiB"
  grep -q 'KubeSchedulerConfiguration' "$src" || die "scheduler configuration '$src' has no 'kind: KubeSchedulerConfiguration'"
  sed -e "s|@SCHEDULER_KUBECONFIG@|$CLUSTER_DIR/kubeconfigs/kube-scheduler.kubeconfig|g" \
    -e "s|@CLUSTER_DIR@|$CLUSTER_DIR|g" "$src" >"$dst.tmp"
  grep -q 'kubeconfig:' "$dst.tmp" || die "scheduler configuration '$src' sets no clientConnection.kubeconfig (use @SCHEDULER_KUBECONFIG@)"
  mv "$dst.tmp" "$dst"
}
