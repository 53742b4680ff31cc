#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check JSON documents against the installed schemas.

    schema-check.py SCHEMA_DIR FILE...

Each FILE that is one of pmuguard's documents (a JSON object with
"schema") is checked against the schema of its kind: tree.schema.json for
`pmuguard tree --json` (it has "root", and "lib" or "edit"),
canary.schema.json for `pmuguard canary --json` (it has "calls" and
"library_mapped"); and, with "generated_at" too, probe.schema.json for
`pmuguard probe --json` (it has "guard_state"), status.schema.json for
`pmuguard-fleet status --json` (it has "layer" and "preload"),
enforce.schema.json for `pmuguard enforce start|status --json` (it has
"outcome" or "attached") and the lines of `enforce follow --json` and the
agent (a file of one object a line, each with "event" and "time").  Other
files are skipped.  Exit 0, 1 with every error, or 77
where python3's jsonschema is missing."""
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    print("schema-check: python3's jsonschema is missing (python3-jsonschema)")
    sys.exit(77)

schemas = {}
for kind in ("probe", "status", "enforce", "tree", "canary"):
    with open(os.path.join(sys.argv[1], kind + ".schema.json")) as f:
        schemas[kind] = jsonschema.Draft202012Validator(json.load(f))


def kind_of(doc):
    if not isinstance(doc, dict) or "schema" not in doc:
        return None
    if "root" in doc and ("lib" in doc or "edit" in doc):
        return "tree"
    if "calls" in doc and "library_mapped" in doc:
        return "canary"
    if "generated_at" not in doc:
        return None
    if "layer" in doc and "preload" in doc:
        return "status"
    if "guard_state" in doc:
        return "probe"
    if "outcome" in doc or "attached" in doc or ("event" in doc and "time" in doc):
        return "enforce"
    return None


def documents(path):
    """The file's document, or each line's where it is one object a line."""
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
    except (OSError, ValueError):
        return []
    try:
        return [("", json.loads(text))]
    except ValueError:
        pass
    docs = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            docs.append((":%d" % n, json.loads(line)))
        except ValueError:
            return []
    return docs


bad = 0
checked = 0
for path in sys.argv[2:]:
    for where, doc in documents(path):
        kind = kind_of(doc)
        if not kind:
            continue
        checked += 1
        for e in schemas[kind].iter_errors(doc):
            bad += 1
            # One of several documents (enforce): say why the closest
            # (the one with the fewest errors) failed.
            if e.context:
                branches = {}
                for sub in e.context:
                    branches.setdefault(sub.relative_schema_path[0], []).append(sub)
                e = jsonschema.exceptions.best_match(min(branches.values(), key=len))
            print("%s%s: %s: at %s: %s" % (path, where, kind,
                                           "/".join(str(p) for p in e.absolute_path) or "(top)", e.message[:300]))
print("schema-check: %d document(s) checked, %d error(s)" % (checked, bad))
sys.exit(1 if bad else 0)
