#!/usr/bin/env python3
"""gen.py: the workload of `make bench-parity`, generated once from a seed for both sides of the
comparison: the local control plane and bin/dagsched-sim.

  gen.py --seed N --nodes NODES.jsonl --out DIR [--shape generator] [--jobs 44] [--min-tasks 300]

NODES.jsonl holds the Node objects of the cluster, one JSON object a line, as
`hack/cluster/create-nodes.sh PROFILE --print` prints them. DIR receives:

  workload.yaml       one batch/v1 Job per task, as a workflow engine would create them: labels
                      dagsched.io/job and dagsched.io/task, annotations dagsched.io/runtime,
                      dagsched.io/depends-on and dagsched.io/deadline-after, schedulerName dagsched,
                      no scheduling gate (hack/demo/workload.py reads it; the driver sets the
                      scheduler name of each run)
  arrivals.json       {job: seconds after the start of the run}: when the driver may create the
                      job's first tasks (hack/demo/baseline_driver.py --arrivals)
  sim-workload.yaml   the same jobs as a dagsched-sim Workload (docs/simulator.md): same arrivals,
                      run times, requests, dependencies and deadlines (release onUpstream), and
                      the nodes of NODES.jsonl that a task of this workload can use: a node with a
                      NoSchedule or NoExecute taint is left out, since no task tolerates it and the
                      simulator does not model taints

Shapes (--shape):
  generator     DAG jobs of 4 to 10 tasks on 2 to 4 levels (below), all with deadlines, arriving
                over about a minute (--jobs, --min-tasks)
  backlog       a batch backlog of many equal-sized pods: 3 batch jobs of 80 independent map
                tasks (1-2 cpu, 20-40 s, no deadline) at 0, 1 and 2 s, then 30 small DAG jobs of
                the generator with deadlines arriving behind them from 10 s
  long-backlog  the same with longer maps: 3 batch jobs of 32 maps of 30-45 s
  wide          8 wide DAG jobs with deadlines, 3-4 levels of 8 to 30 tasks (1-2 cpu, 4-16 s), a
                task depending on 1-3 tasks of the level above, arriving 10 s apart
  urgent        a batch job of 4-cpu maps (45-75 s) that fills the cluster's cpu twice over, at 0 s,
                then 3 urgent DAG jobs (prep -> compute -> publish, 4 cpu, 4-6 s, deadline 60 s)
                at 10, 40 and 70 s: where preemption acts

Every generator job has a deadline: its critical path at speed 1 times a factor drawn in [1.5, 3],
plus 2 s per level for the per-task delays of a real cluster (creation, release, start); batch
jobs have none. The same seed and shape give the same files, byte for byte. Python 3 with PyYAML
only.
"""

import argparse
import json
import math
import os
import random
import sys

import yaml

MAX_NODES_BYTES = 16 * 1024 * 1024
RUNTIME_S = (4, 16)  # at speed 1, whole seconds, uniform
TASKS_PER_JOB = (4, 10)
LEVELS = (2, 4)
CPU_CHOICES = ["1", "2", "2", "3", "4", "4", "6"]
MEMORY_CHOICES = ["1Gi", "2Gi", "2Gi", "4Gi"]
MEAN_GAP_S = 1.5  # mean time between two job arrivals (exponential)
DEADLINE_FACTOR = (1.5, 3.0)
DEADLINE_SLACK_PER_LEVEL_S = 2
SHAPES = ("generator", "backlog", "long-backlog", "wide", "urgent")


class GenError(Exception):
    """Input that cannot be used; the message says which."""


def parse_cpu(q):
    """Kubernetes cpu quantity -> millicores."""
    q = str(q)
    if q.endswith("m"):
        return int(q[:-1])
    return int(round(float(q) * 1000))


_MEM = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}


