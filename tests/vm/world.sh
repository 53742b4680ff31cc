# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by a job.sh inside the VM (POSIX sh: the chroot's /bin/sh is dash).
# shellcheck shell=sh

# world_facts FIXTURE PERF_CPUID [metal]
#
# The facts pmuguard reads in the VM.  TCG's CPUID has no leaf 0xA, so the
# m6i's CPUID comes from FIXTURE/cpuid.txt; everything else is the VM's
# real kernel: sys/bus/event_source/devices is a symlink to the live sysfs
# (probe/facts/sysfs.c opens through it), and dmesg.txt is the live log taken
# after the test PMU module printed its boot block.  PERF_CPUID makes perf's
# JSON tables (TOPDOWN.SLOTS by name) those of the world's CPU model.
world_facts() {
	facts=/tmp/pmuguard-facts
	mkdir -p $facts/sys/bus/event_source
	cp "$1/cpuid.txt" $facts/cpuid.txt
	ln -s /sys/bus/event_source/devices $facts/sys/bus/event_source/devices
	if [ "${3:-}" = metal ]; then
		# A bare-metal world: the VM stands in for the machine, and its
		# firmware and the kernel name QEMU (DMI, blank MTRRs, the real
		# PMU driver refusing a guest before the test module loads),
		# which a server's would not.
		dmesg | grep -v -e 'DMI: ' -e 'Hardware name: ' -e 'Hypervisor detected' -e 'MTRRs all blank' \
			-e 'kvm-clock' -e 'kvm-guest' -e 'Booting paravirtualized' \
			-e 'PMU not available due to virtualization' >$facts/dmesg.txt
	else
		dmesg >$facts/dmesg.txt
	fi
	PMUGUARD_SNAPSHOT=$facts
	PERF_CPUID=$2
	export PMUGUARD_SNAPSHOT PERF_CPUID
}

# step NAME CMD [ARGS...]: run one command of the batch, leaving NAME.out,
# NAME.err and NAME.rc in the job directory; NAME.started says it began
# (a panic leaves no .rc).
step() {
	name=$1
	shift
	: >"$name.started"
	sync
	"$@" >"$name.out" 2>"$name.err" </dev/null
	echo $? >"$name.rc"
}
