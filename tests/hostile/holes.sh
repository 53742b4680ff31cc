#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The holes an adversarial pass found in the preload, each proven
# closed with the real loader, the real shim and tests/hostile/holes.c in the
# m6i world under faultsim.  Where a hole is a bypass, the same program
# without the shim first reaches the simulated fault, so the guarded run
# proves something.
#
#   holes.sh CASE
#
# tiny-stacks               first call on a 16 KiB thread stack and on an
#                           8 KiB sigaltstack, hazardous and healthy worlds;
#                           the shim's peak below the caller within 2 KiB
# syscall-number-high-bits  syscall(0x100000000|nr), syscall(0x40000000|nr)
# own-sandbox               the process forbids itself process_vm_readv and
#                           open/openat (and mmap): fail closed
# two-copies                two different files of the library in one process
#                           (ld.so.preload's and another in LD_PRELOAD): one
#                           claims libc's symbol, the other forwards to it;
#                           no loop, slots denied, errno set
# sandbox-kills-vm-readv    the process's own filter kills at process_vm_readv
#                           (SystemCallFilter='s default): an ordinary event
#                           still opens, slots is still denied, nothing dies
# sandbox-kills-vm-readv-without-proc
#                           the same in a mount namespace without /proc: the
#                           kernel's own copy of the attr is asked instead
# pidns-self-mem            a new pid namespace with the parent's /proc: the
#                           attr is read through /proc/self/mem, not /proc/1
# fd-limit                  at EMFILE nothing is kept: every call denied
# lock-at-fd-limit          lock = yes holds when the file cannot be read
# policy-others-can-write   /etc/pmuguard.conf mode 0666 (or in a directory
#                           others can write): what another user writes
#                           into it (mode = off) does not switch the guard
#                           off; lock = yes in it still holds
# stderr-replaced           fd 2 closed and reopened as a data file
# ld-preload-twice          LD_PRELOAD twice in the environment: the loader
#                           takes the last, and so does the shim: where the
#                           last names it, lines go to fd 2; where only the
#                           first does (the library came by ld.so.preload),
#                           fd 2 is never written
# preinit                   a call before libc set up the environment
# substitute-private-copy   slots = substitute: the kernel gets TOPDOWN.SLOTS_P
#                           with every other bit kept, the caller's attr
#                           stays byte for byte what it was
# ld-so-launcher            the program started as ld.so PROGRAM (a launcher
#                           in front): libc is still found, slots denied,
#                           errno set through libc's own errno
# clearenv                  a program that empties its environment: the state
#                           is built once and kept, not probed at every call
# vfork-log-once            a vfork child's block is denied and logged once
#                           with its parent's: no line said twice
# descriptor-reused-for-a-device  the kept number reused for /dev/kmsg: the
#                           shim reads no record of the program's
# close-every-descriptor    every descriptor closed between two calls and
#                           /dev/zero put on the numbers: still denied
# fork-between-calls        a fork between two calls: the child judged by its
#                           own memory (the parent's says cycles), the
#                           parent's descriptor closed in the child
# fork-drops-privilege      a root parent's call, then a fork; the child
#                           drops to nobody without exec: no descriptor it
#                           inherited reads its parent's memory (a secret
#                           written after the fork); the same for a parent
#                           whose privilege is capabilities only
# threads-race-first-call   16 threads released onto the first call together
# dlopen-heap-environ       the shim loaded by dlopen() after setenv() moved
#                           the environment to the heap (no initial stack to
#                           read the auxiliary vector from: /proc/self/auxv)
# libc-scope-lookups        slots through dlsym() on libc's handle, dlvsym()
#                           and a plugin loaded RTLD_DEEPBIND (RTLD_NOW and
#                           RTLD_LAZY): libc's own symbol names the shim
# python-ctypes-libc        ctypes.CDLL("libc.so.6").syscall, the ordinary
#                           idiom: the same lookup in libc's scope
# libc-scope-exec-layout    the same lookups (and ctypes) with a libc whose
#                           symbol table lies in an executable segment, the
#                           layout of binutils before 2.31 (Amazon Linux 2,
#                           RHEL 7): this libc, its first PT_LOAD marked R E
# dlmopen-under-run         a plugin in a new namespace (dlmopen LM_ID_NEWLM)
#                           has a libc of its own: the preload does not
#                           reach it (a README limit, shown), pmuguard run
#                           (auto) does
# second-libc-by-path       a second file of libc dlopen()ed by its path:
#                           the preload does not reach its syscall (a README
#                           limit, shown), pmuguard run (auto) does
# early-dependency          a library the program links keeps libc's
#                           syscall() (dlsym on libc's handle) in its
#                           constructor, which runs before the shim's
# audit-sees-the-host-preload
#                           `pmuguard run --audit` on a host whose
#                           /etc/ld.so.preload already guards: the calls the
#                           preload answered in the process are in the table
# undelivered-report-counted a report neither journald nor /dev/log takes
#                           is counted, and the next one delivered says so
#                           (its text and PMUGUARD_UNDELIVERED), with the
#                           journal fields (MESSAGE_ID, layer, encoding)
# run-cookie-is-judged      a static program under pmuguard run (auto, the
#                           preload too) passes the run's cookie as the
#                           sixth argument of its own raw perf_event_open:
#                           the supervisor judges it anyway (slots ENOENT)
#
# Exit: 0 pass, 1 fail, 77 skip (a failure when PMUGUARD_TESTS_MUST_RUN=1).
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
if [ "${1:-}" = --list ]; then list_cases "$0" case_name; exit 0; fi
: "${FIXTURES:?}" "${LIB:?}" "${HOLES:?}" "${FAULTSIM:?}" "${HOLES_PLUGIN:?}"
here=$(cd "$(dirname "$0")" && pwd)
e2e=$here/../e2e
case_name=${1:?usage: holes.sh CASE}

