#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The checks are called through guarded(); $G is the job's own variable.
# shellcheck disable=SC2317,SC2016
#
# The vm suite: each fault-related promise of the README, proved on
# Debian's real 6.1 kernel with the real perf (tests/vm/README.md).
#
#   cases.sh --tap GROUP
#
# Every case runs twice.  Unguarded, in a boot of its own, it must kill the
# kernel: the test PMU module panics when the counter-3 encoding is
# scheduled, and the panic (naming the encoding) must be on the console.
# Guarded, batched with the group's other guarded runs into one boot, the
# kernel must survive and the tool's output must be intact: the blocked
# event <not supported>, the others counted.  Output is TAP, one line per
# proof; boot times are printed as comments.
#
# Exit 0 pass, 1 fail; a host that cannot run the VM gives a TAP skip
# ("1..0 # SKIP reason"), a failure under PMUGUARD_TESTS_MUST_RUN=1.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
vm_group_args PMUGUARD LIB PEO VM_CACHE -- "$@"

vm_setup
# What every job sees (boot), and how its checks read (guarded).
# shellcheck disable=SC2034 # read by boot() through job_vars
VMDIR=$here FLEET=$(cd "$here/../../scripts" && pwd)/pmuguard-fleet
job_vars=(PMUGUARD LIB PEO GOPEO VMDIR FLEET)
guarded_word=guarded

# Checks over $dir/CASE.{out,err,rc} that only the preload's cases need:
# the shim reports each block once on stderr.
blocked_once() { # CASE TYPE CONFIG
	[ "$(grep -c "^pmuguard: blocked perf_event_open(type=$2, config=$3)" "$dir/$1.err")" = 1 ]
}
stat_ok() { # CASE BLOCKED-EVENT TYPE CONFIG COUNTED-EVENT...
	local c=$1 ev=$2 type=$3 config=$4
	shift 4
	rc_is "$c" 0 && not_supported "$c" "$ev" && blocked_once "$c" "$type" "$config" || return 1
	local e
	for e in "$@"; do counted "$c" "$e" || return 1; done
}

# One step per guard case, for the batch and for the unguarded boots.
# Unguarded, G is empty; guarded it is "env LD_PRELOAD=$LIB".
perf_events_steps() {
	cat <<'EOF'
step named-events $G perf stat -e TOPDOWN.SLOTS,instructions -- true
step raw-r0400 $G perf stat -e r0400,r01a4 -- true
step raw-r8000 $G perf stat -e r8000,cycles -- true
step sysfs-term-slots $G perf stat -e cpu/slots/,cycles -- true
step sysfs-format-slots $G perf stat -e cpu/event=0x00,umask=0x4/,instructions -- true
step metric-by-name $G perf stat -e topdown-retiring,instructions -- true
step metric-with-modifiers $G perf stat -e cpu/event=0x00,umask=0x81,cmask=0x81/,instructions -- true
EOF
}
perf_modes_steps() {
	cat <<'EOF'
step old-kernel-default-stat $G perf stat -- true
step record $G perf record -e TOPDOWN.SLOTS -o /tmp/slots.data -- true
step group $G perf stat -e '{instructions,r0400},cycles' -- true
step inherit-children $G perf stat -e r0400,instructions -- sh -c 'sh -c true; /bin/true'
step inherited-by-child $G python3 $VMDIR/inherit.py 4:0x400 0:1
step ctypes-libc-handle $G python3 $VMDIR/inherit.py --libc libc.so.6 4:0x400 0:1
step ioctl-enable $G perf stat -D 100 -e r0400,instructions -- sleep 1
EOF
}

