#!/usr/bin/env bash
# fresh-clone.sh: the README's first command as a new user runs it. Clones the current commit into
# an empty temporary folder (nothing built: no bin/, no build/, no .cache/) and runs `make demo`
# there in its CI mode (plain output, strict timeout, the assertions of `make demo-test`). Only the
# Kubernetes binaries cached in ~/.cache/dagsched may be warm, as on any machine that ran the demo
# once. It tests what is committed: uncommitted changes in this tree are not in the clone (a
# warning says so).
#
#   FRESH_CLONE_KEEP=1   keep the clone afterwards (it is always kept when the demo fails)
#   FRESH_CLONE_TIMEOUT  seconds for the whole `make demo` (default 900: build + two runs)
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TIMEOUT="${FRESH_CLONE_TIMEOUT:-900}"
say() { printf 'fresh-clone: %s\n' "$*"; }
die() {
  printf 'fresh-clone: error: %s\n' "$*" >&2
  exit 1
}

commit="$(git -C "$REPO_ROOT" rev-parse --verify HEAD)" || die "$REPO_ROOT is not a git checkout"
if [[ -n "$(git -C "$REPO_ROOT" status --porcelain --untracked-files=no)" ]]; then
  say "warning: $REPO_ROOT has uncommitted changes; the clone holds commit ${commit:0:12} only"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/dagsched-fresh.XXXXXX")"
keep="${FRESH_CLONE_KEEP:-0}"
cleanup() {
  local rc=$?
  if [[ "$keep" == 1 || $rc -ne 0 ]]; then
    say "clone kept in $work/dagsched (demo logs in $work/dagsched/.cache/demo/last)"
  else
    rm -rf "$work"
  fi
  exit "$rc"
}
trap cleanup EXIT

clone="$work/dagsched"
# --no-local copies objects instead of hard-linking them: the clone shares nothing with this tree.
git clone --quiet --no-local "$REPO_ROOT" "$clone"
git -C "$clone" -c advice.detachedHead=false checkout --quiet --detach "$commit"

# A new user's clone holds only tracked files: nothing built, no cache of this tree.
for d in bin build .cache; do
  [[ ! -e "$clone/$d" ]] || die "the clone already holds $d/ (a tracked file under it?): not a fresh clone"
done
say "commit ${commit:0:12} cloned into $clone; running 'make demo' (CI mode) there"

rc=0
(
  cd "$clone"
  DEMO_PLAIN=1 DEMO_CHECK=1 DEMO_TIMEOUT=300 \
    timeout --signal=TERM --kill-after=30 "$TIMEOUT" make demo
) || rc=$?
if ((rc != 0)); then
  ((rc == 124)) && say "make demo did not finish within $TIMEOUT s"
  die "make demo failed on a fresh clone (exit $rc)"
fi
for b in bin/dagsched-extender bin/dagsched-controller; do
  [[ -x "$clone/$b" ]] || die "make demo passed but did not build $b in the clone"
done
say "passed: make demo works on a fresh clone of ${commit:0:12}"
