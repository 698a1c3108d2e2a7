#!/usr/bin/env python3
"""hack/mutate.py: mutation testing of the core library (lib/*.c) against the unit tests.

Plants one small change (a mutant) at a time in a copy of lib/, rebuilds the core library and the
unit tests that link the changed file, and runs those tests. A mutant is
  killed       when a unit test fails (or crashes),
  survived     when every unit test linking the file passes: no test notices the change,
  timeout      when a test runs past the per-test limit (counted as detected),
  build-error  when the mutant does not compile (left out of the score).
Score = (killed + timeout) / (killed + timeout + survived).

The working tree is never written to: mutants are built in a temporary directory that is removed
on exit, also on Ctrl-C. `make mutate` runs this with the MUTATE_* variables (docs/contributing.md).

  hack/mutate.py [--files F ...] [--max N] [--seed S] [--timeout SEC] [--out DIR] [--list]
"""

import argparse
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

DEFAULT_FILES = ["lib/dsp.c", "lib/victim.c", "lib/sailfish.c", "lib/joborder.c",
                 "lib/placement.c", "lib/jobstate.c"]

# ---------------------------------------------------------------------------------------------
# Mutant generation (pure text; tested by tests/mutate/test_mutate.py)
# ---------------------------------------------------------------------------------------------


class Mutant:
    """One change: on `line` (1-based), replace text[col:col+len(old)] == old with new."""

    def __init__(self, path, line, col, op, old, new, source_line):
        self.path, self.line, self.col = path, line, col
        self.op, self.old, self.new = op, old, new
        self.source_line = source_line

    def ident(self):
        return f"{self.path}:{self.line}:{self.col + 1}"

    def describe(self):
        return f"{self.op}: '{self.old.strip()}' -> '{self.new.strip()}'"

    def apply(self, text):
        lines = text.split("\n")
        s = lines[self.line - 1]
        if s[self.col:self.col + len(self.old)] != self.old:
            raise ValueError(f"{self.ident()}: source does not match the mutant")
        lines[self.line - 1] = s[:self.col] + self.new + s[self.col + len(self.old):]
        return "\n".join(lines)


def mask_line(line, in_comment):
    """Blanks comments, string and character literals (keeping positions). Returns the masked line
    and whether a /* comment is still open at its end."""
    out = []
    i, n = 0, len(line)
    while i < n:
        if in_comment:
            end = line.find("*/", i)
            if end < 0:
                out.append(" " * (n - i))
                return "".join(out), True
            out.append(" " * (end + 2 - i))
            i = end + 2
            in_comment = False
            continue
        c = line[i]
        if line.startswith("//", i):
            out.append(" " * (n - i))
            break
        if line.startswith("/*", i):
            in_comment = True
            continue
        if c in "\"'":
            j = i + 1
            while j < n and line[j] != c:
                j += 2 if line[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + "_" * max(j - i - 2, 0) + (c if j - i >= 2 else ""))
            i = j
            continue
        out.append(c)
        i += 1
    return "".join(out), in_comment


SWAPS = {
    "relational": {"<": ["<=", ">"], "<=": ["<", ">"], ">": [">=", "<"], ">=": [">", "<"],
                   "==": ["!="], "!=": ["=="]},
    "arithmetic": {"+": ["-"], "-": ["+"], "*": ["/"], "/": ["*"]},
    "assign-op": {"+=": ["-="], "-=": ["+="], "*=": ["/="], "/=": ["*="]},
    "logical": {"&&": ["||"], "||": ["&&"]},
}
# Binary operators stand between spaces in clang-formatted code; unary ones do not.
BINARY_RE = re.compile(r"(?<= )(<=|>=|==|!=|\+=|-=|\*=|/=|&&|\|\||<|>|\+|-|\*|/)(?= )")
INCDEC_RE = re.compile(r"\+\+|--")
NUMBER_RE = re.compile(r"(?<![\w.])(\d+\.?\d*(?:[eE][+-]?\d+)?)([uUlLfF]*)(?![\w.])")
RETURN_RE = re.compile(r"\breturn\s+([^;]+?)\s*;")
COND_RE = re.compile(r"\b(if|while)\s*\(")
FMINMAX_RE = re.compile(r"\b(fmax|fmin)\(")
# Deleting free() or a free_*() helper only leaks: the AddressSanitizer unit suite catches that,
# these rel runs cannot.
NO_DELETE = re.compile(r"^(return|break|continue|case|default|else|goto)\b|^[{}]|^free\w*\(")


