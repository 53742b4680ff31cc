#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The cli suite, pmuguard run and check: the preload's order, the seccomp
# supervisor (killed, signals, a burst, SIGPIPE, outliving its command,
# one line per process), the auto mode, the library it loads, escaped
# values.
# The suite's preamble: lib.sh here.  run.sh CASE, or --list.
set -euo pipefail
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

case $1 in
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
run-audit-data-form)
	# Issue 43 (3): run --audit had only its table.  --json and --keys give
	# the same report as data through the command's one writer, on stderr
	# after the tree ended (stdout stays the command's): KEYS is JSON
	# flattened, the decisions are the table's.
	: "${PEO:?}"
	snap=$FIXTURES/m6i-16xlarge
	status 0 "$PMUGUARD" run --audit --json --snapshot "$snap" -- "$PEO" 4:0x400 0:1
	grep -q 'type=4 config=0x400' "$tmp/out" || fail "the command's stdout is not its own: $(cat "$tmp/out")"
	tail -n 1 "$tmp/err" >"$tmp/json"
	status 0 "$PMUGUARD" run --audit --keys --snapshot "$snap" -- "$PEO" 4:0x400 0:1
	sed -n '/^schema=1$/,$p' "$tmp/err" >"$tmp/keys"
	sed -i 's/^generated_at=.*/generated_at=T/' "$tmp/keys"
	python3 - "$tmp/json" <<'PY' || fail "the audit's JSON is wrong: $(cat "$tmp/json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == 1 and d["reached"] == "yes" and d["opened"] is True, d
enc = {(e["type"], e["config"]): e for e in d["encodings"]}
assert enc[(4, "0x400")]["decision"] == "would-be-denied" and "TOPDOWN.SLOTS" in enc[(4, "0x400")]["hit"], enc
assert enc[(0, "0x1")]["decision"] == "allowed" and enc[(0, "0x1")]["hit"] is None, enc
d["generated_at"] = "T"
json.dump(d, open(sys.argv[1], "w"))
PY
	same_document "$tmp/json" "$tmp/keys"
	status 0 "$PMUGUARD" run --audit --snapshot "$snap" -- "$PEO" 4:0x400 0:1
	grep -q '0x400 .*would be denied: TOPDOWN.SLOTS' "$tmp/err" || fail "the table changed: $(cat "$tmp/err")"
	status 2 "$PMUGUARD" run --json -- true
	status 2 "$PMUGUARD" run --audit --json --keys -- true
	ok "run --audit --json/--keys: the table's report as data, KEYS the JSON flattened, stdout the command's"
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
esac
