#!/usr/bin/env python3
"""test_summary.py: tests of the demo's summary tool (hack/demo/metrics.py, summary.py, workload.py,
baseline_driver.py) on two recordings and on small hand-made objects; also checks that the sample
workloads in examples/ are valid DAGs set up for dagsched, and that the demo's scheduler is
configured like the Helm chart's. Run from anywhere: `make demo-summary-test`.

Recordings:
  tests/demo/fixture           made by record-fixture.sh from tests/demo/workload/ on the plain
                               kube-scheduler: a kube-scheduler preemption, a dependency violation
  tests/demo/fixture-dagsched  the dagsched run of a `make demo`, reduced to job etl and the two
                               batch shards the controller evicted for it (their Jobs, pods and
                               Events, unchanged), and the nodes

Expected values of the recording are derived from its timestamps (all 2026-11-22, UTC):
  Job filler-fill created 04:43:26 (t0); its first pod filler-fill-7lq7q bound 04:43:26.563410,
  preempted 04:43:28.420596 (Event "Preempted"); second pod filler-fill-h2sz7 started 04:43:37,
  finished 04:43:57.  Jobs mini-* created 04:43:28; mini-extract-ts8gr bound 04:43:29.520354,
  ran 04:43:30-04:43:36 on cpu-slow-1; mini-transform-f48cj bound 04:43:38.251323, ran
  04:43:39-04:43:44 on cpu-fast-1 (speed 2); mini-load-rz74q bound 04:43:28.534127 (before
  transform ended: the violation), ran 04:43:29-04:43:33 on cpu-slow-1.
"""

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "hack", "demo"))

import baseline_driver  # noqa: E402
import metrics  # noqa: E402
import summary  # noqa: E402
import workload  # noqa: E402

FIXTURE = os.path.join(HERE, "fixture")
FIXTURE_WORKLOAD = [os.path.join(HERE, "workload", f) for f in ("filler.yaml", "mini.yaml")]
# The demo's workload files: every example but the Argo Workflows (argo-*.yaml), which Argo's
# controller runs (make argo-integration-test), not the demo's driver.
EXAMPLES = sorted(os.path.join(REPO, "examples", f) for f in os.listdir(os.path.join(REPO, "examples"))
                  if f.endswith(".yaml") and not f.startswith("argo-"))


def load_fixture():
    return {k: metrics.load_list(os.path.join(FIXTURE, f"{k}.json")) for k in ("pods", "jobs", "events", "nodes")}


def analyze_fixture(with_workload=False):
    f = load_fixture()
    wt = None
    if with_workload:
        tasks, _ = workload.load(FIXTURE_WORKLOAD)
        wt = [(t.job, t.name, t.depends_on, t.object_name) for t in tasks]
    return metrics.analyze(f["pods"], f["jobs"], f["events"], f["nodes"], wt)


