"""fairness.py: the arithmetic of `make bench-fairness` (bench/fairness/report.py), pure functions
on pod runs, the same for a cluster run and a simulated one.

A run is a list of pod runs, each a dict:
  tenant, job, task    who it belongs to
  cpu, memory          its requests (cores, bytes)
  gang                 the gang its task belongs to (dagsched.io/gang), or None
  bound                when it was bound to a node: from then on it holds its node's room
  start                when it started running (None: never)
  end                  when it ended (None: it had not ended)
  succeeded            whether it ended successfully
and jobs is {job: {tenant, group, arrival, deadline (absolute, or None), tasks (how many)}}, where
a group is a set of jobs reported together (a tenant, or a kind of job within one); all times in
seconds on one clock.

Definitions:
  completion     of a job: the latest end among its succeeded runs, once each of its tasks has
                 one (None otherwise); JCT = completion - arrival; deadline met when completion
                 <= deadline
  dominant share of tenant t at time x: the largest, over cpu and memory, of the summed requests
                 of t's runs holding room at x (bound <= x < end) divided by the cluster's
                 allocatable of that kind (docs/model.md, "Fair share across tenants")
  Jain's index   of shares x_1..x_n: (sum x)^2 / (n * sum x^2), 1 when all are equal, 1/n when one
                 tenant holds everything; over the tenants active at the sample (a job arrived and
                 not completed), at samples with at least two active tenants and a share above 0
  utilisation    cpu: the summed cpu x seconds the runs held room within [t0, t1], over capacity
                 x (t1 - t0), where t0 is the first arrival and t1 the last end
  gang hold      for each gang (its members: the runs of the gang's tasks in one job, the first
                 run of each task): the seconds each member held room (bound, until its end)
                 while a sibling was not yet bound, summed over members: sum of
                 max(0, min(end_m, last bound) - bound_m)
  partial start  a gang started partially when a member started running more than `tol`
                 seconds before a sibling was bound (the timestamps' resolution); the start
                 spread is the last member's start minus the first's
Python 3, standard library only.
"""


def job_outcomes(jobs, runs):
    """{job: {tenant, group, arrival, completion, jct, deadline, met}} (completion, jct and met
    None for a job not complete)."""
    done = {}
    for r in runs:
        if r["succeeded"] and r["end"] is not None:
            d = done.setdefault(r["job"], {})
            d[r["task"]] = max(d.get(r["task"], r["end"]), r["end"])
    out = {}
    for name, j in jobs.items():
        ends = done.get(name, {})
        completion = max(ends.values()) if ends and len(ends) >= j["tasks"] else None
        jct = None if completion is None else completion - j["arrival"]
        met = None
        if j.get("deadline") is not None:
            met = completion is not None and completion <= j["deadline"]
        out[name] = {"tenant": j["tenant"], "group": j.get("group", j["tenant"]), "arrival": j["arrival"], "completion": completion, "jct": jct,
                     "deadline": j.get("deadline"), "met": met}
    return out


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs) if xs else None


def summary(outcomes, key="tenant"):
    """{tenant (or group, with key "group"): {jobs, complete, jct_mean, deadline_jobs,
    deadlines_met}}; jct_mean None unless every job of it completed."""
    out = {}
    for o in outcomes.values():
        t = out.setdefault(o[key], {"jobs": 0, "complete": 0, "jcts": [], "deadline_jobs": 0,
                                         "deadlines_met": 0})
        t["jobs"] += 1
        if o["jct"] is not None:
            t["complete"] += 1
            t["jcts"].append(o["jct"])
        if o["deadline"] is not None:
            t["deadline_jobs"] += 1
            t["deadlines_met"] += bool(o["met"])
    for t in out.values():
        jcts = t.pop("jcts")
        t["jct_mean"] = mean(jcts) if t["complete"] == t["jobs"] else None
    return out


def jain(xs):
    """Jain's fairness index of the values xs, None when there are none or all are 0."""
    xs = list(xs)
    sq = sum(x * x for x in xs)
    if not xs or sq <= 0:
        return None
    return sum(xs) ** 2 / (len(xs) * sq)


