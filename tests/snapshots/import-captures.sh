#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Turns the real captures (../shared/captures/<folder>/, one folder per
# machine, each with a source.txt naming where it was published) into
# snapshot fixtures here, cap-<folder>[-<which>]/.  Only copies and one
# layout conversion: a kernel log becomes dmesg.txt, a `cpuid -r` dump
# cpuid.txt, a "CPUID leaf:sub = ..." dump cpuid.txt through
# cpuid-dump-to-r.sh (values unchanged).  Every other file of the capture
# is copied as it is, under its own name (the probe does not read it), with
# source.txt.  The expected state and findings are written by generate.sh,
# which runs this script: they were decided from reading each capture.
#   import-captures.sh [CAPTURES_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${1:-$here/../../../shared/captures}
[ -d "$src" ] || { echo "$0: no captures at $src" >&2; exit 1; }
cd "$here"
rm -rf -- cap-*/

# cap FOLDER NAME [FILE=AS ...]: the folder's files, FILE copied as AS
# ("AS" = "-" leaves FILE out of this fixture; "dmesg.txt<N" takes the
# first N lines only, for a file that goes on with another machine's).
cap() {
	local folder=$1 name=$2
	shift 2
	local from=${capsrc:-$src}/$folder to=cap-$name
	[ -d "$from" ] || { echo "$0: $from is missing" >&2; exit 1; }
	mkdir -p "$to"
	local f base as spec
	for f in "$from"/*; do
		base=$(basename "$f")
		as=$base
		for spec in "$@"; do
			[ "${spec%%=*}" = "$base" ] && as=${spec#*=}
		done
		case $as in
		-) ;;
		cpuid-r:*) "$here/cpuid-dump-to-r.sh" "$f" >"$to/${as#cpuid-r:}"; cp "$f" "$to/$base.verbatim" ;;
		*'<'*) head -n "${as#*<}" "$f" >"$to/${as%<*}"; cp "$f" "$to/$base.full" ;;
		*) cp -R "$f" "$to/$as" ;;
		esac
	done
}

# Kernel logs and `cpuid -r` dumps, already named as the snapshot reads them.
for folder in \
	azure-github-codespaces-epyc-7763-hyperv-5.15.0-1041-azure \
	azure-tdx-sapphirerapids-guest-2023 \
	bare-adl-i7-1260P-acer-swift-sfx16-7.0.3 \
	bare-amd-epyc-9754-bergamo-2s-6.12.0-rc2 \
	bare-ivb-i3-3240-hp-microserver-gen8-4.15.0-76 \
	bare-tgl-i7-11390H-dell-inspiron5510-6.18.12 \
	bhyve-vstack-guest-xeon-gold-6248R-5.4.17-uek \
	gce-vm-broadwell-syzbot-6.2.0-rc6-next \
	gcp-gke-c4-standard-288-gnr-6985P-C-pmu-enhanced \
	hyperv-guest-win10-host-ryzen9-3900x-5.13.0-rc5-next \
	kvm-guest-on-clx-xeon-gold-6240-6.16.0-rc1 \
	kvm-guest-on-dgx-h100-xeon-8480C-6.12.1 \
	kvm-guest-on-emr-xeon-8575C-6.12.0-pkvm-ia \
	kvm-guest-on-skx-xeon-gold-6140-6.16.0-rc1 \
	kvm-guest-on-tglh-6.1.0-rc5 \
	kvm-libguestfs-guest-on-i7-10510U-6.18.12 \
	kvm-vps-hoster-vserver-skylake-ibrs-4.19.0-20 \
	qemu-kvm-guest-on-i7-11850H-6.18.0-rc1 \
	qemu-tcg-cpu-EPYC-cirros-4.4.0-28 \
	syzbot-nested-qemu-on-gce-icelake-6.13.0-rc6 \
	travis-ci-kvm-guest-haswell-4.4.0-101 \
	virtualbox-guest-kvm-paravirt-ubuntu20.04 \
	wsl2-hyperv-on-rpl-i9-14900KF; do
	cap "$folder" "$folder"
done

# Captures the probe cannot read (PCM's output, perf's output, a perf list):
# copied for the record; their fixtures replay as unknown.
cap aws-c5-9xlarge-pcm-2021 aws-c5-9xlarge-pcm-2021
cap kvm-guest-icelake-sp-6A-6-slots-advertised-but-unusable-2022 \
	kvm-guest-icelake-sp-6A-6-slots-advertised-but-unusable-2022
cap perf-list-unidentified-icelake-server perf-list-unidentified-icelake-server
# Leaf 0xA alone (no leaf 0, so no vendor): not a CPUID the probe can use,
# and host and guest in one file; kept under a name the probe does not read.
cap kvm-guest-on-amd-host-leafA-anythread-bit-2021 kvm-guest-on-amd-host-leafA-anythread-bit-2021 \
	cpuid.txt=cpuid-host-and-guest-leafA.txt
# A diff of two dumps (leaves 1 and 0xA, no leaf 0), in another tool's form.
cap kvm-guest-on-rpl-13900K-host-5.15-vs-newer-leafA kvm-guest-on-rpl-13900K-host-5.15-vs-newer-leafA \
	cpuid.txt=cpuid-diff.txt

# Two machines in one folder: a fixture for each where its files say
# something the probe reads.
cap bare-arl-s-core-ultra9-285K-6.15.11-and-kvm-guest-7.0.0-rc2 \
	bare-arl-s-core-ultra9-285K-6.15.11-and-kvm-guest-7.0.0-rc2-host \
	dmesg-host.txt=dmesg.txt guest-probe.txt=-
# The guest's transcript holds its kernel log lines verbatim among other
# command output; the probe reads only the kernel's lines.
cap bare-arl-s-core-ultra9-285K-6.15.11-and-kvm-guest-7.0.0-rc2 \
	bare-arl-s-core-ultra9-285K-6.15.11-and-kvm-guest-7.0.0-rc2-guest \
	guest-probe.txt=dmesg.txt dmesg-host.txt=- cpuinfo-host.txt=- sysfs-host.txt=-
# The guest only (the host's file is leaf 0xA alone).
cap bare-rpl-i9-13900K-and-its-kvm-guest-leafA bare-rpl-i9-13900K-and-its-kvm-guest-leafA \
	dmesg-guest.txt=dmesg.txt cpuid-guest.txt=cpuid.txt
# QEMU before the regression (cpuid.txt) and with it (the guest got the TCG
# CPU's AMD identity over KVM's Intel vPMU leaf).
cap kvm-guest-cpu-host-on-i7-8650U-qemu-2021 kvm-guest-cpu-host-on-i7-8650U-qemu-2021 \
	cpuid-broken-qemu-f5cc5a5c16.txt=-
cap kvm-guest-cpu-host-on-i7-8650U-qemu-2021 kvm-guest-cpu-host-on-i7-8650U-qemu-2021-broken-qemu \
	cpuid.txt=- cpuid-broken-qemu-f5cc5a5c16.txt=cpuid.txt
# The guest's own line is the first of the file; the rest is what the
# author says another, PMU-less guest prints.
cap kvm-guest-amd-cpu-host-minus-pmu-still-has-pmu-2022 kvm-guest-amd-cpu-host-minus-pmu-still-has-pmu-2022 \
	'dmesg.txt=dmesg.txt<2'
# A "CPUID leaf:sub = ..." dump, converted (the original kept beside it).
cap xen-pv-dom0-ryzen9-5950x-cpuid-2025 xen-pv-dom0-ryzen9-5950x-cpuid-2025 \
	cpuid.txt=cpuid-r:cpuid.txt

# Captures kept in this repository (../captures/, the same layout): public
# logs found after the shared folder was made, and this project's own
# `pmuguard snapshot` of a machine it ran on.
capsrc=$here/../captures
for d in "$capsrc"/*/; do
	[ -d "$d" ] || continue
	folder=$(basename "$d")
	cap "$folder" "$folder"
done
capsrc=

n=$(find "$src" "$here/../captures" -mindepth 1 -maxdepth 1 -type d | wc -l)
echo "$0: $n capture folders -> $(find . -maxdepth 1 -type d -name 'cap-*' | wc -l) fixtures"
