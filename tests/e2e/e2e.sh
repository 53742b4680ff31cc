#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# End-to-end: Debian's real, unmodified perf in a simulated world.
#
#   e2e.sh CASE
#
# Each case runs perf in a private mount namespace with a snapshot's sysfs,
# PERF_CPUID and PMUGUARD_SNAPSHOT set, under faultsim: a seccomp
# user-notification supervisor that stands in for the guest kernel and
# "faults" (kills the tree, exit 86) on any attr that would land on fixed
# counter 3 in that world, and lets every other call continue to the real
# kernel.  Every guard case first shows the unguarded run reaching the fault,
# so the guarded run proves something.
#
# Exit: 0 pass, 1 fail, 77 skip (a failure when PMUGUARD_TESTS_MUST_RUN=1).
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
if [ "${1:-}" = --list ]; then list_cases "$0" case_name; exit 0; fi
: "${PMUGUARD:?path to the pmuguard command}" "${FAULTSIM:?path to faultsim}"
: "${FIXTURES:?path to tests/snapshots}"
here=$(cd "$(dirname "$0")" && pwd)
case_name=${1:?usage: e2e.sh CASE}


[ "$(id -u)" = 0 ] || skip "needs root for a private mount namespace (unshare -m)"
command -v perf >/dev/null || skip "perf is not installed (Debian package linux-perf)"
unshare -m true 2>/dev/null || skip "unshare -m is not permitted here"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

M6I=m6i-16xlarge
PEO=${PEO:-}
ICX_CPUID=GenuineIntel-6-6A-6
ADL_CPUID=GenuineIntel-6-97-2

# run SNAPSHOT PERF_CPUID FAULTSIM_OPTS... -- CMD...: in_world (../lib.sh)
# with the fixture SNAPSHOT.  Sets $rc; stdout, stderr and faultsim's log
# land in $tmp/{out,err,log}.
# With GUARDED=1 in its environment, CMD runs under `pmuguard run --mode
# preload` (auto mode installs a seccomp filter, which needs --via ptrace).
run() {
	local snap=$FIXTURES/$1 cpuid=$2
	shift 2
	local fsopts=()
	while [ "$1" != -- ]; do
		fsopts+=("$1")
		shift
	done
	shift
	if [ "${GUARDED:-0}" = 1 ]; then set -- "$PMUGUARD" run --mode preload -- "$@"; fi
	# LeakSanitizer cannot work in a traced process (sanitizer builds).
	local asan=${ASAN_OPTIONS:-}
	case " ${fsopts[*]} " in *" ptrace "*) asan="$asan:detect_leaks=0" ;; esac
	ASAN_OPTIONS=$asan in_world "$snap" "$cpuid" "${fsopts[@]}" -- "$@"
}

expect_fault() { # CONFIG: the run reached the simulated fault with that config
	[ "$rc" = 86 ] || fail "$1: expected the simulated fault (exit 86), got exit $rc"
	grep -q "config=$1 verdict=FAULT" "$tmp/log" || fail "$1: no FAULT line for it"
	ok "unguarded run reached the simulated fault ($1)"
}
expect_clean() { # the run finished with exit 0 and no fault
	[ "$rc" = 0 ] || fail "expected exit 0, got $rc"
	! grep -q 'verdict=FAULT' "$tmp/log" || fail "the guarded run reached the fault"
	ok "guarded run finished cleanly"
}
expect_reached() { # TYPE CONFIG: that call continued to the real kernel
	grep -q "type=$1 config=$2 verdict=continue" "$tmp/log" ||
		fail "type=$1 config=$2 never reached the kernel"
	ok "type=$1 config=$2 reached the kernel"
}
expect_blocked_once() { # TYPE CONFIG
	local n
	n=$(grep -c "^pmuguard: blocked perf_event_open(type=$1, config=$2)" "$tmp/err" || true)
	[ "$n" = 1 ] || fail "expected one 'pmuguard: blocked' line for type=$1 config=$2, got $n"
	grep -q "fixed counter 3" "$tmp/err" || fail "the block line gives no reason"
	ok "block of type=$1 config=$2 logged once with its reason"
}
expect_not_supported() { # EVENT-NAME as perf prints it
	grep -Eq "<not supported>[[:space:]]+$1" "$tmp/err" ||
		fail "perf did not report $1 as <not supported>"
	ok "perf reports $1 as <not supported>"
}

