#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The pmuguard command, unprivileged: exit codes, JSON validity, the
# snapshot round trip.  cli.sh CASE; needs $PMUGUARD and $FIXTURES.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
if [ "${1:-}" = --list ]; then list_cases "$0" 1; exit 0; fi
: "${PMUGUARD:?}" "${FIXTURES:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

status() { # expected-status CMD...
	local want=$1 rc=0
	shift
	"$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" = "$want" ] || { cat "$tmp/out" "$tmp/err"; fail "$* exited $rc, expected $want"; }
}

case $1 in
check-exit-codes)
	# --check: 3 exactly where the hazard is, 0 elsewhere.
	for w in "$FIXTURES"/*/; do
		name=$(basename "$w")
		# Each world says what it is (tests/snapshots/NAME/expected).
		[ -f "$w/expected" ] || fail "$name has no expected file"
		want=0
		grep -qx 'state = hazard' "$w/expected" && want=3
		status $want "$PMUGUARD" probe --check --snapshot "$w"
		echo "ok: $name --check exits $want"
	done
	;;
json-valid)
	for w in "$FIXTURES"/*/; do
		"$PMUGUARD" probe --json --snapshot "$w" >"$tmp/j"
		python3 -m json.tool "$tmp/j" >/dev/null || fail "$(basename "$w"): invalid JSON"
		python3 - "$tmp/j" <<'PY' || fail "$(basename "$w"): JSON shape"
import json, sys
d = json.load(open(sys.argv[1]))
assert isinstance(d["hazard"], bool)
assert d["state"] in ("safe", "hazard", "not-intel", "no-pmu", "unknown")
for p in d["pmus"]:
    assert {"name", "type", "fixed_counters", "perf_metrics", "hazard"} <= p.keys()
assert d["findings"], "no findings"
for f in d["findings"]:
    assert {"id", "summary", "evidence", "consequence", "remedy"} <= f.keys()
    assert all(isinstance(f[k], str) and f[k] for k in ("id", "summary", "evidence", "remedy"))
assert any(f["id"] in ("fixed3-unimplemented", "fixed-e-topdown-unimplemented")
           for f in d["findings"]) == d["hazard"]
# Where facts came from, what the guard acts on, which machine.
assert d["basis"] in ("cpuid", "kernel-log", None)
# Off Intel, a machine without a vPMU is no-pmu to the report and
# not-intel to the guard (it never blocks another vendor's events).
assert d["guard_state"] == (d["state"] if d["basis"] != "kernel-log" else "unknown") or \
    (d["state"] == "no-pmu" and d["guard_state"] == "not-intel"), (d["state"], d["guard_state"])
assert d["cpu"]["source"] in ("cpuid", "kernel-log", None)
assert d["perfmon"]["source"] in ("cpuid", "kernel-log", None)
assert d["machine"] is None or d["machine"]["source"] in ("dmi", "kernel-log")
assert d["plain_perf_stat"]["under_deny"] in ("works", "stops", "may-stop")
assert isinstance(d["kernel_log"]["msr_errors"], list)
assert isinstance(d["kernel_log"]["boot_lines"], list)
PY
	done
	echo "ok: every fixture's JSON parses and carries the stable keys"
	;;
dmesg)
	# A kernel log alone, the support engineer's entry point.
	# Nothing of this machine is read: the report is the log's.
	log=$FIXTURES/m6i-16xlarge-log-only/dmesg.txt
	status 0 "$PMUGUARD" probe --dmesg "$log"
	grep -q '^pmuguard probe (kernel log ' "$tmp/out" || fail "the report does not name the log"
	grep -q 'Machine         AWS m6i.16xlarge' "$tmp/out" || fail "no machine: $(cat "$tmp/out")"
	grep -q 'GenuineIntel family 6 model 0x6a stepping 6 (from the kernel log)' "$tmp/out" ||
		fail "the CPU is not marked as the log's"
	grep -q '^Verdict: hazard' "$tmp/out" || fail "not a hazard"
	grep -q 'the guard acts only on CPUID' "$tmp/out" || fail "the guard's view is not said"
	status 3 "$PMUGUARD" probe --check --dmesg "$log"
	"$PMUGUARD" probe --json --dmesg "$log" >"$tmp/j"
	python3 - "$tmp/j" "$log" <<'PY' || fail "--dmesg JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["source"] == "kernel-log" and d["dmesg"] == sys.argv[2] and d["snapshot"] is None
assert d["state"] == "hazard" and d["basis"] == "kernel-log" and d["guard_state"] == "unknown"
assert d["cpu"]["source"] == "kernel-log" and d["cpu"]["hypervisor_name"] == "KVM"
# No "fixed-purpose bitmap" line in the log: the bitmap is null, not 0.
assert d["perfmon"] == {"known": True, "source": "kernel-log", "version": 2, "gp_counters": 8,
                        "fixed_counters": 4, "fixed_bitmap": None}, d["perfmon"]
assert d["machine"]["words"] == "AWS m6i.16xlarge" and d["machine"]["source"] == "kernel-log"
assert d["machine"]["sys_vendor"] == "Amazon EC2" and d["machine"]["product_name"] == "m6i.16xlarge"
assert d["kernel_log"]["kernel"] == "5.10.205-195.807.amzn2.x86_64"
assert d["pmus"] == [] and "msr" not in d
assert d["plain_perf_stat"]["under_deny"] == "may-stop"
PY
	# With a snapshot: its facts, and the log given instead of its dmesg.txt.
	# CPUID decides where it can (3 fixed counters: safe), the log stands
	# in only for what it lacks (no leaf 0xA: the log's PMU block).
	status 0 "$PMUGUARD" probe --check --snapshot "$FIXTURES/m5-24xlarge" --dmesg "$log"
	status 3 "$PMUGUARD" probe --check --snapshot "$FIXTURES/guest-no-leaf-a" --dmesg "$log"
	"$PMUGUARD" probe --json --snapshot "$FIXTURES/guest-no-leaf-a" --dmesg "$log" >"$tmp/j"
	python3 - "$tmp/j" <<'PY' || fail "--snapshot with --dmesg JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["cpu"]["source"] == "cpuid" and d["perfmon"]["source"] == "kernel-log"
assert d["basis"] == "kernel-log" and d["guard_state"] == "unknown"
PY
	# A snapshot holding only dmesg.txt is the same.
	mkdir "$tmp/only-log"
	cp "$log" "$tmp/only-log/dmesg.txt"
	status 3 "$PMUGUARD" probe --check --snapshot "$tmp/only-log"
	# Errors: a missing or unreadable log is an error naming it; --msr reads
	# this machine and cannot go with a log.
	status 1 "$PMUGUARD" probe --dmesg /nonexistent/dmesg.txt
	grep -q '/nonexistent/dmesg.txt' "$tmp/err" || fail "the error does not name the log"
	status 1 "$PMUGUARD" probe --dmesg "$tmp"
	grep -q 'not a regular file' "$tmp/err" || fail "a directory as the log: no clear error"
	status 2 "$PMUGUARD" probe --msr --dmesg "$log"
	status 2 "$PMUGUARD" probe --dmesg
	# The guard is unchanged by a log-only snapshot: auto mode fails open.
	: "${PEO:?}"
	PMUGUARD_SNAPSHOT=$tmp/only-log status 0 "$PMUGUARD" run --mode seccomp -- "$PEO" --flags 0x100000 4:0x400
	grep -q 'config=0x400 ret=-1 errno=EINVAL' "$tmp/out" || fail "a log-only hazard was enforced"
	echo "ok: probe --dmesg reads the log alone, marks its facts, and the guard ignores it"
	;;
json-utf8-and-schema)
	# A snapshot folder named in UTF-8 comes out as the same characters
	# (not one \u00XX per byte); a byte that is not UTF-8 becomes U+FFFD;
	# the hypervisor's name has no padding; the object says its schema.
	cp -r "$FIXTURES/m6i-16xlarge" "$tmp/snäp"
	"$PMUGUARD" probe --json --snapshot "$tmp/snäp" >"$tmp/j"
	python3 - "$tmp/j" "$tmp/snäp" <<'PY' || fail "UTF-8, padding or schema"
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
assert d["snapshot"] == sys.argv[2], d["snapshot"]
assert isinstance(d["schema"], int) and d["schema"] >= 2
hv = d["cpu"]["hypervisor_vendor"]
assert hv == hv.strip() and hv == "KVMKVMKVM", repr(hv)
PY
	bad=$(printf '%s/bad\377dir' "$tmp")
	cp -r "$FIXTURES/m6i-16xlarge" "$bad"
	"$PMUGUARD" probe --json --snapshot "$bad" >"$tmp/j"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1], encoding="utf-8")); assert d["snapshot"].endswith("bad\ufffddir"), d["snapshot"]' "$tmp/j" ||
		fail "a byte that is not UTF-8"
	echo "ok: UTF-8 kept, invalid bytes replaced, no padding, schema $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["schema"])' "$tmp/j")"
	;;
status-pinned)
	# pmuguard status, whole, as the reports are pinned: text, JSON,
	# keys, metrics and exit code in a few worlds (tests/cli/status/,
	# worlds.sh; pin-status.sh re-pins).  Any changed word fails here,
	# with its diff; the JSON is what status.schema.json says, and the
	# keys are the JSON flattened (one document, two renderers).
	: "${LIB:?}"
	here=$(cd "$(dirname "$0")" && pwd)
	mkdir "$tmp/status"
	"$here/status/worlds.sh" "$PMUGUARD" "$LIB" "$FIXTURES" "$tmp/status"
	bad=0
	for f in "$here"/status/pinned/*; do
		name=${f##*/}
		diff -u --label "$name (pinned)" --label "$name (printed)" "$f" "$tmp/status/$name" ||
			{ echo "FAIL: $name differs from its pin"; bad=1; }
	done
	python3 - "$tmp/status" <<'PY' || bad=1
