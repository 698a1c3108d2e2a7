#!/usr/bin/env bash
# up.sh: starts a real local Kubernetes control plane as processes on 127.0.0.1 (no containers):
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok (fake nodes and pod
# lifecycles) and the runtime scaler, then creates the fake nodes of a node profile.
#
# Environment:
#   CLUSTER_DIR       run directory (default <repo>/.cache/cluster): certificates, kubeconfigs,
#                     etcd data, logs/<component>.log, pids/<component>.pid, cluster.env (ports)
#   NODE_PROFILE      node profile (default hack/cluster/nodes/default.tsv); "none" creates no node
#   SCHEDULER_CONFIG  a KubeSchedulerConfiguration file to use instead of the default one; the
#                     placeholders @SCHEDULER_KUBECONFIG@ and @CLUSTER_DIR@ are replaced
#   CLUSTER_START_TIMEOUT  seconds each component may take to become healthy (default 90)
#   ARGO              1: also start Argo Workflows' controller (hack/cluster/argo-up.sh)
#
# The admin kubeconfig is $CLUSTER_DIR/kubeconfig. Idempotent: when every component of the
# cluster in CLUSTER_DIR runs and is healthy, nothing is restarted (missing nodes of the profile
# are added). Otherwise whatever is left of an earlier cluster there is stopped and wiped, and a
# fresh cluster starts on newly chosen free ports. A component that fails to start is named, the
# tail of its log is shown, and everything this script started is stopped again.
set -euo pipefail
LOG_PREFIX=cluster-up
# shellcheck source=hack/cluster/lib.sh
source "$(dirname "$0")/lib.sh"
check_cluster_dir

NODE_PROFILE="${NODE_PROFILE:-$CLUSTER_LIB_DIR/nodes/default.tsv}"
SCHEDULER_CONFIG="${SCHEDULER_CONFIG:-}"
START_TIMEOUT="${CLUSTER_START_TIMEOUT:-90}"
[[ "$START_TIMEOUT" =~ ^[0-9]{1,4}$ ]] || die "CLUSTER_START_TIMEOUT must be a number of seconds (got '$START_TIMEOUT')"
if [[ "$NODE_PROFILE" != none && ! -r "$NODE_PROFILE" ]]; then
  die "NODE_PROFILE '$NODE_PROFILE' is not a readable file"
fi
if [[ -n "$SCHEDULER_CONFIG" && ! -r "$SCHEDULER_CONFIG" ]]; then
  die "SCHEDULER_CONFIG '$SCHEDULER_CONFIG' is not a readable file"
fi
MARKER="$CLUSTER_DIR/.dagsched-cluster"
t0=$SECONDS

cluster_running() {
  local c
  [[ -f "$CLUSTER_DIR/cluster.env" ]] || return 1
  for c in "${CLUSTER_COMPONENTS[@]}"; do
    component_pid "$c" >/dev/null && component_healthy "$c" || return 1
  done
}

create_profile_nodes() {
  [[ "$NODE_PROFILE" == none ]] && return 0
  "$CLUSTER_LIB_DIR/create-nodes.sh" "$NODE_PROFILE" --wait "$START_TIMEOUT"
}

if cluster_running; then
  log "the cluster in $CLUSTER_DIR is already running (kubeconfig $CLUSTER_DIR/kubeconfig)"
  [[ -z "$SCHEDULER_CONFIG" ]] || log "SCHEDULER_CONFIG is ignored for a running cluster; use hack/cluster/restart-component.sh kube-scheduler"
  create_profile_nodes
  [[ "${ARGO:-0}" != 1 ]] || "$CLUSTER_LIB_DIR/argo-up.sh"
  exit 0
fi

# ---- leftovers of an earlier cluster in the same directory
if [[ -d "$CLUSTER_DIR" ]] && [[ -n "$(ls -A "$CLUSTER_DIR")" ]]; then
  [[ -f "$MARKER" ]] || die "$CLUSTER_DIR is not empty and was not made by this tool; choose another CLUSTER_DIR"
  for ((i = ${#CLUSTER_COMPONENTS[@]} - 1; i >= 0; i--)); do
    stop_component "${CLUSTER_COMPONENTS[$i]}"
  done
  rm -rf "$CLUSTER_DIR"
fi
mkdir -p "$CLUSTER_DIR"/{pki,kubeconfigs,logs,pids,run,etcd,certs}
: >"$MARKER"

ensure_cluster_packages
"$CLUSTER_LIB_DIR/build.sh"
for b in "$K8S_BIN_DIR"/{kube-apiserver,kube-controller-manager,kube-scheduler,kubectl} "$KWOK_BIN_DIR/kwok" /usr/bin/etcd; do
  [[ -x "$b" ]] || die "missing binary $b"
done

# From here on a failure stops whatever was started.
started=0
attempt="${CLUSTER_UP_ATTEMPT:-1}"
on_exit() {
  local rc=$?
  if ((rc != 0 && started)); then
    log "stopping the components started so far"
    for ((i = ${#CLUSTER_COMPONENTS[@]} - 1; i >= 0; i--)); do
      stop_component "${CLUSTER_COMPONENTS[$i]}"
    done
  fi
  # Another process took a chosen port between choosing and binding it: start again on new ports.
  if ((rc == 75 && attempt < 3)); then
    log "a port was taken meanwhile; starting again on other ports (attempt $((attempt + 1)) of 3)"
    trap - EXIT
    CLUSTER_UP_ATTEMPT=$((attempt + 1)) exec "$0"
  fi
  exit "$rc"
}
trap on_exit EXIT

# ---- ports
ETCD_CLIENT_PORT="$(pick_port)"
ETCD_PEER_PORT="$(pick_port)"
APISERVER_PORT="$(pick_port)"
KCM_PORT="$(pick_port)"
SCHEDULER_PORT="$(pick_port)"
KWOK_PORT="$(pick_port)"
cat >"$CLUSTER_DIR/cluster.env" <<EOF
# Ports and versions of the local cluster in $CLUSTER_DIR (written by hack/cluster/up.sh).
CLUSTER_DIR=$CLUSTER_DIR
K8S_VERSION=$K8S_VERSION
KWOK_VERSION=$KWOK_VERSION
ETCD_CLIENT_PORT=$ETCD_CLIENT_PORT
ETCD_PEER_PORT=$ETCD_PEER_PORT
APISERVER_PORT=$APISERVER_PORT
KCM_PORT=$KCM_PORT
SCHEDULER_PORT=$SCHEDULER_PORT
KWOK_PORT=$KWOK_PORT
EOF

# ---- certificates (ECDSA P-256; RSA for the service-account signing key)
PKI="$CLUSTER_DIR/pki"
ossl() {
  local out
  out="$(openssl "$@" 2>&1)" || die "openssl $1 failed: $out"
}
ossl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
  -keyout "$PKI/ca.key" -out "$PKI/ca.crt" -days 3650 -subj "/CN=dagsched-local-ca" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
# issue NAME SUBJECT EXTENDED_KEY_USAGE [SUBJECT_ALT_NAMES [CA_NAME]]
issue() {
  local name="$1" subj="$2" eku="$3" sans="${4:-}" ca="${5:-ca}"
  ossl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
    -keyout "$PKI/$name.key" -out "$PKI/$name.csr" -subj "$subj"
  {
    echo "basicConstraints=critical,CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$eku"
    [[ -z "$sans" ]] || echo "subjectAltName=$sans"
  } >"$PKI/$name.ext"
  ossl x509 -req -in "$PKI/$name.csr" -CA "$PKI/$ca.crt" -CAkey "$PKI/$ca.key" \
    -set_serial "0x$(openssl rand -hex 16)" -days 365 -extfile "$PKI/$name.ext" -out "$PKI/$name.crt"
  rm -f "$PKI/$name.csr" "$PKI/$name.ext"
}
issue apiserver "/CN=kube-apiserver" serverAuth \
  "IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
# The front-proxy (request-header) CA lets kube-controller-manager and kube-scheduler complete
# their delegated authentication set-up; kube-apiserver presents front-proxy-client to aggregated
# API servers.
ossl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
  -keyout "$PKI/front-proxy-ca.key" -out "$PKI/front-proxy-ca.crt" -days 3650 -subj "/CN=dagsched-local-front-proxy-ca" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
issue front-proxy-client "/CN=front-proxy-client" clientAuth "" front-proxy-ca
issue admin "/O=system:masters/CN=kubernetes-admin" clientAuth
issue kube-controller-manager "/CN=system:kube-controller-manager" clientAuth
issue kube-scheduler "/CN=system:kube-scheduler" clientAuth
# kwok plays every kubelet and the runtime scaler edits any pod: both act as cluster admins.
issue kwok "/O=system:masters/CN=kwok" clientAuth
ossl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$PKI/sa.key"
ossl pkey -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub"
chmod 600 "$PKI"/*.key

# ---- kubeconfigs (certificates embedded, so a kubeconfig can be copied elsewhere)
b64() { base64 -w0 <"$1"; }
write_kubeconfig() {
  local file="$1" user="$2"
  cat >"$file" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: dagsched-local
  cluster:
    server: https://127.0.0.1:$APISERVER_PORT
    certificate-authority-data: $(b64 "$PKI/ca.crt")
users:
- name: $user
  user:
    client-certificate-data: $(b64 "$PKI/$user.crt")
    client-key-data: $(b64 "$PKI/$user.key")
contexts:
- name: dagsched-local
  context:
    cluster: dagsched-local
    user: $user
current-context: dagsched-local
EOF
  chmod 600 "$file"
}
for u in admin kube-controller-manager kube-scheduler kwok; do
  write_kubeconfig "$CLUSTER_DIR/kubeconfigs/$u.kubeconfig" "$u"
done
cp "$CLUSTER_DIR/kubeconfigs/admin.kubeconfig" "$CLUSTER_DIR/kubeconfig"

# ---- component configuration
render_scheduler_config "${SCHEDULER_CONFIG:-$CLUSTER_LIB_DIR/scheduler-config.yaml}"

KWOK_STAGES=""
for f in "$CLUSTER_LIB_DIR"/kwok/*.yaml; do KWOK_STAGES+="${KWOK_STAGES:+,}$f"; done

# Each component gets a launcher that records its own pid and execs the binary; restart-component.sh
# runs the same launcher again.
write_launcher() {
  local name="$1"
  shift
  {
    echo "#!/usr/bin/env bash"
    echo "# Launcher of $name for the local cluster in $CLUSTER_DIR (written by hack/cluster/up.sh)."
    echo "echo \$\$ > $(pid_file "$name")"
    printf 'exec'
    printf ' %q' "$@"
    echo
  } >"$(launcher "$name")"
}

write_launcher etcd /usr/bin/etcd \
  --name=default --data-dir="$CLUSTER_DIR/etcd" \
  --listen-client-urls="http://127.0.0.1:$ETCD_CLIENT_PORT" \
  --advertise-client-urls="http://127.0.0.1:$ETCD_CLIENT_PORT" \
  --listen-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-advertise-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster="default=http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster-state=new --quota-backend-bytes=4294967296 --log-level=warn

# Debian's etcd 3.4.23 lacks the progress notifications that streaming list-watch (WatchList)
# needs. With WatchList on, kube-apiserver accepts such watches and then ends them with an error,
# which kwok's client retries with growing back-off and so sees pod changes many seconds late.
# With it off the request is refused at once and every client falls back to LIST + WATCH; the
# Kubernetes components are told not to try (WatchListClient=false).
write_launcher kube-apiserver "$K8S_BIN_DIR/kube-apiserver" \
  --etcd-servers="http://127.0.0.1:$ETCD_CLIENT_PORT" \
  --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$APISERVER_PORT" \
  --cert-dir="$CLUSTER_DIR/certs/kube-apiserver" \
  --tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" \
  --client-ca-file="$PKI/ca.crt" \
  --requestheader-client-ca-file="$PKI/front-proxy-ca.crt" --requestheader-allowed-names=front-proxy-client \
  --requestheader-username-headers=X-Remote-User --requestheader-group-headers=X-Remote-Group \
  --requestheader-extra-headers-prefix=X-Remote-Extra- \
  --proxy-client-cert-file="$PKI/front-proxy-client.crt" --proxy-client-key-file="$PKI/front-proxy-client.key" \
  --authorization-mode=Node,RBAC \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="$PKI/sa.pub" --service-account-signing-key-file="$PKI/sa.key" \
  --service-cluster-ip-range=10.96.0.0/16 \
  --endpoint-reconciler-type=none \
  --feature-gates=WatchList=false \
  --allow-privileged=true \
  --max-requests-inflight=800 --max-mutating-requests-inflight=400 \
  --profiling=false --v=1

write_launcher kube-controller-manager "$K8S_BIN_DIR/kube-controller-manager" \
  --kubeconfig="$CLUSTER_DIR/kubeconfigs/kube-controller-manager.kubeconfig" \
  --authentication-kubeconfig="$CLUSTER_DIR/kubeconfigs/kube-controller-manager.kubeconfig" \
  --authorization-kubeconfig="$CLUSTER_DIR/kubeconfigs/kube-controller-manager.kubeconfig" \
  --bind-address=127.0.0.1 --secure-port="$KCM_PORT" \
  --cert-dir="$CLUSTER_DIR/certs/kube-controller-manager" \
  --controllers='*' --use-service-account-credentials=true \
  --service-account-private-key-file="$PKI/sa.key" --root-ca-file="$PKI/ca.crt" \
  --cluster-signing-cert-file="$PKI/ca.crt" --cluster-signing-key-file="$PKI/ca.key" \
  --leader-elect=false --kube-api-qps=200 --kube-api-burst=400 \
  --feature-gates=WatchListClient=false \
  --profiling=false --v=1

write_launcher kube-scheduler "$K8S_BIN_DIR/kube-scheduler" \
  --config="$CLUSTER_DIR/scheduler-config.yaml" \
  --authentication-kubeconfig="$CLUSTER_DIR/kubeconfigs/kube-scheduler.kubeconfig" \
  --authorization-kubeconfig="$CLUSTER_DIR/kubeconfigs/kube-scheduler.kubeconfig" \
  --bind-address=127.0.0.1 --secure-port="$SCHEDULER_PORT" \
  --cert-dir="$CLUSTER_DIR/certs/kube-scheduler" --feature-gates=WatchListClient=false --v=1

write_launcher kwok "$KWOK_BIN_DIR/kwok" \
  --kubeconfig="$CLUSTER_DIR/kubeconfigs/kwok.kubeconfig" \
  --config="$KWOK_STAGES" \
  --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
  --node-lease-duration-seconds=40 \
  --node-ip=127.0.0.1 --cidr=10.244.0.1/16 \
  --server-address="127.0.0.1:$KWOK_PORT"

write_launcher runtime-scaler bash "$CLUSTER_LIB_DIR/runtime-scaler.sh" "$CLUSTER_DIR/"

# ---- start, in dependency order; the last four only need the API server
start_and_wait() {
  local name
  for name in "$@"; do
    start_component "$name" || {
      show_log_tail "$name"
      die "$name did not start (no pid file); see $(log_file "$name")"
    }
  done
  for name in "$@"; do
    local rc=0
    wait_healthy "$name" "$START_TIMEOUT" || rc=$?
    case "$rc" in
    0) ;;
    2)
      show_log_tail "$name"
      if tail -n 20 "$(log_file "$name")" | grep -q 'address already in use'; then
        log "error: $name could not bind its port"
        exit 75
      fi
      die "$name exited during start-up; log $(log_file "$name")"
      ;;
    *)
      show_log_tail "$name"
      die "$name is not healthy after ${START_TIMEOUT} s; log $(log_file "$name")"
      ;;
    esac
  done
}
started=1
start_and_wait etcd
start_and_wait kube-apiserver
start_and_wait kube-controller-manager kube-scheduler kwok runtime-scaler
log "control plane healthy after $((SECONDS - t0)) s"

mkdir -p "$CLUSTER_DIR/bin"
for b in kube-apiserver kube-controller-manager kube-scheduler kubectl; do ln -sfn "$K8S_BIN_DIR/$b" "$CLUSTER_DIR/bin/$b"; done
ln -sfn "$KWOK_BIN_DIR/kwok" "$CLUSTER_DIR/bin/kwok"

create_profile_nodes
started=0
# Argo Workflows on request; a failure to start it leaves the cluster up and fails the script.
if [[ "${ARGO:-0}" == 1 ]]; then
  "$CLUSTER_LIB_DIR/argo-up.sh"
fi
log "cluster up in $((SECONDS - t0)) s: Kubernetes $K8S_VERSION, kwok $KWOK_VERSION, API https://127.0.0.1:$APISERVER_PORT"
log "kubectl: $CLUSTER_DIR/bin/kubectl --kubeconfig $CLUSTER_DIR/kubeconfig get nodes"
