#!/usr/bin/env python3
"""helm_static.py: checks of the Helm chart that need no cluster: lint, schema validation, the
objects rendered with default and non-default values, least-privilege RBAC, restricted pod
security, and that manifests/ is in sync with the chart. Prints 'N passed, N failed'."""
import os
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HELM = os.path.join(sys.argv[1], "helm")
CHART = os.path.join(ROOT, "helm", "dagsched")
NS = "dagsched-system"

passed = 0
failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name} {detail}")


def helm(*args, ok=True):
    p = subprocess.run([HELM, *args], capture_output=True, text=True)
    if ok and p.returncode != 0:
        raise SystemExit(f"helm {' '.join(args)} failed:\n{p.stderr}")
    return p


def render(*sets):
    args = ["template", "dagsched", CHART, "--namespace", NS]
    for s in sets:
        args += ["--set", s] if not s.startswith("{") else ["--set-json", s[1:]]
    out = helm(*args).stdout
    return [d for d in yaml.safe_load_all(out) if d]


def find(objs, kind, name=None):
    return [o for o in objs if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]


def containers(objs):
    for d in find(objs, "Deployment"):
        for c in d["spec"]["template"]["spec"]["containers"]:
            yield d, c


def scheduler_config(objs):
    cm = find(objs, "ConfigMap", "dagsched-scheduler-config")[0]
    return yaml.safe_load(cm["data"]["scheduler-config.yaml"])


# --- lint and schema
lint = helm("lint", CHART, "--strict", ok=False)
check("helm lint --strict", lint.returncode == 0, lint.stdout + lint.stderr)
for bad, why in [("extender.port=0", "greater than or equal to 1"),
                 ("controller.logFormat=xml", "controller.logFormat"),
                 ("nosuchkey=1", "nosuchkey"),
                 ("scheduler.extender.httpTimeout=5", "httpTimeout")]:
    p = helm("template", "x", CHART, "--set", bad, ok=False)
    check(f"schema rejects {bad}", p.returncode != 0 and why in p.stderr, p.stderr[-300:])
p = helm("template", "x", CHART, "--set", "extender.tls.enabled=true", ok=False)
check("tls without a secret name is refused", p.returncode != 0 and "secretName is required" in p.stderr)

# --- default values
objs = render()
kinds = sorted({o["kind"] for o in objs})
check("default render has the expected kinds",
      kinds == ["ClusterRole", "ClusterRoleBinding", "ConfigMap", "Deployment",
                "PodDisruptionBudget", "Role", "RoleBinding", "Service", "ServiceAccount"], kinds)
deps = {d["metadata"]["name"]: d for d in find(objs, "Deployment")}
check("three deployments", sorted(deps) == ["dagsched-controller", "dagsched-extender",
                                           "dagsched-scheduler"], sorted(deps))
check("controller runs 2 replicas", deps["dagsched-controller"]["spec"]["replicas"] == 2)
ctrl_args = deps["dagsched-controller"]["spec"]["template"]["spec"]["containers"][0]["args"]
check("controller elects a leader", "--leader-elect=true" in ctrl_args and
      "--leader-elect-namespace=dagsched-system" in ctrl_args, ctrl_args)
check("controller is not in dry-run by default", "--dry-run" not in ctrl_args)
sc = scheduler_config(objs)
ext = sc["extenders"][0]
check("scheduler profile is dagsched", sc["profiles"][0]["schedulerName"] == "dagsched")
check("extender URL", ext["urlPrefix"] == "http://dagsched-extender.dagsched-system.svc:8888",
      ext["urlPrefix"])
check("extender verbs", (ext["filterVerb"], ext["prioritizeVerb"], ext["preemptVerb"]) ==
      ("filter", "prioritize", "preempt"))
check("nodeCacheCapable", ext["nodeCacheCapable"] is True)
check("extender not ignorable by default", ext["ignorable"] is False)
check("httpTimeout", ext["httpTimeout"] == "5s")
img = deps["dagsched-scheduler"]["spec"]["template"]["spec"]["containers"][0]["image"]
check("scheduler image", img == "registry.k8s.io/kube-scheduler:v1.32.3", img)
pols = [c for c in find(objs, "ConfigMap") if c["metadata"]["labels"].get("dagsched.io/kind") ==
        "SchedulingPolicy"]
check("one policy ConfigMap", len(pols) == 1)
pol = yaml.safe_load(pols[0]["data"]["policy.yaml"])
check("policy document", pol["apiVersion"] == "dagsched.io/v1alpha1" and
      pol["kind"] == "SchedulingPolicy" and pol["metadata"]["name"] == "default", pol)

for d, c in containers(objs):
    n = f"{d['metadata']['name']}/{c['name']}"
    sc_ = c.get("securityContext", {})
    check(f"{n}: no privilege escalation", sc_.get("allowPrivilegeEscalation") is False)
    check(f"{n}: read-only root filesystem", sc_.get("readOnlyRootFilesystem") is True)
    check(f"{n}: drops all capabilities", sc_.get("capabilities", {}).get("drop") == ["ALL"])
    check(f"{n}: resource requests", "cpu" in c["resources"]["requests"] and
          "memory" in c["resources"]["requests"])
    check(f"{n}: probes", "livenessProbe" in c and "readinessProbe" in c)
    psc = d["spec"]["template"]["spec"]["securityContext"]
    check(f"{n}: non-root, seccomp RuntimeDefault", psc.get("runAsNonRoot") is True and
          psc.get("seccompProfile", {}).get("type") == "RuntimeDefault")