[ "$(id -u)" = 0 ] || skip "needs root for a private mount namespace (unshare -m)"
unshare -m true 2>/dev/null || skip "unshare -m is not permitted here"

tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
M6I=$FIXTURES/m6i-16xlarge
HEALTHY=$FIXTURES/m7i-24xlarge
BUDGET=2048 # bytes the shim may use below its caller, first call included
# A process with privilege to drop (root, as these cases run) keeps no
# descriptor of its mem file (shim/self_mem.c): the cases about the kept
# descriptor run the program as nobody too, where it is kept.
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
# others: "nobody" where other users can run the program with the library,
# else nothing, said (a build tree in a private home).
others() {
	if "${NOBODY[@]}" test -x "$HOLES" -a -r "$LIB"; then
		echo nobody
	else
		echo "# other users cannot reach $HOLES and $LIB: no run as another user" >&2
	fi
}

# run WORLD GUARD [WRAPPER...] -- HOLES-ARGS...: sets rc; $tmp/{out,err,log}.
# GUARD is "guarded" (LD_PRELOAD=the shim) or "bare".  WORLD is a snapshot
# directory; faultsim faults on counter 3 unless WORLD is the healthy one.
# With SANDBOX=1 the world also gets overlays of /etc and /dev and a syslog
# listener (tests/e2e/sandbox.sh); $tmp/sb/etc-up is the overlay's /etc.
# PROG replaces holes as the program; VIA=ptrace watches with ptrace (a
# tree with a seccomp listener of its own: pmuguard run).
run() {
	local world=$1 guard=$2
	shift 2
	local wrap=()
	while [ "$1" != -- ]; do
		wrap+=("$1")
		shift
	done
	shift
	local pre=() fs=(--log "$tmp/log")
	[ -n "${VIA:-}" ] && fs+=(--via "$VIA")
	[ "$guard" = guarded ] && pre=(env "LD_PRELOAD=$LIB")
	# LAUNCH: a command put between the environment and the program.
	[ -n "${LAUNCH:-}" ] && pre+=("$LAUNCH")
	[ "$world" = "$HEALTHY" ] && fs+=(--healthy)
	local box=()
	[ "${SANDBOX:-0}" = 1 ] && box=("$e2e/sandbox.sh" "$tmp/sb")
	: >"$tmp/log"
	set +e
	unshare -m -- "${box[@]}" "$e2e/in-world.sh" "$world" GenuineIntel-6-6A-6 \
		"$FAULTSIM" "${fs[@]}" -- "${wrap[@]}" "${pre[@]}" "${PROG:-$HOLES}" "$@" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	set -e
	[ "$rc" != 77 ] || skip "faultsim cannot run here: $(cat "$tmp/err")"
	cp "$tmp/sb/syslog" "$tmp/syslog" 2>/dev/null || :
}

expect_fault() { # the bare run reached the simulated fault
	[ "$rc" = 86 ] || fail "$1: expected the simulated fault (exit 86), got $rc"
	grep -q 'verdict=FAULT' "$tmp/log" || fail "$1: no FAULT line"
	ok "$1 without the shim reaches the simulated fault"
}
expect_denied() { # CALL...: exit 0, no fault, each CALL answered ENOENT
	[ "$rc" = 0 ] || fail "expected exit 0, got $rc"
	! grep -q 'verdict=FAULT' "$tmp/log" || fail "the guarded run reached the fault"
	local c
	for c in "$@"; do
		grep -qx "call $c errno=2" "$tmp/out" || fail "$c was not answered ENOENT"
	done
	ok "guarded: $* answered ENOENT, no fault"
}
expect_badclose() { # NAME: syscall(SYS_close, -1) came back EBADF
	grep -qx "call $1 errno=9" "$tmp/out" || fail "$1: errno was not set to EBADF: $(grep "call $1 " "$tmp/out")"
	ok "$1: errno EBADF, set through libc's errno"
}
expect_err() { # REGEX in stderr
	grep -Eq "$1" "$tmp/err" || fail "stderr lacks /$1/"
}

# ctypes_script FILE: slots through ctypes.CDLL("libc.so.6").syscall.
ctypes_script() {
	cat >"$1" <<'EOF'
import ctypes, struct
libc = ctypes.CDLL("libc.so.6", use_errno=True)
libc.syscall.restype = ctypes.c_long
# PERF_ATTR_SIZE_VER0, PERF_TYPE_RAW, slots; disabled, exclude_kernel, exclude_hv
attr = struct.pack("<IIQQQQQ", 4, 64, 0x400, 0, 0, 0, 1 | 1 << 5 | 1 << 6).ljust(64, b"\0")
buf = ctypes.create_string_buffer(attr, 64)
fd = libc.syscall(ctypes.c_long(298), buf, ctypes.c_long(0), ctypes.c_long(-1),
                  ctypes.c_long(-1), ctypes.c_long(0))
print("call ctypes-libc errno=%d" % (ctypes.get_errno() if fd < 0 else 0))
EOF
}