class TestRecordedDagschedRun(unittest.TestCase):
    """Timestamps of the recording (2026-11-22, UTC): every Job created 05:41:17 (t0).
    etl-extract-h82fb ran 05:41:37-05:41:47 on cpu-slow-2; transform-customers bound
    05:41:48.384668, ran :49-05:42:09; transform-orders bound 05:41:51.385329, ran :52-05:42:12;
    load bound 05:42:12.540479, ran :14-:24; deadline-after 80s. Shard-05's first pod r45qw was
    bound 05:41:17.134100 on cpu-slow-2 and evicted for extract (DagschedEvicted 05:41:31); its
    second pod dks42 ran 05:42:21-05:43:21 on cpu-fast-2. Shard-04's first pod 9dlps was evicted
    for transform-orders (05:41:49); dptdl ran 05:42:15-05:44:15 on cpu-slow-2."""

    @classmethod
    def setUpClass(cls):
        d = os.path.join(HERE, "fixture-dagsched")
        f = {k: metrics.load_list(os.path.join(d, f"{k}.json")) for k in ("pods", "jobs", "events", "nodes")}
        cls.f = f
        cls.a = metrics.analyze(f["pods"], f["jobs"], f["events"], f["nodes"])

    def test_etl_met_its_deadline_in_order(self):
        self.assertEqual(self.a["t0"], metrics.parse_time("2026-11-22T05:41:17Z"))
        j = self.a["jobs"]["etl"]
        self.assertEqual((j["submitted"], j["finished"], j["makespan"]), (0.0, 67.0, 67.0))
        self.assertEqual((j["deadline"], j["deadline_met"], j["deadline_margin"]), (80.0, True, 13.0))
        self.assertEqual(j["violations"], [])
        self.assertEqual(j["evictions"], 0)
        got = {n: (t["node"], t["start"], t["end"], len(t["attempts"])) for n, t in j["tasks"].items()}
        self.assertEqual(got, {
            "extract": ("cpu-slow-2", 20.0, 30.0, 1),
            "transform-customers": ("cpu-slow-2", 32.0, 52.0, 1),
            "transform-orders": ("cpu-slow-2", 35.0, 55.0, 1),
            "load": ("cpu-slow-2", 57.0, 67.0, 1),
        })
        # load was bound 0.54 s after its last upstream task ended: in order, not a violation.
        self.assertAlmostEqual(j["tasks"]["load"]["attempts"][0]["bound"], 55.540, places=3)

    def test_controller_evictions(self):
        j = self.a["jobs"]["backfill"]
        self.assertEqual((j["evictions"], j["makespan"], j["complete"]), (2, 178.0, True))
        s5 = j["tasks"]["shard-05"]
        self.assertEqual([a["pod"] for a in s5["attempts"]], ["backfill-shard-05-r45qw", "backfill-shard-05-dks42"])
        first, second = s5["attempts"]
        self.assertEqual((first["state"], first["node"], first["evicted"]), ("deleted", "cpu-slow-2", True))
        self.assertAlmostEqual(first["bound"], 0.134, places=3)
        self.assertEqual(first["evicted_at"], 14.0)
        self.assertTrue(first["eviction_message"].startswith(
            "Evicted on node cpu-slow-2 to make room for dagsched-demo/etl-extract-h82fb (urgent: its slack 26s"))
        self.assertEqual((second["node"], second["start"], second["end"]), ("cpu-fast-2", 64.0, 124.0))
        s4 = j["tasks"]["shard-04"]
        self.assertEqual([a["evicted_at"] for a in s4["attempts"]], [32.0, None])
        self.assertEqual((s4["node"], s4["start"], s4["end"]), ("cpu-slow-2", 58.0, 178.0))
        self.assertEqual(self.a["totals"], {"jobs": 2, "complete": 2, "tasks": 6, "succeeded": 6, "deadlines": 1,
                                            "deadlines_met": 1, "evictions": 2, "violations": 0,
                                            "makespan": 178.0})

    def test_progress_counts_controller_evictions(self):
        wt = [("etl", t, [], f"etl-{t}") for t in ("extract", "transform-orders", "transform-customers", "load")]
        wt += [("backfill", t, [], f"backfill-{t}") for t in ("shard-04", "shard-05")]
        rows = metrics.progress(self.f["pods"], self.f["events"], wt)
        self.assertEqual(rows["backfill"], {"done": 2, "running": 0, "waiting": 0, "total": 2, "evictions": 2})
        self.assertEqual(rows["etl"]["done"], 4)
        # The eviction is counted once per victim, not once per Event about it.
        self.assertEqual(sum(1 for e in self.f["events"] if e["reason"] == "DagschedEvicted"), 2)

    def test_report_lists_evictions_in_time_order(self):
        text = summary.build_report([("dagsched", self.a)])
        i = text.index("14s backfill/shard-05 on cpu-slow-2: Evicted on node cpu-slow-2 to make room for "
                       "dagsched-demo/etl-extract-h82fb (urgent: its slack 26s is within the urgent threshold 30s)\n")
        self.assertLess(i, text.index("32s backfill/shard-04 on cpu-slow-2"))
        self.assertIn("shard-05  cpu-slow-2 evicted > cpu-fast-2 (2x) 64-124s", text)