def binary_mutants(masked):
    for m in BINARY_RE.finditer(masked):
        tok = m.group(1)
        for op, table in SWAPS.items():
            for new in table.get(tok, []):
                yield m.start(), op, tok, new


def number_mutants(masked):
    for m in NUMBER_RE.finditer(masked):
        lit = m.group(1)
        value = float(lit)
        if value == 0:
            new = "1" if "." not in lit else "1.0"
        elif value == 1:
            new = "0" if "." not in lit else "0.0"
        else:
            new = f"({lit} + 1)"
        yield m.start(1), "constant", lit, new


def return_mutants(masked, line):
    m = RETURN_RE.search(masked)
    if m is None:
        return
    expr = line[m.start(1):m.end(1)]
    flip = {"0": "1", "true": "false", "false": "true"}
    if expr == "NULL":
        return
    yield m.start(1), "return", expr, flip.get(expr, "0")


def negate_mutants(masked, line):
    for m in COND_RE.finditer(masked):
        start = m.end()  # just after "("
        depth, j = 1, start
        while j < len(masked) and depth > 0:
            depth += {"(": 1, ")": -1}.get(masked[j], 0)
            j += 1
        if depth != 0:
            continue  # condition continues on the next line
        cond = line[start:j - 1]
        yield start, "negate", cond, f"!({cond})"


def delete_mutant(masked, line, prev_end):
    s = masked.strip()
    if not s.endswith(";") or NO_DELETE.search(s) or prev_end not in (";", "{", "}", ":", ")"):
        return
    if s.count("(") != s.count(")") or s.startswith("for") or "=" not in s and "(" not in s:
        return
    indent = len(line) - len(line.lstrip())
    yield indent, "delete", line[indent:len(masked.rstrip())], ";"


def generate(path, text):
    """Every mutant of C source `text` (of file `path`), in line order."""
    out = []
    in_comment = False
    macro = False
    prev_end = "{"
    for no, line in enumerate(text.split("\n"), start=1):
        masked, in_comment = mask_line(line, in_comment)
        stripped = masked.strip()
        if macro or stripped.startswith("#"):
            macro = line.rstrip().endswith("\\")
            continue
        if not stripped:
            continue
        found = list(binary_mutants(masked))
        found += [(m.start(), "incdec", m.group(0), "--" if m.group(0) == "++" else "++")
                  for m in INCDEC_RE.finditer(masked)]
        found += list(number_mutants(masked))
        found += list(return_mutants(masked, line))
        found += list(negate_mutants(masked, line))
        found += [(m.start(1), "fmin-fmax", m.group(1), "fmin" if m.group(1) == "fmax" else "fmax")
                  for m in FMINMAX_RE.finditer(masked)]
        found += list(delete_mutant(masked, line, prev_end))
        seen = set()  # "return 0" -> "return 1" is also the constant mutant: plant it once
        for col, op, old, new in sorted(found, key=lambda f: (f[0], f[1], f[3])):
            if (col, old, new) not in seen:
                seen.add((col, old, new))
                out.append(Mutant(path, no, col, op, old, new, line))
        prev_end = stripped[-1]
    return out


# ---------------------------------------------------------------------------------------------
# Building and running
# ---------------------------------------------------------------------------------------------


