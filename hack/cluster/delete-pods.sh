#!/usr/bin/env bash
# delete-pods.sh: deletes the pods of one namespace of the local cluster in chunks, so that no
# single request has to delete thousands of pods (one DELETE of a whole collection of 2,000 pods
# runs past the API server's request time-out).
#
# The pods are listed a page at a time (CHUNK names a request, default 500) and each page is
# deleted with one curl run of CHUNK DELETE requests, 16 in parallel, grace period 0 (kwok's
# pod-delete stage then removes them). With --wait, waits until the namespace holds no pod.
#
# Usage: delete-pods.sh [--wait] NAMESPACE [CHUNK]   (CLUSTER_DIR as for the other scripts)
set -euo pipefail
LOG_PREFIX=delete-pods
# shellcheck source=hack/cluster/lib.sh
source "$(dirname "$0")/lib.sh"
check_cluster_dir

wait_gone=0
[[ "${1:-}" == --wait ]] && wait_gone=1 && shift
[[ $# -ge 1 && $# -le 2 ]] || die "usage: $0 [--wait] NAMESPACE [CHUNK]"
ns="$1" chunk="${2:-500}"
[[ "$ns" =~ ^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$ ]] || die "'$ns' is not a namespace name"
[[ "$chunk" =~ ^[0-9]{1,4}$ ]] && ((chunk >= 1 && chunk <= 1000)) || die "CHUNK must be 1..1000 (got '$chunk')"
# shellcheck disable=SC1091
source "$CLUSTER_DIR/cluster.env"
API="https://127.0.0.1:$APISERVER_PORT"
page="$(mktemp "${TMPDIR:-/tmp}/delete-pods.XXXXXX")"
trap 'rm -f "$page"' EXIT

# One pass: every page of live pods (deletionTimestamp unset) is deleted before the next page is
# read, so the continue token always refers to a list the server still has.
deleted=0 failed=0
cont=""
while true; do
  api_curl -f -o "$page" "$API/api/v1/namespaces/$ns/pods?limit=$chunk${cont:+&continue=$cont}" ||
    die "listing pods of $ns failed"
  cfg="$(jq -r --arg api "$API" --arg d "$CLUSTER_DIR/pki" '.items[]
    | select(.metadata.deletionTimestamp == null)
    | "next\nurl = \"\($api)/api/v1/namespaces/\(.metadata.namespace)/pods/\(.metadata.name)?gracePeriodSeconds=0\"\ncacert = \"\($d)/ca.crt\"\ncert = \"\($d)/admin.crt\"\nkey = \"\($d)/admin.key\"\nrequest = \"DELETE\"\noutput = \"/dev/null\"\nwrite-out = \"%{http_code}\\n\""' "$page")"
  if [[ -n "$cfg" ]]; then
    while read -r code; do
      case "$code" in
      200 | 202 | 404) deleted=$((deleted + 1)) ;;
      *) failed=$((failed + 1)) ;;
      esac
    done < <(curl -sS --no-progress-meter --parallel --parallel-max 16 --max-time 30 -K - <<<"$cfg" || true)
  fi
  cont="$(jq -r '.metadata.continue // "" | @uri' "$page")"
  [[ -n "$cont" ]] || break
done
((failed == 0)) || die "$failed DELETE requests failed in $ns ($deleted deleted)"
log "deleted $deleted pods in $ns (chunks of $chunk)"
if ((wait_gone)); then
  for ((i = 0; i < 600; i++)); do
    n="$(api_curl -f "$API/api/v1/namespaces/$ns/pods?limit=1" | jq -r '(.items | length) + (.metadata.remainingItemCount // 0)')"
    [[ "$n" == 0 ]] && exit 0
    sleep 0.5
  done
  die "pods of $ns still present after 300 s"
fi
