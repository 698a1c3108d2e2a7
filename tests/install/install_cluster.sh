#!/usr/bin/env bash
# install_cluster.sh EXTENDER_BIN CONTROLLER_BIN: the chart against a real kube-apiserver (run inside
# hack/cluster/with-cluster.sh): every rendered object passes server-side dry-run, `helm install`
# creates them, the Deployments roll out on the fake nodes, each ServiceAccount is allowed exactly
# what it needs, the generated certificate is right and survives `helm upgrade`, and `helm
# uninstall` removes everything after its pre-delete hook (dagsched-controller uninstall, run here
# with the hook's arguments and ServiceAccount) removed dagsched's gate from every pod.
# The extender pods are fake (kwok), so HTTPS is checked with the real extender binary on
# 127.0.0.1, serving the certificate of the installed Secret, called by curl and by the cluster's
# real kube-scheduler configured with the installed tlsConfig (caData, serverName) verbatim.
# Prints 'N passed, N failed'.
set -uo pipefail
cd "$(dirname "$0")/../.."
: "${KUBECONFIG:?run inside hack/cluster/with-cluster.sh}"
EXT_BIN=$(realpath "${1:?usage: install_cluster.sh EXTENDER_BIN CONTROLLER_BIN}")
CTL_BIN=$(realpath "${2:?usage: install_cluster.sh EXTENDER_BIN CONTROLLER_BIN}")
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
    --set extender.tls.enabled=true --set extender.tls.secretName=dagsched-tls --set admission.enabled=false \
    --set controller.leaderElection.enabled=false --set-json 'policy.extra={\"strict\":{\"preemption\":{\"rho\":3}}}' \
    | '$K' apply --dry-run=server -f -"
check "rendered variants (TLS off, no scheduler, NetworkPolicy peers) pass server-side dry-run" \
  bash -c "'$HELM' template dagsched helm/dagsched -n $NS --set extender.tls.enabled=false --set admission.enabled=false \
    --set scheduler.enabled=false --set-json 'networkPolicy.metricsFrom=[]' \
    --set-json 'networkPolicy.extenderFrom=[{\"ipBlock\":{\"cidr\":\"10.0.0.0/24\"}},{\"namespaceSelector\":{\"matchLabels\":{\"team\":\"a\"}},\"podSelector\":{}}]' \
    | '$K' apply --dry-run=server -f -"
check "rendered knobs (names, ServiceAccounts, pod labels, probes, spread) pass server-side dry-run" \
  bash -c "'$HELM' template dagsched helm/dagsched -n $NS --set fullnameOverride=acme \
    --set controller.serviceAccount.create=false --set 'extender.serviceAccount.annotations.eks\.amazonaws\.com/role-arn=arn:aws:iam::1:role/x' \
    --set podLabels.team=data --set scheduler.podAnnotations.a=b --set controller.livenessProbe.periodSeconds=20 \
    --set extender.readinessProbe.successThreshold=2 --set scheduler.replicas=2 \
    --set-json 'topologySpreadConstraints=[{\"maxSkew\":1,\"topologyKey\":\"topology.kubernetes.io/zone\",\"whenUnsatisfiable\":\"DoNotSchedule\"}]' \
    | '$K' apply --dry-run=server -f -"
check "manifests/dagsched.yaml passes server-side dry-run" \
  "$K" apply --dry-run=server -f manifests/dagsched.yaml
check "the Secret of hack/gen-extender-tls.sh passes server-side dry-run" \
  bash -c "KUBECTL='$K' hack/gen-extender-tls.sh | '$K' apply --dry-run=server -f -"

check "helm install" "$HELM" install dagsched helm/dagsched -n "$NS" --wait --timeout 120s
for d in dagsched-extender dagsched-controller dagsched-scheduler; do
  check "deployment $d rolled out" "$K" -n "$NS" rollout status "deployment/$d" --timeout=60s
done
check "policy ConfigMap labelled for discovery" bash -c \
  "'$K' -n $NS get configmap -l dagsched.io/kind=SchedulingPolicy -o name | grep -qx configmap/dagsched-policy-default"
