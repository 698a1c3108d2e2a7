"""workload.py: reads DAG workload manifests (the files in examples/) for the demo tools.

A workload file holds batch/v1 Jobs or v1 Pods, each one task of a DAG job: labels dagsched.io/job
and dagsched.io/task on the pod (template), upstream tasks in the annotation dagsched.io/depends-on
(docs/dag-jobs.md). Other documents (a Namespace, JobGraph ConfigMaps) are kept as they are.

This module parses and validates such files (bounded sizes, names, duplicate tasks, unknown
upstream tasks, cycles) and derives the copy a plain Kubernetes cluster runs: schedulerName
replaced, the scheduling gate dagsched.io/dependencies removed. Only PyYAML is needed.
"""

import copy
import re

import yaml

MAX_FILE_BYTES = 4 * 1024 * 1024
MAX_DOCUMENTS = 10000
MAX_DEPENDS_ON = 64 * 1024

LABEL_JOB = "dagsched.io/job"
LABEL_TASK = "dagsched.io/task"
ANN_DEPENDS_ON = "dagsched.io/depends-on"
GATE = "dagsched.io/dependencies"

NAME_RE = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")


class WorkloadError(Exception):
    """A workload file that cannot be used; the message names the file, document and field."""


class Task:
    """One task: the manifest that creates it and its place in its DAG job."""

    def __init__(self, job, name, manifest, depends_on, where):
        self.job = job
        self.name = name
        self.manifest = manifest
        self.depends_on = depends_on
        self.where = where

    @property
    def key(self):
        return (self.job, self.name)

    @property
    def kind(self):
        return self.manifest["kind"]

    @property
    def object_name(self):
        return self.manifest["metadata"]["name"]


def _pod_meta_and_spec(doc, where):
    """The pod metadata and spec of a Job (its template) or a Pod."""
    kind = doc.get("kind")
    if kind == "Job":
        if doc.get("apiVersion") != "batch/v1":
            raise WorkloadError(f"{where}: Job apiVersion must be batch/v1 (got {doc.get('apiVersion')!r})")
        tmpl = (doc.get("spec") or {}).get("template")
        if not isinstance(tmpl, dict):
            raise WorkloadError(f"{where}: spec.template: required")
        meta = tmpl.setdefault("metadata", {}) or {}
        tmpl["metadata"] = meta
        spec = tmpl.get("spec")
        if not isinstance(spec, dict):
            raise WorkloadError(f"{where}: spec.template.spec: required")
        return meta, spec
    if kind == "Pod":
        meta = doc.get("metadata")
        spec = doc.get("spec")
        if not isinstance(spec, dict):
            raise WorkloadError(f"{where}: spec: required")
        return meta, spec
    return None, None


def parse_depends_on(value, where):
    """Names in a depends-on annotation: comma separated, blanks ignored around names."""
    if not isinstance(value, str):
        raise WorkloadError(f"{where}: annotation {ANN_DEPENDS_ON} must be a string (got {value!r})")
    if len(value) > MAX_DEPENDS_ON:
        raise WorkloadError(f"{where}: annotation {ANN_DEPENDS_ON} is longer than {MAX_DEPENDS_ON} characters")
    if value.strip(" \t") == "":
        return []
    names = []
    for i, part in enumerate(value.split(","), start=1):
        name = part.strip(" \t")
        if name == "":
            raise WorkloadError(f"{where}: annotation {ANN_DEPENDS_ON}: entry {i} is empty (got {value!r})")
        if not NAME_RE.match(name):
            raise WorkloadError(f"{where}: annotation {ANN_DEPENDS_ON}: entry {i} is not a task name (got {name!r})")
        names.append(name)
    return names