case $group in
perf-events | perf-modes)
	steps=${group//-/_}_steps
	# First each case unguarded: one boot each, which must die.
	while read -r _ c rest; do
		config=0x400
		case $c in
		raw-r8000 | metric-by-name) config=0x8000 ;;
		metric-with-modifiers) config=0x81008100 ;;
		esac
		what=${rest%% -- *}
		fatal "$c" m6i-old "$config" "${what//\$VMDIR\//}" <<<"step $c $rest"
	done < <($steps | sed 's/ \$G / /')
	if [ "$group" = perf-modes ]; then
		# The event the python target opened only ever runs in its child.
		d=$tmp/inherited-by-child.unguarded
		opener=$(sed -n 's/^pid=//p' "$d/inherited-by-child.out" 2>/dev/null)
		died=$(sed -nE 's/.*not syncing: pmuguard_testpmu: .* by [^[]*\[([0-9]+)\].*/\1/p' "$d/console" | head -n 1)
		if [ -n "$opener" ] && [ -n "$died" ] && [ "$opener" != "$died" ]; then
			tap_ok "inherited-by-child: unguarded, the panic is in the child (pid $died) at its exec, not in pid $opener that opened the event"
		else
			tap_not_ok "inherited-by-child: unguarded: the panic (pid ${died:-?}) is not in the child of pid ${opener:-?}" \
				"$d/console" "$d/inherited-by-child.out"
		fi
	fi
	# Then the guarded batch: every case under LD_PRELOAD, one boot.
	boot "$group.guarded" m6i-old < <(
		echo "G='env LD_PRELOAD=$LIB'"
		$steps
		[ "$group" != perf-modes ] ||
			echo 'step record-works $G perf record -e instructions -o /tmp/i.data -- true'
	)
	survived
	if [ "$group" = perf-events ]; then
		guarded named-events "TOPDOWN.SLOTS <not supported>, instructions counted" \
			stat_ok named-events TOPDOWN.SLOTS 4 0x400 instructions
		guarded raw-r0400 "r0400 <not supported>, r01a4 (TOPDOWN.SLOTS_P) counted" \
			stat_ok raw-r0400 r0400 4 0x400 r01a4
		guarded raw-r8000 "r8000 <not supported>, cycles counted" \
			stat_ok raw-r8000 r8000 4 0x8000 cycles
		guarded sysfs-term-slots "cpu/slots/ <not supported>, cycles counted" \
			stat_ok sysfs-term-slots cpu/slots/ 4 0x400 cycles
		guarded sysfs-format-slots "cpu/event=0x00,umask=0x4/ <not supported>, instructions counted" \
			stat_ok sysfs-format-slots cpu/event=0x00,umask=0x4/ 4 0x400 instructions
		guarded metric-by-name "topdown-retiring <not supported>, instructions counted" \
			stat_ok metric-by-name topdown-retiring 4 0x8000 instructions
		guarded metric-with-modifiers "the metric with cmask <not supported>, instructions counted" \
			stat_ok metric-with-modifiers cpu/event=0x00,umask=0x81,cmask=0x81/ 4 0x81008100 instructions
	else
		guarded old-kernel-default-stat "no fault; perf stops: 'The slots event is not supported' (README, In an incident)" \
			eval 'blocked_once old-kernel-default-stat 4 0x400 && err_has old-kernel-default-stat "The slots event is not supported"'
		guarded record "no fault; perf record says TOPDOWN.SLOTS is not supported" \
			eval 'blocked_once record 4 0x400 && err_has record "The TOPDOWN.SLOTS event is not supported"'
		guarded record-works "perf record of instructions writes its data" \
			eval 'rc_is record-works 0 && err_has record-works "Captured and wrote"'
		guarded group "r0400 in a group <not supported>, the next event counted" \
			stat_ok group r0400 4 0x400 cycles
		guarded inherit-children "r0400 <not supported>, instructions of the children counted" \
			stat_ok inherit-children r0400 4 0x400 instructions
		guarded inherited-by-child "python (ctypes, glibc syscall()): 0x400 ENOENT, instructions counted in the child and folded back" \
			eval 'rc_is inherited-by-child 0 && out_has inherited-by-child "type=4 config=0x400 ret=-1 errno=ENOENT" &&
				out_has inherited-by-child "type=0 config=0x1 ret=fd count=[1-9]" && blocked_once inherited-by-child 4 0x400'
		guarded ctypes-libc-handle "python ctypes.CDLL(\"libc.so.6\").syscall (libc's own scope): 0x400 ENOENT, instructions counted" \
			eval 'rc_is ctypes-libc-handle 0 && out_has ctypes-libc-handle "type=4 config=0x400 ret=-1 errno=ENOENT" &&
				out_has ctypes-libc-handle "type=0 config=0x1 ret=fd count=[1-9]" && blocked_once ctypes-libc-handle 4 0x400'
		guarded ioctl-enable "perf stat -D (enabled by ioctl): r0400 <not supported>, instructions counted" \
			stat_ok ioctl-enable r0400 4 0x400 instructions
	fi
	;;
slots-substitute)
	# slots = substitute on a pre-6.11 m6i world: the preload opens
	# TOPDOWN.SLOTS as TOPDOWN.SLOTS_P, so perf goes on and counts it; the
	# metrics stay <not supported>.  Unguarded, the same runs kill the
	# kernel (plain `perf stat` and TOPDOWN.SLOTS: the perf-modes and
	# perf-events groups; the group and perf record here).
	fatal sub-slots-metric m6i-old 0x400 "perf stat -e {slots,topdown-retiring}" \
		<<<"step sub-slots-metric perf stat -e '{slots,topdown-retiring}' -- true"
	fatal sub-record m6i-old 0x400 "perf record -e slots" \
		<<<"step sub-record perf record -e slots -o /tmp/s.data -- true"
	boot "$group.guarded" m6i-old <<JOB
