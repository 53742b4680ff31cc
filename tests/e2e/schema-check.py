#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check JSON documents against the installed schemas.

    schema-check.py SCHEMA_DIR FILE...

Each FILE that is one of pmuguard's documents (a JSON object with
"schema" and "generated_at") is checked against the schema of its kind:
probe.schema.json for `pmuguard probe --json` (it has "guard_state"),
status.schema.json for `pmuguard-fleet status --json` (it has "layer" and
"preload").  Other files are skipped.  Exit 0, 1 with every error, or 77
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
for kind in ("probe", "status"):
    with open(os.path.join(sys.argv[1], kind + ".schema.json")) as f:
        schemas[kind] = jsonschema.Draft202012Validator(json.load(f))
bad = 0
checked = 0
for path in sys.argv[2:]:
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        continue
    if not isinstance(doc, dict) or "schema" not in doc or "generated_at" not in doc:
        continue
    kind = "status" if "layer" in doc and "preload" in doc else "probe" if "guard_state" in doc else None
    if not kind:
        continue
    checked += 1
    for e in schemas[kind].iter_errors(doc):
        bad += 1
        print("%s: %s: at %s: %s" % (path, kind, "/".join(str(p) for p in e.absolute_path) or "(top)", e.message))
print("schema-check: %d document(s) checked, %d error(s)" % (checked, bad))
sys.exit(1 if bad else 0)