# stat_pair CONFIG SNAPSHOT CPUID FSOPTS -- CMD...: unguarded, CMD reaches the
# fault with CONFIG; under `pmuguard run` it finishes cleanly.
stat_pair() {
	local config=$1
	shift
	run "$@"
	expect_fault "$config"
	GUARDED=1 run "$@"
	expect_clean
}

case $case_name in
named-events)
	stat_pair 0x400 $M6I $ICX_CPUID -- \
		perf stat -e TOPDOWN.SLOTS,instructions,OCR.READS_TO_CORE.LOCAL_DRAM -- true
	expect_blocked_once 4 0x400
	expect_not_supported TOPDOWN.SLOTS
	expect_reached 0 0x1     # instructions
	expect_reached 4 0x1b7   # OCR.READS_TO_CORE.LOCAL_DRAM (offcore, MSR 0x1a6)
	;;
sysfs-term-slots)
	stat_pair 0x400 $M6I $ICX_CPUID -- perf stat -e 'cpu/event=0x00,umask=0x4/' -- true
	expect_blocked_once 4 0x400
	;;
raw-r0400)
	stat_pair 0x400 $M6I $ICX_CPUID -- perf stat -e r0400,r01a4 -- true
	expect_blocked_once 4 0x400
	expect_reached 4 0x1a4   # TOPDOWN.SLOTS_P is a general-counter event
	;;
metric-with-modifiers)
	stat_pair 0x81008100 $M6I $ICX_CPUID -- perf stat -e 'cpu/event=0x00,umask=0x81,cmask=0x81/' -- true
	expect_blocked_once 4 0x81008100
	;;
perf-list)
	# perf 6.1's `perf list` opens only generic events to test them; the
	# guard must change nothing: same output, same calls to the kernel.
	run $M6I $ICX_CPUID -- perf list
	[ "$rc" = 0 ] || fail "unguarded perf list failed ($rc)"
	cp "$tmp/out" "$tmp/out.unguarded"
	sed 's/pid=[0-9]*//' "$tmp/log" >"$tmp/log.unguarded"
	run $M6I $ICX_CPUID -- "$PMUGUARD" run --mode preload -- perf list
	expect_clean
	cmp -s "$tmp/out" "$tmp/out.unguarded" || fail "guarded perf list prints something else"
	sed 's/pid=[0-9]*//' "$tmp/log" | cmp -s - "$tmp/log.unguarded" ||
		fail "guarded perf list made other perf_event_open calls"
	[ -s "$tmp/log.unguarded" ] || fail "perf list made no perf_event_open call at all"
	ok "perf list: identical output and identical $(wc -l <"$tmp/log.unguarded") kernel calls"
	;;
old-kernel-default-stat)
	# Before 6.11 slots is listed, and a plain `perf stat` adds the topdown
	# group by itself: the most common way to take an m6i down.
	run m6i-16xlarge-oldkernel $ICX_CPUID -- perf stat -- true
	expect_fault 0x400
	run m6i-16xlarge-oldkernel $ICX_CPUID -- "$PMUGUARD" run --mode preload -- perf stat -- true
	! grep -q 'verdict=FAULT' "$tmp/log" || fail "the guarded run reached the fault"
	expect_blocked_once 4 0x400
	# slots leads perf's topdown group, and perf treats a group leader's
	# ENOENT as fatal: it stops with its own message instead of a crash.
	grep -q "slots event is not supported" "$tmp/err" || fail "perf did not say why it stopped"
	ok "no fault; perf says the slots event is not supported"
	;;
