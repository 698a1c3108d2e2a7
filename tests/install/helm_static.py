#!/usr/bin/env python3
"""helm_static.py: checks of the Helm chart that need no cluster: lint, schema validation, the
objects rendered with default and non-default values, least-privilege RBAC, restricted pod
security, HTTPS between scheduler and extender (generated certificate, cert-manager, existing
Secret, off), NetworkPolicies, NOTES.txt, and that manifests/ is in sync with the chart.
Prints 'N passed, N failed'."""
import base64
import datetime
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HELM = os.path.join(sys.argv[1], "helm")
KUBECTL = os.path.join(sys.argv[1], "kubectl")
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


def render_raw(*sets, chart=CHART):
    args = ["template", "dagsched", chart, "--namespace", NS]
    for s in sets:
        args += ["--set", s] if not s.startswith("{") else ["--set-json", s[1:]]
    return helm(*args).stdout


def render(*sets):
    return [d for d in yaml.safe_load_all(render_raw(*sets)) if d]


def find(objs, kind, name=None):
    return [o for o in objs if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]


def containers(objs):
    for d in find(objs, "Deployment"):
        for c in d["spec"]["template"]["spec"]["containers"]:
            yield d, c


def volume_of(dep, name):
    """The secret source of one volume of a Deployment's pod (None when absent)."""
    for v in dep["spec"]["template"]["spec"].get("volumes", []):
        if v["name"] == name:
            return v.get("secret")
    return None


def scheduler_config(objs):
    cm = find(objs, "ConfigMap", "dagsched-scheduler-config")[0]
    return yaml.safe_load(cm["data"]["scheduler-config.yaml"])


# --- lint and schema
lint = helm("lint", CHART, "--strict", ok=False)
check("helm lint --strict", lint.returncode == 0, lint.stdout + lint.stderr)
for bad, why in [("extender.port=0", "greater than or equal to 1"),
                 ("controller.logFormat=xml", "controller.logFormat"),
                 ("nosuchkey=1", "nosuchkey"),
                 ("scheduler.extender.httpTimeout=5", "httpTimeout"),
                 ("scheduler.clientConnection.burst=0", "burst")]:
    p = helm("template", "x", CHART, "--set", bad, ok=False)
    check(f"schema rejects {bad}", p.returncode != 0 and why in p.stderr, p.stderr[-300:])
for bad, why in [('networkPolicy.metricsFrom=[{"podSelectr":{}}]', "podSelectr"),
                 ('networkPolicy.extenderFrom=[{"ipBlock":{}}]', "cidr"),
                 ('extender.tls.certManager.issuerRef={"name":"x","kind":"Secret"}', "kind"),
                 ('extender.tls.generated.validityDays=0', "validityDays")]:
    p = helm("template", "x", CHART, "--set-json", bad, ok=False)
    check(f"schema rejects {bad}", p.returncode != 0 and why in p.stderr, p.stderr[-300:])
p = helm("template", "x", CHART, "--set", "extender.tls.secretName=mine",
         "--set", "extender.tls.certManager.enabled=true", ok=False)
check("an existing secret and cert-manager together are refused",
      p.returncode != 0 and "are exclusive" in p.stderr, p.stderr[-300:])
lint = helm("lint", CHART, "--strict", "--set", "extender.tls.certManager.enabled=true", ok=False)
check("helm lint --strict (cert-manager)", lint.returncode == 0, lint.stdout + lint.stderr)
lint = helm("lint", CHART, "--strict", "--set", "extender.tls.enabled=false",
            "--set", "networkPolicy.enabled=false", "--set", "admission.enabled=false", ok=False)
check("helm lint --strict (TLS and NetworkPolicies off)", lint.returncode == 0,
      lint.stdout + lint.stderr)

# --- default values
objs = render()
kinds = sorted({o["kind"] for o in objs})
check("default render has the expected kinds",
      kinds == ["ClusterRole", "ClusterRoleBinding", "ConfigMap", "Deployment", "Job",
                "MutatingWebhookConfiguration", "NetworkPolicy", "Pod", "PodDisruptionBudget", "Role",
                "RoleBinding", "Secret", "Service", "ServiceAccount"], kinds)
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
check("scheduler client rate limits (not kube-scheduler's 50/100)",
      (sc["clientConnection"]["qps"], sc["clientConnection"]["burst"]) == (200, 400), sc.get("clientConnection"))
c2 = scheduler_config(render("scheduler.clientConnection.qps=75",
                             "scheduler.clientConnection.burst=150"))["clientConnection"]
check("scheduler client rate limits follow the values", (c2["qps"], c2["burst"]) == (75, 150), c2)
check("extender URL is HTTPS by default",
      ext["urlPrefix"] == "https://dagsched-extender.dagsched-system.svc:8888", ext["urlPrefix"])
check("extender verbs", (ext["filterVerb"], ext["prioritizeVerb"], ext["preemptVerb"]) ==
      ("filter", "prioritize", "preempt"))
check("nodeCacheCapable", ext["nodeCacheCapable"] is True)
check("extender not ignorable by default", ext["ignorable"] is False)
check("httpTimeout", ext["httpTimeout"] == "5s")
img = deps["dagsched-scheduler"]["spec"]["template"]["spec"]["containers"][0]["image"]
check("scheduler image: the cluster's version by default (helm template's v1.32.0)",
      img == "registry.k8s.io/kube-scheduler:v1.32.0", img)
for kv, want in [("v1.29.4", "v1.29.4"), ("v1.30.2-eks-0a1b2c3", "v1.30.2"), ("v1.31.1+k3s1", "v1.31.1")]:
    p = helm("template", "dagsched", CHART, "--namespace", NS, "--kube-version", kv)
    got = [c["image"] for d, c in containers([o for o in yaml.safe_load_all(p.stdout) if o])
           if d["metadata"]["name"] == "dagsched-scheduler"]
    check(f"scheduler image follows the cluster version {kv}",
          got == [f"registry.k8s.io/kube-scheduler:{want}"], got)
img2 = [c["image"] for d, c in containers(render("scheduler.image.tag=v1.30.9"))
        if d["metadata"]["name"] == "dagsched-scheduler"]
check("scheduler image tag given in the values wins", img2 == ["registry.k8s.io/kube-scheduler:v1.30.9"], img2)
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
        # The uninstall hooks delete named objects only: the pre-delete hook this release's
        # webhook configuration, the post-delete hook what the components wrote at run time.
        exempt = (n == "dagsched-uninstall" and rule["verbs"] == ["delete"] and
                  rule["resources"] == ["mutatingwebhookconfigurations"] and
                  rule.get("resourceNames") == ["dagsched-dagsched-system"]) or \
                 (n == "dagsched-uninstall-cleanup" and rule["verbs"] == ["delete"] and
                  rule["resources"] in (["configmaps"], ["leases"]) and rule.get("resourceNames"))
        check(f"{n}: no deletes", exempt or ("delete" not in rule["verbs"] and
                                             "deletecollection" not in rule["verbs"]), rule)
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

# --- uninstall hook: runs before helm deletes anything, deletes only the release's webhook
hook_objs = [o for o in objs if o["metadata"]["name"] == "dagsched-uninstall"]
check("uninstall hook: ServiceAccount, ClusterRole, binding and Job",
      sorted(o["kind"] for o in hook_objs) ==
      ["ClusterRole", "ClusterRoleBinding", "Job", "ServiceAccount"], hook_objs)
check("uninstall hook: every object is a pre-delete hook removed once it succeeded",
      all(o["metadata"]["annotations"].get("helm.sh/hook") == "pre-delete" and
          "hook-succeeded" in o["metadata"]["annotations"].get("helm.sh/hook-delete-policy", "")
          for o in hook_objs))
hook_job = find(objs, "Job", "dagsched-uninstall")[0]
hook_c = hook_job["spec"]["template"]["spec"]["containers"][0]
webhook_names = [o["metadata"]["name"] for o in find(objs, "MutatingWebhookConfiguration")]
check("uninstall hook: deletes the webhook configuration the chart renders",
      hook_c["args"][0] == "uninstall" and
      [f"--webhook-configuration={n}" for n in webhook_names] ==
      [a for a in hook_c["args"] if a.startswith("--webhook-configuration=")], hook_c["args"])
