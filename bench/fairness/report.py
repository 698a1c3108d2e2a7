#!/usr/bin/env python3
"""report.py: the figures of `make bench-fairness` (bench/fairness/run.sh); the arithmetic is
bench/fairness/fairness.py's.

  report.py cluster --jobs JOBS.json --workload NS.yaml ... --run NAME=DIR ... --json OUT
      DIR holds pods.json, jobs.json, events.json and nodes.json of one cluster run. Per run: the
      figures of fairness.figures() from the pods' own timestamps (bound: kube-scheduler's
      Scheduled Event; start and end: kwok's dagsched.io/started-unix-ms plus the run time it
      waited), and the delays bench/parity/report.py measures for the simulator.

  report.py sim-args --real OUT.json --run NAME
      The bin/dagsched-sim options that give the simulator the delays measured in run NAME (the
      release latency unless NAME is default), one a line.

  report.py sim --jobs JOBS.json --workload SIM.yaml --real REAL.json --run NAME=PODS.csv:POLICY ...
                --json OUT
      The same figures from dagsched-sim's --pods-csv (the rows of POLICY; a pod starts as long
      after its binding as run NAME's pods did on the cluster, REAL.json), on the nodes of the
      simulator's Workload SIM.yaml.

  report.py table --real REAL.json [--sim SIM.json] [--meta KEY=VALUE ...] [--json OUT]
      One line per run on the cluster (and in the simulator): the light tenant's mean JCT and its
      ratio to the run `alone`, the flood's batch jobs' and the gang jobs' mean JCT, deadlines met, Jain's
      index of the tenants' dominant shares over time (mean and minimum), cpu utilisation and its
      ratio to the run `nofair`, the gangs' hold time and partial starts; then the ratios
      fair/default on both sides and their agreement |sim ratio / real ratio - 1|.

Python 3 with PyYAML only.
"""

import argparse
import csv
import importlib.util
import json
import os
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "hack", "demo"))
sys.path.insert(0, HERE)
import fairness  # noqa: E402
import metrics  # noqa: E402
import workload  # noqa: E402


