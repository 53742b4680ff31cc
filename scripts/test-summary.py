#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Count meson's results, TAP subtests included: 'N passed, N failed, N skipped'.

    test-summary.py TESTLOG.json...   (several builds add up)
"""
import json
import re
import sys


def count(t):
    """(passed, failed, skipped) for one test of meson's log."""
    result = t.get("result")
    if "--tap" in (t.get("command") or []) and result != "TIMEOUT":
        p = f = s = 0
        for out in (t.get("stdout") or "").splitlines():
            m = re.match(r"^(not ok|ok)\b(.*)$", out)
            if not m:
                continue
            if re.search(r"#\s*skip", m.group(2), re.I):
                s += 1
            elif m.group(1) == "ok":
                p += 1
            else:
                f += 1
        if p + f + s > 0:
            if result not in ("OK", "SKIP", "EXPECTEDFAIL") and f == 0:
                f = 1  # crashed after its last subtest
            return p, f, s
    if result in ("OK", "EXPECTEDFAIL"):
        return 1, 0, 0
    if result == "SKIP":
        return 0, 0, 1
    return 0, 1, 0


totals = [0, 0, 0]
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as log:
        for line in log:
            for i, n in enumerate(count(json.loads(line))):
                totals[i] += n
print(f"{totals[0]} passed, {totals[1]} failed, {totals[2]} skipped")