import glob, json, sys
for j in glob.glob(sys.argv[1] + "/*.one-line.json"):
    raw = open(j, encoding="utf-8").read()
    doc = json.loads(raw)
    flat = []
    def walk(p, v):
        if isinstance(v, dict):
            for k, x in v.items():
                walk(p + [k], x)
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(p + [str(i)], x)
        else:
            s = "" if v is None else ("true" if v is True else "false" if v is False else str(v))
            # --keys writes a backslash and a control character as \xHH.
            s = "".join("\\x%02x" % ord(c) if ord(c) < 0x20 or ord(c) == 0x7f or c == "\\" else c
                        for c in s)
            flat.append(".".join(p) + "=" + s)
    walk([], doc)
    keys = j.replace(".one-line.json", ".keys")
    want = [l.replace("host=HOST", "host=" + doc["host"]) for l in open(keys).read().splitlines()]
    root = [l for l in flat if l.startswith("preload.file=")][0].split("=", 1)[1]
    root = root[: -len("/etc/ld.so.preload")]
    got = [l.replace(root, "ROOT") for l in flat]
    assert got == want, (j, set(got) ^ set(want))
    # The status document as it has always been printed: ", " and ": ".
    assert raw.startswith('{"schema": 2, "version": '), raw[:40]
PY
	schema=$here/../../probe/report/schema
	python3 "$here/../e2e/schema-check.py" "$schema" "$tmp"/status/*.one-line.json >"$tmp/schema.out" ||
		[ $? = 77 ] || { cat "$tmp/schema.out"; echo "FAIL: a status document is not what its schema says"; bad=1; }
	[ "$bad" = 0 ] || fail "pmuguard status differs from its pins (tests/cli/status/pin-status.sh BUILD re-pins)"
	echo "ok: pmuguard status in $(find "$here/status/pinned" -name "*.rc" | wc -l) worlds is as pinned"
	;;
status-child-deadline)
	# A child of status that never answers (here the kernel layer's
	# `enforce status --keys`, which sleeps) is killed at the deadline,
	# with what it started, and its layer is unknown: status itself ends.
	# PMUGUARD_STATUS_CHILD_DEADLINE_MS may only shorten the minute.
	root=$tmp/root
	mkdir -p "$root/etc"
	cat >"$tmp/stub" <<SH
#!/bin/sh
[ "\$1 \${2:-} \${3:-}" = "enforce status --keys" ] || exec "$PMUGUARD" "\$@"
echo \$\$ >"$tmp/stub.pid"
echo schema=1
echo attached=true
sleep 1000 &
exec sleep 1000
SH
	chmod 755 "$tmp/stub"
	rc=0
	PMUGUARD_STATUS_CHILD_DEADLINE_MS=500 PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge timeout 60 \
		"$PMUGUARD" status --json --root "$root" --layer kernel --pmuguard "$tmp/stub" \
		>"$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" != 124 ] || fail "status waited on a child that never answers"
	[ -s "$tmp/stub.pid" ] || fail "the stub never ran: $(cat "$tmp/err")"
	python3 - "$tmp/out" <<'PY' || fail "the kernel layer of a child killed at the deadline: $(cat "$tmp/out" "$tmp/err")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kernel"]["state"] == "unknown", d["kernel"]
assert d["kernel"]["not_attached_because"], d["kernel"]
PY
	# Its process group (the stub and the sleep it left behind) is gone.
	pg=$(cat "$tmp/stub.pid")
	for _ in $(seq 200); do kill -0 -- "-$pg" 2>/dev/null || break; sleep 0.05; done
	! kill -0 -- "-$pg" 2>/dev/null || fail "the child's process group $pg outlived status"
	echo "ok: a child past the deadline is killed with its group; the kernel layer is unknown (exit $rc)"
	;;
status-sigchld-ignored)
	# SIGCHLD ignored is inherited across exec; then no wait sees a child's
	# exit.  status answers the same as with the default disposition.
	root=$tmp/root
	mkdir -p "$root/etc"
	run() {
		PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge SOURCE_DATE_EPOCH=0 python3 -c '
import os, signal, sys
if sys.argv[1] == "ign":
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execv(sys.argv[2], sys.argv[2:])' "$1" "$PMUGUARD" status --keys --root "$root" >"$tmp/$1" 2>&1 || echo "rc=$?" >>"$tmp/$1"
		grep -v '^host=' "$tmp/$1" >"$tmp/$1.k"
	}
	run dfl
	run ign
	grep -qx 'verdict=hazard' "$tmp/dfl.k" || fail "no hazard verdict on the m6i: $(cat "$tmp/dfl")"
	diff -u "$tmp/dfl.k" "$tmp/ign.k" || fail "status with SIGCHLD ignored differs"
	echo "ok: with SIGCHLD ignored, status answers as with it default"
	;;
reports-pinned)
	# Whole reports, as lscpu's tests pin their dumps: every fixture folder
	# holds report.txt (`probe --snapshot NAME`) and report.json (its --json,
	# indented), written by tests/snapshots/pin-reports.sh.  Run from the
	# fixtures folder, so that the report names the snapshot NAME and no
	# path of this tree.  Any changed word fails here, with its diff.
	cd "$FIXTURES"
	unset PMUGUARD_SNAPSHOT PMUGUARD_MODE PMUGUARD_SLOTS PMUGUARD_LOG
	export SOURCE_DATE_EPOCH=0 # generated_at, as pin-reports.sh pins it
	mkdir "$tmp/json"
	bad=0
	n=0
	for w in */; do
		name=${w%/}
		n=$((n + 1))
		"$PMUGUARD" probe --snapshot "$name" >"$tmp/report.txt" ||
			{ echo "FAIL: probe --snapshot $name exited $?"; bad=1; }
		"$PMUGUARD" probe --json --snapshot "$name" >"$tmp/json/$name" ||
			{ echo "FAIL: probe --json --snapshot $name exited $?"; bad=1; }
		if [ ! -f "$name/report.txt" ]; then
			echo "FAIL: $name has no report.txt"
			bad=1
		elif ! diff -u --label "$name/report.txt (pinned)" --label "$name/report.txt (printed)" \
			"$name/report.txt" "$tmp/report.txt"; then
			echo "FAIL: $name: the text report differs from its pin"
			bad=1
		fi
	done
	# The JSON: the pinned object, indented as pin-reports.sh does, and on
	# one line the very bytes the probe prints (scripts read those).
	python3 - "$tmp/json" <<'PY' || bad=1
import difflib, json, os, sys
bad = False
for name in sorted(os.listdir(sys.argv[1])):
    printed = open(os.path.join(sys.argv[1], name), encoding="utf-8").read()
    try:
        pin = open(os.path.join(name, "report.json"), encoding="utf-8").read()
    except OSError as e:
        print(f"FAIL: {name} has no report.json ({e.strerror})")
        bad = True
        continue
    obj = json.loads(printed)
    indented = json.dumps(obj, indent=2, ensure_ascii=False) + "\n"
    if indented != pin:
        sys.stdout.writelines(difflib.unified_diff(pin.splitlines(True), indented.splitlines(True),
                                                   f"{name}/report.json (pinned)",
                                                   f"{name}/report.json (printed)"))
        print(f"FAIL: {name}: the JSON report differs from its pin")
        bad = True
    elif json.dumps(json.loads(pin), separators=(",", ":"), ensure_ascii=False) + "\n" != printed:
        print(f"FAIL: {name}: --json is not the pinned object on one line")
        bad = True
sys.exit(1 if bad else 0)
PY
	[ "$bad" = 0 ] || fail "reports differ from their pins; if the change is meant, run" \
		"tests/snapshots/pin-reports.sh BUILD_DIR and commit the diff"
	[ "$n" -gt 10 ] || fail "the fixtures folder looks empty"
	echo "ok: the text and JSON reports of $n fixtures equal their pins"
	;;
