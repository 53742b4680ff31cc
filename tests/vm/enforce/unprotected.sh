#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The checks are called through guarded(); the job's variables are its own.
# shellcheck disable=SC2317,SC2016
#
# Kernel enforcement attached but not protecting, and every answer to
# "protected?" says so: audit mode, and events opened before the start.
# The VM, the TAP lines and the checks: lib.sh here (../lib.sh under it).
#
#   unprotected.sh --tap GROUP;  unprotected.sh --list
#
# Groups:
#   enforce-audit    --mode audit on the faulting m6i: ready and status exit
#                    9, fleet status says NO, and perf kills the kernel; on a
#                    counter-3 that works: counted, allowed
#   enforce-existing perf stat -D -1 opens slots disabled before start: start,
#                    status and ready name it and exit 7, fleet status says
#                    PARTLY (3) and its metrics count it; enabled, it kills
#                    the kernel all the same; fresh opens are denied; once
#                    its owner is gone, all of them say protected again
set -euo pipefail
# shellcheck source=tests/vm/enforce/lib.sh
. "$(dirname "$0")/lib.sh"

# A holder for the events that exist before a start: perf stat -D -1 opens
# its events disabled (as perf stat -D, PAPI and profiling daemons do) and
# enables them when told (--control fifo:/tmp/ctl).  Job lines that start
# it and wait until its events are open; $holder is its pid.
holder_steps() { # PERF-STAT-ARGS...: the holder, until its events exist
	cat <<'EOF'
mkfifo /tmp/ctl /tmp/ack /tmp/go
events_of() { ls -l "/proc/$1/fd" 2>/dev/null | grep -c 'anon_inode:\[perf_event\]'; }
EOF
	echo "perf stat -D -1 --control fifo:/tmp/ctl,/tmp/ack $* >holder.out 2>holder.err &"
	cat <<'EOF'
holder=$!
echo "$holder" >holder.pid
for _ in $(seq 300); do [ "$(events_of "$holder")" -ge 2 ] && break; sleep 0.1; done
events_of "$holder" >holder.events
EOF
}
names_it() { # CASE: the holder's r0400 with the rule's hit and its state; not its instructions
	out_has "$1" "existing events: 1 of the counter-3 class, allocated before the guard was attached.*unguarded until its owner closes it" &&
		out_has "$1" "pid $holder comm perf fd [0-9]+: type 4 config 0x400 hw.config 0x400 hit slots, state off .*: TOPDOWN.SLOTS \(fixed counter 3\)$" &&
		! out_has "$1" "pid $holder comm perf fd [0-9]+: type 0 "
}

case $group in
enforce-audit)
	# Audit mode counts and allows: on a host with the hazard it protects
	# nothing, so nothing that answers "protected?" or "ready?" may say yes.
	# On the m6i that really faults: start in audit mode, ready, status and
	# pmuguard-fleet status all answer no, and the perf they were asked
	# about kills the kernel.
	boot audit-fatal m6i-old <<'EOF'
