#!/usr/bin/env python3
"""gen.py: the workload of `make bench-fairness`, generated once from a seed for the cluster runs
and for bin/dagsched-sim: tests/sim/data/two-tenants.yaml scaled down to seconds, plus gangs.

  gen.py --seed N --nodes NODES.jsonl --out DIR

Two tenants (namespaces), all jobs without a scheduling gate, created the way a workflow engine
creates them (hack/demo/baseline_driver.py, one driver per namespace):

  flood   FLOOD_JOBS jobs of four independent 2-cpu tasks (11-13 s each), arriving over about
          36 s (exponential gaps): together they hold the cluster's 32 cpu for about 90 s; and,
          beside this batch work, two gang jobs (prepare, 1 cpu, 3 s -> four workers of one gang,
          dagsched.io/gang workers and dagsched.io/gang-size 4, 2 cpu, 12 s -> evaluate, 1 cpu,
          3 s) arriving about 12 and 30 s in (the group `gang` of the report)
  light   four DAGs (extract -> three transforms -> report, 2 cpu, 14-16 s each) arriving about
          5, 15, 25 and 35 s into the run, each with a deadline of twice its critical path plus
          2 s per level: more work per job than a flood job, so that the order by remaining work
          puts them behind the flood

DIR receives, per namespace NS, NS.yaml (one batch/v1 Job per task, as bench/parity/gen.py
writes them) and NS-arrivals.json ({job: seconds}); sim-workload.yaml (every job, with its
namespace and gangs) and sim-workload-light.yaml (the light tenant alone) for dagsched-sim, on
the nodes of NODES.jsonl; jobs.json ({job: {tenant, group, arrival, deadline_after, tasks: {task:
{cpu, memory, gang}}}}: what bench/fairness/report.py needs of the workload). The same seed
gives the same files. Python 3 with PyYAML only.
"""

import argparse
import importlib.util
import json
import math
import os
import random
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
# bench/parity/gen.py under another name: this file is gen.py too.
_spec = importlib.util.spec_from_file_location("parity_gen", os.path.join(HERE, "..", "parity", "gen.py"))
parity_gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(parity_gen)

FLOOD_JOBS = 30
FLOOD_MEAN_GAP_S = 1.2
LIGHT_ARRIVALS_S = (5, 15, 25, 35)
GANG_ARRIVALS_S = (12, 30)
ARRIVAL_JITTER_S = 2.0
DEADLINE_FACTOR = 2.0
TENANTS = ("flood", "light")


def flood_job(rng, i, arrival):
    tasks = [{"name": f"t{k}", "runtime": rng.randint(11, 13), "cpu": "2", "memory": "2Gi", "deps": []}
             for k in range(4)]
    return {"name": f"f{i:02d}", "namespace": "flood", "arrival": arrival, "deadline": None, "levels": 1,
            "tasks": tasks}


def light_job(rng, i, arrival):
    def task(name, deps):
        return {"name": name, "runtime": rng.randint(14, 16), "cpu": "2", "memory": "2Gi", "deps": deps}

    tasks = [task("extract", [])]
    tasks += [task(f"transform-{k}", ["extract"]) for k in range(3)]
    tasks.append(task("report", [f"transform-{k}" for k in range(3)]))
    deadline = math.ceil(DEADLINE_FACTOR * parity_gen.critical_path(tasks)) + 2 * 3
    return {"name": f"l{i}", "namespace": "light", "arrival": arrival, "deadline": deadline, "levels": 3,
            "tasks": tasks}


def gang_job(i, arrival):
    tasks = [{"name": "prepare", "runtime": 3, "cpu": "1", "memory": "1Gi", "deps": []}]
    tasks += [{"name": f"worker-{k}", "runtime": 12, "cpu": "2", "memory": "2Gi", "deps": ["prepare"],
               "gang": "workers", "gang_size": 4} for k in range(4)]
    tasks.append({"name": "evaluate", "runtime": 3, "cpu": "1", "memory": "1Gi",
                  "deps": [f"worker-{k}" for k in range(4)]})
    return {"name": f"g{i}", "namespace": "flood", "group": "gang", "arrival": arrival, "deadline": None, "levels": 3,
            "tasks": tasks}


def generate(seed):
    """The jobs of a seed, every tenant's."""
    rng = random.Random(seed)
    jobs, t = [], 0.0
    for i in range(FLOOD_JOBS):
        jobs.append(flood_job(rng, i, round(t, 1)))
        t += rng.expovariate(1 / FLOOD_MEAN_GAP_S)
    for i, at in enumerate(LIGHT_ARRIVALS_S):
        jobs.append(light_job(rng, i, round(max(0.0, at + rng.uniform(-ARRIVAL_JITTER_S, ARRIVAL_JITTER_S)), 1)))
    for i, at in enumerate(GANG_ARRIVALS_S):
        jobs.append(gang_job(i, round(at + rng.uniform(-ARRIVAL_JITTER_S, ARRIVAL_JITTER_S), 1)))
    return jobs


def sim_doc(jobs, nodes, name):
    doc = parity_gen.sim_workload(jobs, nodes, 0)
    doc["metadata"]["name"] = name
    return doc


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--nodes", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    try:
        nodes = parity_gen.load_nodes(a.nodes)
        jobs = generate(a.seed)
        parity_gen.check_fits(jobs, nodes)
    except parity_gen.GenError as e:
        print(f"gen: {e}", file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    head = f"# Generated by bench/fairness/gen.py --seed {a.seed}.\n"
    for ns in TENANTS:
        mine = [j for j in jobs if j["namespace"] == ns]
        parity_gen.write(os.path.join(a.out, f"{ns}.yaml"),
                         head + yaml.safe_dump_all(parity_gen.manifests(mine), sort_keys=False))
        parity_gen.write(os.path.join(a.out, f"{ns}-arrivals.json"),
                         json.dumps({j["name"]: j["arrival"] for j in mine}, indent=1) + "\n")
    parity_gen.write(os.path.join(a.out, "sim-workload.yaml"),
                     head + yaml.safe_dump(sim_doc(jobs, nodes, f"fairness-seed-{a.seed}"), sort_keys=False))
    light = [j for j in jobs if j["namespace"] == "light"]
    parity_gen.write(os.path.join(a.out, "sim-workload-light.yaml"),
                     head + yaml.safe_dump(sim_doc(light, nodes, f"fairness-light-seed-{a.seed}"), sort_keys=False))
    meta = {j["name"]: {"tenant": j["namespace"], "group": j.get("group", j["namespace"]), "arrival": j["arrival"], "deadline_after": j["deadline"],
                        "tasks": {t["name"]: {"cpu": parity_gen.parse_cpu(t["cpu"]) / 1000.0,
                                              "memory": parity_gen.parse_memory(t["memory"]),
                                              "gang": t.get("gang")} for t in j["tasks"]}}
            for j in jobs}
    parity_gen.write(os.path.join(a.out, "jobs.json"), json.dumps(meta, indent=1, sort_keys=True) + "\n")
    counts = ", ".join(f"{g} {sum(1 for j in jobs if j.get('group', j['namespace']) == g)}"
                       for g in ("flood", "light", "gang"))
    print(f"gen: {len(jobs)} jobs ({counts}), {sum(len(j['tasks']) for j in jobs)} tasks, {len(nodes)} nodes -> {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
