#!/usr/bin/env python3
"""snippets.py: every copy-paste snippet of the documentation works as written.

Each ```yaml block of README.md, docs/*.md and examples/README.md must be preceded (on the line
before its fence, blank lines allowed) by a marker saying what it is:

  <!-- snippet: apply -->     complete Kubernetes objects: applied with `kubectl apply
                              --dry-run=server` to the local control plane (namespaces they name
                              are created first; objects without one go to namespace
                              dagsched-docs). Pods and pod templates labelled as DAG tasks
                              (dagsched.io/job) must set schedulerName: dagsched, or they would
                              run under the default scheduler.
  <!-- snippet: policy -->    a SchedulingPolicy document: checked by the components' validator
                              (kubectl-dagsched policy validate) and applied, wrapped into its
                              ConfigMap (kubectl-dagsched policy configmap), with --dry-run=server
  <!-- snippet: workflow -->  Argo Workflows, WorkflowTemplates, CronWorkflows (their CRDs are not
                              in the test cluster): each sets schedulerName: dagsched (a reference
                              to a WorkflowTemplate: that template, in the same block), and each
                              template's pod (its metadata and container) is applied as a Pod
                              with --dry-run=server
  <!-- snippet: scheduler-config -->  a KubeSchedulerConfiguration file: loaded, defaulted and
                              validated by the test cluster's own kube-scheduler (--config with
                              --write-config-to); an extender's tlsConfig.caFile, a path on the
                              scheduler's machine, is pointed at a CA made for the test
  <!-- snippet: sim-workload -->  a simulator Workload file: read by bin/dagsched-sim
                              (--workload with --write-workload)
  <!-- snippet: fragment -->  a fragment of an object (a few fields), not meant to be applied

A block without a marker fails the test, so that a new snippet is classified when it is written.
The files of examples/ are applied the same way (those holding only Argo Workflows are checked
like workflow blocks), and the files of policies/ are checked like policy blocks.

Usage: snippets.py KUBECTL_DAGSCHED DAGSCHED_SIM
(KUBECONFIG, KUBECTL and CLUSTER_DIR from hack/cluster/with-cluster.sh)
"""

import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MARKER = re.compile(r"^\s*<!--\s*snippet:\s*([a-z-]+)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)```\s*(\w*)\s*$")
KINDS = ("apply", "policy", "workflow", "scheduler-config", "sim-workload", "fragment")
DEFAULT_NS = "dagsched-docs"
POLICY_NS = "dagsched-system"
CLUSTER_SCOPED = {"Namespace", "PriorityClass", "ClusterRole", "ClusterRoleBinding", "Node",
                  "CustomResourceDefinition", "MutatingWebhookConfiguration",
                  "ValidatingWebhookConfiguration", "StorageClass"}


class Failures:
    def __init__(self):
        self.items = []

    def add(self, where, msg):
        self.items.append(f"{where}: {msg}")
        print(f"FAIL {where}: {msg}", flush=True)


def doc_files():
    files = [os.path.join(REPO, "README.md"), os.path.join(REPO, "examples", "README.md")]
    files += sorted(glob.glob(os.path.join(REPO, "docs", "*.md")))
    return files


