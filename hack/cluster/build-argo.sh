#!/usr/bin/env bash
# build-argo.sh: builds (once) the Argo Workflows controller that the local cluster runs on request
# (ARGO=1 hack/cluster/up.sh) and caches it with its CRDs by version:
#
#   $DAGSCHED_CACHE_DIR/argo/<version>/workflow-controller   `go install` of
#       github.com/argoproj/argo-workflows/v4/cmd/workflow-controller@<version> (the module's own
#       go.mod decides its dependencies; no replace directives)
#   $DAGSCHED_CACHE_DIR/argo/<version>/crds/*.yaml           manifests/base/crds/minimal of the
#       same module version
#
# A test component on loopback only, never shipped: security advisories published against this
# version do not matter there (docs/dag-jobs.md says so). The first build takes several minutes and
# about 115 MB; a stamp (Go version, module version) decides whether to rebuild. Concurrent callers
# are serialised with a lock file.
# Usage: hack/cluster/build-argo.sh [--print-dir]
set -euo pipefail
LOG_PREFIX=argo-build
# shellcheck source=hack/cluster/lib.sh
source "$(dirname "$0")/lib.sh"

GO="$(find_go)"
export GOTOOLCHAIN=local # never download a toolchain: use the installed Go
export GOFLAGS="${GOFLAGS:-} -buildvcs=false"
export CGO_ENABLED=0
MODULE=github.com/argoproj/argo-workflows/v4

argo_stamp() { printf '%s\n%s\n' "$("$GO" version)" "$ARGO_VERSION" | sha256sum | cut -d' ' -f1; }
argo_ready() {
  [[ "$(cat "$ARGO_BIN_DIR/.stamp" 2>/dev/null)" == "$(argo_stamp)" ]] &&
    [[ -x "$ARGO_BIN_DIR/workflow-controller" ]] &&
    compgen -G "$ARGO_BIN_DIR/crds/*.yaml" >/dev/null
}

build_argo() {
  local tmp start moddir
  start=$SECONDS
  tmp="$ARGO_BIN_DIR.partial.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp/crds"
  log "building the Argo Workflows controller $ARGO_VERSION into $ARGO_BIN_DIR; the first build takes several minutes"
  # Outside any module, so that Argo's own go.mod decides its dependencies.
  if ! (cd "$tmp" && GOBIN="$tmp" nice "$GO" install -trimpath -ldflags "-s -w" "$MODULE/cmd/workflow-controller@$ARGO_VERSION"); then
    rm -rf "$tmp"
    die "go install $MODULE/cmd/workflow-controller@$ARGO_VERSION failed"
  fi
  moddir="$(cd "$tmp" && "$GO" mod download -json "$MODULE@$ARGO_VERSION" | jq -r .Dir)"
  [[ -d "$moddir/manifests/base/crds/minimal" ]] || die "no manifests/base/crds/minimal in $moddir"
  cp "$moddir"/manifests/base/crds/minimal/argoproj.io_*.yaml "$tmp/crds/"
  argo_stamp >"$tmp/.stamp"
  rm -rf "$ARGO_BIN_DIR"
  mv "$tmp" "$ARGO_BIN_DIR"
  log "Argo Workflows controller $ARGO_VERSION built in $((SECONDS - start)) s"
}

mkdir -p "$CACHE_BASE"
if ! argo_ready; then
  exec 9>"$CACHE_BASE/.build-argo.lock"
  flock 9
  argo_ready || build_argo
fi
[[ "${1:-}" == "--print-dir" ]] && printf '%s\n' "$ARGO_BIN_DIR"
exit 0
