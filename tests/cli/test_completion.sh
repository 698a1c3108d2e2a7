#!/usr/bin/env bash
# test_completion.sh: shell completion of kubectl-dagsched as a shell and kubectl use it. Sources
# the script of `kubectl-dagsched completion bash` and checks COMPREPLY for some command lines
# (commands, subcommands, flags, -o values, file names; no job or pod names without a cluster);
# types a command with a TAB into an interactive zsh that loaded the zsh script
# (zsh_complete.zsh); and, when a kubectl is given, asks it to complete `kubectl dagsched ...`,
# which it does through kubectl_complete-dagsched (kubectl 1.26 and later). Names from a cluster
# are checked by tests/cli/test_jobs_cmd.py (make cli-cluster-test).
#
# Usage: test_completion.sh DIR [KUBECTL]
#   DIR holds kubectl-dagsched and kubectl_complete-dagsched.
set -euo pipefail

dir=$(cd "$1" && pwd)
kubectl=${2:-}
bin=$dir/kubectl-dagsched
fails=0

check() { # name expected actual
  if [[ "$2" == "$3" ]]; then
    echo "ok   $1"
  else
    echo "FAIL $1: expected [$2], got [$3]"
    fails=$((fails + 1))
  fi
}

# shellcheck source=/dev/null
source <("$bin" completion bash)
check "registered for kubectl-dagsched" "complete -F _kubectl_dagsched kubectl-dagsched" \
  "$(complete -p kubectl-dagsched)"

reply() { # WORDS... (the last is being completed): COMPREPLY, space-separated
  COMP_WORDS=("$bin" "$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _kubectl_dagsched
  echo "${COMPREPLY[*]}"
}

check "commands" "get describe gantt explain policy completion version help" "$(reply "")"
check "explain: the resource" "pod" "$(reply explain p)"
check "-o values of explain" "json" "$(reply explain pod x -o "")"
check "commands by prefix" "get gantt" "$(reply g)"
check "get: the resource" "jobs" "$(reply get j)"
check "get: every resource" "jobs tenants" "$(reply get "")"
check "describe: the resource" "job" "$(reply describe "")"
check "policy subcommands" "validate configmap apply" "$(reply policy "")"
check "policy a" "apply" "$(reply policy a)"
check "get jobs flags" "--all-namespaces" "$(reply get jobs -n x --all)"
check "flags by prefix" "--policy-namespace --policy-name" "$(reply get jobs --pol)"
check "-o values of get" "wide json" "$(reply get jobs -o "")"
check "-o values of describe" "json" "$(reply describe job hello -o "")"
check "a flag before the command" "jobs tenants" "$(reply -n hello get "")"
check "apply flags" "--kubeconfig --context -n --namespace --request-timeout" \
  "$(reply policy apply f.yaml -)"
check "no job names without a cluster" "" "$(KUBECONFIG=/nonexistent reply describe job "")"
check "no pod names without a cluster" "" "$(KUBECONFIG=/nonexistent reply explain pod "")"
check "no names from an unreachable cluster, quietly" ":4" \
  "$("$bin" __complete describe job --kubeconfig /nonexistent "" 2>&1 | xargs)"
check "completion shells" "bash zsh" "$(reply completion "")"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
touch "$tmp/pol-a.yaml" "$tmp/pol-b.yaml" "$tmp/other.txt"
check "policy files" "pol-a.yaml pol-b.yaml" "$(cd "$tmp" && reply policy validate pol | tr ' ' '\n' | sort | xargs)"
check "--svg file" "other.txt" "$(cd "$tmp" && reply gantt hello --svg o)"
check "no files for a name" "" "$(cd "$tmp" && reply gantt p)"

# Completion reads the tables the parsers use: it offers each command's flags as its --help lists
# them, and -o values the command accepts.
for cmd in "get jobs" "get tenants" "describe job" "gantt" "explain pod" "policy configmap" "policy apply"; do
  # shellcheck disable=SC2086
  helped=$("$bin" $cmd --help | grep -o -- '--[a-z][a-z-]*' | grep -v -e '^--help$' -e '^--version$' | sort -u | xargs)
  # shellcheck disable=SC2086
  offered=$(reply $cmd x -- | tr ' ' '\n' | sort -u | xargs)
  check "flags of $cmd: completion = --help" "$helped" "$offered"
done
set +e
KUBECONFIG=/nonexistent "$bin" describe job x -o wide >/dev/null 2>&1
check "describe refuses -o wide, which completion does not offer" "2" "$?"
set -e

zsh_head=$("$bin" completion zsh | head -1)
check "zsh script" "#compdef kubectl-dagsched" "$zsh_head"
here=$(cd "$(dirname "$0")" && pwd)
zsh_tab() { # LINE: what an interactive zsh shows after LINE, a TAB and Enter
  timeout 60 zsh -f "$here/zsh_complete.zsh" "$dir" "$1" 2>&1 | tr -d '\r'
}
if command -v zsh >/dev/null; then
  zout=$(zsh_tab "kubectl-dagsched gan")
  check "zsh: the script loads" "LOADED 1" "$(grep -a -o 'LOADED 1' <<<"$zout" | head -1)"
  check "zsh: gan<TAB> completes the verb gantt (then runs it)" \
    "usage: kubectl dagsched gantt JOB [-n NS] [--width N] [--svg FILE]" "$(grep -a '^usage:' <<<"$zout" | head -1)"
  zout=$(zsh_tab "kubectl-dagsched policy va")
  check "zsh: policy va<TAB> completes the subcommand validate (then runs it)" \
    "kubectl-dagsched policy validate: expected one or more FILEs" \
    "$(grep -a -o 'kubectl-dagsched policy validate: expected one or more FILEs' <<<"$zout" | head -1)"
else
  check "zsh is installed (hack/install-deps.sh, DAGSCHED_EXTRA_PACKAGES=zsh)" "zsh" ""
fi
set +e
"$bin" completion fish >/dev/null 2>&1
check "unknown shell exits 2" "2" "$?"
set -e

if [[ -n "$kubectl" ]]; then
  got=$(PATH="$dir:$PATH" "$kubectl" __complete dagsched g 2>/dev/null | xargs)
  check "kubectl __complete dagsched g" "get gantt :4" "$got"
  got=$(PATH="$dir:$PATH" "$kubectl" __complete dagsched get jobs -o "" 2>/dev/null | xargs)
  check "kubectl __complete dagsched get jobs -o" "wide json :4" "$got"
fi

if ((fails > 0)); then
  echo "$fails completion checks failed"
  exit 1
fi
echo "all completion checks passed"
