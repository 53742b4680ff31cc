#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Where the words, the keys, the metrics and the exit say the same fact,
they say it alike (issue 43, item 3): for each world pmuguard status was
printed in (worlds.sh: NAME.txt, .keys, .prom, .rc in DIR), the
protection, the layer, the verdict, the version and the kernel layer's
state are read from each form and compared.

    agree.py DIR       exit 0 where every world agrees, 1 with the differences
"""
import glob
import json
import os
import re
import sys


def words(path):
    """The text's lines as {"protected": ..., "layer": ..., ...}."""
    out = {}
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^[^:]+: (protected|layer|version|probe verdict|kernel): (.*)$", line.rstrip("\n"))
        if m and m.group(1) not in out:  # the first kernel line says its state
            out[m.group(1)] = m.group(2)
    return out


def keys(path):
    return dict(l.split("=", 1) for l in open(path, encoding="utf-8").read().splitlines() if "=" in l)


def metrics(path):
    out = {}
    for line in open(path, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        name, value = line.rsplit(" ", 1)
        out[name] = value.strip()
    return out


# The kernel guard's states are named once, with their exits, in
# probe/enforce/enforce_state.c; the status schema enumerates them (held to
# that table by tests/unit/test_enforce.c), and this check reads them there.
SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                      "probe", "doc", "schema", "status.schema.json")
with open(SCHEMA, encoding="utf-8") as f:
    STATES = json.load(f)["properties"]["kernel"]["properties"]["state"]["enum"]

# The kernel line's words for each state (status_doc.c, kernel_words()): a state the
# table gains without its words here fails every world.
KERNEL_WORDS = {
    "attached": "attached and verified",
    "unavailable": "not available",
    "detached": "not attached",
    "audit": "attached in audit mode",
    "unverified": "ATTACHED BUT NOT VERIFIED",
    "unknown": "unknown",
}


def check(name, t, k, m, rc):
    bad = []

    def same(what, a, b):
        if a != b:
            bad.append(f"{name}: {what}: {a!r} against {b!r}")

    same("exit: the .rc and the keys", rc, k.get("exit"))
    same("layer: the words and the keys", t.get("layer"), k.get("layer"))
    same("version: the words and the keys", t.get("version"), "pmuguard " + k.get("version", ""))
    verdict = k.get("verdict", "")
    if not (t.get("probe verdict") or "").startswith(verdict):
        bad.append(f"{name}: verdict: the words say {t.get('probe verdict')!r}, the keys {verdict!r}")
    same("verdict: the metrics", m.get(f'pmuguard_verdict{{state="{verdict}"}}'), "1")
    prot = t.get("protected", "")
    guarded, code, layer = k.get("guarded"), k.get("exit"), k.get("layer")
    # An unknown verdict is exit 4 whatever guards (LSB's "status unknown").
    fine = "4" if verdict == "unknown" else "0"
    if prot.startswith("yes, by "):
        same("protected yes: guarded, the exit, the layer", (guarded, code, prot[8:]), ("true", fine, layer))
    elif prot.startswith("PARTLY, by "):
        same("protected PARTLY: guarded, exit 3", (guarded, code, prot[11:].split(":")[0]), ("true", "3", layer))
    elif prot.startswith("NO"):
        same("protected NO: not guarded, exit 3", (guarded, code), ("false", "3"))
    elif prot.startswith("no layer, and none is needed"):
        same("none needed: not guarded, exit 0, safe", (guarded, code, verdict), ("false", "0", "safe"))
    elif not prot.startswith("unknown"):
        bad.append(f"{name}: the protected line is new to this check: {prot!r}")
    if prot.startswith("yes, by "):
        same("pmuguard_protected where the words say yes", m.get("pmuguard_protected"), "1")
    elif prot.startswith(("PARTLY", "NO")):
        same("pmuguard_protected where the words say PARTLY or NO", m.get("pmuguard_protected"), "0")
    if layer not in (None, "none"):
        for one in layer.split("+"):
            same(f"pmuguard_layer_installed {one}", m.get(f'pmuguard_layer_installed{{layer="{one}"}}'), "1")
    state = k.get("kernel.state", "")
    if sorted(KERNEL_WORDS) != sorted(STATES):
        bad.append(f"{name}: kernel: the schema's states {STATES} are not those this check has words for")
    if state not in STATES:
        bad.append(f"{name}: kernel: the keys say state {state!r}, none of {STATES}")
    want = KERNEL_WORDS.get(state)
    if want is None or not (t.get("kernel") or "").startswith(want):
        bad.append(f"{name}: kernel: the words say {t.get('kernel')!r}, the keys {state!r}")
    return bad


def main():
    bad, n = [], 0
    for txt in sorted(glob.glob(sys.argv[1] + "/*.txt")):
        base = txt[: -len(".txt")]
        name = base.rsplit("/", 1)[1]
        rc = open(base + ".rc").read().strip()
        bad += check(name, words(txt), keys(base + ".keys"), metrics(base + ".prom"), rc)
        n += 1
    if n == 0:
        print("FAIL: no world in " + sys.argv[1])
        return 1
    for b in bad:
        print("FAIL: " + b)
    if not bad:
        print(f"ok: words, keys, metrics and exit agree in {n} worlds")
    return 1 if bad else 0


sys.exit(main())
