"""metrics.py: what happened to DAG jobs in a cluster, computed from what the API server recorded.

Input: the JSON lists that `kubectl get pods|jobs|events|nodes -o json` print for the namespace of
the workload (nodes: the whole cluster). Output: per DAG job (pods labelled dagsched.io/job), its
tasks (dagsched.io/task) with where and when each attempt ran, the makespan, the deadline and
whether it was met, the evictions and any dependency violation. Pure functions, no I/O besides
reading the files given; used by summary.py (the demo's progress table and final report) and
tested on recorded runs in tests/demo/.

Definitions (docs/demo.md repeats them):
- submitted: the earliest creation time of any object of the job (its batch/v1 Jobs and pods).
- task start / end: of the pod that succeeded: its container's startedAt (else status.startTime) and
  its container's finishedAt (else the time its Ready condition turned False at completion).
- makespan: the last task end minus submitted.
- deadline: dagsched.io/deadline (absolute), or dagsched.io/deadline-after counted from submitted.
- evictions: pods of the job named by a "DagschedEvicted" Event (the dagsched controller evicted
  it) or a "Preempted" Event (kube-scheduler's own preemption).
- attempts: every pod created for the task (live pods, and deleted ones named by the Job
  controller's "Created pod: NAME" Events); where each ran comes from kube-scheduler's
  "Successfully assigned NS/NAME to NODE" Events or the pod's spec.nodeName.
- dependency violation: an attempt of a task that was bound to a node before one of its upstream
  tasks had succeeded (bound before the upstream's recorded end, or while it had not ended).
"""

import datetime
import json
import re

MAX_JSON_BYTES = 512 * 1024 * 1024
MAX_ITEMS = 1000000

LABEL_JOB = "dagsched.io/job"
LABEL_TASK = "dagsched.io/task"
ANN_DEPENDS_ON = "dagsched.io/depends-on"
ANN_DEADLINE = "dagsched.io/deadline"
ANN_DEADLINE_AFTER = "dagsched.io/deadline-after"
ANN_RUNTIME = "dagsched.io/runtime"
LABEL_SPEED = "dagsched.io/speed"
GATE = "dagsched.io/dependencies"
EVICTION_REASONS = ("DagschedEvicted", "Preempted")

_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$"
)
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_ASSIGNED = re.compile(r"^Successfully assigned (\S+)/(\S+) to (\S+)$")
_CREATED = re.compile(r"^Created pod: (\S+)$")


class MetricsError(Exception):
    """Input that cannot be analysed; the message names the file or field."""


def parse_time(s):
    """RFC 3339 time -> seconds since the epoch (float); None for None/empty."""
    if s is None or s == "":
        return None
    if not isinstance(s, str) or len(s) > 64:
        raise MetricsError(f"timestamp {s!r}: not an RFC 3339 string")
    m = _RFC3339.match(s)
    if not m:
        raise MetricsError(f"timestamp {s!r}: expected YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM)")
    y, mo, d, h, mi, sec = (int(x) for x in m.group(1, 2, 3, 4, 5, 6))
    frac = float(m.group(7)) if m.group(7) else 0.0
    tz = m.group(8)
    try:
        dt = datetime.datetime(y, mo, d, h, mi, sec, tzinfo=datetime.timezone.utc)
    except ValueError as e:
        raise MetricsError(f"timestamp {s!r}: {e}") from None
    t = dt.timestamp() + frac
    if tz not in ("Z", "z"):
        sign = 1 if tz[0] == "+" else -1
        t -= sign * (int(tz[1:3]) * 3600 + int(tz[4:6]) * 60)
    return t


def parse_duration(s):
    """Go duration ("90s", "1m30s", "250ms", "0") -> seconds."""
    if not isinstance(s, str) or len(s) > 64:
        raise MetricsError(f"duration {s!r}: not a string of at most 64 characters")
    if s == "0":
        return 0.0
    pos = 0
    total = 0.0
    for m in _DURATION_PART.finditer(s):
        if m.start() != pos:
            break
        total += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if pos != len(s) or pos == 0:
        raise MetricsError(f"duration {s!r}: not a Go duration such as 30s, 1m30s or 250ms")
    return total