slots-substitute)
	# slots = substitute: perf's plain `perf stat` on a pre-6.11 guest goes
	# on, with TOPDOWN.SLOTS counted as TOPDOWN.SLOTS_P (0x01a4) and the
	# metrics denied; modifier bits are kept in the substitute.
	run m6i-16xlarge-oldkernel $ICX_CPUID -- perf stat -e 'cpu/event=0x00,umask=0x4,inv,cmask=0x2/' -- true
	expect_fault 0x2800400
	PMUGUARD_SLOTS=substitute run m6i-16xlarge-oldkernel $ICX_CPUID -- \
		"$PMUGUARD" run --mode preload -- perf stat -e 'cpu/event=0x00,umask=0x4,inv,cmask=0x2/' -- true
	expect_clean
	expect_reached 4 0x28001a4
	grep -q '^pmuguard: substituted perf_event_open(type=4, config=0x2800400).*TOPDOWN.SLOTS_P' "$tmp/err" ||
		fail "the substitution was not said"
	ok "slots with inv,cmask=2 went to the kernel as 0x28001a4, said once"
	PMUGUARD_SLOTS=substitute run m6i-16xlarge-oldkernel $ICX_CPUID -- \
		"$PMUGUARD" run --mode preload -- perf stat -- true
	! grep -q 'verdict=FAULT' "$tmp/log" || fail "plain perf stat reached the fault"
	expect_reached 4 0x1a4
	! grep -q 'config=0x8[0-7]00 verdict=continue' "$tmp/log" || fail "a metric reached the kernel"
	# This machine's kernel has no PMU for 0x1a4 either, so perf still
	# stops here; the vm suite shows it counting on a kernel that has one.
	ok "plain perf stat: slots substituted, metrics never reach the kernel"
	;;
healthy-untouched)
	# Healthy bare metal, new kernel and old: the 5.4 worlds log no bit 48
	# and list no slots, the Arrow Lake-U one clears bit 48 itself; counter
	# 3 exists on each, and nothing the unguarded perf opens may be refused.
	for world in icx-8375c-metal:$ICX_CPUID:cpu icx-metal-5.4:$ICX_CPUID:cpu \
		icx-metal-5.4-no-log:$ICX_CPUID:cpu arl-u-hybrid-metal-6.12:$ADL_CPUID:cpu_core; do
		IFS=: read -r snap cpuid pmu <<<"$world"
		for ev in TOPDOWN.SLOTS,instructions r0400 "$pmu/event=0x00,umask=0x4/" \
			"$pmu/event=0x00,umask=0x81/"; do
			run "$snap" "$cpuid" --healthy -- perf stat -e "$ev" -- true
			sed 's/pid=[0-9]*//' "$tmp/log" >"$tmp/log.unguarded"
			run "$snap" "$cpuid" --healthy -- "$PMUGUARD" run --mode preload -- perf stat -e "$ev" -- true
			sed 's/pid=[0-9]*//' "$tmp/log" | cmp -s - "$tmp/log.unguarded" ||
				fail "$snap: $ev: the guard changed the calls on a healthy machine"
			grep -q 'config=0x400 verdict=continue\|config=0x8100 verdict=continue' "$tmp/log" ||
				fail "$snap: $ev: the counter-3 encoding did not reach the healthy kernel"
			! grep -q 'verdict=denied' "$tmp/log" ||
				fail "$snap: $ev: a call was refused"
			! grep -q '^pmuguard:' "$tmp/err" || fail "$snap: $ev: pmuguard spoke on a healthy machine"
			ok "$snap: $ev: reached the healthy kernel untouched"
		done
	done
	;;
mode-audit)
	run $M6I $ICX_CPUID -- env PMUGUARD_MODE=audit "$PMUGUARD" run --mode preload -- perf stat -e r0400 -- true
	expect_fault 0x400
	grep -q '^pmuguard: audit: would block perf_event_open(type=4, config=0x400)' "$tmp/err" ||
		fail "audit mode did not say what it would have blocked"
	ok "audit mode logs and blocks nothing"
	;;
