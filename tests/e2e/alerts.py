#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every alert pmuguard ships must select the series it is meant to.

    alerts.py RULES.yml TEXTFILE METRIC...

Reads the PromQL expressions of the rules file the package installs
(scripts/prometheus/pmuguard.rules.yml, its alerts' expr), takes each
series selector in them (NAME or NAME{l="v",...}),
and checks it against TEXTFILE (node_exporter's textfile format) as
Prometheus would match it: the name, and every label matcher (=, !=, =~,
!~) on the series' labels.  Each METRIC named must be in TEXTFILE, and
every selector of it must select at least one series there: a selector
whose label values the file never uses (decision="deny" where the file
says "denied") selects nothing and fails.  Exit 0, or 1 with the reason."""
import re
import sys

import yaml

rules, textfile, wanted = sys.argv[1], sys.argv[2], sys.argv[3:]
exprs = [r["expr"] for g in yaml.safe_load(open(rules))["groups"] for r in g["rules"] if "alert" in r]
selector = re.compile(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?")
matcher = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*,?')
functions = {"increase", "rate", "time", "sum", "by", "max", "min", "and", "or", "unless", "offset",
             "absent"}

series = []
for line in open(textfile):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$", line)
    if not m:
        sys.exit("alerts: a line Prometheus would not parse: " + line)
    labels = dict(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', m.group(3) or ""))
    series.append((m.group(1), labels))

def selects(name, body, s):
    if s[0] != name:
        return False
    for l, op, v in matcher.findall(body or ""):
        got = s[1].get(l, "")
        ok = {"=": got == v, "!=": got != v, "=~": re.fullmatch(v, got) is not None,
              "!~": re.fullmatch(v, got) is None}[op]
        if not ok:
            return False
    return True

failed = False
seen = set()
for e in exprs:
    plain = re.sub(r"offset\s+[0-9]+[smhdwy]", "", re.sub(r"\[[0-9a-z]+\]", "", e))
    for name, body in selector.findall(plain):
        if name in functions or not name.startswith("pmuguard_"):
            continue
        seen.add(name)
        if name not in wanted:
            continue
        n = sum(selects(name, body, s) for s in series)
        print("alert %s: %s%s selects %d series" % (e, name, body or "", n))
        if n == 0:
            have = sorted({str(s[1]) for s in series if s[0] == name})
            print("  FAIL: it selects nothing; the file has %s" % (", ".join(have) or "no such series"))
            failed = True
for name in wanted:
    if name not in seen:
        print("FAIL: no alert of %s names %s" % (rules, name))
        failed = True
sys.exit(1 if failed else 0)
