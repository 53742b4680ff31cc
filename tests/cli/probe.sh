#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The cli suite, pmuguard probe: --check exit codes, the JSON and --keys of
# every fixture (pinned whole, and against the schema), --dmesg, quiet
# checks, the container runtimes it names.
# The suite's preamble: lib.sh here.  probe.sh CASE, or --list.
set -euo pipefail
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

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
	# The version is pinned as @VERSION@ (a commit's own: scripts/version).
	version=$("$PMUGUARD" --version) version=${version#pmuguard }
	python3 - "$tmp/json" "$version" <<'PY' || bad=1
import difflib, json, os, sys
bad = False
for name in sorted(os.listdir(sys.argv[1])):
    printed = open(os.path.join(sys.argv[1], name), encoding="utf-8").read()
    try:
        pin = open(os.path.join(name, "report.json"), encoding="utf-8").read()
        pin = pin.replace('  "version": "@VERSION@",', '  "version": %s,' % json.dumps(sys.argv[2]), 1)
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
	# control characters and backslashes as \xHH, null empty (doc_keys.py,
	# the one copy of that rule the cases hold); first schema=4.
	export SOURCE_DATE_EPOCH=0 # two runs compared: the same generated_at
	mkdir "$tmp/keys"
	for w in "$FIXTURES"/*/; do
		name=$(basename "$w")
		"$PMUGUARD" probe --json --snapshot "$w" >"$tmp/keys/$name.json"
		"$PMUGUARD" probe --keys --snapshot "$w" >"$tmp/keys/$name.keys"
	done
	HERE=$(cd "$(dirname "$0")" && pwd) python3 - "$tmp/keys" <<'PY' || fail "--keys is not the JSON flattened"
import json, os, sys
sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.environ["HERE"])
from doc_keys import flatten
d = sys.argv[1]
names = sorted(n[:-5] for n in os.listdir(d) if n.endswith(".json"))
assert len(names) > 10, "the fixtures folder looks empty"
for name in names:
    want = flatten(json.load(open(f"{d}/{name}.json", encoding="utf-8")))
    text = open(f"{d}/{name}.keys", encoding="utf-8").read()
    assert text.endswith("\n"), f"{name}: no final newline"
    got = text[:-1].split("\n")
    assert got[0] == "schema=4", f"{name}: first line {got[0]!r}"
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
	python3 "$(dirname "$0")/../e2e/schema-check.py" "$(dirname "$0")/../../probe/doc/schema" \
		"$FIXTURES"/*/report.json "$tmp/live.json" "$tmp/dmesg.json" \
		"$FIXTURES"/*/enforce-start.json $enf >"$tmp/out"
	r=$?
	set -e
	[ "$r" != 77 ] || skip "$(cat "$tmp/out")"
	[ "$r" = 0 ] || fail "a document is not what its schema says: $(cat "$tmp/out")"
	grep -q 'checked, 0 error' "$tmp/out" || fail "nothing was checked: $(cat "$tmp/out")"
	ok "$(tail -n 1 "$tmp/out"): every pinned report and enforce start document, the live report, a log's and a start's match probe.schema.json and enforce.schema.json"
	;;
check-unread-is-no-verdict)
	# A read that failed is never "no hazard" (issue 50, item 1): a
	# snapshot the caller may not read (pmuguard snapshot writes 0700: a
	# colleague's, unpacked by root) exits 1 naming it, in every form; a
	# healthy world whose CPUID cannot be read exits 1, not 0; an m6i whose
	# kernel log cannot be read keeps its hazard (3); a file that is absent
	# is an unknown fact, as before (0 on a healthy world).
	as=()
	if [ "$(id -u)" = 0 ]; then
		as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
		"${as[@]}" true 2>/dev/null || skip "setpriv cannot switch to nobody here"
	fi
	chmod 755 "$tmp"
	cp -r "$FIXTURES/m6i-16xlarge" "$tmp/private"
	chmod 700 "$tmp/private"
	[ "$(id -u)" = 0 ] || chmod 000 "$tmp/private"
	for form in "--check -q" "--check" "" "--json" "--keys"; do
		# shellcheck disable=SC2086 # the form is words
		status 1 "${as[@]}" "$PMUGUARD" probe --snapshot "$tmp/private" $form
		grep -qF "$tmp/private" "$tmp/err" || fail "probe $form: exit 1 without naming the snapshot"
	done
	chmod 755 "$tmp/private"
	ok "an unreadable snapshot exits 1, naming it, with and without --check"

	cp -r "$FIXTURES/icx-8375c-metal" "$tmp/healthy"
	chmod -R a+rX "$tmp/healthy"
	status 0 "${as[@]}" "$PMUGUARD" probe --check -q --snapshot "$tmp/healthy"
	chmod 000 "$tmp/healthy/cpuid.txt"
	status 1 "${as[@]}" "$PMUGUARD" probe --check -q --snapshot "$tmp/healthy"
	grep -q 'cpuid.txt.*cannot be read' "$tmp/err" || fail "the error does not say what could not be read"
	status 1 "${as[@]}" "$PMUGUARD" probe --snapshot "$tmp/healthy"
	head -n 1 "$tmp/out" | grep -qF "$tmp/healthy" || fail "the report is not printed before the error"
	chmod 644 "$tmp/healthy/cpuid.txt"
	rm "$tmp/healthy/dmesg.txt"
	status 0 "${as[@]}" "$PMUGUARD" probe --check -q --snapshot "$tmp/healthy"
	ok "a healthy world whose CPUID cannot be read exits 1; one without a kernel log still 0"

	cp -r "$FIXTURES/m6i-16xlarge" "$tmp/m6i"
	chmod -R a+rX "$tmp/m6i"
	chmod 000 "$tmp/m6i/dmesg.txt"
	status 3 "${as[@]}" "$PMUGUARD" probe --check -q --snapshot "$tmp/m6i"
	ok "an m6i whose kernel log cannot be read keeps its hazard (exit 3)"
	;;
esac
