#!/usr/bin/env python3
"""test_eta.py: tests of the ETA error measurement (bench/eta) without a cluster (make parity-test).

- bench/eta/report.py on a sample file and the pods of a small run written by hand
  (tests/eta/data: jobs a (two tasks, the second created when the first ended), b (one task) and c
  (still running at the end); a failed sample; a sample where the plugin gives no ETA): each
  job's actual finish and submission from the pods and from the samples, the sample taken at each
  point of a job's life, and every figure (|error|, relative error, bias, share finished before the
  ETA, lower bounds, samples without an ETA) against values computed by hand; the figures over the
  samples where the plugin saw every task; why lower bounds are; the command's output (text,
  JSON, Markdown) and its refusals.
- bench/eta/sample.py's flags (it samples the real plugin on a real cluster in ETA_SAMPLE=1 make
  bench-parity).
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "eta"))
sys.path.insert(0, os.path.join(ROOT, "hack", "demo"))
import metrics  # noqa: E402
import report  # noqa: E402

DATA = os.path.join(ROOT, "tests", "eta", "data")
SAMPLES = os.path.join(DATA, "samples.jsonl")
PODS = os.path.join(DATA, "pods.json")
T0 = 1767225600  # 2026-01-01T00:00:00Z: the samples' time 0


class Report(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.samples, cls.failed = report.load_samples(SAMPLES)
        cls.truth = report.truth_from_pods(metrics.load_list(PODS))

    def test_samples_in_time_order_failed_ones_counted(self):
        self.assertEqual([s["t"] - T0 for s in self.samples], [0, 5, 10, 20, 25, 30, 45])
        self.assertEqual(self.failed, 1)

    def test_truth_from_pods(self):
        # c has a pod still running, the pod without labels is not a task.
        self.assertEqual(self.truth, {
            "a": {"created": T0, "finished": T0 + 40, "tasks": 2},
            "b": {"created": T0 + 5, "finished": T0 + 25, "tasks": 1},
        })

    def test_truth_from_samples(self):
        # The last sample shows a and b finished, c running.
        self.assertEqual(report.truth_from_samples(self.samples), {
            "a": {"created": T0, "finished": T0 + 40, "tasks": 2},
            "b": {"created": T0 + 5, "finished": T0 + 25, "tasks": 1},
        })

    def test_observations_end_at_the_finish(self):
        obs = report.observations(self.samples, self.truth)
        self.assertEqual([(t - T0, None if e is None else e - T0, lb, n) for t, e, lb, n in obs["a"]],
                         [(0, 20, False, 1), (5, 22, False, 1), (10, 25, False, 1), (20, 44, False, 2),
                          (25, 41, False, 2), (30, None, False, 2)])
        self.assertEqual([(t - T0, e - T0, lb) for t, e, lb, _ in obs["b"]],
                         [(5, 30, True), (10, 24, False), (20, 27, False)])

    def test_points_of_a_jobs_life(self):
        obs = report.observations(self.samples, self.truth)["b"]  # created 5, finished 25
        at = [report.at_point(obs, T0 + 5, 20, f)[0] - T0 for f in (0, 0.25, 0.5, 0.75)]
        # 50 %: at 15 the sample failed, the one at 10 counts.
        self.assertEqual(at, [5, 10, 10, 20])
        self.assertIsNone(report.at_point(obs, T0, 20, 0.1))  # before its first sample
        self.assertIsNone(report.at_point([], T0, 20, 0))

    def test_quantile_is_nearest_rank(self):
        self.assertEqual(report.quantile([4, 1, 3, 2], 0.5), 3)
        self.assertEqual(report.quantile([4, 1, 3, 2], 0.9), 4)
        self.assertEqual(report.quantile([7], 0.9), 7)
        self.assertIsNone(report.quantile([], 0.5))

    def check(self, got, want):
        for k, v in want.items():
            if isinstance(v, float):
                self.assertAlmostEqual(got[k], v, places=9, msg=k)
            else:
                self.assertEqual(got[k], v, msg=k)

    def test_figures_by_hand(self):
        f = report.analyse(self.samples, self.truth)
        # a at 0: ETA 20, finish 40: -20, remaining 40; b at 5: ETA 30 (lower bound), finish 25: +5,
        # remaining 20.
        self.check(f["first seen"], {"samples": 2, "no_eta": 0, "n": 2, "abs_p50_s": 20, "abs_p90_s": 20,
                                     "rel_p50": 0.5, "rel_p90": 0.5, "bias_p50_s": 5, "bias_mean_s": -7.5,
                                     "before_eta": 0.5, "lower_bound": 0.5})
        # a at 10: -15 of 30; b at 10: -1 of 15.
        self.check(f["25 %"], {"n": 2, "abs_p50_s": 15, "rel_p50": 0.5, "bias_p50_s": -1, "bias_mean_s": -8.0,
                               "before_eta": 0.0, "lower_bound": 0.0})
        # a at 20: +4 of 20; b at 10: -1 of 15.
        self.check(f["50 %"], {"n": 2, "abs_p50_s": 4, "rel_p50": 0.2, "bias_p50_s": 4, "bias_mean_s": 1.5,
                               "before_eta": 0.5})
        # a at 30: no ETA; b at 20: +2 of 5.
        self.check(f["75 %"], {"samples": 2, "no_eta": 1, "n": 1, "abs_p50_s": 2, "rel_p50": 0.4,
                               "bias_mean_s": 2.0, "before_eta": 1.0})
        # a: -20 -18 -15 +4 +1 and one without; b: +5 -1 +2.
        self.check(f["every sample"], {"samples": 9, "no_eta": 1, "n": 8, "abs_p50_s": 5, "abs_p90_s": 20,
                                       "rel_p50": 0.4, "rel_p90": 18 / 35, "bias_p50_s": 1,
                                       "bias_mean_s": -42 / 8, "before_eta": 0.5, "lower_bound": 1 / 8})

    def test_figures_where_every_task_was_seen(self):
        f = report.analyse(self.samples, self.truth, full_only=True)
        # a saw its second task from 20 on: nothing at 25 % (10 s), +4 first and at 50 %.
        self.check(f["first seen"], {"n": 2, "abs_p50_s": 5, "bias_mean_s": 4.5, "before_eta": 1.0,
                                     "rel_p50": 0.25})
        self.check(f["25 %"], {"samples": 1, "n": 1, "bias_p50_s": -1})
        self.check(f["every sample"], {"samples": 6, "no_eta": 1, "n": 5, "abs_p50_s": 2, "abs_p90_s": 5,
                                       "bias_p50_s": 2, "bias_mean_s": 2.2, "before_eta": 0.8,
                                       "lower_bound": 0.2})

    def test_why_not_forecast(self):
        # b's first ETA; c's never count (c did not finish).
        self.assertEqual(report.not_forecast(self.samples, self.truth),
                         [("the controller holds it: maxConcurrentReleases tasks released and not yet running", 1)])

    def test_why_not_forecast_without_numbers(self):
        row = {"name": "a", "eta": "2026-01-01T00:01:00Z", "lowerBound": True,
               "notForecast": "t4: the running DAG tasks' expected ends free too little room for it and the 16 "
                              "task(s) before it"}
        other = dict(row, notForecast=row["notForecast"].replace("16", "3"))
        got = report.not_forecast([{"t": T0, "jobs": [row]}, {"t": T0 + 1, "jobs": [other]}],
                                  {"a": {"created": T0, "finished": T0 + 60, "tasks": 5}})
        self.assertEqual(got, [("the running DAG tasks' expected ends free too little room for it and the N task(s) "
                                "before it", 2)])

    def test_no_eta_at_all(self):
        self.assertEqual(report.summarize([(None, 10, False)]),
                         {"samples": 1, "no_eta": 1, "n": 0, "abs_p50_s": None, "abs_p90_s": None,
                          "rel_p50": None, "rel_p90": None, "bias_p50_s": None, "bias_mean_s": None,
                          "before_eta": None, "lower_bound": None})

    def test_command(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "eta.json")
            p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "eta", "report.py"), "--samples",
                                SAMPLES, "--pods", PODS, "--json", out], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("2 jobs, 7 samples over 45 s (1 failed", p.stdout)
            lines = p.stdout.splitlines()
            self.assertIn("every sample  9       1        5.0       20.0     40 %     51 %      +1.0       -5.2"
                          "        50 %         12 %", lines)
            with open(out) as f:
                doc = json.load(f)
            self.assertEqual((doc["jobs"], doc["samples"], doc["failed"]), (2, 7, 1))
            self.assertEqual(doc["every"]["50 %"]["bias_mean_s"], 1.5)
            self.assertEqual(doc["full_dag"]["every sample"]["n"], 5)
            self.assertIn("      1  the controller holds it: maxConcurrentReleases", p.stdout)
            p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "eta", "report.py"), "--samples",
                                SAMPLES, "--pods", PODS, "--markdown"], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("| every sample | 9 | 1 | 5.0 / 20.0 s | 40 % / 51 % | +1.0 / -5.2 s | 50 % | 12 % |",
                          p.stdout.splitlines())
            self.assertIn("| 25 % | 1 | 0 | 1.0 / 1.0 s | 7 % / 7 % | -1.0 / -1.0 s | 0 % | 0 % |", p.stdout.splitlines())
            # Without --pods: the same jobs from the samples.
            p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "eta", "report.py"), "--samples",
                                SAMPLES], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("2 jobs, 7 samples", p.stdout)
            bad = os.path.join(d, "bad.jsonl")
            for text, why in (("{\"t\": 1}\nnot json\n", "bad.jsonl:2: not JSON"), ("{\"x\": 1}\n", "no time t"),
                              ("", "nothing to compare")):
                with open(bad, "w") as f:
                    f.write(text)
                p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "eta", "report.py"), "--samples",
                                    bad], capture_output=True, text=True)
                self.assertEqual(p.returncode, 2)
                self.assertIn(why, p.stderr)




class Sampler(unittest.TestCase):
    """The sampler's flags (it runs against the real plugin and cluster in ETA_SAMPLE=1 make
    bench-parity)."""

    def test_refuses_a_bad_interval(self):
        cmd = [sys.executable, os.path.join(ROOT, "bench", "eta", "sample.py"), "--plugin",
               os.path.join(ROOT, "bin", "kubectl-dagsched"), "--namespace", "ns", "--out",
               os.devnull, "--interval", "0"]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--interval must be", p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=1)
