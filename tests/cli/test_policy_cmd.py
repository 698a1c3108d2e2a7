#!/usr/bin/env python3
"""test_policy_cmd.py: kubectl-dagsched's policy commands, run as a user runs them: every shipped
policy validates, bad documents are refused with the validator's field path and exit code 1, bad
usage exits 2, and `policy configmap` prints the labelled ConfigMap the components watch, whose
document is the file unchanged. Usage: test_policy_cmd.py PATH/TO/kubectl-dagsched
"""

import glob
import json
import os
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = None


def run(*args, stdin=None):
    p = subprocess.run([BIN, *args], input=stdin, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


class TestPolicyValidate(unittest.TestCase):
    def test_shipped_policies_are_valid(self):
        files = sorted(glob.glob(os.path.join(REPO, "policies", "*.yaml")))
        self.assertGreaterEqual(len(files), 5)
        rc, out, err = run("policy", "validate", *files)
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(len(out.splitlines()), len(files))
        self.assertIn('policies/default.yaml: SchedulingPolicy "default" is valid', out)

    def test_bad_field_names_its_path(self):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
            f.write("apiVersion: dagsched.io/v1alpha1\nkind: SchedulingPolicy\n"
                    "metadata: {name: bad}\nspec:\n  preemption: {rho: 0.5}\n")
            f.flush()
            rc, out, err = run("policy", "validate", f.name)
        self.assertEqual(rc, 1)
        self.assertEqual(out, "")
        self.assertIn(f.name + ": ", err)
        self.assertIn("spec.preemption.rho", err)

    def test_every_error_is_printed(self):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
            f.write("apiVersion: dagsched.io/v1alpha1\nkind: SchedulingPolicy\n"
                    "metadata: {name: bad}\nspec:\n  preemption: {rho: 0.5, bogus: 1}\n"
                    "  extra: true\n")
            f.flush()
            rc, out, err = run("policy", "validate", f.name)
        self.assertEqual((rc, out), (1, ""))
        lines = err.splitlines()
        self.assertEqual(len(lines), 3, err)
        self.assertIn("spec.preemption.rho", lines[0])
        self.assertEqual(lines[1], f.name + ": spec.preemption.bogus: unknown field")
        self.assertEqual(lines[2], f.name + ": spec.extra: unknown field")

    def test_errors_are_bounded(self):
        doc = ("apiVersion: dagsched.io/v1alpha1\nkind: SchedulingPolicy\nmetadata: {name: b}\n"
               "spec:\n" + "".join("  bogus%d: 1\n" % i for i in range(60)))
        rc, out, err = run("policy", "validate", "-", stdin=doc)
        self.assertEqual(rc, 1)
        lines = err.splitlines()
        self.assertEqual(len(lines), 51, err)
        self.assertEqual(lines[-1], "-: and 10 more errors")

    def test_one_bad_file_fails_the_run_but_all_are_checked(self):
        good = os.path.join(REPO, "policies", "default.yaml")
        rc, out, err = run("policy", "validate", "/nonexistent/p.yaml", good)
        self.assertEqual(rc, 1)
        self.assertIn("/nonexistent/p.yaml: No such file or directory", err)
        self.assertIn("default.yaml: SchedulingPolicy", out)

    def test_wrong_kind_and_oversize(self):
        rc, _, err = run("policy", "validate", "-", stdin="apiVersion: dagsched.io/v1alpha1\nkind: ConfigMap\n")
        self.assertEqual(rc, 1)
        self.assertIn("kind", err)
        rc, _, err = run("policy", "validate", "-", stdin="#" * (300 * 1024))
        self.assertEqual(rc, 1)
        self.assertIn("file too large", err)

    def test_usage_errors_exit_2(self):
        for args in ([], ["policy"], ["policy", "validate"], ["policy", "frobnicate"], ["nope"],
                     ["policy", "configmap"], ["policy", "configmap", "-x", "f"],
                     ["policy", "configmap", "-n", "Not_A_Namespace", "f"], ["policy", "apply"],
                     ["policy", "apply", "f", "g"], ["policy", "apply", "f", "-n", "Bad_NS"],
                     ["policy", "apply", "f", "--policy-name", "x"], ["policy", "apply", "-A", "f"]):
            rc, _, err = run(*args)
            self.assertEqual(rc, 2, args)
            self.assertNotEqual(err, "", args)
        rc, out, _ = run("--help")
        self.assertEqual(rc, 0)
        self.assertIn("policy validate", out)


class TestPolicyConfigMap(unittest.TestCase):
    def test_wraps_the_document_unchanged(self):
        path = os.path.join(REPO, "policies", "packing-first.yaml")
        rc, out, err = run("policy", "configmap", path, "-n", "ops")
        self.assertEqual((rc, err), (0, ""))
        cm = json.loads(out)
        self.assertEqual(cm["apiVersion"], "v1")
        self.assertEqual(cm["kind"], "ConfigMap")
        self.assertEqual(cm["metadata"]["namespace"], "ops")
        self.assertEqual(cm["metadata"]["name"], "dagsched-policy-packing-first")
        self.assertEqual(cm["metadata"]["labels"]["dagsched.io/kind"], "SchedulingPolicy")
        with open(path) as f:
            self.assertEqual(cm["data"], {"policy.yaml": f.read()})

    def test_flags_as_every_command_takes_them(self):
        # The same flag layer as every other command: --help, --namespace=NS, a prefix of it.
        rc, out, _ = run("policy", "configmap", "--help")
        self.assertEqual(rc, 0)
        self.assertIn("--namespace", out)
        path = os.path.join(REPO, "policies", "default.yaml")
        for flag in (["--namespace=ops"], ["--namesp", "ops"], ["-nops"]):
            rc, out, err = run("policy", "configmap", *flag, path)
            self.assertEqual((rc, err), (0, ""), flag)
            self.assertEqual(json.loads(out)["metadata"]["namespace"], "ops", flag)

    def test_default_namespace_and_invalid_policy(self):
        rc, out, _ = run("policy", "configmap", os.path.join(REPO, "policies", "default.yaml"))
        self.assertEqual(rc, 0)
        self.assertEqual(json.loads(out)["metadata"]["namespace"], "dagsched-system")
        rc, out, err = run("policy", "configmap", "-", stdin="kind: SchedulingPolicy\n")
        self.assertEqual(rc, 1)
        self.assertEqual(out, "")
        self.assertNotEqual(err, "")


class TestPolicyApplyOffline(unittest.TestCase):
    def test_invalid_document_is_refused_before_any_cluster_access(self):
        # The kubeconfig does not exist: the validator's error, not the kubeconfig's, proves that
        # nothing is sent for an invalid document.
        rc, out, err = run("policy", "apply", "-", "--kubeconfig", "/nonexistent/kubeconfig",
                           stdin="apiVersion: dagsched.io/v1alpha1\nkind: SchedulingPolicy\n"
                                 "metadata: {name: bad}\nspec:\n  preemption: {rho: 0.5}\n")
        self.assertEqual((rc, out), (1, ""))
        self.assertIn("-: ", err)
        self.assertIn("spec.preemption.rho", err)
        self.assertNotIn("/nonexistent/kubeconfig", err)
        rc, out, err = run("policy", "apply", os.path.join(REPO, "policies", "default.yaml"),
                           "--kubeconfig", "/nonexistent/kubeconfig")
        self.assertEqual((rc, out), (1, ""))
        self.assertIn("/nonexistent/kubeconfig", err)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: test_policy_cmd.py PATH/TO/kubectl-dagsched")
    BIN = os.path.abspath(sys.argv.pop())
    unittest.main(verbosity=1)
