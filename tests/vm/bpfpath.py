#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""How many BPF instructions the kernel guard runs for an event.

    bpfpath.py XLATED RODATA_JSON

XLATED is `bpftool prog dump xlated id N` of the attached program (after
the verifier: what the kernel runs, its dead branches rewired), RODATA_JSON
`bpftool map dump id M --json` of its .rodata.  A small interpreter runs
the listing for a few events: the event's fields are given by their offsets
in the listing's loads (struct perf_event, relocated by CO-RE for the VM's
kernel), helper calls return 0 and are counted, BPF-to-BPF calls are
followed.  It knows the subset of instructions this program uses and stops
on any other.  tests/vm/measure-enforce.sh runs it; BENCHMARKS.md quotes it.
"""
import json, os, re, sys

def load_rodata(path):
    d = json.load(open(path))
    v = d[0]["value"]
    if isinstance(v, dict):  # btf-formatted
        raise SystemExit("formatted value: use raw")
    return bytes(int(x, 16) for x in v)

def run(listing, rodata, event, maxsteps=5000):
    prog, wide = {}, set()
    for line in open(listing):
        m = re.match(r"\s*(\d+): \((\w\w)\) (.*)", line)
        if m:
            prog[int(m.group(1))] = m.group(3).strip()
            if m.group(2) == "18":
                wide.add(int(m.group(1)))
    M64 = (1 << 64) - 1
    regs = {f"r{i}": 0 for i in range(11)}
    regs["r1"] = ("ctx", 0)
    regs["r10"] = ("stack", 512)
    stack = {}
    mem = {("ctx", 0): ("event", 0)}
    def read(ptr, size):
        base, off = ptr
        if base == "event":
            return event.get(off, 0)
        if base == "pmu":
            return event.get(("pmu", off), 0)
        if base == "map5":
            return int.from_bytes(rodata[off:off + size], "little")
        if base == "stack":
            return stack.get(off, 0)
        if base == "ctx":
            return ("event", 0)
        raise KeyError(ptr)
    def val(tok):
        tok = tok.strip()
        if tok in regs:
            return regs[tok]
        if re.match(r"w\d+$", tok):
            v = regs["r" + tok[1:]]
            return v & 0xffffffff if isinstance(v, int) else v
        return int(tok, 0) & M64
    pc, steps, calls = 0, 0, 0
    frames = []
    while steps < maxsteps:
        ins = prog[pc]
        steps += 1
        nxt = pc + (2 if pc in wide else 1)
        if ins == "exit":
            if frames:
                ret, saved = frames.pop()
                regs.update(saved)
                pc = ret
                continue
            return steps, calls, regs["r0"]
        m = re.match(r"call pc([+-]\d+)", ins)
        if m:
            frames.append((nxt, {r: regs[r] for r in ("r6", "r7", "r8", "r9", "r10")}))
            regs["r10"] = ("stack", regs["r10"][1] - 512)
            pc = nxt + int(m.group(1))
            continue
        m = re.match(r"(r\d+|w\d+) = map\[id:(\d+)\](?:\[0\]\+(\d+))?", ins)
        if m:
            regs["r" + m.group(1)[1:]] = ("map" + m.group(2), int(m.group(3) or 0))
            pc += 2; continue
        m = re.match(r"(r\d+) = \*\(u(\d+) \*\)\((r\d+) ([+-]\d+)\)", ins)
        if m:
            b = regs[m.group(3)]
            regs[m.group(1)] = read((b[0], b[1] + int(m.group(4))), int(m.group(2)) // 8)
            pc = nxt; continue
        m = re.match(r"\*\(u(\d+) \*\)\((r\d+) ([+-]\d+)\) = (\S+)", ins)
        if m:
            b = regs[m.group(2)]
            if b[0] == "stack":
                stack[b[1] + int(m.group(3))] = val(m.group(4))
            pc = nxt; continue
        if ins.startswith("call") or ins.startswith("lock"):
            calls += ins.startswith("call")
            regs["r0"] = 0
            pc = nxt; continue
        m = re.match(r"goto pc([+-]\d+)", ins)
        if m:
            pc = nxt + int(m.group(1)); continue
        m = re.match(r"if (\S+) (s?[<>=!]=?|&) (\S+) goto pc([+-]\d+)", ins)
        if m:
            a, op, b = val(m.group(1)), m.group(2), val(m.group(3))
            w = m.group(1).startswith("w")
            if isinstance(a, tuple) or isinstance(b, tuple):
                res = {"==": a == b, "!=": a != b}.get(op, True)
            else:
                bits = 32 if w else 64
                mask = (1 << bits) - 1
                a &= mask; b &= mask
                sa = a - (1 << bits) if a >> (bits - 1) else a
                sb = b - (1 << bits) if b >> (bits - 1) else b
                res = {"==": a == b, "!=": a != b, ">": a > b, ">=": a >= b, "<": a < b, "<=": a <= b,
                       "s>": sa > sb, "s>=": sa >= sb, "s<": sa < sb, "s<=": sa <= sb, "&": a & b != 0}[op]
            pc = nxt + (int(m.group(4)) if res else 0); continue
        m = re.match(r"(r\d+|w\d+) (s?>>=|<<=|\+=|-=|&=|\|=|\^=|=|\*=) (.+)", ins)
        if m:
            dst, op, src = m.group(1), m.group(2), m.group(3)
            r = "r" + dst[1:]
            w = dst.startswith("w")
            s = val(src)
            d = regs[r]
            if op == "=":
                res = s
            elif isinstance(d, tuple):
                res = (d[0], d[1] + (s if op == "+=" else -s))
            else:
                bits = 32 if w else 64
                mask = (1 << bits) - 1
                d &= mask; s &= mask
                if op == "+=": res = d + s
                elif op == "-=": res = d - s
                elif op == "&=": res = d & s
                elif op == "|=": res = d | s
                elif op == "^=": res = d ^ s
                elif op == "*=": res = d * s
                elif op == "<<=": res = d << s
                elif op == ">>=": res = d >> s
                elif op == "s>>=":
                    sd = d - (1 << bits) if d >> (bits - 1) else d
                    res = sd >> s
                res &= mask
            regs[r] = res
            pc = nxt; continue
        raise SystemExit(f"cannot run {pc}: {ins}")
    raise SystemExit("no exit")

if __name__ == "__main__":
    listing, rodata = sys.argv[1], load_rodata(sys.argv[2])
    # Debian 6.1's struct perf_event and struct pmu (the VM's kernel), as
    # CO-RE relocated the program's loads: override with BPFPATH_OFFSETS.
    pmu_off, attr_type_off, attr_cfg_off, hw_off, pmutype_off = (
        int(x) for x in os.environ.get("BPFPATH_OFFSETS", "152,216,224,352,56").split(","))
    print("| event | BPF instructions run | helper calls | returns (-2: denied) |")
    print("|---|---|---|---|")
    for what, ptype, atype, acfg, hw in [
        ("allowed, core PMU: instructions (PERF_TYPE_HARDWARE -> hw.config 0x00c0)", 4, 0, 1, 0xc0),
        ("allowed, core PMU: raw 0x01a4", 4, 4, 0x1a4, 0x1a4),
        ("allowed, another PMU: software cpu-clock", 1, 1, 0, 0),
        ("raw 0x0400 (TOPDOWN.SLOTS)", 4, 4, 0x400, 0x400),
        ("raw 0x0073 (TOPDOWN_BAD_SPECULATION.ALL)", 4, 4, 0x73, 0x73),
    ]:
        ev = {pmu_off: ("pmu", 0), attr_type_off: atype, attr_cfg_off: acfg, hw_off: hw,
              ("pmu", pmutype_off): ptype}
        steps, calls, r0 = run(listing, rodata, ev)
        ret = r0 - (1 << 64) if isinstance(r0, int) and r0 >> 63 else r0
        print(f"| {what} | {steps} | {calls} | {ret} |")
