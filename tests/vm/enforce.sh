#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The checks are called through guarded(); the job's variables are its own.
# shellcheck disable=SC2317,SC2016
#
# Kernel enforcement (`pmuguard enforce`) on Debian's real 6.1 kernel in the
# VM test bed (tests/vm/README.md, vm.sh, world.sh).
#
#   enforce.sh --tap GROUP
#
# Groups:
#   enforce-lsm      each case unguarded in a boot of its own must kill the
#                    kernel; then one boot: `enforce start` (BPF LSM), every
#                    case again with no preload anywhere, status, follow,
#                    a second start, stop
#   enforce-stop     start, a denied open, stop, the same open kills the kernel
#   enforce-fmod-ret a boot without bpf in lsm=: start falls back to fmod_ret
#   enforce-audit    --mode audit on the faulting m6i: ready and status exit
#                    9, fleet status says NO, and perf kills the kernel; on a
#                    counter-3 that works: counted, allowed
#   enforce-hybrid   both core types of a hybrid guest (cpu_core 4, cpu_atom)
#   enforce-healthy  a healthy world: nothing is attached, slots counts
#   enforce-verify   lsm= without bpf: --attach lsm attaches a program that
#                    never runs; the self-test catches it (exit 4, detached;
#                    kept with --keep-unverified: status exits 8, the fleet
#                    says unguarded, and the open kills the kernel); auto
#                    takes fmod_ret, verified, and takes over the unverified one
#   enforce-cloud    Debian's cloud kernel (no 9p: an ext4 root image), its
#                    own CONFIG_LSM: lsm, verified, ENOENT; unguarded it dies
#   enforce-bare     no bpffs and no securityfs mounted: start mounts bpffs,
#                    cannot read the LSM list, lets the self-test decide
#   enforce-fixed456 a Clearwater Forest guest's fixed counters 4-6: the
#                    topdown events denied in the kernel, unguarded it dies
#   enforce-containers the agent's image under podman (the DaemonSet's
#                    capabilities, a read-only root): a second container's
#                    static program gets ENOENT, the agent's --textfile
#                    on the host says protected and counts the denial (the
#                    README's alerts), the guard outlives the agent's container,
#                    and perf in a container of its own is not guarded by
#                    the host's preload (the kernel dies; fleet status says)
#   enforce-systemd  the .deb under the host's own systemd as PID 1: the
#                    hardened units start and do their work (the follower,
#                    the boot's re-probe, the metrics), systemd-analyze
#                    security scores them, `journalctl -x` explains a kernel
#                    denial from the catalog, an upgrade keeps the enabled
#                    follower and the timer running, removal stops them
#   enforce-existing perf stat -D -1 opens slots disabled before start: start,
#                    status and ready name it and exit 7, fleet status says
#                    PARTLY (3) and its metrics count it; enabled, it kills
#                    the kernel all the same; fresh opens are denied; once
#                    its owner is gone, all of them say protected again
#
# Exit 0 pass, 1 fail; a host that cannot run the VM gives a TAP skip.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
if [ "${1:-}" = --list ]; then
	list_cases "$0" group
	exit 0
fi
: "${PMUGUARD:?path to the pmuguard command}" "${PEO:?path to the static peo target}"
: "${VM_CACHE:?cache directory for the VM}" "${PEO_ENABLE:?path to the static peo-enable target}"
[ "${1:-}" != --tap ] || shift
group=${1:?usage: enforce.sh [--tap] GROUP}

"$PMUGUARD" enforce status >/dev/null 2>&1 && rc=0 || rc=$?
[ "$rc" != 5 ] || skip_all "pmuguard was built without enforce"
vm_setup
# What every job sees (boot), and how its checks read (survived).
# shellcheck disable=SC2034 # read by boot() through job_vars
FIXTURES=$fixtures VMDIR=$here FLEET=$(cd "$here/../../scripts" && pwd)/pmuguard-fleet
job_vars=(PMUGUARD PEO PEO_ENABLE GOPEO FIXTURES VMDIR FLEET)
survival_is_a_proof=1

# follow.out names each (encoding, process) once, however often it was denied.
follow_once() {
	[ -z "$(grep -o 'perf_event_open(type=[0-9]*, config=0x[0-9a-f]*) in [^ ]*' "$dir/follow.out" |
		sort | uniq -d)" ]
}
perf_ok() { # CASE DENIED-EVENT COUNTED-EVENT...
	local c=$1 ev=$2
	shift 2
	rc_is "$c" 0 && not_supported "$c" "$ev" || return 1
	local e
	for e in "$@"; do counted "$c" "$e" || return 1; done
}
peo_ok() { # CASE TYPE: 0x400 ENOENT, 0x1a4 (TOPDOWN.SLOTS_P) opened (peo, gopeo)
	out_has "$1" "^type=$2 config=0x400 ret=-1 errno=ENOENT$" &&
		out_has "$1" "^type=$2 config=0x1a4 ret=fd errno=0$"
}
enable_ok() { # CASE TYPE: the same for peo-enable, 0x1a4 scheduled and read
	rc_is "$1" 0 && out_has "$1" "^type=$2 config=0x400 ret=-1 errno=ENOENT$" &&
		out_has "$1" "^type=$2 config=0x1a4 ret=fd count=[0-9]+$"
}

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
# The cases every kind of caller makes: a step each.  N is the counter-3
# encoding's event for perf (r0400 or r8000).
lsm_steps() {
	cat <<'EOF'
step static-peo "$PEO_ENABLE" 4:0x400 4:0x1a4
step perf-raw perf stat -e r0400,instructions -- true
step perf-metric perf stat -e r8000,cycles -- true
step perf-by-name perf stat -e TOPDOWN.SLOTS,instructions -- true
step container unshare --mount --pid --fork --mount-proc chroot / perf stat -e r0400,instructions -- true
step nonroot setpriv --reuid=65534 --regid=65534 --clear-groups perf stat -e r0400,instructions -- true
step inherit-children perf stat -e r8000,instructions -- sh -c 'sh -c true; /bin/true'
EOF
	# tests/targets/peo.go's attr sets its "disabled" bits in sample_type
	# (rest[1]), so its events are enabled and scheduled: fatal unguarded.
	[ -z "$GOPEO" ] || echo 'step go-peo "$GOPEO" 4:0x400 4:0x1a4'
}

case $group in
enforce-systemd)
	[ "$(id -u)" = 0 ] || skip_all "building the .deb and booting systemd need root"
	command -v dpkg-buildpackage >/dev/null || skip_all "dpkg-buildpackage is not installed"
	[ -x /lib/systemd/systemd ] || skip_all "this host has no systemd to boot"
	set +e
	deb1=$("$here/../deb.sh" "${DEB_CACHE:-$VM_CACHE/deb}" 2>"$tmp/deb.err")
	rc=$?
	set -e
	[ "$rc" = 0 ] || { tap_not_ok "building the .deb failed" "$tmp/deb.err"; finish; }
	# The upgrade: the same package under a higher version, as dpkg sees
	# any upgrade (prerm upgrade, preinst upgrade, postinst configure OLD).
	dpkg-deb -R "$deb1" "$tmp/deb2"
	sed -i 's/^Version: .*/&+upgrade1/' "$tmp/deb2/DEBIAN/control"
	dpkg-deb -b --root-owner-group "$tmp/deb2" "$tmp/pmuguard-upgrade.deb" >/dev/null
	fatal perf-unguarded m6i-old 0x400 "perf stat -e r0400 with no unit running" \
		<<<'step perf-unguarded perf stat -e r0400,instructions -- true'
	export VM_INIT=systemd VM_TIMEOUT=600
	boot enforce-systemd m6i-old <<EOF