def dominant_shares(runs, capacity, x):
    """{tenant: dominant share} at time x, of the tenants holding room then."""
    use = {}
    for r in runs:
        if r["bound"] is None or r["bound"] > x or (r["end"] is not None and r["end"] <= x):
            continue
        u = use.setdefault(r["tenant"], [0.0, 0.0])
        u[0] += r["cpu"]
        u[1] += r["memory"]
    return {t: max(u[0] / capacity["cpu"] if capacity["cpu"] > 0 else 0.0,
                   u[1] / capacity["memory"] if capacity["memory"] > 0 else 0.0)
            for t, u in use.items()}


def window(outcomes, runs):
    """(t0, t1): the first arrival and the last end of a run (t1 None when no run ended)."""
    t0 = min(o["arrival"] for o in outcomes.values())
    ends = [r["end"] for r in runs if r["end"] is not None]
    return t0, (max(ends) if ends else None)


def jain_over_time(outcomes, runs, capacity, step=1.0):
    """Samples every `step` seconds from the first arrival to the last end: (time, {tenant:
    share}, index) at each sample with at least two active tenants and a share above 0; and the
    mean and minimum index over them ({samples, mean, min}, the values None without samples)."""
    t0, t1 = window(outcomes, runs)
    samples = []
    if t1 is not None:
        k = 0
        while t0 + k * step <= t1:
            x = t0 + k * step
            k += 1
            active = {o["tenant"] for o in outcomes.values()
                      if o["arrival"] <= x and (o["completion"] is None or x < o["completion"])}
            if len(active) < 2:
                continue
            d = dominant_shares(runs, capacity, x)
            shares = {t: d.get(t, 0.0) for t in sorted(active)}
            j = jain(shares.values())
            if j is not None:
                samples.append((x, shares, j))
    idx = [s[2] for s in samples]
    return samples, {"samples": len(idx), "mean": mean(idx), "min": min(idx) if idx else None}


def cpu_utilisation(outcomes, runs, capacity):
    """Mean cpu utilisation over the run's window (see the module's text), None without one."""
    t0, t1 = window(outcomes, runs)
    if t1 is None or t1 <= t0 or capacity["cpu"] <= 0:
        return None
    held = 0.0
    for r in runs:
        if r["bound"] is None or r["end"] is None:
            continue
        lo, hi = max(r["bound"], t0), min(r["end"], t1)
        if hi > lo:
            held += r["cpu"] * (hi - lo)
    return held / (capacity["cpu"] * (t1 - t0))


def gangs(runs, tol=1.0):
    """{"job/gang": {members, bound_spread, start_spread, hold_s, partial}} for every gang of the
    runs (see the module's text); the first run of each member task counts."""
    groups = {}
    for r in runs:
        if not r.get("gang") or r["bound"] is None:
            continue
        g = groups.setdefault(f"{r['job']}/{r['gang']}", {})
        if r["task"] not in g or r["bound"] < g[r["task"]]["bound"]:
            g[r["task"]] = r
    out = {}
    for name, members in sorted(groups.items()):
        ms = list(members.values())
        last_bound = max(m["bound"] for m in ms)
        hold = 0.0
        for m in ms:
            until = last_bound if m["end"] is None else min(m["end"], last_bound)
            hold += max(0.0, until - m["bound"])
        starts = [m["start"] for m in ms if m["start"] is not None]
        out[name] = {
            "members": len(ms),
            "bound_spread": last_bound - min(m["bound"] for m in ms),
            "start_spread": (max(starts) - min(starts)) if starts else None,
            "hold_s": hold,
            "partial": bool(starts) and last_bound - min(starts) > tol,
        }
    return out


def figures(jobs, runs, capacity, step=1.0, tol=1.0):
    """Every figure of one run: per tenant and per group, Jain's index over time, cpu utilisation, makespan
    (last end - first arrival), gangs."""
    outcomes = job_outcomes(jobs, runs)
    t0, t1 = window(outcomes, runs)
    _, j = jain_over_time(outcomes, runs, capacity, step)
    g = gangs(runs, tol)
    return {
        "tenants": summary(outcomes, "tenant"),
        "groups": summary(outcomes, "group"),
        "jain": j,
        "util_cpu": cpu_utilisation(outcomes, runs, capacity),
        "makespan_s": None if t1 is None else t1 - t0,
        "gangs": g,
        "gang_hold_s": sum(x["hold_s"] for x in g.values()),
        "gangs_partial": sum(1 for x in g.values() if x["partial"]),
    }