class Builder:
    """Objects of lib/ and the unit tests, compiled once; per mutant: one object, the archive, the
    tests that link the mutated file."""

    def __init__(self, root, work, cc, cflags, libs, timeout):
        self.root, self.work = root, work
        self.cc, self.cflags, self.libs = shlex.split(cc), shlex.split(cflags), shlex.split(libs)
        self.timeout = timeout
        self.lib_dir = os.path.join(work, "lib")
        self.obj_dir = os.path.join(work, "obj")
        self.bin_dir = os.path.join(work, "bin")
        for d in (self.obj_dir, self.bin_dir):
            os.makedirs(d)
        shutil.copytree(os.path.join(root, "lib"), self.lib_dir)
        self.lib_srcs = sorted(f for f in os.listdir(self.lib_dir) if f.endswith(".c"))
        unit = os.path.join(root, "tests", "unit")
        self.tests = sorted(f[:-2] for f in os.listdir(unit)
                            if f.startswith("test_") and f.endswith(".c"))
        self.users = {}  # lib object name -> tests that link it

    def compile(self, src, obj, include):
        cmd = self.cc + self.cflags + ["-I" + include, "-c", src, "-o", obj]
        r = subprocess.run(cmd, cwd=self.root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        return r.returncode == 0, r.stderr.decode(errors="replace")

    def lib_obj(self, name):
        return os.path.join(self.obj_dir, name[:-2] + ".o")

    def archive(self, objs):
        path = os.path.join(self.work, "libdagsched.a")
        if os.path.exists(path):
            os.unlink(path)
        subprocess.run(["ar", "rcs", path] + objs, check=True)
        return path

    def link(self, test, archive, map_file=None):
        exe = os.path.join(self.bin_dir, test)
        cmd = self.cc + [os.path.join(self.obj_dir, test + ".o"), archive, "-o", exe] + self.libs
        if map_file:
            cmd.append("-Wl,-Map=" + map_file)
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        return exe if r.returncode == 0 else None

    def run(self, exe):
        """'pass', 'fail' or 'timeout'. Run from the repository root (tests read policies/)."""
        try:
            r = subprocess.run([exe], cwd=self.root, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            return "timeout"
        return "pass" if r.returncode == 0 else "fail"

    def baseline(self, jobs):
        """Builds everything unmutated; every test must pass. Records which tests link which
        lib/ object (from the linker map)."""
        tasks = [(os.path.join(self.lib_dir, s), self.lib_obj(s), self.lib_dir)
                 for s in self.lib_srcs]
        tasks += [(os.path.join("tests", "unit", t + ".c"), os.path.join(self.obj_dir, t + ".o"),
                   os.path.join(self.root, "tests", "unit")) for t in self.tests]
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(lambda a: (a[0],) + self.compile(*a), tasks))
        for src, ok, err in results:
            if not ok:
                sys.exit(f"mutate: {src} does not build unmutated:\n{err}")
        archive = self.archive([self.lib_obj(s) for s in self.lib_srcs])
        for t in self.tests:
            map_file = os.path.join(self.work, t + ".map")
            exe = self.link(t, archive, map_file)
            if exe is None:
                sys.exit(f"mutate: {t} does not link unmutated")
            if self.run(exe) != "pass":
                sys.exit(f"mutate: {t} fails unmutated; fix the tests first")
            with open(map_file) as f:
                for obj in set(re.findall(r"libdagsched\.a\((\w+)\.o\)", f.read())):
                    self.users.setdefault(obj + ".c", []).append(t)

    def try_mutant(self, mutant, original):
        name = os.path.basename(mutant.path)
        src = os.path.join(self.lib_dir, name)
        obj = os.path.join(self.obj_dir, "mutant.o")
        try:
            with open(src, "w") as f:
                f.write(mutant.apply(original))
            ok, _ = self.compile(src, obj, self.lib_dir)
        finally:
            with open(src, "w") as f:
                f.write(original)
        if not ok:
            return "build-error", None
        archive = self.archive([obj if s == name else self.lib_obj(s) for s in self.lib_srcs])
        stem = name[:-2]
        tests = sorted(self.users.get(name, []), key=lambda t: (stem not in t, t))
        for t in tests:
            exe = self.link(t, archive)
            if exe is None:
                return "build-error", t
            verdict = self.run(exe)
            if verdict == "fail":
                return "killed", t
            if verdict == "timeout":
                return "timeout", t
        return "survived", None


# ---------------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------------


def select(mutants, max_n, seed):
    if max_n <= 0 or len(mutants) <= max_n:
        return mutants
    picked = random.Random(seed).sample(mutants, max_n)
    return sorted(picked, key=lambda m: (m.line, m.col, m.op, m.new))


def parse_args(argv):
    env = os.environ.get
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", nargs="*",
                    default=(env("MUTATE_FILES") or " ".join(DEFAULT_FILES)).split())
    ap.add_argument("--max", type=int, default=int(env("MUTATE_MAX") or 0),
                    help="mutants sampled per file (0: all)")
    ap.add_argument("--seed", type=int, default=int(env("MUTATE_SEED") or 1))
    ap.add_argument("--timeout", type=float, default=float(env("MUTATE_TIMEOUT") or 20),
                    help="seconds per test binary")
    ap.add_argument("--jobs", type=int, default=int(env("MUTATE_JOBS") or 2),
                    help="parallel compilations of the unmutated build")
    ap.add_argument("--out", default=env("MUTATE_OUT") or "build/mutate")
    ap.add_argument("--cc", default=env("CC") or "cc")
    ap.add_argument("--cflags", default="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE "
                    "-O1 -g0 -Ilib -w")
    ap.add_argument("--libs", default="-lyaml -lcmocka -lm")
    ap.add_argument("--list", action="store_true", help="print the sampled mutants, run nothing")
    return ap.parse_args(argv)