def load_list(path):
    """Items of a `kubectl get ... -o json` answer stored in a file (a List or a single object)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_JSON_BYTES + 1)
    except OSError as e:
        raise MetricsError(f"{path}: cannot read: {e.strerror}") from None
    if len(data) > MAX_JSON_BYTES:
        raise MetricsError(f"{path}: larger than {MAX_JSON_BYTES} bytes")
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError) as e:
        raise MetricsError(f"{path}: not JSON: {e}") from None
    return items_of(doc, path)


def items_of(doc, what):
    if not isinstance(doc, dict):
        raise MetricsError(f"{what}: expected a JSON object")
    if "items" in doc:
        items = doc["items"]
        if not isinstance(items, list):
            raise MetricsError(f"{what}: items: expected a list")
    else:
        items = [doc] if doc.get("kind") else []
    if len(items) > MAX_ITEMS:
        raise MetricsError(f"{what}: more than {MAX_ITEMS} items")
    return [i for i in items if isinstance(i, dict)]


def _meta(o):
    m = o.get("metadata")
    return m if isinstance(m, dict) else {}


def _labels(meta):
    v = meta.get("labels")
    return v if isinstance(v, dict) else {}


def _annotations(meta):
    v = meta.get("annotations")
    return v if isinstance(v, dict) else {}


def _job_template_meta(job):
    t = (job.get("spec") or {}).get("template") or {}
    m = t.get("metadata")
    return m if isinstance(m, dict) else {}


def event_time(e):
    """The time an Event happened: eventTime (microseconds), else lastTimestamp/firstTimestamp."""
    for k in ("eventTime", "lastTimestamp", "firstTimestamp"):
        t = parse_time(e.get(k))
        if t is not None:
            return t
    return parse_time(_meta(e).get("creationTimestamp"))


def pod_finish(pod):
    """End of a finished pod's run, or None."""
    st = pod.get("status") or {}
    ends = []
    for cs in st.get("containerStatuses") or []:
        term = ((cs or {}).get("state") or {}).get("terminated")
        if term and term.get("finishedAt"):
            ends.append(parse_time(term["finishedAt"]))
    if ends:
        return max(ends)
    if st.get("phase") in ("Succeeded", "Failed"):
        for c in st.get("conditions") or []:
            if c.get("type") == "Ready" and c.get("reason") == "PodCompleted":
                return parse_time(c.get("lastTransitionTime"))
    return None


def pod_start(pod):
    """Start of a pod's run (container startedAt, else status.startTime), or None."""
    st = pod.get("status") or {}
    starts = []
    for cs in st.get("containerStatuses") or []:
        state = (cs or {}).get("state") or {}
        for k in ("running", "terminated"):
            if state.get(k) and state[k].get("startedAt"):
                starts.append(parse_time(state[k]["startedAt"]))
    if starts:
        return min(starts)
    return parse_time(st.get("startTime"))


def pod_bound_time(pod):
    for c in (pod.get("status") or {}).get("conditions") or []:
        if c.get("type") == "PodScheduled" and c.get("status") == "True":
            return parse_time(c.get("lastTransitionTime"))
    return None


def pod_state(pod):
    """succeeded | failed | running (bound) | held (scheduling gates) | pending."""
    st = pod.get("status") or {}
    phase = st.get("phase")
    if phase == "Succeeded":
        return "succeeded"
    if phase == "Failed":
        return "failed"
    spec = pod.get("spec") or {}
    if spec.get("nodeName"):
        return "running"
    if spec.get("schedulingGates"):
        return "held"
    return "pending"


class Attempt:
    """One pod created for a task."""

    def __init__(self, name):
        self.name = name
        self.uid = None
        self.exists = False
        self.created = None
        self.node = None
        self.bound = None
        self.start = None
        self.end = None
        self.state = "deleted"
        self.evicted = False
        self.eviction_message = None
        self.eviction_time = None
        self.annotations = {}

    def as_dict(self, t0):
        rel = (lambda t: None if t is None else round(t - t0, 3))
        return {
            "pod": self.name,
            "node": self.node,
            "state": self.state,
            "created": rel(self.created),
            "bound": rel(self.bound),
            "start": rel(self.start),
            "end": rel(self.end),
            "evicted": self.evicted,
            "evicted_at": rel(self.eviction_time),
            "eviction_message": self.eviction_message,
        }


