#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Hostile inputs and hostile timing for the command, the shim and the
# seccomp supervisor.
#
#   hostile.sh CASE
#
# snapshot-junk             junk snapshots: bounded, no crash, clear errors,
#                           fail open on junk CPUID, hazard kept on junk sysfs
# valgrind-cli              the command under valgrind: no errors, no leaks
# supervisor-races          targets leaving while their threads are notified
# supervisor-pid-namespace  the target in another pid namespace
# report-control-bytes      terminal control bytes in a snapshot (its path,
#                           events/slots, DMI, a kernel log line) reach no
#                           report raw: text, --keys, --json
#
# Exit: 0 pass, 1 fail, 77 skip (a failure when PMUGUARD_TESTS_MUST_RUN=1).
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
if [ "${1:-}" = --list ]; then list_cases "$0" case_name; exit 0; fi
: "${PMUGUARD:?path to the pmuguard command}" "${FIXTURES:?path to tests/snapshots}"
: "${LIB:?path to libpmuguard.so}" "${PEO:?path to peo}" "${PEO_DYN:?path to peo-dyn}"
: "${RACER:?path to racer}"
case_name=${1:?usage: hostile.sh CASE}

M6I=$FIXTURES/m6i-16xlarge
CPU=sys/bus/event_source/devices/cpu
BOUND=20 # seconds any one command may take
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

failures=0
bad() { # a failure that does not stop the case: every variant gets its say
	echo "FAIL: $*"
	failures=$((failures + 1))
}
finish() {
	[ "$failures" = 0 ] || fail "$failures failure(s) in $case_name"
	echo "PASS: $case_name"
}

tmp=$(mktemp -d)
chmod 755 "$tmp" # the unprivileged runs must reach into it
cleanup() {
	chmod -R u+rwX "$tmp" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# bounded LABEL CMD...: run CMD with stdin closed, stdout/stderr in
# $tmp/out and $tmp/err, at most $BOUND seconds.  Sets $rc.  Returns 1
# (after reporting) on a hang, a death by signal, or an exit other than 0/1.
bounded() {
	local label=$1 start
	shift
	start=$(date +%s)
	rc=0
	timeout -k 5 "$BOUND" "$@" </dev/null >"$tmp/out" 2>"$tmp/err" || rc=$?
	case $rc in
	0 | 1) return 0 ;;
	esac
	if [ "$rc" -ge 124 ] && [ $(($(date +%s) - start)) -ge "$BOUND" ]; then
		bad "$label: hang (still running after ${BOUND}s)"
	elif [ "$rc" -ge 128 ]; then
		bad "$label: crash (killed by signal $((rc - 128)))"
	else
		bad "$label: exit $rc, expected 0 or 1"
	fi
	sed 's/^/    /' "$tmp/err" | head -n 5
	return 1
}

# ---- snapshot-junk ----------------------------------------------------------

# The JSON report's verdict as "HAZARD STATE CPU-TYPE" (CPU-TYPE "-" when no
# core PMU named cpu was read); exits non-zero on invalid JSON.
json_verdict() {
	python3 -m json.tool "$1" >/dev/null 2>&1 || return 1
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cpu = [p["type"] for p in d["pmus"] if p["name"] == "cpu"]
# The guard acts on guard_state (a verdict from the kernel log alone is the
# report's only): the shim is compared with it.
print("true" if d["hazard"] is True else "false", d["state"], cpu[0] if cpu else "-",
      "true" if d["guard_state"] == "hazard" else "false")
PY
}

# The JSON without its "snapshot" key, for comparing two snapshots' reports.
json_sans_snapshot() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d.pop("snapshot", None)
d.pop("generated_at", None)  # when, not what
print(json.dumps(d, sort_keys=True))
PY
}