probe-keys)
	# --keys: the JSON document flattened for shells, one KEY=VALUE a line:
	# keys are JSON paths (array elements by index), strings raw with
	# control characters and backslashes as \xHH, null empty; first schema=3.
	export SOURCE_DATE_EPOCH=0 # two runs compared: the same generated_at
	mkdir "$tmp/keys"
	for w in "$FIXTURES"/*/; do
		name=$(basename "$w")
		"$PMUGUARD" probe --json --snapshot "$w" >"$tmp/keys/$name.json"
		"$PMUGUARD" probe --keys --snapshot "$w" >"$tmp/keys/$name.keys"
	done
	python3 - "$tmp/keys" <<'PY' || fail "--keys is not the JSON flattened"
import json, os, sys
def esc(s):
    return "".join("\\x%02x" % ord(c) if ord(c) < 0x20 or ord(c) == 0x7f or c == "\\" else c
                   for c in s)
def flat(v, p):
    if isinstance(v, dict):
        for k, x in v.items():
            yield from flat(x, f"{p}.{k}" if p else k)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from flat(x, f"{p}.{i}")
    elif v is None:
        yield f"{p}="
    elif isinstance(v, bool):
        yield f"{p}={'true' if v else 'false'}"
    elif isinstance(v, int):
        yield f"{p}={v}"
    else:
        yield f"{p}={esc(v)}"
d = sys.argv[1]
names = sorted(n[:-5] for n in os.listdir(d) if n.endswith(".json"))
assert len(names) > 10, "the fixtures folder looks empty"
for name in names:
    want = list(flat(json.load(open(f"{d}/{name}.json", encoding="utf-8")), ""))
    text = open(f"{d}/{name}.keys", encoding="utf-8").read()
    assert text.endswith("\n"), f"{name}: no final newline"
    got = text[:-1].split("\n")
    assert got[0] == "schema=3", f"{name}: first line {got[0]!r}"
    for i, (g, x) in enumerate(zip(got, want)):
        assert g == x, f"{name}: line {i + 1}: {g!r}, the JSON says {x!r}"
    assert len(got) == len(want), f"{name}: {len(got)} lines, the JSON has {len(want)} values"
PY
	# What pmuguard-fleet reads, by these names, with sed.
	key() { sed -n "s/^$1=//p" "$tmp/out"; }
	want() { [ "$(key "$1")" = "$2" ] || fail "--keys: $1=$(key "$1"), expected $1=$2"; }
	status 3 "$PMUGUARD" probe --keys --check --snapshot "$FIXTURES/m6i-16xlarge"
	want state hazard
	want guard_state hazard
	want hazard true
	want machine.words "AWS m6i.16xlarge"
	[ -n "$(key reason)" ] || fail "--keys: no reason"
	want pmus.0.name cpu
	want findings.0.id fixed3-unimplemented
	grep -qx 'dmesg=' "$tmp/out" || fail "--keys: null is not an empty value"
	status 0 "$PMUGUARD" probe --keys --dmesg "$FIXTURES/m6i-16xlarge-log-only/dmesg.txt"
	want guard_state unknown
	want basis kernel-log
	want machine.words "AWS m6i.16xlarge"
	status 0 "$PMUGUARD" probe --keys --snapshot "$FIXTURES/m5-24xlarge"
	grep -qx 'machine=' "$tmp/out" || fail "a null object is one empty key"
	# A value never starts a line: a newline and a backslash in the
	# snapshot's name are \x0a and \x5c.
	nl=$'\n'
	cp -r "$FIXTURES/m6i-16xlarge" "$tmp/a${nl}INJECTED=1\\b"
	status 0 "$PMUGUARD" probe --keys --snapshot "$tmp/a${nl}INJECTED=1\\b"
	! grep -q '^INJECTED' "$tmp/out" || fail "a value started a line of its own"
	grep -qxF "snapshot=$tmp/a\\x0aINJECTED=1\\x5cb" "$tmp/out" ||
		fail "snapshot=: $(grep '^snapshot=' "$tmp/out")"
	status 2 "$PMUGUARD" probe --json --keys
	status 0 "$PMUGUARD" probe --help
	grep -q -- '--keys' "$tmp/out" || fail "--help does not name --keys"
	echo "ok: --keys is the JSON flattened on every fixture; the fleet's keys read with sed"
	;;
snapshot-round-trip)
	"$PMUGUARD" snapshot "$tmp/snap" 2>"$tmp/err" || fail "snapshot failed: $(cat "$tmp/err")"
	[ -s "$tmp/snap/cpuid.txt" ] || fail "no cpuid.txt"
	[ -d "$tmp/snap/sys/bus/event_source/devices" ] || fail "no sysfs mirror"
	# The report's first line names its source; JSON is one line, compared
	# whole minus its source keys.  The container runtimes running here are
	# no fact of the snapshot (null there): left out of both.
	"$PMUGUARD" probe | sed 1d | grep -v '^  Containers  ' >"$tmp/live.txt"
	"$PMUGUARD" probe --snapshot "$tmp/snap" | sed 1d >"$tmp/snap.txt"
	"$PMUGUARD" probe --json | sed -e 's/"source":"[a-z]*","snapshot":[^,]*,//' -e 's/"generated_at":"[^"]*"//' \
		-e 's/"containers":{"runtimes":\[[^]]*\],"evidence":\[[^]]*\]}/"containers":null/' >"$tmp/live.json"
	"$PMUGUARD" probe --json --snapshot "$tmp/snap" |
		sed -e 's/"source":"[a-z]*","snapshot":[^,]*,//' -e 's/"generated_at":"[^"]*"//' >"$tmp/snap.json"
	diff -u "$tmp/live.json" "$tmp/snap.json" || fail "JSON differs between live and snapshot"
	diff -u "$tmp/live.txt" "$tmp/snap.txt" || fail "report differs between live and snapshot"
	status 1 "$PMUGUARD" snapshot "$tmp/snap"
	grep -q "not empty" "$tmp/err" || fail "snapshot into a full directory: no clear error"
	echo "ok: snapshot -> probe equals the live probe ($(wc -l <"$tmp/live.txt") report lines)"
	;;
snapshot-private)
	# The snapshot holds the kernel log (root's alone where
	# kernel.dmesg_restrict=1): its folders are 0700 and its files 0600,
	# in a DIR it makes and in an empty one of the caller's own.
	umask 022
	status 0 "$PMUGUARD" snapshot "$tmp/new"
	mkdir -m 0755 "$tmp/own"
	status 0 "$PMUGUARD" snapshot "$tmp/own/"
	[ "$(stat -c %a "$tmp/new")" = 700 ] || fail "DIR was made $(stat -c %a "$tmp/new"), not 0700"
	for d in "$tmp/new" "$tmp/own"; do
		[ -f "$d/snapshot.txt" ] || fail "$d: nothing written"
		find "$d" -mindepth 1 \( -type d ! -perm 0700 -o -type f ! -perm 0600 -o ! -type d ! -type f \) \
			-printf '%m %y %p\n' >"$tmp/open"
		[ ! -s "$tmp/open" ] || fail "not private: $(head -n 5 "$tmp/open")"
	done
	"$PMUGUARD" snapshot --help >"$tmp/out"
	grep -q 'folders are 0700 and its files 0600' "$tmp/out" || fail "--help does not say the files are private"
	echo "ok: folders 0700, files 0600, said in --help"
	;;
snapshot-refuses-shared-dirs)
	# A DIR others can write (group, other, sticky or not) or a link in
	# DIR's place is refused, exit 1, with the reason, nothing written.
	for m in 0770 0777 1777 0757; do
		mkdir -m "$m" "$tmp/d$m"
		status 1 "$PMUGUARD" snapshot "$tmp/d$m"
		grep -q "snapshot $tmp/d$m: refused: the directory is writable by .* (mode $m)" "$tmp/err" ||
			fail "mode $m: no reason given: $(cat "$tmp/err")"
		[ -z "$(ls -A "$tmp/d$m")" ] || fail "mode $m: written into"
	done
	grep -q 'a sticky bit does not' "$tmp/err" || fail "the sticky bit is not named"
	mkdir -m 0700 "$tmp/real"
	ln -s "$tmp/real" "$tmp/link"
	status 1 "$PMUGUARD" snapshot "$tmp/link"
	grep -q "snapshot $tmp/link: refused: it is a symbolic link" "$tmp/err" || fail "a link as DIR: $(cat "$tmp/err")"
	[ -z "$(ls -A "$tmp/real")" ] || fail "written through the link"
	echo "ok: group- or world-writable directories (sticky too) and links refused; nothing written"
	;;
snapshot-refuses-another-users-dir)
	# A directory another user made first (in /tmp, say) is refused: root
	# would copy the kernel log into a folder its owner reads and can plant
	# links in.  Nothing is written.
	[ "$(id -u)" = 0 ] || skip "needs root to make a directory as another user"
	command -v setpriv >/dev/null || skip "setpriv (util-linux) is needed"
	chmod 0755 "$tmp"
	mkdir -m 1777 "$tmp/pub"
	setpriv --reuid=65534 --regid=65534 --clear-groups mkdir -m 0700 "$tmp/pub/pmu-facts"
	status 1 "$PMUGUARD" snapshot "$tmp/pub/pmu-facts"
	grep -q "snapshot $tmp/pub/pmu-facts: refused: the directory belongs to uid 65534.*, not to uid 0" "$tmp/err" ||
		fail "no reason given: $(cat "$tmp/err")"
	grep -q 'give a path that does not exist yet' "$tmp/err" || fail "the error does not say what to do"
	[ -z "$(ls -A "$tmp/pub/pmu-facts")" ] || fail "written into another user's directory"
	# A new folder in the same shared parent is the caller's own: made 0700.
	status 0 "$PMUGUARD" snapshot "$tmp/pub/mine"
	[ "$(stat -c '%u %a' "$tmp/pub/mine")" = '0 700' ] || fail "a new DIR is not root's, 0700"
	echo "ok: another user's directory refused, naming its owner; a new one is private"
	;;
snapshot-never-follows-links)
	# A link planted in DIR while the snapshot runs, in the place of a
	# folder it makes later (sys/, dmi/), is never followed: nothing is
	# made at its end.  The snapshot is held at a known point in a private
	# mount namespace: /dev/cpu/0/msr is a FIFO there, whose open blocks
	# until its other end is opened, after snapshot.txt, cpuid.txt and
	# dmesg.txt are written and before sys/.
	[ "$(id -u)" = 0 ] || skip "needs root for a private mount namespace"
	unshare -m true 2>/dev/null || skip "unshare -m is not permitted here"
	mkdir "$tmp/target" "$tmp/realdev"
	rc=0
	# shellcheck disable=SC2016 # the inner shell's variables
	unshare -m -- bash -c '
		set -eu
		tmp=$1 PMUGUARD=$2
		mount --make-rprivate /
		mount --rbind /dev "$tmp/realdev"
		mount -t tmpfs -o mode=0755 tmpfs /dev
		for n in null kmsg; do
			[ -e "$tmp/realdev/$n" ] || continue
			: >"/dev/$n"
			mount --bind "$tmp/realdev/$n" "/dev/$n"
		done
		mkdir -p /dev/cpu/0
		mkfifo /dev/cpu/0/msr
		"$PMUGUARD" snapshot "$tmp/snap" >"$tmp/out" 2>"$tmp/err" &
		pid=$!
		for _ in $(seq 200); do [ -e "$tmp/snap/snapshot.txt" ] && break; sleep 0.05; done
		[ -e "$tmp/snap/snapshot.txt" ] || { echo "the snapshot never began"; exit 2; }
		ln -s "$tmp/target" "$tmp/snap/sys"
		ln -s "$tmp/target" "$tmp/snap/dmi"
		timeout 20 bash -c "exec 3>/dev/cpu/0/msr" || { echo "the snapshot never opened the FIFO"; exit 2; }
		wait "$pid"' _ "$tmp" "$PMUGUARD" >"$tmp/log" 2>&1 || rc=$?
	[ -z "$(ls -A "$tmp/target")" ] ||
		fail "the snapshot wrote through the planted link: $(find "$tmp/target" | head -n 5)"
	[ "$rc" = 1 ] || fail "exit $rc, not 1: $(cat "$tmp/log")"
	grep -q "snapshot $tmp/snap: sys appeared in it while the snapshot was written" "$tmp/err" ||
		fail "no reason given: $(cat "$tmp/err")"
	echo "ok: a link planted in DIR during the snapshot is refused, never followed"
	;;
containers)
	# The probe names a container runtime it sees running on this
	# machine (a process named containerd here), never for a snapshot of
	# another; on a hazardous machine it warns that only the kernel guard
	# reaches the containers.
	mkdir -p "$tmp/bin"
	cp "$(command -v sleep)" "$tmp/bin/containerd"
	"$tmp/bin/containerd" 60 &
	rt=$!
	# Until the child has exec'd, its comm is still the shell's.
	for _ in $(seq 100); do [ "$(cat "/proc/$rt/comm" 2>/dev/null)" = containerd ] && break; sleep 0.02; done
	"$PMUGUARD" probe --json >"$tmp/live.json"
	"$PMUGUARD" probe --json --snapshot "$FIXTURES/m6i-16xlarge" >"$tmp/snap.json"
	PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge "$PMUGUARD" probe --json >"$tmp/pinned.json"
	PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge "$PMUGUARD" probe >"$tmp/pinned.txt"
	kill "$rt" 2>/dev/null || true
	python3 - "$tmp" <<'PY' || fail "the container runtime is not reported as it should be"
import json, sys
t = sys.argv[1]
live = json.load(open(t + "/live.json"))
assert "containerd" in live["containers"]["runtimes"], live["containers"]
assert any(e.startswith("process containerd, pid ") for e in live["containers"]["evidence"])
snap = json.load(open(t + "/snap.json"))
assert snap["containers"] is None, "a snapshot of another machine names this one's runtimes"
pinned = json.load(open(t + "/pinned.json"))
ids = [f["id"] for f in pinned["findings"]]
assert pinned["state"] == "hazard" and "containers-need-kernel-guard" in ids, ids
f = [f for f in pinned["findings"] if f["id"] == "containers-need-kernel-guard"][0]
assert "containerd is running" in f["evidence"] and "pmuguard enforce" in f["remedy"], f
PY
	grep -q '^  Containers      containerd (process containerd, pid [0-9]*): the preload does not reach into its containers$' "$tmp/pinned.txt" ||
		fail "the text report does not name the runtime"
	echo "ok: the runtime is named live and under the pinned snapshot, never for another machine's snapshot"
	;;
usage-errors)
	status 2 "$PMUGUARD"
	status 2 "$PMUGUARD" frobnicate
	status 2 "$PMUGUARD" probe --bogus
	# One prefix style: no getopt line of its own ("probe: unrecognized ...").
	head -n1 "$tmp/err" | grep -qx "pmuguard: probe: unrecognized option '--bogus'" ||
		fail "option error: $(head -n1 "$tmp/err")"
	! grep -q '^probe:' "$tmp/err" || fail "getopt spoke with its own prefix"
	status 2 "$PMUGUARD" run --mode
	grep -q "^pmuguard: run: option '--mode' needs an argument" "$tmp/err" ||
		fail "missing argument: $(head -n1 "$tmp/err")"
	for c in probe run check snapshot enforce; do
		status 0 "$PMUGUARD" $c --help
		[ "$(wc -l <"$tmp/out")" -gt 3 ] || fail "$c --help is not the full text"
	done
	status 2 "$PMUGUARD" probe --msr --snapshot "$FIXTURES/m6i-16xlarge"
	status 2 "$PMUGUARD" run
	status 2 "$PMUGUARD" snapshot
	status 1 "$PMUGUARD" probe --snapshot /nonexistent
	grep -q "/nonexistent" "$tmp/err" || fail "the error does not name the snapshot"
	status 127 "$PMUGUARD" run -- /nonexistent/cmd
	status 0 "$PMUGUARD" --help
	status 0 "$PMUGUARD" run -- true
	status 7 "$PMUGUARD" run -- sh -c 'exit 7'
	echo "ok: usage 2, internal 1, run returns the command's status"
	;;
check-quiet)
	# `probe --check -q` answers with its status alone, for
	# `if pmuguard probe --check -q; then`: nothing on stdout, nothing on
	# stderr unless something is wrong.
	for q in -q --quiet; do
		status 3 "$PMUGUARD" probe --check "$q" --snapshot "$FIXTURES/m6i-16xlarge"
		[ ! -s "$tmp/out" ] || fail "--check $q printed on stdout: $(head -n 3 "$tmp/out")"
		[ ! -s "$tmp/err" ] || fail "--check $q printed on stderr: $(head -n 3 "$tmp/err")"
		status 0 "$PMUGUARD" probe "$q" --check --snapshot "$FIXTURES/icx-8375c-metal"
		if [ -s "$tmp/out" ] || [ -s "$tmp/err" ]; then fail "$q --check on a healthy host printed"; fi
	done
	# The same status as without -q, on every fixture.
	for w in "$FIXTURES"/*/; do
		want=0
		"$PMUGUARD" probe --check --snapshot "$w" >/dev/null 2>&1 || want=$?
		status "$want" "$PMUGUARD" probe --check -q --snapshot "$w"
		[ ! -s "$tmp/out" ] || fail "$(basename "$w"): --check -q printed on stdout"
	done
	# Errors still go to stderr, with their status.
	status 1 "$PMUGUARD" probe --check -q --snapshot /nonexistent
	[ ! -s "$tmp/out" ] || fail "an error printed on stdout"
	grep -q '/nonexistent' "$tmp/err" || fail "-q hid the error"
	# -q without --check, or with a document asked for, is a usage error.
	status 2 "$PMUGUARD" probe -q --snapshot "$FIXTURES/m6i-16xlarge"
	grep -q 'pmuguard: probe: --quiet goes with --check' "$tmp/err" || fail "-q alone: $(head -n1 "$tmp/err")"
	status 2 "$PMUGUARD" probe --check -q --json --snapshot "$FIXTURES/m6i-16xlarge"
	status 2 "$PMUGUARD" probe --check -q --keys --snapshot "$FIXTURES/m6i-16xlarge"
	status 0 "$PMUGUARD" probe --help
	grep -q -- '-q, --quiet' "$tmp/out" || fail "probe --help does not say -q"
	echo "ok: probe --check -q prints nothing and exits 3 on the m6i, 0 on a healthy host; errors still on stderr"
	;;
