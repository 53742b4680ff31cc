#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The pmuguard command, unprivileged: exit codes, JSON validity, the
# snapshot round trip.  cli.sh CASE; needs $PMUGUARD and $FIXTURES.
set -euo pipefail
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
		case $name in
		m6i-16xlarge | m6i-16xlarge-oldkernel | m6i-no-sysfs | m6i-rotated-log | \
			m6i-empty-log | v5-guest-ecx-bitmap | hybrid-guest-hazard) want=3 ;;
		*) want=0 ;;
		esac
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
assert any(f["id"] == "fixed3-unimplemented" for f in d["findings"]) == d["hazard"]
PY
	done
	echo "ok: every fixture's JSON parses and carries the stable keys"
	;;
snapshot-round-trip)
	"$PMUGUARD" snapshot "$tmp/snap" 2>"$tmp/err" || fail "snapshot failed: $(cat "$tmp/err")"
	[ -s "$tmp/snap/cpuid.txt" ] || fail "no cpuid.txt"
	[ -d "$tmp/snap/sys/bus/event_source/devices" ] || fail "no sysfs mirror"
	# The report's first line names its source; JSON is one line, compared
	# whole minus its source keys.
	"$PMUGUARD" probe | sed 1d >"$tmp/live.txt"
	"$PMUGUARD" probe --snapshot "$tmp/snap" | sed 1d >"$tmp/snap.txt"
	"$PMUGUARD" probe --json | sed 's/"source":"[a-z]*","snapshot":[^,]*,//' >"$tmp/live.json"
	"$PMUGUARD" probe --json --snapshot "$tmp/snap" |
		sed 's/"source":"[a-z]*","snapshot":[^,]*,//' >"$tmp/snap.json"
	diff -u "$tmp/live.json" "$tmp/snap.json" || fail "JSON differs between live and snapshot"
	diff -u "$tmp/live.txt" "$tmp/snap.txt" || fail "report differs between live and snapshot"
	status 1 "$PMUGUARD" snapshot "$tmp/snap"
	grep -q "not empty" "$tmp/err" || fail "snapshot into a full directory: no clear error"
	echo "ok: snapshot -> probe equals the live probe ($(wc -l <"$tmp/live.txt") report lines)"
	;;
usage-errors)
	status 2 "$PMUGUARD"
	status 2 "$PMUGUARD" frobnicate
	status 2 "$PMUGUARD" probe --bogus
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
	grep -q 'preload mode for .*perf: dynamically linked and imports syscall' "$tmp/err" ||
		fail "auto mode did not pick preload for perf: $(cat "$tmp/err")"
	status 0 "$PMUGUARD" check "$PEO" "$(command -v perf)"
	grep -q 'guard: seccomp (statically linked' "$tmp/out" || fail "check output"
	status 1 "$PMUGUARD" check "$FIXTURES/m6i-16xlarge/cpuid.txt"
	grep -q 'not an ELF binary' "$tmp/err" || fail "check on a text file: no clear error"
	echo "ok: auto picks seccomp for static, preload for perf; check explains"
	;;
check-never-blocks)
	# Issue 10 item 9.  Before: `check FIFO` and `run -- ./FIFO` waited
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
	# Issue 10 item 9.  Before: PMUGUARD_LIB=/etc/passwd ran CMD with the
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
*)
	fail "unknown case $1"
	;;
esac