step start "$PMUGUARD" enforce start --mode audit
step ready "$PMUGUARD" enforce ready
step status "$PMUGUARD" enforce status
step status-keys "$PMUGUARD" enforce status --keys
step fleet sh "$FLEET" status --pmuguard "$PMUGUARD" --textfile "$PWD/fleet.prom"
step perf-raw perf stat -e r0400,instructions -- true
EOF
	must_panic audit-fatal perf-raw "perf r0400 under an audit guard" \
		"under an attached, verified audit guard perf r0400 kills the kernel" \
		"$dir/start.out" "$dir/perf-raw.err"
	guarded start "audit-fatal: start --mode audit attaches (audit only) and exits 0: it did what it was asked" \
		eval 'rc_is start 0 && out_has start "attached \(lsm, audit only, mode audit"'
	guarded ready "audit-fatal: enforce ready exits 9, not ready: an audit guard blocks nothing" \
		eval 'rc_is ready 9 && out_has ready "^not ready: .*audit.*blocks nothing"'
	guarded status "audit-fatal: enforce status exits 9 and says \"audit: blocks nothing\"" \
		eval 'rc_is status 9 && out_has status "audit: blocks nothing" && out_has status "NOT PROTECTED"'
	guarded status-keys "audit-fatal: status --keys: exit=9, protects=false, verified=true" \
		eval 'rc_is status-keys 9 && out_has status-keys "^exit=9$" && out_has status-keys "^protects=false$" && out_has status-keys "^verified=true$"'
	guarded fleet "audit-fatal: pmuguard-fleet status says NO (exit 3), pmuguard_protected 0, pmuguard_unguarded 1" \
		eval 'rc_is fleet 3 && out_has fleet "^pmuguard-fleet: protected: NO" && out_has fleet "^pmuguard-fleet: kernel: attached in audit mode" && grep -qx "pmuguard_protected 0" "$dir/fleet.prom" && grep -qx "pmuguard_unguarded 1" "$dir/fleet.prom"'

	# The m6i's facts (a snapshot), a test PMU whose counter 3 works; an
	# event of the class open before the start is listed; start exits 0,
	# status 9 (audit: it protects nothing).
	boot enforce-audit m6i-works < <(
		holder_steps -e r0400,instructions -- sleep 1000
		cat <<'EOF'
step start "$PMUGUARD" enforce start --mode audit --snapshot "$FIXTURES/m6i-16xlarge-oldkernel"
step start-keys "$PMUGUARD" enforce start --mode audit --snapshot "$FIXTURES/m6i-16xlarge-oldkernel" --keys
# The follower's own environment names a healthy machine: what it reports
# must be what the guard was started on (its rodata), not a probe of today.
PMUGUARD_SNAPSHOT="$FIXTURES/icx-8375c-metal" "$PMUGUARD" enforce follow >follow.out 2>follow.err &
follower=$!
step perf-raw perf stat -e r0400,instructions -- true
step static-peo "$PEO_ENABLE" 4:0x400
step status "$PMUGUARD" enforce status
step status-keys "$PMUGUARD" enforce status --keys
step ready "$PMUGUARD" enforce ready
# An audit guard protects nothing, yet it is attached: uninstall removes it.
step uninstall sh "$FLEET" uninstall --pmuguard "$PMUGUARD"
step status-uninstalled "$PMUGUARD" enforce status
# Whatever uninstall left, the follower ends only when nothing is pinned.
step stop "$PMUGUARD" enforce stop
wait "$follower"
EOF
	)
	survived
	holder=$(cat "$dir/holder.pid" 2>/dev/null || echo '?')
	guarded start "audit mode attaches and denies nothing; it lists the event open before it and exits 0" \
		eval 'rc_is start 0 && out_has start "attached \(lsm, audit only, mode audit" && out_has start "existing events: 1 of the counter-3 class \(audit mode: allowed" && out_has start "pid $holder comm perf fd [0-9]+: type 4 config 0x400 hw.config 0x400 hit slots, state off" && ! out_has start warning'
	guarded status-existing "audit: status lists it too, and exits 9 (audit: not protected)" \
		eval 'rc_is status 9 && out_has status "^  existing events: 1 of the counter-3 class \(audit mode"'
	guarded perf-raw "audit: r0400 is counted, not denied" \
		eval 'rc_is perf-raw 0 && counted perf-raw r0400 && counted perf-raw instructions'
	guarded static-peo "audit: the static binary's open succeeds" \
		out_has static-peo "^type=4 config=0x400 ret=fd count=[0-9]+$"
	guarded status "audit: status counts 2 audited, 0 denied" \
		eval 'rc_is status 9 && out_has status "^  denied: 0, audited: 2," && out_has status "audited +uid 0 +type 4 +config 0x0400 +calls 2"'
	guarded ready "audit: ready exits 9 (not ready) with the event open before it as well" \
		eval 'rc_is ready 9 && out_has ready "^not ready: .*blocks nothing \(mode audit"'
	guarded uninstall "audit: pmuguard-fleet uninstall stops the audit guard too (status then exits 6)" \
		eval 'rc_is uninstall 0 && out_has uninstall "uninstalled: kernel guard stopped" && rc_is status-uninstalled 6'
	guarded follow "audit: follow says 'would block', once per process" \
		eval 'grep -q "^pmuguard: audit: would block perf_event_open(type=4, config=0x400) in perf\[" "$dir/follow.out" && grep -q "Allowed (audit mode)" "$dir/follow.out" && follow_once'
	# shellcheck disable=SC2034 # read by the eval strings below
	reason=$(sed -n 's/^reason=//p' "$dir/status-keys.out" 2>/dev/null)
	guarded start-keys "start --keys: already attached, the snapshot's facts and reason, exit 0" \
		eval 'rc_is start-keys 0 && out_has start-keys "^schema=1$" && out_has start-keys "^outcome=already$" && out_has start-keys "^attach=lsm$" && out_has start-keys "^enforce=false$" && out_has start-keys "^facts.source=snapshot$" && out_has start-keys "^facts.snapshot=.*/m6i-16xlarge-oldkernel$" && out_has start-keys "^existing.known=true$" && out_has start-keys "^existing.hits=1$" && out_has start-keys "^existing.unguarded=false$" && out_has start-keys "^existing.events.0.pid=$holder$" && out_has start-keys "^existing.events.0.config=0x400$"'
	guarded status-keys "status --keys: the start-time facts and reason, the audited counts by encoding" \
		eval 'rc_is status-keys 9 && out_has status-keys "^attached=true$" && out_has status-keys "^mode=audit$" && out_has status-keys "^facts.state=hazard$" && out_has status-keys "^facts.source=snapshot$" && [ -n "$reason" ] && grep -qxF "reason=$reason" "$dir/start-keys.out" && out_has status-keys "^totals.audited=2$" && out_has status-keys "^by_encoding.0.decision=audited$" && out_has status-keys "^by_encoding.0.config=0x400$" && out_has status-keys "^by_encoding.0.calls=2$"'
	guarded follow-reason "follow (its own PMUGUARD_SNAPSHOT a healthy machine) says the reason the guard was started with, from its rodata" \
		eval '[ -n "$reason" ] && grep -qF "$reason" "$dir/follow.out" && ! grep -q "started with these rules" "$dir/follow.out"'
	;;