def _speeds(nodes):
    out = {}
    for n in nodes:
        meta = _meta(n)
        name = meta.get("name")
        if not isinstance(name, str):
            continue
        v = _labels(meta).get(LABEL_SPEED)
        try:
            out[name] = float(v) if v is not None else 1.0
        except (TypeError, ValueError):
            out[name] = None
    return out


def _job_of_labels(labels):
    j, t = labels.get(LABEL_JOB), labels.get(LABEL_TASK)
    if isinstance(j, str) and isinstance(t, str) and j and t:
        return j, t
    return None


def analyze(pods, jobs, events, nodes, workload_tasks=None):
    """The run's metrics (see the module comment). workload_tasks: optional list of
    (job, task, depends_on, object_name) from the workload files, so that tasks without any object
    yet count as not created and dependencies are known even when no pod carries them."""
    speeds = _speeds(nodes)
    tasks = {}  # (job, task) -> dict
    job_objects = {}  # batch Job name -> (job, task)
    submitted = {}  # job -> earliest creation

    def task_entry(key):
        if key not in tasks:
            tasks[key] = {"job": key[0], "task": key[1], "depends_on": None, "attempts": {}, "ann": {}}
        return tasks[key]

    def note_created(job, t):
        if t is not None and (job not in submitted or t < submitted[job]):
            submitted[job] = t

    if workload_tasks:
        for job, task, deps, oname in workload_tasks:
            e = task_entry((job, task))
            e["depends_on"] = list(deps)
            if oname:
                job_objects.setdefault(oname, (job, task))

    for j in jobs:
        meta = _meta(j)
        key = _job_of_labels(_labels(_job_template_meta(j))) or _job_of_labels(_labels(meta))
        if key is None:
            continue
        name = meta.get("name")
        if isinstance(name, str):
            job_objects[name] = key
        e = task_entry(key)
        ann = _annotations(_job_template_meta(j))
        e["ann"] = {**ann, **e["ann"]}
        note_created(key[0], parse_time(meta.get("creationTimestamp")))

    pod_key = {}  # pod name -> (job, task)
    for p in pods:
        meta = _meta(p)
        key = _job_of_labels(_labels(meta))
        name = meta.get("name")
        if key is None or not isinstance(name, str):
            continue
        pod_key[name] = key
        e = task_entry(key)
        a = e["attempts"].setdefault(name, Attempt(name))
        a.exists = True
        a.uid = meta.get("uid")
        a.created = parse_time(meta.get("creationTimestamp"))
        a.node = (p.get("spec") or {}).get("nodeName") or None
        a.bound = pod_bound_time(p)
        a.start = pod_start(p)
        a.state = pod_state(p)
        if a.state in ("succeeded", "failed"):
            a.end = pod_finish(p)
        a.annotations = _annotations(meta)
        note_created(key[0], a.created)

    # Events: pods created by Jobs (also deleted ones), bindings, evictions.
    evs = sorted(events, key=lambda e: (event_time(e) or 0.0))
    for ev in evs:
        obj = ev.get("involvedObject") or ev.get("regarding") or {}
        reason = ev.get("reason")
        msg = ev.get("message") or ev.get("note") or ""
        if not isinstance(msg, str):
            continue
        if reason == "SuccessfulCreate" and obj.get("kind") == "Job":
            m = _CREATED.match(msg)
            key = job_objects.get(obj.get("name"))
            if m and key:
                pod_key.setdefault(m.group(1), key)
                a = task_entry(key)["attempts"].setdefault(m.group(1), Attempt(m.group(1)))
                if a.created is None:
                    a.created = event_time(ev)
    for ev in evs:
        obj = ev.get("involvedObject") or ev.get("regarding") or {}
        if obj.get("kind") != "Pod":
            continue
        key = pod_key.get(obj.get("name"))
        if key is None:
            continue
        a = tasks[key]["attempts"].setdefault(obj["name"], Attempt(obj["name"]))
        reason = ev.get("reason")
        msg = ev.get("message") or ev.get("note") or ""
        if reason == "Scheduled" and isinstance(msg, str):
            m = _ASSIGNED.match(msg)
            if m:
                t = event_time(ev)
                if a.node is None:
                    a.node = m.group(3)
                # A pod is bound once; the event has microseconds, the condition whole seconds.
                if t is not None:
                    a.bound = t
        elif reason in EVICTION_REASONS:
            if not a.evicted:
                a.evicted = True
                a.eviction_message = msg if isinstance(msg, str) else None
                a.eviction_time = event_time(ev)

    # Per-task dependencies and deadline annotations from the pods when the workload is not given.
    for key, e in tasks.items():
        for a in e["attempts"].values():
            for k in (ANN_DEPENDS_ON, ANN_DEADLINE, ANN_DEADLINE_AFTER, ANN_RUNTIME):
                if k in a.annotations and k not in e["ann"]:
                    e["ann"][k] = a.annotations[k]
        if e["depends_on"] is None:
            raw = e["ann"].get(ANN_DEPENDS_ON, "")
            e["depends_on"] = [x.strip(" \t") for x in str(raw).split(",") if x.strip(" \t")]

    t0 = min(submitted.values()) if submitted else 0.0
    result_jobs = {}
    for job in sorted({k[0] for k in tasks}):
        result_jobs[job] = _analyze_job(job, {k[1]: v for k, v in tasks.items() if k[0] == job},
                                        submitted.get(job), speeds, t0)
    totals = _totals(result_jobs, t0)
    return {"t0": t0, "jobs": result_jobs, "totals": totals, "speeds": speeds}