help-exit-codes)
	# Every exit code of every command is in its --help.
	status 0 "$PMUGUARD" --help
	for c in 0 1 2 3 4 5 6 7 8 9; do
		grep -q "^  $c  " "$tmp/out" || fail "pmuguard --help does not list exit code $c"
	done
	# Every command the dispatcher takes is in the list (status was missing).
	for c in probe snapshot run check enforce canary status; do
		grep -q "^  $c " "$tmp/out" || fail "pmuguard --help does not list the command $c"
	done
	for c in '126 CMD not' '127 CMD not found'; do
		grep -q "$c" "$tmp/out" || fail "pmuguard --help does not list run's $c"
	done
	status 0 "$PMUGUARD" probe --help
	grep -q '^Exit: 0 .*3 hazard' "$tmp/out" || fail "probe --help: no exit codes"
	for c in run check snapshot; do
		status 0 "$PMUGUARD" "$c" --help
		grep -q '^Exit: ' "$tmp/out" || fail "$c --help: no exit codes"
	done
	rc=0
	"$PMUGUARD" enforce --help >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [ "$rc" = 5 ]; then
		echo "ok: (built without enforce: its --help is the exit 5 it documents)"
	else
		[ "$rc" = 0 ] || fail "enforce --help exited $rc"
		tr '\n' ' ' <"$tmp/out" >"$tmp/help1"
		for want in '4  start, agent: the kernel could not take' '5  built without' \
			'6  status, follow: nothing attached' '7  start, status, ready: attached and denying, but events' \
			'8  status, ready: attached, but the self-test failed' '9  status, ready: attached in audit mode'; do
			grep -qF "$want" "$tmp/help1" || fail "enforce --help does not say '$want'"
		done
	fi
	echo "ok: --help of pmuguard and of each subcommand lists its exit codes"
	;;
