#!/usr/bin/env python3
"""test_jobs_cmd.py: `kubectl dagsched get jobs`, `get tenants`, `describe job`, `gantt`, `explain pod`, `policy apply`
and the completion of job and pod names against a real control plane (run inside hack/cluster/with-cluster.sh, KUBECONFIG set), as a DAG owner and
an operator run them.

The job is examples/hello-dag.yaml (fetch -> greet -> report, deadline 10 minutes) with
schedulerName default-scheduler and no dagsched controller running: fetch runs (kwok) and
succeeds, greet stays gated (its gate is never removed here), report is blocked behind greet. A
second namespace holds a job that is invalid for dagsched (a task that depends on itself) and a
job whose upstream task has no pod yet. A third holds the ETA's wait for room: job busy runs a
1-core task of 60 minutes on each 16-core node (placed by spec.nodeName), and job wide's only
task needs 16 cores: it fits no node until the first of them ends. Times in
the table are relative to now, so they are checked by pattern.

Usage: test_jobs_cmd.py PATH/TO/kubectl-dagsched [more binaries: run the same tests on each]
"""

import datetime
import json
import os
import re
import subprocess
import sys
import time
import unittest

import yaml

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TOOLS = subprocess.run([os.path.join(REPO, "hack", "install-helm.sh")], capture_output=True,
                       text=True, check=True).stdout.strip().splitlines()[-1]
KUBECTL = os.path.join(TOOLS, "kubectl")
BINS = []
NS, BAD_NS, ROOM_NS = "hello", "broken", "room"
# Sets the terminal's title, rings its bell, returns the carriage and forges a table row; C1 CSI.
HOSTILE = "\x1b]0;pwned\x07held\r\nb  2  blocked  forged\u009b31m"
POLICY_NS = "dagsched-system"


def kubectl(*args, stdin=None):
    return subprocess.run([KUBECTL, *args], input=stdin, capture_output=True, text=True,
                          check=True, timeout=60).stdout


def run(binary, *args):
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=1")
    p = subprocess.run([binary, *args], capture_output=True, text=True, timeout=60, env=env)
    return p.returncode, p.stdout, p.stderr


def setUpModule():
    with open(os.path.join(REPO, "examples", "hello-dag.yaml")) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    for d in docs:
        d["spec"]["template"]["spec"]["schedulerName"] = "default-scheduler"
    kubectl("create", "namespace", NS)
    kubectl("create", "namespace", POLICY_NS)
    kubectl("create", "namespace", BAD_NS)
    kubectl("apply", "-n", NS, "-f", "-", stdin=yaml.safe_dump_all(docs))
    bad = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "orphan", "namespace": BAD_NS,
                        "labels": {"dagsched.io/job": "orphan", "dagsched.io/task": "b"},
                        "annotations": {"dagsched.io/depends-on": "b",
                                        "dagsched.io/runtime": "5s"}},
           "spec": {"schedulingGates": [{"name": "dagsched.io/dependencies"}],
                    "containers": [{"name": "c", "image": "busybox"}]}}
    kubectl("apply", "-f", "-", stdin=json.dumps(bad))
    # A job whose upstream task has no pod yet (created downstream first): valid, its task waits.
    late = json.loads(json.dumps(bad))
    late["metadata"].update({"name": "late-z", "labels": {"dagsched.io/job": "late",
                                                          "dagsched.io/task": "z"}})
    late["metadata"]["annotations"]["dagsched.io/depends-on"] = "y"
    kubectl("apply", "-f", "-", stdin=json.dumps(late))
    # A task without a run time of its own, and the controller's history of its earlier runs.
    solo = json.loads(json.dumps(bad))
    solo["metadata"].update({"name": "learn-solo", "labels": {"dagsched.io/job": "learn",
                                                              "dagsched.io/task": "solo"},
                             "annotations": {}})
    kubectl("apply", "-f", "-", stdin=json.dumps(solo))
    history = {"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": "dagsched-runtime-history", "namespace": POLICY_NS,
                            "labels": {"dagsched.io/kind": "RuntimeHistory"}},
               "data": {"history.tsv": f"{BAD_NS}/learn/solo\tu3\t1795000000\t7 8 9\n"}}
    kubectl("apply", "-f", "-", stdin=json.dumps(history))
    # A ready task whose waiting reason was written by someone hostile (anyone who may patch pods).
    evil = json.loads(json.dumps(bad))
    evil["metadata"].update({"name": "evil-a", "labels": {"dagsched.io/job": "evil",
                                                          "dagsched.io/task": "a"}})
    evil["metadata"]["annotations"] = {"dagsched.io/runtime": "5s",
                                       "dagsched.io/waiting-reason": HOSTILE}
    kubectl("create", "-f", "-", stdin=json.dumps(evil))
    kubectl("create", "namespace", ROOM_NS)
    nodes = json.loads(kubectl("get", "nodes", "-o", "json"))["items"]
    big = [n["metadata"]["name"] for n in nodes if n["status"]["allocatable"]["cpu"] == "16"]
    assert len(big) >= 2, big
    for i, node in enumerate(big):
        kubectl("apply", "-f", "-", stdin=json.dumps(task_pod(
            f"busy-w{i}", "busy", f"w{i}", "60m", "1", {"nodeName": node})))
    kubectl("apply", "-f", "-", stdin=json.dumps(task_pod(
        "wide-big", "wide", "big", "1m", "16",
        {"schedulingGates": [{"name": "dagsched.io/dependencies"}]}, deadline_after="40m")))
    end = time.time() + 120
    while time.time() < end:
        phases = kubectl("get", "pods", "-n", ROOM_NS, "-l", "dagsched.io/job=busy", "-o",
                         "jsonpath={.items[*].status.phase}").split()
        if phases == ["Running"] * len(big):
            break
        time.sleep(1)
    else:
        raise RuntimeError(f"the busy pods are not all running within 120 s: {phases}")
    # fetch runs 5 s (kwok) and succeeds; the tests start once every binary sees greet waiting
    # (the pod's phase and its Job's status are written one after the other).
    end = time.time() + 120
    while time.time() < end:
        phases = kubectl("get", "pods", "-n", NS, "-l", "dagsched.io/task=fetch", "-o",
                         "jsonpath={.items[*].status.phase}")
        if "Succeeded" in phases and all(greet_state(b) == "waiting" for b in BINS):
            return
        time.sleep(1)
    raise RuntimeError("fetch did not succeed (greet not waiting) within 120 s")