check "extender Service" "$K" -n "$NS" get service dagsched-extender
check "controller PDB" "$K" -n "$NS" get pdb dagsched-controller

# --- the generated certificate
HOST=dagsched-extender.$NS.svc
TLS=$(mktemp -d /tmp/dagsched-install-tls.XXXXXX)
secret_key() { # KEY: one key of the installed Secret, decoded
  "$K" -n "$NS" get secret dagsched-extender-tls -o "go-template={{index .data \"$1\" | base64decode}}"
}
sched_config() { "$K" -n "$NS" get configmap dagsched-scheduler-config -o 'go-template={{index .data "scheduler-config.yaml"}}'; }
save_tls() { # DIR
  mkdir -p "$1" && for k in ca.crt tls.crt tls.key; do secret_key "$k" >"$1/$k" || return 1; done
}
ca_data() { sched_config | python3 -c 'import sys, yaml; print(yaml.safe_load(sys.stdin)["extenders"][0]["tlsConfig"]["caData"])'; }
checksum() { "$K" -n "$NS" get deployment dagsched-scheduler -o 'go-template={{index .spec.template.metadata.annotations "checksum/config"}}'; }
same_ca() { # CA_FILE: is it (a certificate) the scheduler's caData?
  local want got
  want=$(cat "$1") && got=$(ca_data | base64 -d) || return 1
  [[ "$want" == "-----BEGIN CERTIFICATE-----"* && "$got" == "$want" ]]
}
checksum_is() { [[ "$(checksum)" == "$1" ]]; }
renewed() { save_tls "$TLS/renew" && ! cmp -s "$TLS/install/tls.crt" "$TLS/renew/tls.crt"; }
policies() { "$K" -n "$NS" get networkpolicy -o name | sort | tr '\n' ' '; }
INSTALL_CHECKSUM=$(checksum)
np=networkpolicy.networking.k8s.io
check "three NetworkPolicies" [ "$(policies)" == "$np/dagsched-controller $np/dagsched-extender $np/dagsched-scheduler " ]
check "Secret dagsched-extender-tls holds ca.crt, tls.crt, tls.key" save_tls "$TLS/install"
check "tls.crt chains to ca.crt for $HOST" \
  openssl verify -CAfile "$TLS/install/ca.crt" -verify_hostname "$HOST" "$TLS/install/tls.crt"
check "tls.crt chains to ca.crt for $HOST.cluster.local" \
  openssl verify -CAfile "$TLS/install/ca.crt" -verify_hostname "$HOST.cluster.local" "$TLS/install/tls.crt"
check "the scheduler's caData is the Secret's ca.crt" same_ca "$TLS/install/ca.crt"
same_webhook_ca() { # CA_FILE: is it the caBundle of the chart's admission webhook?
  local got
  got=$("$K" get mutatingwebhookconfiguration "dagsched-$NS" -o 'jsonpath={.webhooks[0].clientConfig.caBundle}') &&
    [[ -n "$got" && "$(base64 -d <<<"$got")" == "$(cat "$1")" ]]
}
check "the admission webhook is registered with the Secret's ca.crt as caBundle" \
  same_webhook_ca "$TLS/install/ca.crt"
# The webhook's Service has no reachable endpoint on this cluster (its pods are kwok's): remove
# it so that the pods created below are not delayed by the API server's call timing out.
"$K" delete mutatingwebhookconfiguration "dagsched-$NS" >/dev/null

# The real extender with the installed certificate and key, on 127.0.0.1.
source hack/cluster/lib.sh
PORT=$(pick_port)
"$EXT_BIN" --kubeconfig "$KUBECONFIG" --listen "127.0.0.1:$PORT" --policy-namespace "$NS" \
  --tls-cert "$TLS/install/tls.crt" --tls-key "$TLS/install/tls.key" >"$TLS/extender.log" 2>&1 &
