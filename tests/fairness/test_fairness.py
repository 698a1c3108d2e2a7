#!/usr/bin/env python3
"""test_fairness.py: tests of `make bench-fairness`'s tools without a cluster (make fairness-test,
part of make parity-test).

- bench/fairness/fairness.py: job completion times and deadlines, Jain's index, dominant shares
  over time, cpu utilisation, the gangs' hold time and partial starts, on runs written here with
  values computed by hand;
- bench/fairness/report.py: pod runs read from pod and Event objects as kubectl prints them
  (binding from kube-scheduler's Event, start and end from kwok's annotations, a job's arrival
  from its first Job), and from dagsched-sim's --pods-csv; the table's ratios to the run alone
  and to fairness off, and the agreement of the ratios fair/default;
- bench/fairness/gen.py: the same seed gives the same files; two namespaces; the gang members
  carry the gang labels; the manifests and the simulator's Workload describe the same jobs;
  bin/dagsched-sim reads the Workload.
"""

import csv
import importlib.util
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HERE = os.path.join(ROOT, "bench", "fairness")
sys.path.insert(0, os.path.join(ROOT, "hack", "demo"))
sys.path.insert(0, HERE)
import fairness  # noqa: E402
import workload  # noqa: E402


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


report = load("fairness_report", os.path.join(HERE, "report.py"))
gen = load("fairness_gen", os.path.join(HERE, "gen.py"))
SIM = os.path.join(ROOT, "bin", "dagsched-sim")
GI = 2**30


def run(tenant, job, task, bound, end, cpu=2.0, memory=GI, gang=None, start=None, succeeded=True):
    return {"tenant": tenant, "job": job, "task": task, "cpu": cpu, "memory": memory, "gang": gang,
            "bound": bound, "start": bound + 0.5 if start is None else start, "end": end,
            "succeeded": succeeded}


class Outcomes(unittest.TestCase):
    def test_completion_jct_and_deadline(self):
        jobs = {"a": {"tenant": "t", "arrival": 10.0, "deadline": 30.0, "tasks": 2},
                "b": {"tenant": "t", "arrival": 0.0, "deadline": 20.0, "tasks": 1},
                "c": {"tenant": "u", "group": "g", "arrival": 5.0, "deadline": None, "tasks": 2}}
        runs = [run("t", "a", "x", 10, 20), run("t", "a", "y", 12, 31),
                # an evicted run, then the successful one
                run("t", "b", "x", 0, 4, succeeded=False), run("t", "b", "x", 6, 19),
                run("u", "c", "x", 5, 8)]
        o = fairness.job_outcomes(jobs, runs)
        self.assertEqual(o["a"]["completion"], 31)
        self.assertEqual(o["a"]["jct"], 21)
        self.assertFalse(o["a"]["met"])
        self.assertEqual(o["b"]["jct"], 19)
        self.assertTrue(o["b"]["met"])
        self.assertIsNone(o["c"]["completion"])  # one task of two
        self.assertIsNone(o["c"]["met"])
        self.assertEqual(o["c"]["group"], "g")
        self.assertEqual(o["a"]["group"], "t")
        s = fairness.summary(o)
        self.assertEqual(s["t"], {"jobs": 2, "complete": 2, "jct_mean": 20.0, "deadline_jobs": 2, "deadlines_met": 1})
        self.assertIsNone(s["u"]["jct_mean"])
        self.assertEqual(set(fairness.summary(o, "group")), {"t", "g"})


