#!/usr/bin/env bash
# create-nodes.sh: creates the fake nodes of a node profile (hack/cluster/nodes/*.tsv) in a running
# local cluster. kwok manages them (annotation kwok.x-k8s.io/node=fake) and reports them Ready.
#
# Profile format, one node a line, '#' starts a comment, fields separated by tabs or spaces:
#   name cpu memory ephemeral-storage gpu pods labels taints
#   labels: key=value[,key=value...] or "-";  taints: key[=value]:Effect[,...] or "-"
# Every field is validated; an error names the file, line, field and value. Nodes that exist
# already are left alone, so the script can be run again to add nodes.
#
# Usage: create-nodes.sh PROFILE [--wait SECONDS] [--print]
#   --print   only print the Node objects (JSON, one a line), do not contact the cluster
set -euo pipefail
LOG_PREFIX=create-nodes
# shellcheck source=hack/cluster/lib.sh
source "$(dirname "$0")/lib.sh"

profile="" wait_s=120 print_only=0
while [[ $# -gt 0 ]]; do
  case "$1" in
  --wait)
    wait_s="${2:-}"
    shift 2
    ;;
  --print)
    print_only=1
    shift
    ;;
  -*) die "unknown option $1" ;;
  *)
    [[ -z "$profile" ]] || die "only one profile may be given (got '$profile' and '$1')"
    profile="$1"
    shift
    ;;
  esac
done
[[ -n "$profile" ]] || die "usage: create-nodes.sh PROFILE [--wait SECONDS] [--print]"
[[ -r "$profile" ]] || die "node profile '$profile' is not a readable file"
[[ "$wait_s" =~ ^[0-9]{1,5}$ ]] || die "--wait must be a number of seconds (got '$wait_s')"
MAX_PROFILE_BYTES=$((16 * 1024 * 1024))
size="$(stat -c %s "$profile")"
((size <= MAX_PROFILE_BYTES)) || die "node profile '$profile' is larger than 16 MiB ($size bytes)"