# junk NAME EXPECT [nobody]: the three commands on the snapshot in $d.
#   EXPECT  hazard    the m6i hazard stands: "hazard":true, the shim denies 4:0x400
#           failopen  "hazard":false (or the command refuses the snapshot),
#                     the shim lets 4:0x400 through to the kernel (EINVAL)
#           typeless  as hazard, and no core PMU "cpu" with a type (the junk
#                     type file must leave the type unknown)
#           same      as hazard, and the JSON equal to the pristine copy's
#           any       no claim on the verdict beyond the invariants below
# Invariants: bounded, exit 0/1, an exit 1 names the snapshot, JSON parses,
# the state is hazard or unknown (junk can only hide facts of an m6i, never
# make it safe), the shim denies 4:0x400 exactly when the JSON says hazard
# (and fails open when the command refuses the snapshot), and 4:0x1a4
# always reaches the kernel.
junk() {
	local name=$1 expect=$2 who=() label hazard=- state=- ctype=- guard=- refused=0 e400 e1a4
	local before=$failures
	[ "${3:-}" = nobody ] && [ "$(id -u)" = 0 ] && who=("${NOBODY[@]}")
	label="$name${3:+ (as nobody)}"
	local short=$d
	[ ${#short} -le 120 ] || short="${d:0:60}...(${#d} chars)"

	# 1. The human report.
	if bounded "$label: probe" "${who[@]}" "$PMUGUARD" probe --snapshot "$d"; then
		if [ "$rc" = 1 ]; then
			refused=1
			grep -qF -- "$d" "$tmp/err" ||
				bad "$label: probe exits 1 without naming the snapshot: $(head -c 300 "$tmp/err")"
		elif ! head -n 1 "$tmp/out" | grep -qF -- "$d"; then
			bad "$label: the report's first line does not name the snapshot"
		fi
	fi
	# 2. JSON.
	if bounded "$label: probe --json" "${who[@]}" "$PMUGUARD" probe --json --snapshot "$d"; then
		if [ "$rc" = 1 ]; then
			[ "$refused" = 1 ] || bad "$label: probe --json refuses what probe accepted"
			grep -qF -- "$d" "$tmp/err" ||
				bad "$label: probe --json exits 1 without naming the snapshot"
		else
			[ "$refused" = 0 ] || bad "$label: probe --json accepts what probe refused"
			cp "$tmp/out" "$tmp/json"
			local v
			if ! v=$(json_verdict "$tmp/json"); then
				bad "$label: probe --json is not valid JSON: $(head -c 300 "$tmp/json")"
			else
				read -r hazard state ctype guard <<<"$v"
			fi
		fi
	fi
	# 3. The shim.
	if bounded "$label: shim" "${who[@]}" env LD_PRELOAD="$LIB" PMUGUARD_SNAPSHOT="$d" \
		PMUGUARD_LOG=warn "$PEO_DYN" 4:0x400 4:0x1a4; then
		[ "$rc" = 0 ] || bad "$label: peo-dyn exited $rc under the shim"
		e400=$(sed -n 's/^type=4 config=0x400 errno=//p' "$tmp/out")
		e1a4=$(sed -n 's/^type=4 config=0x1a4 errno=//p' "$tmp/out")
		[ "$e1a4" = EINVAL ] || bad "$label: shim: 4:0x1a4 got '$e1a4', expected the kernel's EINVAL"
		case $e400 in
		ENOENT | EINVAL) ;;
		*) bad "$label: shim: 4:0x400 got '$e400', expected ENOENT or EINVAL" ;;
		esac
		if [ "$guard" = true ] && [ "$e400" != ENOENT ]; then
			bad "$label: the report's guard_state is hazard but the shim let 4:0x400 through ($e400)"
		elif [ "$guard" = false ] && [ "$e400" != EINVAL ]; then
			bad "$label: the report's guard_state is not hazard but the shim denied 4:0x400 ($e400)"
		elif [ "$refused" = 1 ] && [ "$e400" != EINVAL ]; then
			bad "$label: the command refuses the snapshot but the shim denied 4:0x400 ($e400)"
		fi
	fi

	case $state in
	- | hazard | unknown) ;;
	*) bad "$label: state '$state': junk made the m6i world look $state" ;;
	esac
	case $expect in
	hazard | typeless | same)
		[ "$hazard" = true ] || bad "$label: expected \"hazard\":true, got hazard=$hazard state=$state" ;;
	failopen)
		# The report may say hazard from the m6i's kernel log (its basis is
		# then kernel-log); the guard must not act on it.
		[ "$guard" != true ] || bad "$label: junk CPUID must fail open, got guard_state hazard" ;;
	esac
	if [ "$expect" = typeless ] && [ "$ctype" != - ]; then
		bad "$label: a junk cpu/type file was read as perf type $ctype"
	fi
	if [ "$expect" = same ] && [ -s "$tmp/json" ] &&
		[ "$(json_sans_snapshot "$tmp/json")" != "$(json_sans_snapshot "$tmp/pristine.json")" ]; then
		bad "$label: the report differs from the pristine m6i snapshot's"
	fi
	rm -f "$tmp/json"
	local seen="hazard=$hazard state=$state guard=$guard cpu-type=$ctype shim 4:0x400=${e400:-?} [$short]"
	if [ "$failures" = "$before" ]; then
		ok "$label: $seen"
	else
		echo "   ($label: $seen)"
	fi
}