# --- least privilege
for role in find(objs, "ClusterRole") + find(objs, "Role"):
    for rule in role["rules"]:
        n = role["metadata"]["name"]
        check(f"{n}: no wildcards", "*" not in rule["verbs"] and "*" not in rule["resources"])
        check(f"{n}: no secrets", "secrets" not in rule["resources"])
        check(f"{n}: no deletes", "delete" not in rule["verbs"] and
              "deletecollection" not in rule["verbs"])
ctrl_rules = find(objs, "ClusterRole", "dagsched-controller")[0]["rules"]
check("controller may evict", any("pods/eviction" in r["resources"] and r["verbs"] == ["create"]
                                  for r in ctrl_rules))
ext_rules = find(objs, "ClusterRole", "dagsched-extender")[0]["rules"]
check("extender writes nothing but events",
      all(set(r["verbs"]) <= {"get", "list", "watch"} or r["resources"] == ["events"]
          for r in ext_rules))


def verbs_on(rules, resource, group=""):
    """Every verb the rules grant on one resource of one API group."""
    return {v for r in rules if group in r.get("apiGroups", []) and resource in r["resources"]
            for v in r["verbs"]}


# spec.preemption.namespaceSelector: both read namespace labels, and nothing more.
check("controller reads namespaces (get, list, watch only)",
      verbs_on(ctrl_rules, "namespaces") == {"get", "list", "watch"},
      verbs_on(ctrl_rules, "namespaces"))
check("extender reads namespaces (get, list, watch only)",
      verbs_on(ext_rules, "namespaces") == {"get", "list", "watch"},
      verbs_on(ext_rules, "namespaces"))

# --- non-default values
objs2 = render("controller.dryRun=true", "extender.tls.enabled=true",
               "extender.tls.secretName=dagsched-tls", "metrics.serviceMonitor.enabled=true",
               "controller.leaderElection.enabled=false", "scheduler.extender.ignorable=true",
               "controller.replicas=1", "extender.replicas=1",
               '{policy.spec={"preemption":{"rho":2.5,"delta":0.2}}',
               '{policy.extra={"strict":{"deadlines":{"urgentThreshold":"1m"}}}')
deps2 = {d["metadata"]["name"]: d for d in find(objs2, "Deployment")}
ctrl2 = deps2["dagsched-controller"]["spec"]["template"]["spec"]["containers"][0]["args"]
check("dry-run flag", "--dry-run" in ctrl2)
check("leader election off", "--leader-elect=false" in ctrl2 and
      not any(a.startswith("--leader-elect-lease-name") for a in ctrl2))
ext2 = scheduler_config(objs2)["extenders"][0]
check("TLS URL and CA", ext2["urlPrefix"].startswith("https://") and ext2["enableHTTPS"] is True
      and ext2["tlsConfig"]["caFile"] == "/etc/dagsched/tls/ca.crt", ext2)
check("ignorable extender", ext2["ignorable"] is True)
eargs = deps2["dagsched-extender"]["spec"]["template"]["spec"]["containers"][0]["args"]
check("extender TLS flags", "--tls-cert=/etc/dagsched/tls/tls.crt" in eargs)
check("ServiceMonitor rendered", len(find(objs2, "ServiceMonitor")) == 1)
check("no PDB for single replicas", len(find(objs2, "PodDisruptionBudget")) == 0)
check("controller may nominate the freed node",
      any(r["resources"] == ["pods/status"] and r["verbs"] == ["patch"] for r in ctrl_rules))
pols2 = {c["metadata"]["name"]: yaml.safe_load(c["data"]["policy.yaml"])
         for c in find(objs2, "ConfigMap") if c["metadata"]["labels"].get("dagsched.io/kind")}
check("two policies", sorted(pols2) == ["dagsched-policy-default", "dagsched-policy-strict"],
      sorted(pols2))
check("policy values rendered",
      pols2["dagsched-policy-default"]["spec"]["preemption"] == {"rho": 2.5, "delta": 0.2})

# --- rendered policies parse with the product's own parser
checker = os.environ.get("DAGSCHED_POLICY_CHECK")
if checker:
    for name, doc in pols2.items():
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            yaml.safe_dump(doc, f)
        p = subprocess.run([checker, f.name], capture_output=True, text=True)
        os.unlink(f.name)
        check(f"{name} is a valid SchedulingPolicy", p.returncode == 0, p.stdout + p.stderr)

# --- the committed bundle matches the chart
with tempfile.NamedTemporaryFile("r", suffix=".yaml") as f:
    subprocess.run([os.path.join(ROOT, "hack", "render-manifests.sh"), f.name], check=True)
    fresh = f.read()
with open(os.path.join(ROOT, "manifests", "dagsched.yaml")) as f:
    committed = f.read()
check("manifests/dagsched.yaml is up to date (run hack/render-manifests.sh)", fresh == committed)

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