EXT_PID=$!
trap 'kill "$EXT_PID" 2>/dev/null; wait "$EXT_PID" 2>/dev/null; rm -rf "$TLS"' EXIT
https_as() { # NAME PATH: GET https://NAME:PORT/PATH with NAME resolved to 127.0.0.1, checked against ca.crt
  curl -sS --fail --max-time 5 --cacert "$TLS/install/ca.crt" --resolve "$1:$PORT:127.0.0.1" \
    "https://$1:$PORT$2"
}
for _ in $(seq 100); do https_as "$HOST" /healthz >/dev/null 2>&1 && break; sleep 0.2; done
check "the extender serves HTTPS that verifies against the CA for $HOST" https_as "$HOST" /healthz
check "... and for $HOST.cluster.local" https_as "$HOST.cluster.local" /healthz
check "... and not for another name" expect_no https_as "evil.$NS.svc" /healthz
check "... and not over plain HTTP" expect_no curl -sS --fail --max-time 5 "http://127.0.0.1:$PORT/healthz"
# `helm test`: the test Pod's probe of the extender, run for real (dagsched-controller probe with
# the Pod's extender URL, against the installed CA, connected to the extender on 127.0.0.1).
"$HELM" get hooks dagsched -n "$NS" | python3 -c '
import sys, yaml
for d in yaml.safe_load_all(sys.stdin):
    if d and d["kind"] == "Pod" and d["metadata"]["annotations"].get("helm.sh/hook") == "test":
        print("\n".join(a for a in d["spec"]["containers"][0]["args"] if "extender" in a))' >"$TLS/test-url"
check "helm test Pod probes the extender's Service URL" grep -qx -- "--url=https://$HOST:8888/readyz" "$TLS/test-url"
probe() { ASAN_OPTIONS=detect_leaks=1 "$CTL_BIN" probe "$(cat "$TLS/test-url")" --connect-to "127.0.0.1:$PORT" "$@"; }
check "helm test's probe: the extender answers /readyz 200 over verified HTTPS" probe --cacert "$TLS/install/ca.crt"

sched_conf() { # CA_DATA OUT: the cluster's scheduler with the chart's extender entry, URL on 127.0.0.1
  sched_config | CA="$1" PORT="$PORT" python3 -c '
import os, sys, yaml
chart = yaml.safe_load(sys.stdin)
ext = chart["extenders"][0]
ext["urlPrefix"] = "https://127.0.0.1:" + os.environ["PORT"]   # serverName still says the Service
ext["tlsConfig"]["caData"] = os.environ["CA"]
print(yaml.safe_dump({
    "apiVersion": chart["apiVersion"], "kind": chart["kind"],
    "clientConnection": {"kubeconfig": "@SCHEDULER_KUBECONFIG@"},
    "leaderElection": {"leaderElect": False},
    "profiles": [{"schedulerName": "default-scheduler"}, {"schedulerName": "dagsched"}],
    "extenders": [ext]}))' >"$2"
}
pod() { # NAME: a pod for the dagsched profile
  "$K" apply -f - <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: default}