DEB1='$deb1' DEB2='$tmp/pmuguard-upgrade.deb'
$(cat <<'JOB'
rm -f /var/lib/man-db/auto-update # no mandb in dpkg's triggers: TCG is slow
rm -f /usr/sbin/policy-rc.d # a container host's "start nothing": not a real host's
cp -a /tmp/pmuguard-facts /run/pmuguard-facts # the units' /tmp is private
# The world's facts as the host's policy: the reprobe locks it, and a locked
# policy ignores PMUGUARD_SNAPSHOT (the drop-ins below, for the units).
printf 'snapshot = /run/pmuguard-facts\n' >/etc/pmuguard.conf
# node_exporter's textfile directory and the m6i world (a drop-in per unit)
# are there before the package, as on a host it is rolled out to.
mkdir -p /var/lib/prometheus/node-exporter
for u in enforce reprobe metrics; do
	mkdir -p /etc/systemd/system/pmuguard-$u.service.d
	printf '[Service]\nEnvironment=PMUGUARD_SNAPSHOT=/run/pmuguard-facts\n' \
		>/etc/systemd/system/pmuguard-$u.service.d/world.conf
done
step install dpkg -i "$DEB1"
installed=$(cut -d' ' -f1 /proc/uptime)
step timer-started systemctl is-active pmuguard-metrics.timer
# The install's start is the timer's first: OnBootSec=1min elapses at once
# where the boot is a minute old (systemd.timer(5)), else a minute after
# boot, AccuracySec=30s later at most.  Waited for, 150 s at most.
prom=/var/lib/prometheus/node-exporter/pmuguard.prom
for _ in $(seq 300); do
	[ -e $prom ] && [ "$(systemctl show -p ActiveState --value pmuguard-metrics.service)" != activating ] && break
	sleep 0.5
done
cp $prom metrics-first.prom 2>/dev/null
{
	echo "installed at ${installed}s of uptime, the file there at $([ -e $prom ] && cut -d' ' -f1 /proc/uptime || echo never)s"
	journalctl -b --no-pager -u pmuguard-metrics.service
} >metrics-first.out 2>&1
step enable systemctl enable --now pmuguard-enforce.service
journalctl -b --no-pager -u pmuguard-enforce.service >enforce.journal 2>&1
step active systemctl is-active pmuguard-enforce.service
step status pmuguard enforce status
step security systemd-analyze security --no-pager pmuguard-enforce.service \
	pmuguard-reprobe.service pmuguard-metrics.service
step denied perf stat -e r0400,instructions -- true
# The follower writes the denial to the journal when it reads the ring:
# waited for, 60 s at most (a TCG boot on a busy machine is slow).
for _ in $(seq 600); do
	journalctl -q --no-pager MESSAGE_ID=d93446f22afd479cb455b565ea7ca8ed 2>/dev/null | grep -q . && break
	sleep 0.1
done
step catalog journalctl -x --no-pager MESSAGE_ID=d93446f22afd479cb455b565ea7ca8ed
step catalog-block journalctl --dump-catalog 7cd40d08058b4d219f41289bb6a12067
step reprobe systemctl start pmuguard-reprobe.service
step metrics systemctl start pmuguard-metrics.service
cp /var/lib/prometheus/node-exporter/pmuguard.prom metrics.prom 2>/dev/null
# Where node_exporter's directory does not exist, the unit says so once a
# boot, not at each of the timer's runs.
echo PMUGUARD_FLEET_TEXTFILE=/nonexistent/pmuguard.prom >/etc/default/pmuguard-fleet
step metrics-nodir sh -c 'systemctl start pmuguard-metrics.service && systemctl start pmuguard-metrics.service'
journalctl -b --no-pager -o cat -u pmuguard-metrics.service >metrics-nodir.journal 2>&1
rm -f /etc/default/pmuguard-fleet
systemctl show -p MainPID --value pmuguard-enforce.service >pid.before
step upgrade dpkg -i "$DEB2"
systemctl show -p MainPID --value pmuguard-enforce.service >pid.after
step active-upgraded systemctl is-active pmuguard-enforce.service pmuguard-metrics.timer
step status-upgraded pmuguard enforce status
step denied-upgraded perf stat -e r0400,instructions -- true
step remove dpkg -r pmuguard
step active-removed systemctl is-active pmuguard-enforce.service pmuguard-metrics.timer
journalctl -b --no-pager -u 'pmuguard-*' >units.journal 2>&1
JOB
)
EOF
	unset VM_INIT VM_TIMEOUT
	survived
	guarded install "dpkg -i $(basename "$deb1") under systemd: installed, its units loaded" rc_is install 0
	guarded timer-started "dpkg -i starts pmuguard-metrics.timer: active with no reboot and no systemctl start" \
		eval 'rc_is timer-started 0 && out_has timer-started "^active$"'
	guarded metrics-first "the timer's first refresh writes the metrics file, with no reboot: $(head -n 1 "$dir/metrics-first.out" 2>/dev/null)" \
		eval 'grep -q "^pmuguard_status_timestamp_seconds " "$dir/metrics-first.prom"'
	guarded enable "systemctl enable --now pmuguard-enforce.service: the hardened unit attaches and follows" \
		eval 'rc_is enable 0 && out_has active "^active$" && rc_is status 0'
	rc_is enable 0 || sed 's/^/#   /' "$dir/enforce.journal"
	scores=$(sed -nE 's/.*Overall exposure level for (pmuguard-[a-z]+)\.service: ([0-9.]+) .*/\1 \2/p' \
		"$dir/security.out" | tr '\n' ' ')
	echo "# systemd-analyze security: $scores"
	guarded security "systemd-analyze security rates every unit below 4 (was 9.5-9.6): $scores" \
		eval '[ "$(echo "$scores" | wc -w)" = 6 ] && echo "$scores" |
			awk "{ for (i = 2; i <= NF; i += 2) if (\$i >= 4) exit 1 }"'
	guarded denied "the hardened guard denies: perf prints <not supported> for r0400 and counts instructions" \
		perf_ok denied r0400 instructions
	guarded catalog "journalctl -x explains the kernel denial from the catalog (subject, cause, remedy)" \
		eval 'out_has catalog "pmuguard.s kernel guard: perf asked for an unimplemented fixed counter \(deny\)" &&
			out_has catalog "Remedy: nothing is broken" && out_has catalog-block "^Subject: pmuguard: "'
	guarded reprobe "pmuguard-reprobe.service, hardened, re-probes and guards (exit 0)" rc_is reprobe 0
	guarded metrics "pmuguard-metrics.service, hardened, writes the textfile: the kernel guard seen to work, the boot's reprobe kept" \
		eval 'rc_is metrics 0 && grep -qx "pmuguard_protected 1" "$dir/metrics.prom" &&
			grep -qx "pmuguard_reprobe_success 1" "$dir/metrics.prom"'
	guarded metrics-nodir "without node_exporter's directory the metrics unit succeeds and says so once, not at every run" \
		eval 'rc_is metrics-nodir 0 && [ "$(grep -c "does not exist: no metrics written" "$dir/metrics-nodir.journal")" = 1 ]'
	# The README's alerts against the file the real unit wrote after a real
	# kernel denial: each selects the series it is meant to.
	guarded alerts "every shipped alert (pmuguard.rules.yml) on these series selects one in the file written after a real kernel denial (decision=\"denied\", config=\"0x400\")" \
		eval 'grep -q "^pmuguard_kernel_calls_total{decision=\"denied\",pmu_type=\"4\",config=\"0x400\"} [1-9]" "$dir/metrics.prom" &&
			python3 "$here/../e2e/alerts.py" "$here/../../scripts/prometheus/pmuguard.rules.yml" "$dir/metrics.prom" pmuguard_kernel_calls_total \
				pmuguard_unguarded pmuguard_status_timestamp_seconds pmuguard_verdict pmuguard_reprobe_success'
	guarded upgrade "an upgrade keeps the enabled follower and the metrics timer running, the follower restarted on the new binary (pid $(cat "$dir/pid.before" 2>/dev/null) -> $(cat "$dir/pid.after" 2>/dev/null)), still guarded" \
		eval 'rc_is upgrade 0 && rc_is active-upgraded 0 && [ "$(grep -c "^active$" "$dir/active-upgraded.out")" = 2 ] &&
			[ -s "$dir/pid.after" ] && [ "$(cat "$dir/pid.after")" != 0 ] &&
			[ "$(cat "$dir/pid.before")" != "$(cat "$dir/pid.after")" ] &&
			rc_is status-upgraded 0 && perf_ok denied-upgraded r0400 instructions'
	guarded remove "dpkg -r stops the follower and the timer" \
		eval 'rc_is remove 0 && ! grep -q "^active$" "$dir/active-removed.out"'
	;;
