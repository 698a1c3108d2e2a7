#!/usr/bin/env python3
"""sample.py: records the ETA kubectl-dagsched gives every DAG job of a namespace while a workload
runs, for bench/eta/report.py to compare with when each job actually finished.

  sample.py --plugin bin/kubectl-dagsched --namespace NS --out SAMPLES.jsonl [--interval 3]
            [--kubeconfig PATH] [--policy-name NAME] [--timeout SECONDS]

Every --interval seconds it runs `kubectl-dagsched get jobs -n NS -o json` and appends one JSON
object a line to SAMPLES.jsonl:

  {"t": 1764441600.25, "took": 0.41, "jobs": [{"name": "j01", "status": "Running", "tasks": 6,
   "created": "...", "finished": null, "eta": "2025-11-29T18:40:12.000000Z", "lowerBound": false,
   "pathSeconds": 31.0, "roomDelaySeconds": 4.5, "notForecast": null}, ...]}

t is the wall clock (seconds since the epoch) when the command started, took how long it ran;
eta, created and finished are the plugin's (RFC 3339, null where it gives none). A command that
fails or times out gives {"t": ..., "took": ..., "error": "..."} and the sampling goes on. It runs
until SIGTERM or SIGINT (the line being written is completed first) or --duration seconds.
Python 3, standard library only.
"""

import argparse
import json
import signal
import subprocess
import sys
import time

STOP = False


def on_signal(signum, frame):
    global STOP
    STOP = True


def job_record(o):
    """The fields of one item of `get jobs -o json` that the report uses."""
    basis = o.get("etaBasis") or {}
    return {
        "name": o.get("name"),
        "status": o.get("status"),
        "tasks": o.get("tasks"),
        "created": o.get("created"),
        "finished": o.get("finished"),
        "eta": o.get("eta"),
        "lowerBound": bool(basis.get("lowerBound", False)),
        "pathSeconds": basis.get("remainingCriticalPathSeconds"),
        "roomDelaySeconds": basis.get("roomDelaySeconds"),
        "notForecast": basis.get("notForecast"),
    }


def sample(cmd, timeout):
    """One sample: the record to write."""
    t = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"t": t, "took": round(time.time() - t, 3), "error": f"timed out after {timeout} s"}
    except OSError as e:
        return {"t": t, "took": round(time.time() - t, 3), "error": str(e)}
    took = round(time.time() - t, 3)
    if p.returncode != 0:
        return {"t": t, "took": took, "error": f"exit {p.returncode}: {p.stderr.strip()[-300:]}"}
    try:
        doc = json.loads(p.stdout)
        jobs = [job_record(o) for o in doc.get("items") or []]
    except (ValueError, AttributeError) as e:
        return {"t": t, "took": took, "error": f"bad JSON: {e}"}
    return {"t": t, "took": took, "jobs": jobs}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--plugin", required=True, help="the kubectl-dagsched binary")
    ap.add_argument("--namespace", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--interval", type=float, default=3.0)
    ap.add_argument("--kubeconfig", default="")
    ap.add_argument("--policy-name", default="")
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--duration", type=float, default=0.0, help="stop after that many seconds (0: never)")
    a = ap.parse_args(argv)
    if not 0.2 <= a.interval <= 600:
        print(f"sample: --interval must be 0.2 to 600 seconds (got {a.interval})", file=sys.stderr)
        return 2
    cmd = [a.plugin, "get", "jobs", "-n", a.namespace, "-o", "json", "--request-timeout", str(a.timeout)]
    if a.kubeconfig:
        cmd += ["--kubeconfig", a.kubeconfig]
    if a.policy_name:
        cmd += ["--policy-name", a.policy_name]
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    start = time.monotonic()
    n = errors = 0
    with open(a.out, "a") as f:
        while not STOP and not (a.duration > 0 and time.monotonic() - start >= a.duration):
            began = time.monotonic()
            rec = sample(cmd, a.timeout)
            f.write(json.dumps(rec, sort_keys=True) + "\n")
            f.flush()
            n += 1
            errors += "error" in rec
            rest = a.interval - (time.monotonic() - began)
            while rest > 0 and not STOP:
                time.sleep(min(rest, 0.2))
                rest = a.interval - (time.monotonic() - began)
    print(f"sample: {n} samples ({errors} failed) in {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
