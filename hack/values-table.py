#!/usr/bin/env python3
"""values-table.py: the table of the chart's values in helm/dagsched/README.md, generated from
helm/dagsched/values.yaml, so that the two never disagree.

Every key documented in values.yaml with a `# --` comment (the lines that follow it, up to the key,
continue the text) gets a row, and so does every leaf value (a scalar, a list or an empty map)
even without one. The default is the YAML value (JSON notation, long values cut); a map with keys
of its own shows "(below)". The table goes between the markers
`<!-- values-table:start -->` and `<!-- values-table:end -->` of the README.

Usage: values-table.py [--check]   (--check: exit 1 when the README's table is out of date)
"""

import json
import os
import re
import sys

import yaml

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
VALUES = os.path.join(REPO, "helm", "dagsched", "values.yaml")
README = os.path.join(REPO, "helm", "dagsched", "README.md")
START, END = "<!-- values-table:start -->", "<!-- values-table:end -->"
KEY_RE = re.compile(r"^( *)([A-Za-z_][A-Za-z0-9_]*):(.*)$")
MAX_DEFAULT = 60


def comments_by_path(text):
    """{dotted path: description} from the `# --` comments of values.yaml."""
    out, stack, pending = {}, [], None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("# --"):
            pending = [stripped[4:].strip()]
            continue
        if stripped.startswith("#"):
            if pending is not None:
                pending.append(stripped[1:].strip())
            continue
        m = KEY_RE.match(line)
        if not m:
            if not stripped:
                pending = None
            continue
        indent, key = len(m.group(1)), m.group(2)
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, key))
        if pending is not None:
            out[".".join(k for _, k in stack)] = " ".join(pending)
            pending = None
    return out


def rows(values, docs, prefix=""):
    for key, val in values.items():
        path = f"{prefix}{key}"
        has_children = isinstance(val, dict) and val
        if has_children:
            if path in docs:
                yield path, "(below)", docs[path]
            yield from rows(val, docs, path + ".")
        else:
            d = json.dumps(val, separators=(", ", ": "))
            if len(d) > MAX_DEFAULT:
                d = d[:MAX_DEFAULT - 3] + "..."
            yield path, d, docs.get(path, "")


def table():
    with open(VALUES) as f:
        text = f.read()
    docs = comments_by_path(text)
    lines = ["| Key | Default | Description |", "| --- | --- | --- |"]
    for path, default, desc in rows(yaml.safe_load(text), docs):
        cell, text = default.replace("|", "\\|"), desc.replace("|", "\\|")
        lines.append(f"| `{path}` | `{cell}` | {text} |")
    return "\n".join(lines) + "\n"


def main():
    check = sys.argv[1:] == ["--check"]
    with open(README) as f:
        readme = f.read()
    if START not in readme or END not in readme:
        sys.exit(f"{README}: markers {START} / {END} missing")
    head, rest = readme.split(START, 1)
    _, tail = rest.split(END, 1)
    new = f"{head}{START}\n{table()}{END}{tail}"
    if check:
        if new != readme:
            sys.exit("helm/dagsched/README.md: the values table is out of date "
                     "(run hack/values-table.py)")
        return
    with open(README, "w") as f:
        f.write(new)


if __name__ == "__main__":
    main()
