#!/usr/bin/env python3
"""report.py: how far the ETA of `kubectl dagsched get jobs` was from when each job finished.

  report.py --samples SAMPLES.jsonl [--pods PODS.json] [--json OUT.json] [--markdown]

SAMPLES.jsonl is what bench/eta/sample.py recorded during a run; PODS.json the pods of the
workload's namespace after the run (`kubectl get pods -o json`). Each job's actual finish is its
last pod's end (its container's finishedAt; hack/demo/metrics.py) and its submission its first
pod's creation; without --pods both come from the samples (the last `finished` and the first
`created` the plugin gave). A job counts when every pod of it succeeded.

For a sample taken at t of a job that finished at F, with the ETA E:

  error            E - F: > 0 the ETA was late (the job finished before it), < 0 early
  remaining        F - t, the time the job still had to run
  relative error   |E - F| / (F - t)

at several points of the job's life (submitted at C, duration D = F - C): its first sample
(first seen, within a sampling interval of its submission), the last sample at or before C + 25,
50 and 75 % of D, and every sample taken while it ran. Per point: n (jobs; for every sample:
samples), those without an ETA (the plugin showed none, e.g. every task created so far had ended
while more were still to be created), |error| p50 and p90, relative error p50 and p90, the bias
(median and mean of E - F), the share of jobs that finished before their ETA, and the share of
ETAs given as lower bounds. Quantiles are nearest-rank: the
value at index min(n - 1, floor(q n)) of the sorted list. The same again for the samples where
the plugin already saw every task of the job (its `tasks` equals the job's final task count):
the ETA's own error, without the tasks a workflow engine had not created yet (its first row:
the first such sample, "first whole"). Then why the ETAs
that are lower bounds are (the plugin's notForecast), most frequent first. Python 3, standard
library only (and hack/demo/metrics.py for --pods).
"""

import argparse
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "hack", "demo"))
import metrics  # noqa: E402

POINTS = (("first seen", 0.0), ("25 %", 0.25), ("50 %", 0.50), ("75 %", 0.75))
ALL = "every sample"
FIRST_FULL = "first whole"  # the first sample where the plugin saw every task of the job
FINISHED = ("Succeeded",)


class ReportError(Exception):
    """Input that cannot be used; the message says which."""


def load_samples(path):
    """The samples of path, in time order; lines that do not parse are an error, failed samples
    (with "error") are skipped and counted."""
    out, failed = [], 0
    with open(path) as f:
        for i, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except ValueError as e:
                raise ReportError(f"{path}:{i}: not JSON: {e}") from None
            if not isinstance(rec, dict) or not isinstance(rec.get("t"), (int, float)):
                raise ReportError(f"{path}:{i}: no time t")
            if "error" in rec:
                failed += 1
                continue
            out.append(rec)
    out.sort(key=lambda r: r["t"])
    return out, failed


def truth_from_pods(pods):
    """{job: {"created", "finished", "tasks"}} of the jobs whose every pod succeeded."""
    jobs = {}
    for p in pods:
        meta = p.get("metadata") or {}
        labels = meta.get("labels") or {}
        job, task = labels.get(metrics.LABEL_JOB), labels.get(metrics.LABEL_TASK)
        if not job or not task:
            continue
        j = jobs.setdefault(job, {"created": None, "finished": None, "tasks": set(), "done": True})
        created = metrics.parse_time(meta.get("creationTimestamp"))
        if created is not None and (j["created"] is None or created < j["created"]):
            j["created"] = created
        end = metrics.pod_finish(p) if (p.get("status") or {}).get("phase") == "Succeeded" else None
        if end is None:
            j["done"] = False
        elif j["finished"] is None or end > j["finished"]:
            j["finished"] = end
        j["tasks"].add(task)
    return {
        k: {"created": j["created"], "finished": j["finished"], "tasks": len(j["tasks"])}
        for k, j in jobs.items()
        if j["done"] and j["created"] is not None and j["finished"] is not None
    }


