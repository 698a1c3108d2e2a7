#!/usr/bin/env python3
"""test_workflow_view.py: kubectl-dagsched reads Argo Workflows in get jobs, describe job, gantt
and -o json, against a stand-in API server (fake_apiserver.py): a finished Workflow whose pods
podGC deleted keeps its tasks, states and times from status.nodes; a running one shows its live pod
and its finished tasks; -o json carries each task's created, started and finished times and the
job's deadline as RFC 3339; where Argo is not served, one warning and the jobs of pods as before.
Usage: test_workflow_view.py PATH/TO/kubectl-dagsched
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_apiserver import FakeAPIServer, obj_list  # noqa: E402

BIN = None
NS = "wfns"


def node(wf, nid, name, typ, phase, start=None, end=None, children=(), template=None):
    n = {"id": nid, "name": name, "displayName": name.split(".")[-1], "type": typ,
         "phase": phase, "children": list(children)}
    if template:
        n["templateName"] = template
    if start:
        n["startedAt"] = start
    if end:
        n["finishedAt"] = end
    return n


def workflow(name, nodes, phase):
    """A DAG extract -> transform -> load, with a deadline 10 minutes after its creation."""
    return {
        "apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow",
        "metadata": {"name": name, "namespace": NS, "uid": name + "-uid", "resourceVersion": "7",
                     "creationTimestamp": "2026-01-01T00:00:00Z",
                     "annotations": {"dagsched.io/deadline-after": "10m"}},
        "spec": {"entrypoint": "main", "templates": [
            {"name": "main", "dag": {"tasks": [
                {"name": "extract", "template": "work"},
                {"name": "transform", "template": "work", "dependencies": ["extract"]},
                {"name": "load", "template": "work", "dependencies": ["transform"]}]}},
            {"name": "work", "metadata": {"annotations": {"dagsched.io/runtime": "30s"}},
             "container": {"image": "busybox"}}]},
        "status": {"phase": phase, "nodes": {n["id"]: n for n in nodes}},
    }


def done_workflow():
    return workflow("etl", [
        node("etl", "etl", "etl", "DAG", "Succeeded", "2026-01-01T00:00:01Z",
             "2026-01-01T00:01:30Z", ["etl-1"], "main"),
        node("etl", "etl-1", "etl.extract", "Pod", "Succeeded", "2026-01-01T00:00:05Z",
             "2026-01-01T00:00:20Z", ["etl-2"], "work"),
        node("etl", "etl-2", "etl.transform", "Pod", "Succeeded", "2026-01-01T00:00:25Z",
             "2026-01-01T00:01:00Z", ["etl-3"], "work"),
        node("etl", "etl-3", "etl.load", "Pod", "Succeeded", "2026-01-01T00:01:05Z",
             "2026-01-01T00:01:30Z", [], "work"),
    ], "Succeeded")


def live_workflow():
    return workflow("live", [
        node("live", "live", "live", "DAG", "Running", "2026-01-01T00:00:01Z", None,
             ["live-1"], "main"),
        node("live", "live-1", "live.extract", "Pod", "Succeeded", "2026-01-01T00:00:05Z",
             "2026-01-01T00:00:20Z", ["live-2"], "work"),
        node("live", "live-2", "live.transform", "Pod", "Running", "2026-01-01T00:00:25Z", None,
             [], "work"),
    ], "Running")


def live_pod(start="2026-01-01T00:00:27Z"):
    status = {"phase": "Running"}
    if start:
        status["startTime"] = start
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "live-transform-2", "namespace": NS, "uid": "p-uid",
                     "resourceVersion": "9", "creationTimestamp": "2026-01-01T00:00:25Z",
                     "labels": {"workflows.argoproj.io/workflow": "live"},
                     "annotations": {"workflows.argoproj.io/node-id": "live-2",
                                     "workflows.argoproj.io/node-name": "live.transform"},
                     "ownerReferences": [{"apiVersion": "argoproj.io/v1alpha1",
                                          "kind": "Workflow", "name": "live",
                                          "uid": "live-uid", "controller": True}]},
        "spec": {"nodeName": "n1", "schedulerName": "dagsched",
                 "containers": [{"name": "main", "image": "busybox",
                                 "resources": {"requests": {"cpu": "100m"}}}]},
        "status": status,
    }


def routes(argo=True, pod_start="2026-01-01T00:00:27Z"):
    r = {
        "/api/v1/namespaces/dagsched-system/configmaps": obj_list("ConfigMapList", []),
        "/api/v1/namespaces/%s/pods" % NS: obj_list("PodList", [live_pod(pod_start)]),
        "/apis/batch/v1/namespaces/%s/jobs" % NS: obj_list("JobList", []),
        "/api/v1/namespaces/%s/configmaps" % NS: obj_list("ConfigMapList", []),
        "/api/v1/nodes": obj_list("NodeList", []),
    }
    if argo:
        r["/apis/argoproj.io/v1alpha1"] = {
            "kind": "APIResourceList", "groupVersion": "argoproj.io/v1alpha1",
            "resources": [{"name": "workflows", "namespaced": True, "kind": "Workflow"}]}
        r["/apis/argoproj.io/v1alpha1/namespaces/%s/workflows" % NS] = {
            "apiVersion": "argoproj.io/v1alpha1", "kind": "WorkflowList",
            "metadata": {"resourceVersion": "1"}, "items": [done_workflow(), live_workflow()]}
    return r


class Base(unittest.TestCase):
    argo = True
    pod_start = "2026-01-01T00:00:27Z"

    def setUp(self):
        self.server = FakeAPIServer(routes(self.argo, self.pod_start)).start()
        self.dir = tempfile.TemporaryDirectory()
        self.kubeconfig = self.server.kubeconfig(self.dir.name, NS)

    def tearDown(self):
        self.server.stop()
        self.dir.cleanup()

    def run_cli(self, *args):
        env = dict(os.environ, KUBECONFIG=self.kubeconfig)
        p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=60, env=env)
        return p.returncode, p.stdout, p.stderr


class TestWorkflowJobs(Base):
    def test_get_jobs_shows_workflows_after_podgc(self):
        rc, out, err = self.run_cli("get", "jobs")
        self.assertEqual(rc, 0, err)
        rows = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
        self.assertEqual(rows["etl"][1:4], ["Succeeded", "3", "3"], out)
        self.assertEqual(rows["live"][1:7], ["Running", "3", "1", "1", "0", "1"], out)
        self.assertNotIn("Invalid", out)
        self.assertNotIn("warning", err)

    def test_describe_job_tasks_from_status_nodes(self):
        rc, out, err = self.run_cli("describe", "job", "etl")
        self.assertEqual(rc, 0, err)
        self.assertIn("Status:      Succeeded", out)
        for task in ("extract", "transform", "load"):
            self.assertRegex(out, r"\n%s +\d+ +succeeded " % task)
        self.assertIn("template annotation dagsched.io/runtime", out)
        self.assertRegex(out, r"\n  transform: +started \S+ ago +ran 35s +\(no pod: from the "
                              r"Workflow's status.nodes\)\n")
        rc, out, err = self.run_cli("describe", "job", "live")
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"\ntransform +2 +running +live-transform-2 +n1 ")
        self.assertRegex(out, r"\nload +3 +blocked ")
        self.assertRegex(out, r"\n  transform: +started \S+ ago +running for \S+\n")
        self.assertRegex(out, r"\n  load: +started - +-\n")

    def test_json_timestamps(self):
        rc, out, err = self.run_cli("describe", "job", "etl", "-o", "json")
        self.assertEqual(rc, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["status"], "Succeeded")
        self.assertEqual(doc["deadline"], "2026-01-01T00:10:00.000000Z")
        self.assertEqual(doc["created"], "2026-01-01T00:00:00.000000Z")
        self.assertEqual(doc["started"], "2026-01-01T00:00:05.000000Z")
        self.assertEqual(doc["finished"], "2026-01-01T00:01:30.000000Z")
        tasks = {t["name"]: t for t in doc["taskList"]}
        self.assertEqual(tasks["transform"]["state"], "succeeded")
        self.assertEqual(tasks["transform"]["started"], "2026-01-01T00:00:25.000000Z")
        self.assertEqual(tasks["transform"]["finished"], "2026-01-01T00:01:00.000000Z")
        self.assertIsNone(tasks["transform"]["pod"])
        rc, out, err = self.run_cli("describe", "job", "live", "-o", "json")
        self.assertEqual(rc, 0, err)
        doc = json.loads(out)
        tasks = {t["name"]: t for t in doc["taskList"]}
        self.assertEqual(tasks["transform"]["created"], "2026-01-01T00:00:25.000000Z")
        self.assertEqual(tasks["transform"]["started"], "2026-01-01T00:00:27.000000Z")
        self.assertIsNone(tasks["transform"]["finished"])
        self.assertIsNone(tasks["load"]["started"])
        self.assertIsNone(doc["finished"])
        rc, out, err = self.run_cli("get", "jobs", "-o", "json")
        self.assertEqual(rc, 0, err)
        jobs = {j["name"]: j for j in json.loads(out)["items"]}
        self.assertEqual(jobs["etl"]["finished"], "2026-01-01T00:01:30.000000Z")
        self.assertEqual(jobs["live"]["deadline"], "2026-01-01T00:10:00.000000Z")
        self.assertEqual(jobs["live"]["workflow"], "live")

    def test_job_name_completion_offers_workflows(self):
        rc, out, err = self.run_cli("__complete", "describe", "job", "")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.splitlines()[:2], ["etl", "live"], out)

    def test_gantt_from_status_nodes(self):
        rc, out, err = self.run_cli("gantt", "etl", "--width", "60")
        self.assertEqual(rc, 0, err)
        lines = {line.split()[0]: line for line in out.splitlines()[3:] if line.strip()}
        for task in ("extract", "transform", "load"):
            self.assertIn("#", lines[task], out)
        # the bars follow each other: extract ends before load starts
        self.assertLess(lines["extract"].rindex("#"), lines["load"].index("#"), out)


class TestBoundPodWithoutStartTime(Base):
    pod_start = None

    def test_gantt_draws_it_running(self):
        rc, out, err = self.run_cli("gantt", "live", "--width", "60")
        self.assertEqual(rc, 0, err)
        row = [line for line in out.splitlines() if line.startswith("transform ")]
        self.assertEqual(len(row), 1, out)
        self.assertIn("#", row[0], out)


class TestWithoutArgo(Base):
    argo = False

    def test_one_warning_then_pods_as_before(self):
        rc, out, err = self.run_cli("get", "jobs")
        self.assertEqual(rc, 0, err)
        self.assertEqual(err.count("warning"), 1, err)
        self.assertIn("Argo Workflows are not served", err)
        self.assertNotIn("etl", out)


class TestWorkflowsNotListable(Base):
    def setUp(self):
        super().setUp()
        del self.server.routes["/apis/argoproj.io/v1alpha1/namespaces/%s/workflows" % NS]

    def test_one_warning_then_pods_as_before(self):
        rc, out, err = self.run_cli("get", "jobs")
        self.assertEqual(rc, 0, err)
        self.assertEqual(err.count("warning"), 1, err)
        self.assertIn("(Argo Workflows not read)", err)
        self.assertNotIn("etl", out)


if __name__ == "__main__":
    BIN = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
