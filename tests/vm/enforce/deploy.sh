#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The checks are called through guarded(); the job's variables are its own.
# shellcheck disable=SC2317,SC2016
#
# Kernel enforcement as a host installs it: the .deb's units under
# systemd, the node agent's image under podman, the fleet installer's
# kernel layer.
# The VM, the TAP lines and the checks: lib.sh here (../lib.sh under it).
#
#   deploy.sh --tap GROUP;  deploy.sh --list
#
# Groups:
#   enforce-systemd  the .deb under the host's own systemd as PID 1: the
#                    hardened units start and do their work (the follower,
#                    the boot's re-probe, the metrics), systemd-analyze
#                    security scores them, `journalctl -x` explains a kernel
#                    denial from the catalog, an upgrade keeps the enabled
#                    follower and the timer running, removal stops them
#   enforce-containers the agent's image under podman (the DaemonSet's
#                    capabilities, a read-only root): a second container's
#                    static program gets ENOENT, the agent's --textfile
#                    on the host says protected and counts the denial (the
#                    README's alerts), the guard outlives the agent's container,
#                    and perf in a container of its own is not guarded by
#                    the host's preload (the kernel dies; fleet status says)
#   enforce-fleet-layer pmuguard-fleet install --layer auto on a kernel that
#                    takes the guard: the kernel layer, no preload entry
set -euo pipefail
# shellcheck source=tests/vm/enforce/lib.sh
. "$(dirname "$0")/lib.sh"

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
*)
	echo "unknown group $group" >&2
	exit 2
	;;
esac
finish