case $case_name in
libc-scope-lookups)
	for how in handle dlvsym deepbind deepbind-lazy; do
		run "$M6I" bare -- scope "$how" "$HOLES_PLUGIN"
		expect_fault "slots through the lookup '$how' in libc's scope"
		run "$M6I" guarded -- scope "$how" "$HOLES_PLUGIN"
		expect_denied "scope-$how"
		case $how in handle | dlvsym) expect_badclose "scope-$how-badclose" ;; esac
	done
	;;
python-ctypes-libc)
	command -v python3 >/dev/null || skip "no python3"
	[ "$(uname -m)" = x86_64 ] || skip "the script names x86_64's syscall number"
	ctypes_script "$tmp/ct.py"
	PROG=python3 run "$M6I" bare -- "$tmp/ct.py"
	expect_fault "python ctypes.CDLL(\"libc.so.6\").syscall"
	PROG=python3 run "$M6I" guarded -- "$tmp/ct.py"
	expect_denied ctypes-libc
	;;
libc-scope-exec-layout)
	command -v python3 >/dev/null || skip "no python3 to make the copy of libc"
	# This system's libc with the segment holding its symbol table marked
	# executable, as every libc linked without -z separate-code maps it.
	mkdir "$tmp/xlibc"
	python3 - "$(ldd "$HOLES" | awk '$1 == "libc.so.6" { print $3 }')" "$tmp/xlibc/libc.so.6" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
phoff, = struct.unpack_from("<Q", b, 0x20)
phentsize, phnum = struct.unpack_from("<HH", b, 0x36)
for i in range(phnum):
    o = phoff + i * phentsize
    if struct.unpack_from("<I", b, o)[0] == 1:  # the first PT_LOAD
        struct.pack_into("<I", b, o + 4, struct.unpack_from("<I", b, o + 4)[0] | 1)
        break
open(sys.argv[2], "wb").write(b)
EOF
	xl=(env LD_LIBRARY_PATH="$tmp/xlibc")
	# shellcheck disable=SC2016 # $0 is the inner shell's
	PROG='sh' run "$M6I" guarded "${xl[@]}" -- -c 'grep -F "$0" /proc/self/maps' "$tmp/xlibc/libc.so.6"
	grep -q ' r-xp 00000000 ' "$tmp/out" ||
		fail "the copy's first segment is not mapped executable: $(cat "$tmp/out")"
	ok "a libc whose symbol table lies in an executable segment is loaded"
	for how in handle dlvsym deepbind deepbind-lazy; do
		run "$M6I" bare "${xl[@]}" -- scope "$how" "$HOLES_PLUGIN"
		expect_fault "slots through the lookup '$how' in that libc's scope"
		run "$M6I" guarded "${xl[@]}" -- scope "$how" "$HOLES_PLUGIN"
		expect_denied "scope-$how"
		case $how in handle | dlvsym) expect_badclose "scope-$how-badclose" ;; esac
	done
	ctypes_script "$tmp/ct.py"
	PROG=python3 run "$M6I" bare "${xl[@]}" -- "$tmp/ct.py"
	expect_fault "python ctypes.CDLL(\"libc.so.6\").syscall with that libc"
	PROG=python3 run "$M6I" guarded "${xl[@]}" -- "$tmp/ct.py"
	expect_denied ctypes-libc
	# Only the page of the entry lost the execute bit: the code runs on.
	# shellcheck disable=SC2016 # $0 is the inner shell's
	PROG='sh' run "$M6I" guarded "${xl[@]}" -- -c 'grep -F "$0" /proc/self/maps' "$tmp/xlibc/libc.so.6"
	grep -Eq ' r--p 000[0-9a-f]{5} ' "$tmp/out" || fail "no page of the table was made read-only: $(cat "$tmp/out")"
	ok "the claimed page is read-only, no page was writable and executable"
	! grep -q ' rwxp ' "$tmp/out" || fail "a page is writable and executable: $(cat "$tmp/out")"
	;;
second-libc-by-path)
	: "${PMUGUARD:?}"
	cp "$(ldd "$HOLES" | awk '$1 == "libc.so.6" { print $3 }')" "$tmp/libc-copy.so.6"
	run "$M6I" bare -- scope copy "$tmp/libc-copy.so.6"
	expect_fault "slots through a second libc opened by its path"
	# The limit, shown: the copy is a second libc the preload never claimed
	# (README, Limits and threat model).
	run "$M6I" guarded -- scope copy "$tmp/libc-copy.so.6"
	[ "$rc" = 86 ] || fail "the preload alone, a second libc by path: expected the limit (the fault, 86), got $rc"
	ok "the preload alone does not reach a second libc opened by its path (the README's limit)"
	VIA=ptrace PROG=$PMUGUARD run "$M6I" bare env PMUGUARD_LIB="$LIB" -- \
		run -- "$HOLES" scope copy "$tmp/libc-copy.so.6"
	# The copy sets its own errno, not the one the program prints.
	[ "$rc" = 0 ] || fail "under pmuguard run: exit $rc"
	grep -q 'type=4 config=0x400 verdict=denied errno=2' "$tmp/log" ||
		fail "under pmuguard run the second libc's slots was not denied: $(cat "$tmp/log")"
	ok "pmuguard run (auto: the seccomp filter with the preload) covers it"
	;;
early-dependency)
	: "${EARLY_PROG:?}"
	PROG=$EARLY_PROG run "$M6I" bare --
	expect_fault "slots through the syscall() a dependency's constructor kept"
	PROG=$EARLY_PROG run "$M6I" guarded --
	expect_denied early-dep
	ok "libc's symbol was claimed before any constructor ran"
	;;