def summary_line(label, counts):
    scored = counts["killed"] + counts["timeout"] + counts["survived"]
    score = f"{100.0 * (counts['killed'] + counts['timeout']) / scored:5.1f}%" if scored else "  n/a"
    return (f"{label:<22} mutants {sum(counts.values()):4d}  killed {counts['killed']:4d}  "
            f"survived {counts['survived']:4d}  timeout {counts['timeout']:3d}  "
            f"build-error {counts['build-error']:3d}  score {score}")


def interrupt(signum, _frame):
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv):
    args = parse_args(argv)
    # Ctrl-C and kill both end the run cleanly (the temporary tree removed, partial results
    # reported), also when started in the background with SIGINT ignored.
    signal.signal(signal.SIGINT, interrupt)
    signal.signal(signal.SIGTERM, interrupt)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    plan = []
    for path in args.files:
        if not re.fullmatch(r"lib/\w+\.c", path) or not os.path.isfile(os.path.join(root, path)):
            sys.exit(f"mutate: {path}: not a file lib/<name>.c")
        with open(os.path.join(root, path)) as f:
            text = f.read()
        plan.append((path, text, select(generate(path, text), args.max, args.seed)))
    if args.list:
        for path, _, mutants in plan:
            for m in mutants:
                print(f"{m.ident()}: {m.describe()}")
        return 0

    out_dir = os.path.join(root, args.out)
    os.makedirs(out_dir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="dagsched-mutate-")
    results = []  # (mutant, verdict, test)
    interrupted = False
    try:
        b = Builder(root, work, args.cc, args.cflags, args.libs, args.timeout)
        t0 = time.time()
        b.baseline(max(args.jobs, 1))
        total = sum(len(m) for _, _, m in plan)
        print(f"mutate: baseline built and passing in {time.time() - t0:.0f}s; "
              f"{total} mutants (seed {args.seed}, max {args.max or 'all'} per file)", flush=True)
        done = 0
        for path, text, mutants in plan:
            for m in mutants:
                verdict, test = b.try_mutant(m, text)
                results.append((m, verdict, test))
                done += 1
                if verdict == "survived":
                    print(f"  [{done}/{total}] SURVIVED {m.ident()}: {m.describe()}", flush=True)
    except KeyboardInterrupt:
        interrupted = True
        print("\nmutate: interrupted; partial results below", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report(args, plan, results, out_dir, interrupted)


def report(args, plan, results, out_dir, interrupted):
    verdicts = ("killed", "survived", "timeout", "build-error")
    overall = dict.fromkeys(verdicts, 0)
    print()
    for path, _, _ in plan:
        counts = dict.fromkeys(verdicts, 0)
        for m, v, _ in results:
            if m.path == path:
                counts[v] += 1
                overall[v] += 1
        print(summary_line(path, counts))
    print(summary_line("overall", overall))
    surv_path = os.path.join(out_dir, "survivors.txt")
    with open(surv_path, "w") as f:
        f.write(f"# make mutate: files {' '.join(args.files)}; MUTATE_MAX={args.max} "
                f"MUTATE_SEED={args.seed}{' (interrupted)' if interrupted else ''}\n")
        for m, v, _ in results:
            if v == "survived":
                f.write(f"{m.ident()}: {m.describe()}    | {m.source_line.strip()}\n")
    with open(os.path.join(out_dir, "results.tsv"), "w") as f:
        f.write("mutant\top\told\tnew\tverdict\ttest\n")
        for m, v, t in results:
            f.write(f"{m.ident()}\t{m.op}\t{m.old}\t{m.new}\t{v}\t{t or ''}\n")
    print(f"survivors: {os.path.relpath(surv_path)}")
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