enforce-lsm)
	[ -n "$GOPEO" ] || echo "# no Go: go-peo is skipped"
	while read -r _ c rest; do
		config=0x400
		case $c in perf-metric | inherit-children) config=0x8000 ;; esac
		fatal "$c" m6i-old "$config" "${rest%% -- *}" <<<"step $c $rest"
	done < <(lsm_steps)
	boot enforce-lsm.guarded m6i-old < <(
		cat <<'EOF'
unset LD_PRELOAD
{ env; [ ! -e /etc/ld.so.preload ] || echo "ld.so.preload: $(cat /etc/ld.so.preload)"; } >env.txt
sysctl -qw kernel.bpf_stats_enabled=1
step status-before "$PMUGUARD" enforce status
step start "$PMUGUARD" enforce start
step start-again "$PMUGUARD" enforce start
"$PMUGUARD" enforce follow >follow.out 2>follow.err &
follower=$!
EOF
		lsm_steps
		cat <<'EOF'
step generic-ids perf stat -e cycles,instructions,branches,ref-cycles -- true
step race "$PEO_ENABLE" --race 300
step status "$PMUGUARD" enforce status
step status-json "$PMUGUARD" enforce status --json
# Another policy replaces the program: the followers go on with the new
# program's ring buffer (they read the old one, which gets nothing more).
step replace "$PMUGUARD" enforce start --mode always
step after-replace "$PEO_ENABLE" 4:0x8000
for _ in $(seq 300); do grep -q 'config=0x8000) in peo-enable' follow.out && break; sleep 0.1; done
step stop "$PMUGUARD" enforce stop
wait "$follower"; echo $? >follow.rc
# A follower as systemd would start it, stdout the journal (JOURNAL_STREAM
# names that stream), with a stand-in journald on the native socket: its
# reports must be native entries, not stdout lines.  Alone: a ring buffer
# has one read position, so two followers would split the reports.
step restart "$PMUGUARD" enforce start
mkdir -p /run/systemd/journal
python3 -c '
import socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/run/systemd/journal/socket")
with open("journal.txt", "a", buffering=1) as out:
    while True:
        out.write(s.recv(65536).decode("utf-8", "replace").replace("\n", "|") + "\n")
' &
listener=$!
for _ in $(seq 300); do [ -S /run/systemd/journal/socket ] && break; sleep 0.1; done
: >follow-journal.out
JOURNAL_STREAM=$(stat -c %d:%i follow-journal.out) "$PMUGUARD" enforce follow >>follow-journal.out 2>follow-journal.err &
jfollower=$!
step journal-denied setpriv --reuid=65534 --regid=65534 --clear-groups "$PEO_ENABLE" 4:0x400
for _ in $(seq 300); do grep -q 'PMUGUARD_LAYER=kernel' journal.txt 2>/dev/null && break; sleep 0.1; done
step stop-journal "$PMUGUARD" enforce stop
wait "$jfollower"; echo $? >follow-journal.rc
kill "$listener"
step status-after "$PMUGUARD" enforce status
step stop-again "$PMUGUARD" enforce stop
ls -A /sys/fs/bpf >bpffs.txt
EOF
	)
	survived
	if grep -q '^LD_PRELOAD=\|^ld.so.preload:' "$dir/env.txt"; then
		tap_not_ok "enforce-lsm: a preload is in the way of the guarded runs" "$dir/env.txt"
	else
		tap_ok "enforce-lsm: no LD_PRELOAD, no /etc/ld.so.preload, no supervisor: only the kernel guards"
	fi
	guarded status-before "before start, status exits 6 and says nothing is pinned" \
		eval 'rc_is status-before 6 && out_has status-before "not attached: nothing is pinned"'
	guarded start "start attaches through BPF LSM (bpf is in lsm=)" \
		eval 'rc_is start 0 && out_has start "^pmuguard: enforce: attached \(lsm, denying with ENOENT"'
	guarded start-again "a second start is idempotent" \
		eval 'rc_is start-again 0 && out_has start-again "already attached \(lsm"'
	guarded static-peo "a static binary's inline syscall gets ENOENT; TOPDOWN.SLOTS_P counts" \
		enable_ok static-peo 4
	if [ -n "$GOPEO" ]; then
		guarded go-peo "a Go program's syscall package gets ENOENT; TOPDOWN.SLOTS_P opens" \
			peo_ok go-peo 4
	fi
	guarded perf-raw "perf without LD_PRELOAD: r0400 <not supported>, instructions counted" \
		perf_ok perf-raw r0400 instructions
	guarded perf-metric "r8000 (a metric) <not supported>, cycles counted" \
		perf_ok perf-metric r8000 cycles
	guarded perf-by-name "TOPDOWN.SLOTS by name <not supported>, instructions counted" \
		perf_ok perf-by-name TOPDOWN.SLOTS instructions
	guarded container "in its own mount and pid namespace, chrooted: <not supported>" \
		perf_ok container r0400 instructions
	guarded nonroot "as uid 65534: <not supported>, instructions counted" \
		perf_ok nonroot r0400 instructions
	guarded inherit-children "children of the counted command: r8000 <not supported>" \
		perf_ok inherit-children r8000 instructions
	guarded generic-ids "PERF_TYPE_HARDWARE ids all count (none maps to counter 3)" \
		eval 'rc_is generic-ids 0 && counted generic-ids cycles && counted generic-ids instructions && counted generic-ids branches && counted generic-ids ref-cycles'
	# Not run unguarded: whether the flipper wins before a given open is
	# luck, and a case must not depend on luck.  Guarded, no outcome of
	# the race may reach the fault.
	guarded race "a thread flipping config 0x01a4/0x0400 during 300 opens: every open judged on the kernel's copy ($(cat "$dir/race.out" 2>/dev/null))" \
		eval 'rc_is race 0 && out_has race "^race: 300 opens, [0-9]+ opened, [0-9]+ ENOENT, 0 other$"'
	guarded status "status: lsm, the denials counted per encoding and per uid" \
		eval 'rc_is status 0 && out_has status "attached \(lsm: BPF LSM hook perf_event_alloc\)" && out_has status "^  denied: [1-9]" && out_has status "denied +uid 65534 +type 4 +config 0x0400" && out_has status "denied +uid 0 +type 4 +config 0x8000" && out_has status "uid 65534: [1-9][0-9]* denied"'
	guarded status-json "status --json: schema 1, lsm, the start's facts, the same counts as the text" \
		python3 - "$dir/status-json.out" "$dir/status.out" <<'PY'