initial-stack-rewritten)
	# Hostile review of issue 42: the claim finds the auxiliary vector on
	# the initial stack, and glibc 2.26-2.38 rewrites GLIBC_TUNABLES's
	# entry in the environment (a copy below the stack) before the
	# resolvers run: the scan went past the stack's end, and every process
	# with the variable set died (SIGSEGV).  The early claim still holds
	# (a NEEDED library's constructor is refused), and nothing crashes,
	# with the variable empty, set, and beside others.
	: "${EARLY_PROG:?}"
	for t in "" "glibc.malloc.check=0" "glibc.malloc.tcache_count=0:glibc.malloc.mmap_max=1"; do
		LAUNCH="GLIBC_TUNABLES=$t" PROG=$EARLY_PROG run "$M6I" guarded --
		expect_denied early-dep
		env GLIBC_TUNABLES="$t" LD_PRELOAD="$LIB" /bin/true || fail "GLIBC_TUNABLES=$t: /bin/true exited $?"
	done
	ok "GLIBC_TUNABLES rewritten before the resolvers: no crash, libc's symbol still claimed early"
	;;
audit-sees-the-host-preload)
	: "${PMUGUARD:?}"
	mkdir -p "$tmp/sb/etc-up"
	printf '%s\n' "$LIB" >"$tmp/sb/etc-up/ld.so.preload"
	SANDBOX=1 run "$M6I" bare -- slots
	expect_denied slots
	ok "the system-wide preload answers slots in the process (the host is guarded)"
	VIA=ptrace PROG=$PMUGUARD SANDBOX=1 run "$M6I" bare -- run --audit -- "$HOLES" slots
	[ "$rc" = 0 ] || fail "run --audit: exit $rc: $(cat "$tmp/err")"
	! grep -q 'verdict=FAULT' "$tmp/log" || fail "the audited run reached the fault"
	grep -qx 'call slots errno=2' "$tmp/out" || fail "slots was not answered ENOENT: $(cat "$tmp/out")"
	grep -Eq '^ +raw +4 +0x400 .* answered in the process by the preload: TOPDOWN.SLOTS' "$tmp/err" ||
		fail "the audit table lacks the call the preload answered: $(cat "$tmp/err")"
	expect_err 'would have reached an unimplemented fixed counter \(3-6\) on an affected machine: yes$'
	ok "the audit saw the call the host's preload answered, and says yes"
	;;
run-cookie-is-judged)
	# Issue 38 (6): the filter let a native call carrying the cookie
	# through unjudged, and every process of the tree can read it.  peo
	# makes the call with an inline syscall instruction (static), so no
	# preload can answer it: only the supervisor stands in the way.
	: "${PMUGUARD:?}" "${PEO:?}"
	PROG=$PEO run "$M6I" bare env PMUGUARD_SECCOMP_COOKIE=0123456789abcdef -- \
		--cookie-xor 0 4:0x400 4:0x1a4
	expect_fault "slots with a cookie in the sixth argument"
	# taskset is dynamic and imports syscall(): auto mode adds the preload
	# and exports the cookie, which peo inherits and passes.
	VIA=ptrace PROG=$PMUGUARD run "$M6I" bare env PMUGUARD_LIB="$LIB" PMUGUARD_LOG=debug -- \
		run -- taskset -c 0 "$PEO" --cookie-xor 0 4:0x400 4:0x1a4
	expect_err 'seccomp\+preload mode for .*taskset'
	expect_err '^peo: cookie in the environment: yes$'
	[ "$rc" = 0 ] || fail "under pmuguard run: exit $rc: $(cat "$tmp/err")"
	! grep -q 'verdict=FAULT' "$tmp/log" || fail "the call with the run's cookie reached the fault"
	grep -q 'type=4 config=0x400 ret=-1 errno=ENOENT' "$tmp/out" ||
		fail "slots with the run's cookie was not answered ENOENT: $(cat "$tmp/out")"
	grep -q 'type=4 config=0x1a4 verdict=continue' "$tmp/log" ||
		fail "TOPDOWN.SLOTS_P with the run's cookie did not reach the kernel: $(cat "$tmp/log")"
	[ "$(grep -c '^pmuguard: blocked perf_event_open(type=4, config=0x400) in peo' "$tmp/err")" = 1 ] ||
		fail "the block was not said once: $(cat "$tmp/err")"
	ok "the run's own cookie decides nothing: slots ENOENT, said once, SLOTS_P continued"
	# What the cookie still does: under mode audit the preload reports the
	# call it lets through, and the supervisor, letting it through too,
	# does not say it again.  No faultsim: peo-dyn's flags make the real
	# kernel answer EINVAL before it reads the attr.
	: "${PEO_DYN:?}"
	rc=0
	PMUGUARD_MODE=audit "$PMUGUARD" run --snapshot "$M6I" -- "$PEO_DYN" 4:0x400 >"$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" = 0 ] || fail "mode audit under pmuguard run: exit $rc: $(cat "$tmp/err")"
	grep -q 'type=4 config=0x400 errno=EINVAL' "$tmp/out" || fail "mode audit: slots did not reach the kernel: $(cat "$tmp/out")"
	[ "$(grep -c '^pmuguard: audit: would block perf_event_open(type=4, config=0x400) in peo-dyn' "$tmp/err")" = 1 ] ||
		fail "mode audit: the call was not said exactly once: $(cat "$tmp/err")"
	ok "mode audit: the call the preload reported is said once, not again by the supervisor"
	;;