documents-match-schemas)
	# Every report the fixtures pin, the live machine's and a kernel log's
	# are what the shipped schema says (keys, types, no others); so are the
	# pinned documents of enforce start, and a healthy fixture's start now.
	"$PMUGUARD" probe --json >"$tmp/live.json"
	"$PMUGUARD" probe --json --dmesg "$FIXTURES/m6i-16xlarge/dmesg.txt" >"$tmp/dmesg.json"
	enf=
	rc=0
	"$PMUGUARD" enforce start --json --snapshot "$FIXTURES/icx-8375c-metal" >"$tmp/start.json" 2>"$tmp/err" || rc=$?
	case $rc in
	0) enf="$tmp/start.json" ;;
	5) ;; # built without enforce: its pins are still checked
	*) fail "enforce start --json on a healthy fixture exited $rc" ;;
	esac
	set +e
	# shellcheck disable=SC2086 # $enf is one path or nothing
	python3 "$(dirname "$0")/../e2e/schema-check.py" "$(dirname "$0")/../../probe/report/schema" \
		"$FIXTURES"/*/report.json "$tmp/live.json" "$tmp/dmesg.json" \
		"$FIXTURES"/*/enforce-start.json $enf >"$tmp/out"
	r=$?
	set -e
	[ "$r" != 77 ] || skip "$(cat "$tmp/out")"
	[ "$r" = 0 ] || fail "a document is not what its schema says: $(cat "$tmp/out")"
	grep -q 'checked, 0 error' "$tmp/out" || fail "nothing was checked: $(cat "$tmp/out")"
	ok "$(tail -n 1 "$tmp/out"): every pinned report and enforce start document, the live report, a log's and a start's match probe.schema.json and enforce.schema.json"
	;;
run-preload-order)
	# run puts the shim first and keeps an existing LD_PRELOAD after it.
	# shellcheck disable=SC2016 # expanded by the inner shell
	out=$(LD_PRELOAD=/lib/x86_64-linux-gnu/libc.so.6 "$PMUGUARD" run --mode preload -- sh -c 'echo "$LD_PRELOAD"')
	case $out in
	/*libpmuguard.so:/lib/x86_64-linux-gnu/libc.so.6) echo "ok: $out" ;;
	*) fail "LD_PRELOAD=$out" ;;
	esac
	;;
seccomp-supervisor-killed)
	# If the supervisor dies, the tree's perf_event_open fails with ENOSYS
	# (the kernel's answer for a dead listener): it never reaches the kernel
	# body, whose answer on this machine would be ENOENT or a real fd.
	: "${PEO:?}"
	PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge "$PMUGUARD" run --mode seccomp -- \
		"$PEO" --ppid-file "$tmp/ppid" --wait-file "$tmp/go" 4:0x400 4:0x1a4 1:0 \
		>"$tmp/out" 2>"$tmp/err" &
	for _ in $(seq 500); do [ -s "$tmp/ppid" ] && break; sleep 0.01; done
	sup=$(cat "$tmp/ppid")
	kill -9 "$sup"
	wait || true
	touch "$tmp/go"
	for _ in $(seq 500); do [ "$(wc -l <"$tmp/out")" -ge 3 ] && break; sleep 0.01; done
	cat "$tmp/out"
	[ "$(grep -c 'errno=ENOSYS' "$tmp/out")" = 3 ] || fail "expected ENOSYS for every call"
	echo "ok: with the supervisor dead, every perf_event_open fails with ENOSYS"
	;;
seccomp-status-and-signals)
	status 7 "$PMUGUARD" run --mode seccomp -- sh -c 'exit 7'
	status 143 "$PMUGUARD" run --mode seccomp -- sh -c 'kill -TERM $$'
	"$PMUGUARD" run --mode seccomp -- sh -c \
		"trap 'exit 42' TERM; echo ready >$tmp/ready; while :; do sleep 0.05; done" &
	pid=$!
	for _ in $(seq 500); do [ -s "$tmp/ready" ] && break; sleep 0.01; done
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" = 42 ] || fail "SIGTERM was not forwarded (exit $rc, expected 42)"
	echo "ok: the command's status is pmuguard's; SIGTERM reaches the command"
	;;
seccomp-burst)
	# 4 processes x 64 threads x 50 calls x 3 encodings, answered one by one:
	# every repetition must get the same answer as the first (no lost or
	# mixed-up replies), denied ones ENOENT, the software event a real fd.
	: "${PEO:?}"
	PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge PMUGUARD_LOG=quiet "$PMUGUARD" run --mode seccomp -- \
		"$PEO" --threads 64 --forks 3 --repeat 50 4:0x400 1:0 4:0x8000 >"$tmp/out" ||
		fail "answers disagreed: $(grep DISAGREE "$tmp/out" | head -3)"
	[ "$(grep -c 'config=0x0 ret=fd' "$tmp/out")" = 4 ] || fail "software events broke"
	[ "$(grep -c 'config=0x400 ret=-1 errno=ENOENT' "$tmp/out")" = 4 ] || fail "0x400 not denied"
	echo "ok: 38400 notified calls answered consistently"
	;;
auto-mode-choice)
	: "${PEO:?}"
	PMUGUARD_LOG=debug "$PMUGUARD" run -- "$PEO" 1:0 >"$tmp/out" 2>"$tmp/err"
	grep -q 'seccomp mode for .*peo: statically linked' "$tmp/err" ||
		fail "auto mode did not pick seccomp for a static binary: $(cat "$tmp/err")"
	PMUGUARD_LOG=debug "$PMUGUARD" run -- perf --version >"$tmp/out" 2>"$tmp/err"
	grep -q 'seccomp+preload mode for .*perf: dynamically linked and imports syscall' "$tmp/err" ||
		fail "auto mode did not add the preload for perf: $(cat "$tmp/err")"
	status 0 "$PMUGUARD" check "$PEO" "$(command -v perf)"
	grep -q 'guard: seccomp (statically linked' "$tmp/out" || fail "check output"
	status 1 "$PMUGUARD" check "$FIXTURES/m6i-16xlarge/cpuid.txt"
	grep -q 'not an ELF binary' "$tmp/err" || fail "check on a text file: no clear error"
	echo "ok: auto picks seccomp for static, seccomp+preload for perf; check explains"
	;;
check-never-blocks)
	# Before: `check FIFO` and `run -- ./FIFO` waited
	# forever in open(2) (the `timeout` here only turns such a hang into a
	# failure), and a truncated ELF was "statically linked", exit 0.
	mkfifo "$tmp/fifo"
	status 1 timeout 60 "$PMUGUARD" check "$tmp/fifo"
	grep -q 'fifo: not a regular file (a FIFO)' "$tmp/err" || fail "check FIFO: no clear error"
	status 126 timeout 60 "$PMUGUARD" run -- "$tmp/fifo"
	status 1 timeout 60 "$PMUGUARD" check /dev/null
	grep -q 'not a regular file (a device)' "$tmp/err" || fail "check /dev/null: no clear error"
	for n in 100 1000 $(($(stat -c %s "$PEO") - 1)); do
		head -c "$n" "$PEO" >"$tmp/trunc"
		chmod +x "$tmp/trunc"
		status 1 "$PMUGUARD" check "$tmp/trunc"
		grep -q "trunc: a truncated ELF file" "$tmp/err" || fail "a $n-byte ELF: no clear error"
	done
	status 0 "$PMUGUARD" check "$PEO"
	echo "ok: FIFOs and devices are never opened for reading; truncated ELFs are errors"
	;;
lib-must-be-loadable)
	# Before: PMUGUARD_LIB=/etc/passwd ran CMD with the
	# loader's warning and no guard, exit 0.  The file must be a 64-bit ELF
	# shared object for this machine that defines syscall().
	: "${LIB:?}"
	for bad in /etc/passwd "$PEO" /lib/x86_64-linux-gnu/libm.so.6 "$tmp"; do
		PMUGUARD_LIB=$bad status 1 "$PMUGUARD" run --mode preload -- sh -c 'echo ran'
		grep -q "^pmuguard: PMUGUARD_LIB=$bad: " "$tmp/err" || fail "$bad: the error does not name it"
		! grep -q ran "$tmp/out" || fail "PMUGUARD_LIB=$bad: CMD ran unguarded"
	done
	head -c 4096 "$LIB" >"$tmp/trunc.so"
	PMUGUARD_LIB=$tmp/trunc.so status 1 "$PMUGUARD" run --mode preload -- true
	grep -q 'truncated ELF' "$tmp/err" || fail "a truncated library: no clear error"
	PMUGUARD_LIB=$LIB status 0 "$PMUGUARD" run --mode preload -- true
	echo "ok: PMUGUARD_LIB that is not a preloadable library is an error (exit 1)"
	;;
auto-cookie-filter)
	# Auto mode for a dynamic CMD: the supervisor watches the tree and the
	# preload judges dynamic programs in-process.  Every native
	# perf_event_open is sent to the supervisor and judged from the attr it
	# reads, whatever its sixth argument (r9) says: the run's cookie, which
	# every process of the tree can read, decides nothing (issue 38, item
	# 6).  peo passes flags the kernel rejects with EINVAL, so ENOENT can
	# only come from a guard, and EINVAL means the call reached the kernel.
	: "${PEO_DYN:?}"
	S=$FIXTURES/m6i-16xlarge
	notified() { sed -n 's/^pmuguard: supervisor: \([0-9]*\) perf_event_open calls notified.*/\1/p' "$tmp/err"; }
	for v in right:0 low-half:0x1 high-half:0x100000000 all:0xffffffffffffffff none:env; do
		xor=${v#*:}
		if [ "$xor" = env ]; then
			set -- env -u PMUGUARD_SECCOMP_COOKIE "$PEO" --flags 0x100000 --cookie-xor 0
		else
			set -- "$PEO" --flags 0x100000 --cookie-xor "$xor"
		fi
		PMUGUARD_LOG=debug status 0 "$PMUGUARD" run --snapshot "$S" -- taskset -c 0 "$@" 4:0x400 4:0x1a4
		grep -q 'seccomp+preload mode for .*taskset' "$tmp/err" || fail "taskset did not get seccomp+preload"
		[ "$(notified)" = 2 ] || fail "cookie $v: expected 2 notifications, got '$(notified)'"
		grep -q 'config=0x400 ret=-1 errno=ENOENT' "$tmp/out" || fail "cookie $v: 0x400 not denied"
		grep -q 'config=0x1a4 ret=-1 errno=EINVAL' "$tmp/out" || fail "cookie $v: 0x1a4 not continued"
		echo "ok: cookie $v: notified $(notified), 0x400 denied"
	done
	# A dynamic tool through syscall(): judged by the preload, and the call
	# it lets through judged again by the supervisor.
	PMUGUARD_LOG=debug status 0 "$PMUGUARD" run --snapshot "$S" -- "$PEO_DYN" 4:0x400 4:0x1a4 4:0x8000
	[ "$(notified)" -ge 1 ] || fail "the preload's forwarded calls were not judged by the supervisor ($(notified))"
	grep -q 'config=0x400 errno=ENOENT' "$tmp/out" || fail "peo-dyn: 0x400 not denied by the preload"
	grep -q 'config=0x1a4 errno=EINVAL' "$tmp/out" || fail "peo-dyn: 0x1a4 did not reach the kernel"
	grep -q "^pmuguard: blocked perf_event_open(type=4, config=0x400) in peo-dyn" "$tmp/err" || fail "no block line"
	[ "$(grep -c '^pmuguard: blocked perf_event_open(type=4, config=0x400) in peo-dyn' "$tmp/err")" = 1 ] ||
		fail "the block was said more than once"
	# --mode seccomp: every call is sent.
	PMUGUARD_LOG=debug status 0 "$PMUGUARD" run --mode seccomp --snapshot "$S" -- "$PEO_DYN" 4:0x400 4:0x1a4
	[ "$(notified)" = 2 ] || fail "--mode seccomp skipped calls ($(notified))"
	echo "ok: the run's cookie, right or wrong, skips no call: the supervisor judges each"
	;;
run-audit-says-no-lock-it-lacks)
	# Issue 40 (7): run --audit said "/etc/pmuguard.conf has lock = yes"
	# on a host with no such file (it compared two struct pointers).
	[ ! -e /etc/pmuguard.conf ] || skip "this host has an /etc/pmuguard.conf"
	status 0 "$PMUGUARD" run --audit --snapshot "$FIXTURES/m6i-16xlarge" -- true
	! grep -q 'lock' "$tmp/err" || fail "run --audit spoke of a lock this host lacks: $(grep lock "$tmp/err")"
	ok "run --audit on a host without a policy file says nothing of a lock"
	;;