def _parity(name):
    """bench/parity's module NAME (gen, report), loaded under the name parity_NAME: this folder has
    modules of the same names."""
    spec = importlib.util.spec_from_file_location(f"parity_{name}", os.path.join(HERE, "..", "parity", f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


parity_gen = _parity("gen")
parity_report = _parity("report")
die = parity_report.die
load_json = parity_report.load_json

LIGHT, FLOOD, GANG = "light", "flood", "gang"
RUNS = ("alone", "fair", "nofair", "default")
RUN_LABEL = {"alone": "light alone (dagsched)", "fair": "dagsched, fairness on",
             "nofair": "dagsched, fairness off", "default": "default scheduler"}
SAMPLE_STEP_S = 1.0
PARTIAL_TOL_S = 1.0


def split_spec(spec, what):
    name, _, rest = spec.partition("=")
    if not name or not rest:
        die(f"--run must be {what} (got {spec!r})")
    return name, rest


def jobs_at(meta, arrival_of):
    """fairness' jobs from gen.py's jobs.json and each job's arrival on the run's clock."""
    out = {}
    for name, j in meta.items():
        a = arrival_of(name)
        if a is None:
            continue
        out[name] = {"tenant": j["tenant"], "group": j.get("group", j["tenant"]), "arrival": a, "tasks": len(j["tasks"]),
                     "deadline": None if j["deadline_after"] is None else a + j["deadline_after"]}
    return out


def run_of(meta, job, task, bound, start, end, succeeded):
    t = meta[job]["tasks"][task]
    return {"tenant": meta[job]["tenant"], "job": job, "task": task, "cpu": t["cpu"], "memory": t["memory"],
            "gang": t["gang"], "bound": bound, "start": start, "end": end, "succeeded": succeeded}


def node_capacity(nodes):
    """{cpu, memory} allocatable of the nodes without a NoSchedule or NoExecute taint (Node
    objects)."""
    cap = {"cpu": 0.0, "memory": 0.0}
    for n in nodes:
        taints = (n.get("spec") or {}).get("taints") or []
        if any(t.get("effect") in ("NoSchedule", "NoExecute") for t in taints):
            continue
        alloc = (n.get("status") or {}).get("allocatable") or {}
        cap["cpu"] += parity_gen.parse_cpu(alloc.get("cpu", "0")) / 1000.0
        cap["memory"] += parity_gen.parse_memory(alloc.get("memory", "0"))
    return cap


def cluster_runs(meta, pods, jobs, events):
    """(fairness jobs, pod runs) of one cluster run, times in seconds since the epoch."""
    bound_ev = {}
    for ev in events:
        obj = ev.get("involvedObject") or ev.get("regarding") or {}
        if obj.get("kind") == "Pod" and ev.get("reason") == "Scheduled" and \
                metrics._ASSIGNED.match(ev.get("message") or ev.get("note") or ""):
            t = metrics.event_time(ev)
            if t is not None:
                bound_ev[(obj.get("namespace"), obj.get("name"))] = t
    runs, first = [], {}
    for p in pods:
        rec = parity_report.pod_record(p)
        job, task = rec["job"], rec["task"]
        if job not in meta or task not in meta[job]["tasks"]:
            continue
        if rec["created"] is not None:
            first[job] = min(first.get(job, rec["created"]), rec["created"])
        key = ((p.get("metadata") or {}).get("namespace"), rec["name"])
        bound = bound_ev.get(key, rec["bound"])
        start = rec["start"] if rec["start"] is not None else metrics.pod_start(p)
        end = rec["end"]
        if end is None and (p.get("status") or {}).get("phase") == "Failed":
            end = metrics.pod_finish(p)
        runs.append(run_of(meta, job, task, bound, start, end, rec["succeeded"]))
    for j in jobs:
        m = j.get("metadata") or {}
        job = (m.get("labels") or {}).get(metrics.LABEL_JOB)
        t = metrics.parse_time(m.get("creationTimestamp"))
        if job in meta and t is not None:
            t += parity_report.TRUNCATION_S
            first[job] = min(first.get(job, t), t)
    return jobs_at(meta, first.get), runs


def cmd_cluster(a):
    meta = load_json(a.jobs)
    try:
        tasks, _ = workload.load(a.workload)
    except workload.WorkloadError as e:
        die(str(e))
    wt = [(t.job, t.name, t.depends_on, t.object_name if t.kind == "Job" else None) for t in tasks]
    out = {}
    for spec in a.run:
        name, d = split_spec(spec, "NAME=DIR")
        try:
            f = {k: metrics.load_list(os.path.join(d, f"{k}.json")) for k in ("pods", "jobs", "events", "nodes")}
        except metrics.MetricsError as e:
            die(f"run {name}: {e}")
        jobs, runs = cluster_runs(meta, f["pods"], f["jobs"], f["events"])
        if not jobs:
            die(f"run {name}: no job of {a.jobs} in {d}")
        fig = fairness.figures(jobs, runs, node_capacity(f["nodes"]), SAMPLE_STEP_S, PARTIAL_TOL_S)
        dl = parity_report.measure_delays(f["pods"], f["jobs"], f["events"], wt)
        fig["delays"] = {k: parity_report.stats(dl[k]) for k in ("create", "release", "held", "start", "restart")}
        out[name] = fig
    write_json(a.json, {"runs": out})
    return 0


def cmd_sim_args(a):
    run = (load_json(a.real).get("runs") or {}).get(a.run)
    if run is None:
        die(f"{a.real}: no run {a.run!r}")
    print("\n".join(parity_report.sim_args("default" if a.run == "default" else "dagsched", run)))
    return 0


def sim_capacity(path):
    """{cpu, memory} of a dagsched-sim Workload's nodes (count x each)."""
    try:
        with open(path) as f:
            doc = yaml.safe_load(f)
        cap = {"cpu": 0.0, "memory": 0.0}
        for n in doc["spec"]["nodes"]:
            c = int(n.get("count", 1))
            cap["cpu"] += c * parity_gen.parse_cpu(n["cpu"]) / 1000.0
            cap["memory"] += c * parity_gen.parse_memory(n["memory"])
    except (OSError, yaml.YAMLError, KeyError, TypeError, ValueError) as e:
        die(f"{path}: not a Workload with nodes ({e})")
    return cap


def sim_runs(meta, path, policy, start_latency):
    """(fairness jobs, pod runs) of a dagsched-sim --pods-csv file, times from the run's start."""
    runs = []
    try:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if row.get("policy") != policy or row["job"] not in meta:
                    continue
                bound, end = float(row["bound_s"]), float(row["end_s"])
                runs.append(run_of(meta, row["job"], row["task"], bound, bound + start_latency, end,
                                   row["outcome"] == "done"))
    except (OSError, KeyError, ValueError) as e:
        die(f"{path}: not a dagsched-sim --pods-csv file ({e})")
    if not runs:
        die(f"{path}: no pod of policy {policy!r}")
    seen = {r["job"] for r in runs}
    return jobs_at(meta, lambda j: float(meta[j]["arrival"]) if j in seen else None), runs


def cmd_sim(a):
    meta = load_json(a.jobs)
    real = load_json(a.real).get("runs") or {}
    cap = sim_capacity(a.workload)
    out = {}
    for spec in a.run:
        name, rest = split_spec(spec, "NAME=PODS.csv:POLICY")
        path, _, policy = rest.rpartition(":")
        if not path or not policy:
            die(f"--run must be NAME=PODS.csv:POLICY (got {spec!r})")
        if name not in real:
            die(f"{a.real}: no run {name!r}")
        latency = max(parity_report.mean_of(real[name]["delays"], "start") or 0.0, 0.0)
        jobs, runs = sim_runs(meta, path, policy, latency)
        out[name] = fairness.figures(jobs, runs, cap, SAMPLE_STEP_S, PARTIAL_TOL_S)
    write_json(a.json, {"runs": out})
    return 0


def write_json(path, doc):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
    os.replace(tmp, path)


# ---------------------------------------------------------------- the table
def group(fig, g, key):
    return ((fig.get("groups") or {}).get(g) or {}).get(key)


def deadlines(fig):
    n = sum((v.get("deadline_jobs") or 0) for v in (fig.get("groups") or {}).values())
    met = sum((v.get("deadlines_met") or 0) for v in (fig.get("groups") or {}).values())
    return met, n


def rows_of(runs):
    """The table's rows for {run: figures}: one dict per run present, in RUNS order."""
    alone = group(runs.get("alone") or {}, LIGHT, "jct_mean")
    nofair_util = (runs.get("nofair") or {}).get("util_cpu")
    rows = []
    for name in RUNS:
        fig = runs.get(name)
        if fig is None:
            continue
        light = group(fig, LIGHT, "jct_mean")
        met, n = deadlines(fig)
        g = fig.get("gangs") or {}
        spreads = [x["start_spread"] for x in g.values() if x["start_spread"] is not None]
        rows.append({
            "run": name,
            "light_jct": light,
            "light_vs_alone": parity_report.ratio(light, alone),
            "flood_jct": group(fig, FLOOD, "jct_mean"),
            "gang_jct": group(fig, GANG, "jct_mean"),
            "deadlines_met": met,
            "deadline_jobs": n,
            "jain_mean": (fig.get("jain") or {}).get("mean"),
            "jain_min": (fig.get("jain") or {}).get("min"),
            "util_cpu": fig.get("util_cpu"),
            "util_vs_nofair": None if name == "alone" else parity_report.ratio(fig.get("util_cpu"), nofair_util),
            "makespan_s": fig.get("makespan_s"),
            "gangs": len(g),
            "gangs_partial": fig.get("gangs_partial"),
            "gang_hold_s": fig.get("gang_hold_s") if g else None,
            "gang_start_spread_max": max(spreads) if spreads else None,
        })
    return rows


def cell(v, kind="s"):
    if v is None:
        return "-"
    if kind == "x":
        return f"{v:.2f}x"
    if kind == "r":
        return f"{v:.3f}"
    if kind == "pct":
        return f"{100 * v:.1f} %"
    return f"{v:.1f}"


def render_rows(rows):
    head = ["run", "light JCT", "vs alone", "flood JCT", "gang JCT", "deadlines", "Jain mean",
            "Jain min", "util cpu", "vs off", "makespan", "gang hold", "partial", "start spread"]
    lines = [head]
    for r in rows:
        gangs = "-" if not r["gangs"] else f"{r['gangs_partial']}/{r['gangs']}"
        lines.append([RUN_LABEL[r["run"]], cell(r["light_jct"]), cell(r["light_vs_alone"], "x"),
                      cell(r["flood_jct"]), cell(r["gang_jct"]), f"{r['deadlines_met']}/{r['deadline_jobs']}",
                      cell(r["jain_mean"], "r"), cell(r["jain_min"], "r"), cell(r["util_cpu"], "pct"),
                      cell(r["util_vs_nofair"], "r"), cell(r["makespan_s"]), cell(r["gang_hold_s"]), gangs,
                      cell(r["gang_start_spread_max"])])
    widths = [max(len(x[i]) for x in lines) for i in range(len(head))]
    out = ["  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(x)).rstrip()
           for x in lines]
    out.insert(1, "-" * len(out[0]))
    return out


AGREEMENT = (("light_jct", "light mean JCT"), ("flood_jct", "flood mean JCT"), ("gang_jct", "gang jobs' mean JCT"),
             ("deadlines_met", "deadlines met"), ("makespan_s", "makespan"), ("util_cpu", "cpu utilisation"),
             ("jain_mean", "Jain's index, mean"))


def agreement_rows(real_rows, sim_rows, num="fair", den="default"):
    """Per figure: the ratio num/den on the cluster and in the simulator, and their agreement."""
    r = {x["run"]: x for x in real_rows}
    s = {x["run"]: x for x in sim_rows}
    out = []
    for key, label in AGREEMENT:
        rr = parity_report.ratio((r.get(num) or {}).get(key), (r.get(den) or {}).get(key))
        sr = parity_report.ratio((s.get(num) or {}).get(key), (s.get(den) or {}).get(key))
        out.append({"metric": key, "label": label, "real_ratio": rr, "sim_ratio": sr,
                    "agreement": parity_report.agreement(sr, rr)})
    return out


def cmd_table(a):
    real = load_json(a.real).get("runs") or {}
    real_rows = rows_of(real)
    out = ["on the cluster (seconds; JCT = last task end - the job's first Job created):"]
    out += render_rows(real_rows)
    doc = {"real": real_rows, "meta": dict(m.partition("=")[::2] for m in a.meta)}
    if a.sim:
        sim_rows = rows_of(load_json(a.sim).get("runs") or {})
        doc["sim"] = sim_rows
        out += ["", "in bin/dagsched-sim (same workload, nodes and measured delays):"]
        out += render_rows(sim_rows)
        agr = agreement_rows(real_rows, sim_rows)
        doc["agreement"] = agr
        out += ["", "ratios fairness on / default scheduler: cluster, simulator, |sim/real - 1|"]
        w = max(len(x["label"]) for x in agr)
        for x in agr:
            out.append(f"  {x['label'].ljust(w)}  {cell(x['real_ratio'], 'r'):>7}  {cell(x['sim_ratio'], 'r'):>7}  "
                       f"{cell(x['agreement'], 'pct'):>8}")
        light = [parity_report.ratio(next((r["light_vs_alone"] for r in rows if r["run"] == "fair"), None), 1.0)
                 for rows in (real_rows, sim_rows)]
        out.append(f"  {'light JCT / alone'.ljust(w)}  {cell(light[0], 'r'):>7}  {cell(light[1], 'r'):>7}  "
                   f"{cell(parity_report.agreement(light[1], light[0]), 'pct'):>8}  (fairness on)")
    out += ["", f"Jain's index: of the dominant shares of the tenants with a job in the system, computed "
            f"afterwards from the pods' binding and end times every {SAMPLE_STEP_S:.0f} s (samples with two "
            f"tenants or more); util cpu: cpu requests held (binding to end) over the cluster's cpu, first "
            f"arrival to last end; gang hold: member-seconds a gang member held room while a sibling was "
            f"not bound; partial: gangs a member of which started more than {PARTIAL_TOL_S:.0f} s before a "
            f"sibling was bound (start spread: the largest spread of a gang's members' starts)"]
    print("\n".join(out))
    if a.json:
        write_json(a.json, doc)
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sp = ap.add_subparsers(dest="cmd", required=True)
    c = sp.add_parser("cluster")
    c.add_argument("--jobs", required=True)
    c.add_argument("--workload", nargs="+", required=True)
    c.add_argument("--run", action="append", required=True)
    c.add_argument("--json", required=True)
    s = sp.add_parser("sim-args")
    s.add_argument("--real", required=True)
    s.add_argument("--run", required=True)
    m = sp.add_parser("sim")
    m.add_argument("--jobs", required=True)
    m.add_argument("--workload", required=True)
    m.add_argument("--real", required=True)
    m.add_argument("--run", action="append", required=True)
    m.add_argument("--json", required=True)
    t = sp.add_parser("table")
    t.add_argument("--real", required=True)
    t.add_argument("--sim")
    t.add_argument("--meta", action="append", default=[])
    t.add_argument("--json")
    a = ap.parse_args(argv)
    return {"cluster": cmd_cluster, "sim-args": cmd_sim_args, "sim": cmd_sim, "table": cmd_table}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