fresh() { # NAME: a new copy of the m6i world; its path in $d
	d=$tmp/v/$1
	mkdir -p "$tmp/v"
	cp -r "$M6I" "$d"
}
# deep_copy BASE LEN: a copy of the m6i world at a path of exactly LEN
# characters under BASE, built one relative step at a time (so past
# PATH_MAX too); prints the path.
deep_copy() {
	(
		set -e
		mkdir -p "$1"
		cd "$1"
		local seg left
		seg=$(printf 'd%.0s' $(seq 255)) # NAME_MAX
		while left=$(($2 - ${#PWD} - 5)) && [ "$left" -gt 0 ]; do # "/" + "/m6i" to come
			[ "$left" -le 255 ] || left=200
			mkdir -p "${seg:0:$left}"
			cd "${seg:0:$left}"
		done
		[ -d m6i ] || cp -r "$M6I" m6i
		echo "$PWD/m6i"
	)
}
done_with() { chmod -R u+rwX "$d" 2>/dev/null || true; rm -rf "$d"; }

snapshot_junk() {
	# The pristine copy first: the baseline every variant is measured by.
	fresh pristine
	d0=$d
	"$PMUGUARD" probe --json --snapshot "$d0" >"$tmp/pristine.json"
	[ "$(json_verdict "$tmp/pristine.json")" = "true hazard 4 true" ] ||
		fail "the pristine m6i copy is not the hazard world: $(json_verdict "$tmp/pristine.json")"
	junk pristine same

	# -- CPUID junk: fail open.
	fresh cpuid-64MiB-one-line
	head -c $((64 << 20)) /dev/zero | tr '\0' 'x' >"$d/cpuid.txt"
	junk cpuid-64MiB-one-line failopen
	done_with

	fresh cpuid-real-then-64MiB-line # the facts are near the start: still read
	head -c $((64 << 20)) /dev/zero | tr '\0' 'x' >>"$d/cpuid.txt"
	junk cpuid-real-then-64MiB-line hazard
	done_with

	fresh cpuid-urandom
	head -c $((2 << 20)) /dev/urandom >"$d/cpuid.txt"
	junk cpuid-urandom failopen
	done_with

	fresh cpuid-symlink-loop
	rm "$d/cpuid.txt"
	ln -s loop-b "$d/cpuid.txt"
	ln -s cpuid.txt "$d/loop-b"
	junk cpuid-symlink-loop failopen
	done_with

	fresh cpuid-dev-zero
	ln -sf /dev/zero "$d/cpuid.txt"
	junk cpuid-dev-zero failopen
	done_with

	fresh cpuid-fifo
	rm "$d/cpuid.txt"
	mkfifo "$d/cpuid.txt"
	junk cpuid-fifo failopen
	done_with

	fresh cpuid-directory
	rm "$d/cpuid.txt"
	mkdir "$d/cpuid.txt"
	junk cpuid-directory failopen
	done_with

	# The hypervisor's vendor string with JSON and terminal metacharacters.
	fresh cpuid-hv-vendor-metachars
	sed -i 's/^\(   0x40000000 0x00: eax=0x40000001\) ebx=0x[0-9a-f]* ecx=0x[0-9a-f]* edx=0x[0-9a-f]*/\1 ebx=0x0a5c2241 ecx=0x7f1bff80 edx=0x00002009/' \
		"$d/cpuid.txt"
	grep -q 'ebx=0x0a5c2241' "$d/cpuid.txt" || fail "could not plant the vendor string"
	junk cpuid-hv-vendor-metachars hazard
	done_with

	# -- Kernel log junk: proves nothing, so the guest's hazard stands.
	fresh dmesg-urandom
	head -c $((2 << 20)) /dev/urandom >"$d/dmesg.txt"
	junk dmesg-urandom hazard
	done_with

	fresh dmesg-fifo
	rm "$d/dmesg.txt"
	mkfifo "$d/dmesg.txt"
	junk dmesg-fifo hazard
	done_with

	fresh dmesg-dev-zero
	ln -sf /dev/zero "$d/dmesg.txt"
	junk dmesg-dev-zero hazard
	done_with

	# -- No trailing newline anywhere: the same facts, the same report.
	fresh no-trailing-newlines
	python3 - "$d" <<'PY'
import os, sys
for root, _, files in os.walk(sys.argv[1]):
    for f in files:
        p = os.path.join(root, f)
        b = open(p, "rb").read()
        if b.endswith(b"\n"):
            open(p, "wb").write(b.rstrip(b"\n"))
PY
	[ "$(tail -c 1 "$d/cpuid.txt" | od -An -c | tr -d ' ')" != '\n' ] || fail "newline not stripped"
	junk no-trailing-newlines same
	done_with

	# -- sysfs type junk: in a guest sysfs proves nothing, the hazard stands;
	# the junk must leave the cpu PMU's type unknown.
	local i=0
	local pad40='                                        '
	for content in '99999999999999999999' '-1' '4garbage' '' '0x4' ' 4' '4 4' '4294967296' \
		"4${pad40}garbage"; do
		i=$((i + 1))
		fresh "type-junk-$i"
		printf '%s\n' "$content" >"$d/$CPU/type"
		echo "   (type-junk-$i: cpu/type is '$content')"
		junk "type-junk-$i" typeless
		done_with
	done
	fresh type-nul
	printf '\0' >"$d/$CPU/type"
	junk type-nul typeless
	done_with

	fresh type-nul-then-junk # "4" NUL "garbage": not a number either
	printf '4\0garbage\n' >"$d/$CPU/type"
	junk type-nul-then-junk typeless
	done_with

	fresh type-directory
	rm "$d/$CPU/type"
	mkdir "$d/$CPU/type"
	junk type-directory typeless
	done_with

	fresh type-fifo
	rm "$d/$CPU/type"
	mkfifo "$d/$CPU/type"
	junk type-fifo typeless
	done_with

	fresh type-dev-zero
	ln -sf /dev/zero "$d/$CPU/type"
	junk type-dev-zero typeless
	done_with

	fresh slots-directory # events/slots as a directory, a topdown event a FIFO
	mkdir "$d/$CPU/events/slots"
	mkfifo "$d/$CPU/events/topdown-retiring"
	junk slots-directory hazard
	done_with

	# -- Long paths: 4000 characters (below PATH_MAX), then past PATH_MAX.
	d=$(deep_copy "$tmp/v/long" 4000)
	[ ${#d} = 4000 ] || fail "the long path is ${#d} characters, not 4000"
	junk "path-${#d}-chars" any
	d=$(deep_copy "$tmp/v/long" 4500)
	[ ${#d} = 4500 ] || fail "the over-long path is ${#d} characters, not 4500"
	junk "path-${#d}-chars" any
	rm -rf "${tmp:?}/v/long"

	# -- Unreadable to the caller: chmod 000, the commands run as nobody
	# (as root, DAC would not stop us); a non-root caller is refused anyway.
	if [ "$(id -u)" = 0 ] && ! "${NOBODY[@]}" true 2>/dev/null; then
		bad "unreadable files: setpriv cannot switch to nobody here"
	else
		fresh unreadable-cpuid
		chmod 000 "$d/cpuid.txt"
		junk unreadable-cpuid failopen nobody
		done_with

		fresh unreadable-dmesg
		chmod 000 "$d/dmesg.txt"
		junk unreadable-dmesg hazard nobody
		done_with

		fresh unreadable-type
		chmod 000 "$d/$CPU/type"
		junk unreadable-type typeless nobody
		done_with

		fresh unreadable-sys-dir
		chmod 000 "$d/sys"
		junk unreadable-sys-dir typeless nobody
		done_with

		fresh unreadable-everything
		find "$d" -type f -exec chmod 000 {} +
		junk unreadable-everything failopen nobody
		done_with

		fresh unreadable-snapshot-dir
		chmod 000 "$d"
		junk unreadable-snapshot-dir failopen nobody
		done_with

		fresh untraversable-snapshot-dir
		chmod 644 "$d" # readable, not searchable
		junk untraversable-snapshot-dir failopen nobody
		done_with
	fi
	finish
}

# ---- valgrind-cli -------------------------------------------------------------

valgrind_cli() {
	command -v valgrind >/dev/null || skip "valgrind is not installed (Debian package valgrind)"
	local vg=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite)
	local runs=0
	# vg_run WANT LABEL ARGS...: WANT is the exit status expected (a list).
	vg_run() {
		local want=$1 label=$2 rc=0
		shift 2
		runs=$((runs + 1))
		# (The portable command is static: memcheck reads its dynamic twin.)
		timeout -k 5 300 "${vg[@]}" "${PMUGUARD_MEMCHECK:-$PMUGUARD}" "$@" </dev/null >"$tmp/out" 2>"$tmp/err" || rc=$?
		if [ "$rc" = 99 ]; then
			bad "$label: valgrind reports errors or definite leaks"
			sed 's/^/    /' "$tmp/err" | head -n 40
		elif ! [[ " $want " == *" $rc "* ]]; then
			bad "$label: exit $rc, expected $want"
			sed 's/^/    /' "$tmp/err" | head -n 10
		elif grep -q '^==[0-9]*==' "$tmp/err"; then
			bad "$label: valgrind printed diagnostics"
			sed 's/^/    /' "$tmp/err" | head -n 40
		else
			ok "$label (exit $rc)"
		fi
	}
	for w in "$FIXTURES"/*/; do
		vg_run 0 "probe --snapshot $(basename "$w")" probe --snapshot "$w"
		vg_run 0 "probe --json --snapshot $(basename "$w")" probe --json --snapshot "$w"
		vg_run "0 3" "probe --check --snapshot $(basename "$w")" probe --check --snapshot "$w"
	done
	# A junk world too: CPUID lines then random bytes, a random kernel log.
	mkdir -p "$tmp/junk"
	cp -r "$M6I/." "$tmp/junk"
	head -c $((1 << 20)) /dev/urandom >>"$tmp/junk/cpuid.txt"
	head -c $((1 << 20)) /dev/urandom >"$tmp/junk/dmesg.txt"
	vg_run 0 "probe --snapshot (random bytes)" probe --snapshot "$tmp/junk"
	vg_run 0 "probe --json --snapshot (random bytes)" probe --json --snapshot "$tmp/junk"
	vg_run 0 "probe (live)" probe
	vg_run 0 "probe --json (live)" probe --json
	vg_run 0 "check /usr/bin/perf peo" check /usr/bin/perf "$PEO"
	vg_run 1 "check on a text file" check "$M6I/cpuid.txt"
	mkfifo "$tmp/fifo"
	vg_run 1 "check on a FIFO" check "$tmp/fifo"
	head -c 1000 "$PEO" >"$tmp/trunc"
	vg_run 1 "check on a truncated ELF" check "$tmp/trunc"
	PMUGUARD_LIB=/etc/passwd vg_run 1 "run with PMUGUARD_LIB=/etc/passwd" run --mode preload -- true
	# seccomp cannot be emulated by valgrind: auto mode must fail closed.
	vg_run 1 "run (auto) where no filter can be installed" run -- "$PEO_DYN" 1:0
	vg_run 0 "snapshot DIR" snapshot "$tmp/s"
	vg_run 1 "snapshot into a full DIR" snapshot "$tmp/s"
	vg_run 0 "probe --snapshot (the fresh snapshot)" probe --snapshot "$tmp/s"
	vg_run 0 "--help" --help
	vg_run 1 "probe --snapshot /nonexistent" probe --snapshot /nonexistent
	vg_run 2 "probe --bogus" probe --bogus
	vg_run 2 "no command"
	echo "($runs runs under valgrind)"
	finish
}

# ---- supervisor-races ---------------------------------------------------------

supervisor_races() {
	local mode want n=20 it rc start
	for mode in exit:5 exec:0 kill:137; do
		want=${mode#*:}
		mode=${mode%%:*}
		for it in $(seq "$n"); do
			rc=0
			start=$(date +%s)
			PMUGUARD_SNAPSHOT=$M6I PMUGUARD_LOG=quiet timeout -k 5 "$BOUND" \
				"$PMUGUARD" run --mode seccomp -- "$RACER" "$mode" 8 $((it % 4 * 40)) \
				</dev/null >"$tmp/out" 2>"$tmp/err" || rc=$?
			if [ "$rc" != "$want" ]; then
				if [ "$rc" -ge 124 ] && [ $(($(date +%s) - start)) -ge "$BOUND" ]; then
					bad "racer $mode, iteration $it: pmuguard hung (killed after ${BOUND}s)"
				else
					bad "racer $mode, iteration $it: pmuguard exited $rc, expected $want"
				fi
				sed 's/^/    /' "$tmp/err" | head -n 5
				break
			fi
			if [ -s "$tmp/err" ]; then
				bad "racer $mode, iteration $it: unexpected output: $(head -c 300 "$tmp/err")"
				break
			fi
		done
		[ "$it" = "$n" ] && [ "$rc" = "$want" ] &&
			ok "racer $mode: $n runs, 8 threads calling perf_event_open (0-120 calls in) as the target left: exit $want each"
	done
	finish
}

# ---- supervisor-pid-namespace -------------------------------------------------

supervisor_pid_namespace() {
	unshare -p -f --mount-proc true 2>/dev/null || skip "unshare -p is not permitted here"
	local rc=0
	PMUGUARD_SNAPSHOT=$M6I PMUGUARD_LOG=warn timeout -k 5 "$BOUND" \
		"$PMUGUARD" run --mode seccomp -- unshare -p -f --mount-proc "$PEO" 4:0x400 1:0 \
		</dev/null >"$tmp/out" 2>"$tmp/err" || rc=$?
	cat "$tmp/out"
	[ "$rc" = 0 ] || fail "exit $rc, expected 0: $(cat "$tmp/err")"
	grep -q '^type=4 config=0x400 ret=-1 errno=ENOENT$' "$tmp/out" ||
		fail "4:0x400 was not denied with ENOENT in the inner pid namespace"
	grep -q '^type=1 config=0x0 ret=fd errno=0$' "$tmp/out" ||
		fail "1:0 did not open in the inner pid namespace"
	grep -q '^pmuguard: blocked perf_event_open(type=4, config=0x400) in peo\[' "$tmp/err" ||
		fail "the denial was not logged with the program's name: $(cat "$tmp/err")"
	ok "across a pid namespace: 4:0x400 denied (ENOENT), 1:0 opened"
	echo "PASS: $case_name"
}

# ---- report-control-bytes -----------------------------------------------------

# screen_safe FILE: the bytes are UTF-8 whose only control character is
# the newline (no C0 but \n, no DEL, no C1 in either form, no lone 0x9b):
# nothing in it can clear a screen or move a cursor.
screen_safe() {
	python3 - "$1" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
try:
    t = b.decode("utf-8")
except UnicodeDecodeError as e:
    print(f"not UTF-8 at byte {e.start}: {b[max(0, e.start - 20):e.start + 4]!r}")
    sys.exit(1)
bad = [(i, hex(ord(c))) for i, c in enumerate(t)
       if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f]
if bad:
    print(f"control characters {bad[:8]}: {t[max(0, bad[0][0] - 40):bad[0][0] + 20]!r}")
    sys.exit(1)
PY
}

report_control_bytes() {
	# ESC [2J clears the screen, CR returns to the line's start, the
	# newline and "Verdict: safe" would print a verdict of its own, BEL
	# rings, 0x9b and U+009B are CSI to a terminal that takes C1.
	local evil=$'\e[2J\r\nVerdict: safe\a\x9b\xc2\x9b'
	d=$tmp/v/m6i-$evil
	mkdir -p "$tmp/v"
	cp -r "$M6I" "$d"
	printf 'event=0x00,umask=0x4%s\n' "$evil" >"$d/$CPU/events/slots"
	printf 'm6i.16xlarge%s\n' "$evil" >"$d/dmi/product_name"
	# A quoted line of the PMU driver's block ("\x0a" is how a kmsg
	# record escapes a newline), with a serial console's ESC [2J and CR
	# before it (the paste reader drops escape sequences, and keeps what
	# follows a line's last CR, as the console showed it).
	python3 - "$d/dmesg.txt" <<'PY'
import sys
p = sys.argv[1]
b = open(p, "rb").read()
mark = b"Intel PMU driver."
assert mark in b
b = b.replace(b"Performance Events:", b"\x1b[2J\rPerformance Events:", 1)
b = b.replace(mark, mark + b"\x1b[2J\x07\x9b\xc2\x9b\\x0aVerdict: safe", 1)
open(p, "wb").write(b)
PY

	if bounded "probe" "$PMUGUARD" probe --snapshot "$d" && [ "$rc" = 0 ]; then
		local why n
		why=$(screen_safe "$tmp/out") || bad "probe: the report holds raw control bytes: $why"
		n=$(grep -c '^Verdict:' "$tmp/out" || true)
		[ "$n" = 1 ] || bad "probe: $n lines start with 'Verdict:', expected the renderer's one"
		grep -q '^Verdict: hazard ' "$tmp/out" || bad "probe: the verdict line is not the hazard's"
		grep -qF 'events/slots: event=0x00,umask=0x4\x1b[2J\x0d\x0aVerdict: safe\x07\x9b\xc2\x9b' \
			"$tmp/out" || bad "probe: events/slots is not shown, escaped: $(grep -a 'events/slots' "$tmp/out")"
		grep -qF 'Intel PMU driver.\x9b\xc2\x9b\x5cx0aVerdict: safe' "$tmp/out" ||
			bad "probe: the quoted log line is not shown, escaped: $(grep -a 'Intel PMU driver' "$tmp/out")"
		head -n 1 "$tmp/out" | grep -qF "m6i-\\x1b[2J\\x0d\\x0aVerdict" ||
			bad "probe: the first line does not name the snapshot, escaped: $(head -n 1 "$tmp/out")"
		[ "$failures" != 0 ] || ok "probe: one Verdict line, no raw control byte; the values shown escaped"
	else
		bad "probe exited $rc: $(head -c 300 "$tmp/err")"
	fi

	local before=$failures
	"$PMUGUARD" probe --keys --snapshot "$M6I" | sed 's/=.*//' >"$tmp/keys.pristine"
	if bounded "probe --keys" "$PMUGUARD" probe --keys --snapshot "$d" && [ "$rc" = 0 ]; then
		local why
		why=$(screen_safe "$tmp/out") || bad "probe --keys: raw control bytes: $why"
		grep -vqE '^[a-z0-9_.]+=' "$tmp/out" &&
			bad "probe --keys: a line that is no KEY=: $(grep -avE '^[a-z0-9_.]+=' "$tmp/out" | head -n 3)"
		sed 's/=.*//' "$tmp/out" | diff "$tmp/keys.pristine" - >"$tmp/keys.diff" ||
			bad "probe --keys: the keys differ from the pristine m6i's: $(head -n 6 "$tmp/keys.diff")"
		[ "$failures" != "$before" ] || ok "probe --keys: the pristine m6i's keys, no injected line, no raw control byte"
	else
		bad "probe --keys exited $rc: $(head -c 300 "$tmp/err")"
	fi

	before=$failures
	if bounded "probe --json" "$PMUGUARD" probe --json --snapshot "$d" && [ "$rc" = 0 ]; then
		local why
		why=$(screen_safe "$tmp/out") || bad "probe --json: raw control bytes: $why"
		python3 - "$tmp/out" <<'PY' || bad "probe --json: not the values, escaped (RFC 8259)"
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
assert "\x1b[2J\r\nVerdict: safe\x07" in d["snapshot"], d["snapshot"]
assert "\x9b" in d["snapshot"], d["snapshot"]  # U+009B, written \u009b
assert d["state"] == "hazard", d["state"]
PY
		[ "$failures" != "$before" ] || ok "probe --json: parses, control characters as \\u escapes"
	else
		bad "probe --json exited $rc: $(head -c 300 "$tmp/err")"
	fi
	finish
}

case $case_name in
snapshot-junk) snapshot_junk ;;
valgrind-cli) valgrind_cli ;;
supervisor-races) supervisor_races ;;
supervisor-pid-namespace) supervisor_pid_namespace ;;
report-control-bytes) report_control_bytes ;;
*) fail "unknown case $case_name" ;;
esac
