#!/usr/bin/env bash
# flags_binaries.sh: every binary parses its flags through runtime/flags.h. A bad --log-format
# exits 2 with "PROG: --log-format: expected text or json (got "xml")" in each command that takes
# it (the controller, its uninstall subcommand, the extender); a value out of range exits 2 with
# the same form in the commands without it (the simulator, the controller's probe, the plugin);
# an unknown flag exits 2 and --help exits 0 everywhere. The binaries are run directly: a bad flag
# stops each before it reads a kubeconfig or opens a socket.
# Usage: flags_binaries.sh EXTENDER CONTROLLER SIM PLUGIN
set -uo pipefail
[[ $# -eq 4 ]] || { echo "usage: $0 EXTENDER CONTROLLER SIM PLUGIN" >&2; exit 2; }
ext=$1 ctl=$2 sim=$3 plugin=$4
fail=0 n=0

# expect STATUS STDERR CMD...: the command's exit status and its whole standard error.
expect() {
  local want_rc=$1 want_err=$2 err rc
  shift 2
  n=$((n + 1))
  err=$("$@" 2>&1 >/dev/null)
  rc=$?
  if [[ $rc -ne $want_rc || "$err" != "$want_err" ]]; then
    echo "flags: FAIL $*: exit $rc (want $want_rc), stderr '$err' (want '$want_err')"
    fail=1
  fi
}

bad_format() { # PROG: what the command calls itself in its messages
  echo "$1: --log-format: expected text or json (got \"xml\")"
}
expect 2 "$(bad_format dagsched-controller)" "$ctl" --log-format xml
expect 2 "$(bad_format dagsched-controller)" "$ctl" --log-format=xml
expect 2 "$(bad_format "dagsched-controller uninstall")" "$ctl" uninstall --log-format xml
expect 2 "$(bad_format dagsched-extender)" "$ext" --log-format xml
expect 2 "dagsched-extender: --log-level: expected debug, info, warn, error or off (got \"loud\")" \
  "$ext" --log-level loud
expect 2 "dagsched-controller: --log-level: expected debug, info, warn, error or off (got \"loud\")" \
  "$ctl" --log-level loud

expect 2 "dagsched-controller: --write-queue-size: expected an integer in 1..1000000 (got \"0\")" \
  "$ctl" --write-queue-size 0
expect 2 "dagsched-controller: --release-concurrency: expected an integer in 1..256 (got \"0\")" \
  "$ctl" --release-concurrency 0
expect 2 "dagsched-controller: --kube-api-qps: expected a number in 0..100000 (got \"-1\")" \
  "$ctl" --kube-api-qps -1
expect 2 "dagsched-extender: --max-nodes: expected an integer in 1..1000000 (got \"many\")" \
  "$ext" --max-nodes many
expect 2 "dagsched-controller uninstall: --wait-timeout: expected a duration in 0s..24h0m0s, such as 30s or 1m30s (got \"soon\")" \
  "$ctl" uninstall --wait-timeout soon
expect 2 "dagsched-controller probe: --timeout: expected an integer in 1..300 (got \"0\")" \
  "$ctl" probe --url http://127.0.0.1:1/ --timeout 0
expect 2 "dagsched-sim: --jobs: expected an integer in 1..1000000 (got \"0\")" "$sim" --jobs 0
expect 2 "kubectl-dagsched: --width: expected an integer in 20..400 (got \"3\")" \
  "$plugin" gantt job --width 3

for cmd in "$ctl" "$ctl uninstall" "$ctl probe" "$ext" "$sim" "$plugin gantt"; do
  read -r -a words <<<"$cmd"
  prog="$(basename "${words[0]}")${words[1]:+ ${words[1]}}"
  [[ "$prog" == "kubectl-dagsched gantt" ]] && prog=kubectl-dagsched
  expect 2 "$prog: unknown flag --no-such-flag (see --help)" "${words[@]}" --no-such-flag
  expect 0 "" "${words[@]}" --help
done

if ((fail != 0)); then
  echo "flags: FAIL"
  exit 1
fi
echo "flags: $n checks passed"