class TestTimes(unittest.TestCase):
    def test_parse_time(self):
        self.assertEqual(metrics.parse_time("1970-01-01T00:00:10Z"), 10.0)
        self.assertAlmostEqual(metrics.parse_time("2026-11-22T04:43:26.563410Z") % 60, 26.56341, places=5)
        # An offset is converted to UTC: 01:00 at +01:00 is midnight UTC.
        self.assertEqual(metrics.parse_time("1970-01-02T01:00:00+01:00"), 86400.0)
        self.assertEqual(metrics.parse_time("1970-01-01T00:00:00-00:30"), 1800.0)
        self.assertIsNone(metrics.parse_time(None))
        self.assertIsNone(metrics.parse_time(""))
        for bad in ("tomorrow", "2026-11-22 04:43:26Z", "2026-13-01T00:00:00Z", "2026-11-22T04:43:26", "x" * 80):
            with self.assertRaises(metrics.MetricsError, msg=bad):
                metrics.parse_time(bad)

    def test_parse_duration(self):
        self.assertEqual(metrics.parse_duration("90s"), 90.0)
        self.assertEqual(metrics.parse_duration("1m30s"), 90.0)
        self.assertEqual(metrics.parse_duration("1.5h"), 5400.0)
        self.assertAlmostEqual(metrics.parse_duration("250ms"), 0.25)
        self.assertEqual(metrics.parse_duration("0"), 0.0)
        for bad in ("3x", "", "s", "-5s", "5", "1m 30s", "5s" * 40):
            with self.assertRaises(metrics.MetricsError, msg=bad):
                metrics.parse_duration(bad)


class TestRecordedRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.a = analyze_fixture()
        cls.t0 = metrics.parse_time("2026-11-22T04:43:26Z")

    def test_origin_is_first_object(self):
        self.assertEqual(self.a["t0"], self.t0)

    def test_mini_job(self):
        j = self.a["jobs"]["mini"]
        self.assertTrue(j["complete"])
        self.assertEqual((j["n_tasks"], j["n_succeeded"]), (3, 3))
        self.assertEqual(j["submitted"], 2.0)  # 04:43:28
        self.assertEqual(j["finished"], 18.0)  # transform finished 04:43:44
        self.assertEqual(j["makespan"], 16.0)
        self.assertEqual(j["deadline"], 62.0)  # 04:43:28 + 60s
        self.assertIs(j["deadline_met"], True)
        self.assertEqual(j["deadline_margin"], 44.0)
        self.assertEqual(j["evictions"], 0)
        self.assertEqual(list(j["tasks"]), ["extract", "transform", "load"])  # DAG order
        ex, tr, ld = (j["tasks"][n] for n in ("extract", "transform", "load"))
        self.assertEqual((ex["node"], ex["speed"], ex["start"], ex["end"]), ("cpu-slow-1", 1.0, 4.0, 10.0))
        self.assertEqual((tr["node"], tr["speed"], tr["start"], tr["end"]), ("cpu-fast-1", 2.0, 13.0, 18.0))
        self.assertEqual((ld["node"], ld["start"], ld["end"]), ("cpu-slow-1", 3.0, 7.0))
        self.assertEqual(tr["depends_on"], ["extract"])
        self.assertEqual([t["level"] for t in (ex, tr, ld)], [1, 2, 3])

    def test_violation_is_load_before_transform(self):
        v = self.a["jobs"]["mini"]["violations"]
        self.assertEqual(len(v), 1)
        self.assertEqual(v[0]["task"], "load")
        self.assertEqual(v[0]["pod"], "mini-load-rz74q")
        self.assertEqual(v[0]["upstream"], "transform")
        self.assertAlmostEqual(v[0]["bound"], 2.534, places=3)  # Scheduled event 04:43:28.534127
        self.assertEqual(v[0]["upstream_end"], 18.0)

    def test_filler_evicted_and_restarted(self):
        j = self.a["jobs"]["filler"]
        self.assertTrue(j["complete"])
        self.assertEqual(j["makespan"], 31.0)  # 04:43:26 -> 04:43:57
        self.assertIsNone(j["deadline"])
        self.assertIsNone(j["deadline_met"])
        self.assertEqual(j["evictions"], 1)
        t = j["tasks"]["fill"]
        self.assertEqual(t["evictions"], 1)
        self.assertEqual([a["pod"] for a in t["attempts"]], ["filler-fill-7lq7q", "filler-fill-h2sz7"])
        first, second = t["attempts"]
        # The first pod was deleted: everything about it comes from Events.
        self.assertEqual(first["state"], "deleted")
        self.assertTrue(first["evicted"])
        self.assertEqual(first["node"], "cpu-slow-1")
        self.assertAlmostEqual(first["bound"], 0.563, places=3)
        self.assertAlmostEqual(first["evicted_at"], 2.421, places=3)  # Preempted 04:43:28.420596
        self.assertEqual(first["eviction_message"],
                         "Preempted by pod e936dedd-59af-4b41-8c27-fff1fa8d5fc8 on node cpu-slow-1")
        self.assertEqual(second["state"], "succeeded")
        self.assertFalse(second["evicted"])
        self.assertEqual((t["node"], t["start"], t["end"]), ("cpu-slow-1", 11.0, 31.0))

    def test_totals(self):
        t = self.a["totals"]
        self.assertEqual(t, {"jobs": 2, "complete": 2, "tasks": 4, "succeeded": 4, "deadlines": 1,
                             "deadlines_met": 1, "evictions": 1, "violations": 1, "makespan": 31.0})

    def test_workload_gives_the_same_answer(self):
        b = analyze_fixture(with_workload=True)
        self.assertEqual(b["totals"], self.a["totals"])
        self.assertEqual(b["jobs"]["mini"]["tasks"]["load"]["depends_on"], ["transform"])

    def test_progress_counts(self):
        f = load_fixture()
        tasks, _ = workload.load(FIXTURE_WORKLOAD)
        wt = [(t.job, t.name, t.depends_on, t.object_name) for t in tasks]
        rows = metrics.progress(f["pods"], f["events"], wt)
        self.assertEqual(rows["mini"], {"done": 3, "running": 0, "waiting": 0, "total": 3, "evictions": 0})
        self.assertEqual(rows["filler"], {"done": 1, "running": 0, "waiting": 0, "total": 1, "evictions": 1})
        # Without the pods, every task waits; evictions still come from the Events.
        rows = metrics.progress([], f["events"], wt)
        self.assertEqual(rows["mini"]["waiting"], 3)
        self.assertEqual(rows["filler"]["evictions"], 1)