dlmopen-under-run)
	: "${PMUGUARD:?}"
	run "$M6I" bare -- scope dlmopen "$HOLES_PLUGIN"
	expect_fault "slots from a plugin in a new namespace"
	# The limit, shown: the new namespace's libc is not the one the
	# preload claimed (README, Limits and threat model).
	run "$M6I" guarded -- scope dlmopen "$HOLES_PLUGIN"
	[ "$rc" = 86 ] || fail "the preload alone, dlmopen(LM_ID_NEWLM): expected the limit (the fault, 86), got $rc"
	ok "the preload alone does not reach a new namespace's libc (the README's limit)"
	VIA=ptrace PROG=$PMUGUARD run "$M6I" bare env PMUGUARD_LIB="$LIB" -- \
		run -- "$HOLES" scope dlmopen "$HOLES_PLUGIN"
	expect_denied scope-dlmopen
	ok "pmuguard run (auto: the seccomp filter with the preload) covers the new namespace"
	;;
ld-so-launcher)
	ldso=
	for f in /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-aarch64.so.1; do
		[ -x "$f" ] && ldso=$f && break
	done
	[ -n "$ldso" ] || skip "no ld.so at a known path"
	LAUNCH=$ldso run "$M6I" bare -- slots
	expect_fault "ld.so holes slots"
	LAUNCH=$ldso run "$M6I" guarded -- slots
	expect_denied slots
	expect_badclose badclose
	;;
clearenv)
	mkdir -p "$tmp/sb/etc-up"
	# A line the file does not understand: said once, and only by a state
	# that is kept (one built again at every call would say it every time).
	printf 'snapshot = %s\nbogus = 1\n' "$M6I" >"$tmp/sb/etc-up/pmuguard.conf"
	SANDBOX=1 run "$M6I" bare -- clearenv
	expect_fault "slots after clearenv()"
	SANDBOX=1 run "$M6I" guarded -- clearenv
	expect_denied cleared-1 cleared-2 cleared-3
	# LD_PRELOAD is gone with the rest: the shim reports as in fleet mode.
	n=$(grep -c 'pmuguard.*ignoring /etc/pmuguard.conf' "$tmp/syslog" || :)
	[ "$n" = 1 ] || fail "the kept state said what it ignored $n times (want 1: built once, kept)"
	ok "after clearenv() the state was built once and kept"
	;;
vfork-log-once)
	run "$M6I" bare -- vfork
	expect_fault "slots before a vfork"
	run "$M6I" guarded -- vfork
	expect_denied parent-1 parent-2
	grep -qx 'child denied' "$tmp/out" || fail "the vfork child's slots was not denied"
	# The vfork child runs in its parent's memory: it shares the table of
	# lines said and the pid the shim keeps there (no getpid at each
	# denial, issue 42), so the parent's line is not said again for it.
	n=$(grep -c 'blocked perf_event_open(type=4, config=0x400)' "$tmp/err" || :)
	[ "$n" = 1 ] || fail "$n block lines (want 1: said once, the vfork child sharing its parent's table)"
	ok "the block logged once across a vfork child, which was denied too"
	;;
close-every-descriptor)
	run "$M6I" bare -- closeall
	expect_fault "slots in a program that closes every descriptor"
	for who in root $(others); do
		wrap=()
		[ "$who" = nobody ] && wrap=("${NOBODY[@]}")
		run "$M6I" guarded "${wrap[@]}" -- closeall
		expect_denied closeall-1 closeall-2 closeall-3
	done
	ok "the descriptor the shim kept (as nobody), closed and its number reused for /dev/zero, was not trusted"
	;;
descriptor-reused-for-a-device)
	# Hostile review of issue 42: the kept descriptor was read (a pread of
	# the attr) before it was proved; a program that put /dev/kmsg on its
	# number lost a record to each call (a tun device, a packet; a
	# blocking /dev/kmsg, the call hung).  Proved by fstat first now.
	run "$M6I" guarded -- kmsgreuse
	[ "$rc" != 77 ] || skip "/dev/kmsg cannot be read here"
	expect_denied kmsgreuse-1 kmsgreuse-2
	grep -qx 'kmsg untouched' "$tmp/out" || fail "the shim read through the program's /dev/kmsg: $(cat "$tmp/out")"
	ok "a number reused for /dev/kmsg was never read by the shim"
	;;
fork-between-calls)
	run "$M6I" bare -- fork2
	expect_fault "slots before a fork"
	for who in root $(others); do
		wrap=()
		[ "$who" = nobody ] && wrap=("${NOBODY[@]}")
		run "$M6I" guarded "${wrap[@]}" -- fork2
		expect_denied fork-parent-1 fork-child-1 fork-child-2 fork-parent-2
		grep -qx 'child fds kept' "$tmp/out" || fail "$who: the fork child holds more descriptors after its call (the parent's mem file not closed)"
	done
	ok "the fork child judged its own memory, not its parent's, and closed the parent's descriptor (kept as nobody)"
	;;