check("uninstall hook: the controller image",
      hook_c["image"] == deps["dagsched-controller"]["spec"]["template"]["spec"]["containers"][0]
      ["image"])
hook_rules = find(objs, "ClusterRole", "dagsched-uninstall")[0]["rules"]
check("uninstall hook: lists and patches pods, nothing else on pods",
      verbs_on(hook_rules, "pods") == {"list", "patch"}, hook_rules)
p = helm("template", "x", CHART, "--set", "uninstallHook.enabled=false")
check("uninstall hook off: no Job", "kind: Job" not in p.stdout)

# --- post-delete hook: once the Deployments are gone, deletes what the components wrote at run
# time (the controller's ledger and learned run times, the leader-election Leases) and nothing else
CTL_MAIN = open(os.path.join(ROOT, "controller", "main.c")).read()
CTL_DEFAULT = dict(re.findall(r'o->(ledger_name|runtime_history_name) = "([^"]+)";', CTL_MAIN))
# A default that names a constant of lib/annotations.h is read from there.
with open(os.path.join(ROOT, "lib", "annotations.h")) as f:
    _ANN = dict(re.findall(r'#define (DS_[A-Z_]+)\s+"([^"]+)"', f.read()))
for _k, _c in re.findall(r'o->(ledger_name|runtime_history_name) = (DS_[A-Z_]+);', CTL_MAIN):
    CTL_DEFAULT[_k] = _ANN[_c]


def cleanup(objs_, prefix="dagsched"):
    """The post-delete hook's objects by kind, its args as {flag: [values]}, its Role's rules."""
    name = f"{prefix}-uninstall-cleanup"
    mine = {o["kind"]: o for o in objs_ if o["metadata"]["name"] == name}
    args = {}
    if "Job" in mine:
        for a in mine["Job"]["spec"]["template"]["spec"]["containers"][0]["args"]:
            k, _, v = a.partition("=")
            args.setdefault(k, []).append(v)
    return mine, args, mine["Role"]["rules"] if "Role" in mine else []


def selector_matches(sel, labels):
    """A label selector in the API's string form (k=v and k in (a,b) terms) against labels."""
    for term in re.findall(r"[^,()]+(?:\([^)]*\))?", sel):
        term = term.strip(",")
        m = re.fullmatch(r"(\S+) in \(([^)]*)\)", term)
        if m:
            if labels.get(m.group(1)) not in m.group(2).split(","):
                return False
        else:
            k, _, v = term.partition("=")
            if labels.get(k) != v:
                return False
    return True


mine, cargs, crules = cleanup(objs)
check("post-delete hook: ServiceAccount, Role, RoleBinding and Job, removed once it succeeded",
      sorted(mine) == ["Job", "Role", "RoleBinding", "ServiceAccount"] and
      all(o["metadata"]["annotations"].get("helm.sh/hook") == "post-delete" and
          "hook-succeeded" in o["metadata"]["annotations"]["helm.sh/hook-delete-policy"]
          for o in mine.values()), sorted(mine))
check("post-delete hook: the controller image, the objects-only step in the release namespace",
      cargs.get("uninstall") == [""] and cargs.get("--objects-only") == [""] and
      cargs.get("--namespace") == [NS] and
      mine["Job"]["spec"]["template"]["spec"]["containers"][0]["image"] ==
      deps["dagsched-controller"]["spec"]["template"]["spec"]["containers"][0]["image"], cargs)
check("post-delete hook: deletes the controller's ledger and learned run-time ConfigMaps "
      "(the controller's defaults)",
      cargs.get("--delete-configmap") == [CTL_DEFAULT["ledger_name"],
                                          CTL_DEFAULT["runtime_history_name"]], (cargs, CTL_DEFAULT))
ctl_lease = [a.split("=", 1)[1] for a in deps["dagsched-controller"]["spec"]["template"]["spec"]["containers"][0]["args"]
             if a.startswith("--leader-elect-lease-name=")]
sched_lease = scheduler_config(objs)["leaderElection"]["resourceName"]
check("post-delete hook: deletes the controller's and the scheduler's Leases",
      cargs.get("--delete-lease") == ctl_lease + [sched_lease] and len(ctl_lease) == 1, cargs)
wait_sel = (cargs.get("--wait-for-pods") or [""])[0]
waited = {n: selector_matches(wait_sel, d["spec"]["template"]["metadata"]["labels"])
          for n, d in deps.items()}
check("post-delete hook: first waits for the pods that write them (controller, scheduler) to go",
      waited == {"dagsched-controller": True, "dagsched-scheduler": True,
                 "dagsched-extender": False} and
      not selector_matches(wait_sel, mine["Job"]["spec"]["template"]["metadata"]["labels"]),
      (wait_sel, waited))
check("post-delete hook: its wait ends before the Job's deadline",
      0 < int(cargs["--wait-timeout"][0].rstrip("s")) < mine["Job"]["spec"]["activeDeadlineSeconds"],
      cargs.get("--wait-timeout"))
