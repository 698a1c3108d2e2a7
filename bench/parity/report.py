#!/usr/bin/env python3
"""report.py: the figures of `make bench-parity` (bench/parity/run.sh).

  report.py real --workload FILE --run NAME=DIR ... --json OUT
      DIR holds pods.json, jobs.json, events.json and nodes.json of one cluster run (kubectl get
      ... -o json). Writes per run the outcome (hack/demo/metrics.py: makespan, mean job completion
      time, deadlines met, evictions) and the delays measured from the run's timestamps (below).

  report.py sim-args --real REAL.json --run NAME
      The bin/dagsched-sim options that give the simulator the delays measured in run NAME, one
      a line.

  report.py table --real REAL.json --sim NAME=SIM.json ... [--json OUT]
      The comparison: per policy the outcome on the cluster and in the simulator side by side, the
      ratios dagsched/default of each, and the agreement |sim ratio / real ratio - 1|.

  report.py shapes PARITY.json ...
      Runs of several shapes and seeds (bench/parity/all.sh): one line per run with the shape and
      seed it was run with, the ratios dagsched/default on the cluster and in the simulator, and
      the agreement of each compared figure; the runs within the target, and the worst.

  report.py pool PARITY.json ...
      Several runs of `make bench-parity` (the parity.json each writes) pooled: the worst agreement
      of each run, then the comparison of the means over the runs (per policy and side, the mean of
      each figure; the ratios dagsched/default of the means and their agreement). A deadline that
      the cluster's timing moves across from run to run weighs less in the means than in one run.

  report.py waits --workload FILE --run NAME=DIR ... --sim NAME=PODS.csv ... [--real REAL.json]
                  [--csv OUT]
      Pod by pod, the wait in kube-scheduler's queue on the cluster and in the simulator (the
      --pods-csv of bin/dagsched-sim), per policy: from the pod's creation to its binding, and
      under dagsched also from its release (dagsched.io/released-at; the simulator's queued time
      less its --release-latency, from REAL.json) to its binding. Distributions side by side (n,
      p10, p50, p90, max, mean) for every pod, the pods of batch jobs (no deadline) and the pods of
      DAG jobs with a deadline; then the DAG pods' median wait by when they were created (20 s
      bins from the first job's arrival); then the scheduling attempts on both sides
      (kube-scheduler's metrics, kept as DIR/scheduler-metrics.txt; --sim-json POLICY=FILE, the
      simulator's --json). OUT receives the samples, one pod a line.

Delays, each the mean over the run's pods (creationTimestamp has whole seconds: half a second is
added to it, its expected truncation; the other times have milliseconds or better):

  create   a task's pod created - the instant it could be created: its Job's creation for a task
           without upstream tasks (the job's arrival), else the end of its last upstream task.
           The workflow engine's reaction (its poll period, kubectl) and the Job controller.
  release  dagsched only: the pod's dagsched.io/released-at - its creation (the webhook gated it;
           the controller's round and patch), over the pods the controller did not hold: a pod
           it held (no room, a limit...) has a Waiting Event, and its wait is counted apart as
  held     dagsched only: released-at - creation of the pods with a Waiting Event.
  start    the pod's start (dagsched.io/started-unix-ms, written by kwok) - its binding
           (kube-scheduler's Scheduled Event): kwok's start delay and the runtime scaler.
  restart  an evicted task's next pod created - the eviction (when there were evictions).

A task's end is its start plus dagsched.io/runtime-scaled, the run time kwok waits for.
Python 3 with PyYAML only.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "hack", "demo"))
import metrics  # noqa: E402
import workload  # noqa: E402

TRUNCATION_S = 0.5  # expected truncation of a whole-second timestamp
ANN_RELEASED_AT = "dagsched.io/released-at"
ANN_STARTED_MS = "dagsched.io/started-unix-ms"
ANN_SCALED = "dagsched.io/runtime-scaled"
ANN_DEADLINE = "dagsched.io/deadline-after"
REASON_WAITING = "Waiting"  # the controller's Event on a task it holds
POLICIES = ("dagsched", "default")
TARGET = 0.10
COMPARED = ("makespan_s", "jct_mean_s", "deadlines_met")


def die(msg):
    print(f"report: {msg}", file=sys.stderr)
    sys.exit(2)


def stats(xs):
    """{n, mean, p50, p90} of a list of numbers (None for an empty list)."""
    if not xs:
        return None
    s = sorted(xs)

    def q(p):
        return s[min(len(s) - 1, int(p * len(s)))]

    return {"n": len(s), "mean": round(sum(s) / len(s), 3), "p50": round(q(0.5), 3), "p90": round(q(0.9), 3)}


def _ms(v):
    try:
        return float(str(v).removesuffix("ms")) / 1000.0
    except (TypeError, ValueError):
        return None


def pod_record(p):
    """Times (seconds since the epoch) of one pod from its object: created (+ truncation), released,
    bound (PodScheduled condition, + truncation), start and end (kwok's annotations)."""
    meta = p.get("metadata") or {}
    ann = meta.get("annotations") or {}
    labels = meta.get("labels") or {}
    created = metrics.parse_time(meta.get("creationTimestamp"))
    start = _ms(ann.get(ANN_STARTED_MS))
    scaled = _ms(ann.get(ANN_SCALED))
    phase = (p.get("status") or {}).get("phase")
    end = None
    if phase == "Succeeded":
        end = start + scaled if start is not None and scaled is not None else metrics.pod_finish(p)
    bound = metrics.pod_bound_time(p)
    return {
        "name": meta.get("name"),
        "job": labels.get(metrics.LABEL_JOB),
        "task": labels.get(metrics.LABEL_TASK),
        "created": None if created is None else created + TRUNCATION_S,
        "released": metrics.parse_time(ann.get(ANN_RELEASED_AT)),
        "bound": None if bound is None else bound + TRUNCATION_S,
        "start": start,
        "end": end,
        "succeeded": phase == "Succeeded",
    }


def measure_delays(pods, jobs, events, wtasks):
    """Samples of the delays (see the module comment) of one run."""
    recs = [pod_record(p) for p in pods]
    recs = [r for r in recs if r["job"] and r["task"] and r["created"] is not None]
    # Binding from kube-scheduler's Events (microseconds) where there is one.
    by_name = {r["name"]: r for r in recs}
    evicted_at = {}
    held = set()
    for ev in events:
        obj = ev.get("involvedObject") or ev.get("regarding") or {}
        if obj.get("kind") != "Pod" or obj.get("name") not in by_name:
            continue
        if ev.get("reason") == REASON_WAITING:
            held.add(obj["name"])
        if ev.get("reason") == "Scheduled" and metrics._ASSIGNED.match(ev.get("message") or ev.get("note") or ""):
            t = metrics.event_time(ev)
            if t is not None:
                by_name[obj["name"]]["bound"] = t
        elif ev.get("reason") in metrics.EVICTION_REASONS:
            t = metrics.event_time(ev)
            if t is not None:
                evicted_at.setdefault(obj["name"], t)
    job_created = {}
    for j in jobs:
        meta = j.get("metadata") or {}
        t = metrics.parse_time(meta.get("creationTimestamp"))
        if t is not None:
            job_created[meta.get("name")] = t + TRUNCATION_S
    attempts = {}
    for r in recs:
        attempts.setdefault((r["job"], r["task"]), []).append(r)
    for a in attempts.values():
        a.sort(key=lambda r: r["created"])
    end_of = {}
    for key, a in attempts.items():
        ok = [r for r in a if r["succeeded"] and r["end"] is not None]
        if ok:
            end_of[key] = ok[-1]["end"]
    create, release, held_wait, start, restart = [], [], [], [], []
    for job, task, deps, oname in wtasks:
        a = attempts.get((job, task))
        if not a:
            continue
        first = a[0]
        if deps:
            ends = [end_of.get((job, d)) for d in deps]
            ready = max(ends) if all(e is not None for e in ends) else None
        else:
            ready = job_created.get(oname)
        if ready is not None:
            create.append(first["created"] - ready)
        for i, r in enumerate(a):
            if r["released"] is not None:
                (held_wait if r["name"] in held else release).append(r["released"] - r["created"])
            if r["bound"] is not None and r["start"] is not None:
                start.append(r["start"] - r["bound"])
            if r["name"] in evicted_at and i + 1 < len(a):
                restart.append(a[i + 1]["created"] - evicted_at[r["name"]])
    gated = sum(1 for r in recs if r["released"] is not None)
    return {"create": create, "release": release, "held": held_wait, "start": start, "restart": restart,
            "pods": len(recs), "released_pods": gated}


def outcome(analysis):
    """Figures of a metrics.analyze() result: makespan, mean JCT, deadlines met, evictions."""
    jobs = analysis["jobs"]
    t = analysis["totals"]
    jcts = [j["makespan"] for j in jobs.values() if j["makespan"] is not None]
    return {
        "jobs": t["jobs"],
        "complete": t["complete"],
        "tasks": t["tasks"],
        "makespan_s": t["makespan"],
        "jct_mean_s": round(sum(jcts) / len(jcts), 3) if jcts and len(jcts) == len(jobs) else None,
        "deadlines_met": t["deadlines_met"],
        "deadline_jobs": t["deadlines"],
        "evictions": t["evictions"],
        "violations": t["violations"],
    }


def cmd_real(a):
    try:
        tasks, _ = workload.load(a.workload)
    except workload.WorkloadError as e:
        die(str(e))
    wt = [(t.job, t.name, t.depends_on, t.object_name if t.kind == "Job" else None) for t in tasks]
    runs = {}
    for spec in a.run:
        name, _, d = spec.partition("=")
        if not name or not d:
            die(f"--run must be NAME=DIR (got {spec!r})")
        try:
            f = {k: metrics.load_list(os.path.join(d, f"{k}.json")) for k in ("pods", "jobs", "events", "nodes")}
            an = metrics.analyze(f["pods"], f["jobs"], f["events"], f["nodes"], wt)
        except metrics.MetricsError as e:
            die(f"run {name}: {e}")
        d = measure_delays(f["pods"], f["jobs"], f["events"], wt)
        runs[name] = {
            "outcome": outcome(an),
            "delays": {k: stats(d[k]) for k in ("create", "release", "held", "start", "restart")},
            "pods": d["pods"],
            "released_pods": d["released_pods"],
        }
    tmp = a.json + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"runs": runs}, f, indent=1, sort_keys=True)
    os.replace(tmp, a.json)
    return 0


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        die(f"{path}: {e}")