import json, re, sys
s = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
assert s["schema"] == 1 and s["exit"] == 0 and s["attached"] is True and s["error"] is None, s
assert s["attach"] == "lsm" and s["mode"] == "auto" and s["enforce"] is True, s
assert s["verified"] is True and s["protects"] is True and s["verification"]["canary_errno"] == "EBADSLT", s
# The world's facts come through the policy file's snapshot key.
f = s["facts"]
assert f["state"] == "hazard" and (f["source"], bool(f["snapshot"])) in (("live", False), ("snapshot", True)), f
assert s["reason"] and s["reason"] in text, s["reason"]
t = re.search(r"denied: (\d+), audited: (\d+), reports lost: (\d+)", text)
assert (s["totals"]["denied"], s["totals"]["audited"]) == (int(t[1]), int(t[2])), s["totals"]
enc = {(e["decision"], e["uid"], e["config"]) for e in s["by_encoding"]}
assert ("denied", 65534, "0x400") in enc and ("denied", 0, "0x8000") in enc, enc
assert sum(e["calls"] for e in s["by_encoding"]) == s["totals"]["denied"], s
assert {u["uid"] for u in s["by_uid"]} >= {0, 65534}, s["by_uid"]
assert s["existing"]["known"] is True and s["existing"]["hits"] == 0, s["existing"]
assert s["program"]["xlated_insns"] > 0 and s["program"]["object"].startswith("0x"), s["program"]
PY
	guarded follow "follow: one line per process and encoding, in the shim's words, with uid and cgroup" \
		eval 'grep -q "^pmuguard: blocked perf_event_open(type=4, config=0x400) in peo-enable\[[0-9]*\]: TOPDOWN.SLOTS (fixed counter 3): .*Returned ENOENT.* \[kernel lsm: uid 0, cgroup [0-9]*, pmu type 4, hw.config 0x[0-9a-f]*400\]" "$dir/follow.out" && grep -q "uid 65534" "$dir/follow.out" && follow_once'
	guarded replace "a start with another mode replaces the program; follow goes on with the new one" \
		eval 'rc_is replace 0 && out_has replace "replaced and attached" && out_has after-replace "errno=ENOENT" && sed -n "/replaced by another start; following its denials (lsm, mode always)/,\$p" "$dir/follow.out" | grep -q "config=0x8000) in peo-enable"'
	guarded follow-journal "follow under systemd: native journal entries (MESSAGE_ID, PMUGUARD_LAYER=kernel, the fields), no stdout lines" \
		eval 'grep "MESSAGE_ID=d93446f22afd479cb455b565ea7ca8ed|" "$dir/journal.txt" | grep "|PMUGUARD_LAYER=kernel|" | grep "|PMUGUARD_PROGRAM=peo-enable|" | grep "|PMUGUARD_UID=65534|" | grep "|PMUGUARD_DECISION=deny|" | grep -q "|PMUGUARD_CONFIG=0x400|" && rc_is journal-denied 0 && out_has journal-denied "errno=ENOENT" && ! grep -q "blocked" "$dir/follow-journal.out" && [ "$(cat "$dir/follow-journal.rc")" = 0 ]'
	guarded stop "stop unpins; follow ends by itself; status exits 6; a second stop is fine" \
		eval 'rc_is stop 0 && [ "$(cat "$dir/follow.rc")" = 0 ] && rc_is status-after 6 && rc_is stop-again 0 && ! grep -q pmuguard "$dir/bpffs.txt"'
	sed -n 's/^  program: /# cost: /p; s/^  runs: /# cost: runs /p' "$dir/status.out"
	;;
enforce-fleet-layer)
	# The fleet installer on a kernel that takes the BPF guard picks the
	# kernel layer (this host's kernel refuses it, so the fleet suite shows
	# the preload chosen there); /etc/ld.so.preload (the VM's overlay) is
	# left alone, and the counter-3 open gets ENOENT from the kernel.
	fleet=$(cd "$here/../../scripts" && pwd)/pmuguard-fleet
	# The world's facts as the host's policy: install locks it, and a
	# locked policy ignores PMUGUARD_SNAPSHOT.
	boot enforce-fleet-layer m6i-old <<EOF
printf 'snapshot = /tmp/pmuguard-facts\\n' >/etc/pmuguard.conf
step install sh '$fleet' install --layer auto --pmuguard "\$PMUGUARD"
step status sh '$fleet' status --json --pmuguard "\$PMUGUARD"
step denied "\$PEO_ENABLE" 4:0x400
step preload sh -c 'cat /etc/ld.so.preload 2>/dev/null; true'
EOF
	if [ "$result" = "exit 0" ] && rc_is install 0 && rc_is denied 0 &&
		out_has denied "errno=ENOENT" && out_has status '"layer": *"kernel"' &&
		! out_has preload libpmuguard; then
		tap_ok "enforce-fleet-layer: pmuguard-fleet install --layer auto chose the kernel layer on a kernel that takes it; ENOENT, no preload entry"
	else
		tap_not_ok "enforce-fleet-layer: expected the kernel layer; got $result" \
			"$dir/install.out" "$dir/install.err" "$dir/status.out" "$dir/denied.out" "$dir/console"
	fi
	;;
enforce-stop)
	boot enforce-stop m6i-old <<'EOF'
step start "$PMUGUARD" enforce start
step denied "$PEO_ENABLE" 4:0x400
step stop "$PMUGUARD" enforce stop
step after-stop "$PEO_ENABLE" 4:0x400
EOF
	if [ "$result" = kernel-fault ] && rc_is denied 0 && out_has denied "errno=ENOENT" &&
		rc_is stop 0 && [ -e "$dir/after-stop.started" ] && [ ! -e "$dir/after-stop.rc" ]; then
		tap_ok "enforce-stop: ENOENT while started; after stop the same open kills the kernel again ($(panic_summary "$dir/console"))"
	else
		tap_not_ok "enforce-stop: expected ENOENT, then a panic after stop; got $result" \
			"$dir/denied.out" "$dir/stop.out" "$dir/console"
	fi
	;;