fork-drops-privilege)
	# Issue 47, item 3: a /proc/PID/mem descriptor is checked when it is
	# opened, not when it is read.  The one the shim kept after a root
	# process's first call was inherited by a worker that dropped to
	# nobody without exec, which read its parent's memory through it.
	# First the look is shown finding a descriptor the program keeps.
	run "$M6I" bare -- forkdrop own
	[ "$rc" = 0 ] || fail "forkdrop own: exit $rc: $(cat "$tmp/err")"
	grep -q '^secret found through fd ' "$tmp/out" ||
		fail "the child did not find its parent's secret through a mem descriptor the parent kept: $(cat "$tmp/out")"
	ok "a mem descriptor kept by a root parent shows its memory to a child that dropped to nobody"
	# A root parent; a parent of uid 1000 whose privilege is capabilities.
	others=$(others)
	for how in root ${others:+caps}; do
		wrap=()
		[ "$how" = caps ] && wrap=(setpriv --reuid=1000 --regid=1000 --clear-groups
			'--inh-caps=+setuid,+setgid' '--ambient-caps=+setuid,+setgid')
		run "$M6I" guarded "${wrap[@]}" -- forkdrop
		expect_denied forkdrop-parent
		grep -q '^mem descriptors ' "$tmp/out" || fail "$how: the child did not look: $(cat "$tmp/err")"
		! grep '^secret found' "$tmp/out" ||
			fail "$how: the child that dropped to nobody read its parent's memory through the shim's descriptor"
		grep -qx 'mem descriptors 0' "$tmp/out" ||
			fail "$how: the child inherited a mem descriptor: $(cat "$tmp/out")"
		ok "$how parent: the child that dropped to nobody inherited no mem descriptor, and read nothing of its parent"
	done
	# A parent that is nobody already keeps its descriptor (two system
	# calls a decision): its child, the same user, may read it anyway.
	if [ -n "$others" ]; then
		run "$M6I" guarded "${NOBODY[@]}" -- forkdrop
		expect_denied forkdrop-parent
		grep -qx 'mem descriptors 1' "$tmp/out" ||
			fail "an unprivileged parent kept no descriptor: $(cat "$tmp/out")"
		ok "nobody parent: the descriptor is kept where no child can be less privileged"
	fi
	;;
threads-race-first-call)
	run "$M6I" bare -- threads16
	expect_fault "16 threads racing on the first call"
	calls=()
	for i in $(seq 0 15); do calls+=("thread-$i" "thread-again-$i"); done
	run "$M6I" guarded -- threads16
	expect_denied "${calls[@]}"
	# As nobody the threads also race to keep the descriptor.
	if [ -n "$(others)" ]; then
		run "$M6I" guarded "${NOBODY[@]}" -- threads16
		expect_denied "${calls[@]}"
	fi
	;;
undelivered-report-counted)
	SANDBOX=1 SANDBOX_JOURNAL=1 run "$M6I" bare -- undelivered
	expect_fault "slots with no log to report to"
	SANDBOX=1 SANDBOX_JOURNAL=1 run "$M6I" guarded \
		sh -c 'printf "log = syslog\n" >/etc/pmuguard.conf && exec "$@"' sh -- undelivered
	expect_denied undelivered-slots delivered-metric
	! grep -q 'pmuguard' "$tmp/err" || fail "log = syslog wrote to stderr: $(cat "$tmp/err")"
	j=$(grep '^journal ' "$tmp/out") || fail "no journal line"
	for f in MESSAGE_ID=7cd40d08058b4d219f41289bb6a12067 PRIORITY=4 SYSLOG_IDENTIFIER=pmuguard \
		PMUGUARD_LAYER=preload PMUGUARD_DECISION=deny PMUGUARD_HIT=metric \
		PMUGUARD_PROGRAM=holes PMUGUARD_UID=0 PMUGUARD_TYPE=4 PMUGUARD_CONFIG=0x8000 \
		PMUGUARD_UNDELIVERED=1; do
		case "|${j#journal }|" in *"|$f|"*) ;; *) fail "the journal entry lacks $f: $j" ;; esac
	done
	case $j in *'MESSAGE=blocked perf_event_open(type=4, config=0x8000) in holes['*'[1 earlier reports of this process were not delivered]|'*) ;;
	*) fail "the message does not say the earlier report was lost: $j" ;; esac
	ok "the undelivered report is counted and said by the next one, a journald entry with its fields"
	;;
dlopen-heap-environ)
	run "$M6I" bare -- slots
	expect_fault "holes slots"
	run "$M6I" bare -- dlopen "$LIB"
	expect_denied dlopen-slots
	expect_badclose dlopen-badclose
	;;
tiny-stacks)
	for mode in tinystack altstack; do
		run "$M6I" guarded -- "$mode"
		expect_denied "$mode"
		peak=$(sed -n "s/^peak $mode //p" "$tmp/out")
		if [ -z "$peak" ] || [ "$peak" -gt "$BUDGET" ]; then
			fail "$mode: the shim used ${peak:-?} bytes below its caller (budget $BUDGET)"
		fi
		ok "$mode, hazardous world: first call used $peak bytes of the caller's stack"
		run "$HEALTHY" guarded -- "$mode"
		[ "$rc" = 0 ] || fail "$mode in a healthy world: exit $rc"
		grep -q "type=4 config=0x400 verdict=continue" "$tmp/log" ||
			fail "$mode in a healthy world: slots did not go on to the kernel"
		peak=$(sed -n "s/^peak $mode //p" "$tmp/out")
		if [ -z "$peak" ] || [ "$peak" -gt "$BUDGET" ]; then
			fail "$mode (healthy): ${peak:-?} bytes below the caller (budget $BUDGET)"
		fi
		ok "$mode, healthy world: untouched, $peak bytes"
	done
	;;
syscall-number-high-bits)
	run "$M6I" bare -- hibits
	expect_fault "syscall(0x100000000 | SYS_perf_event_open)"
	run "$M6I" guarded -- hibits
	expect_denied hibits-32 hibits-x32
	;;
