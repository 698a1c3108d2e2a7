#!/usr/bin/env python3
"""baseline_driver.py: runs DAG workloads on a cluster without dagsched, the way a workflow engine
(Argo Workflows, a chain of batch/v1 Jobs driven by a script) does today: a task's Job or Pod is
created only once all its upstream tasks have succeeded, and kube-scheduler places each pod as it
comes. This is the baseline the demo compares dagsched with.

The workload files are the same as for dagsched (examples/*.yaml); each task is created from a copy
with the pod's schedulerName set to --scheduler-name and the dagsched.io/dependencies scheduling
gate removed. Tasks without upstream tasks are created at once, in file order; then the driver polls
the cluster every --poll seconds and creates every task whose upstream tasks have all succeeded.
With --arrivals FILE (a JSON object {"JOB": SECONDS, ...}) no task of a job is created before that
many seconds after the driver started (jobs not named arrive at once), as jobs submitted over time.

Exit status: 0 when every task succeeded, 1 when a task failed (its dependents are never created),
2 on a usage or workload error, 3 on timeout. Progress goes to stdout, one line per action.

Usage: baseline_driver.py --kubectl PATH [--kubeconfig FILE] --namespace NS
                          [--scheduler-name default-scheduler] [--poll 1] [--timeout 900]
                          [--arrivals FILE] FILE...
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workload  # noqa: E402

MAX_LIST_BYTES = 256 * 1024 * 1024


class Kube:
    """kubectl with a fixed kubeconfig and namespace."""

    def __init__(self, kubectl, kubeconfig, namespace):
        self.base = [kubectl]
        if kubeconfig:
            self.base += ["--kubeconfig", kubeconfig]
        self.base += ["--namespace", namespace]

    def run(self, args, stdin=None, timeout=60):
        p = subprocess.run(self.base + args, input=stdin, capture_output=True, timeout=timeout)
        if p.returncode != 0:
            err = p.stderr.decode("utf-8", "replace").strip()
            raise RuntimeError(f"kubectl {' '.join(args)}: {err or 'exit status %d' % p.returncode}")
        return p.stdout

    def get_json(self, what):
        out = self.run(["get", what, "-o", "json"])
        if len(out) > MAX_LIST_BYTES:
            raise RuntimeError(f"kubectl get {what}: answer larger than {MAX_LIST_BYTES} bytes")
        return json.loads(out)

    def create(self, docs):
        body = json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}).encode()
        self.run(["create", "-f", "-"], stdin=body)


def job_state(job):
    """'succeeded', 'failed' or 'running' for a batch/v1 Job object."""
    for c in (job.get("status") or {}).get("conditions") or []:
        if c.get("status") == "True" and c.get("type") in ("Complete", "SuccessCriteriaMet"):
            return "succeeded"
        if c.get("status") == "True" and c.get("type") in ("Failed", "FailureTarget"):
            return "failed"
    return "running"


def pod_state(pod):
    phase = (pod.get("status") or {}).get("phase")
    return {"Succeeded": "succeeded", "Failed": "failed"}.get(phase, "running")


def load_arrivals(path, jobs):
    """{job: seconds} from a JSON file; every job must be one of the workload's."""
    try:
        with open(path) as f:
            data = json.loads(f.read(16 * 1024 * 1024))
    except (OSError, ValueError) as e:
        raise workload.WorkloadError(f"{path}: not a readable JSON file: {e}") from None
    if not isinstance(data, dict):
        raise workload.WorkloadError(f"{path}: expected a JSON object {{job: seconds}}")
    for job, t in data.items():
        if job not in jobs:
            raise workload.WorkloadError(f"{path}: job {job!r} is not in the workload")
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 <= t <= 86400:
            raise workload.WorkloadError(f"{path}: job {job!r}: arrival must be 0..86400 seconds (got {t!r})")
    return {job: float(t) for job, t in data.items()}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kubectl", required=True)
    ap.add_argument("--kubeconfig", default="")
    ap.add_argument("--namespace", required=True)
    ap.add_argument("--scheduler-name", default="default-scheduler")
    ap.add_argument("--poll", type=float, default=1.0)
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--status-file", default="", help="write the exit status there on exit")
    ap.add_argument("--arrivals", default="", help="JSON {job: seconds after start}")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args(argv)
    if not 0.1 <= a.poll <= 60:
        print(f"baseline-driver: --poll must be between 0.1 and 60 seconds (got {a.poll})", file=sys.stderr)
        return 2
    if not 1 <= a.timeout <= 86400:
        print(f"baseline-driver: --timeout must be between 1 and 86400 seconds (got {a.timeout})", file=sys.stderr)
        return 2
    try:
        tasks, others = workload.load(a.files)
        arrivals = load_arrivals(a.arrivals, {t.job for t in tasks}) if a.arrivals else {}
    except workload.WorkloadError as e:
        print(f"baseline-driver: {e}", file=sys.stderr)
        return 2
    if not tasks:
        print("baseline-driver: the workload files hold no DAG task", file=sys.stderr)
        return 2

    kube = Kube(a.kubectl, a.kubeconfig, a.namespace)
    t0 = time.monotonic()

    def say(msg):
        print(f"[{time.monotonic() - t0:6.1f}s] {msg}", flush=True)

    state = {t.key: "not-created" for t in tasks}
    by_key = {t.key: t for t in tasks}
    if others:
        kube.create([workload.plain_copy(d, a.scheduler_name) if d.get("kind") in ("Job", "Pod") else d for d in others])
        say(f"created {len(others)} other object(s)")

    while True:
        now = time.monotonic() - t0
        ready = [
            t
            for t in tasks
            if state[t.key] == "not-created" and arrivals.get(t.job, 0.0) <= now
            and all(state[(t.job, d)] == "succeeded" for d in t.depends_on)
        ]
        if ready:
            kube.create([workload.plain_copy(t.manifest, a.scheduler_name) for t in ready])
            for t in ready:
                state[t.key] = "running"
                why = f" (upstream {', '.join(t.depends_on)} succeeded)" if t.depends_on else ""
                say(f"created {t.kind} {t.object_name}: job {t.job}, task {t.name}{why}")
        if all(s == "succeeded" for s in state.values()):
            say(f"all {len(tasks)} tasks succeeded")
            return 0
        failed = [k for k, s in state.items() if s == "failed"]
        blocked_only = failed and not any(s == "running" for s in state.values())
        if blocked_only:
            say("stopping: " + ", ".join(f"{j}/{n}" for j, n in failed) + " failed; their dependents are never created")
            return 1
        if time.monotonic() - t0 > a.timeout:
            say(f"timeout after {a.timeout:.0f}s; tasks not done: "
                + ", ".join(f"{j}/{n}" for (j, n), s in state.items() if s != "succeeded"))
            return 3
        # Sleep one poll period, or less when a job arrives sooner.
        now = time.monotonic() - t0
        due = [t for j, t in arrivals.items() if t > now and any(state[k] == "not-created" for k in state if k[0] == j)]
        time.sleep(max(0.0, min([a.poll] + [t - now for t in due])))
        try:
            jobs = {o["metadata"]["name"]: o for o in kube.get_json("jobs")["items"]}
            pods = {}
            if any(t.kind == "Pod" for t in tasks):
                pods = {o["metadata"]["name"]: o for o in kube.get_json("pods")["items"]}
        except (RuntimeError, subprocess.TimeoutExpired, ValueError) as e:
            say(f"reading the cluster failed, retrying: {e}")
            continue
        for key, s in state.items():
            if s != "running":
                continue
            t = by_key[key]
            obj = (jobs if t.kind == "Job" else pods).get(t.object_name)
            if obj is None:
                continue
            new = job_state(obj) if t.kind == "Job" else pod_state(obj)
            if new != s:
                state[key] = new
                say(f"task {t.job}/{t.name} {new}")


def status_file_of(argv):
    for i, v in enumerate(argv):
        if v == "--status-file" and i + 1 < len(argv):
            return argv[i + 1]
        if v.startswith("--status-file="):
            return v.split("=", 1)[1]
    return ""


def on_term(signum, frame):
    raise SystemExit(128 + signum)


if __name__ == "__main__":
    # SIGTERM becomes an exception, so that a running kubectl is killed with the driver.
    signal.signal(signal.SIGTERM, on_term)
    rc = 1
    try:
        rc = main(sys.argv[1:])
    except KeyboardInterrupt:
        rc = 130
    except SystemExit as e:
        rc = e.code if isinstance(e.code, int) else 2
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        print(f"baseline-driver: {e}", file=sys.stderr, flush=True)
        rc = 1
    path = status_file_of(sys.argv[1:])
    if path:
        try:
            with open(path + ".tmp", "w") as f:
                f.write(f"{rc}\n")
            os.replace(path + ".tmp", path)
        except OSError as e:
            print(f"baseline-driver: cannot write {path}: {e.strerror}", file=sys.stderr)
    sys.exit(rc)
