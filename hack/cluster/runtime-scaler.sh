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
# Pods are listed once, 500 a page, then watched; a watch that times out resumes from the last
# resourceVersion seen. Node speeds are cached for one watch period (at most 10 minutes).
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

declare -A SPEED_MILLI=() # node -> speed in thousandths, or "error:<why>"

# Converts a speed label value to thousandths ("1.5" -> 1500) in MILLI; fails on anything else.
speed_to_milli() {
  local v="$1" int frac
  [[ "$v" =~ ^([0-9]{1,4})(\.([0-9]{1,3}))?$ ]] || return 1
  int="${BASH_REMATCH[1]}"
  frac="${BASH_REMATCH[3]}000"
  frac="${frac:0:3}"
  MILLI=$((10#$int * 1000 + 10#$frac))
  ((MILLI > 0))
}

# Records one node's speed label value (empty: no label) in SPEED_MILLI.
remember_speed() {
  local node="$1" label="$2"
  if [[ -z "$label" ]]; then
    SPEED_MILLI[$node]=1000
  elif speed_to_milli "$label"; then
    SPEED_MILLI[$node]="$MILLI"
  else
    SPEED_MILLI[$node]="error:node $node label dagsched.io/speed is not a positive decimal with at most 3 decimals up to 9999 (got \"$label\")"
  fi
}

# Reads every node's speed with one list request.
load_node_speeds() {
  local node label
  SPEED_MILLI=()
  while IFS=$'\t' read -r node label; do
    [[ -n "$node" ]] && remember_speed "$node" "$label"
  done < <(api_curl -f "$API/api/v1/nodes" |
    jq -r '.items[]? | [.metadata.name, (.metadata.labels["dagsched.io/speed"] // "")] | @tsv')
}

# Sets SPEED to a node's speed in thousandths or "error:<why>"; reads nodes it has not seen.
lookup_speed() {
  local node="$1" label
  if [[ -z "${SPEED_MILLI[$node]:-}" ]]; then
    if label="$(api_curl -f "$API/api/v1/nodes/$node" | jq -er '.metadata.labels["dagsched.io/speed"] // ""')"; then
      remember_speed "$node" "$label"
    else
      SPEED="error:node $node could not be read"
      return 0
    fi
  fi
  SPEED="${SPEED_MILLI[$node]}"
}

# Adds one merge patch of a pod annotation to the curl configuration in PATCHES.
add_patch() {
  local ns="$1" name="$2" key="$3" value="$4" body
  value="${value//\\/\\\\}"
  value="${value//\"/\\\"}"
  body="{\"metadata\":{\"annotations\":{\"$key\":\"$value\"}}}"
  body="${body//\\/\\\\}"
  body="${body//\"/\\\"}"
  PATCHES+="next
url = \"$API/api/v1/namespaces/$ns/pods/$name\"
cacert = \"$CLUSTER_DIR/pki/ca.crt\"
cert = \"$CLUSTER_DIR/pki/admin.crt\"
key = \"$CLUSTER_DIR/pki/admin.key\"
request = \"PATCH\"
header = \"Content-Type: application/merge-patch+json\"
data = \"$body\"
output = \"/dev/null\"
write-out = \"%{http_code} $ns/$name\\n\"
"
}

# Annotates the pods of one batch of lines with a single curl run (16 requests in parallel).
process_batch() {
  local line ns name node rt scaled
  PATCHES=""
  for line in "$@"; do
    IFS=$'\t' read -r ns name node rt <<<"$line"
    [[ -n "$name" ]] || continue
    if [[ "$rt" == error:* ]]; then
      log "pod $ns/$name: dagsched.io/runtime ${rt#error:}"
      add_patch "$ns" "$name" dagsched.io/runtime-error "dagsched.io/runtime: ${rt#error:}"
      continue
    fi
    lookup_speed "$node"
    if [[ "$SPEED" == error:* ]]; then
      log "pod $ns/$name: ${SPEED#error:}"
      add_patch "$ns" "$name" dagsched.io/runtime-error "${SPEED#error:}"
      continue
    fi
    scaled=$(((rt * 1000 + SPEED - 1) / SPEED))
    log "pod $ns/$name on $node (speed ${SPEED}/1000): ${rt}ms -> ${scaled}ms"
    add_patch "$ns" "$name" dagsched.io/runtime-scaled "${scaled}ms"
  done
  [[ -n "$PATCHES" ]] || return 0
  local code pod
  while read -r code pod; do
    case "$code" in
    200 | 404) ;; # 404: the pod went away meanwhile
    *) log "annotating pod $pod failed (HTTP $code)" ;;
    esac
  done < <(curl -sS --no-progress-meter --parallel --parallel-max 16 --max-time 30 -K - <<<"$PATCHES" || true)
}