enforce-fmod-ret)
	export VM_LSM=lockdown,yama
	boot enforce-fmod-ret m6i-old <<'EOF'
cat /sys/kernel/security/lsm >lsm.txt
step start "$PMUGUARD" enforce start
step static-peo "$PEO_ENABLE" 4:0x400 4:0x1a4
step perf-raw perf stat -e r0400,instructions -- true
step status "$PMUGUARD" enforce status
step replace "$PMUGUARD" enforce start --mode always
step replaced-peo "$PEO_ENABLE" 4:0x400
step status-replaced "$PMUGUARD" enforce status
step stop "$PMUGUARD" enforce stop
# Two starts at once: both succeed, one guard is pinned.
"$PMUGUARD" enforce start >two-a.out 2>&1 & a=$!
"$PMUGUARD" enforce start >two-b.out 2>&1 & b=$!
ra=0; wait "$a" || ra=$?
rb=0; wait "$b" || rb=$?
echo "$ra $rb" >two.rc
step two-status "$PMUGUARD" enforce status
step two-peo "$PEO_ENABLE" 4:0x400
step two-stop "$PMUGUARD" enforce stop
EOF
	unset VM_LSM
	survived
	guarded start "without bpf in lsm= ($(cat "$dir/lsm.txt" 2>/dev/null)), start falls back to fmod_ret" \
		eval 'rc_is start 0 && out_has start "attached \(fmod_ret, denying with ENOENT"'
	guarded static-peo "fmod_ret: the static binary gets ENOENT" enable_ok static-peo 4
	guarded perf-raw "fmod_ret: perf r0400 <not supported>, instructions counted" \
		perf_ok perf-raw r0400 instructions
	guarded status "status says fmod_ret and counts" \
		eval 'rc_is status 0 && out_has status "attached \(fmod_ret: fmod_ret on security_perf_event_alloc\)" && out_has status "^  verified: the self-test" && out_has status "^  denied: 2,"'
	guarded replace "a start with another policy replaces the attached one (pinned beside it, renamed over it)" \
		eval 'rc_is replace 0 && out_has replace "replaced and attached \(fmod_ret, denying with ENOENT, mode always" && out_has status-replaced "mode: always" && out_has replaced-peo "^type=4 config=0x400 ret=-1 errno=ENOENT$"'
	guarded stop "stop unpins" rc_is stop 0
	guarded two-status "two starts at once: both exit 0, one guard attached, ENOENT, one stop detaches it" \
		eval '[ "$(cat "$dir/two.rc")" = "0 0" ] && rc_is two-status 0 && out_has two-peo "errno=ENOENT$" && rc_is two-stop 0'
	;;
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
	if [ "$result" != kernel-fault ]; then
		tap_not_ok "audit-fatal: perf r0400 under an audit guard: expected a kernel panic, got: $result" \
			"$dir/console" "$dir/start.out" "$dir/perf-raw.err"
	elif [ ! -e "$dir/perf-raw.started" ] || [ -e "$dir/perf-raw.rc" ] ||
		! grep -q "Kernel panic - not syncing: pmuguard_testpmu: fixed counter 3" "$dir/console"; then
		tap_not_ok "audit-fatal: the kernel died, but not of the counter-3 fault in perf" "$dir/console"
	else
		tap_ok "audit-fatal: under an attached, verified audit guard perf r0400 kills the kernel ($(panic_summary "$dir/console"))"
	fi
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
enforce-hybrid)
	atom_type() { echo 'atom=$(cat /sys/bus/event_source/devices/cpu_atom/type)'; }
	fatal atom-slots hybrid 0x400 "cpu_atom/event=0x00,umask=0x4/ on the atom CPU" < <(
		atom_type
		echo 'step atom-slots taskset -c 1 perf stat -e cpu_atom/event=0x00,umask=0x4/ -- true'
	)
	boot enforce-hybrid hybrid < <(
		atom_type
		cat <<'EOF'
echo "$atom" >atom.txt
step start "$PMUGUARD" enforce start
step atom-slots taskset -c 1 perf stat -e cpu_atom/event=0x00,umask=0x4/,cpu_atom/instructions/ -- true
step core-slots taskset -c 0 perf stat -e cpu_core/event=0x00,umask=0x4/,cpu_core/instructions/ -- true
step atom-peo taskset -c 1 "$PEO_ENABLE" "$atom:0x400" "$atom:0x1a4"
step core-peo taskset -c 0 "$PEO_ENABLE" 4:0x400 4:0x1a4
step status "$PMUGUARD" enforce status
step stop "$PMUGUARD" enforce stop
EOF
	)
	survived
	atom=$(cat "$dir/atom.txt" 2>/dev/null || echo '?')
	guarded start "start judges both core types (4 and cpu_atom's $atom)" \
		eval 'rc_is start 0 && out_has start "core PMU types 4, $atom"'
	guarded atom-slots "cpu_atom slots <not supported>, atom instructions counted" \
		perf_ok atom-slots cpu_atom/event=0x00,umask=0x4/ cpu_atom/instructions/
	guarded core-slots "cpu_core slots <not supported>, core instructions counted" \
		perf_ok core-slots cpu_core/event=0x00,umask=0x4/ cpu_core/instructions/
	guarded atom-peo "the static binary on cpu_atom's type gets ENOENT" enable_ok atom-peo "$atom"
	guarded core-peo "the static binary on cpu_core's type gets ENOENT" enable_ok core-peo 4
	guarded status "status counts denials on both types" \
		eval 'out_has status "denied +uid 0 +type $atom +config 0x0400" && out_has status "denied +uid 0 +type 4 +config 0x0400"'
	;;
enforce-fixed456)
	# The kernel guard on the Clearwater Forest guest (cases.sh
	# fixed456): its rodata carries the hazard set {4, 5, 6} and the E-core
	# table for type 4, so the topdown events are denied in the kernel, for
	# perf and for a static binary that schedules the event, while
	# instructions and slots (no counter 3 here) count.
	e4=cpu/event=0x73/ e5=cpu/event=0x9c,umask=0x1/ e6=cpu/event=0xc2,umask=0x2/
	fatal cwf-enable cwf-guest 0x73 "the static target enabling 4:0x73 (fixed counter 4)" \
		<<<'step cwf-enable "$PEO_ENABLE" 4:0x73 4:0x1a4'
	boot enforce-fixed456 cwf-guest <<EOF
step start "\$PMUGUARD" enforce start
step status-json "\$PMUGUARD" enforce status --json
step cwf-perf perf stat -e $e4,$e5,$e6,instructions,r0400 -- true
step cwf-enable "\$PEO_ENABLE" 4:0x73 4:0x1a4
step cwf-enable-6 "\$PEO_ENABLE" 4:0x2c2 4:0x1a4
step status "\$PMUGUARD" enforce status
step stop "\$PMUGUARD" enforce stop
EOF
	survived
	guarded start "start attaches for fixed counters 4-6, verified" \
		eval 'rc_is start 0 && out_has start "attached" && python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