own-sandbox)
	run "$M6I" bare -- sandbox
	expect_fault "a self-sandboxed slots call"
	run "$M6I" guarded -- sandbox
	expect_denied sandboxed-slots
	expect_err 'blocked perf_event_open\(type=4, config=0x400\)'
	ok "with the mem file and process_vm_readv refused, the kernel's own copy of the attr was asked: slots judged and denied"
	run "$M6I" guarded -- sandbox-mm
	expect_denied sandboxed-slots
	ok "with mmap forbidden too (no stack for a log line), still denied"
	;;
two-copies)
	cp "$LIB" "$tmp/libpmuguard-copy.so"
	run "$M6I" bare -- scope handle "$HOLES_PLUGIN"
	expect_fault "slots through libc's handle"
	run "$M6I" bare timeout 20 env LD_PRELOAD="$LIB:$tmp/libpmuguard-copy.so" -- \
		scope handle "$HOLES_PLUGIN"
	[ "$rc" != 124 ] || fail "two copies of the library forwarded to each other (the process hung)"
	expect_denied scope-handle
	expect_badclose scope-handle-badclose
	run "$M6I" bare timeout 20 env LD_PRELOAD="$LIB:$tmp/libpmuguard-copy.so" -- slots
	[ "$rc" != 124 ] || fail "two copies: plain syscall() hung"
	expect_denied slots
	expect_badclose badclose
	ok "two copies of the library: one claimed libc's symbol, the other forwards to it"
	;;
sandbox-kills-vm-readv)
	run "$M6I" bare -- sandbox-kill
	[ "$rc" = 0 ] || [ "$rc" = 86 ] || fail "without the shim: exit $rc"
	grep -qx 'call sandboxed-ordinary errno=0' "$tmp/out" ||
		fail "without the shim the ordinary event did not open: $(cat "$tmp/out")"
	expect_fault "slots in a process whose filter kills at process_vm_readv"
	run "$M6I" guarded -- sandbox-kill
	[ "$rc" != 159 ] || fail "the shim's read of the attr killed the process (SIGSYS, exit 159)"
	grep -qx 'call sandboxed-ordinary errno=0' "$tmp/out" ||
		fail "guarded, the ordinary event did not open: $(cat "$tmp/out")"
	expect_denied sandboxed-slots
	expect_err 'blocked perf_event_open\(type=4, config=0x400\)'
	ok "the attr was read through the mem file: the ordinary event opened, slots was judged and denied"
	;;
sandbox-kills-vm-readv-without-proc)
	run "$M6I" bare -- sandbox-kill-noproc
	grep -qx 'call sandboxed-ordinary errno=0' "$tmp/out" ||
		fail "without the shim the ordinary event did not open: $(cat "$tmp/out") $(cat "$tmp/err")"
	expect_fault "slots without /proc in a process whose filter kills at process_vm_readv"
	run "$M6I" guarded -- sandbox-kill-noproc
	[ "$rc" != 159 ] || fail "the shim's read of the attr killed the process (SIGSYS, exit 159)"
	grep -qx 'call sandboxed-ordinary errno=0' "$tmp/out" ||
		fail "guarded, the ordinary event did not open: $(cat "$tmp/out")"
	expect_denied sandboxed-slots
	expect_err 'blocked perf_event_open\(type=4, config=0x400\)'
	ok "without /proc the kernel's own copy said the attr is readable: the ordinary event opened, slots was judged and denied"
	;;
pidns-self-mem)
	run "$M6I" bare unshare -p -f -- sandbox-vm
	expect_fault "slots in a pid namespace"
	run "$M6I" guarded unshare -p -f -- sandbox-vm
	expect_denied sandboxed-slots
	# Read from our own memory: the encoding is known, not "unreadable".
	expect_err 'blocked perf_event_open\(type=4, config=0x400\)'
	ok "the attr was read through /proc/self/mem (pid 1 here is another process)"
	;;
fd-limit)
	run "$M6I" bare -- emfile
	expect_fault "slots at the fd limit"
	run "$M6I" guarded -- emfile
	expect_denied emfile-first emfile-again fds-free
	# At the limit neither the mem file nor the kernel's own copy can be
	# had (both need a descriptor): the call fails closed, said once.
	# (process_vm_readv, which needs none, is a call a sandbox may kill.)
	n=$(grep -c 'blocked perf_event_open(attr unreadable: EMFILE).*failing closed' "$tmp/err" || true)
	[ "$n" = 1 ] || fail "the block at the fd limit was said $n times, not once: $(cat "$tmp/err")"
	expect_err 'config=0x8000\).*advertises fixed counter 3'
	ok "after the fd limit the probe ran again and found the hazard"
	;;
lock-at-fd-limit)
	mkdir -p "$tmp/sb/etc-up"
	# With lock = yes the environment cannot name the facts: the file does.
	printf 'mode = auto\nlock = yes\nsnapshot = %s\n' "$M6I" >"$tmp/sb/etc-up/pmuguard.conf"
	SANDBOX=1 run "$M6I" bare env PMUGUARD_MODE=off -- emfile
	expect_fault "slots at the fd limit with PMUGUARD_MODE=off"
	SANDBOX=1 run "$M6I" guarded env PMUGUARD_MODE=off -- emfile
	expect_denied emfile-first emfile-again fds-free
	expect_err 'could not be read just now.*failing closed'
	expect_err 'ignoring PMUGUARD_MODE=off: /etc/pmuguard.conf has lock = yes'
	ok "lock = yes held while the policy file could not be read, and after"
	;;