G='env LD_PRELOAD=$LIB PMUGUARD_SLOTS=substitute'
step sub-default-stat \$G perf stat -- true
step sub-slots \$G perf stat -e TOPDOWN.SLOTS,instructions -- true
step sub-slots-metric \$G perf stat -e '{slots,topdown-retiring}' -- true
step sub-record \$G perf record -e slots -o /tmp/s.data -- true
step sub-slots-and-metric \$G perf stat -e TOPDOWN.SLOTS,topdown-retiring -- true
step deny-default-stat env LD_PRELOAD=$LIB PMUGUARD_SLOTS=deny perf stat -- true
JOB
	survived
	substituted_once() { # CASE
		[ "$(grep -c '^pmuguard: substituted perf_event_open(type=4, config=0x400).*TOPDOWN.SLOTS_P' "$dir/$1.err")" = 1 ]
	}
	guarded sub-default-stat "plain perf stat goes on: exit 0, cycles and instructions counted, slots substituted once" \
		eval 'rc_is sub-default-stat 0 && counted sub-default-stat cycles && counted sub-default-stat instructions && substituted_once sub-default-stat'
	guarded sub-slots "TOPDOWN.SLOTS counted (as TOPDOWN.SLOTS_P), instructions counted" \
		eval 'rc_is sub-slots 0 && counted sub-slots TOPDOWN.SLOTS && counted sub-slots instructions && substituted_once sub-slots'
	# In a group, perf leaves the leader <not counted> once a member could
	# not be opened: perf's rule for groups, not the guard's.
	guarded sub-slots-metric "{slots,topdown-retiring}: exit 0, the metric <not supported>, slots substituted" \
		eval 'rc_is sub-slots-metric 0 && not_supported sub-slots-metric topdown-retiring && substituted_once sub-slots-metric'
	guarded sub-slots-and-metric "TOPDOWN.SLOTS,topdown-retiring: slots counted, the metric <not supported>" \
		eval 'rc_is sub-slots-and-metric 0 && counted sub-slots-and-metric TOPDOWN.SLOTS && not_supported sub-slots-and-metric topdown-retiring'
	guarded sub-record "perf record -e slots writes its data" \
		eval 'rc_is sub-record 0 && err_has sub-record "Captured and wrote"'
	guarded deny-default-stat "slots = deny: as before, perf stops at slots and the kernel lives" \
		eval 'blocked_once deny-default-stat 4 0x400 && err_has deny-default-stat "The slots event is not supported"'
	;;
seccomp)
	# peo and the Go target open their events disabled and close them, so
	# they never schedule one: for them the module panics already at open
	# (fault_at=open), which proves the call never reached the kernel.
	at_open='echo open >/sys/module/pmuguard_testpmu/parameters/fault_at'
	fatal static-seccomp m6i-old 0x400 "the static target (inline syscall) opening 4:0x400" \
		<<<"$at_open; step static-seccomp \$PEO 4:0x400 4:0x1a4 1:0"
	# Issue 38 (6): the run's cookie, which every process of the tree can
	# read, passed as the sixth argument of the static target's own call.
	fatal static-cookie m6i-old 0x400 "the static target passing a cookie with 4:0x400" \
		<<<"$at_open; step static-cookie env PMUGUARD_SECCOMP_COOKIE=0123456789abcdef \$PEO --cookie-xor 0 4:0x400 4:0x1a4"
	if [ -n "${GOPEO:-}" ]; then
		fatal go-seccomp m6i-old 0x400 "the Go target opening 4:0x400" \
			<<<"$at_open; step go-seccomp \$GOPEO 4:0x400 4:0x1a4 1:0"
	fi
	boot seccomp.guarded m6i-old <<EOF
$at_open
step static-seccomp \$PMUGUARD run --mode seccomp -- \$PEO 4:0x400 4:0x1a4 1:0
step static-auto \$PMUGUARD run -- \$PEO 4:0x400 4:0x8000 4:0x1a4
step static-cookie \$PMUGUARD run -- taskset -c 0 \$PEO --cookie-xor 0 4:0x400 4:0x1a4
step static-threads-forks \$PMUGUARD run --mode seccomp -- \$PEO --threads 4 --forks 2 --repeat 3 4:0x400 4:0x8300 4:0x1a4
[ -z "\$GOPEO" ] || step go-seccomp \$PMUGUARD run --mode seccomp -- \$GOPEO 4:0x400 4:0x1a4 1:0
[ -z "\$GOPEO" ] || step go-auto \$PMUGUARD run -- \$GOPEO 4:0x400 4:0x1a4 1:0
echo add >/sys/module/pmuguard_testpmu/parameters/fault_at
step perf-seccomp \$PMUGUARD run --mode seccomp -- perf stat -e TOPDOWN.SLOTS,instructions -- true
step perf-auto \$PMUGUARD run -- perf stat -e TOPDOWN.SLOTS,instructions -- true
EOF
	survived
	peo_ok() { # CASE: 0x400 denied, the rest opened
		rc_is "$1" 0 && out_has "$1" 'type=4 config=0x400 ret=-1 errno=ENOENT' &&
			out_has "$1" 'type=4 config=0x1a4 ret=fd' && ! out_has "$1" DISAGREE
	}
	count_is() { [ "$(grep -c -- "$2" "$dir/$1.out")" = "$3" ]; }
	guarded static-seccomp "pmuguard run --mode seccomp: 4:0x400 gets ENOENT, 4:0x1a4 and the software event open" \
		eval 'peo_ok static-seccomp && out_has static-seccomp "type=1 config=0x0 ret=fd"'
	guarded static-auto "pmuguard run (auto picks seccomp): 0x400 and 0x8000 get ENOENT, 0x1a4 opens" \
		eval 'peo_ok static-auto && out_has static-auto "type=4 config=0x8000 ret=-1 errno=ENOENT"'
	guarded static-cookie "pmuguard run (auto, the preload too: taskset): the static target passes the run's cookie with 4:0x400 and gets ENOENT, 4:0x1a4 opens" \
		eval 'peo_ok static-cookie && err_has static-cookie "^peo: cookie in the environment: yes$"'
	guarded static-threads-forks "4 threads x 3 processes x 3 rounds: counter-3 calls ENOENT, the rest open, no answer mixed up" \
		eval 'rc_is static-threads-forks 0 && count_is static-threads-forks "config=0x400 ret=-1 errno=ENOENT" 3 &&
			count_is static-threads-forks "config=0x8300 ret=-1 errno=ENOENT" 3 &&
			count_is static-threads-forks "config=0x1a4 ret=fd" 3'
	if [ -n "${GOPEO:-}" ]; then
		guarded go-seccomp "pmuguard run --mode seccomp: the Go target gets ENOENT for 0x400, the rest open" \
			eval 'peo_ok go-seccomp && out_has go-seccomp "type=1 config=0x0 ret=fd"'
		guarded go-auto "pmuguard run (auto picks seccomp for Go): ENOENT for 0x400, the rest open" peo_ok go-auto
	else
		tap_not_ok "go-seccomp: no Go toolchain to build tests/targets/peo.go (Debian package golang-go)"
	fi
	guarded perf-seccomp "real perf under pmuguard run --mode seccomp: TOPDOWN.SLOTS <not supported>, instructions counted (unguarded twin: vm-perf-events named-events)" \
		stat_ok perf-seccomp TOPDOWN.SLOTS 4 0x400 instructions
	guarded perf-auto "real perf under pmuguard run (auto picks preload): TOPDOWN.SLOTS <not supported>, instructions counted" \
		stat_ok perf-auto TOPDOWN.SLOTS 4 0x400 instructions
	;;