mode-off)
	run $M6I $ICX_CPUID -- env PMUGUARD_MODE=off "$PMUGUARD" run --mode preload -- perf stat -e r0400 -- true
	expect_fault 0x400
	! grep -q '^pmuguard:' "$tmp/err" || fail "mode off still spoke"
	;;
mode-always)
	run icx-8375c-metal $ICX_CPUID --healthy -- env PMUGUARD_MODE=always "$PMUGUARD" run --mode preload -- \
		perf stat -e r0400,r01a4 -- true
	expect_clean
	! grep -q 'config=0x400 verdict=continue' "$tmp/log" || fail "mode always let 0x400 through"
	expect_reached 4 0x1a4
	expect_blocked_once 4 0x400
	;;
mode-garbage)
	run $M6I $ICX_CPUID -- env PMUGUARD_MODE=disable "$PMUGUARD" run --mode preload -- perf stat -e r0400 -- true
	expect_clean
	grep -q '^pmuguard: ignoring PMUGUARD_MODE=disable' "$tmp/err" ||
		fail "a garbage mode was not reported"
	ok "garbage PMUGUARD_MODE falls back to auto, and says so"
	;;
log-once)
	run $M6I $ICX_CPUID -- "$PMUGUARD" run --mode preload -- perf stat -r 5 -e r0400,r8000 -- true
	expect_clean
	expect_blocked_once 4 0x400
	expect_blocked_once 4 0x8000
	;;
quiet)
	run $M6I $ICX_CPUID -- env PMUGUARD_LOG=quiet "$PMUGUARD" run --mode preload -- perf stat -e r0400 -- true
	expect_clean
	! grep -q '^pmuguard:' "$tmp/err" || fail "PMUGUARD_LOG=quiet still logged"
	ok "quiet"
	;;
hybrid-both-core-types)
	for pmu in cpu_atom:10 cpu_core:4; do
		run hybrid-guest-hazard $ADL_CPUID --core-types 4,10 -- \
			perf stat -e "${pmu%%:*}/event=0x00,umask=0x4/" -- true
		expect_fault 0x400
		run hybrid-guest-hazard $ADL_CPUID --core-types 4,10 -- "$PMUGUARD" run --mode preload -- \
			perf stat -e "${pmu%%:*}/event=0x00,umask=0x4/" -- true
		expect_clean
		expect_blocked_once "${pmu##*:}" 0x400
	done
	;;
static-seccomp)
	# A static binary with an inline syscall instruction: preload cannot see
	# it; the seccomp supervisor must.  faultsim watches through ptrace here
	# (only one seccomp listener may watch a tree: the supervisor's).
	run $M6I $ICX_CPUID --via ptrace -- "$PEO" 4:0x400
	expect_fault 0x400
	run $M6I $ICX_CPUID --via ptrace -- "$PMUGUARD" run --mode seccomp -- "$PEO" 4:0x400 4:0x1a4 1:0
	expect_clean
	grep -q 'type=4 config=0x400 ret=-1 errno=ENOENT' "$tmp/out" || fail "peo did not get ENOENT"
	grep -q 'type=4 config=0x400 verdict=denied errno=2' "$tmp/log" || fail "0x400 was not denied before the kernel"
	expect_reached 4 0x1a4
	grep -q 'type=1 config=0x0 ret=fd' "$tmp/out" || fail "the software event did not open"
	expect_blocked_once 4 0x400
	;;
static-auto-picks-seccomp)
	run $M6I $ICX_CPUID --via ptrace -- env PMUGUARD_LOG=debug "$PMUGUARD" run -- "$PEO" 4:0x400
	expect_clean
	grep -q 'seccomp mode for .*peo: statically linked' "$tmp/err" || fail "auto did not pick seccomp"
	grep -q 'verdict=denied errno=2' "$tmp/log" || fail "not denied"
	;;