# Validates the profile and prints one Node object (JSON, one line) per node.
render_nodes() {
  awk -v file="$1" -v kubever="$K8S_VERSION" '
  function fail(msg) { printf "create-nodes: error: %s line %d: %s\n", file, NR, msg > "/dev/stderr"; bad = 1; exit 1 }
  function quantity(field, v) {
    if (v !~ /^[0-9]+(\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/)
      fail(sprintf("field %s: not a Kubernetes quantity such as 16, 500m or 64Gi (got \"%s\")", field, v))
  }
  function count(field, v, max) {
    if (v !~ /^[0-9]+$/ || length(v) > 7 || v + 0 > max)
      fail(sprintf("field %s: not an integer from 0 to %d (got \"%s\")", field, max, v))
  }
  function labelkey(what, k,   n, parts) {
    n = split(k, parts, "/")
    if (n > 2 || (n == 2 && (length(parts[1]) > 253 || parts[1] !~ /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/)))
      fail(sprintf("%s key prefix is not a DNS subdomain (got \"%s\")", what, k))
    if (length(parts[n]) > 63 || parts[n] !~ /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/)
      fail(sprintf("%s key name must be 1-63 alphanumerics, -, _ or . (got \"%s\")", what, k))
  }
  function labelvalue(what, v) {
    if (length(v) > 63 || (v != "" && v !~ /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/))
      fail(sprintf("%s value must be at most 63 alphanumerics, -, _ or . (got \"%s\")", what, v))
  }
  /^[ \t]*(#|$)/ { next }
  {
    if (NF != 8) fail(sprintf("expected 8 fields (name cpu memory ephemeral-storage gpu pods labels taints), got %d", NF))
    name = $1
    if (length(name) > 63 || name !~ /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/)
      fail(sprintf("field name: not a DNS label of at most 63 characters (got \"%s\")", name))
    if (name in seen) fail(sprintf("field name: node \"%s\" appears twice (first on line %d)", name, seen[name]))
    seen[name] = NR
    quantity("cpu", $2); quantity("memory", $3); quantity("ephemeral-storage", $4)
    count("gpu", $5, 1024); count("pods", $6, 100000)
    if (++nodes > 100000) fail("more than 100000 nodes")

    # Every value was checked against a character set without quotes or backslashes, so it can
    # go into JSON strings as it is.
    labels = sprintf("\"kubernetes.io/hostname\":\"%s\",\"kubernetes.io/os\":\"linux\",\"kubernetes.io/arch\":\"amd64\",\"type\":\"kwok\"", name)
    if ($7 != "-") {
      n = split($7, kvs, ",")
      delete lseen
      for (i = 1; i <= n; i++) {
        eq = index(kvs[i], "=")
        if (eq == 0) fail(sprintf("field labels: \"%s\" is not key=value", kvs[i]))
        k = substr(kvs[i], 1, eq - 1); v = substr(kvs[i], eq + 1)
        labelkey("field labels: label", k); labelvalue("field labels: label " k, v)
        if (k in lseen) fail(sprintf("field labels: label %s given twice", k))
        if (k == "kubernetes.io/hostname" || k == "type" || k == "kubernetes.io/os" || k == "kubernetes.io/arch")
          fail(sprintf("field labels: label %s is set by the tooling", k))
        if (k == "dagsched.io/speed" && (v !~ /^[0-9]+(\.[0-9]+)?$/ || split(v, sp, ".") < 1 || length(sp[1]) > 4 || length(sp[2]) > 3 || v + 0 <= 0))
          fail(sprintf("field labels: dagsched.io/speed must be a positive decimal up to 9999 with at most 3 decimals (got \"%s\")", v))
        lseen[k] = 1
        labels = labels sprintf(",\"%s\":\"%s\"", k, v)
      }
    }
    taints = ""
    if ($8 != "-") {
      n = split($8, ts, ",")
      for (i = 1; i <= n; i++) {
        c = match(ts[i], /:(NoSchedule|PreferNoSchedule|NoExecute)$/)
        if (c == 0) fail(sprintf("field taints: \"%s\" is not key[=value]:NoSchedule|PreferNoSchedule|NoExecute", ts[i]))
        effect = substr(ts[i], c + 1); kv = substr(ts[i], 1, c - 1)
        eq = index(kv, "=")
        if (eq) { k = substr(kv, 1, eq - 1); v = substr(kv, eq + 1) } else { k = kv; v = "" }
        labelkey("field taints: taint", k); labelvalue("field taints: taint " k, v)
        taints = taints (taints == "" ? "" : ",") sprintf("{\"key\":\"%s\",\"value\":\"%s\",\"effect\":\"%s\"}", k, v, effect)
      }
    }
    res = sprintf("{\"cpu\":\"%s\",\"memory\":\"%s\",\"ephemeral-storage\":\"%s\",\"pods\":\"%s\"%s}", $2, $3, $4, $6, ($5 + 0 > 0) ? sprintf(",\"nvidia.com/gpu\":\"%s\"", $5) : "")
    printf "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\",", name
    printf "\"annotations\":{\"kwok.x-k8s.io/node\":\"fake\",\"node.alpha.kubernetes.io/ttl\":\"0\"},\"labels\":{%s}},", labels
    printf "\"spec\":{%s},", (taints == "" ? "" : "\"taints\":[" taints "]")
    printf "\"status\":{\"capacity\":%s,\"allocatable\":%s,", res, res
    printf "\"nodeInfo\":{\"architecture\":\"amd64\",\"operatingSystem\":\"linux\",\"kubeletVersion\":\"%s\",", kubever
    printf "\"kubeProxyVersion\":\"\",\"containerRuntimeVersion\":\"kwok\",\"kernelVersion\":\"kwok\",\"osImage\":\"kwok\","
    printf "\"machineID\":\"\",\"systemUUID\":\"\",\"bootID\":\"\"}}}\n"
  }
  END { if (!bad && nodes == 0) { printf "create-nodes: error: %s has no node lines\n", file > "/dev/stderr"; exit 1 } }
  ' "$1"
}

manifests="$(render_nodes "$profile")" || exit 1
if ((print_only)); then
  printf '%s\n' "$manifests"
  exit 0
fi

KUBECTL="$K8S_BIN_DIR/kubectl"
KCFG="$CLUSTER_DIR/kubeconfig"
[[ -x "$KUBECTL" ]] || die "kubectl is not built yet ($KUBECTL); run hack/cluster/build.sh"
[[ -r "$KCFG" && -r "$CLUSTER_DIR/cluster.env" ]] || die "no cluster in $CLUSTER_DIR; is it up (hack/cluster/up.sh)?"
# shellcheck disable=SC1091
source "$CLUSTER_DIR/cluster.env"

wanted="$(awk '/^[ \t]*(#|$)/ { next } { print $1 }' "$profile" | sort)"
existing="$("$KUBECTL" --kubeconfig "$KCFG" get nodes -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}' | sort)"
missing="$(comm -23 <(printf '%s\n' "$wanted") <(printf '%s\n' "$existing"))"
total="$(printf '%s\n' "$wanted" | grep -c .)"
if [[ -n "$missing" ]]; then
  start=$SECONDS
  work="$(mktemp -d "$CLUSTER_DIR/create-nodes.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  # One JSON file and one curl transfer per missing node; curl runs 16 of them at a time.
  printf '%s\n' "$manifests" | awk -v list="$missing" -v dir="$work" '
    BEGIN { n = split(list, a, "\n"); for (i = 1; i <= n; i++) want[a[i]] = 1 }
    { name = $0; sub(/^[^}]*"name":"/, "", name); sub(/".*$/, "", name)
      if (name in want) { f = dir "/" name ".json"; print > f; close(f) } }'
  for f in "$work"/*.json; do
    n="$(basename "$f" .json)"
    printf 'next\nurl = "https://127.0.0.1:%s/api/v1/nodes"\ncacert = "%s"\ncert = "%s"\nkey = "%s"\n' \
      "$APISERVER_PORT" "$CLUSTER_DIR/pki/ca.crt" "$CLUSTER_DIR/pki/admin.crt" "$CLUSTER_DIR/pki/admin.key"
    printf 'request = "POST"\nheader = "Content-Type: application/json"\ndata-binary = "@%s"\n' "$f"
    printf 'output = "%s/%s.out"\nwrite-out = "%%{http_code} %s\\n"\n' "$work" "$n" "$n"
  done >"$work/curl.conf"
  curl -sS --no-progress-meter --parallel --parallel-max 16 --max-time 60 -K "$work/curl.conf" >"$work/codes" ||
    die "creating nodes with curl failed (see $work/codes)"
  bad="$(awk '$1 != 201 && $1 != 409' "$work/codes")"
  if [[ -n "$bad" ]]; then
    first="$(head -1 <<<"$bad")"
    die "$(grep -c . <<<"$bad") nodes could not be created; first: ${first#* } (HTTP ${first%% *}): $(head -c 400 "$work/${first#* }.out")"
  fi
  log "created $(grep -c . "$work/codes") of $total nodes from $profile in $((SECONDS - start)) s"
else
  log "all $total nodes of $profile exist"
fi

if ((wait_s > 0)); then
  deadline=$((SECONDS + wait_s))
  while true; do
    ready="$("$KUBECTL" --kubeconfig "$KCFG" get nodes -o jsonpath='{range .items[*]}{.metadata.name}{" "}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' |
      awk '$2 == "True" { print $1 }' | sort)"
    notready="$(comm -23 <(printf '%s\n' "$wanted") <(printf '%s\n' "$ready"))"
    [[ -z "$notready" ]] && break
    if ((SECONDS >= deadline)); then
      die "$(printf '%s\n' "$notready" | grep -c .) nodes of $profile are not Ready after ${wait_s} s (first: $(printf '%s\n' "$notready" | head -1)); see $CLUSTER_DIR/logs/kwok.log"
    fi
    sleep 0.5
  done
  log "$total nodes Ready"
fi