auto-fails-closed-under-listener)
	# Where the filter cannot be installed (EBUSY: another
	# listener, here faultsim's), auto mode must not fall back to the
	# preload alone, which leaves static children unguarded: exit 1, CMD
	# never runs, and the message names --mode preload.
	: "${FAULTSIM:?}"
	rc=0
	"$FAULTSIM" --log "$tmp/log" -- "$PMUGUARD" run -- taskset -c 0 sh -c 'echo ran' \
		>"$tmp/out" 2>"$tmp/err" || rc=$?
	if [ "$rc" = 77 ]; then
		echo "SKIP: faultsim cannot run here: $(cat "$tmp/err")"
		[ "${PMUGUARD_TESTS_MUST_RUN:-0}" != 1 ] || fail "PMUGUARD_TESTS_MUST_RUN=1 turns this skip into a failure"
		exit 77
	fi
	[ "$rc" = 1 ] || fail "auto under another listener exited $rc, expected 1: $(cat "$tmp/err")"
	! grep -q ran "$tmp/out" || fail "CMD ran without the filter"
	grep -q 'cannot install the seccomp filter: .*busy' "$tmp/err" || fail "no reason given"
	grep -q -- '--mode preload' "$tmp/err" || fail "the message does not name --mode preload"
	"$FAULTSIM" --log "$tmp/log" -- "$PMUGUARD" run --mode preload -- taskset -c 0 sh -c 'echo ran' \
		>"$tmp/out" 2>"$tmp/err" || fail "--mode preload under another listener failed"
	grep -q ran "$tmp/out" || fail "--mode preload did not run CMD"
	echo "ok: auto fails closed under another listener and names --mode preload"
	;;
supervisor-sigpipe)
	# The supervisor's stderr is a pipe nobody reads:
	# before, its first block line killed it with SIGPIPE (exit 141) and
	# every later call of the tree failed with ENOSYS.  The pipe is made
	# readerless before the run starts (a FIFO opened twice, reader closed),
	# so the write fails every time, not by timing.
	mkfifo "$tmp/p"
	# shellcheck disable=SC2094 # opened twice on purpose, then the reader closed
	exec 3<>"$tmp/p" 4>"$tmp/p" 3<&-
	rc=0
	"$PMUGUARD" run --mode seccomp --snapshot "$FIXTURES/m6i-16xlarge" -- \
		"$PEO" --flags 0x100000 4:0x400 4:0x8000 4:0x1a4 >"$tmp/out" 2>&4 || rc=$?
	exec 4>&-
	[ "$rc" = 0 ] || fail "run exited $rc (141: killed by SIGPIPE)"
	grep -q 'config=0x400 ret=-1 errno=ENOENT' "$tmp/out" || fail "0x400 not denied"
	grep -q 'config=0x8000 ret=-1 errno=ENOENT' "$tmp/out" || fail "0x8000 not denied after a failed write"
	grep -q 'config=0x1a4 ret=-1 errno=EINVAL' "$tmp/out" || fail "0x1a4 did not reach the kernel"
	# The command's ignored signals are the ones pmuguard was started with,
	# whether none is ignored, or SIGPIPE, or SIGHUP (nohup).
	# shellcheck disable=SC2016 # expanded by the inner shell
	for outer in '' 'trap "" PIPE;' 'trap "" HUP;'; do
		want=$(sh -c "$outer"' sh -c "grep SigIgn /proc/\$\$/status"')
		got=$(sh -c "$outer"' exec "$0" run --mode seccomp -- sh -c "grep SigIgn /proc/\$\$/status"' "$PMUGUARD")
		[ -n "$want" ] || fail "cannot read SigIgn"
		[ "$got" = "$want" ] || fail "the command's ignored signals: $got, expected $want"
	done
	echo "ok: a closed stderr neither kills the supervisor nor changes the command's SIGPIPE"
	;;
supervisor-outlives-command)
	# A background job still runs when the command
	# exits: before, the supervisor exited with the command and the job's
	# perf_event_open got ENOSYS.  Now it serves (and reaps) until the last
	# process is gone, and returns the command's status.  The job waits
	# until its parent shell has gone (no timing), then calls.
	rc=0
	# shellcheck disable=SC2016 # expanded by the inner shells
	"$PMUGUARD" run --mode seccomp --snapshot "$FIXTURES/m6i-16xlarge" -- sh -c '
		parent=$$
		(while kill -0 "$parent" 2>/dev/null; do sleep 0.01; done
		 exec "$0" --flags 0x100000 4:0x400 4:0x1a4 >"$1") &
		exit 3' "$PEO" "$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" = 3 ] || fail "run exited $rc, expected the command's 3"
	grep -q 'config=0x400 ret=-1 errno=ENOENT' "$tmp/out" || fail "the late job's 0x400 was not denied"
	grep -q 'config=0x1a4 ret=-1 errno=EINVAL' "$tmp/out" || fail "the late job's 0x1a4 did not reach the kernel"
	# Auto mode (the supervisor is there for a dynamic CMD too).
	rc=0
	# shellcheck disable=SC2016 # expanded by the inner shells
	"$PMUGUARD" run --snapshot "$FIXTURES/m6i-16xlarge" -- taskset -c 0 sh -c '
		parent=$$
		(while kill -0 "$parent" 2>/dev/null; do sleep 0.01; done
		 exec "$0" 4:0x400 >"$1") &
		exit 5' "$PEO" "$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" = 5 ] || fail "auto: run exited $rc, expected 5"
	grep -q 'config=0x400 ret=-1 errno=ENOENT' "$tmp/out" || fail "auto: the late job was not guarded"
	echo "ok: background jobs stay guarded after the command exits; its status is kept"
	;;
seccomp-log-once-per-process)
	# Each encoding is logged once per process, as the
	# shim does: 3 processes x 4 threads x 3 repeats x 2 encodings give 6
	# lines (b8cbd33: once per tree, 2 lines; f2788d1 keyed on the thread id
	# the notification carries, up to 24).
	S=$FIXTURES/m6i-16xlarge
	status 0 "$PMUGUARD" run --mode seccomp --snapshot "$S" -- \
		"$PEO" --threads 4 --forks 2 --repeat 3 4:0x400 4:0x8000
	for c in 0x400 0x8000; do
		n=$(grep -c "^pmuguard: blocked perf_event_open(type=4, config=$c) in peo\[" "$tmp/err" || true)
		[ "$n" = 3 ] || fail "config=$c: $n lines, expected one per process (3)"
		pids=$(sed -n "s/^pmuguard: blocked perf_event_open(type=4, config=$c) in peo\[\([0-9]*\)\].*/\1/p" "$tmp/err" | sort -u | wc -l)
		[ "$pids" = 3 ] || fail "config=$c: lines name $pids processes, expected 3"
	done
	echo "ok: one line per encoding per process"
	;;