def blocks(path):
    """(line number, language, marker or None, text) of each fenced block of a Markdown file."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out, i, last_marker = [], 0, None
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m is None:
            mk = MARKER.match(lines[i])
            if mk is not None:
                last_marker = mk.group(1)
            elif lines[i].strip() != "":
                last_marker = None
            i += 1
            continue
        start, lang, indent = i + 1, m.group(2).lower(), m.group(1)
        body = []
        i += 1
        while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        out.append((start, lang, last_marker, "\n".join(body) + "\n"))
        last_marker = None
        i += 1
    return out


def kubectl(*args, stdin=None):
    exe = os.environ.get("KUBECTL", "kubectl")
    p = subprocess.run([exe, *args], input=stdin, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


def ensure_namespace(ns, made):
    if ns in made:
        return
    rc, out = kubectl("get", "namespace", ns)
    if rc != 0:
        rc, out = kubectl("create", "namespace", ns)
        if rc != 0 and "AlreadyExists" not in out:
            raise RuntimeError(f"creating namespace {ns}: {out.strip()}")
    made.add(ns)


def pod_specs(obj):
    """(where, pod metadata, pod spec) of a Pod or of the pod template of a workload object."""
    kind = obj.get("kind")
    spec = obj.get("spec") or {}
    if kind == "Pod":
        return [("Pod", obj.get("metadata") or {}, spec)]
    if kind == "CronJob":
        spec = ((spec.get("jobTemplate") or {}).get("spec")) or {}
    tmpl = spec.get("template")
    if isinstance(tmpl, dict):
        return [(f"{kind} template", tmpl.get("metadata") or {}, tmpl.get("spec") or {})]
    return []


def check_dag_pods(where, objs, fails):
    for obj in objs:
        for what, meta, spec in pod_specs(obj):
            labels = meta.get("labels") or {}
            if "dagsched.io/job" in labels and spec.get("schedulerName") != "dagsched":
                name = (obj.get("metadata") or {}).get("name", "?")
                fails.add(where, f"{obj.get('kind')} {name}: {what} is a DAG task (label "
                          "dagsched.io/job) without schedulerName: dagsched")


def dry_run(where, objs, made, fails):
    """kubectl apply --dry-run=server of the objects, each in its namespace."""
    by_ns = {}
    for obj in objs:
        if not isinstance(obj, dict) or "kind" not in obj:
            fails.add(where, f"not a Kubernetes object: {str(obj)[:80]}")
            continue
        ns = None
        if obj["kind"] not in CLUSTER_SCOPED:
            ns = (obj.get("metadata") or {}).get("namespace") or DEFAULT_NS
        by_ns.setdefault(ns, []).append(obj)
    for ns, group in by_ns.items():
        args = ["apply", "--dry-run=server", "-o", "name", "-f", "-"]
        if ns is not None:
            ensure_namespace(ns, made)
            args += ["-n", ns]
        rc, out = kubectl(*args, stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": group}))
        if rc != 0:
            fails.add(where, "kubectl apply --dry-run=server failed:\n    " + out.strip().replace("\n", "\n    "))


def check_policy(where, text, cli, made, fails):
    p = subprocess.run([cli, "policy", "validate", "-"], input=text, capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        fails.add(where, "policy validate: " + p.stderr.strip())
        return
    p = subprocess.run([cli, "policy", "configmap", "-", "-n", POLICY_NS], input=text, capture_output=True,
                       text=True, timeout=60)
    if p.returncode != 0:
        fails.add(where, "policy configmap: " + p.stderr.strip())
        return
    dry_run(where, [json.loads(p.stdout)], made, fails)


ARGO_KINDS = ("Workflow", "WorkflowTemplate", "CronWorkflow")


def workflow_spec(wf, objs):
    """The spec whose pods run: a Workflow's or WorkflowTemplate's, a CronWorkflow's workflowSpec;
    one that references a WorkflowTemplate (workflowTemplateRef) is that template's, which must be
    in the same snippet or file. None when it cannot be found."""
    spec = wf.get("spec") or {}
    if wf.get("kind") == "CronWorkflow":
        spec = spec.get("workflowSpec") or {}
    ref = (spec.get("workflowTemplateRef") or {}).get("name")
    if ref is None:
        return spec
    for o in objs:
        if o.get("kind") == "WorkflowTemplate" and (o.get("metadata") or {}).get("name") == ref:
            return o.get("spec") or {}
    return None


def check_workflow(where, objs, made, fails):
    for wf in objs:
        if wf.get("apiVersion") != "argoproj.io/v1alpha1" or wf.get("kind") not in ARGO_KINDS:
            fails.add(where, "a workflow snippet holds something other than Argo Workflows, "
                      "WorkflowTemplates and CronWorkflows")
            continue
        spec = workflow_spec(wf, objs)
        if spec is None:
            fails.add(where, f"the {wf['kind']} references a WorkflowTemplate that is not beside it")
            continue
        if spec.get("schedulerName") != "dagsched":
            fails.add(where, f"the {wf['kind']} does not set spec.schedulerName: dagsched")
        pods = []
        for t in spec.get("templates") or []:
            if "container" not in t:
                continue
            meta = dict(t.get("metadata") or {})
            meta["name"] = f"docs-workflow-{t.get('name', 'x')}"
            pods.append({"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                         "spec": {"schedulerName": spec.get("schedulerName", "default-scheduler"),
                                  "restartPolicy": "Never",
                                  "containers": [dict(t["container"], name="main")]}})
        if not pods:
            fails.add(where, "the Workflow has no container template to check")
        dry_run(where, pods, made, fails)


def check_file_tool(where, text, argv_of, fails, what):
    """Write the block to a file and run a tool that reads it; the tool must exit 0."""
    with tempfile.TemporaryDirectory() as d:
        src, out = os.path.join(d, "in.yaml"), os.path.join(d, "out.yaml")
        with open(src, "w", encoding="utf-8") as f:
            f.write(text)
        argv = argv_of(src, out)
        p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if p.returncode != 0 or not os.path.exists(out):
            msg = (p.stderr or p.stdout).strip().splitlines()[-5:]
            fails.add(where, f"{what} refused it (exit {p.returncode}):\n    " + "\n    ".join(msg))


def kube_scheduler():
    exe = os.path.join(os.environ.get("CLUSTER_DIR", ""), "bin", "kube-scheduler")
    if not os.access(exe, os.X_OK):
        raise RuntimeError(f"{exe}: not found (run under hack/cluster/with-cluster.sh)")
    return exe


def check_scheduler_config(where, text, fails):
    """kube-scheduler loads, defaults and validates the file and writes it back (it ignores its
    --kubeconfig flag when given --config, so the test cluster's kubeconfig is set in a copy)."""
    objs = load_all(where, text, fails)
    if objs is None:
        return
    if len(objs) != 1 or not isinstance(objs[0], dict):
        fails.add(where, "a scheduler-config snippet must be one KubeSchedulerConfiguration")
        return
    cfg = objs[0]
    cfg.setdefault("clientConnection", {}).setdefault("kubeconfig", os.environ["KUBECONFIG"])
    with tempfile.TemporaryDirectory() as d:
        ca = None
        for ext in cfg.get("extenders") or []:
            tls = ext.get("tlsConfig") if isinstance(ext, dict) else None
            if isinstance(tls, dict) and tls.get("caFile"):
                ca = ca or make_ca(d)
                tls["caFile"] = ca
        check_file_tool(where, yaml.safe_dump(cfg), lambda src, out: [
            kube_scheduler(), "--config", src, "--write-config-to", out], fails, "kube-scheduler")


def make_ca(d):
    """A self-signed CA certificate (PEM) in directory d, for configurations that name a CA file."""
    crt, key = os.path.join(d, "ca.crt"), os.path.join(d, "ca.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=snippet-test-ca", "-keyout", key, "-out", crt],
                   check=True, capture_output=True, timeout=60)
    return crt