def task_pod(name, job, task, runtime, cpu, spec, deadline_after=None):
    ann = {"dagsched.io/runtime": runtime}
    if deadline_after:
        ann["dagsched.io/deadline-after"] = deadline_after
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ROOM_NS, "annotations": ann,
                         "labels": {"dagsched.io/job": job, "dagsched.io/task": task}},
            "spec": dict(spec, restartPolicy="Never",
                         containers=[{"name": "c", "image": "busybox",
                                      "resources": {"requests": {"cpu": cpu}}}])}


def rfc3339(t):
    return datetime.datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp()


def greet_state(binary):
    rc, out, _ = run(binary, "describe", "job", "hello", "-n", NS, "-o", "json")
    if rc != 0:
        return None
    return {t["name"]: t for t in json.loads(out)["taskList"]}.get("greet", {}).get("state")


class TestJobs(unittest.TestCase):
    def each(self, *args):
        for b in BINS:
            with self.subTest(binary=b):
                yield (b,) + run(b, *args)

    def test_get_jobs_table(self):
        for b, rc, out, err in self.each("get", "jobs", "-n", NS):
            self.assertEqual(rc, 0, err)
            lines = out.splitlines()
            self.assertEqual(lines[0].split(),
                             ["JOB", "STATUS", "TASKS", "DONE", "RUNNING", "WAITING", "BLOCKED",
                              "FAILED", "DEADLINE", "SLACK", "ETA", "EVICTIONS"])
            self.assertEqual(len(lines), 2, out)  # the namespace's job only
            self.assertRegex(lines[1], r"^hello\s+Running\s+3\s+1\s+0\s+1\s+1\s+0\s+in \d+m\d\ds"
                                       r"\s+\d+m\d\ds\s+(?:\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d\s+0$")
            self.assertIn("built-in defaults", err)

    def test_get_jobs_all_namespaces(self):
        for b, rc, out, err in self.each("get", "jobs", "-A", "-o", "wide"):
            self.assertEqual(rc, 0, err)
            self.assertTrue(out.startswith("NAMESPACE"), out)
            self.assertRegex(out, r"\nhello\s+hello\s+Running")
            self.assertRegex(out, r"\nbroken\s+orphan\s+Invalid")
            self.assertRegex(out, r"error: dependency cycle: b -> b")
            self.assertRegex(out, r"\nbroken\s+late\s+Running\s+2\s+0\s+0\s+0\s+2\s+0")

    def test_get_jobs_json(self):
        for b, rc, out, err in self.each("get", "jobs", "-n", NS, "-o", "json"):
            self.assertEqual(rc, 0, err)
            doc = json.loads(out)
            self.assertEqual(doc["kind"], "DagJobList")
            (job,) = doc["items"]
            self.assertEqual((job["namespace"], job["name"], job["status"], job["tasks"]),
                             (NS, "hello", "Running", 3))
            self.assertEqual(job["taskStates"], {"blocked": 1, "waiting": 1, "running": 0,
                                                 "succeeded": 1, "failed": 0})
            self.assertGreater(job["slackSeconds"], 0)
            self.assertLess(job["slackSeconds"], 600)
            self.assertRegex(job["deadline"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
            self.assertRegex(job["eta"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
            basis = job["etaBasis"]
            # greet (100m) fits a node now: the ETA is now + greet and report (5 s each).
            self.assertEqual((basis["remainingCriticalPathSeconds"], basis["roomDelaySeconds"],
                              basis["readyTasks"], basis["waitingTask"], basis["lowerBound"]),
                             (10, 0, 1, None, False))
            self.assertIn("remaining critical path 10s; room free now for its 1 ready task(s)",
                          basis["text"])
            self.assertIsNone(job["makespanSeconds"])  # running: no makespan yet
            self.assertGreater(job["deadlineMarginSeconds"], 0)

    def test_describe_says_why_each_task_waits(self):
        for b, rc, out, err in self.each("describe", "job", "hello", "-n", NS):
            self.assertEqual(rc, 0, err)
            self.assertRegex(out, r"Name:\s+hello\n")
            self.assertRegex(out, r"Tasks:\s+3 \(1 succeeded, 0 running, 1 waiting, 1 blocked")
            self.assertRegex(out, r"\nETA:\s+in 10s, at (?:\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d \(remaining critical path "
                                  r"10s; room free now for its 1 ready task\(s\)\); deadline met "
                                  r"with \S+ to spare at that pace\n")
            rows = {ln.split()[0]: ln for ln in out.splitlines()
                    if ln.split() and ln.split()[0] in ("fetch", "greet", "report")}
            self.assertRegex(rows["fetch"], r"^fetch\s+1\s+succeeded\s+hello-fetch-\S+\s+\S+")
            # Among the ready tasks of every namespace (greet, evil's a, learn's solo, wide's
            # big), as the controller orders them.
            self.assertRegex(rows["greet"],
                             r"gated: position [1-4] of 4 in the release queue$")
            self.assertRegex(rows["report"], r"blocked .*waiting for upstream tasks: greet$")
            order = [ln.split()[0] for ln in out.splitlines() if ln.split() and
                     ln.split()[0] in ("fetch", "greet", "report")]
            self.assertEqual(order, ["fetch", "greet", "report"])

    def test_eta_waits_for_room(self):
        """wide's big (16 cores) fits no node until the first busy task ends: on a node of speed
        2 its 60 minutes take 30 from its start. Its ETA is that end plus its own minute."""
        pods = json.loads(kubectl("get", "pods", "-n", ROOM_NS, "-l", "dagsched.io/job=busy",
                                  "-o", "json"))["items"]
        speed = {n["metadata"]["name"]: float(n["metadata"]["labels"].get("dagsched.io/speed", 1))
                 for n in json.loads(kubectl("get", "nodes", "-o", "json"))["items"]}
        first_end = min(rfc3339(p["status"]["startTime"]) + 3600 / speed[p["spec"]["nodeName"]]
                        for p in pods)
        for b, rc, out, err in self.each("describe", "job", "wide", "-n", ROOM_NS, "-o", "json"):
            self.assertEqual(rc, 0, err)
            doc = json.loads(out)
            basis = doc["etaBasis"]
            self.assertEqual((basis["waitingTask"], basis["lowerBound"], basis["readyTasks"]),
                             ("big", False, 1), basis)
            self.assertEqual(basis["remainingCriticalPathSeconds"], 60)
            self.assertAlmostEqual(rfc3339(doc["eta"]), first_end + 60, delta=2)
            self.assertAlmostEqual(basis["roomDelaySeconds"], basis["roomWaitSeconds"], delta=0.01)
            self.assertGreater(doc["deadlineMarginSeconds"], 0)  # 40 minutes
        for b, rc, out, err in self.each("describe", "job", "wide", "-n", ROOM_NS):
            self.assertEqual(rc, 0, err)
            self.assertRegex(out, r"\nETA:\s+in \d+m\d\ds, at (?:\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d \(remaining critical "
                                  r"path 1m00s \+ wait for room \d+m\d\ds \(big, \d task\(s\) before "
                                  r"it in the release order\)\); deadline met with \S+ to spare at "
                                  r"that pace\n")
        for b, rc, out, err in self.each("get", "jobs", "-n", ROOM_NS):
            self.assertEqual(rc, 0, err)
            self.assertRegex(out, r"\nwide\s+Running\s+1\s+0\s+0\s+1\s+0\s+0\s+in \S+\s+\S+\s+"
                                  r"(?:\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d\s+0\n")

    def test_describe_json(self):
        for b, rc, out, err in self.each("describe", "job", "hello", "-n", NS, "-o", "json"):
            self.assertEqual(rc, 0, err)
            doc = json.loads(out)
            tasks = {t["name"]: t for t in doc["taskList"]}
            self.assertEqual(tasks["report"]["why"], "waiting for upstream tasks: greet")
            self.assertEqual(tasks["greet"]["state"], "waiting")
            self.assertIsNone(tasks["greet"]["node"])
            self.assertIsNotNone(tasks["fetch"]["node"])
            self.assertGreater(tasks["report"]["priority"], 0)

    def test_describe_invalid_job(self):
        for b, rc, out, err in self.each("describe", "job", "orphan", "-n", BAD_NS):
            self.assertEqual(rc, 0, err)
            self.assertRegex(out, r"Status:\s+Invalid\nError:\s+dependency cycle: b -> b")

    def test_no_dependency_edge_violated(self):
        p = subprocess.run([sys.executable, os.path.join(REPO, "tests", "common", "check_edges.py")],
                           capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, KUBECTL=KUBECTL))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_terminal_safe(self):
        """Text from the cluster never reaches the terminal as control characters."""
        for b, rc, out, err in self.each("describe", "job", "evil", "-n", BAD_NS):
            self.assertEqual(rc, 0, err)
            for c in ("\x1b", "\x07", "\r", "\u009b"):
                self.assertNotIn(c, out)
            line = [ln for ln in out.splitlines() if ln.startswith("a ")]
            self.assertEqual(len(line), 1, out)
            self.assertIn("gated: \\x1b]0;pwned\\x07held\\r\\nb  2  blocked  forged\\xc2\\x9b31m",
                          line[0])
        for b, rc, out, err in self.each("get", "jobs", "-A", "-o", "wide"):
            self.assertEqual(rc, 0, err)
            self.assertNotIn("\x1b", out)

    def test_describe_says_where_run_times_come_from(self):
        for b, rc, out, err in self.each("describe", "job", "learn", "-n", BAD_NS):
            self.assertEqual(rc, 0, err)
            self.assertIn("\nRun times (at reference speed):\n", out)
            self.assertRegex(out, r"\n  solo:\s+9s\s+learned from 3 earlier run\(s\)\n")
        for b, rc, out, err in self.each("describe", "job", "late", "-n", BAD_NS):
            self.assertRegex(out, r"\n  z:\s+5s\s+annotation dagsched.io/runtime\n")
            self.assertRegex(out, r"\n  y:\s+1m00s\s+default \(no dagsched.io/runtime, no "
                                  r"history\)\n")

    def test_describe_job_created_downstream_first(self):
        for b, rc, out, err in self.each("describe", "job", "late", "-n", BAD_NS):
            self.assertEqual(rc, 0, err)
            self.assertRegex(out, r"\nz\s+2\s+blocked\s+late-z\s.*waiting for upstream tasks: "
                                  r"y \(not created yet\)")
            self.assertRegex(out, r"\ny\s+1\s+blocked\s+-\s.*no pod carries this task yet")

    def test_gantt_terminal(self):
        for b, rc, out, err in self.each("gantt", "hello", "-n", NS, "--width", "80"):
            self.assertEqual(rc, 0, err)
            self.assertRegex(out, r"^Job hello/hello: \S+ from its creation to now \(running\); "
                                  r"deadline \+10:00 \(in \d+m\d\ds\)\n")
            lines = out.splitlines()
            head = next(ln for ln in lines if ln.startswith("TASK"))
            self.assertRegex(head, r"^TASK\s+NODE\s+0s\s+\d+s\s+\d+s")  # seconds since creation
            rows = [ln for ln in lines if ln.split() and
                    ln.split()[0] in ("fetch", "greet", "report")]
            self.assertEqual([r.split()[0] for r in rows], ["fetch", "greet", "report"])
            bars = {r.split()[0]: r[-80:] for r in rows}
            self.assertTrue(all(r[-81] == " " for r in rows), rows)
            self.assertIn("#", bars["fetch"])
            self.assertNotIn(".", bars["fetch"].split("#")[-1])  # nothing after it finished
            self.assertNotIn("#", bars["greet"])
            self.assertIn(".", bars["greet"])  # gated since its creation
            # The axis spans the job so far, not up to its deadline: fetch's 5 s run is more
            # than a column wide, and the deadline (minutes later, past the axis while the
            # job is younger than 8 minutes) is named at the right edge, within the width.
            self.assertGreaterEqual(bars["fetch"].count("#"), 2, out)
            self.assertRegex(lines[-1], r"(deadline \+10:00 is after the chart's end >|"
                                        r"deadline \+10:00 \^|\^ deadline \+10:00)$")
            self.assertLessEqual(len(lines[-1]), len(rows[0]), out)

    def test_gantt_svg(self):
        import xml.etree.ElementTree as ET
        for b, rc, out, err in self.each("gantt", "hello", "-n", NS, "--svg", "/tmp/hello-gantt.svg"):
            self.assertEqual(rc, 0, err)
            self.assertIn("wrote /tmp/hello-gantt.svg (3 tasks)", out)
            root = ET.parse("/tmp/hello-gantt.svg").getroot()
            ns = "{http://www.w3.org/2000/svg}"
            texts = "".join("".join(t.itertext()) for t in root.iter(ns + "text"))
            for task in ("fetch", "greet", "report", "deadline"):
                self.assertIn(task, texts)
            titles = [t.text for t in root.iter(ns + "title")]
            self.assertEqual(titles.count("ran"), 1)  # only fetch has started
            self.assertGreaterEqual(titles.count("waiting"), 2)

    def test_gantt_errors(self):
        for b, rc, out, err in self.each("gantt", "orphan", "-n", BAD_NS):
            self.assertEqual(rc, 1)
            self.assertIn("cannot be scheduled as a DAG", err)
        for b, rc, out, err in self.each("gantt", "nosuch", "-n", NS):
            self.assertEqual(rc, 1)
        for b, rc, out, err in self.each("gantt", "hello", "--width", "5"):
            self.assertEqual(rc, 2)
        for b, rc, out, err in self.each("gantt", "hello", "-n", NS, "--svg", "/nonexistent/x.svg"):
            self.assertEqual(rc, 1)
            self.assertIn("/nonexistent/x.svg", err)

    def test_errors(self):
        for b, rc, out, err in self.each("describe", "job", "nosuch", "-n", NS):
            self.assertEqual(rc, 1)
            self.assertIn('DAG job "nosuch" not found in namespace hello', err)
        for b, rc, out, err in self.each("get", "jobs", "--kubeconfig", "/nonexistent"):
            self.assertEqual(rc, 1)
            self.assertIn("/nonexistent", err)
        for b, rc, out, err in self.each("get", "pods"):
            self.assertEqual(rc, 2)
        for b, rc, out, err in self.each("get", "jobs", "-o", "yaml"):
            self.assertEqual(rc, 2)
            self.assertIn("-o: expected wide or json (got \"yaml\")", err)
        for b, rc, out, err in self.each("get", "jobs", "-n", "empty-ns"):
            self.assertEqual(rc, 0, err)
            self.assertIn("No DAG jobs found in empty-ns namespace.", err)


def pod_of(task):
    return kubectl("get", "pods", "-n", NS, "-l", f"dagsched.io/task={task}", "-o",
                   "jsonpath={.items[0].metadata.name}")


class TestExplain(unittest.TestCase):
    """`explain pod`: the extender's filter and scores, from the extender's own handlers."""

    def each(self, *args):
        for b in BINS:
            with self.subTest(binary=b):
                yield (b,) + run(b, *args)

    def test_blocked_pod_fails_every_node_with_the_reason(self):
        nodes = kubectl("get", "nodes", "-o", "name").split()
        self.assertGreater(len(nodes), 0)
        report = pod_of("report")
        for b, rc, out, err in self.each("explain", "pod", report, "-n", NS):
            self.assertEqual(rc, 0, err)
            self.assertIn(f"Pod:      {NS}/{report}\n", out)
            self.assertIn("waiting for upstream tasks", out)
            lines = out.splitlines()
            head = next(i for i, ln in enumerate(lines) if ln.startswith("NODE"))
            self.assertEqual(lines[head].split(), ["NODE", "FILTER", "SCORE", "REASON"])
            rows = lines[head + 1:]
            self.assertEqual(len(rows), len(nodes), out)
            for row in rows:
                self.assertRegex(row, r"^\S+\s+fail\s+-\s+dagsched: waiting for upstream "
                                      r"tasks: greet$")
        for b, rc, out, err in self.each("explain", "pod", report, "-n", NS, "-o", "json"):
            self.assertEqual(rc, 0, err)
            doc = json.loads(out)
            self.assertEqual((doc["kind"], doc["class"], doc["name"]),
                             ("PodExplanation", "blocked", report))
            self.assertEqual(len(doc["nodes"]), len(nodes))
            for n in doc["nodes"]:
                self.assertEqual((n["passes"], n["unresolvable"], n["score"]), (False, True, None))
                self.assertEqual(n["reason"], "dagsched: waiting for upstream tasks: greet")

    def test_ready_pod_gets_scores(self):
        greet = pod_of("greet")
        for b, rc, out, err in self.each("explain", "pod", greet, "-n", NS, "-o", "json"):
            self.assertEqual(rc, 0, err)
            doc = json.loads(out)
            self.assertEqual(doc["class"], "dag")
            passing = [n for n in doc["nodes"] if n["passes"]]
            self.assertGreater(len(passing), 0, doc)
            for n in passing:
                self.assertIsNone(n["reason"])
                self.assertIsInstance(n["score"], int)
                self.assertTrue(0 <= n["score"] <= 10, n)
            for n in doc["nodes"]:
                if not n["passes"]:
                    self.assertIsNone(n["score"])
                    self.assertTrue(n["reason"].startswith("dagsched: "), n)
        for b, rc, out, err in self.each("explain", "pod", greet, "-n", NS):
            self.assertEqual(rc, 0, err)
            self.assertIn("Dagsched: a task of a DAG job, ready", out)
            self.assertRegex(out, r"\n\S+\s+pass\s+\d+\s+-\n")

    def test_errors(self):
        for b, rc, out, err in self.each("explain", "pod", "nosuch", "-n", NS):
            self.assertEqual(rc, 1)
            self.assertIn('pod "nosuch" not found in namespace hello', err)
        for args in (["explain"], ["explain", "pod"], ["explain", "job", "x"],
                     ["explain", "pod", "x", "-A"], ["explain", "pod", "a", "b"]):
            for b, rc, out, err in self.each(*args):
                self.assertEqual(rc, 2, args)


FAIR_NS = "fair"
HELD_REASON = ("tenant fair is above its fair share (dominant share 0.00, fair share 0.25): "
               "needs cpu 100m")


class TestTenants(unittest.TestCase):
    """`get tenants`: each tenant's weight, cap, dominant share of the schedulable nodes and fair
    share from a policy with spec.fairness, the tasks it runs, has ready and has held for fair share
    (the controller's waiting reason, written here as the controller writes it), and the jobs those
    belong to; a tenant named by a namespace label; -n picks one tenant."""

    @classmethod
    def setUpClass(cls):
        import tempfile
        kubectl("create", "namespace", FAIR_NS)
        for job, task in (("fj", "a"), ("fj", "b"), ("fk", "a")):
            p = task_pod(f"{job}-{task}", job, task, "1m", "100m",
                         {"schedulingGates": [{"name": "dagsched.io/dependencies"}]})
            p["metadata"]["namespace"] = FAIR_NS
            p["metadata"]["annotations"]["dagsched.io/waiting-reason"] = HELD_REASON
            kubectl("create", "-f", "-", stdin=json.dumps(p))
        with tempfile.TemporaryDirectory() as tmp:
            for name, extra in (("fair-test", ""),
                                ("fair-label", "    tenantLabel: example.com/team\n")):
                path = os.path.join(tmp, name + ".yaml")
                with open(path, "w") as f:
                    f.write("apiVersion: dagsched.io/v1alpha1\nkind: SchedulingPolicy\n"
                            f"metadata:\n  name: {name}\nspec:\n  fairness:\n"
                            f"    enabled: true\n{extra}    weights: {{{FAIR_NS}: 3, x: 2}}\n"
                            f"    caps: {{{FAIR_NS}: 0.25}}\n")
                rc, _, err = run(BINS[0], "policy", "apply", path)
                assert rc == 0, err
        nodes = json.loads(kubectl("get", "nodes", "-o", "json"))["items"]
        cls.cores = sum(parse_cpu(n["status"]["allocatable"]["cpu"]) for n in nodes
                        if not n["spec"].get("unschedulable")
                        and any(c["type"] == "Ready" and c["status"] == "True"
                                for c in n["status"].get("conditions", [])))
        cls.busy = len([n for n in nodes if n["status"]["allocatable"]["cpu"] == "16"])

    def each(self, *args):
        for b in BINS:
            with self.subTest(binary=b):
                yield (b,) + run(b, *args)

    def test_table_with_fairness_off(self):
        for b, rc, out, err in self.each("get", "tenants"):
            self.assertEqual(rc, 0, err)
            lines = out.splitlines()
            self.assertEqual(lines[0].split(),
                             ["TENANT", "WEIGHT", "CAP", "SHARE", "FAIR-SHARE", "ABOVE", "RUNNING",
                              "READY", "HELD", "JOBS-WAITING-FOR-FAIRNESS"])
            names = [ln.split()[0] for ln in lines[1:]]
            self.assertEqual(names, sorted(names))
            for ns in (NS, BAD_NS, ROOM_NS, FAIR_NS):
                self.assertIn(ns, names)
            row = {ln.split()[0]: ln.split() for ln in lines[1:]}
            self.assertEqual(row[FAIR_NS][1:3] + row[FAIR_NS][5:], ["1", "-", "no", "0", "3", "3",
                                                                   "fj,", "fk"])
            share = float(row[ROOM_NS][3])
            self.assertAlmostEqual(share, self.busy / self.cores, places=3)
            self.assertEqual(row[ROOM_NS][6:9], [str(self.busy), "1", "0"])
            self.assertIn("spec.fairness is off", err)
            self.assertNotIn("\x1b", out)  # evil-a's hostile waiting reason is never shown raw

    def test_json_with_weights_and_caps(self):
        for b, rc, out, err in self.each("get", "tenants", "-o", "json", "--policy-name",
                                         "fair-test"):
            self.assertEqual(rc, 0, err)
            doc = json.loads(out)
            self.assertEqual(doc["kind"], "DagTenantList")
            self.assertEqual(doc["fairness"], {"enabled": True, "tenantLabel": ""})
            self.assertIn("fair-test", doc["policy"])
            self.assertEqual(doc["capacity"]["cpu"], round(self.cores * 1000))
            items = {t["name"]: t for t in doc["items"]}
            fair = items[FAIR_NS]
            self.assertEqual((fair["weight"], fair["cap"], fair["dominantShare"],
                              fair["dominantResource"], fair["aboveFairShare"]),
                             (3, 0.25, 0, None, False))
            self.assertEqual(fair["tasks"], {"running": 0, "ready": 3, "heldForFairShare": 3})
            self.assertEqual(fair["jobsWaitingForFairness"],
                             [{"namespace": FAIR_NS, "name": "fj"},
                              {"namespace": FAIR_NS, "name": "fk"}])
            # Its weight over the weights of the tenants with ready tasks (every other weighs 1).
            ready = [t for t in doc["items"] if t["tasks"]["ready"] > 0]
            self.assertIn(fair, ready)
            self.assertAlmostEqual(fair["fairShare"], 3 / (3 + len(ready) - 1), places=9)
            room = items[ROOM_NS]
            self.assertEqual(room["dominantResource"], "cpu")
            self.assertEqual(room["used"]["cpu"], self.busy * 1000)
            self.assertEqual(room["weight"], 1)
            self.assertIsNone(room["cap"])

    def test_tenant_label_and_one_namespace(self):
        kubectl("label", "namespace", FAIR_NS, ROOM_NS, "example.com/team=x", "--overwrite")
        try:
            for b, rc, out, err in self.each("get", "tenants", "-n", ROOM_NS, "-o", "wide",
                                             "--policy-name", "fair-label"):
                self.assertEqual(rc, 0, err)
                lines = out.splitlines()
                self.assertEqual(len(lines), 2, out)  # the tenant of ROOM_NS only
                cols = lines[1].split()
                self.assertEqual(cols[0], "x")
                self.assertEqual(cols[1], "2")  # weight of tenant x
                self.assertEqual(cols[6:9], [str(self.busy), "4", "3"])
                self.assertIn(f"{FAIR_NS}/fj, {FAIR_NS}/fk", lines[1])
                self.assertNotIn("spec.fairness is off", err)
        finally:
            kubectl("label", "namespace", FAIR_NS, ROOM_NS, "example.com/team-")

    def test_errors(self):
        for b, rc, out, err in self.each("get", "tenants", "extra"):
            self.assertEqual(rc, 2)
        for b, rc, out, err in self.each("get", "tenants", "--kubeconfig", "/nonexistent"):
            self.assertEqual(rc, 1)
            self.assertIn("/nonexistent", err)


def parse_cpu(q):
    return int(q[:-1]) / 1000 if q.endswith("m") else float(q)


def policy_text(name, rho):
    return ("apiVersion: dagsched.io/v1alpha1\nkind: SchedulingPolicy\n"
            f"metadata:\n  name: {name}\nspec:\n  preemption:\n    rho: {rho}\n")


class TestPolicyApply(unittest.TestCase):
    """`policy apply` creates the labelled ConfigMap, replaces its document when the file changed
    (keeping what others put on it), says unchanged when it did not, and writes nothing for an
    invalid file."""

    def configmap(self, name):
        return json.loads(kubectl("get", "configmap", "-n", POLICY_NS, name, "-o", "json"))

    def test_create_update_unchanged(self):
        import tempfile
        for i, b in enumerate(BINS):
            with self.subTest(binary=b), tempfile.TemporaryDirectory() as tmp:
                name = f"apply-{i}"
                cm_name = "dagsched-policy-" + name
                path = os.path.join(tmp, "p.yaml")
                with open(path, "w") as f:
                    f.write(policy_text(name, 1.5))
                rc, out, err = run(b, "policy", "apply", path)
                self.assertEqual((rc, out, err), (0, f"configmap/{cm_name} created\n", ""))
                cm = self.configmap(cm_name)
                self.assertEqual(cm["data"], {"policy.yaml": policy_text(name, 1.5)})
                self.assertEqual(cm["metadata"]["labels"]["dagsched.io/kind"], "SchedulingPolicy")
                # The components' policy source finds it: no fallback to the built-in defaults.
                rc, _, err = run(b, "get", "jobs", "-n", NS, "--policy-name", name)
                self.assertEqual(rc, 0, err)
                self.assertNotIn("built-in defaults", err)

                rc, out, err = run(b, "policy", "apply", path, "-n", POLICY_NS)
                self.assertEqual((rc, out), (0, f"configmap/{cm_name} unchanged\n"), err)
                self.assertEqual(self.configmap(cm_name)["metadata"]["resourceVersion"],
                                 cm["metadata"]["resourceVersion"])

                kubectl("label", "configmap", "-n", POLICY_NS, cm_name, "team=ops")
                kubectl("annotate", "configmap", "-n", POLICY_NS, cm_name, "note=kept")
                with open(path, "w") as f:
                    f.write(policy_text(name, 2.5))
                rc, out, err = run(b, "policy", "apply", "--namespace", POLICY_NS, path)
                self.assertEqual((rc, out), (0, f"configmap/{cm_name} configured\n"), err)
                cm = self.configmap(cm_name)
                self.assertEqual(cm["data"], {"policy.yaml": policy_text(name, 2.5)})
                self.assertEqual(cm["metadata"]["labels"]["team"], "ops")
                self.assertEqual(cm["metadata"]["labels"]["dagsched.io/kind"], "SchedulingPolicy")
                self.assertEqual(cm["metadata"]["annotations"]["note"], "kept")

                # Invalid: exit 1 with the field path, the stored ConfigMap untouched.
                with open(path, "w") as f:
                    f.write(policy_text(name, -1))
                rc, out, err = run(b, "policy", "apply", path)
                self.assertEqual((rc, out), (1, ""))
                self.assertIn(path + ": ", err)
                self.assertIn("spec.preemption.rho", err)
                self.assertEqual(self.configmap(cm_name)["metadata"]["resourceVersion"],
                                 cm["metadata"]["resourceVersion"])

    def test_invalid_file_writes_nothing(self):
        import tempfile
        for b in BINS:
            with self.subTest(binary=b), tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
                f.write(policy_text("never-written", 0.5))
                f.flush()
                rc, out, err = run(b, "policy", "apply", f.name)
                self.assertEqual((rc, out), (1, ""))
                self.assertIn("spec.preemption.rho", err)
                names = kubectl("get", "configmaps", "-A", "-o", "name")
                self.assertNotIn("never-written", names)

    def test_errors(self):
        good = os.path.join(REPO, "policies", "packing-first.yaml")
        for b in BINS:
            with self.subTest(binary=b):
                rc, _, err = run(b, "policy", "apply", good, "-n", "no-such-namespace")
                self.assertEqual(rc, 1)
                self.assertIn("no-such-namespace", err)
                rc, _, err = run(b, "policy", "apply", good, "--kubeconfig", "/nonexistent")
                self.assertEqual(rc, 1)
                self.assertIn("/nonexistent", err)
                for args in (["policy", "apply"], ["policy", "apply", good, good],
                             ["policy", "apply", good, "--policy-name", "x"],
                             ["policy", "apply", good, "-n", "Bad_NS"]):
                    rc, _, err = run(b, *args)
                    self.assertEqual(rc, 2, args)
                    self.assertNotEqual(err, "", args)


def bash_complete(binary, *words):
    """COMPREPLY of the bash script of `completion bash` for `kubectl-dagsched WORDS...`."""
    script = ('source <("$BIN" completion bash); COMP_WORDS=("$BIN" "$@"); '
              'COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _kubectl_dagsched; '
              'printf "%s\\n" "${COMPREPLY[@]}"')
    env = dict(os.environ, BIN=binary, ASAN_OPTIONS="detect_leaks=1:abort_on_error=1")
    p = subprocess.run(["bash", "-c", script, "bash", *words], capture_output=True, text=True,
                       timeout=60, env=env, check=True)
    return p.stdout.split()


class TestCompletion(unittest.TestCase):
    """Job and pod names completed from the cluster: bash, kubectl's plugin completion, zsh."""

    def each(self):
        for b in BINS:
            with self.subTest(binary=b):
                yield b

    def test_job_names(self):
        for b in self.each():
            self.assertEqual(bash_complete(b, "describe", "job", "-n", NS, ""), ["hello"])
            self.assertEqual(bash_complete(b, "describe", "job", "-n", NS, "he"), ["hello"])
            self.assertEqual(bash_complete(b, "describe", "job", "-n", NS, "x"), [])
            self.assertEqual(bash_complete(b, "gantt", "--namespace=" + BAD_NS, ""),
                             ["evil", "late", "learn", "orphan"])
            self.assertEqual(bash_complete(b, "-n", BAD_NS, "gantt", "o"), ["orphan"])
            # Only the first argument is a name; other namespaces' jobs are not offered.
            self.assertEqual(bash_complete(b, "describe", "job", "-n", NS, "hello", ""), [])
            self.assertEqual(bash_complete(b, "describe", "job", "-n", "empty-ns", ""), [])

    def test_pod_names(self):
        pods = sorted(kubectl("get", "pods", "-n", NS, "-o",
                              "jsonpath={.items[*].metadata.name}").split())
        self.assertGreaterEqual(len(pods), 2)
        greet = pod_of("greet")
        for b in self.each():
            self.assertEqual(bash_complete(b, "explain", "pod", "-n", NS, ""), pods)
            self.assertEqual(bash_complete(b, "explain", "pod", "-n", NS, greet[:-1]), [greet])
            self.assertEqual(bash_complete(b, "explain", "pod", "-n", BAD_NS, ""),
                             ["evil-a", "late-z", "learn-solo", "orphan"])

    def test_unreachable_or_wrong_context_is_quiet(self):
        for b in self.each():
            self.assertEqual(bash_complete(b, "describe", "job", "--context", "nosuch", "-n", NS,
                                           ""), [])
            rc, out, err = run(b, "__complete", "describe", "job", "--context", "nosuch", "")
            self.assertEqual((rc, out, err), (0, ":4\n", ""))

    def test_kubectl_completes_names_through_the_plugin(self):
        for b in self.each():
            d = os.path.dirname(b)
            self.assertTrue(os.path.exists(os.path.join(d, "kubectl_complete-dagsched")), d)
            env = dict(os.environ, PATH=d + os.pathsep + os.environ["PATH"],
                       ASAN_OPTIONS="detect_leaks=1:abort_on_error=1")
            p = subprocess.run([KUBECTL, "__complete", "dagsched", "describe", "job", "-n", NS,
                                ""], capture_output=True, text=True, timeout=60, env=env,
                               check=True)
            self.assertEqual(p.stdout.split(), ["hello", ":4"])

    def test_zsh_completes_a_job_name(self):
        for b in self.each():
            p = subprocess.run(["zsh", "-f", os.path.join(REPO, "tests", "cli",
                                                          "zsh_complete.zsh"),
                                os.path.dirname(b), f"kubectl-dagsched describe job -n {NS} hel"],
                               capture_output=True, text=True, timeout=120,
                               env=dict(os.environ, ASAN_OPTIONS="detect_leaks=1"))
            shown = p.stdout.replace("\r", "")
            self.assertIn("LOADED 1", shown)
            # hel<TAB> became hello, and Enter ran `describe job hello`: its tasks are shown.
            self.assertRegex(shown, r"kubectl-dagsched describe job -n hello hello")
            self.assertRegex(shown, r"\ngreet\s|\n\s*greet\s", shown[-2000:])


if __name__ == "__main__":
    BINS = [os.path.abspath(b) for b in sys.argv[1:]]
    if not BINS:
        sys.exit(__doc__)
    unittest.main(argv=sys.argv[:1], verbosity=2)
