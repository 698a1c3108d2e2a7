#!/usr/bin/env python3
"""check_edges.py: checks every dependency edge of the DAG jobs on a cluster from the pods' own
timestamps: no task may be scheduled or start before its upstream task succeeded.

Edges come from each pod's dagsched.io/depends-on annotation (jobs declared by annotations) and
from JobGraph ConfigMaps (label dagsched.io/kind=JobGraph, key graph.yaml), which win for their
job, as in the job model. A task's pods are the pods of its job (label dagsched.io/job, else
workflows.argoproj.io/workflow, in the same namespace) with its dagsched.io/task label.

For each edge U -> T and each pod of T that was bound to a node: T's start is the earliest of its
PodScheduled condition's transition to True and its status.startTime; U's success is the
earliest finish (the latest container finishedAt) among U's Succeeded pods. The edge is violated
when T started before U succeeded, or when U has pods and none succeeded. When U has no pod at all
(deleted, or never created) the edge cannot be verified and is counted apart. Timestamps have a
resolution of one second: a violation within the same second is not seen, and an edge is never
reported violated wrongly.

Usage: check_edges.py [--pods FILE] [--configmaps FILE] [-n NAMESPACE]... [--quiet]
  Without --pods, runs "$KUBECTL get pods -A -o json" (KUBECTL defaults to kubectl), and the same
  for the JobGraph ConfigMaps. Prints every violation and one summary line; exit 1 when an edge is
  violated, 2 on bad input.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys

import yaml

LABEL_JOB = "dagsched.io/job"
LABEL_ARGO = "workflows.argoproj.io/workflow"
LABEL_TASK = "dagsched.io/task"
ANN_DEPENDS = "dagsched.io/depends-on"


def ts(s):
    if not s:
        return None
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def kubectl_json(args):
    kubectl = os.environ.get("KUBECTL", "kubectl")
    out = subprocess.run([kubectl] + args + ["-o", "json"], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)


def load(path, args):
    if path is None:
        return kubectl_json(args)
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def job_of(pod):
    labels = pod["metadata"].get("labels") or {}
    job = labels.get(LABEL_JOB) or labels.get(LABEL_ARGO)
    return (pod["metadata"].get("namespace", ""), job) if job else None


def started_at(pod):
    """When the pod was bound or started, or None when it never was."""
    times = []
    for c in (pod.get("status") or {}).get("conditions") or []:
        if c.get("type") == "PodScheduled" and c.get("status") == "True":
            times.append(ts(c.get("lastTransitionTime")))
    times.append(ts((pod.get("status") or {}).get("startTime")))
    times = [t for t in times if t is not None]
    if not times:
        return None if not pod["spec"].get("nodeName") else ts(pod["metadata"].get("creationTimestamp"))
    return min(times)


def finished_at(pod):
    ends = [ts(((c.get("state") or {}).get("terminated") or {}).get("finishedAt"))
            for c in (pod.get("status") or {}).get("containerStatuses") or []]
    ends = [e for e in ends if e is not None]
    return max(ends) if ends else None


def graph_edges(configmaps):
    """{(ns, job): {task: [upstream...]}} from the JobGraph ConfigMaps."""
    graphs = {}
    for cm in configmaps.get("items", []):
        labels = cm["metadata"].get("labels") or {}
        if labels.get("dagsched.io/kind") != "JobGraph":
            continue
        try:
            doc = yaml.safe_load((cm.get("data") or {}).get("graph.yaml", ""))
            name = doc["metadata"]["name"]
            tasks = {t["name"]: list(t.get("dependsOn") or []) for t in doc["spec"]["tasks"]}
        except Exception:  # an invalid graph declares no edge the job model would use
            continue
        graphs[(cm["metadata"].get("namespace", ""), name)] = tasks
    return graphs


def fmt(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%H:%M:%S")


def check(pods, configmaps, namespaces):
    graphs = graph_edges(configmaps)
    tasks = {}  # (ns, job) -> task -> [pods]
    for p in pods.get("items", []):
        if namespaces and p["metadata"].get("namespace") not in namespaces:
            continue
        key = job_of(p)
        task = (p["metadata"].get("labels") or {}).get(LABEL_TASK)
        if key and task:
            tasks.setdefault(key, {}).setdefault(task, []).append(p)
    checked = violated = unverifiable = 0
    lines = []
    for key, by_task in sorted(tasks.items()):
        for task, tpods in sorted(by_task.items()):
            for p in tpods:
                if key in graphs:
                    ups = graphs[key].get(task, [])
                else:
                    raw = (p["metadata"].get("annotations") or {}).get(ANN_DEPENDS) or ""
                    ups = [u.strip() for u in raw.split(",") if u.strip()]
                start = started_at(p)
                if start is None:
                    continue
                for u in dict.fromkeys(ups):
                    upods = by_task.get(u, [])
                    if not upods:
                        unverifiable += 1
                        continue
                    checked += 1
                    done = [finished_at(q) for q in upods if (q.get("status") or {}).get("phase") == "Succeeded"]
                    done = [d for d in done if d is not None]
                    where = f"{key[0]}/{p['metadata']['name']} (job {key[1]}, task {task})"
                    if not done:
                        violated += 1
                        lines.append(f"  VIOLATED {where} started at {fmt(start)}; upstream task {u} never succeeded")
                    elif start < min(done):
                        violated += 1
                        lines.append(f"  VIOLATED {where} started at {fmt(start)}, before upstream task {u} finished at {fmt(min(done))}")
    return checked, violated, unverifiable, lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pods", help="a pod list (kubectl get pods -o json) instead of the cluster's")
    ap.add_argument("--configmaps", help="a ConfigMap list instead of the cluster's JobGraphs")
    ap.add_argument("-n", "--namespace", action="append", default=[], help="only these namespaces")
    ap.add_argument("--quiet", action="store_true", help="print violations only")
    a = ap.parse_args()
    try:
        pods = load(a.pods, ["get", "pods", "-A"])
        if a.configmaps or not a.pods:
            cms = load(a.configmaps, ["get", "configmaps", "-A", "-l", "dagsched.io/kind=JobGraph"])
        else:
            cms = {"items": []}
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        print(f"check-edges: cannot read the pods: {e}", file=sys.stderr)
        return 2
    checked, violated, unverifiable, lines = check(pods, cms, set(a.namespace))
    for line in lines:
        print(line)
    if violated or not a.quiet:
        print(f"check-edges: {checked} dependency edges checked, {violated} violated"
              f"{f', {unverifiable} not verifiable (upstream pod gone)' if unverifiable else ''}")
    return 1 if violated else 0


if __name__ == "__main__":
    sys.exit(main())