policy-others-can-write)
	mkdir -p "$tmp/sb/etc-up"
	: >"$tmp/sb/etc-up/pmuguard.conf"
	chmod 666 "$tmp/sb/etc-up/pmuguard.conf"
	# Another user (uid 65534, no groups) writes it: a 0666 policy file is
	# anyone's.
	# shellcheck disable=SC2016 # $1 is the inner shell's
	setpriv --reuid 65534 --regid 65534 --clear-groups -- \
		sh -c 'echo "mode = off" >>"$1"' sh "$tmp/sb/etc-up/pmuguard.conf" ||
		fail "uid 65534 could not write the 0666 policy file"
	SANDBOX=1 run "$M6I" bare -- slots
	expect_fault "slots unguarded"
	SANDBOX=1 run "$M6I" guarded -- slots
	expect_denied slots
	expect_err 'ignoring /etc/pmuguard.conf: /etc/pmuguard.conf is writable by other users \(mode 0666\): not trusted'
	ok "mode = off in a policy file others can write did not switch the guard off"
	# Root's own lock = yes in such a file still holds: a user's
	# PMUGUARD_MODE=off is refused (a tighter line is taken from it).
	printf 'lock = yes\n' >"$tmp/sb/etc-up/pmuguard.conf"
	chmod 666 "$tmp/sb/etc-up/pmuguard.conf"
	SANDBOX=1 run "$M6I" guarded env PMUGUARD_MODE=off -- slots
	expect_err 'ignoring PMUGUARD_MODE=off: /etc/pmuguard.conf has lock = yes'
	# A file of root's, 0644, is trusted as before: mode = off is root's.
	printf 'mode = off\n' >"$tmp/sb/etc-up/pmuguard.conf"
	chmod 644 "$tmp/sb/etc-up/pmuguard.conf"
	SANDBOX=1 run "$M6I" guarded -- slots
	expect_fault "root's own mode = off (the control: the file is read)"
	;;
stderr-replaced)
	SANDBOX=1 run "$M6I" guarded -- fd2 "$tmp/data"
	expect_denied fd2-slots
	[ "$(cat "$tmp/data")" = DATA ] ||
		fail "the data file that became fd 2 holds: $(head -c 300 "$tmp/data")"
	grep -q 'pmuguard.*blocked perf_event_open(type=4, config=0x400)' "$tmp/syslog" ||
		fail "the block was not reported to syslog instead"
	ok "the line went to syslog, not into the data file on fd 2"
	SANDBOX=1 run "$M6I" guarded -- sandbox
	expect_err 'blocked perf_event_open'
	ok "while fd 2 is the file it was at start, lines go there"
	;;
ld-preload-twice)
	# The last LD_PRELOAD names the library: the loader loaded it from
	# there, so its lines go to fd 2, as for any LD_PRELOAD.
	run "$M6I" bare -- preload-twice /nonexistent/first.so "$LIB" slots
	expect_denied slots
	expect_err 'blocked perf_event_open'
	ok "the last LD_PRELOAD named it: the line went to fd 2"
	# Only the first names it, the last names nothing: the loader took the
	# library from /etc/ld.so.preload, where fd 2 is whatever a daemon
	# made of it: the line goes to the system log.
	mkdir -p "$tmp/sb/etc-up"
	printf '%s\n' "$LIB" >"$tmp/sb/etc-up/ld.so.preload"
	SANDBOX=1 run "$M6I" bare -- preload-twice "$LIB" "" slots
	expect_denied slots
	! grep -q 'pmuguard' "$tmp/err" || fail "fd 2 of a process ld.so.preload guards got: $(cat "$tmp/err")"
	grep -q 'pmuguard.*blocked perf_event_open(type=4, config=0x400)' "$tmp/syslog" ||
		fail "the block was not reported to syslog"
	ok "only the first LD_PRELOAD named it: fd 2 untouched, the line in syslog"
	;;
preinit)
	# The environment is not set up before libc's own initialisation: the
	# facts come from the policy file there, and nothing built then is
	# kept, so main's call sees PMUGUARD_MODE=always.
	mkdir -p "$tmp/sb/etc-up"
	printf 'snapshot = %s\n' "$M6I" >"$tmp/sb/etc-up/pmuguard.conf"
	SANDBOX=1 run "$M6I" bare -- preinit
	expect_fault "slots from a preinit_array function"
	SANDBOX=1 run "$M6I" guarded env PMUGUARD_MODE=always -- preinit
	expect_denied preinit-slots main-metric
	grep -q 'config=0x8000).*mode always' "$tmp/err" "$tmp/syslog" ||
		fail "main's call was judged by the state built before the environment existed"
	ok "the state built in preinit was not kept"
	;;
substitute-private-copy)
	run "$M6I" bare -- substitute
	expect_fault "slots with modifiers"
	run "$M6I" guarded env PMUGUARD_SLOTS=substitute -- substitute
	[ "$rc" = 0 ] || fail "exit $rc"
	! grep -q 'verdict=FAULT' "$tmp/log" || fail "the substituted run reached the fault"
	grep -q 'type=4 config=0x28001a4 verdict=continue' "$tmp/log" ||
		fail "the kernel did not get TOPDOWN.SLOTS_P with inv and cmask kept"
	grep -qx 'attr-unchanged yes' "$tmp/out" || fail "the caller's attr was written"
	ok "substituted from a private copy; the caller's attr is untouched"
	;;
*)
	fail "unknown case $case_name"
	;;
esac
echo "PASS: $case_name"