def mean_of(d, key):
    return None if d.get(key) is None else d[key]["mean"]


ROUND_INTERVAL_S = 1.0  # the controller's --min-round-interval, the simulator's --round-interval
# kube-scheduler's timing on the local control plane (docs/simulator.md, "Parity with the real
# control plane": measured from the Events of a backlog run): a scheduling cycle that binds takes
# about 0.5 ms before the next pod is popped (the binding itself runs on its own goroutine), one
# that fails 0.75 ms (190 failed attempts in 0.147 s); the back-off queue is flushed every
# 1 s plus the flush's own run (wait.Until slides: the ticks drift by 0.85 ms a second).
KUBE_CYCLE_BOUND_S = 0.0005
KUBE_CYCLE_FAILED_S = 0.00075
KUBE_FLUSH_PERIOD_S = 1.00085


def sim_args(run_name, run):
    """dagsched-sim options for the delays measured in a run: create and start latency; under
    dagsched also the release latency. The simulator runs a controller round at most once per
    --round-interval and lets a released pod enter kube-scheduler's queue --release-latency after
    the round decided it; the measured release (creation to released-at, pods not held) also holds
    the wait for the next round, at most an interval and half of one on average under load, which
    is taken off. kube-scheduler's cycle times and back-off flush period are this control plane's
    (KUBE_*)."""
    d = run["delays"]
    args = ["--create-latency", f"{max(mean_of(d, 'create') or 0.0, 0.0):.3f}",
            "--start-latency", f"{max(mean_of(d, 'start') or 0.0, 0.0):.3f}",
            "--sched-cycle", f"{KUBE_CYCLE_BOUND_S}", "--sched-cycle-failed", f"{KUBE_CYCLE_FAILED_S}",
            "--backoff-flush", f"{KUBE_FLUSH_PERIOD_S}"]
    if run_name == "dagsched" and mean_of(d, "release") is not None:
        args += ["--release-latency", f"{max(mean_of(d, 'release') - ROUND_INTERVAL_S / 2, 0.0):.3f}"]
    if mean_of(d, "restart") is not None:
        args += ["--restart-delay", f"{max(mean_of(d, 'restart'), 0.0):.3f}"]
    return args


