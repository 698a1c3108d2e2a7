#!/usr/bin/env python3
"""fuzz_decoders_seeds.py: writes the seed inputs of the fuzz_decoders target (tests/kube/
fuzz_decoders.c) into DIR: for each decoder, valid documents and documents at each bound of
kube/objects.h and lib/ (a list field, a map, a string at its limit and one past it), so that
mutation starts where the bounds are. The first byte of a seed picks the decoder (pod 0, node 1,
ConfigMap 2, PDB 3, Job 4, Namespace 5, Workflow 6, JobGraph YAML 7, policy YAML 8, a list of pods
for the job model 9). Deterministic; each seed under 64 KiB (the fuzzer's -max_len).

Usage: fuzz_decoders_seeds.py DIR
"""
import json
import os
import sys

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
POD, NODE, CM, PDB, JOB, NS, WF, GRAPH, POLICY, JOBSET = range(10)
LIST = 1024   # KUBE_OBJ_MAX_LIST
LABELS = 256  # KUBE_OBJ_MAX_LABELS
MAX_LEN = 65536


def pod(name="p", labels=None, annotations=None, **spec):
    s = {"schedulingGates": [{"name": "dagsched.io/dependencies"}],
         "containers": [{"name": "c", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}
    s.update(spec)
    lab = {"dagsched.io/job": "j", "dagsched.io/task": name}
    lab.update(labels or {})
    return {"kind": "Pod",
            "metadata": {"name": name, "namespace": "a", "uid": "u-" + name,
                         "resourceVersion": "1", "creationTimestamp": "2026-11-22T10:00:00Z",
                         "labels": lab, "annotations": annotations or {"dagsched.io/runtime": "5s"}},
            "spec": s, "status": {"phase": "Pending"}}


def pods_at_bounds():
    for over in (0, 1):
        yield f"tolerations-{over}", pod(tolerations=[{"key": f"k{i}", "operator": "Exists"}
                                                      for i in range(LIST + over)])
        yield f"gates-{over}", pod(schedulingGates=[{"name": f"g{i}"} for i in range(LIST - 1 + over)]
                                   + [{"name": "dagsched.io/dependencies"}])
        yield f"selector-{over}", pod(nodeSelector={f"s{i}": "v" for i in range(LABELS + over)})
        yield f"containers-{over}", pod(containers=[{"name": f"c{i}"} for i in range(LIST + over)])
        yield f"labels-{over}", pod(labels={f"l{i}": "v" for i in range(LABELS - 2 + over)})
        yield f"tolkey-{over}", pod(tolerations=[{"key": "k" * (317 + over), "operator": "Exists"}])
        yield f"terms-{over}", pod(affinity={"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": f"z{i}", "operator": "Exists"}]}
                for i in range(64 + over)]}}})
        yield f"depends-{over}", pod(annotations={"dagsched.io/depends-on": "a," * (16 + over * 4)})


def main():
    if len(sys.argv) != 2:
        print(__doc__.split("\n\n")[-1], file=sys.stderr)
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)

    def put(name, decoder, doc):
        data = bytes([decoder]) + (doc if isinstance(doc, bytes) else
                                   json.dumps(doc, separators=(",", ":")).encode())
        if len(data) <= MAX_LEN:
            with open(os.path.join(out, name), "wb") as f:
                f.write(data)

    for name, p in pods_at_bounds():
        put("pod-" + name, POD, p)
    put("node", NODE, {"metadata": {"name": "n1", "resourceVersion": "1",
                                    "labels": {"dagsched.io/speed": "2"}},
                       "spec": {"taints": [{"key": "gpu", "effect": "NoSchedule"}]},
                       "status": {"allocatable": {"cpu": "8", "memory": "32Gi"},
                                  "conditions": [{"type": "Ready", "status": "True"}]}})
    graph = open(os.path.join(ROOT, "docs", "dag-jobs.md"), encoding="utf-8").read()
    put("configmap", CM, {"metadata": {"name": "g", "namespace": "a", "resourceVersion": "1",
                                       "labels": {"dagsched.io/kind": "JobGraph"}},
                          "data": {"graph.yaml": "apiVersion: dagsched.io/v1alpha1\nkind: JobGraph\n"
                                   "metadata: {name: etl}\nspec: {tasks: [{name: a, runtime: 1s}]}\n"}})
    put("pdb", PDB, {"metadata": {"name": "b", "namespace": "a", "resourceVersion": "1",
                                  "generation": 2},
                     "spec": {"selector": {"matchLabels": {"app": "x"}, "matchExpressions": [
                         {"key": "tier", "operator": "In", "values": ["a", "b"]}]}},
                     "status": {"observedGeneration": 2, "disruptionsAllowed": 1}})
    put("job", JOB, {"metadata": {"name": "j", "namespace": "a", "resourceVersion": "1",
                                  "labels": {"dagsched.io/job": "etl", "dagsched.io/task": "a"}},
                     "spec": {"suspend": True, "template": {"spec": pod()["spec"]}},
                     "status": {"succeeded": 1}})
    put("namespace", NS, {"metadata": {"name": "a", "resourceVersion": "1",
                                       "labels": {"team": "x"}}})
    for f in ("argo-etl.yaml",):
        for d in yaml.safe_load_all(open(os.path.join(ROOT, "examples", f), encoding="utf-8")):
            if d and d.get("kind") == "Workflow":
                d.setdefault("metadata", {}).update({"name": "wf", "namespace": "a",
                                                     "resourceVersion": "1"})
                put("workflow-" + f, WF, d)
    start = graph.find("apiVersion: dagsched.io/v1alpha1\nkind: JobGraph")
    if start >= 0:
        put("jobgraph-doc", GRAPH, graph[start:graph.find("```", start)].encode())
    tasks = "".join(f"    - {{name: t{i}, runtime: 1s, dependsOn: [t{i - 1}]}}\n" if i else
                    "    - {name: t0, runtime: 1s}\n" for i in range(300))
    put("jobgraph-chain", GRAPH, ("apiVersion: dagsched.io/v1alpha1\nkind: JobGraph\n"
                                  "metadata: {name: etl}\nspec:\n  tasks:\n" + tasks).encode())
    for f in sorted(os.listdir(os.path.join(ROOT, "policies"))):
        put("policy-" + f, POLICY, open(os.path.join(ROOT, "policies", f), "rb").read())
    # The job model: a chain created downstream first, a fan-out with a missing root, a cycle.
    chain = [pod(f"c{i}", annotations={"dagsched.io/runtime": "2s",
                                       "dagsched.io/depends-on": f"c{i - 1}" if i else ""})
             for i in range(5, -1, -1)]
    fan = [pod("f7", labels={"dagsched.io/job": "fan"},
               annotations={"dagsched.io/depends-on": "f1,f2,f3"})] + \
          [pod(f"f{i}", labels={"dagsched.io/job": "fan"},
               annotations={"dagsched.io/depends-on": "f0"}) for i in (1, 2, 3)]
    cyc = [pod("a", labels={"dagsched.io/job": "cyc"}, annotations={"dagsched.io/depends-on": "b"}),
           pod("b", labels={"dagsched.io/job": "cyc"}, annotations={"dagsched.io/depends-on": "a"})]
    put("jobset", JOBSET, chain + fan + cyc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