go-seccomp)
	command -v go >/dev/null || skip "no Go toolchain (Debian package golang-go)"
	(cd "$tmp" && CGO_ENABLED=0 GOCACHE=$tmp/gocache GOPATH=$tmp/gopath HOME=$tmp GOFLAGS=-mod=mod \
		go build -o "$tmp/gopeo" "$here/../targets/peo.go") >"$tmp/out" 2>&1 ||
		fail "go build failed: $(cat "$tmp/out")"
	"$PMUGUARD" check "$tmp/gopeo" | grep -q 'guard: seccomp (a Go binary' || fail "check does not see Go"
	run $M6I $ICX_CPUID --via ptrace -- "$tmp/gopeo" 4:0x400
	expect_fault 0x400
	run $M6I $ICX_CPUID --via ptrace -- "$PMUGUARD" run -- "$tmp/gopeo" 4:0x400 4:0x1a4 1:0
	expect_clean
	grep -q 'type=4 config=0x400 ret=-1 errno=ENOENT' "$tmp/out" || fail "the Go program did not get ENOENT"
	grep -q 'type=1 config=0x0 ret=fd' "$tmp/out" || fail "the software event did not open"
	expect_reached 4 0x1a4
	;;
seccomp-equals-preload)
	# Real perf, guarded both ways: same perf output, same calls reaching
	# the kernel.
	ev=TOPDOWN.SLOTS,instructions,OCR.READS_TO_CORE.LOCAL_DRAM,r8100
	norm() { sed -E -e 's/[0-9.]+ seconds (time elapsed|user|sys)/T/' -e 's/\[[0-9]+\]/[PID]/' "$1"; }
	calls() { grep 'verdict=continue' "$1" | sed 's/pid=[0-9]* //' | sort -u; }
	run $M6I $ICX_CPUID -- "$PMUGUARD" run --mode preload -- perf stat -e $ev -- true
	expect_clean
	norm "$tmp/err" >"$tmp/err.preload"
	calls "$tmp/log" >"$tmp/calls.preload"
	run $M6I $ICX_CPUID --via ptrace -- "$PMUGUARD" run --mode seccomp -- perf stat -e $ev -- true
	expect_clean
	norm "$tmp/err" | diff -u "$tmp/err.preload" - || fail "perf prints differently under seccomp"
	calls "$tmp/log" | diff -u "$tmp/calls.preload" - || fail "other calls reached the kernel under seccomp"
	[ "$(grep -c 'verdict=denied' "$tmp/log")" -ge 2 ] || fail "slots and the metric were not denied"
	ok "perf under seccomp mode: same output and same $(wc -l <"$tmp/calls.preload") kernel calls as under preload"
	;;
seccomp-perf-list)
	run $M6I $ICX_CPUID --via ptrace -- perf list
	[ "$rc" = 0 ] || fail "perf list unguarded failed"
	cp "$tmp/out" "$tmp/out.unguarded"
	run $M6I $ICX_CPUID --via ptrace -- "$PMUGUARD" run --mode seccomp -- perf list
	expect_clean
	cmp -s "$tmp/out" "$tmp/out.unguarded" || fail "perf list prints something else under seccomp"
	ok "perf list under seccomp: identical output"
	;;