assert d[\"verified\"] is True, d
assert {\"type\": 4, \"hazard_counters\": [4, 5, 6], \"table\": \"e-core-topdown\"}.items() <= d[\"core_pmus\"][0].items(), d[\"core_pmus\"]" "$dir/status-json.out"'
	guarded cwf-perf "perf, no preload: the three topdown events <not supported>, instructions and r0400 counted" \
		eval 'rc_is cwf-perf 0 && not_supported cwf-perf "$e4" && not_supported cwf-perf "$e5" &&
			not_supported cwf-perf "$e6" && counted cwf-perf instructions && counted cwf-perf r0400'
	guarded cwf-enable "the static binary: 4:0x73 ENOENT, 0x1a4 scheduled and read" \
		eval 'rc_is cwf-enable 0 && out_has cwf-enable "^type=4 config=0x73 ret=-1 errno=ENOENT$" &&
			out_has cwf-enable "^type=4 config=0x1a4 ret=fd count=[0-9]+$"'
	guarded cwf-enable-6 "the static binary: 4:0x2c2 (fixed counter 6) ENOENT" \
		eval 'rc_is cwf-enable-6 0 && out_has cwf-enable-6 "^type=4 config=0x2c2 ret=-1 errno=ENOENT$"'
	guarded status "status counts the denials, naming the counter" \
		eval 'out_has status "denied +uid 0 +type 4 +config 0x0073" && out_has status "type 4: fixed counters 4, 5 and 6"'
	;;
enforce-containers)
	# The kernel guard as a node agent in a container.  The image
	# (deploy/image/build.sh: FROM scratch, entrypoint `pmuguard enforce
	# agent`) runs under podman with the capabilities the DaemonSet grants
	# (deploy/kubernetes: BPF, PERFMON, SYS_ADMIN, SYSLOG; not privileged)
	# and the host's bpffs; a static program in a second container gets
	# ENOENT; the guard outlives the agent's container; and the preload's
	# limit: with the host's /etc/ld.so.preload set, perf in a container
	# image of its own is not guarded, and pmuguard-fleet status says so.
	build=$(cd "$(dirname "$PMUGUARD")/../.." && pwd)
	src=$(cd "$here/../.." && pwd)
	if ! command -v podman >/dev/null || ! command -v runc >/dev/null; then
		tap_not_ok "podman and runc are not installed (scripts/lib.sh install_deps installs them)"
		finish
	fi
	if ! out=$("$src/deploy/image/build.sh" "$build" "$tmp/agent.tar" 2>&1); then
		tap_not_ok "the agent's image does not build: $out"
		finish
	fi
	tap_ok "the agent's image builds offline: $out"
	# perf in a root of its own (a debug container's image): the binary
	# and the libraries it links, no /etc/ld.so.preload.
	perfroot=$tmp/perfroot
	mkdir -p "$perfroot/usr/bin" "$perfroot/etc" "$perfroot/proc" "$perfroot/sys" "$perfroot/dev" "$perfroot/tmp"
	cp "$(command -v perf)" "$perfroot/usr/bin/perf"
	ldd "$(command -v perf)" | awk '/=> \// { print $3 } /^\t\/[^ ]+ \(/ { print $1 }' | while read -r lib; do
		mkdir -p "$perfroot$(dirname "$lib")"
		cp "$(readlink -f "$lib")" "$perfroot$lib"
	done
	pod_setup() { # the job's podman: storage on a tmpfs, runc, no network, no systemd
		cat <<EOF
mount -t tmpfs tmpfs /var/lib/containers
mkdir -p /run/containers /var/tmp
mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
P="podman --storage-driver vfs --runtime runc --cgroup-manager cgroupfs --events-backend none"
\$P load -q -i '$tmp/agent.tar' >load.out 2>&1
IMG=localhost/pmuguard-agent:$("$PMUGUARD" --version | awk '{print $2}')
AGENT_CAPS="--cap-drop all --cap-add BPF,PERFMON,SYS_ADMIN,SYSLOG"
EOF
	}
	victim='$P run --rm --network none --security-opt seccomp=unconfined -v "$PEO_ENABLE:/peo-enable:ro" --entrypoint /peo-enable $IMG 4:0x400 4:0x1a4'
	fatal pod-victim m6i-old 0x400 "a static program in a container enabling 4:0x400, no guard" < <(
		pod_setup
		echo "step pod-victim $victim"
	)
	boot enforce-containers m6i-old < <(
		pod_setup
		cat <<EOF
mkdir -p /tmp/node-exporter
step agent-run \$P run -d --name agent --network none --read-only \$AGENT_CAPS -v /sys/fs/bpf:/sys/fs/bpf -v /tmp/pmuguard-facts:/facts:ro -v /tmp/node-exporter:/var/lib/prometheus/node-exporter \$IMG --snapshot /facts --textfile /var/lib/prometheus/node-exporter/pmuguard.prom
for _ in \$(seq 100); do "\$PMUGUARD" enforce ready >/dev/null 2>&1 && break; sleep 0.2; done
step ready-host "\$PMUGUARD" enforce ready
step ready-pod \$P run --rm --network none \$AGENT_CAPS -v /sys/fs/bpf:/sys/fs/bpf -v /tmp/pmuguard-facts:/facts:ro --entrypoint /usr/bin/pmuguard \$IMG enforce ready
for _ in \$(seq 150); do grep -qx 'pmuguard_protected 1' /tmp/node-exporter/pmuguard.prom 2>/dev/null && break; sleep 0.2; done
cp /tmp/node-exporter/pmuguard.prom textfile-start.prom 2>/dev/null
step pod-victim $victim
for _ in \$(seq 100); do \$P logs agent 2>/dev/null | grep -q '"event":"denied"' && break; sleep 0.1; done
for _ in \$(seq 300); do grep -q '^pmuguard_kernel_calls_total{decision="denied",pmu_type="4",config="0x400"} [1-9]' /tmp/node-exporter/pmuguard.prom 2>/dev/null && break; sleep 0.1; done
cp /tmp/node-exporter/pmuguard.prom textfile-denied.prom 2>/dev/null
ls -A /tmp/node-exporter >textfile-dir.out
step agent-stop \$P stop -t 20 agent
\$P logs agent >agent.log 2>agent.err
step status-after "\$PMUGUARD" enforce status --json
step pod-victim-after $victim
step agent-remove \$P run --rm --network none \$AGENT_CAPS -v /sys/fs/bpf:/sys/fs/bpf -v /tmp/pmuguard-facts:/facts:ro --entrypoint /usr/bin/pmuguard \$IMG enforce stop
EOF
	)
	survived
	pod_denied() { rc_is "$1" 0 && grep -q '^type=4 config=0x400 ret=-1 errno=ENOENT$' "$dir/$1.out" &&
		grep -Eq '^type=4 config=0x1a4 ret=fd count=[0-9]+$' "$dir/$1.out"; }
	guarded agent-run "the agent's container starts with BPF, PERFMON, SYS_ADMIN and SYSLOG only (not privileged)" rc_is agent-run 0
	guarded ready-host "enforce ready on the host: the pinned guard passes its self-test" \
		eval 'rc_is ready-host 0 && grep -q "^ready: lsm, verified true" "$dir/ready-host.out"'
	guarded ready-pod "enforce ready from a container of the image (the DaemonSet's readiness probe): ready" \
		eval 'rc_is ready-pod 0 && grep -q "^ready: " "$dir/ready-pod.out"'
	guarded pod-victim "a static program in a second container: 4:0x400 ENOENT, 4:0x1a4 scheduled and read" pod_denied pod-victim
	guarded agent-log "the agent's log is JSON lines: start (attached, verified), following, the denial (peo-enable, counter 3), exit (left in place)" \
		python3 -c 'import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ev = [l["event"] for l in lines]
start = [l for l in lines if l["event"] == "start"][0]
assert start["outcome"] == "attached" and start["verified"] is True and start["protects"] is True, start
den = [l for l in lines if l["event"] == "denied"]
assert den and den[0]["comm"] == "peo-enable" and den[0]["counter"] == 3 and den[0]["config"] == "0x400", den
assert ev[-1] == "exit" and "left in place" in lines[-1]["guard"], lines[-1]
assert "mounted" in ev or "no-lsm-list" not in ev, ev' "$dir/agent.log"
	# The node's metrics, as the DaemonSet has them written (--textfile in
	# node_exporter's directory, a host mount; a read-only root): the
	# kernel layer seen to guard the node, none of the pod's preload, and
	# the README's alerts against the file after a real denial.
	guarded textfile-start "the agent's --textfile on the host after its start: pmuguard_protected 1, the kernel layer, no preload series" \
		eval 'grep -qx "pmuguard_protected 1" "$dir/textfile-start.prom" &&
			grep -qx "pmuguard_layer_installed{layer=\"kernel\"} 1" "$dir/textfile-start.prom" &&
			grep -qx "pmuguard_unguarded 0" "$dir/textfile-start.prom" &&
			! grep -Eq "^pmuguard_preload|layer=\"preload\"" "$dir/textfile-start.prom"'
	guarded textfile-denied "the agent's --textfile after the second container's denial: decision=\"denied\", config=\"0x400\"; every shipped alert (pmuguard.rules.yml) on these series selects one; nothing but pmuguard.prom in the directory" \
		eval 'grep -q "^pmuguard_kernel_calls_total{decision=\"denied\",pmu_type=\"4\",config=\"0x400\"} [1-9]" "$dir/textfile-denied.prom" &&
			python3 "$here/../e2e/alerts.py" "$here/../../scripts/prometheus/pmuguard.rules.yml" "$dir/textfile-denied.prom" pmuguard_kernel_calls_total \
				pmuguard_unguarded pmuguard_status_timestamp_seconds pmuguard_verdict &&
			[ "$(cat "$dir/textfile-dir.out")" = pmuguard.prom ] &&
			grep -q "\"event\":\"textfile\",.*\"path\":\"/var/lib/prometheus/node-exporter/pmuguard.prom\"" "$dir/agent.log"'
	guarded status-after "after the agent's container exits, enforce status on the host: attached and verified" \
		eval 'rc_is status-after 0 && json_ok status-after "j[\"verified\"] is True and j[\"attached\"] is True"'
	guarded pod-victim-after "after the agent's container exits, the second container still gets ENOENT" pod_denied pod-victim-after
	guarded agent-remove "the documented uninstall (enforce stop from the image) removes the guard" rc_is agent-remove 0
	# The preload's limit.  Guarded on the host by /etc/ld.so.preload,
	# perf in a container of its own image is not: the kernel dies.
	fleet=$src/scripts/pmuguard-fleet
	boot pod-preload.unguarded m6i-old < <(
		pod_setup
		cat <<EOF
echo '$LIB' >/etc/ld.so.preload
printf 'mode = auto\\nsnapshot = /tmp/pmuguard-facts\\n' >/etc/pmuguard.conf
unset PMUGUARD_SNAPSHOT
step host-perf perf stat -e r0400,instructions -- true
\$P run -d --name idle --network none --entrypoint /usr/bin/pmuguard \$IMG enforce agent --mode off >idle.out 2>&1
step fleet-status sh '$fleet' status --lib '$LIB' --pmuguard "\$PMUGUARD"
step pod-perf \$P run --rm --network none --security-opt seccomp=unconfined --rootfs '$perfroot' /usr/bin/perf stat -e r0400,instructions -- /usr/bin/perf --version
EOF
	)
	if [ "$result" != kernel-fault ] || [ ! -e "$dir/pod-perf.started" ] || [ -e "$dir/pod-perf.rc" ]; then
		tap_not_ok "pod-perf: perf in a container of its own under the host's preload: expected the kernel to die there, got: $result" \
			"$dir/console" "$dir/pod-perf.err" "$dir/host-perf.err" "$dir/fleet-status.out"
	else
		tap_ok "pod-perf: with the host's /etc/ld.so.preload set, perf in a container image of its own is not guarded: it kills the kernel ($(panic_summary "$dir/console"))"
	fi
	guarded host-perf "the same perf on the host, under the preload: r0400 <not supported>, instructions counted" \
		eval 'rc_is host-perf 0 && grep -Eq "<not supported>[[:space:]]+r0400" "$dir/host-perf.err"'
	guarded fleet-status "pmuguard-fleet status names the runtime and says its containers are not covered (they need the kernel layer)" \
		eval 'grep -q "containers: .* running (.*): NOT covered: the preload does not reach into containers" "$dir/fleet-status.out" &&
			grep -q "protected: PARTLY, by preload" "$dir/fleet-status.out"'
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
	if [ "$result" != kernel-fault ]; then
		tap_not_ok "existing-enabled: opened disabled before start, enabled after it: expected a kernel panic, got: $result" \
			"$dir/console" "$dir/start.out" "$dir/holder.err"
	elif [ ! -e "$dir/enable.started" ] || [ -e "$dir/enable.rc" ] ||
		! grep -q "Kernel panic - not syncing: pmuguard_testpmu: fixed counter 3" "$dir/console"; then
		tap_not_ok "existing-enabled: the kernel died, but not of the counter-3 fault at the enable" "$dir/console"
	else
		tap_ok "existing-enabled: an event perf opened disabled before start and enabled after it kills the kernel; the guard cannot stop it ($(panic_summary "$dir/console"))"
	fi
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
enforce-verify)
	fleet=$(cd "$here/../../scripts" && pwd)/pmuguard-fleet
	export VM_LSM=lockdown,yama
	boot enforce-verify m6i-old <<EOF