fleet)
	# The system-wide preload for real: /etc/ld.so.preload and
	# /etc/pmuguard.conf written in the VM's overlay (never the host's), the
	# facts pinned with the policy's snapshot key.
	install="echo '$LIB' >/etc/ld.so.preload; unset PMUGUARD_SNAPSHOT"
	conf() { printf '%s' "printf 'mode = auto\\nsnapshot = /tmp/pmuguard-facts\\nlock = $1\\n' >/etc/pmuguard.conf"; }
	ev='perf stat -e r0400,instructions -- true'
	fatal fleet-shell m6i-old 0x400 "perf started by a shell, no preload installed" \
		<<<"step fleet-shell sh -c '$ev'"
	fatal fleet-lock m6i-old 0x400 "the preload installed with lock = no, and PMUGUARD_MODE=off in the environment" \
		<<<"$install; $(conf no); step fleet-lock env PMUGUARD_MODE=off $ev"
	boot fleet.guarded m6i-old <<EOF
busybox syslogd -O /tmp/syslog.txt
$install
$(conf no)
step fleet-shell sh -c '$ev'
step fleet-python python3 -c 'import subprocess, sys; sys.exit(subprocess.run("$ev".split()).returncode)'
step fleet-daemon setsid -w sh -c 'exec $ev 2>/tmp/daemon.txt'
cp /tmp/daemon.txt fleet-daemon.err
$(conf yes)
step fleet-lock env PMUGUARD_MODE=off $ev
cp /tmp/syslog.txt syslog.txt
step fleet-metrics sh "\$FLEET" status --layer preload --lib "\$LIB" --pmuguard "\$PMUGUARD" \
	--syslog-file /tmp/syslog.txt --textfile "\$PWD/fleet.prom"
EOF
	survived
	fleet_ok() { # CASE: guarded, and fd 2 untouched by the shim
		rc_is "$1" 0 && not_supported "$1" r0400 && counted "$1" instructions &&
			! err_has "$1" '^pmuguard' &&
			grep -q "pmuguard\[[0-9]*\]: blocked perf_event_open(type=4, config=0x400) in perf\[" "$dir/syslog.txt"
	}
	guarded fleet-shell "/etc/ld.so.preload: perf from a shell, r0400 <not supported>, instructions counted, the block in syslog, nothing on stderr" \
		fleet_ok fleet-shell
	guarded fleet-python "/etc/ld.so.preload: perf from python, r0400 <not supported>, instructions counted" \
		fleet_ok fleet-python
	guarded fleet-daemon "/etc/ld.so.preload: perf in a new session without a terminal, r0400 <not supported>, instructions counted" \
		eval 'not_supported fleet-daemon r0400 && counted fleet-daemon instructions && ! err_has fleet-daemon "^pmuguard"'
	guarded fleet-lock "lock = yes: PMUGUARD_MODE=off in the environment is ignored, r0400 <not supported>" \
		fleet_ok fleet-lock
	# The README's alerts against the textfile status wrote from these
	# real blocks: each selects the series it is meant to.
	guarded fleet-metrics "every shipped alert (pmuguard.rules.yml) on the preload's series selects one in the file written from these real blocks" \
		eval 'grep -q "^pmuguard_preload_reports{pmu_type=\"4\",config=\"0x400\"} [1-9]" "$dir/fleet.prom" &&
			python3 "$here/../e2e/alerts.py" "$here/../../scripts/prometheus/pmuguard.rules.yml" "$dir/fleet.prom" pmuguard_preload_reports \
				pmuguard_verdict pmuguard_status_timestamp_seconds'
	if grep -qsF "$LIB" /etc/ld.so.preload; then
		tap_not_ok "fleet: the host's /etc/ld.so.preload names the library: the VM wrote the host"
	else
		tap_ok "fleet: the host's own /etc/ld.so.preload was not touched"
	fi
	;;