def pod(name, job, task, phase="Succeeded", node="n1", created="1970-01-01T00:00:00Z", start=None, end=None,
        annotations=None, gated=False):
    p = {
        "kind": "Pod",
        "metadata": {"name": name, "creationTimestamp": created, "labels": {metrics.LABEL_JOB: job, metrics.LABEL_TASK: task},
                     "annotations": annotations or {}},
        "spec": {"nodeName": node} if node else {},
        "status": {"phase": phase},
    }
    if gated:
        p["spec"]["schedulingGates"] = [{"name": metrics.GATE}]
    if start:
        term = {"startedAt": start}
        if end:
            term["finishedAt"] = end
        p["status"]["containerStatuses"] = [{"name": "main", "state": {"terminated" if end else "running": term}}]
    return p


def ts(sec):
    return f"1970-01-01T00:{sec // 60:02d}:{sec % 60:02d}Z"


class TestHandMade(unittest.TestCase):
    def test_absolute_deadline_missed(self):
        pods = [
            pod("a-1", "j", "a", created=ts(0), start=ts(1), end=ts(30), annotations={metrics.ANN_DEADLINE: ts(25)}),
            pod("b-1", "j", "b", created=ts(0), start=ts(31), end=ts(50),
                annotations={metrics.ANN_DEPENDS_ON: "a", metrics.ANN_DEADLINE: ts(25)}),
        ]
        j = metrics.analyze(pods, [], [], [])["jobs"]["j"]
        self.assertEqual(j["makespan"], 50.0)
        self.assertEqual(j["deadline"], 25.0)
        self.assertIs(j["deadline_met"], False)
        self.assertEqual(j["deadline_margin"], -25.0)
        self.assertEqual(j["violations"], [])
        self.assertEqual(summary.fmt_deadline(j), "MISSED by 25s")

    def test_deadline_after_counts_from_submission(self):
        pods = [pod("a-1", "j", "a", created=ts(10), start=ts(11), end=ts(20),
                    annotations={metrics.ANN_DEADLINE_AFTER: "15s"})]
        jobs = [{"kind": "Job", "metadata": {"name": "j-a", "creationTimestamp": ts(5)},
                 "spec": {"template": {"metadata": {"labels": {metrics.LABEL_JOB: "j", metrics.LABEL_TASK: "a"}}}}}]
        a = metrics.analyze(pods, jobs, [], [])
        j = a["jobs"]["j"]
        self.assertEqual(a["t0"], 5.0)  # the Job was created before its pod
        self.assertEqual(j["deadline"], 15.0)  # 5 + 15 - t0
        self.assertEqual(j["makespan"], 15.0)
        self.assertIs(j["deadline_met"], True)
        self.assertEqual(summary.fmt_deadline(j), "met, 0s to spare")

    def test_conflicting_deadlines_are_reported(self):
        pods = [pod("a-1", "j", "a", start=ts(1), end=ts(2), annotations={metrics.ANN_DEADLINE: ts(30)}),
                pod("b-1", "j", "b", start=ts(1), end=ts(2), annotations={metrics.ANN_DEADLINE_AFTER: "10s"})]
        j = metrics.analyze(pods, [], [], [])["jobs"]["j"]
        self.assertIsNone(j["deadline"])
        self.assertEqual(j["errors"], ["conflicting deadlines: tasks 'a' and 'b'"])

    def test_unfinished_job(self):
        pods = [pod("a-1", "j", "a", start=ts(1), end=ts(5)),
                pod("b-1", "j", "b", phase="Pending", node=None, annotations={metrics.ANN_DEPENDS_ON: "a"}, gated=True),
                pod("c-1", "j", "c", phase="Running", start=ts(6), annotations={metrics.ANN_DEPENDS_ON: "a"})]
        a = metrics.analyze(pods, [], [], [])
        j = a["jobs"]["j"]
        self.assertFalse(j["complete"])
        self.assertIsNone(j["makespan"])
        self.assertEqual({n: t["state"] for n, t in j["tasks"].items()}, {"a": "succeeded", "b": "held", "c": "running"})
        self.assertIsNone(a["totals"]["makespan"])
        self.assertEqual(summary.fmt_deadline(j), "-")

    def test_running_before_upstream_succeeded_is_a_violation(self):
        pods = [pod("a-1", "j", "a", phase="Running", start=ts(1)),
                pod("b-1", "j", "b", phase="Running", start=ts(2), annotations={metrics.ANN_DEPENDS_ON: "a"})]
        v = metrics.analyze(pods, [], [], [])["jobs"]["j"]["violations"]
        self.assertEqual([(x["task"], x["upstream"], x["upstream_end"]) for x in v], [("b", "a", None)])

    def test_live_deadline_cells(self):
        pods = [pod("a-1", "j", "a", phase="Running", created=ts(10), start=ts(11),
                    annotations={metrics.ANN_DEADLINE_AFTER: "30s"}),
                pod("x-1", "k", "x", created=ts(10), start=ts(11), end=ts(50), annotations={metrics.ANN_DEADLINE: ts(45)}),
                pod("y-1", "n", "y", phase="Running", created=ts(10), start=ts(11))]
        a = metrics.analyze(pods, [], [], [])
        self.assertEqual(summary.deadline_cells(a, 25.0), {"j": "in 15s", "k": "MISSED", "n": ""})
        self.assertEqual(summary.deadline_cells(a, 47.0)["j"], "late 7s")
        f = load_fixture()
        self.assertEqual(summary.deadline_cells(analyze_fixture(), 0.0), {"mini": "met", "filler": ""})
        self.assertEqual(len(f["pods"]), 4)

    def test_not_created_tasks_from_workload(self):
        wt = [("j", "a", [], "j-a"), ("j", "b", ["a"], "j-b")]
        pods = [pod("j-a-x", "j", "a", phase="Running", start=ts(1))]
        j = metrics.analyze(pods, [], [], [], wt)["jobs"]["j"]
        self.assertEqual(j["tasks"]["b"]["state"], "not-created")
        rows = metrics.progress(pods, [], wt)
        self.assertEqual(rows["j"], {"done": 0, "running": 1, "waiting": 1, "total": 2, "evictions": 0})

    def test_bad_inputs(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "x.json")
            with open(p, "w") as f:
                f.write("{not json")
            with self.assertRaisesRegex(metrics.MetricsError, "not JSON"):
                metrics.load_list(p)
            with open(p, "w") as f:
                f.write('{"items": 3}')
            with self.assertRaisesRegex(metrics.MetricsError, "items: expected a list"):
                metrics.load_list(p)
            with self.assertRaisesRegex(metrics.MetricsError, "cannot read"):
                metrics.load_list(os.path.join(d, "missing.json"))


