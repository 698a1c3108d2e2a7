#!/usr/bin/env bash
# integration.sh: runs the Kubernetes client's integration suite (tests/kube/integration-run.sh)
# against a fresh local control plane started by hack/cluster/with-cluster.sh.
# Usage: integration.sh PROGRAM_DIR   (the directory holding the prog_* programs of tests/kube)
set -euo pipefail
progs="$(cd "${1:?usage: integration.sh PROGRAM_DIR}" && pwd)"
root="$(cd "$(dirname "$0")/../.." && pwd)"
with_cluster="$root/hack/cluster/with-cluster.sh"
if [[ ! -x "$with_cluster" ]]; then
  echo "kube-integration-test: $with_cluster is missing: the local control plane scripts" \
    "(hack/cluster) are needed to run this suite" >&2
  exit 1
fi
exec "$with_cluster" -- "$root/tests/kube/integration-run.sh" "$progs"