def cmd_sim_args(a):
    real = load_json(a.real)
    run = (real.get("runs") or {}).get(a.run)
    if run is None:
        die(f"{a.real}: no run {a.run!r}")
    print("\n".join(sim_args(a.run, run)))
    return 0


def sim_outcome(rows, policy):
    """The figures of a dagsched-sim --json result for a policy (the first row of it)."""
    for r in rows:
        if r.get("policy") == policy:
            return {
                "jobs": r["jobs"],
                "tasks": r["tasks"],
                "makespan_s": r["makespan_s"],
                "jct_mean_s": r["jct_mean_s"],
                "deadlines_met": r["deadline_met"],
                "deadline_jobs": r["deadline_jobs"],
                "evictions": r["preemptions"],
            }
    return None


def ratio(a, b):
    """a / b, or None when either is missing or b is 0."""
    if a is None or b is None or b == 0:
        return None
    return a / b


def agreement(sim_ratio, real_ratio):
    """|sim ratio / real ratio - 1|, or None when a ratio is undefined."""
    r = ratio(sim_ratio, real_ratio)
    return None if r is None else abs(r - 1.0)


def compare(real_runs, sim_runs):
    """Rows of the comparison: per metric the values of both policies on both sides, the ratios
    dagsched/default and their agreement; and the worst agreement over COMPARED."""
    rows = []
    for key, label in (("makespan_s", "makespan (s)"), ("jct_mean_s", "mean JCT (s)"),
                       ("deadlines_met", "deadlines met"), ("evictions", "evictions")):
        row = {"metric": key, "label": label}
        for side, src in (("real", real_runs), ("sim", sim_runs)):
            for p in POLICIES:
                row[f"{side}_{p}"] = (src.get(p) or {}).get(key)
            row[f"{side}_ratio"] = ratio(row[f"{side}_dagsched"], row[f"{side}_default"])
        row["agreement"] = agreement(row["sim_ratio"], row["real_ratio"])
        rows.append(row)
    worst = [r["agreement"] for r in rows if r["metric"] in COMPARED]
    return {"rows": rows, "worst": None if any(w is None for w in worst) else max(worst)}


