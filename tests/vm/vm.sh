#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Boot Debian's kernel under QEMU (TCG), run JOBDIR/job.sh chrooted into the
# host's root (read-only over virtio-9p, under a tmpfs overlay), and report
# how it ended.  See tests/vm/README.md.
#
#   vm.sh [--smp N] [--timeout SECONDS] [--total SECONDS] [--pmu 'MODULE PARAMS' | --no-pmu] JOBDIR
#
# A boot is bounded by its silence, not by its length: QEMU is killed when
# neither the console nor the job's files (JOBDIR's, or the cloud flavor's
# job image) have changed for --timeout seconds (default 90), and in any
# case after --total seconds (default 4 x --timeout): on a loaded machine
# a guarded boot that goes on writing its steps is never cut short.
#
# VM_LSM replaces the lsm= list (default lockdown,yama,bpf).  VM_NOMOUNT
# (comma-separated: bpf, securityfs) leaves those unmounted in the VM.
# On the cloud flavor (prepare.sh CACHE cloud: no 9p), VM_ROOTIMG names the
# ext4 image of the root to boot (read-only; tests/vm/rootimg.sh makes
# one), and the job directory travels as an ext4 image of its own, made
# from JOBDIR before the boot and copied back into it after.
# VM_CACHE names the directory tests/vm/prepare.sh filled (kernel, initramfs,
# test PMU module).  job.sh runs as root in JOBDIR (the same path inside the
# VM, shared read-write); its stdout, stderr and exit status land in
# JOBDIR/{stdout,stderr,rc}, the serial console in JOBDIR/console.
#
# Prints one line, also written to JOBDIR/result:
#   exit N        job.sh finished with status N
#   kernel-fault  a panic, oops or BUG on the console (the instance is gone)
#   timeout       nothing of the above: silent for --timeout s, or past --total (QEMU killed)
#   no-boot       QEMU ended before running the job (see JOBDIR/console)
# Exit 0 when one of these was reached, 2 on usage or set-up errors.
set -euo pipefail
: "${VM_CACHE:?directory filled by tests/vm/prepare.sh}"

smp=1 limit=90 total='' pmu='' use_pmu=1
while [ $# -gt 1 ]; do
	case $1 in
	--smp) smp=$2; shift 2 ;;
	--timeout) limit=$2; shift 2 ;;
	--total) total=$2; shift 2 ;;
	--pmu) pmu=$2; shift 2 ;;
	--no-pmu) use_pmu=0; shift ;;
	*) break ;;
	esac
done
[ $# = 1 ] || { echo "usage: vm.sh [--smp N] [--timeout S] [--total S] [--pmu PARAMS|--no-pmu] JOBDIR" >&2; exit 2; }
total=${total:-$((4 * limit))}
job=$(cd "$1" && pwd)
[ -f "$job/job.sh" ] || { echo "vm.sh: $job/job.sh is missing" >&2; exit 2; }
# shellcheck source=/dev/null
. "$VM_CACHE/vm.env" # KVER, KERNEL, INITRD, TESTPMU

rm -f "$job"/{stdout,stderr,rc,result,booted,console}
printf '%s\n' "$pmu" >"$job/testpmu.args"
append="console=ttyS0 quiet loglevel=4 panic=-1 oops=panic softlockup_panic=1"
append+=" random.trust_cpu=on tsc=unstable vmjob=$job"
# VM_LSM=default: no lsm= at all (the kernel's CONFIG_LSM).
[ "${VM_LSM:-}" = default ] || append+=" lsm=${VM_LSM:-lockdown,yama,bpf}"
[ -z "${VM_NOMOUNT:-}" ] || append+=" vmnomount=$VM_NOMOUNT"
[ "$use_pmu" = 0 ] || append+=" vmko=$TESTPMU"
# VM_INIT=systemd: the host's systemd is PID 1 and runs job.sh as a unit.
[ "${VM_INIT:-}" != systemd ] ||
	append+=" vminit=systemd systemd.unit=pmuguard-vmjob.service systemd.show_status=0"

# shellcheck disable=SC2054 # QEMU options are comma-separated
share=(-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot
	-fsdev "local,id=job,path=$job,security_model=none"
	-device virtio-9p-pci,fsdev=job,mount_tag=job)
if [ "${FLAVOR:-generic}" = cloud ]; then
	: "${VM_ROOTIMG:?the cloud kernel boots an ext4 root image (tests/vm/rootimg.sh)}"
	jobimg=$(mktemp "${TMPDIR:-/tmp}/vmjob.XXXXXX")
	rm -f "$jobimg"
	# No journal: what the job syncs is in place, even after a panic.
	mkfs.ext4 -q -O ^has_journal -d "$job" "$jobimg" 64M >/dev/null
	share=(-drive "file=$VM_ROOTIMG,format=raw,if=virtio,readonly=on"
		-drive "file=$jobimg,format=raw,if=virtio")
fi
# -no-reboot: the guest's reboot (panic=-1, or init's `reboot -f` when the
# job is done) ends QEMU.  The root share is read-only to the guest.
set +e
timeout --kill-after=5 "$total" qemu-system-x86_64 \
	-accel tcg -cpu max -m 1024 -smp "$smp" \
	-nodefaults -no-user-config -nographic -display none -monitor none -no-reboot \
	-chardev "file,id=con,path=$job/console" -serial chardev:con \
	-kernel "$KERNEL" -initrd "$INITRD" -append "$append" \
	"${share[@]}" </dev/null >"$job/qemu.log" 2>&1 &
qpid=$!
# The watchdog: what the boot has written so far (sizes and times of the
# console and of the job's files), every 2 s; unchanged for --timeout s,
# and QEMU is killed (timeout(1) then exits 124 as at its own limit).
progress() { find "$job" ${jobimg:+"$jobimg"} -maxdepth 1 -type f -printf '%s %T@ %f\n' 2>/dev/null | sort | cksum; }
last=$(progress) quiet_since=$(date +%s) silent=0
while kill -0 "$qpid" 2>/dev/null; do
	sleep 2
	now=$(progress)
	if [ "$now" != "$last" ]; then
		last=$now quiet_since=$(date +%s)
	elif [ $(($(date +%s) - quiet_since)) -ge "$limit" ]; then
		silent=1
		pkill -TERM -P "$qpid" 2>/dev/null || :
		kill -TERM "$qpid" 2>/dev/null || :
		break
	fi
done
wait "$qpid"
qrc=$?
[ "$silent" = 0 ] || qrc=124
set -e
if [ -n "${jobimg:-}" ]; then
	# What the job left: its files back into JOBDIR (e2fsprogs' debugfs
	# reads the image without mounting it).
	debugfs -R "rdump / $job" "$jobimg" >/dev/null 2>&1 || true
	rm -rf "$job/lost+found"
	rm -f "$jobimg"
fi

if grep -Eq 'Kernel panic|Oops|BUG:|general protection fault' "$job/console" 2>/dev/null; then
	result=kernel-fault
elif [ -s "$job/rc" ]; then
	result="exit $(cat "$job/rc")"
elif [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	result=timeout
else
	result=no-boot
fi
echo "$result" | tee "$job/result"