def load(paths):
    """Reads workload files. Returns (tasks in file order, other documents)."""
    tasks = []
    others = []
    seen = {}
    ndocs = 0
    for path in paths:
        try:
            with open(path, "rb") as f:
                data = f.read(MAX_FILE_BYTES + 1)
        except OSError as e:
            raise WorkloadError(f"{path}: cannot read: {e.strerror}") from None
        if len(data) > MAX_FILE_BYTES:
            raise WorkloadError(f"{path}: larger than {MAX_FILE_BYTES} bytes")
        try:
            docs = list(yaml.safe_load_all(data.decode("utf-8")))
        except (yaml.YAMLError, UnicodeDecodeError) as e:
            raise WorkloadError(f"{path}: not valid YAML: {e}") from None
        for index, doc in enumerate(docs):
            if doc is None:
                continue
            ndocs += 1
            if ndocs > MAX_DOCUMENTS:
                raise WorkloadError(f"{path}: more than {MAX_DOCUMENTS} documents in the workload")
            where = f"{path}: document {index + 1}"
            if not isinstance(doc, dict) or not isinstance(doc.get("metadata"), dict):
                raise WorkloadError(f"{where}: not a Kubernetes object with metadata")
            oname = doc["metadata"].get("name")
            if not isinstance(oname, str) or oname == "":
                raise WorkloadError(f"{where}: metadata.name: required (generateName is not supported)")
            where = f"{path}: {doc.get('kind')} {oname!r}"
            meta, spec = _pod_meta_and_spec(doc, where)
            labels = (meta or {}).get("labels") or {}
            if meta is None or LABEL_JOB not in labels:
                others.append(doc)
                continue
            job = labels.get(LABEL_JOB)
            task = labels.get(LABEL_TASK)
            for what, v in (("label " + LABEL_JOB, job), ("label " + LABEL_TASK, task)):
                if not isinstance(v, str) or not NAME_RE.match(v):
                    raise WorkloadError(f"{where}: {what}: must be 1 to 63 letters, digits, '-', '_' or '.' (got {v!r})")
            ann = meta.get("annotations") or {}
            deps = parse_depends_on(ann.get(ANN_DEPENDS_ON, ""), where)
            if (job, task) in seen:
                raise WorkloadError(f"{where}: task {task!r} of job {job!r} is also declared by {seen[(job, task)]}")
            seen[(job, task)] = where
            tasks.append(Task(job, task, doc, deps, where))
    by_key = {t.key: t for t in tasks}
    for t in tasks:
        for d in t.depends_on:
            if (t.job, d) not in by_key:
                raise WorkloadError(f"{t.where}: depends on unknown task {d!r} of job {t.job!r}")
    _check_acyclic(tasks, by_key)
    return tasks, others


def _check_acyclic(tasks, by_key):
    state = {}
    for start in tasks:
        if state.get(start.key):
            continue
        stack = [(start, iter(start.depends_on))]
        state[start.key] = 1
        path = [start.name]
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node.key] = 2
                stack.pop()
                path.pop()
                continue
            child = by_key[(node.job, nxt)]
            s = state.get(child.key)
            if s == 1:
                cyc = path[path.index(child.name):] + [child.name]
                raise WorkloadError(f"job {node.job!r}: dependency cycle: {' -> '.join(cyc)}")
            if s is None:
                state[child.key] = 1
                path.append(child.name)
                stack.append((child, iter(child.depends_on)))


def plain_copy(manifest, scheduler_name):
    """The manifest for a cluster without dagsched: the pod's schedulerName set to scheduler_name
    (removed when it is empty) and the dagsched.io/dependencies scheduling gate removed."""
    doc = copy.deepcopy(manifest)
    if doc.get("kind") == "Job":
        spec = doc["spec"]["template"]["spec"]
    else:
        spec = doc["spec"]
    if scheduler_name:
        spec["schedulerName"] = scheduler_name
    else:
        spec.pop("schedulerName", None)
    gates = [g for g in (spec.get("schedulingGates") or []) if not (isinstance(g, dict) and g.get("name") == GATE)]
    if gates:
        spec["schedulingGates"] = gates
    else:
        spec.pop("schedulingGates", None)
    return doc
