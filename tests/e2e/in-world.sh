#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# in-world.sh SNAPSHOT PERF_CPUID CMD [ARGS...]
# Run inside `unshare -m`: make every mount private (nothing reaches the
# host), put the snapshot's sysfs over /sys/bus/event_source/devices, tell
# perf which CPU to assume (PERF_CPUID) and pmuguard which facts to read.
set -euo pipefail
snap=$1 cpuid=$2
shift 2
mount --make-rprivate /
if [ -d "$snap/sys/bus/event_source/devices" ]; then
	mount --bind "$snap/sys/bus/event_source/devices" /sys/bus/event_source/devices
fi
export PERF_CPUID=$cpuid PMUGUARD_SNAPSHOT=$snap
exec "$@"