def _analyze_job(job, tasks, submitted, speeds, t0):
    errors = []
    out_tasks = {}
    ends = {}
    for name, e in tasks.items():
        attempts = sorted(e["attempts"].values(), key=lambda a: (a.created or 0.0, a.name))
        ok = [a for a in attempts if a.state == "succeeded"]
        final = ok[-1] if ok else None
        if final is not None:
            ends[name] = final.end
        live = [a for a in attempts if a.exists]
        if final is not None:
            state = "succeeded"
        elif any(a.state == "running" for a in live):
            state = "running"
        elif any(a.state in ("pending", "held") for a in live):
            state = "held" if all(a.state == "held" for a in live if a.state in ("pending", "held")) else "pending"
        elif any(a.state == "failed" for a in live):
            state = "failed"
        elif attempts:
            state = "pending"  # its pods were deleted and no new one is recorded yet
        else:
            state = "not-created"
        out_tasks[name] = {
            "state": state,
            "depends_on": e["depends_on"] or [],
            "node": final.node if final else None,
            "speed": speeds.get(final.node) if final and final.node else None,
            "start": None if not final or final.start is None else round(final.start - t0, 3),
            "end": None if not final or final.end is None else round(final.end - t0, 3),
            "attempts": [a.as_dict(t0) for a in attempts],
            "evictions": sum(1 for a in attempts if a.evicted),
        }
        for d in out_tasks[name]["depends_on"]:
            if d not in tasks:
                errors.append(f"task {name!r} depends on unknown task {d!r}")

    # Dependency violations: an attempt bound before an upstream task's end.
    violations = []
    for name, e in tasks.items():
        for d in out_tasks[name]["depends_on"]:
            up_end = ends.get(d)
            for a in e["attempts"].values():
                when = a.bound if a.bound is not None else a.start
                if when is None:
                    continue
                if up_end is None or when < up_end:
                    violations.append({
                        "task": name, "pod": a.name, "upstream": d,
                        "bound": round(when - t0, 3),
                        "upstream_end": None if up_end is None else round(up_end - t0, 3),
                    })

    # Tasks in DAG order: by level (1 + the highest level of their upstream tasks), then by name.
    levels = {}

    def level(n, depth=0):
        if n not in levels:
            if depth > len(tasks):
                return 1  # a cycle: reported by the scheduler, not here
            ups = [d for d in out_tasks[n]["depends_on"] if d in out_tasks]
            levels[n] = 1 + max((level(d, depth + 1) for d in ups), default=0)
        return levels[n]

    for n in out_tasks:
        out_tasks[n]["level"] = level(n)
    out_tasks = dict(sorted(out_tasks.items(), key=lambda kv: (kv[1]["level"], kv[0])))

    complete = bool(tasks) and all(t["state"] == "succeeded" for t in out_tasks.values())
    finished = max(ends.values()) if complete and all(v is not None for v in ends.values()) else None
    deadline, derr = _deadline(tasks, submitted)
    if derr:
        errors.append(derr)
    res = {
        "tasks": out_tasks,
        "n_tasks": len(tasks),
        "n_succeeded": sum(1 for t in out_tasks.values() if t["state"] == "succeeded"),
        "complete": complete,
        "submitted": None if submitted is None else round(submitted - t0, 3),
        "finished": None if finished is None else round(finished - t0, 3),
        "makespan": None if finished is None or submitted is None else round(finished - submitted, 3),
        "deadline": None if deadline is None else round(deadline - t0, 3),
        "deadline_met": None,
        "deadline_margin": None,
        "evictions": sum(t["evictions"] for t in out_tasks.values()),
        "violations": violations,
        "errors": errors,
    }
    if deadline is not None and finished is not None:
        res["deadline_met"] = finished <= deadline
        res["deadline_margin"] = round(deadline - finished, 3)
    return res


