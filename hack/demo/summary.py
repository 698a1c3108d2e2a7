#!/usr/bin/env python3
"""summary.py: the demo's live progress table, its final side-by-side report and its checks.

  summary.py watch  --run NAME=CLUSTER_DIR ... --namespace NS --workload FILE... [--interval S]
                    [--timeout S] [--pid NAME=PID ...] [--plain]
      Every few seconds reads the pods and events of each run's cluster (kubectl of the local
      cluster in CLUSTER_DIR) and shows one table: per job, tasks done/running/waiting and
      evictions, for each run side by side. On a terminal the table is redrawn in place; with
      --plain (or when stdout is not a terminal) it is printed as a new block every 10 s.
      Ends when every task of every run has succeeded (0), at --timeout (3), or when a process
      given by --pid exits (4).

  summary.py report --run NAME=DIR ... [--workload FILE...] [--json OUT] [--all-tasks]
      DIR holds pods.json, jobs.json, events.json and nodes.json (kubectl get ... -o json). Prints
      per job the makespan, the deadline (met, or missed by how much), evictions and where each
      task ran, runs side by side, then totals; --json writes the full analysis.

  summary.py check --json RESULTS [--complete RUN] [--no-violations RUN] [--deadline-met RUN:JOB]
                   [--deadline-missed RUN:JOB] [--no-evictions RUN]
      Asserts claims on a report's JSON; prints each claim with the numbers; exit 1 if one fails.

Python 3 with PyYAML only (metrics.py, workload.py).
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import metrics  # noqa: E402
import workload  # noqa: E402


def die(msg, code=2):
    print(f"summary: {msg}", file=sys.stderr)
    sys.exit(code)


def parse_pairs(values, what, sep="="):
    out = []
    for v in values or []:
        if sep not in v:
            die(f"{what} must be NAME{sep}VALUE (got {v!r})")
        k, _, rest = v.partition(sep)
        if not k or not rest:
            die(f"{what} must be NAME{sep}VALUE (got {v!r})")
        out.append((k, rest))
    return out


def workload_tasks(files):
    if not files:
        return None
    try:
        tasks, _ = workload.load(files)
    except workload.WorkloadError as e:
        die(str(e))
    return [(t.job, t.name, t.depends_on, t.object_name if t.kind == "Job" else None) for t in tasks]


# ---------------------------------------------------------------- formatting helpers

def fmt_s(v):
    return "-" if v is None else f"{v:.0f}s"


def fmt_deadline(j):
    if j["deadline"] is None:
        return "-"
    if j["deadline_met"] is None:
        return "not finished"
    m = j["deadline_margin"]
    if j["deadline_met"]:
        return f"met, {m:.0f}s to spare"
    return f"MISSED by {-m:.0f}s"


def fmt_speed(s):
    if s is None:
        return "?"
    return f"{s:g}x"


def fmt_where(t, speeds):
    """'cpu-fast-1 (2x) 3-13s', with earlier attempts first: 'cpu-slow-1 evicted > ...'."""
    parts = []
    for a in t["attempts"]:
        if a["state"] == "succeeded":
            continue
        if a["node"]:
            parts.append(f"{a['node']} {'evicted' if a['evicted'] else a['state']}")
    if t["node"]:
        span = ""
        if t["start"] is not None and t["end"] is not None:
            span = f" {t['start']:.0f}-{t['end']:.0f}s"
        parts.append(f"{t['node']} ({fmt_speed(speeds.get(t['node']))}){span}")
    elif not parts:
        parts.append(t["state"])
    return " > ".join(parts)


def table(rows, widths, sep="  "):
    lines = []
    for r in rows:
        cells = []
        for i, c in enumerate(r):
            w = widths[i] if i < len(widths) else 0
            cells.append(str(c).ljust(w) if i < len(r) - 1 else str(c))
        lines.append(sep.join(cells).rstrip())
    return lines


def col_widths(rows):
    n = max(len(r) for r in rows)
    return [max(len(str(r[i])) for r in rows if i < len(r)) for i in range(n)]


# ---------------------------------------------------------------- report

def build_report(runs, all_tasks=False):
    """Text of the side-by-side report; runs is a list of (name, analysis)."""
    names = [n for n, _ in runs]
    jobs = []
    for _, a in runs:
        for j in a["jobs"]:
            if j not in jobs:
                jobs.append(j)
    # Deadline jobs first (the interesting ones), then the others, each by name.
    ref = runs[0][1]["jobs"]
    jobs.sort(key=lambda j: (ref.get(j, {}).get("deadline") is None, j))
    out = []
    out.append("Times are seconds from the workload's submission. makespan: from the job's first object")
    out.append("created to its last task's end; a deadline is met when the last task ends by it.")
    out.append("")
    rows = [[""] + names]
    for j in jobs:
        first = next((a["jobs"][j] for _, a in runs if j in a["jobs"]), None)
        what = (f"{first['n_tasks']} task" + ("s" if first["n_tasks"] != 1 else "")) if first else "?"
        if first and first["deadline"] is not None and first["submitted"] is not None:
            what += f", deadline {first['deadline'] - first['submitted']:.0f}s after submission"
        else:
            what += ", no deadline"
        rows.append([f"{j} ({what})"])
        per = [a["jobs"].get(j) for _, a in runs]
        rows.append(["  makespan"] + [
            "-" if r is None else (fmt_s(r["makespan"]) if r["complete"] else f"{r['n_succeeded']}/{r['n_tasks']} tasks done")
            for r in per])
        if first and first["deadline"] is not None:
            rows.append(["  deadline"] + ["-" if r is None else fmt_deadline(r) for r in per])
        rows.append(["  evictions"] + ["-" if r is None else str(r["evictions"]) for r in per])
    tots = [a["totals"] for _, a in runs]
    rows.append([f"all jobs ({tots[0]['tasks']} tasks)"])
    rows.append(["  jobs completed"] + [f"{t['complete']}/{t['jobs']}" for t in tots])
    rows.append(["  deadlines met"] + [f"{t['deadlines_met']}/{t['deadlines']}" for t in tots])
    rows.append(["  evictions"] + [str(t["evictions"]) for t in tots])
    rows.append(["  dependency violations"] + [str(t["violations"]) for t in tots])
    rows.append(["  last task ended"] + [fmt_s(t["makespan"]) for t in tots])
    widths = col_widths([r for r in rows if len(r) > 1])
    for r in rows:
        if len(r) == 1:
            out.append(r[0])
        else:
            out += table([r], widths, sep="   ")

    # Where each task ran.
    out.append("")
    out.append("Where each task ran (node (speed) start-end; earlier attempts first):")
    for j in jobs:
        per_run = [a["jobs"].get(j) for _, a in runs]
        task_names = []
        for r in per_run:
            for t in (r or {}).get("tasks", {}):
                if t not in task_names:
                    task_names.append(t)
        if len(task_names) > 12 and not all_tasks:
            out.append(f"  {j} ({len(task_names)} tasks): tasks per node")
            for (n, a), r in zip(runs, per_run):
                counts = {}
                for t in (r or {}).get("tasks", {}).values():
                    if t["node"]:
                        counts[t["node"]] = counts.get(t["node"], 0) + 1
                nodes = ", ".join(f"{k} ({fmt_speed(a['speeds'].get(k))}) {v}" for k, v in sorted(counts.items()))
                out.append(f"    {n}: {nodes or '-'}")
            continue
        out.append(f"  {j}")
        rows = [["    task"] + names]
        for tn in task_names:
            row = [f"    {tn}"]
            for (n, a), r in zip(runs, per_run):
                t = (r or {}).get("tasks", {}).get(tn)
                row.append(fmt_where(t, a["speeds"]) if t else "-")
            rows.append(row)
        out += table(rows, col_widths(rows))

    # Evictions and violations, per run.
    for n, a in runs:
        evs = []
        for j, r in a["jobs"].items():
            for tn, t in r["tasks"].items():
                for at in t["attempts"]:
                    if at["evicted"]:
                        evs.append((at["evicted_at"] if at["evicted_at"] is not None else at["bound"] or 0, j, tn, at))
        if evs:
            out.append("")
            out.append(f"Evictions under {n}:")
            for _, j, tn, at in sorted(evs, key=lambda x: x[0]):
                # The first clause says where, for whom and why; the rest (priorities) is in the Event.
                msg = (at["eviction_message"] or "").strip().split("; ")[0]
                if len(msg) > 200:
                    msg = msg[:197] + "..."
                when = "" if at["evicted_at"] is None else f"{at['evicted_at']:.0f}s "
                out.append(f"  {when}{j}/{tn} on {at['node'] or '?'}: {msg}")
        vs = [(j, v) for j, r in a["jobs"].items() for v in r["violations"]]
        if vs:
            out.append("")
            out.append(f"Dependency violations under {n} (a task bound to a node before an upstream task ended):")
            for j, v in vs:
                ue = "never" if v["upstream_end"] is None else f"at {v['upstream_end']:.0f}s"
                out.append(f"  {j}/{v['task']} (pod {v['pod']}) bound at {v['bound']:.0f}s; upstream {v['upstream']} ended {ue}")
        errs = [(j, e) for j, r in a["jobs"].items() for e in r["errors"]]
        for j, e in errs:
            out.append(f"warning: {n}: job {j}: {e}")
    return "\n".join(out)


def load_run(d):
    files = {}
    for k in ("pods", "jobs", "events", "nodes"):
        files[k] = metrics.load_list(os.path.join(d, f"{k}.json"))
    return files


def cmd_report(a):
    wt = workload_tasks(a.workload)
    runs = []
    for name, d in parse_pairs(a.run, "--run"):
        try:
            f = load_run(d)
            runs.append((name, metrics.analyze(f["pods"], f["jobs"], f["events"], f["nodes"], wt)))
        except metrics.MetricsError as e:
            die(f"run {name}: {e}")
    if not runs:
        die("give at least one --run NAME=DIR")
    print(build_report(runs, a.all_tasks))
    if a.json:
        tmp = a.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"runs": {n: r for n, r in runs}, "order": [n for n, _ in runs]}, f, indent=1, sort_keys=True)
        os.replace(tmp, a.json)
    return 0


# ---------------------------------------------------------------- check

def cmd_check(a):
    try:
        with open(a.json) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        die(f"{a.json}: {e}")
    runs = data.get("runs") or {}
    failures = 0

    def claim(ok, text):
        nonlocal failures
        print(f"{'PASS' if ok else 'FAIL'}  {text}")
        if not ok:
            failures += 1

    def run_of(name):
        if name not in runs:
            die(f"no run {name!r} in {a.json} (runs: {', '.join(sorted(runs))})")
        return runs[name]

    for rn in a.complete or []:
        t = run_of(rn)["totals"]
        claim(t["complete"] == t["jobs"] and t["jobs"] > 0,
              f"{rn}: every job completed ({t['complete']}/{t['jobs']} jobs, {t['succeeded']}/{t['tasks']} tasks)")
    for rn in a.no_violations or []:
        t = run_of(rn)["totals"]
        claim(t["violations"] == 0, f"{rn}: no dependency violation ({t['violations']})")
    for rn in a.no_evictions or []:
        t = run_of(rn)["totals"]
        claim(t["evictions"] == 0, f"{rn}: no eviction ({t['evictions']})")
    for spec, want in [(s, True) for s in a.deadline_met or []] + [(s, False) for s in a.deadline_missed or []]:
        rn, _, jn = spec.partition(":")
        if not jn:
            die(f"expected RUN:JOB (got {spec!r})")
        j = run_of(rn)["jobs"].get(jn)
        if j is None:
            claim(False, f"{rn}: job {jn} exists")
            continue
        word = "met" if want else "missed"
        claim(j["deadline_met"] is want,
              f"{rn}: job {jn} deadline {word} (finished {fmt_s(j['finished'])}, deadline {fmt_s(j['deadline'])})")
    return 1 if failures else 0


# ---------------------------------------------------------------- watch

class RunWatch:
    def __init__(self, name, cluster_dir, namespace):
        self.name = name
        self.kubectl = os.path.join(cluster_dir, "bin", "kubectl")
        self.kubeconfig = os.path.join(cluster_dir, "kubeconfig")
        self.namespace = namespace
        self.rows = None
        self.deadlines = {}
        self.error = None
        self.done_at = None

    def poll(self, wt):
        try:
            p = subprocess.run(
                [self.kubectl, "--kubeconfig", self.kubeconfig, "-n", self.namespace, "get", "pods,events",
                 "-o", "json", "--request-timeout=10s"],
                capture_output=True, timeout=20)
        except (OSError, subprocess.TimeoutExpired) as e:
            self.error = str(e)
            return
        if p.returncode != 0:
            self.error = p.stderr.decode("utf-8", "replace").strip()[:200]
            return
        try:
            items = metrics.items_of(json.loads(p.stdout), "kubectl get pods,events")
        except (ValueError, metrics.MetricsError) as e:
            self.error = str(e)
            return
        pods = [i for i in items if i.get("kind") == "Pod"]
        events = [i for i in items if i.get("kind") == "Event"]
        try:
            self.rows = metrics.progress(pods, events, wt)
            self.deadlines = deadline_cells(metrics.analyze(pods, [], events, [], wt), time.time())
        except metrics.MetricsError as e:
            self.error = str(e)
            return
        self.error = None

    def finished(self):
        return self.rows is not None and all(r["done"] == r["total"] for r in self.rows.values())


def deadline_cells(analysis, now):
    """Per job, the deadline column of the progress table: "in 35s", "late 5s", "met", "MISSED"
    or "" without a deadline."""
    out = {}
    for name, j in analysis["jobs"].items():
        if j["deadline"] is None:
            out[name] = ""
        elif j["deadline_met"] is not None:
            out[name] = "met" if j["deadline_met"] else "MISSED"
        else:
            left = analysis["t0"] + j["deadline"] - now
            out[name] = f"in {left:.0f}s" if left >= 0 else f"late {-left:.0f}s"
    return out


COLS = ["done", "run", "wait", "evict", "deadline"]


def render(watches, jobs, elapsed):
    """Lines of the progress table: a header naming each run above its columns."""
    nc = len(COLS)
    sub = ["job"] + COLS * len(watches)
    rows = [sub]
    for j in jobs:
        row = [j]
        for w in watches:
            r = (w.rows or {}).get(j)
            if r is None:
                row += ["?"] + [""] * (nc - 1)
            else:
                row += [f"{r['done']}/{r['total']}", str(r["running"]), str(r["waiting"]), str(r["evictions"]),
                        w.deadlines.get(j, "")]
        rows.append(row)
    widths = col_widths(rows)
    gap = "    "  # between runs
    # A run's name spans its columns; widen the last one when the name is longer.
    for i, w in enumerate(watches):
        c = 1 + nc * i
        span = sum(widths[c:c + nc]) + 2 * (nc - 1)
        if len(w.name) > span:
            widths[c + nc - 1] += len(w.name) - span

    def line(cells):
        out = cells[0].ljust(widths[0])
        for i in range(len(watches)):
            c = 1 + nc * i
            group = "  ".join(str(cells[c + k]).ljust(widths[c + k]) for k in range(nc))
            out += gap + group
        return out.rstrip()

    head = " " * widths[0]
    for i, w in enumerate(watches):
        c = 1 + nc * i
        span = sum(widths[c:c + nc]) + 2 * (nc - 1)
        head += gap + w.name.ljust(span)
    lines = [f"elapsed {elapsed:4.0f}s", head.rstrip()]
    lines += [line(r) for r in rows]
    for w in watches:
        if w.error:
            lines.append(f"{w.name}: cannot read the cluster: {w.error}")
        elif w.done_at is not None:
            lines.append(f"{w.name}: all tasks done after {w.done_at:.0f}s")
    return lines


def cmd_watch(a):
    wt = workload_tasks(a.workload)
    if not wt:
        die("--workload files with DAG tasks are required")
    watches = [RunWatch(n, d, a.namespace) for n, d in parse_pairs(a.run, "--run")]
    if not watches:
        die("give at least one --run NAME=CLUSTER_DIR")
    pids = []
    for n, p in parse_pairs(a.pid, "--pid"):
        if not p.isdigit():
            die(f"--pid {n}: not a process id (got {p!r})")
        pids.append((n, int(p)))
    status_files = parse_pairs(a.status_file, "--status-file")
    jobs = []
    for j, _, _, _ in wt:
        if j not in jobs:
            jobs.append(j)
    tty = sys.stdout.isatty() and not a.plain
    interval = a.interval
    print_every = interval if tty else max(interval, a.plain_interval)
    t0 = time.monotonic()
    last_print = -1e9
    drawn = 0
    while True:
        for w in watches:
            if w.done_at is None:
                w.poll(wt)
                if w.finished():
                    w.done_at = time.monotonic() - t0
        elapsed = time.monotonic() - t0
        all_done = all(w.done_at is not None for w in watches)
        if tty or elapsed - last_print >= print_every - 0.01 or all_done:
            lines = render(watches, jobs, elapsed)
            if tty:
                width = shutil.get_terminal_size((100, 24)).columns
                buf = ""
                if drawn:
                    buf += f"\x1b[{drawn}A\x1b[J"
                buf += "\n".join(ln[:width] for ln in lines) + "\n"
                sys.stdout.write(buf)
                drawn = len(lines)
            else:
                print("\n".join(lines) + "\n", flush=True)
            sys.stdout.flush()
            last_print = elapsed
        if all_done:
            return 0
        for n, pid in pids:
            if not pid_alive(pid):
                print(f"summary: {n} (pid {pid}) exited while the workload ran", file=sys.stderr)
                return 4
        for n, path in status_files:
            st = read_status(path)
            if st not in (None, "0"):
                print(f"summary: {n} ended with exit status {st} while the workload ran", file=sys.stderr)
                return 4
        if elapsed > a.timeout:
            print(f"summary: timeout: not every task finished within {a.timeout:.0f}s", file=sys.stderr)
            return 3
        time.sleep(max(0.0, interval - (time.monotonic() - t0 - elapsed)))


def read_status(path):
    """The exit status a process wrote to path, or None while the file does not exist."""
    try:
        with open(path) as f:
            return f.read(32).strip()
    except FileNotFoundError:
        return None
    except OSError as e:
        return f"unreadable ({e.strerror})"


def pid_alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            line = f.read(4096)
    except OSError:
        return False
    rest = line.rsplit(")", 1)[-1].split()
    return bool(rest) and rest[0] != "Z"


def main(argv):
    ap = argparse.ArgumentParser(description="dagsched demo: progress table, report and checks")
    sp = ap.add_subparsers(dest="cmd", required=True)

    w = sp.add_parser("watch")
    w.add_argument("--run", action="append", required=True)
    w.add_argument("--namespace", required=True)
    w.add_argument("--workload", nargs="+", required=True)
    w.add_argument("--interval", type=float, default=3.0)
    w.add_argument("--plain-interval", type=float, default=10.0)
    w.add_argument("--timeout", type=float, default=600.0)
    w.add_argument("--pid", action="append")
    w.add_argument("--status-file", action="append")
    w.add_argument("--plain", action="store_true")

    r = sp.add_parser("report")
    r.add_argument("--run", action="append", required=True)
    r.add_argument("--workload", nargs="*")
    r.add_argument("--json")
    r.add_argument("--all-tasks", action="store_true")

    c = sp.add_parser("check")
    c.add_argument("--json", required=True)
    c.add_argument("--complete", action="append")
    c.add_argument("--no-violations", action="append")
    c.add_argument("--no-evictions", action="append")
    c.add_argument("--deadline-met", action="append")
    c.add_argument("--deadline-missed", action="append")

    a = ap.parse_args(argv)
    if a.cmd == "watch":
        if not 0.5 <= a.interval <= 60 or not 0.5 <= a.plain_interval <= 600:
            die("--interval must be 0.5 to 60 s and --plain-interval 0.5 to 600 s")
        if not 1 <= a.timeout <= 86400:
            die(f"--timeout must be 1 to 86400 s (got {a.timeout})")
        return cmd_watch(a)
    if a.cmd == "report":
        return cmd_report(a)
    return cmd_check(a)


def on_term(signum, frame):
    raise SystemExit(128 + signum)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, on_term)
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