class Jain(unittest.TestCase):
    def test_values(self):
        self.assertEqual(fairness.jain([0.3, 0.3]), 1.0)
        self.assertEqual(fairness.jain([1.0, 0.0]), 0.5)
        self.assertAlmostEqual(fairness.jain([0.5, 0.25]), 0.5625 / 0.625)
        self.assertAlmostEqual(fairness.jain([1.0, 0.0, 0.0]), 1 / 3)
        self.assertIsNone(fairness.jain([]))
        self.assertIsNone(fairness.jain([0.0, 0.0]))

    def test_dominant_share_is_the_largest_kind_while_bound(self):
        cap = {"cpu": 8.0, "memory": 32 * GI}
        runs = [run("a", "j", "x", 0, 10, cpu=2, memory=16 * GI), run("b", "k", "x", 5, 10, cpu=4, memory=GI)]
        self.assertEqual(fairness.dominant_shares(runs, cap, 0), {"a": 0.5})
        self.assertEqual(fairness.dominant_shares(runs, cap, 5), {"a": 0.5, "b": 0.5})
        self.assertEqual(fairness.dominant_shares(runs, cap, 10), {})  # ended at 10

    def test_over_time_only_with_two_active_tenants(self):
        cap = {"cpu": 8.0, "memory": 1000 * GI}
        jobs = {"j": {"tenant": "a", "arrival": 0.0, "deadline": None, "tasks": 1},
                "k": {"tenant": "b", "arrival": 5.0, "deadline": None, "tasks": 1}}
        runs = [run("a", "j", "x", 0, 10, cpu=4), run("b", "k", "x", 5, 10, cpu=2)]
        o = fairness.job_outcomes(jobs, runs)
        samples, j = fairness.jain_over_time(o, runs, cap, 1.0)
        # samples 5..9: a holds 0.5, b 0.25; at 10 both jobs are complete
        self.assertEqual([s[0] for s in samples], [5, 6, 7, 8, 9])
        self.assertEqual(samples[0][1], {"a": 0.5, "b": 0.25})
        self.assertAlmostEqual(j["mean"], 0.9)
        self.assertAlmostEqual(j["min"], 0.9)
        self.assertEqual(j["samples"], 5)

    def test_an_active_tenant_without_room_counts_zero(self):
        cap = {"cpu": 8.0, "memory": 1000 * GI}
        jobs = {"j": {"tenant": "a", "arrival": 0.0, "deadline": None, "tasks": 1},
                "k": {"tenant": "b", "arrival": 0.0, "deadline": None, "tasks": 1}}
        runs = [run("a", "j", "x", 0, 4, cpu=8), run("b", "k", "x", 4, 8, cpu=8)]
        o = fairness.job_outcomes(jobs, runs)
        samples, j = fairness.jain_over_time(o, runs, cap, 2.0)
        # 0 and 2: a holds all, b waits (0.5); 4 and 6: a is done, b alone (no sample)
        self.assertEqual([(s[0], s[2]) for s in samples], [(0, 0.5), (2, 0.5)])
        self.assertEqual(j["mean"], 0.5)


class Utilisation(unittest.TestCase):
    def test_cpu_held_over_the_window(self):
        cap = {"cpu": 8.0, "memory": GI}
        jobs = {"j": {"tenant": "a", "arrival": 0.0, "deadline": None, "tasks": 1},
                "k": {"tenant": "b", "arrival": 2.0, "deadline": None, "tasks": 1}}
        runs = [run("a", "j", "x", 0, 10, cpu=4), run("b", "k", "x", 5, 10, cpu=2)]
        o = fairness.job_outcomes(jobs, runs)
        self.assertAlmostEqual(fairness.cpu_utilisation(o, runs, cap), (40 + 10) / 80)
        self.assertIsNone(fairness.cpu_utilisation(o, [], cap))


class Gangs(unittest.TestCase):
    def test_partial_start_and_hold(self):
        runs = [run("t", "g", f"w{i}", b, e, gang="workers") for i, (b, e) in
                enumerate([(0, 12), (0.2, 12), (5, 17), (6, 18)])]
        g = fairness.gangs(runs)["g/workers"]
        self.assertEqual(g["members"], 4)
        self.assertAlmostEqual(g["hold_s"], 6 + 5.8 + 1 + 0)
        self.assertAlmostEqual(g["bound_spread"], 6)
        self.assertAlmostEqual(g["start_spread"], 6)
        self.assertTrue(g["partial"])

    def test_together_is_not_partial(self):
        runs = [run("t", "g", f"w{i}", 10 + 0.003 * i, 22, gang="workers", start=10.8) for i in range(4)]
        runs.append(run("t", "g", "prepare", 0, 3))
        g = fairness.gangs(runs)
        self.assertEqual(list(g), ["g/workers"])
        self.assertFalse(g["g/workers"]["partial"])
        self.assertAlmostEqual(g["g/workers"]["hold_s"], 0.009 + 0.006 + 0.003)

    def test_member_that_ended_holds_until_its_end_and_first_run_counts(self):
        runs = [run("t", "g", "w0", 0, 3, gang="x"), run("t", "g", "w1", 6, 9, gang="x"),
                run("t", "g", "w1", 7, 10, gang="x"),  # a later run of w1: not the gang's start
                run("t", "h", "w0", 1, 9, gang="x"), run("t", "h", "w1", 1.5, 9, gang="x")]
        g = fairness.gangs(runs, tol=1.0)
        self.assertAlmostEqual(g["g/x"]["hold_s"], 3)
        self.assertTrue(g["g/x"]["partial"])
        # h: bound 0.5 s apart, started at 1.5 and 2.0: w1 was bound 0 s after w0 started
        self.assertFalse(g["h/x"]["partial"])
        self.assertAlmostEqual(g["h/x"]["hold_s"], 0.5)

    def test_figures_count_partial_gangs(self):
        jobs = {"g": {"tenant": "t", "arrival": 0.0, "deadline": None, "tasks": 2},
                "h": {"tenant": "t", "arrival": 0.0, "deadline": None, "tasks": 2}}
        runs = [run("t", "g", "w0", 0, 3, gang="x"), run("t", "g", "w1", 6, 9, gang="x"),
                run("t", "h", "w0", 1, 9, gang="x"), run("t", "h", "w1", 1, 9, gang="x")]
        f = fairness.figures(jobs, runs, {"cpu": 8.0, "memory": 8 * GI})
        self.assertEqual(f["gangs_partial"], 1)
        self.assertAlmostEqual(f["gang_hold_s"], 3)
        self.assertEqual(f["makespan_s"], 9)