hybrid)
	core='cpu_core/event=0x00,umask=0x4/,cpu_core/instructions/'
	atom='cpu_atom/event=0x00,umask=0x4/,cpu_atom/instructions/'
	fatal hybrid-cpu-core hybrid 0x400 "perf stat -e $core on CPU 0" \
		<<<"step hybrid-cpu-core taskset -c 0 perf stat -e $core -- true"
	fatal hybrid-cpu-atom hybrid 0x400 "perf stat -e $atom on CPU 1" \
		<<<"step hybrid-cpu-atom taskset -c 1 perf stat -e $atom -- true"
	boot hybrid.guarded hybrid <<EOF
G="env LD_PRELOAD=\$LIB"
cat /sys/bus/event_source/devices/cpu_atom/type >atom.type
step hybrid-cpu-core \$G taskset -c 0 perf stat -e $core -- true
step hybrid-cpu-atom \$G taskset -c 1 perf stat -e $atom -- true
step hybrid-generic \$G perf stat -e instructions,cycles -- true
EOF
	survived
	atom_type=$(cat "$dir/atom.type")
	guarded hybrid-cpu-core "cpu_core (type 4) slots <not supported>, cpu_core/instructions/ counted" \
		stat_ok hybrid-cpu-core cpu_core/event=0x00,umask=0x4/ 4 0x400 cpu_core/instructions/
	guarded hybrid-cpu-atom "cpu_atom (dynamic type $atom_type) slots <not supported>, cpu_atom/instructions/ counted" \
		stat_ok hybrid-cpu-atom cpu_atom/event=0x00,umask=0x4/ "$atom_type" 0x400 cpu_atom/instructions/
	guarded hybrid-generic "generic instructions and cycles (extended hardware types) counted on both core PMUs" \
		eval 'rc_is hybrid-generic 0 && counted hybrid-generic cpu_core/instructions/ &&
			counted hybrid-generic cpu_atom/instructions/ && counted hybrid-generic cpu_atom/cycles/ &&
			! err_has hybrid-generic "^pmuguard"'
	;;
healthy)
	# Counter 3 works (perf metrics: bit 48 logged): nothing may change.
	# The module counts a constant per encoding, so two runs print the same
	# (slots: 1000000 + 0x400).
	named=TOPDOWN.SLOTS,instructions,r0400,r8000,cpu/slots/,cycles
	boot healthy healthy <<EOF
step unguarded.named perf stat -vv -e $named -- true
step guarded.named env LD_PRELOAD=\$LIB perf stat -vv -e $named -- true
step unguarded.default perf stat -vv -- true
step guarded.default env LD_PRELOAD=\$LIB perf stat -vv -- true
EOF
	survived
	norm() { # the calls perf made and the counts of the core PMU's events
		sed -E -e 's/pid [0-9]+/pid P/' -e 's/[[:space:]]+#.*//' "$1" |
			grep -E '^sys_perf_event_open|^  (type|config|size|disabled|inherit|enable_on_exec) |^[[:space:]]*([0-9]+|<not supported>|<not counted>)[[:space:]]+[a-zA-Z]' |
			grep -Ev 'task-clock|context-switches|cpu-migrations|page-faults|msec'
	}
	for c in named default; do
		what="perf stat -e $named"
		[ "$c" = named ] || what="perf stat (default events and the topdown group)"
		if ! rc_is "unguarded.$c" 0; then
			tap_not_ok "healthy: unguarded $what failed" "$dir/unguarded.$c.err"
		elif ! diff -u <(norm "$dir/unguarded.$c.err") <(norm "$dir/guarded.$c.err") >"$tmp/diff"; then
			tap_not_ok "healthy: guarded $what opens or prints something else" "$tmp/diff"
		elif grep -q 'not supported' "$dir/guarded.$c.err" ||
			! grep -Eq '^[[:space:]]*1001024[[:space:]]' "$dir/guarded.$c.err"; then
			tap_not_ok "healthy: guarded $what: the slots encoding was not counted" "$dir/guarded.$c.err"
		else
			tap_ok "healthy: $what: unguarded and guarded open the same events (perf -vv) and print the same counts, slots included"
		fi
	done
	;;
