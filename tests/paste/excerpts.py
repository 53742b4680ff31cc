#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""No excerpt of a hazardous machine's log reads safe (issue 49, item 1).

People paste a kernel log cut the way they cut it: the head of a boot, its
tail, the PMU driver's block with a line missing, or `dmesg | grep -A N
"Performance Events"`.  A line that is not there is unknown, not absent:
such an excerpt may read hazard or unknown, never safe.

For every pinned world whose expected state is hazard and that carries a
kernel log (tests/snapshots/*/dmesg.txt; the real captures of
tests/captures and the shared folder are imported there as cap-*), each
excerpt is judged twice: as the log alone (`probe --dmesg FILE`, what a
support engineer receives) and in place of the world's log beside its
other files (CPUID, sysfs, DMI), where the world has any.

Excerpts: every prefix, every suffix, the log with each single line of
the PMU driver's block left out, and `grep -A N "Performance Events"` of
it for N from 1 to 12.  Prints how many were tried; fails listing the
first offenders.

Env: PMUGUARD (the command), FIXTURES (tests/snapshots).
"""
import os
import shutil
import subprocess
import sys
import tempfile

SHOWN = 12  # offenders listed
FACTS = ("cpuid.txt", "sys", "dmi", "msr.txt")  # what the probe reads beside the log


def state_of(pmuguard, args):
    out = subprocess.run([pmuguard, "probe", "--keys", *args], capture_output=True,
                         env={**os.environ, "LC_ALL": "C"}).stdout
    for line in out.decode("utf-8", "replace").splitlines():
        if line.startswith("state="):
            return line[len("state="):]
    return "?"


def hazardous_worlds(fixtures):
    for name in sorted(os.listdir(fixtures)):
        d = os.path.join(fixtures, name)
        try:
            with open(os.path.join(d, "expected")) as f:
                expected = f.read()
        except OSError:
            continue
        if "state = hazard" in expected and os.path.isfile(os.path.join(d, "dmesg.txt")):
            yield name, d


def block_lines(lines):
    """The indices of the PMU driver's block: its opener and the driver's
    lines after it ("... key: value", a hybrid part's "PMU driver:")."""
    for i, line in enumerate(lines):
        if "Performance Events:" in line:
            out = [i]
            for j in range(i + 1, len(lines)):
                if "... " in lines[j] or "PMU driver:" in lines[j]:
                    out.append(j)
                else:
                    break
            return out
    return []


def grep_after(path, n):
    r = subprocess.run(["grep", "-a", "-A", str(n), "Performance Events", path],
                       capture_output=True)
    return r.stdout


def excerpts(path):
    """(how, bytes) for each excerpt of the log at path, each text once."""
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    text = [line.decode("utf-8", "surrogateescape") for line in lines]
    seen = set()

    def emit(how, chosen):
        blob = b"".join(line + b"\n" for line in chosen)
        if blob and blob not in seen:
            seen.add(blob)
            yield how, blob

    for i in range(1, len(lines) + 1):
        yield from emit(f"the first {i} lines", lines[:i])
    for i in range(len(lines)):
        yield from emit(f"from line {i + 1} on", lines[i:])
    for i in block_lines(text):
        yield from emit(f"without line {i + 1} ({text[i].strip()[:60]!r})",
                        lines[:i] + lines[i + 1:])
    for n in range(1, 13):
        blob = grep_after(path, n)
        if blob and blob not in seen:
            seen.add(blob)
            yield f"grep -A {n} 'Performance Events'", blob


def main():
    pmuguard = os.environ["PMUGUARD"]
    fixtures = os.environ["FIXTURES"]
    tmp = tempfile.mkdtemp()
    tried = judged = logs = 0
    offenders = []
    try:
        for name, d in hazardous_worlds(fixtures):
            logs += 1
            others = [f for f in os.listdir(d) if f in FACTS]
            world = os.path.join(tmp, name)
            os.mkdir(world)
            for f in others:
                src = os.path.join(d, f)
                (shutil.copytree if os.path.isdir(src) else shutil.copy)(src, os.path.join(world, f))
            log = os.path.join(world, "dmesg.txt")
            for how, blob in excerpts(os.path.join(d, "dmesg.txt")):
                tried += 1
                with open(log, "wb") as f:
                    f.write(blob)
                ways = [("alone", ["--dmesg", log])]
                if others:
                    ways.append(("with its other files", ["--snapshot", world]))
                for way, args in ways:
                    judged += 1
                    if state_of(pmuguard, args) == "safe":
                        offenders.append(f"{name}: {how}, {way}")
            shutil.rmtree(world)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"# {tried} excerpts of {logs} hazardous logs, {judged} judgments: "
          f"{len(offenders)} read safe")
    per = {}
    for o in offenders:
        per[o.split(":")[0]] = per.get(o.split(":")[0], 0) + 1
    for name, n in sorted(per.items()):
        print(f"#   {name}: {n} read safe")
    for way in ("alone", "with its other files"):
        print(f"#   {way}: {sum(o.endswith(way) for o in offenders)} read safe")
    for o in offenders[:SHOWN]:
        print(f"#   safe: {o}")
    if len(offenders) > SHOWN:
        print(f"#   ... and {len(offenders) - SHOWN} more")
    if logs < 5:
        print(f"not ok: only {logs} hazardous logs under {fixtures}")
        return 1
    return 1 if offenders else 0


if __name__ == "__main__":
    sys.exit(main())
