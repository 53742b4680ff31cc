# SPDX-License-Identifier: GPL-2.0-or-later
"""A JSON document flattened as `--keys` writes it (probe/doc/keys.c), the
one copy the cli cases compare against: one KEY=VALUE a line, keys the
JSON path (array elements by index), null empty, booleans true/false, and
in a string every byte log_plain_len() (probe/guard/log.c) does not pass
as \\xHH: C0 controls, DEL, the backslash, and U+0080-U+009F (both of its
UTF-8 bytes).

    import doc_keys; doc_keys.flatten(doc) -> ["schema=1", ...]
    python3 doc_keys.py FILE.json          prints the lines
"""
import json
import sys


def value(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    out = ""
    for ch in v:
        if ch == "\\" or ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F:
            out += "".join("\\x%02x" % c for c in ch.encode("utf-8"))
        else:
            out += ch
    return out


def flatten(doc):
    flat = []

    def walk(path, v):
        if isinstance(v, dict):
            for k, x in v.items():
                walk(path + [k], x)
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(path + [str(i)], x)
        else:
            flat.append(".".join(path) + "=" + value(v))

    walk([], doc)
    return flat


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        print("\n".join(flatten(json.load(f))))
