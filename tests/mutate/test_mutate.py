#!/usr/bin/env python3
"""tests/mutate/test_mutate.py: tests of the mutant generator of hack/mutate.py on small C
snippets: which mutants it plants, where, and that applying one changes exactly that text."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "hack"))
import mutate  # noqa: E402


def described(text):
    return [f"{m.line}:{m.col + 1} {m.describe()}" for m in mutate.generate("lib/x.c", text)]


class GenerateTest(unittest.TestCase):
    def test_relational_and_return(self):
        self.assertEqual(described("    return a < b;"), [
            "1:12 return: 'a < b' -> '0'",
            "1:14 relational: '<' -> '<='",
            "1:14 relational: '<' -> '>'",
        ])

    def test_same_change_planted_once(self):
        self.assertEqual(described("    return 0;"), ["1:12 constant: '0' -> '1'"])

    def test_comments_strings_and_preprocessor_are_left_alone(self):
        text = ("#define X(a) ((a) + 1)\n"
                "/* a < b\n"
                "   c - d */\n"
                "    s = \"a < b - 1\"; // x + y\n")
        self.assertEqual(described(text), ["4:5 delete: 's = \"a < b - 1\";' -> ';'"])

    def test_unary_minus_and_pointers_are_not_binary(self):
        ops = described("    x = -y * *p;")
        self.assertIn("1:12 arithmetic: '*' -> '/'", ops)
        self.assertFalse(any("'-'" in o for o in ops), ops)
        self.assertEqual(sum("arithmetic" in o for o in ops), 1, ops)

    def test_constants(self):
        ops = described("    f(0, 1, 2.5, 1e-9, x1);")
        self.assertIn("1:7 constant: '0' -> '1'", ops)
        self.assertIn("1:10 constant: '1' -> '0'", ops)
        self.assertIn("1:13 constant: '2.5' -> '(2.5 + 1)'", ops)
        self.assertIn("1:18 constant: '1e-9' -> '(1e-9 + 1)'", ops)
        self.assertFalse(any("x1" in o for o in ops if "constant" in o), ops)

    def test_negation_needs_the_whole_condition_on_the_line(self):
        self.assertIn("1:9 negate: 'a && f(b)' -> '!(a && f(b))'", described("    if (a && f(b))"))
        self.assertFalse(any("negate" in o for o in described("    if (a &&\n        b)")))

    def test_delete_only_whole_statements(self):
        text = "{\n    x = f(a,\n          b);\n    y += 2;\n    free(p);\n    free_ctx(&c);\n    return y;\n}"
        deletes = [o for o in described(text) if "delete" in o]
        self.assertEqual(deletes, ["4:5 delete: 'y += 2;' -> ';'"])

    def test_fmax_fmin_and_incdec(self):
        ops = described("    i++, v = fmax(a, b);")
        self.assertIn("1:6 incdec: '++' -> '--'", ops)
        self.assertIn("1:14 fmin-fmax: 'fmax' -> 'fmin'", ops)

    def test_apply_changes_only_the_mutated_text(self):
        text = "int f(int a)\n{\n    return a >= 3 ? a : 0;\n}\n"
        ms = {m.new: m for m in mutate.generate("lib/x.c", text) if m.op == "relational"}
        self.assertEqual(sorted(ms), ["<", ">"])
        self.assertEqual(ms[">"].apply(text), text.replace("a >= 3", "a > 3"))
        self.assertEqual(ms["<"].apply(text), text.replace("a >= 3", "a < 3"))
        with self.assertRaises(ValueError):
            ms[">"].apply(text.replace(">=", "=="))

    def test_sample_is_deterministic_and_bounded(self):
        ms = mutate.generate("lib/x.c", "    x = a + b - c * d / e < f;\n" * 10)
        a = mutate.select(ms, 7, 3)
        self.assertEqual(len(a), 7)
        self.assertEqual([m.ident() + m.new for m in a],
                         [m.ident() + m.new for m in mutate.select(ms, 7, 3)])
        self.assertEqual(len(mutate.select(ms, 0, 3)), len(ms))


if __name__ == "__main__":
    unittest.main(verbosity=1)