def ts(t):
    """RFC 3339 of seconds since the epoch, microseconds."""
    import datetime
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def whole(t):
    import datetime
    return datetime.datetime.fromtimestamp(int(t), datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


META = {"l0": {"tenant": "light", "group": "light", "arrival": 5.0, "deadline_after": 40,
               "tasks": {"a": {"cpu": 2.0, "memory": 2 * GI, "gang": None},
                         "b": {"cpu": 2.0, "memory": 2 * GI, "gang": None}}},
        "g0": {"tenant": "flood", "group": "gang", "arrival": 0.0, "deadline_after": None,
               "tasks": {"w0": {"cpu": 2.0, "memory": 2 * GI, "gang": "workers"},
                         "w1": {"cpu": 2.0, "memory": 2 * GI, "gang": "workers"}}}}


def pod(ns, job, task, created, bound, start, runtime):
    return {"metadata": {"name": f"{job}-{task}-x", "namespace": ns, "creationTimestamp": whole(created),
                         "labels": {"dagsched.io/job": job, "dagsched.io/task": task},
                         "annotations": {"dagsched.io/started-unix-ms": str(int(start * 1000)),
                                         "dagsched.io/runtime-scaled": f"{int(runtime * 1000)}ms"}},
            "spec": {"nodeName": "n1"},
            "status": {"phase": "Succeeded",
                       "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": whole(bound)}]}}


def scheduled(ns, name, t):
    return {"involvedObject": {"kind": "Pod", "namespace": ns, "name": name}, "reason": "Scheduled",
            "message": f"Successfully assigned {ns}/{name} to n1", "eventTime": ts(t)}


class ClusterRuns(unittest.TestCase):
    def test_pods_events_and_jobs(self):
        t0 = 1_700_000_000.0
        pods = [pod("light", "l0", "a", t0 + 1, t0 + 2, t0 + 2.6, 10), pod("light", "l0", "b", t0 + 14, t0 + 15, t0 + 15.4, 10),
                pod("flood", "g0", "w0", t0 + 3, t0 + 4, t0 + 4.5, 5), pod("flood", "g0", "w1", t0 + 3, t0 + 8, t0 + 8.2, 5),
                pod("other", "zz", "a", t0, t0, t0, 1)]
        events = [scheduled("light", "l0-a-x", t0 + 2.25)]
        jobs = [{"metadata": {"name": "l0-a", "creationTimestamp": whole(t0),
                              "labels": {"dagsched.io/job": "l0", "dagsched.io/task": "a"}}}]
        j, runs = report.cluster_runs(META, pods, jobs, events)
        self.assertEqual(len(runs), 4)
        by = {(r["job"], r["task"]): r for r in runs}
        self.assertAlmostEqual(by[("l0", "a")]["bound"], t0 + 2.25)  # the Event's microseconds
        self.assertAlmostEqual(by[("l0", "b")]["bound"], t0 + 15.5)  # the condition + 0.5
        self.assertAlmostEqual(by[("l0", "a")]["end"], t0 + 12.6)
        self.assertAlmostEqual(j["l0"]["arrival"], t0 + 0.5)  # its Job, created before its pods
        self.assertAlmostEqual(j["l0"]["deadline"], t0 + 40.5)
        self.assertAlmostEqual(j["g0"]["arrival"], t0 + 3.5)  # no Job: its first pod
        self.assertEqual(by[("g0", "w1")]["gang"], "workers")
        f = fairness.figures(j, runs, {"cpu": 8.0, "memory": 32 * GI})
        self.assertAlmostEqual(f["groups"]["light"]["jct_mean"], 25.4 - 0.5, places=3)
        self.assertEqual(f["groups"]["light"]["deadlines_met"], 1)
        self.assertTrue(f["gangs"]["g0/workers"]["partial"])
        self.assertAlmostEqual(f["gang_hold_s"], 8.5 - 4.5)

    def test_node_capacity_leaves_tainted_nodes_out(self):
        nodes = [{"status": {"allocatable": {"cpu": "8", "memory": "32Gi"}}},
                 {"status": {"allocatable": {"cpu": "7500m", "memory": "1Gi"}}},
                 {"spec": {"taints": [{"key": "gpu", "effect": "NoSchedule"}]},
                  "status": {"allocatable": {"cpu": "8", "memory": "32Gi"}}}]
        self.assertEqual(report.node_capacity(nodes), {"cpu": 15.5, "memory": 33 * GI})