audit-matches-the-simulator)
	# On a healthy kernel (so the run completes), audit with the m6i facts:
	# exactly the encodings the simulator saw, and the verdict.
	run icx-8375c-metal $ICX_CPUID --via ptrace --healthy -- "$PMUGUARD" run --audit \
		--snapshot "$FIXTURES/$M6I" -- perf stat -e TOPDOWN.SLOTS,instructions,r01a4 -- true
	expect_clean
	grep 'verdict=continue' "$tmp/log" | sed -E 's/.*type=([0-9]+) config=(0x[0-9a-f]+).*/\1 \2/' |
		sort -u >"$tmp/seen"
	sed -n '/^pmuguard audit:/,/^This run/p' "$tmp/err" | awk '$2 ~ /^[0-9]+$/ && $3 ~ /^0x/ {print $2, $3}' |
		sort -u >"$tmp/audited"
	[ -s "$tmp/seen" ] || fail "the simulator saw no call"
	diff -u "$tmp/seen" "$tmp/audited" || fail "the audit does not list exactly what reached the kernel"
	grep -q 'raw  *4  *0x400 .*would be denied: TOPDOWN.SLOTS' "$tmp/err" || fail "slots not marked"
	grep -q '^This run would have reached an unimplemented fixed counter (3-6) on an affected machine: yes' "$tmp/err" ||
		fail "wrong verdict"
	run icx-8375c-metal $ICX_CPUID --via ptrace --healthy -- "$PMUGUARD" run --audit \
		--snapshot "$FIXTURES/$M6I" -- perf stat -e instructions,r01a4 -- true
	grep -q '^This run would have reached an unimplemented fixed counter (3-6) on an affected machine: no' "$tmp/err" ||
		fail "wrong verdict for a harmless run"
	ok "audit lists the $(wc -l <"$tmp/seen") encodings the simulator saw, and says yes/no rightly"
	;;
seccomp-threads-and-forks)
	run $M6I $ICX_CPUID --via ptrace -- "$PMUGUARD" run --mode seccomp -- \
		"$PEO" --threads 8 --forks 2 --repeat 5 4:0x400 4:0x8300 4:0x1a4
	expect_clean
	n=$(grep -c 'config=0x400 verdict=denied' "$tmp/log")
	[ "$n" = 120 ] || fail "expected 120 denied slots calls (3 processes x 8 threads x 5), saw $n"
	[ "$(grep -c 'config=0x1a4 verdict=continue' "$tmp/log")" = 120 ] || fail "harmless calls lost"
	! grep -q DISAGREE "$tmp/out" || fail "answers got mixed up"
	ok "360 calls from 24 threads in 3 processes: every one answered rightly"
	;;
auto-launchers-static)
	# A launcher that imports syscall() (taskset, perl)
	# made auto mode pick the preload alone, and the static tool it started
	# ran unguarded.  Each launcher first takes the tool to the fault.
	for l in taskset env sh perl; do
		case $l in
		taskset) launcher=(taskset -c 0) ;;
		env) launcher=(env) ;;
		sh)
			# shellcheck disable=SC2016 # expanded by the inner shell
			launcher=(sh -c '"$0" "$@"') ;;
		perl)
			command -v perl >/dev/null || continue
			launcher=(perl -e 'exec(@ARGV) or die') ;;
		esac
		run $M6I $ICX_CPUID --via ptrace -- "${launcher[@]}" "$PEO" 4:0x400
		expect_fault 0x400
		run $M6I $ICX_CPUID --via ptrace -- "$PMUGUARD" run -- "${launcher[@]}" "$PEO" 4:0x400 4:0x1a4
		expect_clean
		grep -q 'type=4 config=0x400 ret=-1 errno=ENOENT' "$tmp/out" || fail "$l: peo did not get ENOENT"
		grep -q 'type=4 config=0x400 verdict=denied errno=2' "$tmp/log" || fail "$l: not denied before the kernel"
		expect_reached 4 0x1a4
		ok "auto: $l in front of a static tool is guarded"
	done
	;;
auto-launchers-go)
	command -v go >/dev/null || skip "no Go toolchain (Debian package golang-go)"
	(cd "$tmp" && CGO_ENABLED=0 GOCACHE=$tmp/gocache GOPATH=$tmp/gopath HOME=$tmp GOFLAGS=-mod=mod \
		go build -o "$tmp/gopeo" "$here/../targets/peo.go") >"$tmp/out" 2>&1 ||
		fail "go build failed: $(cat "$tmp/out")"
	run $M6I $ICX_CPUID --via ptrace -- taskset -c 0 "$tmp/gopeo" 4:0x400
	expect_fault 0x400
	run $M6I $ICX_CPUID --via ptrace -- "$PMUGUARD" run -- taskset -c 0 "$tmp/gopeo" 4:0x400 4:0x1a4
	expect_clean
	grep -q 'type=4 config=0x400 ret=-1 errno=ENOENT' "$tmp/out" || fail "the Go program did not get ENOENT"
	expect_reached 4 0x1a4
	ok "auto: taskset in front of a Go tool is guarded"
	;;