env-values-escaped)
	# A newline in a PMUGUARD_* value must not start a
	# line of its own in any message of the CLI (or of the preload it
	# starts): every such value is written with \xNN escapes.
	: "${PEO_DYN:?}"
	S=$FIXTURES/m6i-16xlarge
	nl=$'\n'
	injected() { grep -q '^INJECTED' "$tmp/err" && fail "$1: a value started a line of its own"; true; }
	escaped() { grep -q '\\x0aINJECTED' "$tmp/err" || fail "$1: the value was not reported escaped"; }
	for m in seccomp auto preload; do
		PMUGUARD_MODE="x${nl}INJECTED" status 0 "$PMUGUARD" run --mode "$m" --snapshot "$S" -- "$PEO_DYN" 4:0x400
		injected "PMUGUARD_MODE, $m"
		escaped "PMUGUARD_MODE, $m"
		PMUGUARD_LOG="x${nl}INJECTED" status 0 "$PMUGUARD" run --mode "$m" --snapshot "$S" -- "$PEO_DYN" 4:0x400
		injected "PMUGUARD_LOG, $m"
		escaped "PMUGUARD_LOG, $m"
	done
	PMUGUARD_SNAPSHOT="/nonexistent${nl}INJECTED" status 1 "$PMUGUARD" run -- true
	injected PMUGUARD_SNAPSHOT
	escaped PMUGUARD_SNAPSHOT
	PMUGUARD_SNAPSHOT="/nonexistent${nl}INJECTED" status 1 "$PMUGUARD" probe
	injected "probe, PMUGUARD_SNAPSHOT"
	PMUGUARD_LIB="/nonexistent${nl}INJECTED" status 1 "$PMUGUARD" run --mode preload -- true
	injected PMUGUARD_LIB
	escaped PMUGUARD_LIB
	# A real snapshot directory whose name holds a newline: the debug line
	# and the audit summary name it.
	cp -r "$S" "$tmp/snap${nl}INJECTED"
	PMUGUARD_LOG=debug PMUGUARD_SNAPSHOT="$tmp/snap${nl}INJECTED" status 0 "$PMUGUARD" run --audit -- "$PEO" 1:0
	injected "debug and audit lines"
	escaped "debug and audit lines"
	PMUGUARD_LOG=debug PMUGUARD_SNAPSHOT="$tmp/snap${nl}INJECTED" status 0 "$PMUGUARD" run -- "$PEO_DYN" 1:0
	injected "auto, debug lines"
	echo "ok: control characters in PMUGUARD_* values are escaped in every line"
	;;
snapshot-names)
	# --snapshot NAME and PMUGUARD_SNAPSHOT=NAME find a reference
	# snapshot (installed in DATADIR/pmuguard/snapshots; here the fixtures,
	# through PMUGUARD_SNAPSHOT_DIR), in the command and in the shim alike;
	# a path, or a directory of that name here, is read as given; a name
	# found nowhere is an error that says where it looked and lists them.
	: "${PEO_DYN:?}" "${LIB:?}"
	mkdir "$tmp/cwd"
	cd "$tmp/cwd"
	export PMUGUARD_SNAPSHOT_DIR=$FIXTURES
	unset PMUGUARD_SNAPSHOT PMUGUARD_MODE PMUGUARD_LOG
	status 3 "$PMUGUARD" probe --check --snapshot m6i-16xlarge
	grep -qxF "pmuguard probe (snapshot $FIXTURES/m6i-16xlarge)" "$tmp/out" ||
		fail "the report does not name the folder read: $(head -n1 "$tmp/out")"
	status 0 "$PMUGUARD" probe --check --snapshot icx-8375c-metal
	PMUGUARD_SNAPSHOT=m6i-16xlarge status 3 "$PMUGUARD" probe --check
	status 0 "$PMUGUARD" run --audit --snapshot m6i-16xlarge -- "$PEO_DYN" 4:0x400
	grep -qF "(facts: $FIXTURES/m6i-16xlarge)" "$tmp/err" || fail "the audit does not name the folder"
	grep -q '0x400 .*would' "$tmp/err" || fail "the audit does not list the counter-3 call"
	# A command that did not run is no verdict on the tool: the answer says
	# that nothing was opened.
	status 127 "$PMUGUARD" run --audit --snapshot m6i-16xlarge -- "$tmp/no-such-tool"
	grep -q 'affected machine: no (it made no perf_event_open call' "$tmp/err" ||
		fail "the audit of a command that never ran reads as a verdict: $(tail -n1 "$tmp/err")"
	# The seccomp supervisor, and the preload it exports the folder to.
	status 0 "$PMUGUARD" run --mode seccomp --snapshot m6i-16xlarge -- "$PEO" 4:0x400
	grep -q 'config=0x400 .*errno=ENOENT' "$tmp/out" || fail "seccomp: slots not denied by NAME"
	PMUGUARD_SNAPSHOT=m6i-16xlarge status 0 "$PMUGUARD" run --mode preload -- "$PEO_DYN" 4:0x400
	grep -q 'config=0x400 errno=ENOENT' "$tmp/out" || fail "preload: slots not denied by NAME"
	# The shim alone reads the same folder for the same NAME.
	PMUGUARD_SNAPSHOT=m6i-16xlarge LD_PRELOAD=$LIB status 0 "$PEO_DYN" 4:0x400
	grep -q 'config=0x400 errno=ENOENT' "$tmp/out" || fail "the shim does not find the NAME"
	# A directory of that name here wins, and a '/' makes a path.
	cp -r "$FIXTURES/icx-8375c-metal" m6i-16xlarge
	status 0 "$PMUGUARD" probe --check --snapshot m6i-16xlarge
	grep -qx "pmuguard probe (snapshot m6i-16xlarge)" "$tmp/out" || fail "the directory here was not read"
	status 1 "$PMUGUARD" probe --snapshot ./icx-8375c-metal
	grep -q 'snapshot ./icx-8375c-metal: No such file or directory' "$tmp/err" ||
		fail "a path was looked up as a NAME: $(cat "$tmp/err")"
	# --list: the names, one a line, sorted: what the folder holds.
	status 0 "$PMUGUARD" snapshot --list
	(cd "$FIXTURES" && find . -mindepth 1 -maxdepth 1 -type d ! -name '.*' -printf '%f\n' | LC_ALL=C sort) >"$tmp/want"
	diff -u "$tmp/want" "$tmp/out" || fail "snapshot --list is not the folder's snapshots"
	# Not found: exit 1, where it looked (here, the folder), every name.
	status 1 "$PMUGUARD" probe --snapshot m6i-16xlarg
	head -n1 "$tmp/err" | grep -qxF "pmuguard: snapshot m6i-16xlarg: not a directory in $tmp/cwd, nor a reference snapshot in $FIXTURES" ||
		fail "the error does not say where it looked: $(head -n1 "$tmp/err")"
	while read -r name; do
		grep -qxF "  $name" "$tmp/err" || fail "the error does not list $name"
	done <"$tmp/want"
	PMUGUARD_SNAPSHOT=m6i-16xlarg status 1 "$PMUGUARD" run --audit -- true
	grep -qxF '  m6i-16xlarge' "$tmp/err" || fail "run: the error does not list the names"
	PMUGUARD_SNAPSHOT_DIR=$tmp/none status 1 "$PMUGUARD" run --audit --snapshot icx-8375c-metal -- true
	grep -qxF "pmuguard: no reference snapshots: $tmp/none: No such file or directory" "$tmp/err" ||
		fail "a missing folder is not said: $(cat "$tmp/err")"
	PMUGUARD_SNAPSHOT_DIR=$tmp/none status 1 "$PMUGUARD" snapshot --list
	echo "ok: NAME found by the command and the shim alike; paths and directories here as given; errors list the names"
	;;
snapshots-installed)
	# meson installs the hand-made worlds (tests/snapshots/generate.sh's
	# HANDMADE) as the reference snapshots: their facts, not the tests' pins;
	# each replays as its fixture does.
	build=${PMUGUARD%/probe/cli/pmuguard}
	[ -f "$build/meson-info/intro-installed.json" ] || skip "no meson build tree above $PMUGUARD"
	meson install -C "$build" --no-rebuild --tags snapshots --destdir "$tmp/dest" >"$tmp/log" 2>&1 ||
		fail "meson install --tags snapshots: $(tail -n 5 "$tmp/log")"
	ref=$(find "$tmp/dest" -type d -path '*/pmuguard/snapshots' | head -n1)
	[ -n "$ref" ] || fail "nothing installed under share/pmuguard/snapshots"
	sed -n '/^HANDMADE=(/,/)/p' "$FIXTURES/generate.sh" | sed 's/HANDMADE=(//; s/)//' |
		tr -s '[:space:]' '\n' | grep . | LC_ALL=C sort >"$tmp/want"
	[ "$(wc -l <"$tmp/want")" -gt 10 ] || fail "cannot read HANDMADE from generate.sh"
	find "$ref" -mindepth 1 -maxdepth 1 -printf '%f\n' | LC_ALL=C sort >"$tmp/got"
	diff -u "$tmp/want" "$tmp/got" || fail "meson.build's reference_snapshots is not generate.sh's HANDMADE"
	! find "$ref" -name expected -o -name 'report.*' -o -name enforce-start.json | grep . ||
		fail "the tests' pins were installed"
	export SOURCE_DATE_EPOCH=0 PMUGUARD_SNAPSHOT_DIR=$ref
	cd "$tmp"
	while read -r name; do
		(cd "$FIXTURES/$name" && find . -type f ! -name expected ! -name 'report.*' ! -name enforce-start.json | LC_ALL=C sort) >"$tmp/files.want"
		(cd "$ref/$name" && find . -type f | LC_ALL=C sort) >"$tmp/files.got"
		diff -u "$tmp/files.want" "$tmp/files.got" || fail "$name: not every fact file was installed"
		"$PMUGUARD" probe --json --snapshot "$name" | sed 's/"snapshot":"[^"]*"//' >"$tmp/got.json"
		"$PMUGUARD" probe --json --snapshot "$FIXTURES/$name" | sed 's/"snapshot":"[^"]*"//' >"$tmp/want.json"
		cmp -s "$tmp/want.json" "$tmp/got.json" || fail "$name: the installed snapshot reads otherwise"
	done <"$tmp/want"
	echo "ok: $(wc -l <"$tmp/want") reference snapshots installed, without pins, each read as its fixture"
	;;
