#!/usr/bin/env python3
"""over_bounds_pods.py: prints (JSON, a v1 List) one gated pod of a DAG job per class of field that
the API server accepts beyond dagsched's bounds: 1,100 tolerations, a 300-entry nodeSelector,
1,101 scheduling gates (dagsched's last), 1,030 containers, 70 required node affinity terms, 300
labels, 300 dagsched.io/ annotations. Used by the controller integration suite (scenario
invalid-pod): none of them may stay Pending because of dagsched."""
import json


def pod(name, spec=None, labels=None, annotations=None):
    s = {"restartPolicy": "Never",
         "schedulingGates": [{"name": "dagsched.io/dependencies"}],
         "containers": [{"name": "main", "image": "busybox",
                         "resources": {"requests": {"cpu": "100m"}}}]}
    s.update(spec or {})
    lab = {"dagsched.io/job": name, "dagsched.io/task": "t"}
    lab.update(labels or {})
    ann = {"dagsched.io/runtime": "2s"}
    ann.update(annotations or {})
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": lab, "annotations": ann}, "spec": s}


def main():
    terms = [{"matchExpressions": [{"key": f"z{i}", "operator": "DoesNotExist"}]} for i in range(70)]
    items = [
        pod("tolerations",
            {"tolerations": [{"key": f"k{i}", "operator": "Exists"} for i in range(1100)]}),
        pod("nodeselector", {"nodeSelector": {f"s{i}": "v" for i in range(300)}}),
        pod("gates", {"schedulingGates": [{"name": f"example.com/g{i}"} for i in range(1100)]
                      + [{"name": "dagsched.io/dependencies"}]}),
        pod("containers", {"containers": [{"name": f"c{i}", "image": "busybox"}
                                          for i in range(1030)]}),
        pod("affinity", {"affinity": {"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}}),
        pod("labels", labels={f"l{i}": "v" for i in range(300)}),
        pod("annotations", annotations={f"dagsched.io/x{i}": "v" for i in range(300)}),
    ]
    print(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))


if __name__ == "__main__":
    main()