enforce-existing)
	# The guard judges an event when it is allocated: opened before the
	# start, the holder's event never passes the hook again.
	# 1. Started after the holder opened slots: start names it and warns
	# (7), a fresh open is still denied, and enabled, the old event kills
	# the kernel: the guard cannot stop it.
	boot existing-enabled m6i-old < <(
		holder_steps -i -e r0400,instructions -- sh -c "'while :; do sleep 0.1; done'"
		cat <<'EOF'
step start "$PMUGUARD" enforce start
step fresh "$PEO_ENABLE" 4:0x400 4:0x1a4
step status "$PMUGUARD" enforce status
step ready "$PMUGUARD" enforce ready
step fleet sh "$FLEET" status --pmuguard "$PMUGUARD" --textfile "$PWD/fleet.prom"
step fleet-json sh "$FLEET" status --json --pmuguard "$PMUGUARD"
step enable sh -c 'echo enable >/tmp/ctl; sleep 60'
EOF
	)
	holder=$(cat "$dir/holder.pid" 2>/dev/null || echo '?')
	must_panic existing-enabled enable "opened disabled before start, enabled after it" \
		"an event perf opened disabled before start and enabled after it kills the kernel; the guard cannot stop it" \
		"$dir/start.out" "$dir/holder.err"
	guarded start "existing-enabled: start attaches, names the holder's slots event (pid $holder, perf) and exits 7" \
		eval 'rc_is start 7 && out_has start "^pmuguard: enforce: attached \(lsm, denying with ENOENT" && names_it start'
	guarded fresh "existing-enabled: an event opened after start is still denied (ENOENT); TOPDOWN.SLOTS_P counts" \
		enable_ok fresh 4
	guarded status "existing-enabled: status names it too and exits 7" \
		eval 'rc_is status 7 && names_it status'
	guarded ready "existing-enabled: enforce ready exits 7, not ready: the node can still panic" \
		eval 'rc_is ready 7 && out_has ready "^not ready: .*1 perf event of the counter-3 class opened before the guard"'
	guarded fleet "existing-enabled: pmuguard-fleet status says PARTLY (exit 3), names pid $holder (perf), pmuguard_protected 0, pmuguard_kernel_existing_events 1" \
		eval 'rc_is fleet 3 && out_has fleet "^pmuguard-fleet: protected: PARTLY, by kernel: 1 perf event of the hazardous class opened before the guard \(pid $holder perf\) is not guarded; restart that process$" && grep -qx "pmuguard_protected 0" "$dir/fleet.prom" && grep -qx "pmuguard_kernel_existing_events 1" "$dir/fleet.prom" && grep -qx "pmuguard_layer_installed{layer=\"kernel\"} 1" "$dir/fleet.prom"'
	guarded fleet-json "existing-enabled: pmuguard-fleet status --json: exit 3, the kernel layer, 1 existing event unguarded" \
		eval 'rc_is fleet-json 3 && json_ok fleet-json "j[\"exit\"] == 3 and j[\"layer\"] == \"kernel\" and j[\"kernel\"][\"existing_events\"] == 1 and j[\"kernel\"][\"existing_unguarded\"] == 1"'

	# 2. The same, never enabled: the kernel lives.  The holder's workload
	# cannot fork (its events inherit); once the holder is gone, start and
	# status exit 0 and say none.
	boot enforce-existing m6i-old < <(
		holder_steps -e r0400,instructions -- python3 "\$VMDIR/forks.py" /tmp/go
		cat <<'EOF'
step status-before "$PMUGUARD" enforce status
step start "$PMUGUARD" enforce start
step start-again "$PMUGUARD" enforce start
step fresh "$PEO_ENABLE" 4:0x400 4:0x1a4
step fresh-perf perf stat -e r0400,instructions -- true
step status "$PMUGUARD" enforce status
step ready "$PMUGUARD" enforce ready
echo go >/tmp/go
wait "$holder"; echo $? >holder.rc
step status-closed "$PMUGUARD" enforce status
step ready-closed "$PMUGUARD" enforce ready
step fleet-closed sh "$FLEET" status --pmuguard "$PMUGUARD" --textfile "$PWD/fleet.prom"
step start-closed "$PMUGUARD" enforce start
step stop "$PMUGUARD" enforce stop
# Where the iterator cannot run: lockdown=confidentiality keeps BPF from
# reading kernel memory (a level can be raised, never lowered, so last).
# The guard attaches all the same; the events are "unknown", never "none".
echo confidentiality >/sys/kernel/security/lockdown
step start-lockdown "$PMUGUARD" enforce start
step status-lockdown "$PMUGUARD" enforce status
step fresh-lockdown "$PEO_ENABLE" 4:0x400
step stop-lockdown "$PMUGUARD" enforce stop
EOF
	)
	survived
	holder=$(cat "$dir/holder.pid" 2>/dev/null || echo '?')
	guarded status-before "before start, status exits 6 as before" \
		eval 'rc_is status-before 6 && ! out_has status-before "existing events"'
	guarded start "start names perf's event (it inherits) and exits 7; perf's instructions event is not named" \
		eval 'rc_is start 7 && names_it start && out_has start "pid $holder comm perf .*, inherit \(copies its children got before the start are unguarded too; a fork after it fails with ENOENT\)"'
	guarded start-again "a second start: already attached, the same warning, 7" \
		eval 'rc_is start-again 7 && out_has start-again "already attached \(lsm" && names_it start-again'
	guarded fresh "a fresh open after start: ENOENT; TOPDOWN.SLOTS_P counts" enable_ok fresh 4
	guarded fresh-perf "a fresh perf after start: r0400 <not supported>, instructions counted" \
		perf_ok fresh-perf r0400 instructions
	guarded status "status names it and exits 7; the counts are there" \
		eval 'rc_is status 7 && names_it status && out_has status "^  denied: [1-9]"'
	guarded forks "the holder's workload cannot fork after start: its inherited copy is denied (ENOENT)" \
		eval 'grep -q "^fork=-1 errno=ENOENT$" "$dir/holder.out"'
	guarded ready "ready exits 7 while it exists" \
		eval 'rc_is ready 7 && out_has ready "^not ready: "'
	guarded status-closed "once its owner has closed it, status exits 0 and says none" \
		eval 'rc_is status-closed 0 && out_has status-closed "^  existing events: none of the counter-3 class"'
	guarded ready-closed "then ready exits 0, and pmuguard-fleet status says protected by the kernel (0), pmuguard_kernel_existing_events 0" \
		eval 'rc_is ready-closed 0 && out_has ready-closed "^ready: " && rc_is fleet-closed 0 && out_has fleet-closed "^pmuguard-fleet: protected: yes, by kernel$" && grep -qx "pmuguard_protected 1" "$dir/fleet.prom" && grep -qx "pmuguard_kernel_existing_events 0" "$dir/fleet.prom"'
	guarded start-closed "and start exits 0 as before" \
		eval 'rc_is start-closed 0 && out_has start-closed "already attached" && out_has start-closed "existing events: none of the counter-3 class"'
	guarded stop "stop" rc_is stop 0
	guarded start-lockdown "lockdown=confidentiality: start attaches (0), and the existing events are unknown (why), never none" \
		eval 'rc_is start-lockdown 0 && out_has start-lockdown "^pmuguard: enforce: attached \(lsm" && out_has start-lockdown "^pmuguard: enforce: existing events: unknown \(the kernel refused the task_file iterator: .*lockdown is confidentiality" && ! out_has start-lockdown "none of"'
	guarded status-lockdown "lockdown=confidentiality: status says unknown too (0); the guard still denies" \
		eval 'rc_is status-lockdown 0 && out_has status-lockdown "^  existing events: unknown \(" && out_has fresh-lockdown "errno=ENOENT$" && rc_is stop-lockdown 0'
	;;
*)
	echo "unknown group $group" >&2
	exit 2
	;;
esac
finish