spec:
  schedulerName: dagsched
  containers: [{name: c, image: busybox, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
YAML
}
bound() { [[ -n "$("$K" -n default get pod "$1" -o 'jsonpath={.spec.nodeName}')" ]]; }
filters_ok() { curl -s --cacert "$TLS/install/ca.crt" --resolve "$HOST:$PORT:127.0.0.1" \
  "https://$HOST:$PORT/metrics" | awk '$1 == "dagsched_extender_requests_total{verb=\"filter\",result=\"ok\"}" {n = $2} END {exit !(n > 0)}'; }
wait_until() { # SECONDS CMD...
  local end=$((SECONDS + $1))
  shift
  until "$@"; do ((SECONDS < end)) || return 1; sleep 0.5; done
}
# A CA that did not sign the extender's certificate: kube-scheduler must refuse the extender.
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TLS/other.key" -out "$TLS/other.crt" -days 1 \
  -subj /CN=other-ca >/dev/null 2>&1
check "helm test's probe fails against another CA" expect_no probe --cacert "$TLS/other.crt"
sched_conf "$(base64 -w0 "$TLS/other.crt")" "$TLS/sched-wrong-ca.yaml"
SCHEDULER_CONFIG="$TLS/sched-wrong-ca.yaml" hack/cluster/restart-component.sh kube-scheduler >/dev/null
pod tls-wrong-ca >/dev/null
check "kube-scheduler with another CA does not bind (certificate not trusted)" \
  expect_no wait_until 10 bound tls-wrong-ca
check "... and logs a certificate error" wait_until 20 grep -q "x509: certificate signed by unknown authority" \
  "$CLUSTER_DIR/logs/kube-scheduler.log"
"$K" -n default delete pod tls-wrong-ca --wait=false >/dev/null
sched_conf "$(ca_data)" "$TLS/sched.yaml"
SCHEDULER_CONFIG="$TLS/sched.yaml" hack/cluster/restart-component.sh kube-scheduler >/dev/null
pod tls-chart-ca >/dev/null
check "kube-scheduler with the chart's tlsConfig binds a dagsched pod through the extender" \
  wait_until 30 bound tls-chart-ca
check "... after HTTPS filter calls" filters_ok
"$K" -n default delete pod tls-chart-ca --wait=false >/dev/null

# --- helm upgrade keeps the certificate; deleting the Secret renews it
check "helm upgrade" "$HELM" upgrade dagsched helm/dagsched -n "$NS" --reuse-values --wait --timeout 120s
check "helm upgrade keeps the certificate and key" save_tls "$TLS/upgrade"
check "... same tls.crt" cmp "$TLS/install/tls.crt" "$TLS/upgrade/tls.crt"
check "... same tls.key" cmp "$TLS/install/tls.key" "$TLS/upgrade/tls.key"
check "... same caData in the scheduler's config" same_ca "$TLS/install/ca.crt"
check "... so the scheduler is not restarted (same config checksum)" checksum_is "$INSTALL_CHECKSUM"
check "delete the Secret, helm upgrade: renewed" bash -c \
  "'$K' -n $NS delete secret dagsched-extender-tls && '$HELM' upgrade dagsched helm/dagsched -n $NS --reuse-values --wait --timeout 120s"
check "... a new certificate" renewed
check "... that chains to the new ca.crt" \
  openssl verify -CAfile "$TLS/renew/ca.crt" -verify_hostname "$HOST" "$TLS/renew/tls.crt"
check "... the scheduler's caData follows" same_ca "$TLS/renew/ca.crt"
check "... and the scheduler restarts (new config checksum)" expect_no checksum_is "$INSTALL_CHECKSUM"

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

# --- helm uninstall strands no gated pod: the pre-delete hook's Job runs the real
# dagsched-controller with the Job's own arguments and ServiceAccount (a token minted for it). The
# pods are kwok's, so this script plays the kubelet for the hook's pod: it runs its container's
# command as that ServiceAccount and reports the exit status as the pod's phase.
"$HELM" get manifest dagsched -n "$NS" | python3 -c '
import sys, yaml
for d in yaml.safe_load_all(sys.stdin):
    if d and d["kind"] == "MutatingWebhookConfiguration":
        print("---"); print(yaml.safe_dump(d))' | "$K" apply -f - >/dev/null
gated_pod() { # NAME GATES...: a pending pod of the release namespace (the webhook skips it)
  local name=$1 gates=""
  shift
  for g in "$@"; do gates+="{name: $g},"; done
  "$K" apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $name, namespace: $NS}
spec:
  schedulerName: dagsched
  schedulingGates: [${gates%,}]
  containers: [{name: c, image: busybox}]
YAML
}
gated_pod strand-a dagsched.io/dependencies
gated_pod strand-b dagsched.io/dependencies
gated_pod strand-c dagsched.io/dependencies example.com/hold
gated_pod strand-d example.com/hold
"$K" apply -f - >/dev/null <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: strand-job, namespace: $NS, labels: {dagsched.io/job: strand, dagsched.io/task: t}}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
YAML
# The hook's command, run for real: the Job that `helm get hooks` shows, its arguments, as its
# ServiceAccount (the hook's ServiceAccount and RBAC applied from the same output, a token minted
# for it). Then `helm uninstall` runs the hook itself (kwok plays its pod, as every Job pod here).
"$HELM" get hooks dagsched -n "$NS" >"$TLS/hooks.yaml"
python3 -c '
import sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d and d["kind"] != "Job":
        print("---"); print(yaml.safe_dump(d))' "$TLS/hooks.yaml" | "$K" apply -f - >/dev/null