def truth_from_samples(samples):
    """The same from the samples: the first `created`, and the last sample's `finished` and
    `tasks` where it shows the job finished."""
    jobs = {}
    for s in samples:
        for r in s.get("jobs") or []:
            j = jobs.setdefault(r["name"], {"created": None, "finished": None, "tasks": None})
            c = metrics.parse_time(r.get("created"))
            if c is not None and (j["created"] is None or c < j["created"]):
                j["created"] = c
            if r.get("status") in FINISHED and r.get("finished"):
                j["finished"] = metrics.parse_time(r["finished"])
                j["tasks"] = r.get("tasks")
            else:
                j["finished"] = None
    return {k: j for k, j in jobs.items() if j["created"] is not None and j["finished"] is not None}


def observations(samples, truth):
    """{job: [(t, eta or None, lower_bound, tasks)]}: every sample of a job taken before it
    finished (by the truth), in time order."""
    obs = {k: [] for k in truth}
    for s in samples:
        t = s["t"]
        for r in s.get("jobs") or []:
            tr = truth.get(r.get("name"))
            if tr is None or t >= tr["finished"]:
                continue
            eta = metrics.parse_time(r.get("eta"))
            obs[r["name"]].append((t, eta, bool(r.get("lowerBound")), r.get("tasks")))
    return obs


def at_point(obs, created, duration, frac):
    """The observation of a job at fraction frac of its life: its first one for 0, else the last
    one at or before created + frac * duration; None when there is none."""
    if not obs:
        return None
    if frac == 0:
        return obs[0]
    target = created + frac * duration
    last = None
    for o in obs:
        if o[0] > target:
            break
        last = o
    return last


def quantile(xs, q):
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else None


def summarize(rows):
    """rows: [(error or None, remaining, lower_bound)] -> the figures of one point."""
    with_eta = [(e, rem, lb) for e, rem, lb in rows if e is not None]
    errs = [e for e, _, _ in with_eta]
    absr = [abs(e) for e in errs]
    rel = [abs(e) / rem for e, rem, _ in with_eta if rem > 0]
    n = len(errs)
    return {
        "samples": len(rows),
        "no_eta": len(rows) - n,
        "n": n,
        "abs_p50_s": quantile(absr, 0.5),
        "abs_p90_s": quantile(absr, 0.9),
        "rel_p50": quantile(rel, 0.5),
        "rel_p90": quantile(rel, 0.9),
        "bias_p50_s": quantile(errs, 0.5),
        "bias_mean_s": sum(errs) / n if n else None,
        "before_eta": sum(1 for e in errs if e > 0) / n if n else None,
        "lower_bound": sum(1 for _, _, lb in with_eta if lb) / n if n else None,
    }


def analyse(samples, truth, full_only=False):
    """{point: figures} over every job of truth; full_only: only observations where the plugin
    saw every task of the job."""
    obs = observations(samples, truth)
    if full_only:
        obs = {k: [o for o in v if o[3] is not None and o[3] >= truth[k]["tasks"]] for k, v in obs.items()}
    out = {}
    for label, frac in POINTS:
        rows = []
        for k, tr in truth.items():
            o = at_point(obs[k], tr["created"], tr["finished"] - tr["created"], frac)
            if o is not None:
                rows.append((None if o[1] is None else o[1] - tr["finished"], tr["finished"] - o[0], o[2]))
        out[label] = summarize(rows)
    rows = [(None if o[1] is None else o[1] - truth[k]["finished"], truth[k]["finished"] - o[0], o[2])
            for k, v in obs.items() for o in v]
    out[ALL] = summarize(rows)
    return out


def not_forecast(samples, truth):
    """[(why, samples)]: why the ETAs that are lower bounds are (the plugin's notForecast without
    the task's name, numbers as N), most frequent first, over the samples of the jobs of truth
    before they finished."""
    n = {}
    for s in samples:
        for r in s.get("jobs") or []:
            tr = truth.get(r.get("name"))
            if tr is None or s["t"] >= tr["finished"] or not r.get("lowerBound") or not r.get("eta"):
                continue
            why = r.get("notForecast") or "?"
            why = why.split(": ", 1)[1] if ": " in why else why
            why = re.sub(r"\b\d+\b", "N", why)
            n[why] = n.get(why, 0) + 1
    return sorted(n.items(), key=lambda kv: (-kv[1], kv[0]))