def fmt(v, kind, of=None):
    if v is None:
        return "-"
    if kind == "ratio":
        return f"{v:.3f}"
    if kind == "pct":
        return f"{100 * v:.1f} %"
    if of is not None:
        return f"{v:.1f}/{of}" if isinstance(v, float) and v != int(v) else f"{v:.0f}/{of}"
    return f"{v:.0f}" if isinstance(v, float) else str(v)


def render(cmp, real_runs, sim_runs, delays, released=None):
    head = ["", "cluster", "", "", "simulator", "", "", ""]
    sub = ["metric", "dagsched", "default", "ratio", "dagsched", "default", "ratio", "|sim/real - 1|"]
    lines = [head, sub]
    for r in cmp["rows"]:
        of = {}
        if r["metric"] == "deadlines_met":
            of = {f"{s}_{p}": (src.get(p) or {}).get("deadline_jobs")
                  for s, src in (("real", real_runs), ("sim", sim_runs)) for p in POLICIES}
        lines.append([r["label"]]
                     + [fmt(r[f"real_{p}"], "n", of.get(f"real_{p}")) for p in POLICIES] + [fmt(r["real_ratio"], "ratio")]
                     + [fmt(r[f"sim_{p}"], "n", of.get(f"sim_{p}")) for p in POLICIES] + [fmt(r["sim_ratio"], "ratio")]
                     + [fmt(r["agreement"], "pct")])
    widths = [max(len(row[i]) for row in lines) for i in range(len(sub))]
    out = []
    for row in lines:
        out.append("  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(row)).rstrip())
    out.insert(2, "-" * len(out[1]))
    w = cmp["worst"]
    out.append("")
    out.append("agreement of the ratios dagsched/default (makespan, mean JCT, deadlines met): worst "
               + ("-" if w is None else f"{100 * w:.1f} %") + f" (target <= {100 * TARGET:.0f} %)")
    out.append("")
    out.append("delays measured on the cluster (mean, p50, p90 over pods; seconds):")
    for p in POLICIES:
        d = delays.get(p) or {}
        parts = []
        for k in ("create", "release", "held", "start", "restart"):
            s = d.get(k)
            if s:
                parts.append(f"{k} {s['mean']:.2f} ({s['p50']:.2f}, {s['p90']:.2f}; n={s['n']})")
        out.append(f"  {p}: " + ("; ".join(parts) if parts else "-"))
    for p, (n_released, n_pods) in sorted((released or {}).items()):
        out.append(f"  {p}: {n_released} of {n_pods} pods released by the controller (the others were not gated)")
    return "\n".join(out)


def cmd_table(a):
    real = load_json(a.real).get("runs") or {}
    sims = {}
    for spec in a.sim:
        name, _, path = spec.partition("=")
        if not name or not path:
            die(f"--sim must be POLICY=FILE (got {spec!r})")
        o = sim_outcome(load_json(path), name)
        if o is None:
            die(f"{path}: no run of policy {name!r}")
        sims[name] = o
    real_runs = {p: (real.get(p) or {}).get("outcome") for p in POLICIES}
    for p in POLICIES:
        if real_runs[p] is None:
            die(f"{a.real}: no run {p!r}")
        if sims.get(p) is None:
            die(f"no --sim {p}=FILE")
    cmp = compare(real_runs, sims)
    released = {p: (real[p]["released_pods"], real[p]["pods"]) for p in POLICIES if real[p].get("released_pods")}
    print(render(cmp, real_runs, sims, {p: real[p].get("delays") for p in POLICIES}, released))
    if a.json:
        tmp = a.json + ".tmp"
        with open(tmp, "w") as f:
            meta = dict(m.partition("=")[::2] for m in a.meta)
            json.dump({"comparison": cmp, "real": real, "sim": sims, "meta": meta}, f, indent=1, sort_keys=True)
        os.replace(tmp, a.json)
    return 0


def pool(results):
    """The mean over runs of each compared figure, per side and policy: ({policy: outcome} of the
    cluster, {policy: outcome} of the simulator), from the parity.json of each run."""
    sides = {"real": {}, "sim": {}}
    for p in POLICIES:
        for side in sides:
            outs = [(r["real"][p]["outcome"] if side == "real" else r["sim"][p]) for r in results]
            mean = {}
            for key in ("makespan_s", "jct_mean_s", "deadlines_met", "evictions"):
                vals = [o.get(key) for o in outs]
                mean[key] = None if any(v is None for v in vals) else sum(vals) / len(vals)
            jobs = {o.get("deadline_jobs") for o in outs}
            mean["deadline_jobs"] = jobs.pop() if len(jobs) == 1 else None
            sides[side][p] = mean
    return sides["real"], sides["sim"]


def cmd_pool(a):
    results = [load_json(path) for path in a.parity]
    for path, r in zip(a.parity, results):
        for p in POLICIES:
            if not ((r.get("real") or {}).get(p) or {}).get("outcome") or not (r.get("sim") or {}).get(p):
                die(f"{path}: no outcome of {p!r} on both sides (a parity.json of bench-parity?)")
    print(f"{len(results)} runs of bench-parity; worst agreement of each (makespan, mean JCT, deadlines met):")
    for path, r in zip(a.parity, results):
        rows = {row["metric"]: row["agreement"] for row in r["comparison"]["rows"]}
        cells = ", ".join(fmt(rows.get(k), "pct") for k in COMPARED)
        print(f"  {path}: {cells}; worst {fmt(r['comparison']['worst'], 'pct')}")
    real_mean, sim_mean = pool(results)
    cmp = compare(real_mean, sim_mean)
    print()
    print("means over the runs:")
    print(render(cmp, real_mean, sim_mean, {}).split("\n\ndelays")[0])
    return 0


def shapes_table(results):
    """The lines of `report.py shapes` for loaded parity.json results."""
    head = ["shape", "seed", "cluster ratios", "simulator ratios", "agreement", "worst"]
    sub = ["", "", "mkspan JCT dl", "mkspan JCT dl", "mkspan JCT dl", ""]
    lines = [head, sub]
    within = 0
    worst_all = []
    for r in results:
        meta = r.get("meta") or {}
        rows = {row["metric"]: row for row in r["comparison"]["rows"]}
        real = " ".join(fmt(rows[k]["real_ratio"], "ratio") for k in COMPARED)
        sim = " ".join(fmt(rows[k]["sim_ratio"], "ratio") for k in COMPARED)
        agr = " ".join(fmt(rows[k]["agreement"], "pct").replace(" %", "") for k in COMPARED)
        w = r["comparison"]["worst"]
        if w is not None:
            worst_all.append(w)
            within += w <= TARGET
        lines.append([meta.get("shape", "?"), meta.get("seed", "?"), real, sim, agr, fmt(w, "pct")])
    widths = [max(len(row[i]) for row in lines) for i in range(len(head))]
    out = ["  ".join(c.ljust(widths[i]) if i < 2 else c.rjust(widths[i]) for i, c in enumerate(row)).rstrip()
           for row in lines]
    out.insert(2, "-" * max(len(x) for x in out))
    out.append("")
    out.append(f"ratios dagsched/default of makespan, mean JCT and deadlines met; agreement |sim/real - 1| in %; "
               f"{within} of {len(results)} runs within {100 * TARGET:.0f} %"
               + (f", worst {100 * max(worst_all):.1f} %" if worst_all else ""))
    return out


def cmd_shapes(a):
    results = [load_json(path) for path in a.parity]
    for path, r in zip(a.parity, results):
        if not (r.get("comparison") or {}).get("rows"):
            die(f"{path}: no comparison (a parity.json of bench-parity?)")
    print("\n".join(shapes_table(results)))
    return 0


# ---------------------------------------------------------------- waits: pod by pod
WAIT_BIN_S = 20.0


def quantiles(xs):
    """{n, p10, p50, p90, max, mean} of a list of numbers (None for an empty list): the nearest
    rank below, as stats()."""
    if not xs:
        return None
    s = sorted(xs)

    def q(p):
        return s[min(len(s) - 1, int(p * len(s)))]

    return {"n": len(s), "p10": q(0.1), "p50": q(0.5), "p90": q(0.9), "max": s[-1], "mean": sum(s) / len(s)}


def cluster_pod_times(pods, jobs, events, deadline_jobs):
    """[{job, task, batch, created, released, bound}] of one cluster run, times relative to the
    first Job's creation (the run's first arrival): created and bound as measure_delays takes them,
    released from dagsched.io/released-at."""
    recs = [pod_record(p) for p in pods]
    recs = [r for r in recs if r["job"] and r["task"] and r["created"] is not None]
    by_name = {r["name"]: r for r in recs}
    for ev in events:
        obj = ev.get("involvedObject") or ev.get("regarding") or {}
        if obj.get("kind") != "Pod" or obj.get("name") not in by_name:
            continue
        if ev.get("reason") == "Scheduled" and metrics._ASSIGNED.match(ev.get("message") or ev.get("note") or ""):
            t = metrics.event_time(ev)
            if t is not None:
                by_name[obj["name"]]["bound"] = t
    t0s = [metrics.parse_time((j.get("metadata") or {}).get("creationTimestamp")) for j in jobs]
    t0s = [t + TRUNCATION_S for t in t0s if t is not None]
    t0 = min(t0s) if t0s else min(r["created"] for r in recs)
    out = []
    for r in recs:
        out.append({"job": r["job"], "task": r["task"], "batch": r["job"] not in deadline_jobs,
                    "created": r["created"] - t0,
                    "released": None if r["released"] is None else r["released"] - t0,
                    "bound": None if r["bound"] is None else r["bound"] - t0})
    return out


def sim_pod_times(path, policy, deadline_jobs, release_latency):
    """The same from a dagsched-sim --pods-csv file (its rows of the policy): released is the
    simulator's queued time less the release latency (gated pods only)."""
    import csv
    out = []
    try:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if row.get("policy") != policy:
                    continue
                created, queued, bound = (float(row[k]) for k in ("created_s", "queued_s", "bound_s"))
                released = queued - release_latency if policy == "dagsched" else None
                out.append({"job": row["job"], "task": row["task"], "batch": row["job"] not in deadline_jobs,
                            "created": created, "released": released, "bound": bound})
    except (OSError, KeyError, ValueError) as e:
        die(f"{path}: not a dagsched-sim --pods-csv file ({e})")
    if not out:
        die(f"{path}: no pod of policy {policy!r}")
    return out


def wait_samples(recs, group, frm):
    """Waits (bound - frm) of the pods of a group: all, batch or dag."""
    xs = []
    for r in recs:
        if group == "batch" and not r["batch"] or group == "dag" and r["batch"]:
            continue
        if r["bound"] is not None and r[frm] is not None:
            xs.append(r["bound"] - r[frm])
    return xs


def waits_lines(real, sim):
    """The lines of `report.py waits` for {policy: [pod times]} of both sides."""
    out = []
    cols = ("n", "p10", "p50", "p90", "max", "mean")

    def cells(q):
        if q is None:
            return ["-"] * len(cols)
        return [str(q["n"])] + [f"{q[c]:.1f}" for c in cols[1:]]

    head = ["policy", "wait", "pods"] + [f"cluster {c}" if i == 0 else c for i, c in enumerate(cols)] \
        + [f"sim {c}" if i == 0 else c for i, c in enumerate(cols)]
    rows = [head]
    for p in POLICIES:
        if p not in real or p not in sim:
            continue
        for frm, label in (("created", "created->bound"), ("released", "released->bound")):
            if frm == "released" and p != "dagsched":
                continue
            for g in ("all", "batch", "dag"):
                qr = quantiles(wait_samples(real[p], g, frm))
                qs = quantiles(wait_samples(sim[p], g, frm))
                if qr is None and qs is None:
                    continue
                rows.append([p, label, g] + cells(qr) + cells(qs))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    out.append("wait in kube-scheduler's queue, pod by pod (seconds): cluster | simulator")
    for i, r in enumerate(rows):
        out.append("  ".join(c.ljust(widths[k]) if k < 3 else c.rjust(widths[k]) for k, c in enumerate(r)).rstrip())
        if i == 0:
            out.append("-" * len(out[-1]))
    out.append("")
    out.append(f"DAG pods (jobs with a deadline): median wait created->bound by creation time ({WAIT_BIN_S:.0f} s "
               "bins from the first arrival), cluster / simulator (pods)")
    for p in POLICIES:
        if p not in real or p not in sim:
            continue
        bins = {}
        for side, recs in (("real", real[p]), ("sim", sim[p])):
            for r in recs:
                if r["batch"] or r["bound"] is None:
                    continue
                b = int(r["created"] // WAIT_BIN_S)
                bins.setdefault(b, {"real": [], "sim": []})[side].append(r["bound"] - r["created"])
        parts = []
        for b in sorted(bins):
            def med(xs):
                return "-" if not xs else f"{quantiles(xs)['p50']:.1f}"
            parts.append(f"{int(b * WAIT_BIN_S)}s: {med(bins[b]['real'])}/{med(bins[b]['sim'])} "
                         f"({len(bins[b]['real'])}/{len(bins[b]['sim'])})")
        out.append(f"  {p}: " + "; ".join(parts))
    return out


def scheduler_metrics(path):
    """kube-scheduler's counts from its metrics page (run.sh keeps it as scheduler-metrics.txt):
    {attempts: {result: n}, cycle_s: {result: mean seconds}, incoming: {(queue, event): n}}, or
    None when the file is missing."""
    import re
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None
    sample = re.compile(r'^(\w+)\{([^}]*)\} ([0-9.eE+-]+)$')
    label = re.compile(r'(\w+)="([^"]*)"')
    attempts, dsum, dcount, incoming = {}, {}, {}, {}
    for line in text.splitlines():
        m = sample.match(line)
        if not m:
            continue
        name, labels, v = m.group(1), dict(label.findall(m.group(2))), float(m.group(3))
        if name == "scheduler_schedule_attempts_total":
            attempts[labels.get("result")] = attempts.get(labels.get("result"), 0) + v
        elif name == "scheduler_scheduling_attempt_duration_seconds_sum":
            dsum[labels.get("result")] = dsum.get(labels.get("result"), 0) + v
        elif name == "scheduler_scheduling_attempt_duration_seconds_count":
            dcount[labels.get("result")] = dcount.get(labels.get("result"), 0) + v
        elif name == "scheduler_queue_incoming_pods_total":
            k = (labels.get("queue"), labels.get("event"))
            incoming[k] = incoming.get(k, 0) + v
    return {"attempts": attempts, "cycle_s": {r: dsum[r] / dcount[r] for r in dsum if dcount.get(r)},
            "incoming": incoming}


def attempts_lines(metrics_of, sim_json_of):
    """Scheduling attempts per policy: kube-scheduler's counts and mean cycle time on the cluster,
    the simulator's bindings and failed attempts."""
    out = ["scheduling attempts: cluster (kube-scheduler's metrics: scheduled, unschedulable, mean "
           "cycle ms of each) | simulator (bound, failed)"]
    for p in POLICIES:
        m = metrics_of.get(p)
        cl = "-"
        if m is not None:
            a, c = m["attempts"], m["cycle_s"]
            cl = (f"{a.get('scheduled', 0):.0f}, {a.get('unschedulable', 0):.0f} "
                  f"({1000 * c.get('scheduled', 0):.1f}, {1000 * c.get('unschedulable', 0):.1f} ms)")
            if a.get("error"):
                cl += f", {a['error']:.0f} errors"
        sm = "-"
        r = sim_json_of.get(p)
        if r is not None:
            sm = f"{r.get('starts', 0)}, {r.get('sched_failures', 0)}"
        out.append(f"  {p}: {cl} | {sm}")
    return out


def cmd_waits(a):
    try:
        tasks, _ = workload.load([a.workload])
    except workload.WorkloadError as e:
        die(str(e))
    deadline_jobs = {t.job for t in tasks if ANN_DEADLINE in task_annotations(t)}
    latency = 0.0
    if a.real:
        run = (load_json(a.real).get("runs") or {}).get("dagsched")
        if run is not None:
            for k, v in zip(*[iter(sim_args("dagsched", run))] * 2):
                if k == "--release-latency":
                    latency = float(v)
    real, sim = {}, {}
    for spec in a.run:
        name, _, d = spec.partition("=")
        if not name or not d:
            die(f"--run must be NAME=DIR (got {spec!r})")
        try:
            f = {k: metrics.load_list(os.path.join(d, f"{k}.json")) for k in ("pods", "jobs", "events")}
        except metrics.MetricsError as e:
            die(f"run {name}: {e}")
        real[name] = cluster_pod_times(f["pods"], f["jobs"], f["events"], deadline_jobs)
    for spec in a.sim:
        name, _, path = spec.partition("=")
        if not name or not path:
            die(f"--sim must be POLICY=FILE (got {spec!r})")
        sim[name] = sim_pod_times(path, name, deadline_jobs, latency)
    print("\n".join(waits_lines(real, sim)))
    metrics_of = {}
    for spec in a.run:
        name, _, d = spec.partition("=")
        m = scheduler_metrics(os.path.join(d, "scheduler-metrics.txt"))
        if m is not None:
            metrics_of[name] = m
    sim_json_of = {}
    for spec in a.sim_json:
        name, _, path = spec.partition("=")
        r = [x for x in load_json(path) if x.get("policy") == name]
        if r:
            sim_json_of[name] = r[0]
    if metrics_of or sim_json_of:
        print()
        print("\n".join(attempts_lines(metrics_of, sim_json_of)))
    if a.csv:
        tmp = a.csv + ".tmp"
        with open(tmp, "w") as f:
            f.write("side,policy,job,task,batch,created_s,released_s,bound_s\n")
            for side, src in (("cluster", real), ("sim", sim)):
                for p in sorted(src):
                    for r in src[p]:
                        f.write(",".join([side, p, r["job"], r["task"], str(int(r["batch"]))]
                                         + ["" if r[k] is None else f"{r[k]:.3f}" for k in ("created", "released", "bound")])
                                + "\n")
        os.replace(tmp, a.csv)
    return 0


def task_annotations(t):
    """The pod annotations of a workload task (a Job's template or a Pod)."""
    m = t.manifest
    meta = ((m.get("spec") or {}).get("template") or {}).get("metadata") if t.kind == "Job" else m.get("metadata")
    return (meta or {}).get("annotations") or {}

def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sp = ap.add_subparsers(dest="cmd", required=True)
    r = sp.add_parser("real")
    r.add_argument("--workload", nargs="+", required=True)
    r.add_argument("--run", action="append", required=True)
    r.add_argument("--json", required=True)
    s = sp.add_parser("sim-args")
    s.add_argument("--real", required=True)
    s.add_argument("--run", required=True)
    t = sp.add_parser("table")
    t.add_argument("--real", required=True)
    t.add_argument("--sim", action="append", required=True)
    t.add_argument("--json")
    t.add_argument("--meta", action="append", default=[], help="KEY=VALUE kept in the JSON (shape, seed)")
    o = sp.add_parser("pool")
    o.add_argument("parity", nargs="+")
    h = sp.add_parser("shapes")
    h.add_argument("parity", nargs="+")
    w = sp.add_parser("waits")
    w.add_argument("--workload", required=True)
    w.add_argument("--run", action="append", required=True)
    w.add_argument("--sim", action="append", required=True)
    w.add_argument("--real")
    w.add_argument("--sim-json", action="append", default=[], help="POLICY=FILE: dagsched-sim --json")
    w.add_argument("--csv")
    a = ap.parse_args(argv)
    return {"real": cmd_real, "sim-args": cmd_sim_args, "table": cmd_table, "pool": cmd_pool,
            "shapes": cmd_shapes, "waits": cmd_waits}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