status-root-stays-in-tree)
	# Under --root every path is the tree's: an absolute link in it
	# (etc -> a directory outside, as a tree's etc -> /etc would be) is
	# resolved in the tree, never followed to this host's files.
	chmod 755 "$tmp"
	mkdir -p "$tmp/root/usr/lib" "$tmp/host/etc" "$tmp/host/lib/pmuguard"
	cp "$LIB" "$tmp/host/lib/pmuguard/libpmuguard.so"
	echo /usr/lib/pmuguard/libpmuguard.so >"$tmp/host/etc/ld.so.preload"
	ln -s "$tmp/host/etc" "$tmp/root/etc"
	ln -s "$tmp/host/lib/pmuguard" "$tmp/root/usr/lib/pmuguard"
	PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge "$PMUGUARD" status --root "$tmp/root" --keys \
		>"$tmp/keys" 2>&1 || :
	grep -qx 'preload.installed=false' "$tmp/keys" ||
		{ cat "$tmp/keys"; fail "status --root read the preload file a link outside the tree leads to"; }
	grep -qx 'preload.loads=true' "$tmp/keys" &&
		{ cat "$tmp/keys"; fail "status --root loaded the library a link outside the tree leads to"; }
	# The same files inside the tree are read.
	rm "$tmp/root/etc" "$tmp/root/usr/lib/pmuguard"
	cp -r "$tmp/host/etc" "$tmp/root/etc"
	cp -r "$tmp/host/lib/pmuguard" "$tmp/root/usr/lib/pmuguard"
	PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge "$PMUGUARD" status --root "$tmp/root" --keys \
		>"$tmp/keys" 2>&1 || :
	if ! grep -qx 'preload.installed=true' "$tmp/keys" || ! grep -qx 'preload.loads=true' "$tmp/keys"; then
		cat "$tmp/keys"
		fail "status --root did not read the tree's own preload file"
	fi
	echo "ok: status --root reads the tree's files, and no link leads it out"
	;;
status-root-loader-as-nobody)
	# The loader's check under --root preloads the tree's library, whose
	# constructor is the tree's code: as root it runs as uid 65534.
	[ "$(id -u)" = 0 ] || skip "needs root (the drop to uid 65534)"
	command -v cc >/dev/null || skip "no C compiler for the tree's library"
	chmod 755 "$tmp"
	mkdir -p "$tmp/root/etc" "$tmp/root/usr/lib/pmuguard" "$tmp/mark"
	chmod 1777 "$tmp/mark"
	cat >"$tmp/ctor.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
extern char **environ;
/* Its uid, then the environment it was given, one variable a line: the
 * path is built in, since nothing of the caller's reaches it. */
__attribute__((constructor)) static void mark(void)
{
	int fd = open(MARK, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		dprintf(fd, "%u\n", (unsigned)getuid());
		for (char **e = environ; *e; e++)
			dprintf(fd, "%s\n", *e);
		close(fd);
	}
}
C
	cc -shared -fPIC -DMARK="\"$tmp/mark/uid\"" -o "$tmp/root/usr/lib/pmuguard/libpmuguard.so" \
		"$tmp/ctor.c" || skip "cannot build the tree's library"
	echo /usr/lib/pmuguard/libpmuguard.so >"$tmp/root/etc/ld.so.preload"
	# Root's secrets in the caller's environment must not reach the
	# tree's code (issue 38, item 2).
	AWS_SECRET_ACCESS_KEY=sekrit VAULT_TOKEN=sekrit PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge \
		"$PMUGUARD" status --root "$tmp/root" --keys >"$tmp/keys" 2>&1 || :
	[ -f "$tmp/mark/uid" ] || { cat "$tmp/keys"; fail "the loader's check did not run the library"; }
	[ "$(head -n 1 "$tmp/mark/uid")" = 65534 ] ||
		fail "the tree's library ran as uid $(head -n 1 "$tmp/mark/uid"), not 65534"
	! grep -q sekrit "$tmp/mark/uid" ||
		fail "the tree's library was given the caller's environment: $(grep sekrit "$tmp/mark/uid" | cut -d= -f1 | paste -sd ' ')"
	[ "$(sed 1d "$tmp/mark/uid" | grep -v '^LD_PRELOAD=' | paste -sd ' ')" = "PATH=/usr/sbin:/usr/bin:/sbin:/bin" ] ||
		fail "the tree's library got more than a fixed PATH: $(sed 1d "$tmp/mark/uid" | cut -d= -f1 | paste -sd ' ')"
	# A tree nobody may enter (a root-only image directory, mktemp's 0700)
	# and a library only root may read: a private copy of its bytes is
	# checked, still as uid 65534, and the copy is gone afterwards.
	rm "$tmp/mark/uid"
	chmod 600 "$tmp/root/usr/lib/pmuguard/libpmuguard.so"
	chmod 700 "$tmp/root"
	mkdir "$tmp/copies"
	TMPDIR=$tmp/copies PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge \
		"$PMUGUARD" status --root "$tmp/root" --keys >"$tmp/keys" 2>&1 || :
	[ "$(head -n 1 "$tmp/mark/uid" 2>/dev/null)" = 65534 ] ||
		{ cat "$tmp/keys"; fail "a library nobody can read was not checked as uid 65534"; }
	grep -qx 'preload.loads=true' "$tmp/keys" || { cat "$tmp/keys"; fail "its private copy was not taken by the loader"; }
	[ -z "$(ls -A "$tmp/copies" 2>/dev/null)" ] || fail "the private copy was left: $(ls -A "$tmp/copies")"
	echo "ok: the loader's check under --root runs the tree's library as uid 65534 with a fixed PATH alone, a private copy where nobody may read the tree"
	;;
status-textfile-hostile)
	# The textfile's directory and old file, and the reprobe's words, as
	# a hostile or broken caller leaves them.
	root=$tmp/root
	mkdir -p "$root/etc" "$tmp/m"
	st() { PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge timeout 30 "$PMUGUARD" status --root "$root" -q "$@"; }
	# An old file that is a FIFO (no writer) or a link to /dev/zero is
	# not read: status ends, and replaces it.
	mkfifo "$tmp/m/fifo.prom"
	rc=0; st --textfile "$tmp/m/fifo.prom" || rc=$?
	[ "$rc" != 124 ] || fail "status waited on a FIFO at the textfile's path"
	if [ ! -f "$tmp/m/fifo.prom" ] || [ -L "$tmp/m/fifo.prom" ]; then fail "the FIFO was not replaced"; fi
	ln -s /dev/zero "$tmp/m/zero.prom"
	rc=0; st --textfile "$tmp/m/zero.prom" || rc=$?
	[ "$rc" != 124 ] || fail "status read /dev/zero through a link at the textfile's path"
	if [ ! -f "$tmp/m/zero.prom" ] || [ -L "$tmp/m/zero.prom" ]; then fail "the link was not replaced"; fi
	# A directory others may write is refused (not sticky and root's).
	mkdir "$tmp/open" && chmod 777 "$tmp/open"
	status 1 st --textfile "$tmp/open/p.prom"
	grep -q 'writable by group or others' "$tmp/err" || { cat "$tmp/err"; fail "no reason for refusing $tmp/open"; }
	[ ! -e "$tmp/open/p.prom" ] || fail "a file was written in a directory others may write"
	# An exit status that is not a number is a usage error, not success.
	status 2 st --textfile "$tmp/m/p.prom" --reprobe-exit foo
	status 2 st --textfile "$tmp/m/p.prom" --reprobe-exit 256
	status 2 st --textfile "$tmp/m/p.prom" --reprobe-exit ''
	# The reprobe's error: every byte by the one rule, UTF-8, capped.
	long=$(printf 'x%.0s' $(seq 1 300))
	st --textfile "$tmp/m/p.prom" --reprobe-exit 1 --reprobe-error "$(printf 'bad\xff\x01"q\\ \n%s' "$long")"  || :
	python3 - "$tmp/m/p.prom" <<'PY' || fail "the reprobe's error is not a valid label"
import re, sys
data = open(sys.argv[1], 'rb').read()
text = data.decode('utf-8')  # node_exporter refuses a file that is not UTF-8
line = [l for l in text.splitlines() if l.startswith('pmuguard_reprobe_error_info{')][0]
m = re.fullmatch(r'pmuguard_reprobe_error_info\{exit="1",error="((?:[^"\\\n]|\\[\\"n])*)"\} 1', line)
assert m, line
value = re.sub(r'\\(.)', lambda g: {'n': '\n'}.get(g.group(1), g.group(1)), m.group(1))
assert value.startswith('bad\\xff\\x01"q\\x5c \\x0a'), value
assert len(value) <= 200 + 3 * 10, len(value)
PY
	echo "ok: the textfile survives a hostile directory, old file and reprobe error"
	;;
*)
	fail "unknown case $1"
	;;
esac