class TestReportAndCheck(unittest.TestCase):
    def run_main(self, argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = summary.main(argv)
            except SystemExit as e:
                rc = e.code
        return rc, out.getvalue(), err.getvalue()

    def test_report_and_checks(self):
        with tempfile.TemporaryDirectory() as d:
            js = os.path.join(d, "r.json")
            rc, out, _ = self.run_main(["report", "--run", f"dagsched={FIXTURE}", "--run", f"default-scheduler={FIXTURE}",
                                        "--workload", *FIXTURE_WORKLOAD, "--json", js])
            self.assertEqual(rc, 0)
            self.assertIn("mini (3 tasks, deadline 60s after submission)", out)
            self.assertRegex(out, r"  deadline\s+met, 44s to spare\s+met, 44s to spare")
            self.assertRegex(out, r"  dependency violations\s+1\s+1")
            self.assertIn("fill  cpu-slow-1 evicted > cpu-slow-1 (1x) 11-31s", out)
            self.assertIn("  2s filler/fill on cpu-slow-1: Preempted by pod e936dedd", out)
            self.assertIn("mini/load (pod mini-load-rz74q) bound at 3s; upstream transform ended at 18s", out)
            with open(js) as f:
                data = json.load(f)
            self.assertEqual(data["order"], ["dagsched", "default-scheduler"])

            rc, out, _ = self.run_main(["check", "--json", js, "--complete", "dagsched", "--deadline-met", "dagsched:mini"])
            self.assertEqual(rc, 0, out)
            self.assertIn("PASS  dagsched: every job completed (2/2 jobs, 4/4 tasks)", out)
            self.assertIn("PASS  dagsched: job mini deadline met (finished 18s, deadline 62s)", out)

            rc, out, _ = self.run_main(["check", "--json", js, "--no-violations", "dagsched", "--no-evictions",
                                        "default-scheduler", "--deadline-missed", "dagsched:mini"])
            self.assertEqual(rc, 1)
            self.assertIn("FAIL  dagsched: no dependency violation (1)", out)
            self.assertIn("FAIL  default-scheduler: no eviction (1)", out)
            self.assertIn("FAIL  dagsched: job mini deadline missed", out)

            rc, out, _ = self.run_main(["check", "--json", js, "--deadline-met", "dagsched:nosuchjob"])
            self.assertEqual(rc, 1)
            self.assertIn("FAIL  dagsched: job nosuchjob exists", out)
            rc, _, err = self.run_main(["check", "--json", js, "--complete", "other"])
            self.assertEqual(rc, 2)
            self.assertIn("no run 'other'", err)


class TestWorkload(unittest.TestCase):
    def write(self, d, text):
        p = os.path.join(d, "w.yaml")
        with open(p, "w") as f:
            f.write(text)
        return p

    def job(self, task, deps=None, job="j"):
        ann = f"\n        dagsched.io/depends-on: \"{deps}\"" if deps is not None else ""
        return f"""---
apiVersion: batch/v1
kind: Job
metadata: {{name: {job}-{task}}}
spec:
  template:
    metadata:
      labels: {{dagsched.io/job: {job}, dagsched.io/task: {task}}}
      annotations:
        dagsched.io/runtime: 5s{ann}
    spec:
      schedulerName: dagsched
      schedulingGates: [{{name: dagsched.io/dependencies}}, {{name: other.example/gate}}]
      containers: [{{name: c, image: busybox}}]
"""

    def test_errors(self):
        cases = [
            (self.job("a", "b"), "depends on unknown task 'b' of job 'j'"),
            (self.job("a", "b") + self.job("b", "a"), "dependency cycle: a -> b -> a"),
            (self.job("a") + self.job("a"), "task 'a' of job 'j' is also declared by"),
            (self.job("a", "x,,y"), "entry 2 is empty"),
            (self.job("a", "bad name!"), "entry 1 is not a task name"),
            (self.job("a_"), "label dagsched.io/task: must be 1 to 63"),
            ("kind: Job\napiVersion: batch/v2\nmetadata: {name: x}\nspec: {template: {spec: {}}}\n", "apiVersion must be batch/v1"),
            ("a: [", "not valid YAML"),
            ("- 1\n", "not a Kubernetes object"),
        ]
        with tempfile.TemporaryDirectory() as d:
            for text, want in cases:
                with self.assertRaises(workload.WorkloadError, msg=want) as cm:
                    workload.load([self.write(d, text)])
                self.assertIn(want, str(cm.exception))

    def test_plain_copy(self):
        with tempfile.TemporaryDirectory() as d:
            tasks, _ = workload.load([self.write(d, self.job("a") + self.job("b", " a "))])
        self.assertEqual(tasks[1].depends_on, ["a"])
        plain = workload.plain_copy(tasks[1].manifest, "default-scheduler")
        spec = plain["spec"]["template"]["spec"]
        self.assertEqual(spec["schedulerName"], "default-scheduler")
        self.assertEqual(spec["schedulingGates"], [{"name": "other.example/gate"}])
        # The original is untouched.
        self.assertEqual(len(tasks[1].manifest["spec"]["template"]["spec"]["schedulingGates"]), 2)
        self.assertNotIn("schedulerName", workload.plain_copy(tasks[1].manifest, "")["spec"]["template"]["spec"])

    def test_job_state(self):
        self.assertEqual(baseline_driver.job_state({"status": {"conditions": [{"type": "Complete", "status": "True"}]}}), "succeeded")
        self.assertEqual(baseline_driver.job_state({"status": {"conditions": [{"type": "Failed", "status": "True"}]}}), "failed")
        self.assertEqual(baseline_driver.job_state({"status": {"conditions": [{"type": "Complete", "status": "False"}]}}), "running")
        self.assertEqual(baseline_driver.job_state({}), "running")


class TestExamples(unittest.TestCase):
    """The sample workloads are what the demo and docs/demo.md describe."""

    @classmethod
    def setUpClass(cls):
        cls.tasks, cls.others = workload.load(EXAMPLES)

    def test_priority_class(self):
        self.assertEqual([(o["kind"], o["metadata"]["name"]) for o in self.others],
                         [("PriorityClass", "dagsched-deadline")])
        pc = self.others[0]
        self.assertEqual(pc["preemptionPolicy"], "Never")  # only dagsched evicts
        self.assertGreater(pc["value"], 0)
        for t in self.tasks:
            want = "dagsched-deadline" if t.job in ("etl", "ml") else None
            self.assertEqual(t.manifest["spec"]["template"]["spec"].get("priorityClassName"), want, t.where)
        # The class is created before the jobs that use it (kubectl and the demo take files in order).
        names = [os.path.basename(f) for f in EXAMPLES]
        self.assertLess(names.index("deadline-priority-class.yaml"), names.index("etl-urgent.yaml"))
        self.assertLess(names.index("deadline-priority-class.yaml"), names.index("ml-pipeline.yaml"))

    def test_every_pod_uses_dagsched_and_gates_follow_dependencies(self):
        for t in self.tasks:
            spec = t.manifest["spec"]["template"]["spec"]
            self.assertEqual(spec.get("schedulerName"), "dagsched", t.where)
            gated = any(g.get("name") == workload.GATE for g in spec.get("schedulingGates") or [])
            self.assertEqual(gated, bool(t.depends_on), f"{t.where}: the gate goes on exactly the tasks with upstream tasks")
            ann = t.manifest["spec"]["template"]["metadata"]["annotations"]
            secs = metrics.parse_duration(ann["dagsched.io/runtime"])
            self.assertTrue(1 <= secs <= 120, f"{t.where}: run times stay short for the demo")
            cmd = t.manifest["spec"]["template"]["spec"]["containers"][0]["command"]
            self.assertEqual(cmd, ["sleep", f"{secs:g}"], f"{t.where}: on a real cluster the task sleeps its run time")

    def test_jobs_and_deadlines(self):
        jobs = {}
        for t in self.tasks:
            jobs.setdefault(t.job, []).append(t)
        self.assertEqual(sorted(jobs), ["backfill", "etl", "hello", "ml", "train"])
        # The gang example: prepare -> four workers of one gang of 4 -> evaluate.
        workers = [t for t in jobs["train"] if t.name.startswith("worker-")]
        self.assertEqual(len(jobs["train"]), 6)
        self.assertEqual(len(workers), 4)
        for t in workers:
            labels = t.manifest["spec"]["template"]["metadata"]["labels"]
            self.assertEqual((labels.get("dagsched.io/gang"), labels.get("dagsched.io/gang-size")),
                             ("workers", "4"), t.where)
        for name, ts_ in jobs.items():
            dls = {t.manifest["spec"]["template"]["metadata"]["annotations"].get("dagsched.io/deadline-after") for t in ts_}
            self.assertEqual(len(dls), 1, f"job {name}: every task states the same deadline")
        self.assertEqual(len(jobs["backfill"]), 8)
        self.assertTrue(all(not t.depends_on for t in jobs["backfill"]))
        # The hello DAG: a chain of three small tasks that fits one 2-CPU node.
        self.assertEqual([(t.name, t.depends_on) for t in jobs["hello"]],
                         [("fetch", []), ("greet", ["fetch"]), ("report", ["greet"])])
        for t in jobs["hello"]:
            req = t.manifest["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]
            self.assertEqual(req, {"cpu": "100m", "memory": "32Mi"})


class TestSchedulerConfig(unittest.TestCase):
    """The demo's dagsched scheduler is configured as the Helm chart configures its own."""

    def test_matches_chart_defaults(self):
        import yaml

        with open(os.path.join(REPO, "hack", "demo", "scheduler-config.yaml")) as f:
            cfg = yaml.safe_load(f)
        with open(os.path.join(REPO, "helm", "dagsched", "values.yaml")) as f:
            values = yaml.safe_load(f)
        with open(os.path.join(REPO, "helm", "dagsched", "templates", "scheduler-config.yaml")) as f:
            template = f.read()
        sched = values["scheduler"]
        self.assertEqual(cfg["kind"], "KubeSchedulerConfiguration")
        self.assertEqual([p["schedulerName"] for p in cfg["profiles"]], [sched["schedulerName"]])
        self.assertEqual(len(cfg["extenders"]), 1)
        ext = cfg["extenders"][0]
        self.assertEqual(ext["urlPrefix"], "@EXTENDER_URL@")
        self.assertEqual((ext["filterVerb"], ext["prioritizeVerb"]), ("filter", "prioritize"))
        self.assertEqual(ext.get("preemptVerb") == "preempt", bool(sched["extender"]["preempt"]))
        self.assertEqual(ext["weight"], sched["extender"]["weight"])
        self.assertEqual(ext["httpTimeout"], sched["extender"]["httpTimeout"])
        self.assertEqual(ext["ignorable"], sched["extender"]["ignorable"])
        self.assertIs(ext["nodeCacheCapable"], True)
        for line in ("filterVerb: filter", "prioritizeVerb: prioritize", "preemptVerb: preempt",
                     "nodeCacheCapable: true"):
            self.assertIn(line, template)
        # The same client rate limits as the chart's scheduler.
        conn = cfg["clientConnection"]
        self.assertEqual((conn["qps"], conn["burst"]),
                         (sched["clientConnection"]["qps"], sched["clientConnection"]["burst"]))
        self.assertIn("qps: {{ .Values.scheduler.clientConnection.qps }}", template)
        self.assertIn("burst: {{ .Values.scheduler.clientConnection.burst }}", template)
        # TLS as the chart's default (extender.tls.enabled): HTTPS with the CA that signed the
        # extender's certificate (a file made for the run here, caData from the chart).
        self.assertIs(ext["enableHTTPS"], True)
        self.assertIs(values["extender"]["tls"]["enabled"], True)
        self.assertEqual(ext["tlsConfig"], {"caFile": "@EXTENDER_CA@"})
        self.assertIn("enableHTTPS: {{ .Values.extender.tls.enabled }}", template)
        self.assertIn("tlsConfig:", template)
        self.assertEqual(set(ext) - {"urlPrefix", "filterVerb", "prioritizeVerb", "preemptVerb", "weight",
                                     "httpTimeout", "nodeCacheCapable", "ignorable", "enableHTTPS",
                                     "tlsConfig"}, set())


if __name__ == "__main__":
    unittest.main(verbosity=1)
