#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""README.md's "Where it runs" table, made from the vm suite's matrix.json.

    matrix-table.py MATRIX_JSON                  print the table
    matrix-table.py --check README.md MATRIX_JSON   exit 1 (and a diff) where
                                                 README's table is another
    matrix-table.py --write README.md MATRIX_JSON   put it there

The table lies between the lines <!-- matrix:begin --> and
<!-- matrix:end --> of README.md; it is never typed by hand.
"""
import difflib
import json
import sys

BEGIN = "<!-- matrix:begin -->"
END = "<!-- matrix:end -->"
COLUMNS = [
    ("kernel", "kernel"),
    ("libc", "glibc"),
    ("perf", "perf"),
    ("unguarded", "unguarded (the control)"),
    ("preload", "preload"),
    ("run", "`pmuguard run`"),
    ("kernel_guard", "kernel guard"),
    ("status", "`pmuguard status`"),
    ("status_true", "status true"),
    ("package", "the `.deb`"),
]


def cell(v):
    if v is True:
        return "yes"
    if v is False:
        return "NO"
    return str(v).replace("|", "\\|").replace("\n", " ")


# sid rolls on: its kernel, glibc and perf move every few weeks, and a
# table that named them exactly would go stale with each fetch of a fresh
# machine.  Its rows say the major series; the stable suites' never move.
ROLLING = {"sid"}


def shown(row):
    r = dict(row)
    ks, us = row.get("kernel_suite", ""), row.get("userland_suite", "")
    r["kernel"] = (f"{str(row['kernel']).split('.')[0]}.x ({ks})" if ks in ROLLING
                   else f"{row['kernel']} ({ks})" if ks else row["kernel"])
    if us in ROLLING:
        r["libc"] = f"{str(row['libc']).split('.')[0]}.x ({us})"
        r["perf"] = f"{str(row['perf']).split('.')[0]}.x"
    elif us:
        r["libc"] = f"{row['libc']} ({us})"
    return r


def table(matrix):
    lines = ["| " + " | ".join(h for _, h in COLUMNS) + " |",
             "|" + "---|" * len(COLUMNS)]
    for row in matrix["rows"]:
        r = shown(row)
        lines.append("| " + " | ".join(cell(r.get(k, "?")) for k, _ in COLUMNS) + " |")
    return lines


def section(readme_lines):
    try:
        b = readme_lines.index(BEGIN)
        e = readme_lines.index(END)
    except ValueError:
        return None, None
    return b, e


def main(argv):
    if len(argv) == 2:
        print("\n".join(table(json.load(open(argv[1])))))
        return 0
    if len(argv) != 4 or argv[1] not in ("--check", "--write"):
        print(__doc__, file=sys.stderr)
        return 2
    readme = open(argv[2]).read().split("\n")
    want = table(json.load(open(argv[3])))
    b, e = section(readme)
    if b is None:
        print(f"{argv[2]} has no {BEGIN} ... {END} section", file=sys.stderr)
        return 1
    have = readme[b + 1:e]
    if argv[1] == "--check":
        if have == want:
            return 0
        sys.stdout.writelines(l + "\n" for l in difflib.unified_diff(
            have, want, "README.md", "matrix.json", lineterm=""))
        return 1
    readme[b + 1:e] = want
    open(argv[2], "w").write("\n".join(readme))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
