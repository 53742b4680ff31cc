#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The checks are called through guarded(); the job's variables are its own.
# shellcheck disable=SC2317,SC2016
#
# Kernel enforcement, where and how the guard attaches: BPF LSM or
# fmod_ret, the self-test that proves it runs, the kernels and mounts it
# meets, and stop.
# The VM, the TAP lines and the checks: lib.sh here (../lib.sh under it).
#
#   attach.sh --tap GROUP;  attach.sh --list
#
# Groups:
#   enforce-lsm      each case unguarded in a boot of its own must kill the
#                    kernel; then one boot: `enforce start` (BPF LSM), every
#                    case again with no preload anywhere, status, follow,
#                    a second start, stop
#   enforce-stop     start, a denied open, stop, the same open kills the kernel
#   enforce-fmod-ret a boot without bpf in lsm=: start falls back to fmod_ret
#   enforce-verify   lsm= without bpf: --attach lsm attaches a program that
#                    never runs; the self-test catches it (exit 4, detached;
#                    kept with --keep-unverified: status exits 8, the fleet
#                    says unguarded, and the open kills the kernel); auto
#                    takes fmod_ret, verified, and takes over the unverified one
#   enforce-bare     no bpffs and no securityfs mounted: start mounts bpffs,
#                    cannot read the LSM list, lets the self-test decide
#   enforce-cloud    Debian's cloud kernel (no 9p: an ext4 root image), its
#                    own CONFIG_LSM: lsm, verified, ENOENT; unguarded it dies
set -euo pipefail
# shellcheck source=tests/vm/enforce/lib.sh
. "$(dirname "$0")/lib.sh"

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
	if panicked_in unverified-peo; then
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
*)
	echo "unknown group $group" >&2
	exit 2
	;;
esac
finish