log-injection)
	# Issue: a kernel-log line written by any user flipped the verdict.  An
	# unprivileged user (uid 65534) makes the kernel quote "... event mask:
	# 0001000f000000ff" (bit 48: perf metrics) in a segfault report: a
	# program mapped from a file with that name faults (tests/vm/inject.py),
	# once with the name alone, once with newlines in it that fake a whole
	# block.  The world's facts are then taken again: dmesg (util-linux),
	# busybox dmesg (syslog(2): each line of a record with its prefix) and
	# `pmuguard snapshot` (/dev/kmsg), each with the m6i's CPUID.  The guard
	# must still judge the m6i hazardous and TOPDOWN.SLOTS must not reach
	# the kernel; then the same after the ring buffer wrapped past the boot
	# (root floods /dev/kmsg), when the user's lines are all that is left.
	inject='SPLIT=$(printf "x\n... event mask: 0001000f000000ff\nLinux version 6.1.0 (a@b) (gcc) #1\nPerformance Events: Icelake events, Intel PMU driver.\n... version: 5\n... fixed-purpose events: 4\n... event mask: 0001000f000000ff\nz")
inject() { step "$1" setpriv --reuid=65534 --regid=65534 --clear-groups python3 "$VMDIR/inject.py" "/tmp/$1" "... event mask: 0001000f000000ff" "$SPLIT"; }'
	fatal injected-unguarded m6i-old 0x400 "perf stat -e TOPDOWN.SLOTS after a user's injected mask" \
		< <(echo "$inject"; echo 'inject inject; step injected-unguarded perf stat -e TOPDOWN.SLOTS,instructions -- true')
	enforce=1
	"$PMUGUARD" enforce status >/dev/null 2>&1 && rc=0 || rc=$?
	[ "$rc" != 5 ] || enforce=0
	boot "$group.guarded" m6i-old < <(
		echo "$inject"
		echo "ENFORCE=$enforce"
		cat <<'EOF'
# facts_dir DIR: the world's CPUID and live sysfs beside a dmesg.txt of DIR's own.
facts_dir() {
	mkdir -p "$1/sys/bus/event_source"
	cp "$facts/cpuid.txt" "$1/cpuid.txt"
	[ -e "$1/sys/bus/event_source/devices" ] || ln -s /sys/bus/event_source/devices "$1/sys/bus/event_source/devices"
}
# judge SUFFIX: the facts taken three ways, and the guard acting on them.
judge() {
	dmesg >"$facts/dmesg.txt"
	cp "$facts/dmesg.txt" "dmesg$1.txt"
	step "probe$1" "$PMUGUARD" probe --json
	facts_dir "/tmp/split$1"
	busybox dmesg >"/tmp/split$1/dmesg.txt"
	cp "/tmp/split$1/dmesg.txt" "split$1.txt"
	step "probe-split$1" "$PMUGUARD" probe --json --snapshot "/tmp/split$1"
	step "snapshot-live$1" "$PMUGUARD" snapshot "/tmp/live$1"
	facts_dir "/tmp/live$1"
	cp "/tmp/live$1/dmesg.txt" "live$1.txt"
	step "probe-live$1" "$PMUGUARD" probe --json --snapshot "/tmp/live$1"
	step "preload$1" env LD_PRELOAD="$LIB" perf stat -e TOPDOWN.SLOTS,instructions -- true
	if [ "$ENFORCE" = 1 ]; then
		step "enforce-start$1" "$PMUGUARD" enforce start
		step "kernel$1" perf stat -e TOPDOWN.SLOTS,instructions -- true
		step "enforce-stop$1" "$PMUGUARD" enforce stop
	fi
}
inject inject
judge ""
# The ring buffer wraps past the banner and the driver's block.
sysctl -qw kernel.printk_devkmsg=on
python3 -c '
import os
fd = os.open("/dev/kmsg", os.O_WRONLY)
for i in range(6000):
    os.write(fd, b"<14>flood %05d: the ring buffer wraps past the boot ..........................\n" % i)
'
inject inject-rotated
judge -rotated
EOF
	)
	survived
	# The user's lines reached the log (as any user could put them there).
	guarded inject "uid 65534's segfaults put the mask into the kernel log (dmesg, busybox dmesg, /dev/kmsg)" \
		eval 'rc_is inject 0 && [ "$(grep -c "signal 11" "$dir/inject.out")" = 2 ] &&
			grep -q "segfault at 0 .* in \.\.\. event mask: 0001000f000000ff\[" "$dir/dmesg.txt" &&
			grep -q "^\[[ 0-9.]*\] \.\.\. event mask: 0001000f000000ff$" "$dir/split.txt" &&
			grep -q "in x\\\\x0a\.\.\. event mask:" "$dir/live.txt"'
	hazard='j["state"] == "hazard" and j["guard_state"] == "hazard" and not j["perf_metrics"]["proven"] and j["kernel_log"]["ignored"]["count"] >= 1 and not any("segfault" in l or "0001000f" in l for l in j["kernel_log"]["pmu_lines"])'
	driver='j["kernel_log"]["pmu_lines"][0].startswith("Performance Events: Icelake events") and j["kernel_log"]["mask"] == "0x0000000f000000ff"'
	guarded probe "after the driver's block, dmesg: hazard, perf metrics not proven, the user's line ignored, the driver's block quoted" \
		json_ok probe "$hazard and $driver"
	guarded probe-split "busybox dmesg (syslog(2) lines): hazard; the faked banner and block after the driver's are ignored" \
		json_ok probe-split "$hazard and $driver and j['kernel_log']['ignored']['banner'] == 1"
	guarded probe-live "pmuguard snapshot (/dev/kmsg records): hazard, the driver's block quoted" \
		json_ok probe-live "$hazard and $driver"
	guarded preload "the preload on these facts: TOPDOWN.SLOTS <not supported>, instructions counted" \
		stat_ok preload TOPDOWN.SLOTS 4 0x400 instructions
	guarded probe-rotated "rotated past the boot, dmesg: hazard, no block (the user's lines are no block)" \
		json_ok probe-rotated "$hazard and j['kernel_log']['pmu_lines'] == [] and j['kernel_log']['mask'] is None"
	guarded probe-split-rotated "rotated, busybox dmesg: the faked block is the only one and proves nothing (not anchored): hazard" \
		json_ok probe-split-rotated "j['state'] == 'hazard' and not j['perf_metrics']['proven'] and j['kernel_log']['pmu_block_anchored'] is False"
	guarded probe-live-rotated "rotated, /dev/kmsg: hazard, no block" \
		json_ok probe-live-rotated "$hazard and j['kernel_log']['pmu_lines'] == []"
	guarded preload-rotated "rotated: the preload still blocks TOPDOWN.SLOTS, instructions counted" \
		stat_ok preload-rotated TOPDOWN.SLOTS 4 0x400 instructions
	if [ "$enforce" = 1 ]; then
		for s in "" -rotated; do
			guarded "kernel$s" "enforce start attaches${s:+ (rotated)}; perf without a preload: TOPDOWN.SLOTS <not supported>, instructions counted" \
				eval "rc_is enforce-start$s 0 && out_has enforce-start$s 'attached' && rc_is kernel$s 0 &&
					not_supported kernel$s TOPDOWN.SLOTS && counted kernel$s instructions && rc_is enforce-stop$s 0"
		done
	fi
	;;
