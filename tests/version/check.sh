#!/usr/bin/env bash
# check.sh: one version for both binaries. `--version` of the extender and of the controller must
# name the same version, the chart's appVersion (helm/dagsched/Chart.yaml), and the same git
# commit, the one of this tree (make builds both from the same DAGSCHED_VERSION and DAGSCHED_GIT).
# With PLUGIN, `kubectl-dagsched version` must print "kubectl-dagsched VERSION (git COMMIT)" with
# the chart's appVersion too (its commit is the one it was last built at).
# Usage: check.sh EXTENDER CONTROLLER [PLUGIN]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
[[ $# -eq 2 || $# -eq 3 ]] || { echo "usage: $0 EXTENDER CONTROLLER [PLUGIN]" >&2; exit 2; }
app="$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$ROOT/helm/dagsched/Chart.yaml")"
[[ -n "$app" ]] || { echo "version: no appVersion in helm/dagsched/Chart.yaml" >&2; exit 1; }
ext="$("$1" --version)"
ctl="$("$2" --version)"
re='^dagsched-(extender|controller) ([^ ]+) \(git ([^ ]+)\)$'
fail=0
for line in "$ext" "$ctl"; do
  if [[ ! "$line" =~ $re ]]; then
    echo "version: FAIL '$line' is not 'NAME VERSION (git COMMIT)'"
    fail=1
    continue
  fi
  if [[ "${BASH_REMATCH[2]}" != "$app" ]]; then
    echo "version: FAIL '$line': version ${BASH_REMATCH[2]} is not the chart's appVersion $app"
    fail=1
  fi
done
if [[ $# -eq 3 ]]; then
  plugin="$("$3" version 2>&1)" || plugin="(exit $?) $plugin"
  if [[ ! "$plugin" =~ ^kubectl-dagsched\ ([^ ]+)\ \(git\ ([^ ]+)\)$ ]]; then
    echo "version: FAIL '$plugin' is not 'kubectl-dagsched VERSION (git COMMIT)'"
    fail=1
  elif [[ "${BASH_REMATCH[1]}" != "$app" ]]; then
    echo "version: FAIL '$plugin': version ${BASH_REMATCH[1]} is not the chart's appVersion $app"
    fail=1
  fi
  [[ "$(sed -n 1p <<<"$("$3" --version 2>&1)")" == "$plugin" ]] || { echo "version: FAIL kubectl-dagsched --version differs from version"; fail=1; }
fi
[[ "${ext##*(git }" == "${ctl##*(git }" ]] || { echo "version: FAIL the binaries name different commits: '$ext' / '$ctl'"; fail=1; }
((fail == 0)) || exit 1
echo "version: ok: $ext; $ctl${plugin:+; $plugin} (chart appVersion $app)"
echo "version: 1 passed, 0 failed"