class SimRuns(unittest.TestCase):
    def test_pods_csv(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "pods.csv")
            with open(path, "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["policy", "seed", "job", "task", "node", "created_s", "queued_s", "bound_s", "end_s", "outcome"])
                w.writerow(["dagsched", 1, "l0", "a", "n", 5, 5.5, 6, 16, "done"])
                w.writerow(["dagsched", 1, "l0", "b", "n", 16, 16.5, 17, 27, "done"])
                w.writerow(["default", 1, "l0", "a", "n", 5, 5, 5, 15, "done"])
                w.writerow(["dagsched", 1, "g0", "w0", "n", 1, 2, 3, 5, "evicted"])
            j, runs = report.sim_runs(META, path, "dagsched", 0.25)
        self.assertEqual(len(runs), 3)
        self.assertEqual(set(j), {"l0", "g0"})
        self.assertEqual(j["l0"]["arrival"], 5.0)
        self.assertEqual(j["l0"]["deadline"], 45.0)
        r = [x for x in runs if x["task"] == "a"][0]
        self.assertEqual((r["bound"], r["start"], r["end"], r["succeeded"]), (6.0, 6.25, 16.0, True))
        self.assertFalse([x for x in runs if x["job"] == "g0"][0]["succeeded"])


def figs(light, flood, util, deadlines=(1, 2), gangs=None):
    f = {"groups": {"light": {"jct_mean": light, "deadline_jobs": deadlines[1], "deadlines_met": deadlines[0]}},
         "util_cpu": util, "makespan_s": 100.0, "jain": {"mean": 0.8, "min": 0.5},
         "gangs": gangs or {}, "gangs_partial": 0, "gang_hold_s": 0.0}
    if flood is not None:
        f["groups"]["flood"] = {"jct_mean": flood, "deadline_jobs": 0, "deadlines_met": 0}
    return f


class Table(unittest.TestCase):
    def test_ratios_to_alone_and_to_fairness_off(self):
        rows = {r["run"]: r for r in report.rows_of({
            "alone": figs(40.0, None, 0.25), "fair": figs(46.0, 50.0, 0.88),
            "nofair": figs(90.0, 40.0, 0.80), "default": figs(80.0, 45.0, 0.80, (0, 2))})}
        self.assertAlmostEqual(rows["fair"]["light_vs_alone"], 1.15)
        self.assertAlmostEqual(rows["nofair"]["light_vs_alone"], 2.25)
        self.assertAlmostEqual(rows["fair"]["util_vs_nofair"], 1.1)
        self.assertIsNone(rows["alone"]["util_vs_nofair"])
        self.assertEqual((rows["default"]["deadlines_met"], rows["default"]["deadline_jobs"]), (0, 2))
        self.assertIsNone(rows["fair"]["gang_hold_s"])  # no gang

    def test_agreement_of_the_ratios(self):
        real = report.rows_of({"fair": figs(46.0, 50.0, 0.88), "default": figs(92.0, 40.0, 0.80)})
        sim = report.rows_of({"fair": figs(50.0, 50.0, 0.90), "default": figs(80.0, 50.0, 0.90)})
        a = {x["metric"]: x for x in report.agreement_rows(real, sim)}
        self.assertAlmostEqual(a["light_jct"]["real_ratio"], 0.5)
        self.assertAlmostEqual(a["light_jct"]["sim_ratio"], 0.625)
        self.assertAlmostEqual(a["light_jct"]["agreement"], 0.25)
        self.assertAlmostEqual(a["flood_jct"]["agreement"], abs(1.0 / 1.25 - 1))
        self.assertIsNone(a["gang_jct"]["agreement"])


def run_gen(seed, out, nodes):
    with redirect_stdout(io.StringIO()):
        rc = gen.main(["--seed", str(seed), "--nodes", nodes, "--out", out])
    if rc != 0:
        raise AssertionError(f"gen.py exited {rc}")
    files = {}
    for n in sorted(os.listdir(out)):
        with open(os.path.join(out, n)) as f:
            files[n] = f.read()
    return files


class Generator(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.nodes = os.path.join(cls.tmp.name, "nodes.jsonl")
        out = subprocess.run([os.path.join(ROOT, "hack", "cluster", "create-nodes.sh"),
                              os.path.join(HERE, "nodes.tsv"), "--print"], check=True, capture_output=True).stdout
        with open(cls.nodes, "wb") as f:
            f.write(out)
        cls.dir = os.path.join(cls.tmp.name, "w")
        cls.files = run_gen(1, cls.dir, cls.nodes)
        cls.meta = json.loads(cls.files["jobs.json"])
        cls.sim = yaml.safe_load(cls.files["sim-workload.yaml"])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_same_seed_same_files_other_seed_other_files(self):
        self.assertEqual(run_gen(1, os.path.join(self.tmp.name, "again"), self.nodes), self.files)
        other = run_gen(2, os.path.join(self.tmp.name, "other"), self.nodes)
        self.assertNotEqual(other["flood-arrivals.json"], self.files["flood-arrivals.json"])

    def test_two_tenants_and_their_groups(self):
        groups = {}
        for name, j in self.meta.items():
            groups.setdefault((j["tenant"], j["group"]), []).append(name)
        self.assertEqual({k: len(v) for k, v in groups.items()},
                         {("flood", "flood"): 30, ("flood", "gang"): 2, ("light", "light"): 4})
        for name in groups[("light", "light")]:
            self.assertIsNotNone(self.meta[name]["deadline_after"])
        self.assertEqual(sorted(self.files), ["flood-arrivals.json", "flood.yaml", "jobs.json", "light-arrivals.json",
                                              "light.yaml", "sim-workload-light.yaml", "sim-workload.yaml"])

    def test_manifests_and_sim_workload_describe_the_same_jobs(self):
        sim_jobs = {j["name"]: j for j in self.sim["spec"]["jobs"]}
        self.assertEqual(set(sim_jobs), set(self.meta))
        for ns in ("flood", "light"):
            tasks, _ = workload.load([os.path.join(self.dir, f"{ns}.yaml")])
            arrivals = json.loads(self.files[f"{ns}-arrivals.json"])
            for t in tasks:
                sj = sim_jobs[t.job]
                self.assertEqual(sj["namespace"], ns)
                self.assertEqual(self.meta[t.job]["tenant"], ns)
                self.assertEqual(f"{arrivals[t.job]}s", sj["arrival"])
                st = {x["name"]: x for x in sj["tasks"]}[t.name]
                self.assertEqual(sorted(t.depends_on), sorted(st.get("dependsOn", [])))
                labels = t.manifest["spec"]["template"]["metadata"]["labels"]
                self.assertEqual(labels.get("dagsched.io/gang"), st.get("gang"))
                if st.get("gang"):
                    self.assertEqual(labels["dagsched.io/gang-size"], "4")
                    self.assertEqual(st["gangSize"], 4)
                self.assertEqual(self.meta[t.job]["tasks"][t.name]["gang"], st.get("gang"))
        gang_members = [t for j in sim_jobs.values() for t in j["tasks"] if t.get("gang")]
        self.assertEqual(len(gang_members), 8)
        light = yaml.safe_load(self.files["sim-workload-light.yaml"])
        self.assertEqual({j["namespace"] for j in light["spec"]["jobs"]}, {"light"})
        self.assertEqual(light["spec"]["nodes"], self.sim["spec"]["nodes"])

    @unittest.skipUnless(os.access(SIM, os.X_OK), "bin/dagsched-sim is not built")
    def test_the_simulator_reads_it_and_the_report_reads_the_simulator(self):
        csv_path = os.path.join(self.tmp.name, "pods.csv")
        subprocess.run([SIM, "--workload", os.path.join(self.dir, "sim-workload.yaml"), "--policy", "default",
                        "--pods-csv", csv_path, "--quiet"], check=True, capture_output=True)
        j, runs = report.sim_runs(self.meta, csv_path, "default", 0.0)
        f = fairness.figures(j, runs, report.sim_capacity(os.path.join(self.dir, "sim-workload.yaml")))
        self.assertEqual(sum(g["complete"] for g in f["groups"].values()), 36)
        self.assertEqual(len(f["gangs"]), 2)
        self.assertGreater(f["util_cpu"], 0.5)


if __name__ == "__main__":
    unittest.main(verbosity=1)