check("post-delete hook's Role: lists pods, deletes exactly those ConfigMaps and Leases",
      crules == [{"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]},
                 {"apiGroups": [""], "resources": ["configmaps"],
                  "resourceNames": cargs["--delete-configmap"], "verbs": ["delete"]},
                 {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
                  "resourceNames": cargs["--delete-lease"], "verbs": ["delete"]}] and
      mine["RoleBinding"]["subjects"] == [{"kind": "ServiceAccount", "namespace": NS,
                                           "name": "dagsched-uninstall-cleanup"}], crules)
_, a2, r2 = cleanup(render("controller.leaderElection.leaseName=ctl-lease",
                           '{controller.extraArgs=["--ledger-name=my-ledger"]'))
check("post-delete hook: a lease name from the values, a ledger name from controller.extraArgs",
      a2["--delete-lease"] == ["ctl-lease", sched_lease] and
      a2["--delete-configmap"] == ["my-ledger", CTL_DEFAULT["runtime_history_name"]] and
      r2[1]["resourceNames"] == ["my-ledger", CTL_DEFAULT["runtime_history_name"]], a2)
_, a3, r3 = cleanup(render("controller.leaderElection.enabled=false", "scheduler.leaderElect=false"))
check("post-delete hook: no Leases without leader election (and no right on Leases)",
      "--delete-lease" not in a3 and [r["resources"] for r in r3] == [["pods"], ["configmaps"]], r3)
_, a4, _ = cleanup(render("scheduler.enabled=false"))
check("post-delete hook: without the chart's scheduler only the controller's Lease",
      a4["--delete-lease"] == ctl_lease, a4)
_, a5, _ = cleanup(render("fullnameOverride=acme"), "acme")
check("post-delete hook: the scheduler's Lease follows fullnameOverride",
      a5.get("--delete-lease") == ctl_lease + ["acme-scheduler"], a5)
check("uninstall hook off: no post-delete hook either",
      cleanup(render("uninstallHook.enabled=false"))[0] == {})



# spec.preemption.namespaceSelector: both read namespace labels, and nothing more.
check("controller reads namespaces (get, list, watch only)",
      verbs_on(ctrl_rules, "namespaces") == {"get", "list", "watch"},
      verbs_on(ctrl_rules, "namespaces"))
check("extender reads namespaces (get, list, watch only)",
      verbs_on(ext_rules, "namespaces") == {"get", "list", "watch"},
      verbs_on(ext_rules, "namespaces"))

# Argo Workflows: both read them, and nothing more.
check("controller reads Argo Workflows (get, list, watch only)",
      verbs_on(ctrl_rules, "workflows", "argoproj.io") == {"get", "list", "watch"},
      verbs_on(ctrl_rules, "workflows", "argoproj.io"))
check("extender reads Argo Workflows (get, list, watch only)",
      verbs_on(ext_rules, "workflows", "argoproj.io") == {"get", "list", "watch"},
      verbs_on(ext_rules, "workflows", "argoproj.io"))

# --- the README's values table is generated from values.yaml
vt = subprocess.run([sys.executable, os.path.join(ROOT, "hack", "values-table.py"), "--check"],
                    capture_output=True, text=True)
check("helm/dagsched/README.md values table is up to date (hack/values-table.py)",
      vt.returncode == 0, vt.stderr)

# --- per-component pod settings: a component's own values replace the global ones
objs3 = render("nodeSelector.zone=a", "controller.nodeSelector.pool=system",
               '{controller.tolerations=[{"key":"dedicated","operator":"Exists"}]',
               "controller.podAnnotations.team=batch", "scheduler.podAnnotations.team=sched",
               '{controller.extraArgs=["--cache-max-age=60s"]',
               '{scheduler.extraArgs=["--kube-api-qps=100"]', "controller.logLevel=debug")
deps3 = {d["metadata"]["name"]: d["spec"]["template"] for d in find(objs3, "Deployment")}
ctl3 = deps3["dagsched-controller"]
check("controller's nodeSelector replaces the global one",
      ctl3["spec"]["nodeSelector"] == {"pool": "system"}, ctl3["spec"].get("nodeSelector"))
check("controller's tolerations", ctl3["spec"]["tolerations"] ==
      [{"key": "dedicated", "operator": "Exists"}])
check("the other components keep the global nodeSelector and no tolerations",
      all(deps3[n]["spec"]["nodeSelector"] == {"zone": "a"} and "tolerations" not in deps3[n]["spec"]
          for n in ("dagsched-extender", "dagsched-scheduler")))
check("controller podAnnotations", ctl3["metadata"].get("annotations") == {"team": "batch"})
check("scheduler podAnnotations beside its config checksum",
      deps3["dagsched-scheduler"]["metadata"]["annotations"].get("team") == "sched" and
      "checksum/config" in deps3["dagsched-scheduler"]["metadata"]["annotations"])
check("extender has no pod annotations by default",
      "annotations" not in deps3["dagsched-extender"]["metadata"])
cargs3 = ctl3["spec"]["containers"][0]["args"]
check("controller extraArgs and logLevel", "--cache-max-age=60s" in cargs3 and
      "--log-level=debug" in cargs3, cargs3)
check("extender logLevel defaults to info",
      "--log-level=info" in deps3["dagsched-extender"]["spec"]["containers"][0]["args"])
check("scheduler extraArgs",
      "--kube-api-qps=100" in deps3["dagsched-scheduler"]["spec"]["containers"][0]["command"])
p = helm("template", "x", CHART, "--set-json", 'controller.extraArgs=["rm -rf"]', ok=False)
check("schema rejects an extra argument that is not a flag", p.returncode != 0, p.stderr[-300:])
p = helm("template", "x", CHART, "--set", "extender.logLevel=loud", ok=False)
check("schema rejects an unknown logLevel", p.returncode != 0 and "logLevel" in p.stderr,
      p.stderr[-300:])

# --- the usual knobs: names, ServiceAccounts, pod labels and annotations, probes, spread
COMPONENTS = ("controller", "extender", "scheduler")


def tmpl(objs_, name):
    return find(objs_, "Deployment", name)[0]["spec"]["template"]


def hook_args(objs_):
    return find(objs_, "Job")[0]["spec"]["template"]["spec"]["containers"][0]["args"]


def names_of(objs_):
    return sorted(f'{o["kind"]}/{o["metadata"]["name"]}' for o in objs_)


def SELECTOR(c):
    return {"app.kubernetes.io/name": "dagsched", "app.kubernetes.io/instance": "dagsched",
            "app.kubernetes.io/component": c}


def sched_cfg(objs_, prefix):
    cm = find(objs_, "ConfigMap", f"{prefix}-scheduler-config")[0]
    return yaml.safe_load(cm["data"]["scheduler-config.yaml"])


dflt = render()


def knob(name, fn):
    """Runs one knob's checks; a render the chart refuses (before it had the knob) fails them."""
    try:
        fn()
    except (Exception, SystemExit) as e:
        check(f"{name}: renders", False, str(e)[-300:])


check("default names are unchanged (dagsched-<component>)",
      sorted(o["metadata"]["name"] for o in find(dflt, "Deployment")) ==
      ["dagsched-controller", "dagsched-extender", "dagsched-scheduler"] and
      sorted(o["metadata"]["name"] for o in find(dflt, "ServiceAccount")) ==
      ["dagsched-controller", "dagsched-extender", "dagsched-scheduler", "dagsched-uninstall",
       "dagsched-uninstall-cleanup"],
      names_of(find(dflt, "ServiceAccount")))


def knob_names():
    for setting, prefix in [("fullnameOverride=acme", "acme"), ("nameOverride=ds", "dagsched-ds")]:
        o = render(setting)
        other = [x for x in o if not x["metadata"]["name"].startswith(prefix + "-")]
        check(f"{setting}: every object's name starts with {prefix}-", other == [], names_of(other))
        check(f"{setting}: the webhook the hook deletes and the scheduler's Lease follow",
              [w["metadata"]["name"] for w in find(o, "MutatingWebhookConfiguration")] == [f"{prefix}-{NS}"]
              and f"--webhook-configuration={prefix}-{NS}" in hook_args(o)
              and sched_cfg(o, prefix)["leaderElection"]["resourceName"] == f"{prefix}-scheduler",
              hook_args(o))
        check(f"{setting}: the label app.kubernetes.io/name stays dagsched (as on the CLI's policies)",
              all(x["metadata"]["labels"]["app.kubernetes.io/name"] == "dagsched" for x in o
                  if "labels" in x["metadata"]))
    for bad in ("nameOverride=Bad_Name", "fullnameOverride=-x"):
        p = helm("template", "x", CHART, "--set", bad, ok=False)
        check(f"schema rejects {bad}", p.returncode != 0, p.stderr[-300:])


knob("names", knob_names)


# ServiceAccounts: per component, created or not, annotated, and the RBAC bound to the name used
def knob_service_accounts():
    o = render("controller.serviceAccount.create=false", "controller.serviceAccount.name=ops-ctl",
               "extender.serviceAccount.name=ext-sa",
               "extender.serviceAccount.annotations.eks\\.amazonaws\\.com/role-arn=arn:aws:iam::1:role/x",
               "scheduler.serviceAccount.annotations.iam\\.gke\\.io/gcp-service-account=s@p.iam")
    sas = {x["metadata"]["name"]: x for x in find(o, "ServiceAccount")}
    check("serviceAccount.create=false: the named account is not created",
          "ops-ctl" not in sas and "dagsched-controller" not in sas, sorted(sas))
    check("serviceAccount.name: the account created under that name",
          "ext-sa" in sas and "dagsched-extender" not in sas, sorted(sas))
    check("serviceAccount.annotations (IRSA, workload identity) on the accounts",
          sas["ext-sa"]["metadata"].get("annotations") ==
          {"eks.amazonaws.com/role-arn": "arn:aws:iam::1:role/x"} and
          sas["dagsched-scheduler"]["metadata"].get("annotations") ==
          {"iam.gke.io/gcp-service-account": "s@p.iam"}, sas)
    check("no annotations on the accounts by default",
          all("annotations" not in x["metadata"] for x in find(dflt, "ServiceAccount")
              if "uninstall" not in x["metadata"]["name"]))
    want_sa = {"controller": "ops-ctl", "extender": "ext-sa", "scheduler": "dagsched-scheduler"}
    check("each Deployment runs as its component's account",
          {c: tmpl(o, f"dagsched-{c}")["spec"]["serviceAccountName"] for c in COMPONENTS} == want_sa)
    bound = {}
    for b in find(o, "ClusterRoleBinding") + find(o, "RoleBinding"):
        bound.setdefault(b["metadata"]["name"].split("-")[1], set()).update(
            s_["name"] for s_ in b["subjects"])
    check("the chart's RBAC is bound to the accounts used",
          {c: bound.get(c) for c in COMPONENTS} == {c: {want_sa[c]} for c in COMPONENTS}, bound)
    p = helm("template", "x", CHART, "--set", "controller.serviceAccount.nmae=x", ok=False)
    check("schema rejects an unknown serviceAccount key", p.returncode != 0 and "nmae" in p.stderr,
          p.stderr[-300:])


knob("service accounts", knob_service_accounts)


# podLabels and podAnnotations: global, a component's replacing them, never the selector labels
def knob_pod_labels():
    o = render("podLabels.team=data", "controller.podLabels.team=sched",
               "podLabels.app\\.kubernetes\\.io/component=oops",
               "podAnnotations.example\\.com/owner=ops", "scheduler.podAnnotations.a=b")
    t = {c: tmpl(o, f"dagsched-{c}")["metadata"] for c in COMPONENTS}
    check("podLabels on the pods, a component's replacing the global ones",
          t["extender"]["labels"].get("team") == "data" and t["scheduler"]["labels"].get("team") == "data"
          and t["controller"]["labels"].get("team") == "sched", t)
    check("podLabels cannot replace a selector label",
          all(t[c]["labels"]["app.kubernetes.io/component"] == c for c in ("extender", "scheduler")))
    check("podAnnotations on the pods, a component's replacing the global ones",
          t["extender"].get("annotations") == {"example.com/owner": "ops"} and
          t["controller"].get("annotations") == {"example.com/owner": "ops"} and
          t["scheduler"]["annotations"].get("a") == "b" and
          "example.com/owner" not in t["scheduler"]["annotations"] and
          "checksum/config" in t["scheduler"]["annotations"], t)
    hook_meta = find(o, "Job")[0]["spec"]["template"]["metadata"]
    test_meta = find(o, "Pod")[0]["metadata"]
    check("the global podLabels and podAnnotations on the hook's and the helm test's pods",
          hook_meta["labels"].get("team") == "data" and
          hook_meta.get("annotations") == {"example.com/owner": "ops"} and
          test_meta["labels"].get("team") == "data" and
          test_meta["annotations"].get("example.com/owner") == "ops" and
          test_meta["annotations"].get("helm.sh/hook") == "test", (hook_meta, test_meta))
    check("no pod labels beyond the selector's by default",
          all(tmpl(dflt, f"dagsched-{c}")["metadata"]["labels"] == SELECTOR(c) for c in COMPONENTS))
    p = helm("template", "x", CHART, "--set", "podLabels.n=1", ok=False)
    check("schema rejects a podLabels value that is not a string", p.returncode != 0, p.stderr[-300:])


knob("pod labels", knob_pod_labels)


# probes: the chart's handlers, timing from the values
def knob_probes():
    o = render("controller.livenessProbe.periodSeconds=20", "controller.readinessProbe.failureThreshold=6",
               "extender.readinessProbe.timeoutSeconds=3", "scheduler.livenessProbe.initialDelaySeconds=30")
    cs = {c: tmpl(o, f"dagsched-{c}")["spec"]["containers"][0] for c in COMPONENTS}
    check("controller probes: the timing given over the chart's handler",
          cs["controller"]["livenessProbe"] == {"httpGet": {"path": "/healthz", "port": "metrics"},
                                                "periodSeconds": 20} and
          cs["controller"]["readinessProbe"] == {"httpGet": {"path": "/readyz", "port": "metrics"},
                                                 "failureThreshold": 6}, cs["controller"])
    check("extender readinessProbe timing",
          cs["extender"]["readinessProbe"].get("timeoutSeconds") == 3 and
          cs["extender"]["readinessProbe"]["httpGet"]["path"] == "/readyz", cs["extender"])
    check("scheduler livenessProbe timing replaces its default delay",
          cs["scheduler"]["livenessProbe"] == {"httpGet": {"path": "/livez", "port": 10259, "scheme": "HTTPS"},
                                               "initialDelaySeconds": 30}, cs["scheduler"])
    dcs = {c: tmpl(dflt, f"dagsched-{c}")["spec"]["containers"][0] for c in COMPONENTS}
    check("default probes as before",
          dcs["controller"]["livenessProbe"] == {"httpGet": {"path": "/healthz", "port": "metrics"}} and
          dcs["scheduler"]["livenessProbe"]["initialDelaySeconds"] == 15 and
          sorted(dcs["extender"]["readinessProbe"]) == ["httpGet"], dcs)
    for bad in ('controller.livenessProbe={"exec":{"command":["true"]}}',
                'extender.livenessProbe={"successThreshold":2}'):
        p = helm("template", "x", CHART, "--set-json", bad, ok=False)
        check(f"schema rejects {bad}", p.returncode != 0, p.stderr[-300:])


knob("probes", knob_probes)


# topologySpreadConstraints: spread by default over nodes when a component runs several replicas
ZONE = {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule"}


def knob_spread():
    HOSTNAME_SPREAD = {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
                       "whenUnsatisfiable": "ScheduleAnyway"}
    for c in COMPONENTS:
        spec = tmpl(dflt, f"dagsched-{c}")["spec"]
        replicas = find(dflt, "Deployment", f"dagsched-{c}")[0]["spec"]["replicas"]
        want = [{**HOSTNAME_SPREAD, "labelSelector": {"matchLabels": SELECTOR(c)}}] if replicas > 1 else None
        check(f"{c} ({replicas} replicas): default spread over nodes only with more than one replica",
              spec.get("topologySpreadConstraints") == want, spec.get("topologySpreadConstraints"))
    o = render("scheduler.replicas=3", "extender.replicas=1")
    check("the default spread follows the replicas",
          tmpl(o, "dagsched-scheduler")["spec"]["topologySpreadConstraints"] ==
          [{**HOSTNAME_SPREAD, "labelSelector": {"matchLabels": SELECTOR("scheduler")}}] and
          "topologySpreadConstraints" not in tmpl(o, "dagsched-extender")["spec"])
    o = render("{topologySpreadConstraints=" + json.dumps([ZONE]),
               "{controller.topologySpreadConstraints=" + json.dumps(
                   [{**ZONE, "maxSkew": 2, "labelSelector": {"matchLabels": {"x": "y"}}}]))
    check("global topologySpreadConstraints, the component's selector filled in",
          tmpl(o, "dagsched-extender")["spec"]["topologySpreadConstraints"] ==
          [{**ZONE, "labelSelector": {"matchLabels": SELECTOR("extender")}}] and
          tmpl(o, "dagsched-scheduler")["spec"]["topologySpreadConstraints"] ==
          [{**ZONE, "labelSelector": {"matchLabels": SELECTOR("scheduler")}}],
          tmpl(o, "dagsched-extender")["spec"].get("topologySpreadConstraints"))
    check("a component's topologySpreadConstraints replace the global ones, its labelSelector kept",
          tmpl(o, "dagsched-controller")["spec"]["topologySpreadConstraints"] ==
          [{**ZONE, "maxSkew": 2, "labelSelector": {"matchLabels": {"x": "y"}}}],
          tmpl(o, "dagsched-controller")["spec"].get("topologySpreadConstraints"))
    check("no spread on the hook's and the helm test's single pods",
          "topologySpreadConstraints" not in find(o, "Job")[0]["spec"]["template"]["spec"] and
          "topologySpreadConstraints" not in find(o, "Pod")[0]["spec"])
    p = helm("template", "x", CHART, "--set-json",
             'topologySpreadConstraints=[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"Maybe"}]',
             ok=False)
    check("schema rejects whenUnsatisfiable=Maybe", p.returncode != 0 and "whenUnsatisfiable" in p.stderr,
          p.stderr[-300:])


knob("spread", knob_spread)

lint = helm("lint", CHART, "--strict", "--set", "fullnameOverride=acme",
            "--set", "controller.serviceAccount.create=false",
            "--set", "extender.serviceAccount.annotations.a=b", "--set", "podLabels.team=data",
            "--set", "podAnnotations.a=b", "--set", "scheduler.livenessProbe.periodSeconds=5",
            "--set", "controller.readinessProbe.successThreshold=2",
            "--set-json", "topologySpreadConstraints=" + json.dumps([ZONE]), ok=False)
check("helm lint --strict (the knobs set)", lint.returncode == 0, lint.stdout + lint.stderr)

# --- non-default values
objs2 = render("controller.dryRun=true", "extender.tls.enabled=true",
               "extender.tls.secretName=dagsched-tls", "metrics.serviceMonitor.enabled=true",
               "admission.caBundle=Q0E=",
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
check("existing Secret: TLS URL and CA file", ext2["urlPrefix"].startswith("https://") and
      ext2["enableHTTPS"] is True and ext2["tlsConfig"]["caFile"] == "/etc/dagsched/tls/ca.crt"
      and "caData" not in ext2["tlsConfig"], ext2)
check("existing Secret: the chart renders no Secret of its own", find(objs2, "Secret") == [])
check("existing Secret: the scheduler mounts its ca.crt only",
      volume_of(deps2["dagsched-scheduler"], "tls") ==
      {"secretName": "dagsched-tls", "items": [{"key": "ca.crt", "path": "ca.crt"}]},
      volume_of(deps2["dagsched-scheduler"], "tls"))
check("existing Secret: the extender mounts it",
      volume_of(deps2["dagsched-extender"], "tls") == {"secretName": "dagsched-tls"})
check("ignorable extender", ext2["ignorable"] is True)
eargs = deps2["dagsched-extender"]["spec"]["template"]["spec"]["containers"][0]["args"]
check("extender TLS flags", "--tls-cert=/etc/dagsched/tls/tls.crt" in eargs)
check("ServiceMonitor rendered", len(find(objs2, "ServiceMonitor")) == 1)
sm_ext = find(objs2, "ServiceMonitor")[0]["spec"]["endpoints"][1]
svc2 = find(objs2, "Service", "dagsched-extender")[0]
check("ServiceMonitor scrapes the extender's port by its name, over HTTPS with the Secret's CA",
      sm_ext["port"] == svc2["spec"]["ports"][0]["name"] == "https" and
      sm_ext["scheme"] == "https" and
      sm_ext["tlsConfig"] == {"serverName": "dagsched-extender.dagsched-system.svc",
                              "ca": {"secret": {"name": "dagsched-tls", "key": "ca.crt"}}}, sm_ext)
check("ServiceMonitor keeps the metrics' own namespace label (honorLabels on every endpoint)",
      all(e.get("honorLabels") is True for e in find(objs2, "ServiceMonitor")[0]["spec"]["endpoints"]))
check("no PDB for single replicas", len(find(objs2, "PodDisruptionBudget")) == 0)
check("controller may nominate the freed node",
      any(r["resources"] == ["pods/status"] and r["verbs"] == ["patch"] for r in ctrl_rules))
pols2 = {c["metadata"]["name"]: yaml.safe_load(c["data"]["policy.yaml"])
         for c in find(objs2, "ConfigMap") if c["metadata"]["labels"].get("dagsched.io/kind")}
check("two policies", sorted(pols2) == ["dagsched-policy-default", "dagsched-policy-strict"],
      sorted(pols2))
check("policy values rendered",
      pols2["dagsched-policy-default"]["spec"]["preemption"] == {"rho": 2.5, "delta": 0.2})

# --- HTTPS between kube-scheduler and the extender
HOST = "dagsched-extender.dagsched-system.svc"


def openssl(*args):
    return subprocess.run(["openssl", *args], capture_output=True, text=True)


def pem_files(d, **pems):
    paths = {}
    for name, pem in pems.items():
        paths[name] = os.path.join(d, name)
        with open(paths[name], "w") as f:
            f.write(pem)
    return paths


def verifies(ca_pem, cert_pem, host):
    """openssl verify: cert_pem chains to ca_pem and is valid for host."""
    with tempfile.TemporaryDirectory() as d:
        f = pem_files(d, ca=ca_pem, cert=cert_pem)
        p = openssl("verify", "-CAfile", f["ca"], "-verify_hostname", host, f["cert"])
        return p.returncode == 0, p.stdout + p.stderr


def key_fits(cert_pem, key_pem):
    with tempfile.TemporaryDirectory() as d:
        f = pem_files(d, cert=cert_pem, key=key_pem)
        a = openssl("x509", "-in", f["cert"], "-noout", "-pubkey").stdout
        b = openssl("pkey", "-in", f["key"], "-pubout").stdout
        return a != "" and a == b


def validity_days(cert_pem):
    with tempfile.TemporaryDirectory() as d:
        f = pem_files(d, cert=cert_pem)
        out = openssl("x509", "-in", f["cert"], "-noout", "-startdate", "-enddate").stdout
    t = dict(line.split("=", 1) for line in out.splitlines())
    fmt = "%b %d %H:%M:%S %Y GMT"
    span = (datetime.datetime.strptime(" ".join(t["notAfter"].split()), fmt) -
            datetime.datetime.strptime(" ".join(t["notBefore"].split()), fmt))
    return span.total_seconds() / 86400


def b64(s):
    return base64.b64decode(s).decode()


def container(dep):
    return dep["spec"]["template"]["spec"]["containers"][0]


def doc_text(raw, template):
    """One rendered document's text as the template produced it (for checksums)."""
    for d in raw.split("\n---\n"):
        head = f"# Source: dagsched/templates/{template}\n"
        if head in d:
            return "\n" + d.split(head, 1)[1].rstrip("\n") + "\n"
    return None


raw = render_raw()
objs = [d for d in yaml.safe_load_all(raw) if d]
deps = {d["metadata"]["name"]: d for d in find(objs, "Deployment")}
secrets = find(objs, "Secret")
check("generated: one Secret dagsched-extender-tls of type kubernetes.io/tls",
      [(x["metadata"]["name"], x["type"]) for x in secrets] ==
      [("dagsched-extender-tls", "kubernetes.io/tls")], secrets)
tls = {k: b64(v) for k, v in secrets[0]["data"].items()}
check("generated: the Secret holds ca.crt, tls.crt and tls.key",
      sorted(tls) == ["ca.crt", "tls.crt", "tls.key"], sorted(tls))
for name in (HOST, HOST + ".cluster.local"):
    ok, out = verifies(tls["ca.crt"], tls["tls.crt"], name)
    check(f"generated: tls.crt chains to ca.crt and is valid for {name}", ok, out)
ok, out = verifies(tls["ca.crt"], tls["tls.crt"], "evil.dagsched-system.svc")
check("generated: tls.crt is not valid for another name", not ok, out)
check("generated: tls.key is the key of tls.crt", key_fits(tls["tls.crt"], tls["tls.key"]))
days = validity_days(tls["tls.crt"])
check("generated: valid 3650 days by default", abs(days - 3650) < 1, days)
ext = scheduler_config(objs)["extenders"][0]
check("generated: enableHTTPS, caData is the Secret's ca.crt, serverName is the Service",
      ext["enableHTTPS"] is True and ext["tlsConfig"] ==
      {"caData": secrets[0]["data"]["ca.crt"], "serverName": HOST}, ext)
annot = deps["dagsched-scheduler"]["spec"]["template"]["metadata"]["annotations"]
cfg_text = doc_text(raw, "scheduler-config.yaml")
check("generated: the scheduler's config checksum covers the same CA (one certificate per render)",
      cfg_text is not None and
      annot["checksum/config"] == hashlib.sha256(cfg_text.encode()).hexdigest(), annot)
check("generated: the scheduler mounts no Secret (the key stays with the extender)",
      volume_of(deps["dagsched-scheduler"], "tls") is None)
ec = container(deps["dagsched-extender"])
check("generated: extender TLS flags",
      "--tls-cert=/etc/dagsched/tls/tls.crt" in ec["args"] and
      "--tls-key=/etc/dagsched/tls/tls.key" in ec["args"], ec["args"])
check("generated: the extender mounts the Secret at /etc/dagsched/tls",
      volume_of(deps["dagsched-extender"], "tls") == {"secretName": "dagsched-extender-tls"} and
      {"name": "tls", "mountPath": "/etc/dagsched/tls", "readOnly": True} in ec["volumeMounts"])
check("generated: probes over HTTPS",
      ec["livenessProbe"]["httpGet"]["scheme"] == "HTTPS" and
      ec["readinessProbe"]["httpGet"]["scheme"] == "HTTPS")
svc = find(objs, "Service", "dagsched-extender")[0]
check("generated: port named https (and the webhook's)", svc["spec"]["ports"] ==
      [{"name": "https", "port": 8888, "targetPort": "https"},
       {"name": "webhook", "port": 9443, "targetPort": "webhook"}] and
      ec["ports"] == [{"name": "https", "containerPort": 8888},
                      {"name": "webhook", "containerPort": 9443}], svc["spec"]["ports"])
objs30 = render("extender.tls.generated.validityDays=30")
days = validity_days(b64(find(objs30, "Secret")[0]["data"]["tls.crt"]))
check("generated: validityDays=30", abs(days - 30) < 1, days)

# TLS off
off = render("extender.tls.enabled=false", "admission.enabled=false")
offdeps = {d["metadata"]["name"]: d for d in find(off, "Deployment")}
oext = scheduler_config(off)["extenders"][0]
check("TLS off: http URL, no enableHTTPS, no tlsConfig",
      oext["urlPrefix"] == "http://dagsched-extender.dagsched-system.svc:8888" and
      oext["enableHTTPS"] is False and "tlsConfig" not in oext, oext)
oc = container(offdeps["dagsched-extender"])
check("TLS off: no Secret, no TLS flags, no volumes",
      find(off, "Secret") == [] and not any(a.startswith("--tls") for a in oc["args"]) and
      "volumes" not in offdeps["dagsched-extender"]["spec"]["template"]["spec"] and
      volume_of(offdeps["dagsched-scheduler"], "tls") is None)
check("TLS off: HTTP probes, port named http",
      oc["livenessProbe"]["httpGet"]["scheme"] == "HTTP" and oc["ports"][0]["name"] == "http")

# cert-manager with the chart's own CA
cm = render("extender.tls.certManager.enabled=true")
cmdeps = {d["metadata"]["name"]: d for d in find(cm, "Deployment")}
issuers = {i["metadata"]["name"]: i["spec"] for i in find(cm, "Issuer")}
certs = {c["metadata"]["name"]: c["spec"] for c in find(cm, "Certificate")}
check("cert-manager: no Secret rendered", find(cm, "Secret") == [])
check("cert-manager: a selfSigned Issuer and a CA Issuer",
      issuers.get("dagsched-selfsigned") == {"selfSigned": {}} and
      issuers.get("dagsched-ca") == {"ca": {"secretName": "dagsched-ca"}}, issuers)
check("cert-manager: the CA Certificate is self-signed and isCA",
      certs.get("dagsched-ca", {}).get("isCA") is True and
      certs["dagsched-ca"]["secretName"] == "dagsched-ca" and
      certs["dagsched-ca"]["issuerRef"]["name"] == "dagsched-selfsigned", certs)
serving = certs.get("dagsched-extender", {})
check("cert-manager: the serving Certificate is for the Service, from the CA Issuer",
      serving.get("dnsNames", [])[:2] == [HOST, HOST + ".cluster.local"] and
      serving["issuerRef"] == {"name": "dagsched-ca", "kind": "Issuer", "group": "cert-manager.io"}
      and "server auth" in serving["usages"], serving)
check("cert-manager: duration and renewBefore", (serving.get("duration"),
      serving.get("renewBefore")) == ("2160h", "360h"), serving)
cmsecret = serving.get("secretName")
check("cert-manager: the extender mounts the Certificate's Secret",
      cmsecret == "dagsched-extender-cert-manager-tls" and
      volume_of(cmdeps["dagsched-extender"], "tls") == {"secretName": cmsecret})
check("cert-manager: the scheduler trusts the issuing CA from the Secret's ca.crt",
      volume_of(cmdeps["dagsched-scheduler"], "tls") ==
      {"secretName": cmsecret, "items": [{"key": "ca.crt", "path": "ca.crt"}]} and
      scheduler_config(cm)["extenders"][0]["tlsConfig"] ==
      {"caFile": "/etc/dagsched/tls/ca.crt", "serverName": HOST})
cm2 = render("extender.tls.certManager.enabled=true",
             '{extender.tls.certManager.issuerRef={"name":"corp-ca","kind":"ClusterIssuer"}')
check("cert-manager with issuerRef: no Issuer of the chart's, one Certificate from that issuer",
      find(cm2, "Issuer") == [] and
      [c["spec"]["issuerRef"] for c in find(cm2, "Certificate")] ==
      [{"name": "corp-ca", "kind": "ClusterIssuer", "group": "cert-manager.io"}],
      find(cm2, "Certificate"))

# --- NetworkPolicies


def pod_labels(dep):
    return dep["spec"]["template"]["metadata"]["labels"]


def policies(objs_):
    return {n["metadata"]["name"]: n["spec"] for n in find(objs_, "NetworkPolicy")}


TEST = {"podSelector": {"matchLabels": {"app.kubernetes.io/name": "dagsched",
                                         "app.kubernetes.io/instance": "dagsched",
                                         "app.kubernetes.io/component": "test"}}}
MONITORING = [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}]
nps = policies(objs)
check("three NetworkPolicies by default", sorted(nps) ==
      ["dagsched-controller", "dagsched-extender", "dagsched-scheduler"], sorted(nps))
for c in ("extender", "controller", "scheduler"):
    n = nps.get(f"dagsched-{c}", {})
    check(f"NetworkPolicy {c}: selects the {c} pods, ingress only",
          n.get("podSelector") == {"matchLabels": pod_labels(deps[f"dagsched-{c}"])} and
          n.get("policyTypes") == ["Ingress"], n)
    check(f"NetworkPolicy {c}: every rule names its peers (a rule without `from` admits all)",
          all(r.get("from") for r in n.get("ingress", [{}])), n)
ANYWHERE = [{"ipBlock": {"cidr": "0.0.0.0/0"}}, {"ipBlock": {"cidr": "::/0"}}]
check("NetworkPolicy extender: port 8888 from the scheduler pods and the helm test Pod, the webhook port 9443 "
      "(no scheduling verbs) from any address (the API server is not a pod)",
      nps["dagsched-extender"]["ingress"] ==
      [{"from": [{"podSelector": {"matchLabels": pod_labels(deps["dagsched-scheduler"])}}, TEST],
        "ports": [{"protocol": "TCP", "port": 8888}]},
       {"from": ANYWHERE, "ports": [{"protocol": "TCP", "port": 9443}]}],
      nps["dagsched-extender"])
check("NetworkPolicy controller: metrics port from the helm test Pod and the monitoring namespace",
      nps["dagsched-controller"]["ingress"] ==
      [{"from": [TEST] + MONITORING, "ports": [{"protocol": "TCP", "port": 10271}]}])
check("NetworkPolicy scheduler: secure port 10259 from the monitoring namespace",
      nps["dagsched-scheduler"]["ingress"] ==
      [{"from": MONITORING, "ports": [{"protocol": "TCP", "port": 10259}]}] and
      container(deps["dagsched-scheduler"])["ports"][0]["containerPort"] == 10259)
check("networkPolicy.enabled=false renders none",
      find(render("networkPolicy.enabled=false"), "NetworkPolicy") == [])
np = policies(render("{networkPolicy.metricsFrom=[]", "extender.port=9444", "helmTest.enabled=false",
                     "controller.metricsPort=9100"))
check("metricsFrom=[] admits nobody on the metrics ports (ingress: [])",
      np["dagsched-controller"]["ingress"] == [] and np["dagsched-scheduler"]["ingress"] == [], np)
check("extender.port moves the extender's rule",
      np["dagsched-extender"]["ingress"][0]["ports"] == [{"protocol": "TCP", "port": 9444}])
extra = [{"ipBlock": {"cidr": "10.0.0.0/24"}}]
np = policies(render('{networkPolicy.extenderFrom=[{"ipBlock":{"cidr":"10.0.0.0/24"}}]'))
check("extenderFrom adds peers after the scheduler pods",
      np["dagsched-extender"]["ingress"][0]["from"] ==
      [{"podSelector": {"matchLabels": pod_labels(deps["dagsched-scheduler"])}}, TEST] + extra, np)
np = policies(render("scheduler.enabled=false", "admission.enabled=false", "helmTest.enabled=false"))
check("no chart scheduler, no extenderFrom, no webhook: the extender admits nobody",
      np["dagsched-extender"]["ingress"] == [] and "dagsched-scheduler" not in np, np)
np = policies(render("scheduler.enabled=false", "{networkPolicy.webhookFrom=[]",
                     "helmTest.enabled=false"))
check("webhookFrom=[] and no scheduler: the extender admits nobody", 
      np["dagsched-extender"]["ingress"] == [], np)
np = policies(render('{networkPolicy.webhookFrom=[{"ipBlock":{"cidr":"10.0.0.0/24"}}]'))
check("webhookFrom narrows the webhook port's peers",
      np["dagsched-extender"]["ingress"][1] ==
      {"from": [{"ipBlock": {"cidr": "10.0.0.0/24"}}], "ports": [{"protocol": "TCP", "port": 9443}]},
      np)
np = policies(render("scheduler.enabled=false", "helmTest.enabled=false",
                     '{networkPolicy.extenderFrom=[{"ipBlock":{"cidr":"10.0.0.0/24"}}]'))
check("no chart scheduler: the extender admits extenderFrom only",
      np["dagsched-extender"]["ingress"][0]["from"] == extra, np)

# --- helm test: a Pod that probes /readyz of both components, admitted by the NetworkPolicies
tpod = find(objs, "Pod", "dagsched-test-readyz")[0]
check("helm test Pod: a test hook removed once it succeeded",
      tpod["metadata"]["annotations"] == {"helm.sh/hook": "test", "helm.sh/hook-delete-policy":
                                          "before-hook-creation,hook-succeeded"})
check("helm test Pod: labelled as the NetworkPolicies' test peer",
      {k: tpod["metadata"]["labels"][k] for k in TEST["podSelector"]["matchLabels"]} ==
      TEST["podSelector"]["matchLabels"])
targs = tpod["spec"]["containers"][0]["args"]
check("helm test Pod: probes the extender over HTTPS with the chart's CA and the controller",
      targs == ["probe", f"--url=https://dagsched-extender.{NS}.svc:8888/readyz",
                f"--url=http://dagsched-metrics.{NS}.svc:10271/readyz",
                "--cacert=/etc/dagsched/tls/ca.crt"], targs)
check("helm test Pod: mounts only ca.crt of the extender's Secret",
      tpod["spec"]["volumes"] == [{"name": "tls", "secret": {
          "secretName": "dagsched-extender-tls", "items": [{"key": "ca.crt", "path": "ca.crt"}]}}])
t_off = [o for o in render("extender.tls.enabled=false", "admission.enabled=false",
                           "metrics.service.enabled=false") if o["kind"] == "Pod"][0]
check("helm test Pod: plain HTTP and no controller URL without TLS and the metrics Service",
      t_off["spec"]["containers"][0]["args"] ==
      ["probe", f"--url=http://dagsched-extender.{NS}.svc:8888/readyz"] and
      "volumes" not in t_off["spec"], t_off["spec"])
check("helmTest.enabled=false: no Pod", find(render("helmTest.enabled=false"), "Pod") == [])

# --- observability: alerts and dashboard, every metric they name exported by a binary
obs = render("metrics.prometheusRule.enabled=true", "metrics.dashboard.enabled=true")
rules = find(obs, "PrometheusRule")
dash_cm = find(obs, "ConfigMap", "dagsched-dashboard")
check("PrometheusRule and dashboard ConfigMap rendered when enabled", len(rules) == 1 and
      len(dash_cm) == 1)
check("neither by default", find(objs, "PrometheusRule") == [] and
      find(objs, "ConfigMap", "dagsched-dashboard") == [])
alerts = {r["alert"]: r for g in rules[0]["spec"]["groups"] for r in g["rules"]}
check("alerts: deadline misses, extender errors, no leader, caches out of contact",
      sorted(alerts) == ["DagschedControllerCacheNotSynced", "DagschedControllerNotLeading",
                         "DagschedDeadlinesMissed", "DagschedExtenderCacheNotSynced",
                         "DagschedExtenderErrors"], sorted(alerts))
check("alert annotations keep Prometheus templates for Prometheus",
      "{{ $labels.namespace }}" in alerts["DagschedDeadlinesMissed"]["annotations"]["summary"])
check("the deadline alert's text gives the ratio in per cent (0.1: 10 %)",
      alerts["DagschedDeadlinesMissed"]["annotations"]["description"].startswith("More than 10% "),
      alerts["DagschedDeadlinesMissed"]["annotations"]["description"])
quarter = {r["alert"]: r for g in find(render("metrics.prometheusRule.enabled=true",
                                              "metrics.prometheusRule.deadlineMissRatio=0.25"),
                                       "PrometheusRule")[0]["spec"]["groups"] for r in g["rules"]}
check("--set of a decimal ratio (a string to helm) is accepted, in the text and the expression",
      quarter["DagschedDeadlinesMissed"]["annotations"]["description"].startswith("More than 25% ")
      and "> 0.25" in quarter["DagschedDeadlinesMissed"]["expr"],
      quarter["DagschedDeadlinesMissed"])
check("a ratio over 1 is refused",
      helm("template", "dagsched", CHART, "--set", "metrics.prometheusRule.deadlineMissRatio=1.5",
           ok=False).returncode != 0)
qps_cfg = find(render("scheduler.clientConnection.qps=12.5"), "ConfigMap")
check("--set of a decimal client QPS is accepted and rendered as a number",
      any("qps: 12.5\n" in v for cm in qps_cfg for v in (cm.get("data") or {}).values()))
dash = json.loads(dash_cm[0]["data"]["dagsched.json"])
check("dashboard: the sidecar's label, valid JSON with panels",
      dash_cm[0]["metadata"]["labels"].get("grafana_dashboard") == "1" and
      len(dash["panels"]) >= 10)
exprs = [r["expr"] for r in alerts.values()] + [t["expr"] for p in dash["panels"]
                                                 for t in p["targets"]]
sources = ""
for d in ("controller", "extender", "runtime", "kube"):
    for f in sorted(os.listdir(os.path.join(ROOT, d))):
        if f.endswith(".c"):
            with open(os.path.join(ROOT, d, f)) as fh:
                sources += fh.read()
named = set()
for e in exprs:
    for m in re.findall(r"\bdagsched_[a-z_]+", e):
        named.add(re.sub(r"_(bucket|count|sum)$", "", m))
missing = sorted(n for n in named if f'"{n}"' not in sources)
check(f"every metric the alerts and the dashboard use is exported ({len(named)} metrics)",
      len(named) >= 10 and missing == [], missing)

# --- the admission webhook (docs/admission.md)


def webhooks(objs_):
    w = find(objs_, "MutatingWebhookConfiguration")
    return w[0] if len(w) == 1 else None


EXCLUDE = {"key": "kubernetes.io/metadata.name", "operator": "NotIn",
           "values": ["kube-system", NS]}
mwc = webhooks(objs)
hooks = mwc["webhooks"] if mwc else []
h = hooks[0] if hooks else {}
check("webhook: one MutatingWebhookConfiguration with one webhook gate.dagsched.io",
      mwc is not None and mwc["metadata"]["name"] == f"dagsched-{NS}" and
      [x["name"] for x in hooks] == ["gate.dagsched.io"], mwc)
check("webhook: Pod CREATE v1, sideEffects None, AdmissionReview v1, 5 s, Ignore, IfNeeded",
      h.get("rules") == [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
                          "resources": ["pods"], "scope": "Namespaced"}] and
      h.get("sideEffects") == "None" and h.get("admissionReviewVersions") == ["v1"] and
      h.get("timeoutSeconds") == 5 and h.get("failurePolicy") == "Ignore" and
      h.get("reinvocationPolicy") == "IfNeeded", h)
check("webhook: the extender Service's webhook port, path /mutate-pods",
      h.get("clientConfig", {}).get("service") ==
      {"name": "dagsched-extender", "namespace": NS, "path": "/mutate-pods", "port": 9443}, h)
check("webhook: caBundle is the generated Secret's ca.crt (the same certificate as the scheduler's)",
      h.get("clientConfig", {}).get("caBundle") == secrets[0]["data"]["ca.crt"] and
      scheduler_config(objs)["extenders"][0]["tlsConfig"]["caData"] ==
      secrets[0]["data"]["ca.crt"], h.get("clientConfig"))
check("webhook: namespaceSelector excludes kube-system and the release namespace",
      h.get("namespaceSelector") == {"matchExpressions": [EXCLUDE]} and "objectSelector" not in h, h)
edep = deps["dagsched-extender"]
eargs = container(edep)["args"]
check("webhook: the extender serves it on its own listener with the scheduler's name",
      "--admission-listen=0.0.0.0:9443" in eargs and
      "--admission-scheduler-name=dagsched" in eargs and
      f"--admission-install-namespace={NS}" in eargs and
      "--admission-set-scheduler-name" not in eargs and
      {"name": "webhook", "containerPort": 9443} in container(edep)["ports"], eargs)
esvc = find(objs, "Service", "dagsched-extender")[0]
check("webhook: the extender Service has the webhook port",
      {"name": "webhook", "port": 9443, "targetPort": "webhook"} in esvc["spec"]["ports"],
      esvc["spec"]["ports"])
for fp in ("Fail", "Ignore"):
    w = webhooks(render(f"admission.failurePolicy={fp}"))
    check(f"webhook: failurePolicy={fp}", w["webhooks"][0]["failurePolicy"] == fp, w)
p = helm("template", "x", CHART, "--set", "admission.failurePolicy=Never", ok=False)
check("schema rejects admission.failurePolicy=Never",
      p.returncode != 0 and "failurePolicy" in p.stderr, p.stderr[-300:])
w = webhooks(render("admission.timeoutSeconds=2", "admission.port=9555", "scheduler.schedulerName=batch",
                    '{admission.namespaceSelector={"matchLabels":{"dagsched.io/admission":"on"}}',
                    '{admission.objectSelector={"matchLabels":{"app":"etl"}}'))
h2 = w["webhooks"][0]
check("webhook: user namespaceSelector ANDed with the exclusion; objectSelector; timeout; port",
      h2["namespaceSelector"] == {"matchLabels": {"dagsched.io/admission": "on"},
                                  "matchExpressions": [EXCLUDE]} and
      h2["objectSelector"] == {"matchLabels": {"app": "etl"}} and h2["timeoutSeconds"] == 2 and
      h2["clientConfig"]["service"]["port"] == 9555, h2)
o3 = render("admission.setSchedulerName.enabled=true", "scheduler.schedulerName=batch")
w = webhooks(o3)
check("webhook: setSchedulerName adds a second webhook on its path for opted-in namespaces",
      [(x["name"], x["clientConfig"]["service"]["path"]) for x in w["webhooks"]] ==
      [("gate.dagsched.io", "/mutate-pods"),
       ("scheduler-name.dagsched.io", "/mutate-pods/set-scheduler-name")] and
      w["webhooks"][1]["namespaceSelector"] ==
      {"matchLabels": {"dagsched.io/scheduler-name": "enabled"}, "matchExpressions": [EXCLUDE]},
      w)
a3 = container({d["metadata"]["name"]: d for d in find(o3, "Deployment")}["dagsched-extender"])["args"]
check("webhook: setSchedulerName passes the flag and the scheduler name",
      "--admission-set-scheduler-name" in a3 and "--admission-scheduler-name=batch" in a3, a3)
w = webhooks(render("extender.tls.certManager.enabled=true"))
check("webhook (cert-manager): CA injected from the serving Certificate, no caBundle",
      w["metadata"].get("annotations") == {"cert-manager.io/inject-ca-from": f"{NS}/dagsched-extender"}
      and "caBundle" not in w["webhooks"][0]["clientConfig"], w)
p = helm("template", "x", CHART, "--set", "extender.tls.secretName=mine", ok=False)
check("webhook (existing Secret): admission.caBundle required",
      p.returncode != 0 and "admission.caBundle" in p.stderr, p.stderr[-300:])
w = webhooks(render("extender.tls.secretName=mine", "admission.caBundle=Q0E="))
check("webhook (existing Secret): caBundle from admission.caBundle",
      w["webhooks"][0]["clientConfig"]["caBundle"] == "Q0E=", w)
p = helm("template", "x", CHART, "--set", "extender.tls.enabled=false", ok=False)
check("webhook: refused without TLS (the API server calls webhooks over HTTPS only)",
      p.returncode != 0 and "admission.enabled requires extender.tls.enabled" in p.stderr,
      p.stderr[-300:])
p = helm("template", "x", CHART, "--set", "admission.port=8888", ok=False)
check("webhook: its port must differ from the extender's",
      p.returncode != 0 and "admission.port" in p.stderr, p.stderr[-300:])
off2 = render("admission.enabled=false")
od = {d["metadata"]["name"]: d for d in find(off2, "Deployment")}["dagsched-extender"]
check("admission.enabled=false: no webhook, no webhook listener or port",
      webhooks(off2) is None and
      not any(a.startswith("--admission") for a in container(od)["args"]) and
      len(find(off2, "Service", "dagsched-extender")[0]["spec"]["ports"]) == 1)

# --- NOTES.txt (rendered through a copy of the chart that exposes it as a ConfigMap)
# The controller's Event reasons: CTL_EV_* in controller/publish.h, a string or a DS_EV_* of
# lib/annotations.h (the reasons the controller and the extender share).
_SHARED = dict(re.findall(r'#define (DS_EV_\w+)\s+"(\w+)"',
                          open(os.path.join(ROOT, "lib", "annotations.h")).read()))
REASONS = {_SHARED.get(v, v.strip('"')) for v in
           re.findall(r'#define CTL_EV_\w+\s+("\w+"|DS_EV_\w+)',
                      open(os.path.join(ROOT, "controller", "publish.h")).read())}


def notes(*sets):
    with tempfile.TemporaryDirectory() as d:
        chart = os.path.join(d, "dagsched")
        shutil.copytree(CHART, chart)
        shutil.copy(os.path.join(chart, "templates", "NOTES.txt"), os.path.join(chart, "notes.txt"))
        with open(os.path.join(chart, "templates", "zz-notes.yaml"), "w") as f:
            f.write('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: notes}\n'
                    'data: {notes: {{ tpl (.Files.Get "notes.txt") . | quote }}}\n')
        out = render_raw(*sets, chart=chart)
    return [o for o in yaml.safe_load_all(out) if o and o["metadata"]["name"] == "notes"][0][
        "data"]["notes"]


n = notes()
check("NOTES: Events of every namespace, by the controller's reason",
      "kubectl get events -A --field-selector reason=DagschedEvicted" in n, n)
check("NOTES: no release-namespace-only Events query", "-n dagsched-system get events" not in n)
used = set(re.findall(r"reason=(\w+)", n))
check("NOTES: every Event reason it names is one the controller posts",
      used and used <= REASONS, (used, REASONS))
check("NOTES: policies change through values, not by editing the ConfigMap",
      "policy.spec" in n and "edit it" not in n, n)
shown = re.findall(r"--set-json '([^']*)'", n)
p = helm("template", "x", CHART, *[a for v in shown for a in ("--set-json", v)], ok=False)
check("NOTES: the policy change it shows renders (and no --set-file, which gives a string)",
      shown and p.returncode == 0 and "rho: 2" in p.stdout and "--set-file" not in n,
      (shown, p.stderr[-300:]))
check("NOTES: the extender URL is HTTPS", "https://dagsched-extender.dagsched-system.svc:8888" in n)
n = notes("controller.dryRun=true")
check("NOTES (dry-run): the Events a dry run posts",
      "reason=DagschedWouldEvict" in n and "reason=DagschedEvicted" not in n, n)
n = notes("extender.tls.enabled=false", "networkPolicy.enabled=false", "admission.enabled=false")
check("NOTES (TLS and NetworkPolicies off): both warned about",
      "WARNING: plain HTTP" in n and "any pod in the cluster can reach" in n, n)

# --- the bundle: no private key in the repository; the Secret it expects comes from the script
with open(os.path.join(ROOT, "manifests", "dagsched.yaml")) as f:
    bundle = [d for d in yaml.safe_load_all(f) if d]
bdeps = {d["metadata"]["name"]: d for d in find(bundle, "Deployment")}
check("bundle: no Secret (no shared private key)", find(bundle, "Secret") == [])
check("bundle: no admission webhook (its CA is made at install time, docs/admission.md)",
      find(bundle, "MutatingWebhookConfiguration") == [])
check("bundle: HTTPS from the Secret dagsched-extender-tls, NetworkPolicies on",
      volume_of(bdeps["dagsched-extender"], "tls") == {"secretName": "dagsched-extender-tls"} and
      scheduler_config(bundle)["extenders"][0]["urlPrefix"].startswith("https://") and
      len(find(bundle, "NetworkPolicy")) == 3)
p = subprocess.run([os.path.join(ROOT, "hack", "gen-extender-tls.sh")], capture_output=True,
                   text=True, env={**os.environ, "KUBECTL": KUBECTL})
gen = yaml.safe_load(p.stdout) if p.returncode == 0 else {}
check("gen-extender-tls.sh prints the Secret the bundle expects",
      gen.get("metadata", {}).get("name") == "dagsched-extender-tls" and
      gen["metadata"].get("namespace") == NS and gen.get("type") == "kubernetes.io/tls",
      p.stderr or gen)
if gen:
    g = {k: b64(v) for k, v in gen["data"].items()}
    ok, out = verifies(g["ca.crt"], g["tls.crt"], HOST)
    check("gen-extender-tls.sh: tls.crt chains to ca.crt for the Service name", ok, out)
    check("gen-extender-tls.sh: tls.key is the key of tls.crt", key_fits(g["tls.crt"], g["tls.key"]))

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
