#!/usr/bin/env bash
# runtime-scaler.sh: the part of the simulated kubelet that kwok's stages cannot express.
#
# A pod's simulated run time is its annotation dagsched.io/runtime (a Go duration: "30s",
# "1m30s", "250ms") divided by the speed of the node it is bound to (node label dagsched.io/speed,
# a positive decimal such as "1", "2" or "0.5"; missing means 1). kwok's stages see only the pod,
# not its node, so this process watches bound pods and writes the scaled run time onto each pod as
# dagsched.io/runtime-scaled: "<milliseconds>ms" (rounded up). kwok starts such a pod only once
# that annotation is there (kwok/pod-start.yaml) and completes it that long after it started
# (kwok/pod-complete.yaml). A run time or speed that cannot be read gives the pod
# dagsched.io/runtime-error instead: the pod then runs and never completes, and the error says why.
#
# Usage: runtime-scaler.sh CLUSTER_DIR   (started and stopped by up.sh / down.sh)
# Node speeds are cached for one watch period (at most 10 minutes).
set -uo pipefail
LOG_PREFIX=runtime-scaler
[[ $# -eq 1 ]] || {
  echo "usage: $0 CLUSTER_DIR" >&2
  exit 2
}
CLUSTER_DIR="${1%/}"
# shellcheck source=hack/cluster/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck disable=SC1091
source "$CLUSTER_DIR/cluster.env"
API="https://127.0.0.1:$APISERVER_PORT"
READY_FILE="$CLUSTER_DIR/runtime-scaler.ready"
MAX_RUNTIME_MS=2592000000 # 720h: longer run times are refused as a likely mistake
SELECTOR='fieldSelector=spec.nodeName%21%3D'

# jq program: one tab-separated line "namespace name node runtime_ms|error:<why>" for each bound,
# live pod that has a run time and no scaled run time or error yet.
# shellcheck disable=SC2016 # jq's $variables are jq's, not the shell's
JQ_DEFS='
def unit_ms: {"ns": 0.000001, "us": 0.001, "µs": 0.001, "μs": 0.001, "ms": 1, "s": 1000, "m": 60000, "h": 3600000};
def go_duration_ms:
  if length > 64 then error("longer than 64 characters")
  elif . == "0" then 0
  elif test("^(([0-9]+(\\.[0-9]+)?|\\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$") | not then
    error("not a Go duration such as 30s, 1m30s or 250ms")
  else [scan("([0-9]+(?:\\.[0-9]+)?|\\.[0-9]+)(ns|us|µs|μs|ms|s|m|h)") | (.[0] | tonumber) * unit_ms[.[1]]]
    | add | ceil
    | if . > '"$MAX_RUNTIME_MS"' then error("longer than 720h") else . end
  end;
def pod_line:
  select(.spec.nodeName != null and .spec.nodeName != "" and .metadata.deletionTimestamp == null)
  | (.metadata.annotations // {}) as $a
  | select($a["dagsched.io/runtime"] != null and $a["dagsched.io/runtime-scaled"] == null
           and $a["dagsched.io/runtime-error"] == null)
  | [.metadata.namespace, .metadata.name, .spec.nodeName,
     ($a["dagsched.io/runtime"] | try (go_duration_ms | tostring) catch ("error:" + .))]
  | @tsv;
'

declare -A SPEED_MILLI=()

# Converts a speed label value to thousandths ("1.5" -> 1500); fails on anything else.
speed_to_milli() {
  local v="$1" int frac
  [[ "$v" =~ ^([0-9]{1,4})(\.([0-9]{1,3}))?$ ]] || return 1
  int="${BASH_REMATCH[1]}"
  frac="${BASH_REMATCH[3]}000"
  frac="${frac:0:3}"
  local milli=$((10#$int * 1000 + 10#$frac))
  ((milli > 0)) || return 1
  printf '%s\n' "$milli"
}

# Looks up (and caches) a node's speed in thousandths; prints "error:<why>" when unusable.
node_speed_milli() {
  local node="$1" body label milli
  if [[ -n "${SPEED_MILLI[$node]:-}" ]]; then
    printf '%s\n' "${SPEED_MILLI[$node]}"
    return 0
  fi
  body="$(api_curl -f "$API/api/v1/nodes/$node")" || {
    printf 'error:node %s could not be read\n' "$node"
    return 0
  }
  label="$(jq -r '.metadata.labels["dagsched.io/speed"] // ""' <<<"$body")"
  if [[ -z "$label" ]]; then
    milli=1000
  elif ! milli="$(speed_to_milli "$label")"; then
    printf 'error:node %s label dagsched.io/speed is not a positive decimal with at most 3 decimals up to 9999 (got "%s")\n' "$node" "$label"
    return 0
  fi
  SPEED_MILLI[$node]="$milli"
  printf '%s\n' "$milli"
}

annotate() {
  local ns="$1" name="$2" key="$3" value="$4" body code
  body="$(jq -cn --arg k "$key" --arg v "$value" '{metadata: {annotations: {($k): $v}}}')"
  code="$(api_curl -o /dev/null -w '%{http_code}' -X PATCH -H 'Content-Type: application/merge-patch+json' \
    --data "$body" "$API/api/v1/namespaces/$ns/pods/$name")" || code="curl failed"
  case "$code" in
  200) return 0 ;;
  404) return 0 ;; # the pod went away meanwhile
  *) log "annotating pod $ns/$name with $key failed (HTTP $code)" ;;
  esac
}

# Reads pod lines on stdin and annotates each pod; a line "!relist" ends the watch period.
handle_lines() {
  local ns name node rt speed scaled
  while IFS=$'\t' read -r ns name node rt; do
    [[ "$ns" == "!relist" ]] && return 0
    [[ -n "$name" ]] || continue
    if [[ "$rt" == error:* ]]; then
      log "pod $ns/$name: dagsched.io/runtime ${rt#error:}"
      annotate "$ns" "$name" dagsched.io/runtime-error "dagsched.io/runtime: ${rt#error:}"
      continue
    fi
    speed="$(node_speed_milli "$node")"
    if [[ "$speed" == error:* ]]; then
      log "pod $ns/$name: ${speed#error:}"
      annotate "$ns" "$name" dagsched.io/runtime-error "${speed#error:}"
      continue
    fi
    scaled=$(((rt * 1000 + speed - 1) / speed))
    log "pod $ns/$name on $node (speed ${speed}/1000): ${rt}ms -> ${scaled}ms"
    annotate "$ns" "$name" dagsched.io/runtime-scaled "${scaled}ms"
  done
}

rm -f "$READY_FILE"
log "watching pods on $API"
tmp="$CLUSTER_DIR/runtime-scaler.list.json"
while true; do
  SPEED_MILLI=()
  if ! api_curl -f -o "$tmp" "$API/api/v1/pods?$SELECTOR"; then
    log "listing pods failed; retrying in 1 s"
    sleep 1
    continue
  fi
  rv="$(jq -r '.metadata.resourceVersion // ""' "$tmp")"
  if [[ -z "$rv" ]]; then
    log "pod list without resourceVersion; retrying in 1 s"
    sleep 1
    continue
  fi
  jq -r "$JQ_DEFS .items[] | pod_line" "$tmp" | handle_lines
  [[ -s "$READY_FILE" ]] || date -u +%Y-%m-%dT%H:%M:%SZ >"$READY_FILE"
  # Watch from the list's version; the server ends the watch after timeoutSeconds, an ERROR
  # event (e.g. 410 Gone) makes a new list.
  API_CURL_TIMEOUT=700 api_curl -N \
    "$API/api/v1/pods?$SELECTOR&watch=1&allowWatchBookmarks=true&timeoutSeconds=600&resourceVersion=$rv" |
    jq --unbuffered -r "$JQ_DEFS"'
      if .type == "ERROR" then "!relist"
      elif .type == "ADDED" or .type == "MODIFIED" then .object | pod_line
      else empty end' |
    handle_lines
done