def parse_memory(q):
    """Kubernetes memory quantity -> bytes."""
    q = str(q)
    for suffix in sorted(_MEM, key=len, reverse=True):
        if q.endswith(suffix):
            return int(float(q[: -len(suffix)]) * _MEM[suffix])
    return int(float(q))


def load_nodes(path):
    """The usable nodes of a JSON-lines file of Node objects: [{name, cpu, memory, speed}]."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_NODES_BYTES + 1)
    except OSError as e:
        raise GenError(f"{path}: cannot read: {e.strerror}") from None
    if len(data) > MAX_NODES_BYTES:
        raise GenError(f"{path}: larger than {MAX_NODES_BYTES} bytes")
    nodes = []
    for i, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            n = json.loads(line)
            meta = n["metadata"]
            alloc = n["status"]["allocatable"]
            taints = (n.get("spec") or {}).get("taints") or []
            speed = float((meta.get("labels") or {}).get("dagsched.io/speed", "1"))
            node = {"name": meta["name"], "cpu": str(alloc["cpu"]), "memory": str(alloc["memory"]),
                    "speed": speed}
            parse_cpu(node["cpu"])
            parse_memory(node["memory"])
        except (ValueError, KeyError, TypeError) as e:
            raise GenError(f"{path}: line {i}: not a Node object with allocatable cpu and memory ({e})") from None
        if any(t.get("effect") in ("NoSchedule", "NoExecute") for t in taints):
            continue
        nodes.append(node)
    if not nodes:
        raise GenError(f"{path}: no untainted node")
    return nodes


def critical_path(tasks):
    """Longest path of run times (speed 1) through a job's DAG; tasks are in topological order."""
    longest = {}
    for t in tasks:
        longest[t["name"]] = t["runtime"] + max((longest[d] for d in t["deps"]), default=0)
    return max(longest.values())


def gen_job(rng, index, arrival):
    """One DAG job: tasks on 2 to 4 levels; a task below level 1 depends on one task of the level
    above and, with probability 1/3, on one more task of any level above."""
    n = rng.randint(*TASKS_PER_JOB)
    levels = min(rng.randint(*LEVELS), n)
    # every level gets at least one task; the rest go to random levels
    level_of = list(range(levels)) + [rng.randrange(levels) for _ in range(n - levels)]
    level_of.sort()
    tasks = []
    by_level = [[] for _ in range(levels)]
    for i, lv in enumerate(level_of):
        name = f"t{i}"
        deps = []
        if lv > 0:
            deps.append(rng.choice(by_level[lv - 1]))
            if rng.random() < 1 / 3:
                extra = rng.choice([x for above in by_level[:lv] for x in above])
                if extra not in deps:
                    deps.append(extra)
        tasks.append({
            "name": name,
            "runtime": rng.randint(*RUNTIME_S),
            "cpu": rng.choice(CPU_CHOICES),
            "memory": rng.choice(MEMORY_CHOICES),
            "deps": deps,
        })
        by_level[lv].append(name)
    factor = rng.uniform(*DEADLINE_FACTOR)
    deadline = math.ceil(critical_path(tasks) * factor) + DEADLINE_SLACK_PER_LEVEL_S * levels
    return {"name": f"p{index:02d}", "arrival": arrival, "deadline": deadline, "levels": levels, "tasks": tasks}


def generate(seed, n_jobs, min_tasks):
    """The jobs for a seed: at least n_jobs jobs and min_tasks tasks (more jobs are added until
    there are that many tasks)."""
    rng = random.Random(seed)
    jobs = []
    t = 0.0
    while len(jobs) < n_jobs or sum(len(j["tasks"]) for j in jobs) < min_tasks:
        jobs.append(gen_job(rng, len(jobs), round(t, 1)))
        t += rng.expovariate(1 / MEAN_GAP_S)
    return jobs