HOOK_SA=$(python3 -c '
import sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d and d["kind"] == "Job" and d["metadata"]["annotations"]["helm.sh/hook"] == "pre-delete":
        print(d["spec"]["template"]["spec"]["serviceAccountName"])' "$TLS/hooks.yaml")
mapfile -t HOOK_ARGS < <(python3 -c '
import sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d and d["kind"] == "Job" and d["metadata"]["annotations"]["helm.sh/hook"] == "pre-delete":
        print("\n".join(d["spec"]["template"]["spec"]["containers"][0]["args"]))' "$TLS/hooks.yaml")
"$K" config view --raw --minify | TOKEN="$("$K" -n "$NS" create token "$HOOK_SA")" python3 -c '
import os, sys, yaml
c = yaml.safe_load(sys.stdin)
c["users"] = [{"name": "hook", "user": {"token": os.environ["TOKEN"]}}]
c["contexts"][0]["context"]["user"] = "hook"
print(yaml.safe_dump(c))' >"$TLS/hook.kubeconfig"
check "the hook's ServiceAccount cannot delete another webhook configuration" expect_no \
  "$K" --kubeconfig "$TLS/hook.kubeconfig" delete mutatingwebhookconfiguration other --dry-run=server
run_hook() {
  ASAN_OPTIONS=detect_leaks=1 "$CTL_BIN" "${HOOK_ARGS[@]}" --kubeconfig "$TLS/hook.kubeconfig" \
    --log-format text >"$TLS/hook.log" 2>&1
}
check "the hook's command (dagsched-controller ${HOOK_ARGS[*]}) exits 0 as its ServiceAccount" run_hook
sed 's/^/     hook: /' "$TLS/hook.log" | tail -n 12
no_gate() { [[ -z "$("$K" -n "$NS" get pod "$1" -o jsonpath='{.spec.schedulingGates}')" ]]; }
gates_are() { [[ "$("$K" -n "$NS" get pod "$1" -o jsonpath='{.spec.schedulingGates[*].name}')" == "$2" ]]; }
check "no pod keeps dagsched's gate" bash -c "! '$K' get pods -A -o jsonpath='{.items[*].spec.schedulingGates[*].name}' | grep -q dagsched.io/dependencies"
check "... strand-a is ungated" no_gate strand-a
check "... strand-b is ungated" no_gate strand-b
check "... another owner's gate is kept" gates_are strand-c example.com/hold
check "... a pod with only another owner's gate is untouched" gates_are strand-d example.com/hold
check "the webhook configuration is gone" expect_no "$K" get mutatingwebhookconfiguration "dagsched-$NS"
check "the hook reports the suspended DAG Job it leaves alone" grep -q "strand-job.*stays so" "$TLS/hook.log"
check "the hook reports pods left waiting for the dagsched scheduler" grep -Eq "[1-9][0-9]* pending pods wait for scheduler dagsched" "$TLS/hook.log"
check "the suspended Job is still suspended" bash -c "[[ \$('$K' -n $NS get job strand-job -o jsonpath='{.spec.suspend}') == true ]]"
# What the components write at run time and no owner removes (their pods here are kwok's, so
# this script writes them as the controller and kube-scheduler would), and two objects of
# another owner that must stay.
for cm in dagsched-controller-evictions dagsched-runtime-history other-config; do
  "$K" -n "$NS" create configmap "$cm" --from-literal=k=v >/dev/null
done
for lease in dagsched-controller dagsched-scheduler other-lease; do
  "$K" apply -f - >/dev/null <<YAML
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: $lease, namespace: $NS}
spec: {holderIdentity: someone, leaseDurationSeconds: 15}
YAML
done
check "helm uninstall (its pre-delete and post-delete hooks succeed)" "$HELM" uninstall dagsched -n "$NS" --wait --timeout 120s
check "the hook's objects are removed after it succeeded" bash -c \
  "! '$K' -n $NS get job,serviceaccount -o name | grep -q uninstall && ! '$K' get clusterrole -o name | grep -q uninstall"
check "no cluster-scoped leftovers" bash -c \
  "! '$K' get clusterroles,clusterrolebindings -o name | grep -q dagsched"

# The post-delete hook's command, run for real (kwok played its pod during `helm uninstall`): the
# Job that `helm get hooks` showed, its arguments, as its ServiceAccount (its objects applied
# again from the same output, a token minted for it).
post_delete() { # the post-delete hook's objects of hooks.yaml: KIND-FILTER (job|other)
  python3 -c '
import sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d and d["metadata"].get("annotations", {}).get("helm.sh/hook") == "post-delete" and \
            (d["kind"] == "Job") == (sys.argv[2] == "job"):
        if sys.argv[2] == "job":
            print(d["spec"]["template"]["spec"]["serviceAccountName"])
            print("\n".join(d["spec"]["template"]["spec"]["containers"][0]["args"]))
        else:
            print("---"); print(yaml.safe_dump(d))' "$TLS/hooks.yaml" "$1"
}
post_delete other | "$K" apply -f - >/dev/null
mapfile -t CLEAN < <(post_delete job)
CLEAN_SA=${CLEAN[0]}
CLEAN_ARGS=("${CLEAN[@]:1}")
"$K" config view --raw --minify | TOKEN="$("$K" -n "$NS" create token "$CLEAN_SA")" python3 -c '
import os, sys, yaml
c = yaml.safe_load(sys.stdin)
c["users"] = [{"name": "hook", "user": {"token": os.environ["TOKEN"]}}]
c["contexts"][0]["context"]["user"] = "hook"
print(yaml.safe_dump(c))' >"$TLS/cleanup.kubeconfig"
run_cleanup() { # EXTRA-ARGS...
  ASAN_OPTIONS=detect_leaks=1 "$CTL_BIN" "${CLEAN_ARGS[@]}" "$@" --kubeconfig "$TLS/cleanup.kubeconfig" \
    --log-format text >"$TLS/cleanup.log" 2>&1
}
left() { # what of dagsched's is left in the release namespace
  "$K" -n "$NS" get configmaps,leases.coordination.k8s.io,secrets,serviceaccounts,services,deployments,jobs,roles,rolebindings,networkpolicies,poddisruptionbudgets -o name |
    grep dagsched
}
both_left() { # the four objects the components wrote, all still there
  [[ $("$K" -n "$NS" get configmap dagsched-controller-evictions dagsched-runtime-history -o name | wc -l) == 2 &&
    $("$K" -n "$NS" get lease dagsched-controller dagsched-scheduler -o name | wc -l) == 2 ]]
}
check "the post-delete hook's ServiceAccount cannot delete another ConfigMap" expect_no \
  "$K" --kubeconfig "$TLS/cleanup.kubeconfig" -n "$NS" delete configmap other-config --dry-run=server
check "... nor another Lease" expect_no \
  "$K" --kubeconfig "$TLS/cleanup.kubeconfig" -n "$NS" delete lease other-lease --dry-run=server
"$K" apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: late-controller
  namespace: $NS
  labels: {app.kubernetes.io/name: dagsched, app.kubernetes.io/instance: dagsched, app.kubernetes.io/component: controller}
spec:
  containers: [{name: c, image: busybox}]
YAML
check "while a controller pod of the release remains, the hook's command waits, then fails" \
  expect_no run_cleanup --wait-timeout=3s
check "... and deletes nothing (the pod would write it again)" both_left
"$K" -n "$NS" delete pod late-controller --grace-period=0 --force --wait >/dev/null 2>&1
check "the post-delete hook's command (dagsched-controller ${CLEAN_ARGS[*]}) exits 0 as its ServiceAccount" \
  run_cleanup
sed 's/^/     cleanup: /' "$TLS/cleanup.log" | tail -n 8
check "... the ledger, learned run-time ConfigMaps and both Leases are gone" bash -c \
  "! '$K' -n $NS get configmap dagsched-controller-evictions 2>/dev/null && ! '$K' -n $NS get configmap dagsched-runtime-history 2>/dev/null &&
   ! '$K' -n $NS get lease dagsched-controller 2>/dev/null && ! '$K' -n $NS get lease dagsched-scheduler 2>/dev/null"
check "... another owner's ConfigMap and Lease are kept" \
  "$K" -n "$NS" get configmap/other-config lease/other-lease
check "... run again, it finds them gone and exits 0" run_cleanup
post_delete other | "$K" delete -f - >/dev/null
"$K" -n "$NS" delete configmap other-config >/dev/null
"$K" -n "$NS" delete lease other-lease >/dev/null
check "nothing of dagsched's is left in the release namespace after helm uninstall" \
  wait_until 60 expect_no left
left | sed 's/^/     left: /'

# --- helm upgrade from the previous chart version: the chart as of the commit before the last
# change of Chart.yaml's version (UPGRADE_FROM=REV picks another), installed with the same user
# values as the current one, then upgraded to the current chart.
cur_version=$(awk '$1 == "version:" {print $2}' helm/dagsched/Chart.yaml)
bump=$(git log -1 --format=%H -G '^version:' -- helm/dagsched/Chart.yaml)
PREV_REV=${UPGRADE_FROM:-$bump^}
PREV="$TLS/prev"
mkdir -p "$PREV"
check "the previous chart ($PREV_REV) extracted from git" \
  bash -c "git archive '$PREV_REV' helm/dagsched | tar -x -C '$PREV'"
prev_version=$(awk '$1 == "version:" {print $2}' "$PREV/helm/dagsched/Chart.yaml" 2>/dev/null)
check "... it is another chart version ($prev_version, current $cur_version)" \
  bash -c "[[ -n '$prev_version' && '$prev_version' != '$cur_version' ]]"
cat >"$TLS/user-values.yaml" <<'YAML'
policy:
  spec: {preemption: {rho: 2}}
  extra: {strict: {preemption: {rho: 3}}}
YAML
check "helm install of chart $prev_version" "$HELM" install dagsched "$PREV/helm/dagsched" -n "$NS" \
  -f "$TLS/user-values.yaml" --wait --timeout 120s
check "helm upgrade to chart $cur_version" "$HELM" upgrade dagsched helm/dagsched -n "$NS" \
  -f "$TLS/user-values.yaml" --wait --timeout 120s
check "the release is at revision 2, chart dagsched-$cur_version, deployed" bash -c \
  "'$HELM' history dagsched -n $NS -o json | python3 -c '
import json, sys
h = json.load(sys.stdin)
assert [r[\"revision\"] for r in h] == [1, 2], h
assert h[-1][\"chart\"] == \"dagsched-$cur_version\" and h[-1][\"status\"] == \"deployed\", h[-1]'"
"$HELM" get manifest dagsched -n "$NS" >"$TLS/upgraded.yaml"
"$HELM" template dagsched helm/dagsched -n "$NS" -f "$TLS/user-values.yaml" >"$TLS/current.yaml"
# objects.py -|live: the fields compared of the policy ConfigMaps, Deployments and webhook
# configuration, by kind/name, from YAML documents on stdin (-) or a kubectl List (live).
cat >"$TLS/objects.py" <<'PY'
import json, sys, yaml
def pick(d):
    k, m = d["kind"], d["metadata"]
    if k == "ConfigMap" and m.get("labels", {}).get("dagsched.io/kind") == "SchedulingPolicy":
        return {"labels": m["labels"]["dagsched.io/kind"], "data": d["data"]}
    if k == "Deployment":
        c = d["spec"]["template"]["spec"]["containers"]
        # The API server adds defaults (ports' protocol...): compare what the chart sets.
        return {"chart": m["labels"]["helm.sh/chart"], "replicas": d["spec"]["replicas"],
                "containers": [(x["name"], x["image"], x.get("args"),
                                [(p.get("name"), p["containerPort"]) for p in x.get("ports", [])])
                               for x in c]}
    if k == "MutatingWebhookConfiguration":
        return {"chart": m["labels"]["helm.sh/chart"],
                "webhooks": [(w["name"], w["clientConfig"]["service"], w["failurePolicy"],
                              w["namespaceSelector"], w["rules"]) for w in d["webhooks"]]}
    return None
docs = yaml.safe_load_all(sys.stdin) if sys.argv[1] == "-" else []
if sys.argv[1] == "live":
    docs = json.load(sys.stdin)["items"]
out = {}
for d in docs:
    if d and (p := pick(d)) is not None:
        out[d["kind"] + "/" + d["metadata"]["name"]] = p
json.dump(out, sys.stdout, sort_keys=True, indent=1, default=str)
PY
objects_of() { python3 "$TLS/objects.py" "$@"; }
live_objects() {
  { "$K" -n "$NS" get configmap,deployment -o json && "$K" get mutatingwebhookconfiguration -o json; } |
    python3 -c 'import json, sys
items = []
dec = json.JSONDecoder(); s = sys.stdin.read(); i = 0
while i < len(s):
    if s[i].isspace(): i += 1; continue
    o, i = dec.raw_decode(s, i); items += o["items"]
json.dump({"items": items}, sys.stdout)' | objects_of live
}
same_objects() { # the live policy ConfigMaps, Deployments and webhook configuration as rendered
  local want got
  want=$(objects_of - <"$TLS/current.yaml" | python3 -c '
import json, sys
o = json.load(sys.stdin)
# The scheduler image follows the cluster version (helm template does not know it).
print(json.dumps({k: v for k, v in o.items() if k != "Deployment/dagsched-scheduler"}, sort_keys=True, indent=1))') || return 1
  got=$(live_objects | python3 -c '
import json, sys
o = json.load(sys.stdin)
print(json.dumps({k: v for k, v in o.items() if k != "Deployment/dagsched-scheduler"}, sort_keys=True, indent=1))') || return 1
  diff <(echo "$want") <(echo "$got")
}
check "policy ConfigMaps, extender and controller Deployments and the webhook are the current chart's" \
  same_objects
check "... the user's policy values survive the upgrade" bash -c \
  "'$K' -n $NS get configmap dagsched-policy-default -o 'jsonpath={.data.policy\.yaml}' | grep -q 'rho: 2' &&
   '$K' -n $NS get configmap dagsched-policy-strict -o 'jsonpath={.data.policy\.yaml}' | grep -q 'rho: 3'"
for d in dagsched-extender dagsched-controller dagsched-scheduler; do
  check "deployment $d rolled out after the upgrade" "$K" -n "$NS" rollout status "deployment/$d" --timeout=60s
done
webhook_ca_kept() { secret_key ca.crt >"$TLS/upgrade-ca.crt" && same_webhook_ca "$TLS/upgrade-ca.crt"; }
check "the webhook's caBundle is still the Secret's ca.crt" webhook_ca_kept
check "the upgrade ran no pre-delete hook (no uninstall Job)" bash -c "! '$K' -n $NS get jobs -o name | grep -q uninstall"
check "no pod is left gated" bash -c \
  "! '$K' get pods -A -o jsonpath='{.items[*].spec.schedulingGates[*].name}' | grep -q dagsched.io/dependencies"
check "helm uninstall of the upgraded release" "$HELM" uninstall dagsched -n "$NS" --wait --timeout 120s
check "... leaves no cluster-scoped object" bash -c \
  "! '$K' get clusterroles,clusterrolebindings,mutatingwebhookconfigurations -o name | grep -q dagsched"

rm -f /tmp/install-check.$$
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