def load_all(where, text, fails):
    try:
        return [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError as e:
        fails.add(where, f"not valid YAML: {e}")
        return None


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: snippets.py PATH/TO/kubectl-dagsched PATH/TO/dagsched-sim")
    cli, sim = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    fails, made, counts = Failures(), set(), {k: 0 for k in KINDS}
    for path in doc_files():
        rel = os.path.relpath(path, REPO)
        for line, lang, marker, text in blocks(path):
            if lang not in ("yaml", "yml"):
                continue
            where = f"{rel}:{line}"
            if marker is None:
                fails.add(where, "yaml block without a marker (<!-- snippet: apply|policy|workflow|fragment -->"
                          " on the line before the fence)")
                continue
            if marker not in KINDS:
                fails.add(where, f"unknown snippet marker '{marker}'")
                continue
            counts[marker] += 1
            if marker == "fragment":
                continue
            if marker == "policy":
                check_policy(where, text, cli, made, fails)
                continue
            if marker == "scheduler-config":
                check_scheduler_config(where, text, fails)
                continue
            if marker == "sim-workload":
                check_file_tool(where, text, lambda src, out: [sim, "--workload", src, "--write-workload", out],
                                fails, "dagsched-sim")
                continue
            objs = load_all(where, text, fails)
            if objs is None:
                continue
            if marker == "workflow":
                check_workflow(where, objs, made, fails)
            else:
                check_dag_pods(where, objs, fails)
                dry_run(where, objs, made, fails)
    for path in sorted(glob.glob(os.path.join(REPO, "examples", "*.yaml"))):
        rel = os.path.relpath(path, REPO)
        with open(path, encoding="utf-8") as f:
            objs = load_all(rel, f.read(), fails)
        if objs and all(o.get("kind") in ARGO_KINDS for o in objs):
            check_workflow(rel, objs, made, fails)  # examples/argo-*.yaml
            counts["workflow"] += 1
        elif objs:
            check_dag_pods(rel, objs, fails)
            dry_run(rel, objs, made, fails)
            counts["apply"] += 1
    for path in sorted(glob.glob(os.path.join(REPO, "policies", "*.yaml"))):
        with open(path, encoding="utf-8") as f:
            check_policy(os.path.relpath(path, REPO), f.read(), cli, made, fails)
        counts["policy"] += 1
    summary = ", ".join(f"{counts[k]} {k}" for k in KINDS)
    if fails.items:
        print(f"docs snippets: {len(fails.items)} failed ({summary})")
        sys.exit(1)
    print(f"docs snippets: all passed ({summary})")


if __name__ == "__main__":
    main()