def gen_batch(rng, name, arrival, n, cpus, runtime):
    """A batch job of n independent map tasks without a deadline."""
    tasks = [{"name": f"m{i}", "runtime": rng.randint(*runtime), "cpu": rng.choice(cpus), "memory": "1Gi",
              "deps": []} for i in range(n)]
    return {"name": name, "arrival": arrival, "deadline": None, "levels": 1, "tasks": tasks}


def gen_wide(rng, index, arrival):
    """A wide DAG job: 3-4 levels of 8 to 30 tasks, each below the first depending on 1 to 3
    tasks of the level above; deadline as the generator's."""
    levels = rng.randint(3, 4)
    tasks, above = [], []
    for lv in range(levels):
        here = []
        for _ in range(rng.randint(8, 30)):
            name = f"t{len(tasks)}"
            deps = sorted(rng.sample(above, min(len(above), rng.randint(1, 3)))) if above else []
            tasks.append({"name": name, "runtime": rng.randint(*RUNTIME_S), "cpu": rng.choice(["1", "2"]),
                          "memory": "1Gi", "deps": deps})
            here.append(name)
        above = here
    factor = rng.uniform(*DEADLINE_FACTOR)
    deadline = math.ceil(critical_path(tasks) * factor) + DEADLINE_SLACK_PER_LEVEL_S * levels
    return {"name": f"w{index:02d}", "arrival": arrival, "deadline": deadline, "levels": levels, "tasks": tasks}


def gen_urgent(rng, index, arrival):
    """prep -> compute -> publish, 4 cpu each, 4-6 s, deadline 60 s after arrival."""
    step = rng.randint(4, 6)
    tasks = [{"name": n, "runtime": step, "cpu": "4", "memory": "1Gi", "deps": d}
             for n, d in (("prep", []), ("compute", ["prep"]), ("publish", ["compute"]))]
    return {"name": f"u{index:02d}", "arrival": arrival, "deadline": 60, "levels": 3, "tasks": tasks}