def _deadline(tasks, submitted):
    """(absolute deadline or None, error or None) from the tasks' annotations."""
    found = []
    for name, e in tasks.items():
        ann = e["ann"]
        if ANN_DEADLINE in ann and ANN_DEADLINE_AFTER in ann:
            return None, f"task {name!r}: annotations {ANN_DEADLINE} and {ANN_DEADLINE_AFTER} are both set"
        try:
            if ANN_DEADLINE in ann:
                found.append((name, parse_time(str(ann[ANN_DEADLINE]))))
            elif ANN_DEADLINE_AFTER in ann:
                if submitted is None:
                    continue
                found.append((name, submitted + parse_duration(str(ann[ANN_DEADLINE_AFTER]))))
        except MetricsError as err:
            return None, f"task {name!r}: {err}"
    if not found:
        return None, None
    first = found[0]
    for name, t in found[1:]:
        if abs(t - first[1]) > 0.001:
            return None, f"conflicting deadlines: tasks {first[0]!r} and {name!r}"
    return first[1], None


def _totals(jobs, t0):
    finished = [j["finished"] for j in jobs.values() if j["finished"] is not None]
    with_deadline = [j for j in jobs.values() if j["deadline"] is not None]
    return {
        "jobs": len(jobs),
        "complete": sum(1 for j in jobs.values() if j["complete"]),
        "tasks": sum(j["n_tasks"] for j in jobs.values()),
        "succeeded": sum(j["n_succeeded"] for j in jobs.values()),
        "deadlines": len(with_deadline),
        "deadlines_met": sum(1 for j in with_deadline if j["deadline_met"]),
        "evictions": sum(j["evictions"] for j in jobs.values()),
        "violations": sum(len(j["violations"]) for j in jobs.values()),
        "makespan": round(max(finished), 3) if finished and all(j["complete"] for j in jobs.values()) else None,
    }


def progress(pods, events, workload_tasks):
    """Live counts per job for the progress table: {job: {done, running, waiting, total, evictions}}.
    A task is done when a pod of it succeeded, running when one is bound, waiting otherwise
    (pending, held by the gate, or not created yet)."""
    obj_key = {o: (j, t) for j, t, _, o in workload_tasks if o}
    rows = {}
    keys = set()
    for j, t, _, _ in workload_tasks:
        rows.setdefault(j, {"done": 0, "running": 0, "waiting": 0, "total": 0, "evictions": 0})
        keys.add((j, t))
    best = {}
    rank = {"succeeded": 3, "running": 2, "failed": 1, "pending": 0, "held": 0}
    pod_key = {}
    for p in pods:
        meta = _meta(p)
        key = _job_of_labels(_labels(meta))
        if key is None or key not in keys:
            continue
        pod_key[meta.get("name")] = key
        s = pod_state(p)
        if key not in best or rank[s] > rank[best[key]]:
            best[key] = s
    for ev in events:
        obj = ev.get("involvedObject") or {}
        if ev.get("reason") == "SuccessfulCreate" and obj.get("kind") == "Job":
            m = _CREATED.match(ev.get("message") or "")
            if m and obj.get("name") in obj_key:
                pod_key.setdefault(m.group(1), obj_key[obj["name"]])
    seen = set()
    for ev in events:
        obj = ev.get("involvedObject") or {}
        if ev.get("reason") in EVICTION_REASONS and obj.get("kind") == "Pod":
            key = pod_key.get(obj.get("name"))
            if key and obj.get("name") not in seen:
                seen.add(obj.get("name"))
                rows[key[0]]["evictions"] += 1
    for key in keys:
        r = rows[key[0]]
        r["total"] += 1
        s = best.get(key)
        if s == "succeeded":
            r["done"] += 1
        elif s == "running":
            r["running"] += 1
        else:
            r["waiting"] += 1
    return rows