fixed456)
	# A Clearwater Forest guest (family 6 model 0xDD, v5, ECX
	# bitmap 0x77) whose CPUID claims fixed counters 4-6 that the
	# hypervisor does not implement.  The E-cores' TOPDOWN_*.ALL events
	# land there first; unguarded each kills the kernel.  Guarded, the
	# preload and `pmuguard run` keep them from the kernel while the same
	# events with a modifier (a general-purpose counter) and instructions
	# count.  On bare metal all of it counts.  (The kernel guard:
	# vm-enforce-fixed456.)
	e4=cpu/event=0x73/ e5=cpu/event=0x9c,umask=0x1/ e6=cpu/event=0xc2,umask=0x2/
	fatal cwf-bad-spec cwf-guest 0x73 "perf stat -e $e4 (TOPDOWN_BAD_SPECULATION.ALL, fixed counter 4)" \
		<<<"step cwf-bad-spec perf stat -e $e4 -- true"
	fatal cwf-fe-bound cwf-guest 0x19c "perf stat -e $e5 (TOPDOWN_FE_BOUND.ALL, fixed counter 5)" \
		<<<"step cwf-fe-bound perf stat -e $e5 -- true"
	fatal cwf-retiring cwf-guest 0x2c2 "perf stat -e $e6 (TOPDOWN_RETIRING.ALL, fixed counter 6)" \
		<<<"step cwf-retiring perf stat -e $e6 -- true"
	at_open='echo open >/sys/module/pmuguard_testpmu/parameters/fault_at'
	fatal cwf-static cwf-guest 0x73 "the static target (inline syscall) opening 4:0x73" \
		<<<"$at_open; step cwf-static \$PEO 4:0x73 4:0xc0"
	boot fixed456.guarded cwf-guest <<EOF
G="env LD_PRELOAD=\$LIB"
step cwf-probe \$PMUGUARD probe --json
step cwf-preload-4 \$G perf stat -e $e4,instructions -- true
step cwf-preload-5 \$G perf stat -e $e5,cycles -- true
step cwf-preload-6 \$G perf stat -e $e6,instructions -- true
step cwf-preload-raw \$G perf stat -e r0073,r019c,r02c2,r0500,instructions -- true
step cwf-preload-gp \$G perf stat -e cpu/event=0x73,cmask=0x1/,cpu/event=0xc2,umask=0x2,inv=1,cmask=0x1/,r0400 -- true
step cwf-run-perf \$PMUGUARD run -- perf stat -e $e4,$e5,$e6,instructions -- true
$at_open
step cwf-run-static \$PMUGUARD run -- \$PEO 4:0x73 4:0x19c 4:0x2c2 4:0x500 4:0xc0 4:0x1000073
step cwf-seccomp-static \$PMUGUARD run --mode seccomp -- \$PEO 4:0x73 4:0x19c 4:0x2c2 4:0xc0
EOF
	survived
	fixed_ok() { # CASE CONFIG...: each config ENOENT in peo's output
		local c=$1 x
		shift
		rc_is "$c" 0 || return 1
		for x in "$@"; do out_has "$c" "type=4 config=$x ret=-1 errno=ENOENT" || return 1; done
	}
	guarded cwf-probe "probe: hazard on fixed counters 4, 5 and 6 (the guard's state), the finding names them" \
		eval 'python3 -c "import json, sys; d = json.load(open(sys.argv[1]))