cat /sys/kernel/security/lsm >lsm.txt
step forced "\$PMUGUARD" enforce start --attach lsm --json
step forced-status "\$PMUGUARD" enforce status --json
step kept "\$PMUGUARD" enforce start --attach lsm --keep-unverified --json
step kept-status "\$PMUGUARD" enforce status --json
step kept-status-text "\$PMUGUARD" enforce status
step kept-fleet sh '$fleet' status --json --pmuguard "\$PMUGUARD"
step auto "\$PMUGUARD" enforce start --json
step auto-status "\$PMUGUARD" enforce status --json
step auto-peo "\$PEO_ENABLE" 4:0x400 4:0x1a4
step stop "\$PMUGUARD" enforce stop
step kept-again "\$PMUGUARD" enforce start --attach lsm --keep-unverified
# Pinned, attached, and not running: the open reaches the fault.
step unverified-peo "\$PEO_ENABLE" 4:0x400
EOF
	unset VM_LSM
	if [ "$result" = kernel-fault ] && [ -e "$dir/unverified-peo.started" ] && [ ! -e "$dir/unverified-peo.rc" ] &&
		grep -q "Kernel panic - not syncing: pmuguard_testpmu: fixed counter 3" "$dir/console"; then
		tap_ok "enforce-verify: an lsm/ program attached where bpf is not an active LSM (lsm=$(cat "$dir/lsm.txt" 2>/dev/null)) does not protect: the open kills the kernel ($(panic_summary "$dir/console"))"
	else
		tap_not_ok "enforce-verify: expected the unverified guard to let the fault through; got $result" \
			"$dir/console" "$dir/kept-again.out" "$dir/kept-again.err"
	fi
	guarded forced "--attach lsm where bpf is inactive: attached, the canary passes, detached again; exit 4, verified false" \
		eval 'rc_is forced 4 && json_ok forced "j[\"outcome\"] == \"refused\" and j[\"verified\"] is False and j[\"protects\"] is False and j[\"pinned_unverified\"] is False and j[\"verification\"][\"ran\"] and j[\"verification\"][\"canary_errno\"] is None and \"does not run\" in j[\"verification\"][\"why\"]" && rc_is forced-status 6'
	guarded kept "--keep-unverified: pinned all the same, exit 4; status exits 8: verified false, protects false" \
		eval 'rc_is kept 4 && json_ok kept "j[\"pinned_unverified\"] is True and j[\"verified\"] is False" && rc_is kept-status 8 && json_ok kept-status "j[\"attached\"] is True and j[\"verified\"] is False and j[\"protects\"] is False and j[\"attach\"] == \"lsm\"" && out_has kept-status-text "NOT VERIFIED: .*does not run it.*This guard does not protect the host"'
	guarded kept-fleet "pmuguard-fleet status: the unverified kernel guard is no layer: unguarded, exit 3" \
		eval 'rc_is kept-fleet 3 && json_ok kept-fleet "j[\"guarded\"] is False and j[\"layer\"] == \"none\" and j[\"kernel\"][\"state\"] == \"unverified\" and j[\"kernel\"][\"verified\"] is False"'
	guarded auto "auto: fmod_ret, verified, and it takes over the unverified lsm/ guard (renamed over its pin)" \
		eval 'rc_is auto 0 && json_ok auto "j[\"outcome\"] == \"replaced\" and j[\"attach\"] == \"fmod_ret\" and j[\"verified\"] is True and j[\"protects\"] is True" && rc_is auto-status 0 && json_ok auto-status "j[\"verified\"] is True and j[\"verification\"][\"canary_errno\"] == \"EBADSLT\" and j[\"verification\"][\"canaries_refused\"] >= 2" && enable_ok auto-peo 4 && rc_is stop 0'
	;;
