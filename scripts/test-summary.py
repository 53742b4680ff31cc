#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Count meson's results, TAP subtests included: 'N passed, N failed, N skipped'."""
import json
import re
import sys

passed = failed = skipped = 0
with open(sys.argv[1], encoding="utf-8") as log:
    for line in log:
        t = json.loads(line)
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
                passed, failed, skipped = passed + p, failed + f, skipped + s
                continue
        if result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif result == "SKIP":
            skipped += 1
        else:
            failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