auto-perf-same-as-preload)
	# perf under auto mode: the preload judges its calls
	# and the supervisor judges them again (issue 38, item 6: the cookie
	# they carry decides nothing), denies none of them and says nothing
	# twice; same output and same kernel calls as under preload.
	ev=TOPDOWN.SLOTS,instructions,r8100
	norm() { grep -v '^pmuguard:' "$1" | sed -E -e 's/[0-9.]+ seconds (time elapsed|user|sys)/T/' -e 's/\[[0-9]+\]/[PID]/'; }
	calls() { grep 'verdict=continue' "$1" | sed 's/pid=[0-9]* //' | sort -u; }
	run $M6I $ICX_CPUID -- "$PMUGUARD" run --mode preload -- perf stat -e $ev -- true
	expect_clean
	norm "$tmp/err" >"$tmp/err.preload"
	calls "$tmp/log" >"$tmp/calls.preload"
	run $M6I $ICX_CPUID --via ptrace -- env PMUGUARD_LOG=debug "$PMUGUARD" run -- perf stat -e $ev -- true
	expect_clean
	grep -q 'seccomp+preload mode for .*perf' "$tmp/err" || fail "auto did not pick seccomp+preload"
	grep -Eq '^pmuguard: supervisor: [1-9][0-9]* perf_event_open calls notified, 0 denied$' "$tmp/err" ||
		fail "the supervisor did not judge the calls the preload let through: $(grep '^pmuguard: supervisor' "$tmp/err")"
	expect_blocked_once 4 0x400
	norm "$tmp/err" | diff -u "$tmp/err.preload" - || fail "perf prints differently under auto"
	calls "$tmp/log" | diff -u "$tmp/calls.preload" - || fail "other calls reached the kernel under auto"
	run $M6I $ICX_CPUID --via ptrace -- perf list
	[ "$rc" = 0 ] || fail "unguarded perf list failed ($rc)"
	cp "$tmp/out" "$tmp/out.unguarded"
	run $M6I $ICX_CPUID --via ptrace -- env PMUGUARD_LOG=debug "$PMUGUARD" run -- perf list
	expect_clean
	cmp -s "$tmp/out" "$tmp/out.unguarded" || fail "perf list prints something else under auto"
	grep -Eq '^pmuguard: supervisor: [0-9]+ perf_event_open calls notified, 0 denied$' "$tmp/err" ||
		fail "perf list's calls were denied by the supervisor: $(grep '^pmuguard: supervisor' "$tmp/err")"
	ok "perf under auto: every call judged by both, same output and kernel calls as under preload"
	;;
