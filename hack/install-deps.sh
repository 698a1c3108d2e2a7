#!/usr/bin/env bash
# install-deps.sh: installs the Debian packages that building and testing dagsched need.
# Idempotent: does nothing when everything is present. Works as root or through sudo.
set -euo pipefail

PACKAGES=(
  build-essential pkg-config clang clang-format
  libyaml-dev libjansson-dev libcurl4-openssl-dev libwebsockets-dev libssl-dev
  libcmocka-dev
  openssl curl ca-certificates python3 python3-yaml
)
# Extra packages requested by callers (e.g. hack/cluster scripts), space separated.
if [[ -n "${DAGSCHED_EXTRA_PACKAGES:-}" ]]; then
  read -r -a extra <<<"$DAGSCHED_EXTRA_PACKAGES"
  PACKAGES+=("${extra[@]}")
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