# Reads pod lines on stdin in batches (what arrives within 50 ms, at most 256 lines) and annotates
# them. "!listed" marks the end of the initial list (the scaler is then ready); "!rv N" is the
# resourceVersion of a watch event, written to RV_FILE after each batch so that the next watch
# resumes there; "!relist" ends the watch and empties RV_FILE (the next round lists again).
handle_lines() {
  local line rest batch last_rv=""
  load_node_speeds
  while IFS= read -r line; do
    batch=()
    while true; do
      case "$line" in
      "!relist")
        process_batch "${batch[@]}"
        : >"$RV_FILE"
        return 0
        ;;
      "!rv "*) last_rv="${line#!rv }" ;;
      "!listed")
        process_batch "${batch[@]}"
        batch=()
        [[ -s "$READY_FILE" ]] || date -u +%Y-%m-%dT%H:%M:%SZ >"$READY_FILE"
        ;;
      *) batch+=("$line") ;;
      esac
      ((${#batch[@]} < 256)) || break
      line=""
      if ! IFS= read -r -t 0.05 line; then
        # A time-out may leave half a line in $line: read the rest of it.
        if [[ -n "$line" ]] && IFS= read -r rest; then batch+=("$line$rest"); fi
        break
      fi
    done
    process_batch "${batch[@]}"
    [[ -z "$last_rv" ]] || printf '%s\n' "$last_rv" >"$RV_FILE"
  done
}

# Lists the bound pods page by page (500 pods a request, so that no request outlives
# api_curl's 10 s limit at 20,000 pods) into LIST_TSV as pod lines; sets RV to the list's
# resourceVersion. Fails when a page cannot be read (an expired continue token included).
LIST_TSV="$CLUSTER_DIR/runtime-scaler.list.tsv"
PAGE="$CLUSTER_DIR/runtime-scaler.page.json"
RV_FILE="$CLUSTER_DIR/runtime-scaler.rv"
list_pods() {
  local cont="" next pages=0
  RV=""
  : >"$LIST_TSV"
  while true; do
    api_curl -f -o "$PAGE" "$API/api/v1/pods?$SELECTOR&limit=500${cont:+&continue=$cont}" || return 1
    jq -r "$JQ_DEFS .items[] | pod_line" "$PAGE" >>"$LIST_TSV" || return 1
    [[ -n "$RV" ]] || RV="$(jq -r '.metadata.resourceVersion // ""' "$PAGE")"
    next="$(jq -r '.metadata.continue // ""' "$PAGE")"
    pages=$((pages + 1))
    [[ -n "$next" ]] || break
    cont="$(jq -rn --arg c "$next" '$c | @uri')"
  done
  log "listed pods in $pages page(s) at resourceVersion $RV"
  [[ -n "$RV" ]]
}

rm -f "$READY_FILE" "$RV_FILE"
log "watching pods on $API"
RV=""
while true; do
  listed=0
  if [[ -z "$RV" ]]; then
    if ! list_pods; then
      log "listing pods failed; retrying in 1 s"
      sleep 1
      continue
    fi
    listed=1
  fi
  printf '%s\n' "$RV" >"$RV_FILE"
  # The listed pods (only after a list), then the changes from RV on. The server ends the watch
  # after timeoutSeconds: the next watch resumes from the last resourceVersion seen (an event's or
  # a bookmark's), so pods are listed again only when the server answers with an ERROR event
  # (e.g. 410 Gone: that version is too old), which handle_lines records as an empty RV_FILE.
  {
    if ((listed)); then
      cat "$LIST_TSV"
      echo "!listed"
    fi
    API_CURL_TIMEOUT=700 api_curl -N \
      "$API/api/v1/pods?$SELECTOR&watch=1&allowWatchBookmarks=true&timeoutSeconds=600&resourceVersion=$RV" |
      jq --unbuffered -r "$JQ_DEFS"'
        if .type == "ERROR" then "!relist"
        elif .type == "ADDED" or .type == "MODIFIED" then
          "!rv \(.object.metadata.resourceVersion)", (.object | pod_line)
        elif .type == "BOOKMARK" or .type == "DELETED" then "!rv \(.object.metadata.resourceVersion)"
        else empty end'
  } | handle_lines
  RV="$(head -c 64 "$RV_FILE" 2>/dev/null)"
  [[ "$RV" =~ ^[0-9]+$ ]] || RV=""
  [[ -n "$RV" ]] || sleep 1
done