enforce-bare)
	export VM_NOMOUNT=bpf,securityfs
	fatal bare-peo m6i-old 0x400 "the static peo-enable with no bpffs and no securityfs" <<<'step bare-peo "$PEO_ENABLE" 4:0x400'
	boot enforce-bare m6i-old <<'EOF'
grep -E ' /sys/fs/bpf | /sys/kernel/security ' /proc/mounts >mounts-before.txt
step start "$PMUGUARD" enforce start --json
step status "$PMUGUARD" enforce status --json
step peo "$PEO_ENABLE" 4:0x400 4:0x1a4
step perf-raw perf stat -e r0400,instructions -- true
grep -E ' /sys/fs/bpf ' /proc/mounts >mounts-after.txt
step stop "$PMUGUARD" enforce stop
EOF
	unset VM_NOMOUNT
	survived
	guarded start "no bpffs, no securityfs: start mounts bpffs, takes fmod_ret (the LSM list unreadable), verified" \
		eval '[ ! -s "$dir/mounts-before.txt" ] && grep -q "^bpf /sys/fs/bpf bpf" "$dir/mounts-after.txt" && rc_is start 0 && json_ok start "j[\"mounted_bpffs\"] is True and j[\"attach\"] == \"fmod_ret\" and j[\"verified\"] is True and j[\"protects\"] is True"'
	guarded status "status: verified (the canary refused again)" \
		eval 'rc_is status 0 && json_ok status "j[\"verified\"] is True"'
	guarded peo "the static binary gets ENOENT; TOPDOWN.SLOTS_P counts" enable_ok peo 4
	guarded perf-raw "perf r0400 <not supported>, instructions counted" perf_ok perf-raw r0400 instructions
	;;
enforce-cloud)
	# Debian's cloud kernel (linux-image-cloud-amd64, Debian's AMIs): no
	# 9p, so the root is an ext4 image of what the job runs; no lsm= on
	# the command line, so its CONFIG_LSM (bpf last) decides.
	prepare_vm cloud
	export VM_CACHE=$VM_CACHE/cloud VM_LSM=default
	# shellcheck source=/dev/null
	. "$VM_CACHE/vm.env"
	export VM_ROOTIMG=$tmp/root.img
	"$here/rootimg.sh" "$VM_ROOTIMG" --bin "$PMUGUARD" --bin "$PEO_ENABLE" "$here/world.sh" \
		"$fixtures/m6i-16xlarge-oldkernel" "$TESTPMU"
	echo "# cloud kernel $KVER; root image $(du -h "$VM_ROOTIMG" | cut -f1)"
	fatal cloud-peo m6i-old 0x400 "the static peo-enable on the cloud kernel" <<<'step cloud-peo "$PEO_ENABLE" 4:0x400'
	boot enforce-cloud m6i-old <<'EOF'
uname -r >uname.txt
cat /sys/kernel/security/lsm >lsm.txt
step start "$PMUGUARD" enforce start --json
step status "$PMUGUARD" enforce status --json
step peo "$PEO_ENABLE" 4:0x400 4:0x1a4
step stop "$PMUGUARD" enforce stop
EOF
	survived
	guarded start "the cloud kernel ($(cat "$dir/uname.txt" 2>/dev/null), lsm=$(cat "$dir/lsm.txt" 2>/dev/null)): start attaches through BPF LSM, verified" \
		eval 'grep -q cloud "$dir/uname.txt" && rc_is start 0 && json_ok start "j[\"attach\"] == \"lsm\" and j[\"verified\"] is True and j[\"protects\"] is True"'
	guarded status "status: verified" eval 'rc_is status 0 && json_ok status "j[\"verified\"] is True"'
	guarded peo "the static binary gets ENOENT; TOPDOWN.SLOTS_P counts" enable_ok peo 4
	;;
enforce-healthy)
	boot enforce-healthy healthy <<'EOF'
step start "$PMUGUARD" enforce start
step status "$PMUGUARD" enforce status
step perf-raw perf stat -e r0400,instructions -- true
ls -A /sys/fs/bpf >bpffs.txt
EOF
	survived
	guarded start "a healthy world: nothing to attach" \
		eval 'rc_is start 0 && out_has start "^pmuguard: enforce: nothing to attach" && ! grep -q pmuguard "$dir/bpffs.txt"'
	guarded status "status exits 6 and says the policy has nothing to do" \
		eval 'rc_is status 6 && out_has status "policy: nothing to attach"'
	guarded perf-raw "slots counts where counter 3 works" \
		eval 'rc_is perf-raw 0 && counted perf-raw r0400'
	;;
*)
	echo "unknown group $group" >&2
	exit 2
	;;
esac
finish