nonroot-unreadable-attr)
	# A non-root supervisor is refused a non-dumpable
	# target's memory (process_vm_readv EPERM, /proc/PID/mem EACCES).
	# Before f2788d1 the call went on to the kernel (this world's fault) and
	# --audit said "no"; now it is denied (ENOENT) and reported.
	cp "$PEO" "$tmp/peo"
	mkdir -m 0711 "$tmp/xo"
	cp "$PEO" "$tmp/xo/peo-x"
	chmod 0711 "$tmp/xo/peo-x" # execute-only: the kernel makes it non-dumpable
	chmod 0755 "$tmp" "$tmp/peo"
	nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
	"${nobody[@]}" test -x "$PMUGUARD" -a -r "$FIXTURES/$M6I/cpuid.txt" ||
		skip "nobody cannot reach the build tree or the fixtures"
	run $M6I $ICX_CPUID --via ptrace -- "${nobody[@]}" "$tmp/peo" --nodump 4:0x400
	expect_fault 0x400
	for target in "$tmp/peo --nodump" "$tmp/xo/peo-x"; do
		# shellcheck disable=SC2086 # a command and its option
		run $M6I $ICX_CPUID --via ptrace -- "${nobody[@]}" "$PMUGUARD" run --mode seccomp \
			--snapshot "$FIXTURES/$M6I" -- $target 4:0x400 4:0x1a4
		expect_clean
		grep -q 'type=4 config=0x400 ret=-1 errno=ENOENT' "$tmp/out" || fail "$target: 0x400 not denied"
		grep -q 'type=4 config=0x1a4 ret=-1 errno=ENOENT' "$tmp/out" ||
			fail "$target: an attr that could not be read was not denied (fail closed)"
		! grep -q 'verdict=continue' "$tmp/log" || fail "$target: a call reached the kernel"
		grep -Eq '^pmuguard: blocked perf_event_open\(attr unreadable: (EPERM|EACCES)\) in peo' "$tmp/err" ||
			fail "$target: no line for the unreadable attr"
		ok "$target as nobody: unreadable attrs denied with ENOENT and reported"
	done
	run icx-8375c-metal $ICX_CPUID --via ptrace --healthy -- "${nobody[@]}" "$PMUGUARD" run --audit \
		--snapshot "$FIXTURES/$M6I" -- "$tmp/peo" --nodump 4:0x400
	[ "$rc" = 0 ] || fail "audit run exited $rc"
	grep -q '^This run would have reached an unimplemented fixed counter (3-6) on an affected machine: unknown' "$tmp/err" ||
		fail "--audit did not say unknown"
	grep -Eq 'refused to read \((Operation not permitted|Permission denied)\)' "$tmp/err" ||
		fail "--audit did not say why"
	ok "--audit says unknown, not no"
	;;
pid1-reaps-orphans)
	# As pid 1 of a pid namespace (a container's
	# entrypoint), the supervisor inherits every orphan; before, it never
	# reaped them (zombies until the namespace died).  The orphan here
	# exits at once; the command waits, bounded, for its pid to vanish.
	unshare -p true 2>/dev/null || skip "unshare -p is not permitted here"
	for mode in seccomp auto; do
		set +e
		# shellcheck disable=SC2016 # expanded by the inner shell
		unshare -p -f --mount-proc -- "$PMUGUARD" run --mode "$mode" -- sh -c '
			(true & echo $! >"$0/orphan")
			(sleep 0.1 &)
			o=$(cat "$0/orphan")
			for _ in $(seq 500); do [ -e "/proc/$o" ] || break; sleep 0.01; done
			if [ -e "/proc/$o" ]; then echo "zombie: $(cat "/proc/$o/stat")"; exit 9; fi
			echo reaped; exit 4' "$tmp" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		set -e
		[ "$rc" = 4 ] || fail "$mode: exit $rc, expected the command's 4: $(cat "$tmp/out")"
		grep -q reaped "$tmp/out" || fail "$mode: the orphan was not reaped"
		ok "$mode: pid 1 reaps orphans and returns the command's status"
	done
	;;
probe-check)
	run $M6I $ICX_CPUID -- "$PMUGUARD" probe --check
	[ "$rc" = 3 ] || fail "probe --check on the m6i world: exit $rc, expected 3"
	grep -q 'Verdict: hazard' "$tmp/out" || fail "no hazard verdict in the report"
	run icx-8375c-metal $ICX_CPUID -- "$PMUGUARD" probe --check
	[ "$rc" = 0 ] || fail "probe --check on a healthy world: exit $rc, expected 0"
	run $M6I $ICX_CPUID -- "$PMUGUARD" probe --json
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["hazard"] is True and d["schema"] >= 2' "$tmp/out" ||
		fail "the JSON does not say hazard (or has no schema)"
	grep -q '"pmus":\[{"name":"cpu","type":4,"fixed_counters":4,"perf_metrics":false,"hazard":true' \
		"$tmp/out" || fail "JSON pmus array is wrong"
	ok "probe --check exits 3 on m6i, 0 on a healthy machine; JSON carries the verdict"
	;;
*)
	echo "unknown case $case_name"
	exit 2
	;;
esac
echo "PASS: $case_name"