assert d[\"state\"] == \"hazard\" and d[\"guard_state\"] == \"hazard\", d[\"state\"]
assert d[\"fixed_counters\"][\"hazard\"] == [4, 5, 6], d[\"fixed_counters\"]
assert [f[\"id\"] for f in d[\"findings\"]] == [\"fixed-e-topdown-unimplemented\"]" "$dir/cwf-probe.out"'
	guarded cwf-preload-4 "$e4 (fixed counter 4) <not supported>, instructions counted" \
		stat_ok cwf-preload-4 "$e4" 4 0x73 instructions
	guarded cwf-preload-5 "$e5 (fixed counter 5) <not supported>, cycles counted" \
		stat_ok cwf-preload-5 "$e5" 4 0x19c cycles
	guarded cwf-preload-6 "$e6 (fixed counter 6) <not supported>, instructions counted" \
		stat_ok cwf-preload-6 "$e6" 4 0x2c2 instructions
	guarded cwf-preload-raw "r0073, r019c, r02c2 and the pseudo-encoding r0500 <not supported>, instructions counted" \
		eval 'rc_is cwf-preload-raw 0 && not_supported cwf-preload-raw r0073 && not_supported cwf-preload-raw r019c &&
			not_supported cwf-preload-raw r02c2 && not_supported cwf-preload-raw r0500 && counted cwf-preload-raw instructions'
	guarded cwf-preload-gp "with cmask or inv the events run on general-purpose counters: counted; r0400 (no counter 3 here) counted" \
		eval 'rc_is cwf-preload-gp 0 && ! grep -q "not supported" "$dir/cwf-preload-gp.err" && ! err_has cwf-preload-gp "^pmuguard" &&
			counted cwf-preload-gp r0400'
	guarded cwf-run-perf "pmuguard run -- perf: the three <not supported>, instructions counted" \
		eval 'rc_is cwf-run-perf 0 && not_supported cwf-run-perf "$e4" && not_supported cwf-run-perf "$e5" &&
			not_supported cwf-run-perf "$e6" && counted cwf-run-perf instructions'
	guarded cwf-run-static "pmuguard run (auto: seccomp) with the static target: 0x73, 0x19c, 0x2c2, 0x500 ENOENT; 0xc0 and 0x73 with cmask open" \
		eval 'fixed_ok cwf-run-static 0x73 0x19c 0x2c2 0x500 && out_has cwf-run-static "type=4 config=0xc0 ret=fd" &&
			out_has cwf-run-static "type=4 config=0x1000073 ret=fd" && ! out_has cwf-run-static DISAGREE'
	guarded cwf-seccomp-static "pmuguard run --mode seccomp: the three ENOENT, instructions open" \
		eval 'fixed_ok cwf-seccomp-static 0x73 0x19c 0x2c2 && out_has cwf-seccomp-static "type=4 config=0xc0 ret=fd"'
	# Bare metal: the counters exist, nothing is blocked, all of it counts.
	boot fixed456.metal cwf-metal <<EOF
step metal-probe \$PMUGUARD probe --json
step metal-unguarded perf stat -e $e4,$e5,$e6,instructions -- true
step metal-preload env LD_PRELOAD=\$LIB perf stat -e $e4,$e5,$e6,instructions -- true
step metal-run \$PMUGUARD run -- \$PEO 4:0x73 4:0x19c 4:0x2c2 4:0xc0
EOF
	survived
	all_counted() {
		rc_is "$1" 0 && counted "$1" "$e4" && counted "$1" "$e5" && counted "$1" "$e6" &&
			counted "$1" instructions && ! err_has "$1" "^pmuguard"
	}
	guarded metal-probe "bare metal: safe, nothing hazardous" \
		eval 'python3 -c "import json, sys; d = json.load(open(sys.argv[1]))
assert d[\"state\"] == \"safe\" and d[\"fixed_counters\"][\"hazard\"] == [], (d[\"reason\"], d[\"fixed_counters\"])" "$dir/metal-probe.out"'
	guarded metal-unguarded "bare metal, unguarded: the three topdown events count" all_counted metal-unguarded
	guarded metal-preload "bare metal under the preload: the same events count, nothing blocked" all_counted metal-preload
	guarded metal-run "bare metal under pmuguard run: the static target opens all four" \
		eval 'rc_is metal-run 0 && [ "$(grep -c "ret=fd" "$dir/metal-run.out")" = 4 ]'
	;;
*)
	echo "unknown group $group" >&2
	exit 2
	;;
esac
finish
