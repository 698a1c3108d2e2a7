#!/usr/bin/env bash
# build.sh: builds (once) the binaries the local control plane runs and caches them by version.
#
#   kube-apiserver, kube-controller-manager, kube-scheduler, kubectl
#       built from hack/k8s-build (k8s.io/kubernetes at the version its go.mod requires) into
#       $DAGSCHED_CACHE_DIR/k8s/<version>/ (default ~/.cache/dagsched/k8s/<version>/)
#   kwok
#       `go install sigs.k8s.io/kwok/cmd/kwok@<version>` into $DAGSCHED_CACHE_DIR/kwok/<version>/
#
# A stamp file next to the binaries records what they were built from (go.mod, go.sum, flags, Go
# version); a mismatch rebuilds. Concurrent callers are serialised with a lock file. The Go module
# and build caches stay at their usual places (go env GOMODCACHE, GOCACHE) so later builds are warm.
# Usage: hack/cluster/build.sh [--print-dirs]
set -euo pipefail
LOG_PREFIX=cluster-build
# shellcheck source=hack/cluster/lib.sh
source "$(dirname "$0")/lib.sh"

[[ -n "$K8S_VERSION" ]] || die "no 'require k8s.io/kubernetes vX.Y.Z' line in $K8S_BUILD_DIR/go.mod"
[[ "$K8S_VERSION" =~ ^v1\.([0-9]+)\.[0-9]+$ ]] || die "Kubernetes version in $K8S_BUILD_DIR/go.mod is not vMAJOR.MINOR.PATCH (got '$K8S_VERSION')"
K8S_MINOR="${BASH_REMATCH[1]}"

GO="$(find_go)"
export GOTOOLCHAIN=local # never download a toolchain: use the installed Go
export GOFLAGS="${GOFLAGS:-} -buildvcs=false"
export CGO_ENABLED=0 # static binaries, as the Kubernetes release builds the server components

K8S_CMDS=(kube-apiserver kube-controller-manager kube-scheduler kubectl)

k8s_ldflags() {
  local flags="-s -w" pkg
  # Both version packages are set, as Kubernetes' own build does (kubectl reports client-go's).
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$K8S_MINOR"
    flags+=" -X $pkg.gitTreeState=clean"
  done
  printf '%s\n' "$flags"
}

k8s_stamp() {
  {
    "$GO" version
    k8s_ldflags
    printf '%s\n' "${K8S_CMDS[@]}"
    cat "$K8S_BUILD_DIR/go.mod" "$K8S_BUILD_DIR/go.sum"
  } | sha256sum | cut -d' ' -f1
}

k8s_ready() {
  local c
  [[ "$(cat "$K8S_BIN_DIR/.stamp" 2>/dev/null)" == "$(k8s_stamp)" ]] || return 1
  for c in "${K8S_CMDS[@]}"; do [[ -x "$K8S_BIN_DIR/$c" ]] || return 1; done
}

kwok_ready() { [[ -x "$KWOK_BIN_DIR/kwok" ]]; }

build_k8s() {
  local tmp start pkgs=() c
  start=$SECONDS
  tmp="$K8S_BIN_DIR.partial.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  for c in "${K8S_CMDS[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$c"); done
  log "building Kubernetes $K8S_VERSION (${K8S_CMDS[*]}) into $K8S_BIN_DIR; the first build takes a long time"
  # One go build for all commands: they share most packages, which are then compiled once.
  if ! (cd "$K8S_BUILD_DIR" && "$GO" build -trimpath -ldflags "$(k8s_ldflags)" -o "$tmp/" "${pkgs[@]}"); then
    rm -rf "$tmp"
    die "go build of Kubernetes $K8S_VERSION failed (module $K8S_BUILD_DIR)"
  fi
  k8s_stamp >"$tmp/.stamp"
  rm -rf "$K8S_BIN_DIR"
  mv "$tmp" "$K8S_BIN_DIR"
  log "Kubernetes $K8S_VERSION built in $((SECONDS - start)) s"
}

build_kwok() {
  local tmp start
  start=$SECONDS
  tmp="$KWOK_BIN_DIR.partial.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  log "installing kwok $KWOK_VERSION into $KWOK_BIN_DIR"
  # Run outside any module so that kwok's own go.mod decides its dependencies.
  if ! (cd "$tmp" && GOBIN="$tmp" "$GO" install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"); then
    rm -rf "$tmp"
    die "go install sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION failed"
  fi
  rm -rf "$KWOK_BIN_DIR"
  mv "$tmp" "$KWOK_BIN_DIR"
  log "kwok $KWOK_VERSION installed in $((SECONDS - start)) s"
}

mkdir -p "$CACHE_BASE"
if ! k8s_ready || ! kwok_ready; then
  exec 9>"$CACHE_BASE/.build.lock"
  flock 9 # another build of the same cache finishes first; then there is usually nothing to do
  k8s_ready || build_k8s
  kwok_ready || build_kwok
fi

if [[ "${1:-}" == "--print-dirs" ]]; then
  printf '%s\n%s\n' "$K8S_BIN_DIR" "$KWOK_BIN_DIR"
fi