def fmt(v, kind):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if kind == "s":
        return f"{v:.1f}"
    if kind == "signed":
        return f"{v:+.1f}"
    if kind == "%":
        return f"{100 * v:.0f} %"
    return str(v)


HEAD = ("point", "n", "no ETA", "|err| p50", "|err| p90", "rel p50", "rel p90", "bias p50", "bias mean",
        "before ETA", "lower bound")


def render(title, figures, first=None):
    rows = [HEAD]
    for label in [p for p, _ in POINTS] + [ALL]:
        f = figures[label]
        rows.append((first if first and label == POINTS[0][0] else label, str(f["samples"]), str(f["no_eta"]),
                     fmt(f["abs_p50_s"], "s"), fmt(f["abs_p90_s"], "s"), fmt(f["rel_p50"], "%"),
                     fmt(f["rel_p90"], "%"), fmt(f["bias_p50_s"], "signed"), fmt(f["bias_mean_s"], "signed"),
                     fmt(f["before_eta"], "%"), fmt(f["lower_bound"], "%")))
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEAD))]
    lines = [title]
    for r in rows:
        lines.append("  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r)))
    return "\n".join(lines)


def render_markdown(title, figures, first=None):
    """One table of the figures in Markdown, for the docs (first: the label of the first row)."""
    lines = [f"| {title} | n | no ETA | \\|error\\| p50 / p90 | relative p50 / p90 | bias p50 / mean "
             "| finished before the ETA | lower bounds |", "|---|--:|--:|--:|--:|--:|--:|--:|"]
    for label in [p for p, _ in POINTS] + [ALL]:
        f = figures[label]
        lines.append(f"| {first if first and label == POINTS[0][0] else label} | {f['samples']} | {f['no_eta']} | {fmt(f['abs_p50_s'], 's')} / "
                     f"{fmt(f['abs_p90_s'], 's')} s | {fmt(f['rel_p50'], '%')} / {fmt(f['rel_p90'], '%')} | "
                     f"{fmt(f['bias_p50_s'], 'signed')} / {fmt(f['bias_mean_s'], 'signed')} s | "
                     f"{fmt(f['before_eta'], '%')} | {fmt(f['lower_bound'], '%')} |")
    return "\n".join(lines)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", required=True)
    ap.add_argument("--pods", default="")
    ap.add_argument("--json", default="")
    ap.add_argument("--markdown", action="store_true", help="the two tables in Markdown")
    a = ap.parse_args(argv)
    try:
        samples, failed = load_samples(a.samples)
        truth = truth_from_pods(metrics.load_list(a.pods)) if a.pods else truth_from_samples(samples)
    except (OSError, ReportError, metrics.MetricsError) as e:
        print(f"eta report: {e}", file=sys.stderr)
        return 2
    if not samples or not truth:
        print(f"eta report: nothing to compare ({len(samples)} samples, {len(truth)} finished jobs)", file=sys.stderr)
        return 2
    every, full = analyse(samples, truth), analyse(samples, truth, full_only=True)
    if a.markdown:
        print(render_markdown("every sample of each job", every))
        print()
        print(render_markdown("where every task existed", full, first=FIRST_FULL))
        return 0
    took = sorted(s.get("took", 0) for s in samples)
    span = samples[-1]["t"] - samples[0]["t"]
    print(f"ETA error: {len(truth)} jobs, {len(samples)} samples over {span:.0f} s"
          f" ({failed} failed; the plugin took p50 {quantile(took, 0.5):.2f} s);"
          " error = ETA - actual finish, in seconds; rel = |error| / time the job still had to run;"
          " bias > 0: the ETA was late; before ETA: jobs that finished before their ETA")
    print(render("every sample of each job:", every))
    print(render("samples where the plugin saw every task of the job:", full, first=FIRST_FULL))
    whys = not_forecast(samples, truth)
    if whys:
        print("lower bounds, why the wait for room is not forecast:")
        for why, k in whys[:5]:
            print(f"  {k:5d}  {why}")
    if a.json:
        with open(a.json + ".tmp", "w") as f:
            json.dump({"jobs": len(truth), "samples": len(samples), "failed": failed, "every": every,
                       "full_dag": full, "not_forecast": whys}, f, indent=1, sort_keys=True)
        os.replace(a.json + ".tmp", a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