def generate_shape(shape, seed, n_jobs, min_tasks, nodes):
    """The jobs of a shape (see the module's text)."""
    if shape == "generator":
        return generate(seed, n_jobs, min_tasks)
    rng = random.Random(seed)
    if shape in ("backlog", "long-backlog"):
        n, runtime = (80, (20, 40)) if shape == "backlog" else (32, (30, 45))
        jobs = [gen_batch(rng, f"b{i}", float(i), n, ["1", "2"], runtime) for i in range(3)]
        t = 10.0
        for i in range(30):
            jobs.append(gen_job(rng, i, round(t, 1)))
            t += rng.expovariate(1 / MEAN_GAP_S)
        return jobs
    if shape == "wide":
        return [gen_wide(rng, i, 10.0 * i) for i in range(8)]
    cpu = sum(parse_cpu(n["cpu"]) for n in nodes) // 1000
    jobs = [gen_batch(rng, "b0", 0.0, max(1, 2 * cpu // 4), ["4"], (45, 75))]
    jobs += [gen_urgent(rng, i, at) for i, at in enumerate((10.0, 40.0, 70.0))]
    return jobs


def check_fits(jobs, nodes):
    for j in jobs:
        for t in j["tasks"]:
            if not any(parse_cpu(t["cpu"]) <= parse_cpu(n["cpu"]) and parse_memory(t["memory"]) <= parse_memory(n["memory"])
                       for n in nodes):
                raise GenError(f"job {j['name']} task {t['name']}: fits no node")


def manifests(jobs):
    """batch/v1 Jobs, one per task, in arrival order and within a job in topological order."""
    docs = []
    for j in jobs:
        for t in j["tasks"]:
            labels = {"dagsched.io/job": j["name"], "dagsched.io/task": t["name"]}
            if t.get("gang"):
                labels.update({"dagsched.io/gang": t["gang"], "dagsched.io/gang-size": str(t["gang_size"])})
            ann = {"dagsched.io/runtime": f"{t['runtime']}s"}
            if j["deadline"] is not None:
                ann["dagsched.io/deadline-after"] = f"{j['deadline']}s"
            if t["deps"]:
                ann["dagsched.io/depends-on"] = ",".join(t["deps"])
            docs.append({
                "apiVersion": "batch/v1",
                "kind": "Job",
                "metadata": {"name": f"{j['name']}-{t['name']}",
                             "labels": {"dagsched.io/job": j["name"], "dagsched.io/task": t["name"]}},
                "spec": {
                    "backoffLimit": 6,
                    "template": {
                        "metadata": {"labels": dict(labels), "annotations": ann},
                        "spec": {
                            "schedulerName": "dagsched",
                            "restartPolicy": "Never",
                            "containers": [{
                                "name": "main",
                                "image": "busybox:1.36",
                                "command": ["sleep", str(t["runtime"])],
                                "resources": {"requests": {"cpu": t["cpu"], "memory": t["memory"]}},
                            }],
                        },
                    },
                },
            })
    return docs


def sim_task(t):
    """One task of the simulator's Workload file; a gang member names its gang and size."""
    out = {"name": t["name"], "runtime": f"{t['runtime']}s", "cpu": t["cpu"], "memory": t["memory"]}
    if t["deps"]:
        out["dependsOn"] = list(t["deps"])
    if t.get("gang"):
        out.update({"gang": t["gang"], "gangSize": t["gang_size"]})
    return out


def sim_job(j):
    """One job of the simulator's Workload file: the same namespace (when the job names one),
    arrival, deadline (none for batch jobs), run times, requests, dependencies and gangs."""
    out = {"name": j["name"]}
    if j.get("namespace"):
        out["namespace"] = j["namespace"]
    out["arrival"] = f"{j['arrival']}s"
    if j["deadline"] is not None:
        out["deadline"] = f"{j['deadline']}s"
    out["release"] = "onUpstream"
    out["tasks"] = [sim_task(t) for t in j["tasks"]]
    return out


def sim_workload(jobs, nodes, seed):
    return {
        "apiVersion": "dagsched.io/v1alpha1",
        "kind": "Workload",
        "metadata": {"name": f"parity-seed-{seed}"},
        "spec": {
            "nodes": [{"name": n["name"], "cpu": n["cpu"], "memory": n["memory"], "speed": n["speed"]} for n in nodes],
            "jobs": [sim_job(j) for j in jobs],
        },
    }


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--nodes", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=44)
    ap.add_argument("--min-tasks", type=int, default=300)
    ap.add_argument("--shape", choices=SHAPES, default="generator")
    a = ap.parse_args(argv)
    if not 1 <= a.jobs <= 1000 or not 1 <= a.min_tasks <= 10000:
        print("gen: --jobs must be 1..1000 and --min-tasks 1..10000", file=sys.stderr)
        return 2
    try:
        nodes = load_nodes(a.nodes)
        jobs = generate_shape(a.shape, a.seed, a.jobs, a.min_tasks, nodes)
        check_fits(jobs, nodes)
    except GenError as e:
        print(f"gen: {e}", file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    head = (f"# Generated by bench/parity/gen.py --seed {a.seed} --shape {a.shape}: {len(jobs)} jobs, "
            f"{sum(len(j['tasks']) for j in jobs)} tasks.\n")
    write(os.path.join(a.out, "workload.yaml"), head + yaml.safe_dump_all(manifests(jobs), sort_keys=False))
    write(os.path.join(a.out, "arrivals.json"), json.dumps({j["name"]: j["arrival"] for j in jobs}, indent=1) + "\n")
    write(os.path.join(a.out, "sim-workload.yaml"), head + yaml.safe_dump(sim_workload(jobs, nodes, a.seed), sort_keys=False))
    print(f"gen: {len(jobs)} jobs, {sum(len(j['tasks']) for j in jobs)} tasks, {len(nodes)} nodes -> {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
