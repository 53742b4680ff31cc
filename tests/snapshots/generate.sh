#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Writes the snapshot fixtures in this folder (cpuid.txt, dmesg.txt and a
# sysfs mirror per world).  Two kinds:
#  - cap-*: real captures (../shared/captures), copied by import-captures.sh
#    (run from here when that folder is there; the copies are committed);
#  - the hand-made worlds below, kept only where no capture covers the
#    world (see README.md here).  Their values are those of the named
#    machines as their kernels report them (the boot-log lines are the
#    formats of arch/x86/events/core.c; the CPUID values those of each
#    named machine).
# Then every world's expected state and findings.  Rerun after editing; the
# output is committed.
set -euo pipefail
cd "$(dirname "$0")"

INTEL='ebx=0x756e6547 ecx=0x6c65746e edx=0x49656e69'
AMD='ebx=0x68747541 ecx=0x444d4163 edx=0x69746e65'
KVM='eax=0x40000001 ebx=0x4b4d564b ecx=0x564b4d56 edx=0x0000004d'
VMWARE='eax=0x40000010 ebx=0x61774d56 ecx=0x4d566572 edx=0x65726177'

# cpuid WORLD MAXLEAF VENDOR LEAF1_EAX LEAF1_ECX LEAF7_EDX LEAFA("eax ebx ecx edx"|-) HV(-|regs)
cpuid() {
	local w=$1 max=$2 vendor=$3 l1a=$4 l1c=$5 l7d=$6 la=$7 hv=$8
	mkdir -p "$w"
	{
		echo "CPU 0:"
		printf '   0x00000000 0x00: eax=%s %s\n' "$max" "$vendor"
		printf '   0x00000001 0x00: eax=%s ebx=0x00800800 ecx=%s edx=0x1f8bfbff\n' "$l1a" "$l1c"
		printf '   0x00000007 0x00: eax=0x00000000 ebx=0xd19f4fbb ecx=0x0040069c edx=%s\n' "$l7d"
		if [ "$la" != - ]; then
			# shellcheck disable=SC2086 # the leaf's four registers, split
			set -- $la
			printf '   0x0000000a 0x00: eax=%s ebx=%s ecx=%s edx=%s\n' "$1" "$2" "$3" "$4"
		fi
		[ "$hv" = - ] || printf '   0x40000000 0x00: %s\n' "$hv"
		# A second CPU block: the parser must use the first one only.
		echo "CPU 1:"
		printf '   0x00000000 0x00: eax=%s %s\n' "$max" "$AMD"
	} >"$w/cpuid.txt"
}

dmesg_intel() { # WORLD NAME VERSION FIXED MASK
	cat >"$1/dmesg.txt" <<EOF
[    0.000000] Linux version 6.8.0-1021-aws (buildd@lcy02-amd64-049) #23-Ubuntu SMP
[    0.312844] Performance Events: $2 events, Intel PMU driver.
[    0.312844] ... version:                $3
[    0.312844] ... bit width:              48
[    0.312844] ... generic registers:      8
[    0.312844] ... value mask:             0000ffffffffffff
[    0.312844] ... max period:             00007fffffffffff
[    0.312844] ... fixed-purpose events:   $4
[    0.312844] ... event mask:             $5
[    0.313502] signal: max sigframe size: 3632
EOF
}

# sysfs WORLD PMU TYPE PMU_NAME SLOTS(yes|no) NTOPDOWN
sysfs_intel() {
	local d="$1/sys/bus/event_source/devices/$2"
	mkdir -p "$d/format" "$d/events" "$d/caps"
	echo "$3" >"$d/type"
	echo 1 >"$d/rdpmc"
	echo 4 >"$d/perf_event_mux_interval_ms"
	echo "$4" >"$d/caps/pmu_name"
	echo 3 >"$d/caps/max_precise"
	echo 32 >"$d/caps/branches"
	local kv
	for kv in event=config:0-7 umask=config:8-15 edge=config:18 pc=config:19 any=config:21 \
		inv=config:23 cmask=config:24-31 in_tx=config:32 in_tx_cp=config:33 \
		offcore_rsp=config1:0-63 ldlat=config1:0-15 frontend=config1:0-23; do
		echo "${kv#*=}" >"$d/format/${kv%%=*}"
	done
	for kv in 'branch-instructions=event=0xc4' 'branch-misses=event=0xc5' \
		'bus-cycles=event=0x3c,umask=0x01' 'cache-misses=event=0x2e,umask=0x41' \
		'cache-references=event=0x2e,umask=0x4f' 'cpu-cycles=event=0x3c' \
		'instructions=event=0xc0' 'ref-cycles=event=0x00,umask=0x03' \
		'mem-loads=event=0xcd,umask=0x1,ldlat=3' 'mem-stores=event=0xcd,umask=0x2'; do
		echo "${kv#*=}" >"$d/events/${kv%%=*}"
	done
	[ "$5" = no ] || echo 'event=0x00,umask=0x4' >"$d/events/slots"
	local names=(retiring bad-spec fe-bound be-bound heavy-ops br-mispredict fetch-lat mem-bound)
	local i
	for ((i = 0; i < $6; i++)); do
		printf 'event=0x00,umask=0x%x\n' $((0x80 + i)) >"$d/events/topdown-${names[$i]}"
	done
}

sysfs_common() { # the fixed-type software PMUs perf also looks for
	local root="$1/sys/bus/event_source/devices"
	mkdir -p "$root/software" "$root/tracepoint" "$root/breakpoint"
	echo 1 >"$root/software/type"
	echo 2 >"$root/tracepoint/type"
	echo 5 >"$root/breakpoint/type"
}

HANDMADE=(m6i-16xlarge m6i-16xlarge-oldkernel icx-8375c-metal m7i-24xlarge m5-24xlarge
	guest-no-leaf-a m6i-no-sysfs metal-no-sysfs v5-guest-ecx-bitmap adl-hybrid-metal
	hybrid-guest-hazard amd-epyc-guest kvm-on-hybrid-host kvm-on-hybrid-host-6.18
	m6i-rotated-log m6i-empty-log vmware-counters-in-use m6i-16xlarge-log-only
	m6i-injected-mask m6i-injected-rotated m6i-injected-split m6i-injected-split-rotated
	cwf-guest-fixed456 cwf-metal rpl-guest-mask-refuted rpl-guest-mask-refuted-log-only
	icx-metal-5.4 icx-metal-5.4-no-log arl-u-hybrid-metal-6.12)
for w in "${HANDMADE[@]}"; do rm -rf -- "$w"; done
CAPTURES=${CAPTURES:-../../../shared/captures}
if [ -d "$CAPTURES" ]; then
	./import-captures.sh "$CAPTURES"
else
	echo "$0: $CAPTURES not found: the cap-* fixtures are left as committed" >&2
fi

# dmi WORLD SYS_VENDOR PRODUCT_NAME: /sys/class/dmi/id, as `pmuguard snapshot` copies it.
dmi() {
	mkdir -p "$1/dmi"
	echo "$2" >"$1/dmi/sys_vendor"
	echo "$3" >"$1/dmi/product_name"
}

GUEST_ECX=0xfeda3203   # bit 31: hypervisor present
METAL_ECX=0x7ffefbff   # bit 31 clear, bit 15 PDCM

# AWS m6i.16xlarge on a current kernel: 4 fixed advertised, no perf metrics,
# slots hidden by commit 556a7c039a52.
w=m6i-16xlarge
cpuid $w 0x0000001b "$INTEL" 0x000606a6 $GUEST_ECX 0xbc010410 \
	"0x07300802 0x00000000 0x00000000 0x00008604" "$KVM"
dmesg_intel $w Icelake 2 4 0000000f000000ff
sysfs_intel $w cpu 4 icelake no 0
sysfs_common $w
dmi $w "Amazon EC2" m6i.16xlarge

# The same guest on an older kernel (before 6.11, no backport): slots and
# topdown-* are listed although perf metrics does not exist.
w=m6i-16xlarge-oldkernel
cpuid $w 0x0000001b "$INTEL" 0x000606a6 $GUEST_ECX 0xbc010410 \
	"0x07300802 0x00000000 0x00000000 0x00008604" "$KVM"
dmesg_intel $w Icelake 2 4 0000000f000000ff
sed -i 's/6.8.0-1021-aws/6.1.0-18-cloud-amd64/' $w/dmesg.txt
sysfs_intel $w cpu 4 icelake yes 4
sysfs_common $w
dmi $w "Amazon EC2" m6i.16xlarge

# The m6i's kernel log and nothing else (what a support engineer is sent):
# the seed's PMU block (../shared/pmu-facts.md) under the boot's DMI and
# CPU0 lines, on Amazon Linux 2's 5.10.  No capture of an m6i exists.
w=m6i-16xlarge-log-only
mkdir -p $w
cat >$w/dmesg.txt <<'EOF'
[    0.000000] Linux version 5.10.205-195.807.amzn2.x86_64 (mockbuild@ip-10-0-38-21) (gcc10-gcc (GCC) 10.5.0 20230707 (Red Hat 10.5.0-1), GNU ld version 2.35.2-9.amzn2.0.1) #1 SMP
[    0.000000] DMI: Amazon EC2 m6i.16xlarge/, BIOS 1.0 10/16/2017
[    0.000000] Hypervisor detected: KVM
[    0.352031] smpboot: CPU0: Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz (family: 0x6, model: 0x6a, stepping: 0x6)
[    0.352933] Performance Events: Icelake events, Intel PMU driver.
[    0.353510] ... version:                2
[    0.353510] ... bit width:              48
[    0.353510] ... generic registers:      8
[    0.353510] ... value mask:             0000ffffffffffff
[    0.353510] ... max period:             00007fffffffffff
[    0.353510] ... fixed-purpose events:   4
[    0.353510] ... event mask:             0000000f000000ff
EOF

# Bare-metal Ice Lake-SP (Xeon Platinum 8375C): counter 3 and perf metrics real.
w=icx-8375c-metal
cpuid $w 0x0000001b "$INTEL" 0x000606a6 $METAL_ECX 0xbc010410 \
	"0x08300805 0x00000000 0x0000000f 0x00008604" -
dmesg_intel $w Icelake 5 4 0001000f000000ff
sysfs_intel $w cpu 4 icelake yes 4
sysfs_common $w

# AWS m7i.24xlarge (Sapphire Rapids guest): 2 fixed counters advertised.
w=m7i-24xlarge
cpuid $w 0x0000001b "$INTEL" 0x000806f8 $GUEST_ECX 0xbc010410 \
	"0x08300802 0x00000000 0x00000000 0x00008602" "$KVM"
dmesg_intel $w Sapphire 2 2 00000003000000ff
sysfs_intel $w cpu 4 sapphire_rapids no 0
sysfs_common $w

# AWS m5.24xlarge (Skylake-SP guest): 3 fixed counters.
w=m5-24xlarge
cpuid $w 0x00000016 "$INTEL" 0x00050654 $GUEST_ECX 0x84000000 \
	"0x07300802 0x00000000 0x00000000 0x00000603" "$KVM"
dmesg_intel $w Skylake 2 3 00000007000000ff
sysfs_intel $w cpu 4 skylake no 0
sysfs_common $w

# A guest whose CPUID stops below leaf 0xA: the fixed-counter count is
# unknown, so nothing may be blocked (fail open).
w=guest-no-leaf-a
cpuid $w 0x00000007 "$INTEL" 0x000606a6 $GUEST_ECX 0xbc010410 - "$KVM"
sysfs_intel $w cpu 4 icelake no 0
sysfs_common $w

# An m6i whose sysfs is unreadable (no sys/ in the snapshot): in a guest,
# sysfs proves nothing, so CPUID and the log still decide: hazard.
w=m6i-no-sysfs
cpuid $w 0x0000001b "$INTEL" 0x000606a6 $GUEST_ECX 0xbc010410 \
	"0x07300802 0x00000000 0x00000000 0x00008604" "$KVM"
dmesg_intel $w Icelake 2 4 0000000f000000ff

# Bare metal advertising counter 3 with sysfs and the log unreadable: the
# backstop cannot apply, fail open.
w=metal-no-sysfs
cpuid $w 0x0000001b "$INTEL" 0x000606a6 $METAL_ECX 0xbc010410 \
	"0x08300805 0x00000000 0x0000000f 0x00008604" -

# A version-5 guest advertising counter 3 only through the ECX bitmap.
w=v5-guest-ecx-bitmap
cpuid $w 0x0000001b "$INTEL" 0x000606a6 $GUEST_ECX 0xbc010410 \
	"0x08300805 0x00000000 0x0000000f 0x00008603" "$KVM"
dmesg_intel $w Icelake 5 4 0000000f000000ff
sysfs_intel $w cpu 4 icelake no 0
sysfs_common $w

# Bare-metal Alder Lake (hybrid): cpu_core type 4, cpu_atom type 10.
w=adl-hybrid-metal
cpuid $w 0x00000020 "$INTEL" 0x00090672 $METAL_ECX 0xfc18c410 \
	"0x07300805 0x00000000 0x0000000f 0x00008604" -
cat >$w/dmesg.txt <<'EOF'
[    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075) (x86_64-linux-gnu-gcc-13 (Ubuntu 13.2.0-23ubuntu4) 13.2.0, GNU ld (GNU Binutils for Ubuntu) 2.42) #45-Ubuntu SMP PREEMPT_DYNAMIC
[    0.129012] Performance Events: XSAVE Architectural LBR, PEBS fmt4+-baseline,  AnyThread deprecated, Alderlake Hybrid events, 32-deep LBR, full-width counters, Intel PMU driver.
[    0.129012] core: cpu_core PMU driver: PEBS-via-PT
[    0.129012] ... version:                5
[    0.129012] ... bit width:              48
[    0.129012] ... generic registers:      8
[    0.129012] ... fixed-purpose events:   4
[    0.129012] ... event mask:             0001000f000000ff
[    0.129012] core: cpu_atom PMU driver: PEBS-via-PT
[    0.129012] ... version:                5
[    0.129012] ... bit width:              48
[    0.129012] ... generic registers:      6
[    0.129012] ... fixed-purpose events:   3
[    0.129012] ... event mask:             000000070000003f
EOF
sysfs_intel $w cpu_core 4 alderlake_hybrid yes 8
sysfs_intel $w cpu_atom 10 alderlake_hybrid no 0
echo 0-15 >$w/sys/bus/event_source/devices/cpu_core/cpus
echo 16-23 >$w/sys/bus/event_source/devices/cpu_atom/cpus
sysfs_common $w

# A hybrid guest advertising counter 3 without perf metrics: the verdict is
# the machine's and covers both core PMU types.
w=hybrid-guest-hazard
cpuid $w 0x00000020 "$INTEL" 0x00090672 $GUEST_ECX 0xfc18c410 \
	"0x07300802 0x00000000 0x00000000 0x00008604" "$KVM"
dmesg_intel $w 'Alderlake Hybrid' 2 4 0000000f000000ff
sysfs_intel $w cpu_core 4 alderlake_hybrid yes 4
sysfs_intel $w cpu_atom 10 alderlake_hybrid no 0
# One CPU each, so that perf's hybrid code finds both online in a 2-CPU test VM.
echo 0 >$w/sys/bus/event_source/devices/cpu_core/cpus
echo 1 >$w/sys/bus/event_source/devices/cpu_atom/cpus
sysfs_common $w

# AMD EPYC (Milan) guest: nothing to guard; event 0x00 umask 0x04 is ordinary.
w=amd-epyc-guest
cpuid $w 0x00000010 "$AMD" 0x00a00f11 $GUEST_ECX 0x00000000 \
	"0x00000000 0x00000000 0x00000000 0x00000000" "$KVM"
cat >$w/dmesg.txt <<'EOF'
[    0.262000] Performance Events: Fam17h+ core perfctr, AMD PMU driver.
[    0.262000] ... version:                0
[    0.262000] ... bit width:              48
[    0.262000] ... generic registers:      6
[    0.262000] ... fixed-purpose events:   0
[    0.262000] ... event mask:             000000000000003f
EOF
d=$w/sys/bus/event_source/devices/cpu
mkdir -p "$d/format" "$d/events"
echo 4 >"$d/type"
echo config:0-7,32-35 >"$d/format/event"
echo config:8-15 >"$d/format/umask"
sysfs_common $w

# KVM guest on a hybrid (Raptor Lake) host: KVM disabled the vPMU.
w=kvm-on-hybrid-host
cpuid $w 0x00000020 "$INTEL" 0x000b0671 $GUEST_ECX 0xfc18c410 \
	"0x00000000 0x00000000 0x00000000 0x00000000" "$KVM"
cat >$w/dmesg.txt <<'EOF'
[    0.174531] Performance Events: unsupported p6 CPU model 183 no PMU driver, software events only.
EOF
sysfs_common $w

# The same host seen from a 6.15+ guest kernel: the message changed wording
# ("Simplify Intel PMU initialization") but still blames the model.
w=kvm-on-hybrid-host-6.18
cpuid $w 0x00000020 "$INTEL" 0x000b0671 $GUEST_ECX 0xfc18c410 \
	"0x00000000 0x00000000 0x00000000 0x00000000" "$KVM"
cat >$w/dmesg.txt <<'EOF'
[    0.181207] Performance Events: unsupported CPU family 6 model 183 no PMU driver, software events only.
EOF
sysfs_common $w

# An m6i whose ring buffer has rotated past the boot lines, and one whose
# dmesg.txt is empty: the log proves nothing, CPUID still decides.
w=m6i-rotated-log
cpuid $w 0x0000001b "$INTEL" 0x000606a6 $GUEST_ECX 0xbc010410 \
	"0x07300802 0x00000000 0x00000000 0x00008604" "$KVM"
cat >$w/dmesg.txt <<'EOF'
[1209551.120331] systemd-journald[412]: Data hash table of /var/log/journal/system.journal has a fill level at 75.0 (1536 of 2047 items), suggesting rotation.
[1209551.883190] audit: type=1400 audit(1700000000.123:98): apparmor="DENIED" operation="open" profile="snap"
EOF
sysfs_intel $w cpu 4 icelake no 0
sysfs_common $w

w=m6i-empty-log
cpuid $w 0x0000001b "$INTEL" 0x000606a6 $GUEST_ECX 0xbc010410 \
	"0x07300802 0x00000000 0x00000000 0x00008604" "$KVM"
: >$w/dmesg.txt
sysfs_intel $w cpu 4 icelake no 0
sysfs_common $w

# An unprivileged user's lines in an m6i's kernel log (issue: "a kernel-log
# line written by any user flips the verdict").  x86's segfault report ends
# with the basename of the file mapped at the faulting address
# (show_signal_msg(), arch/x86/mm/fault.c; print_vma_addr(), mm/memory.c:
# "%s%s[%lx+%lx]"), so a program run from a file named "... event mask:
# 0001000f000000ff" puts that text into a kernel record.  Only the PMU
# driver's own block may prove perf metrics: CPUID decides, hazard.
# m6i_world WORLD: the m6i's CPUID, sysfs and DMI.
m6i_world() {
	cpuid "$1" 0x0000001b "$INTEL" 0x000606a6 $GUEST_ECX 0xbc010410 \
		"0x07300802 0x00000000 0x00000000 0x00008604" "$KVM"
	sysfs_intel "$1" cpu 4 icelake no 0
	sysfs_common "$1"
	dmi "$1" "Amazon EC2" m6i.16xlarge
}
SEGV='evil[23190]: segfault at 0 ip 00007f5c3e2a1002 sp 00007ffd9b1b4c68 error 4'
ROTATED='systemd-journald[412]: Data hash table of /var/log/journal/system.journal has a fill level at 75.0 (1536 of 2047 items), suggesting rotation.'
# After the driver's real block (dmesg, as util-linux prints it).
w=m6i-injected-mask
m6i_world $w
dmesg_intel $w Icelake 2 4 0000000f000000ff
{
	echo "[ 4211.338207] $SEGV in ... event mask: 0001000f000000ff[7f5c3e2a1000+1000] likely on CPU 3 (core 1, socket 0)"
	echo "[ 4211.338231] Code: Unable to access opcode bytes at 0x7f5c3e2a0fd8."
} >>$w/dmesg.txt
# The ring buffer rotated past the boot: the user's line is all that is left.
w=m6i-injected-rotated
m6i_world $w
{
	echo "[1209551.120331] $ROTATED"
	echo "[1209552.338207] $SEGV in ... event mask: 0001000f000000ff[7f5c3e2a1000+1000] likely on CPU 3 (core 1, socket 0)"
	echo "[1209552.338231] Code: Unable to access opcode bytes at 0x7f5c3e2a0fd8."
} >$w/dmesg.txt
# The log as syslog(2) and busybox's dmesg print it: a record whose text
# holds '\n' (here the file name's) becomes lines that each carry the
# record's prefix (record_print_text(), kernel/printk/printk.c).  The name
# fakes a banner and a whole block after the driver's.
split_record() {
	local ts=$1
	printf '<6>[%s] %s\n' "$ts" "$SEGV in x" \
		"$ts" '... event mask:             0001000f000000ff' \
		"$ts" 'Linux version 6.8.0-1021-aws (buildd@lcy02-amd64-049) #23-Ubuntu SMP' \
		"$ts" 'Performance Events: Icelake events, Intel PMU driver.' \
		"$ts" '... version:                5' \
		"$ts" '... fixed-purpose events:   4' \
		"$ts" '... event mask:             0001000f000000ff' \
		"$ts" 'z[7f5c3e2a1000+1000] likely on CPU 3 (core 1, socket 0)'
}
w=m6i-injected-split
m6i_world $w
dmesg_intel $w Icelake 2 4 0000000f000000ff
sed -i -e 's/^\[/<6>[/' -e '1s/^<6>/<5>/' $w/dmesg.txt
split_record ' 4211.338207' >>$w/dmesg.txt
# The same after the ring buffer rotated: the only block is the user's, and
# nothing left in the log tells it from the driver's.
w=m6i-injected-split-rotated
m6i_world $w
{
	echo "<6>[1209551.120331] $ROTATED"
	split_record '1209552.338207'
} >$w/dmesg.txt

# VMware guest whose counters are marked in use by the host.
w=vmware-counters-in-use
cpuid $w 0x00000016 "$INTEL" 0x00050654 $GUEST_ECX 0x84000000 \
	"0x07300804 0x00000000 0x00000000 0x00000603" "$VMWARE"
cat >$w/dmesg.txt <<'EOF'
[    0.289114] Performance Events: Skylake events, core PMU driver.
[    0.289114] core: Broken BIOS detected, complain to your hardware vendor.
[    0.289114] [Firmware Bug]: the BIOS has corrupted hw-PMU resources (MSR 38d is 330)
[    0.289114] ... version:                4
[    0.289114] ... fixed-purpose events:   3
[    0.289114] ... event mask:             00000007000000ff
EOF
sysfs_intel $w cpu 4 skylake no 0
sysfs_common $w

# Clearwater Forest (Darkmont-X, family 6 model 0xDD): perfmon version 5,
# fixed counters 0-2 and 4-6 (ECX bitmap 0x77, no counter 3), as a 6.17+
# kernel logs them.  As a guest whose VMM copied the host's leaf 0xA,
# counters 4-6 are advertised and no hypervisor implements them: hazard.
# On bare metal they exist: safe, and nothing is blocked.
cwf_dmesg() { # WORLD GUEST(yes|no)
	{
		echo '[    0.000000] Linux version 6.17.0-5-generic (buildd@lcy02-amd64-011) (x86_64-linux-gnu-gcc-15 (Ubuntu 15.2.0-4ubuntu4) 15.2.0, GNU ld (GNU Binutils for Ubuntu) 2.45) #5-Ubuntu SMP PREEMPT_DYNAMIC'
		if [ "$2" = yes ]; then
			echo '[    0.000000] DMI: QEMU Standard PC (Q35 + ICH9, 2009), BIOS 1.16.3-debian-1.16.3-2 04/01/2014'
			echo '[    0.000000] Hypervisor detected: KVM'
		fi
		cat <<'EOF'
[    0.231007] smpboot: CPU0: Intel(R) Xeon(R) 6 E-core processor (family: 0x6, model: 0xdd, stepping: 0x1)
[    0.231517] Performance Events: XSAVE Architectural LBR, PEBS fmt6+-baseline,  AnyThread deprecated, Darkmont events, 32-deep LBR, full-width counters, Intel PMU driver.
[    0.231517] ... version:                   5
[    0.231517] ... bit width:                 48
[    0.231517] ... generic counters:          8
[    0.231517] ... generic bitmap:            00000000000000ff
[    0.231517] ... fixed-purpose counters:    6
[    0.231517] ... fixed-purpose bitmap:      0000000000000077
[    0.231517] ... value mask:                0000ffffffffffff
[    0.231517] ... max period:                00007fffffffffff
[    0.231517] ... global_ctrl mask:          00000077000000ff
[    0.232110] signal: max sigframe size: 3632
EOF
	} >"$1/dmesg.txt"
}
w=cwf-guest-fixed456
cpuid $w 0x00000023 "$INTEL" 0x000d06d1 $GUEST_ECX 0xbc010410 \
	"0x08300805 0x00000000 0x00000077 0x00008603" "$KVM"
cwf_dmesg $w yes
sysfs_intel $w cpu 4 darkmont no 0
sysfs_common $w
w=cwf-metal
cpuid $w 0x00000023 "$INTEL" 0x000d06d1 $METAL_ECX 0xbc010410 \
	"0x08300805 0x00000000 0x00000077 0x00008603" -
cwf_dmesg $w no
sysfs_intel $w cpu 4 darkmont no 0
sysfs_common $w

# Bare-metal Ice Lake-SP (Xeon Gold 6338, family 6 model 0x6A) on Ubuntu
# 20.04's 5.4 kernel: healthy, and every fact the old bare-metal backstop
# took for a hazard.  Built from that kernel's sources, not a capture:
#  - the block is x86_pmu_show_pmu_cap()'s (arch/x86/events/core.c, 5.4:
#    "fixed-purpose events", "event mask"); intel_ctrl has bit 35 (CPUID
#    gives 4 fixed counters) and no bit 48: perf metrics (and bit 48) came
#    with the 5.9/5.10 topdown series;
#  - intel_icl_event_constraints (arch/x86/events/intel/core.c, since 5.2)
#    schedules TOPDOWN.SLOTS (0x0400) on fixed counter 3, which exists;
#  - icl_events_attrs held only mem-loads and mem-stores: sysfs lists no
#    slots and no topdown-* (sysfs_intel ... no 0);
#  - the msr module is not loaded: no msr.txt.
# CPUID is icx-8375c-metal's (perfmon version 5, 4 fixed counters, no
# hypervisor bit).  Once with the boot log, once with CPUID and sysfs alone.
icx54_cpuid() {
	cpuid "$1" 0x0000001b "$INTEL" 0x000606a6 $METAL_ECX 0xbc010410 \
		"0x08300805 0x00000000 0x0000000f 0x00008604" -
}
w=icx-metal-5.4
icx54_cpuid $w
cat >$w/dmesg.txt <<'EOF'
[    0.000000] Linux version 5.4.0-150-generic (buildd@bos03-amd64-012) (gcc version 9.4.0 (Ubuntu 9.4.0-1ubuntu1~20.04.1)) #167-Ubuntu SMP Mon May 15 17:35:05 UTC 2023 (Ubuntu 5.4.0-150.167-generic 5.4.231)
[    0.000000] DMI: Intel Corporation M50CYP2SBSTD/M50CYP2SBSTD, BIOS SE5C6200.86B.0020.P23.2103261309 03/26/2021
[    0.913204] smpboot: CPU0: Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz (family: 0x6, model: 0x6a, stepping: 0x6)
[    0.913842] Performance Events: PEBS fmt4+-baseline,  AnyThread deprecated, Icelake events, 32-deep LBR, full-width counters, Intel PMU driver.
[    0.913842] ... version:                5
[    0.913842] ... bit width:              48
[    0.913842] ... generic registers:      8
[    0.913842] ... value mask:             0000ffffffffffff
[    0.913842] ... max period:             00007fffffffffff
[    0.913842] ... fixed-purpose events:   4
[    0.913842] ... event mask:             0000000f000000ff
[    0.914120] rcu: Hierarchical SRCU implementation.
EOF
sysfs_intel $w cpu 4 icelake no 0
sysfs_common $w
w=icx-metal-5.4-no-log
icx54_cpuid $w
sysfs_intel $w cpu 4 icelake no 0
sysfs_common $w

# Bare-metal Arrow Lake-U (family 6 model 0xB5, hybrid) on 6.12: the
# kernel takes it through the Meteor Lake path and clears bit 48 itself
# (intel_pmu_broken_perf_cap() names Meteor Lake only), so cpu_core's mask
# shows counter 3 without perf metrics on healthy silicon, and
# hybrid_td_is_visible() (6.11+) hides cpu_core's slots and topdown-*.
# cpu_atom lists its own topdown-* (general-purpose events there: the atom
# halves of td_*_adl, "event=0x73,umask=0x0" ...), which say nothing of
# cpu_core's counter 3.  Built from 6.12's sources (arch/x86/events/core.c,
# arch/x86/events/intel/core.c), not a capture.
w=arl-u-hybrid-metal-6.12
cpuid $w 0x00000023 "$INTEL" 0x000b0650 $METAL_ECX 0xfc18c410 \
	"0x08300805 0x00000000 0x0000000f 0x00008604" -
cat >$w/dmesg.txt <<'EOF'
[    0.000000] Linux version 6.12.12-amd64 (debian-kernel@lists.debian.org) (x86_64-linux-gnu-gcc-14 (Debian 14.2.0-16) 14.2.0, GNU ld (GNU Binutils for Debian) 2.43.90.20250122) #1 SMP PREEMPT_DYNAMIC Debian 6.12.12-1 (2025-02-02)
[    0.142216] smpboot: CPU0: Intel(R) Core(TM) Ultra 7 255U (family: 0x6, model: 0xb5, stepping: 0x0)
[    0.142731] Performance Events: XSAVE Architectural LBR, PEBS fmt4+-baseline,  AnyThread deprecated, Meteorlake Hybrid events, 32-deep LBR, full-width counters, Intel PMU driver.
[    0.142731] core: cpu_core PMU driver:
[    0.142731] ... version:                5
[    0.142731] ... bit width:              48
[    0.142731] ... generic registers:      8
[    0.142731] ... value mask:             0000ffffffffffff
[    0.142731] ... max period:             00007fffffffffff
[    0.142731] ... fixed-purpose events:   4
[    0.142731] ... event mask:             0000000f000000ff
[    0.142731] core: cpu_atom PMU driver:
[    0.142731] ... version:                5
[    0.142731] ... bit width:              48
[    0.142731] ... generic registers:      8
[    0.142731] ... value mask:             0000ffffffffffff
[    0.142731] ... max period:             00007fffffffffff
[    0.142731] ... fixed-purpose events:   3
[    0.142731] ... event mask:             00000007000000ff
[    0.143206] signal: max sigframe size: 3632
EOF
sysfs_intel $w cpu_core 4 meteorlake_hybrid no 0
sysfs_intel $w cpu_atom 10 meteorlake_hybrid no 0
d=$w/sys/bus/event_source/devices/cpu_atom/events
echo 'event=0xc2,umask=0x0' >$d/topdown-retiring
echo 'event=0x73,umask=0x0' >$d/topdown-bad-spec
echo 'event=0x71,umask=0x0' >$d/topdown-fe-bound
echo 'event=0x74,umask=0x0' >$d/topdown-be-bound
# One CPU each, so that perf's hybrid code finds both online in a 2-CPU test VM.
echo 0 >$w/sys/bus/event_source/devices/cpu_core/cpus
echo 1 >$w/sys/bus/event_source/devices/cpu_atom/cpus
sysfs_common $w

# A QEMU/KVM guest on a hybrid Raptor Lake-P host, kernel 6.1-rc8 (before
# KVM disabled the vPMU on hybrid hosts): CPUID claims 3 fixed counters and
# the driver counts 3, but the 6.1 hybrid init built cpu_core's mask from
# the model's static layout, counter 3 and bit 48 included, and the
# hypervisor rejected the kernel's first write of it.  The PMU lines are
# those issue 22 quotes from the published log; the rest of the boot is a
# usual QEMU guest's.  The mask claims more than the count and the
# rejected write has bits 35 and 48: counter 3 is not implemented, whatever
# bit 48 says.  Log-only: the report's hazard; with CPUID: the guard's too.
rpl_dmesg() {
	cat >"$1/dmesg.txt" <<'EOF'
[    0.000000] Linux version 6.1.0-rc8 (user@builder) (gcc (GCC) 12.2.1 20221121, GNU ld (GNU Binutils) 2.39.0) #1 SMP PREEMPT_DYNAMIC
[    0.000000] DMI: QEMU Standard PC (Q35 + ICH9, 2009), BIOS 1.16.1-1-1 04/01/2014
[    0.000000] Hypervisor detected: KVM
[    0.181234] smpboot: CPU0: 13th Gen Intel(R) Core(TM) i7-1360P (family: 0x6, model: 0xba, stepping: 0x2)
[    0.181502] Performance Events: XSAVE Architectural LBR, PEBS fmt4+-baseline,  AnyThread deprecated, Alderlake Hybrid events, 32-deep LBR, full-width counters, Intel PMU driver.
[    0.181502] core: cpu_core PMU driver: PEBS-via-PT
[    0.181502] ... version:                2
[    0.181502] ... bit width:              48
[    0.181502] ... generic registers:      6
[    0.181502] ... value mask:             0000ffffffffffff
[    0.181502] ... max period:             00007fffffffffff
[    0.181502] ... fixed-purpose events:   3
[    0.181502] ... event mask:             0001000f0000003f
[    0.182018] unchecked MSR access error: WRMSR to 0x38f (tried to write 0x0001000f0000003f) at rIP: 0xffffffff8100ba04 (native_write_msr+0x4/0x20)
[    0.182018] Call Trace:
[    0.182018]  <TASK>
[    0.182018]  intel_pmu_enable_all+0x12/0x20
[    0.182018]  x86_pmu_enable+0x17a/0x390
[    0.182018]  </TASK>
EOF
}
w=rpl-guest-mask-refuted-log-only
mkdir -p $w
rpl_dmesg $w
w=rpl-guest-mask-refuted
cpuid $w 0x00000020 "$INTEL" 0x000b06a2 $GUEST_ECX 0xfc18c410 \
	"0x07300602 0x00000000 0x00000000 0x00000603" "$KVM"
rpl_dmesg $w
sysfs_intel $w cpu_core 4 alderlake_hybrid yes 4
sysfs_common $w

# What each world must give: its verdict and its findings, in order.  The
# tests glob this folder, so a world added here is tested everywhere (the
# unit suite fails on a world without an expected file).
expect() { printf 'state = %s\nfindings = %s\n' "$2" "$3" >"$1/expected"; }
expect adl-hybrid-metal safe healthy
expect amd-epyc-guest not-intel not-intel
expect guest-no-leaf-a unknown facts-unknown
expect hybrid-guest-hazard hazard fixed3-unimplemented
expect icx-8375c-metal safe healthy
expect kvm-on-hybrid-host no-pmu no-vpmu
expect kvm-on-hybrid-host-6.18 no-pmu no-vpmu
expect m5-24xlarge safe healthy
expect m6i-16xlarge hazard fixed3-unimplemented
expect m6i-16xlarge-oldkernel hazard fixed3-unimplemented
expect m6i-empty-log hazard fixed3-unimplemented,facts-unknown
expect m6i-no-sysfs hazard fixed3-unimplemented,facts-unknown
expect m6i-rotated-log hazard fixed3-unimplemented,facts-unknown
expect m7i-24xlarge safe healthy
expect metal-no-sysfs safe facts-unknown,healthy
expect v5-guest-ecx-bitmap hazard fixed3-unimplemented
expect vmware-counters-in-use safe counters-in-use
expect m6i-16xlarge-log-only hazard fixed3-unimplemented,facts-unknown
expect m6i-injected-mask hazard fixed3-unimplemented
expect m6i-injected-rotated hazard fixed3-unimplemented,facts-unknown
expect m6i-injected-split hazard fixed3-unimplemented
expect m6i-injected-split-rotated hazard fixed3-unimplemented,facts-unknown
expect cwf-guest-fixed456 hazard fixed-e-topdown-unimplemented
expect cwf-metal safe healthy
expect rpl-guest-mask-refuted hazard fixed3-unimplemented,pmu-msr-rejected
expect rpl-guest-mask-refuted-log-only hazard fixed3-unimplemented,pmu-msr-rejected,facts-unknown
# Healthy bare metal whose kernel logs no bit 48 and lists no slots.
expect icx-metal-5.4 safe healthy
expect icx-metal-5.4-no-log safe facts-unknown,healthy
expect arl-u-hybrid-metal-6.12 safe healthy

# The real captures, decided by reading each (source.txt says what it is).
# Log-only and CPUID-less captures carry facts-unknown: CPUID or sysfs was
# not captured, and a log-only verdict is the report's, not the guard's.
C=cap-
# PCM's and perf's output are not facts the probe reads.
expect ${C}aws-c5-9xlarge-pcm-2021 unknown facts-unknown
expect ${C}kvm-guest-icelake-sp-6A-6-slots-advertised-but-unusable-2022 unknown facts-unknown
expect ${C}perf-list-unidentified-icelake-server unknown facts-unknown
# Leaf 0xA without leaf 0: no vendor, nothing to decide on.
expect ${C}kvm-guest-on-amd-host-leafA-anythread-bit-2021 unknown facts-unknown
expect ${C}kvm-guest-on-rpl-13900K-host-5.15-vs-newer-leafA unknown facts-unknown
# The ARL-S host's log was grepped for "pmu": the banner is there, the block
# (version, fixed counters, mask) is not.
expect ${C}bare-arl-s-core-ultra9-285K-6.15.11-and-kvm-guest-7.0.0-rc2-host unknown facts-unknown
# No vPMU: KVM on hybrid hosts (ARL-S, RPL), Hyper-V on RPL (WSL2), GCE N1,
# bhyve, a named QEMU CPU model, Travis, VirtualBox, nested QEMU.
expect ${C}bare-arl-s-core-ultra9-285K-6.15.11-and-kvm-guest-7.0.0-rc2-guest no-pmu no-vpmu,facts-unknown
expect ${C}bare-rpl-i9-13900K-and-its-kvm-guest-leafA no-pmu no-vpmu,facts-unknown
expect ${C}wsl2-hyperv-on-rpl-i9-14900KF no-pmu no-vpmu,facts-unknown
expect ${C}gce-vm-broadwell-syzbot-6.2.0-rc6-next no-pmu no-vpmu,facts-unknown
expect ${C}bhyve-vstack-guest-xeon-gold-6248R-5.4.17-uek no-pmu no-vpmu,facts-unknown
expect ${C}kvm-vps-hoster-vserver-skylake-ibrs-4.19.0-20 no-pmu no-vpmu,facts-unknown
expect ${C}travis-ci-kvm-guest-haswell-4.4.0-101 no-pmu no-vpmu,facts-unknown
expect ${C}virtualbox-guest-kvm-paravirt-ubuntu20.04 no-pmu no-vpmu,facts-unknown
# VirtualBox on a hybrid Alder Lake-U host: its DMI line names VirtualBox,
# whose own lack of a vPMU is the cause, not KVM's on a hybrid host.
expect ${C}virtualbox-guest-on-adl-u-i7-1255U-6.6.0-rc7 no-pmu no-vpmu,facts-unknown
# A Firecracker guest's log quoted four spaces deep in a page.
expect ${C}kvm-firecracker-guest-intel-xeon-no-vpmu-5.8.0-quoted no-pmu no-vpmu,facts-unknown
expect ${C}syzbot-nested-qemu-on-gce-icelake-6.13.0-rc6 no-pmu no-vpmu,facts-unknown
# A 6.1 guest on a Raptor Lake-P host whose own kernel put counter 3 and
# bit 48 in its mask over CPUID's 3 (the hypervisor refused the write).
expect ${C}kvm-guest-on-rpl-p-6.1.0-rc8-kernel-mask hazard fixed3-unimplemented,pmu-msr-rejected,facts-unknown
# The same log pasted in each form of issue 41 (tests/paste/forms.py): read alike.
for form in color short-monotonic foreign-prefix bbcode stamp-spaces indented-unstamped; do
	expect ${C}form-$form-kvm-guest-on-rpl-p-6.1.0-rc8 hazard fixed3-unimplemented,pmu-msr-rejected,facts-unknown
done
# EC2 below a whole socket (r5d.xlarge): no vPMU; the remedy is the size.
expect ${C}aws-ec2-r5d-xlarge-no-vpmu-5.12.0-rc3 no-pmu no-vpmu,facts-unknown
# A Xen HVM guest without a vPMU: the switch is Xen's own vpmu= boot option.
expect ${C}xen-hvm-guest-xeon-e5506-no-vpmu-3.0.0 no-pmu no-vpmu,facts-unknown
# A kdump capture kernel: the crashed kernel's watchdog counter, left enabled,
# is what check_hw_exists() blames on the BIOS (its opener hidden by the
# console's log level).
expect ${C}kdump-capture-kernel-lenovo-sr650v2-6.11.0-rc5 unknown counters-in-use,facts-unknown
# Azure TDX: CPUID.0AH all zero (a CPUID capture: no log, no sysfs).
expect ${C}azure-tdx-sapphirerapids-guest-2023 no-pmu no-vpmu,facts-unknown
# AMD: nothing to guard; Hyper-V on AMD and QEMU TCG also have no PMU.
expect ${C}azure-github-codespaces-epyc-7763-hyperv-5.15.0-1041-azure no-pmu no-vpmu,not-intel,facts-unknown
expect ${C}hyperv-guest-win10-host-ryzen9-3900x-5.13.0-rc5-next no-pmu no-vpmu,not-intel,facts-unknown
expect ${C}qemu-tcg-cpu-EPYC-cirros-4.4.0-28 no-pmu no-vpmu,not-intel,facts-unknown
expect ${C}bare-amd-epyc-9754-bergamo-2s-6.12.0-rc2 not-intel not-intel,facts-unknown
expect ${C}kvm-guest-amd-cpu-host-minus-pmu-still-has-pmu-2022 not-intel not-intel,facts-unknown
# An AMD guest rebooted under perf: the previous boot's counter, kept by KVM,
# broke the driver's line, so only "Fam17h+ core perfctr" names the vendor.
expect ${C}kvm-guest-amd-fam17h-after-reset-counters-in-use-2023 not-intel counters-in-use,not-intel,facts-unknown
expect ${C}xen-pv-dom0-ryzen9-5950x-cpuid-2025 not-intel not-intel
# The same machine's live probe and its snapshot: CPUID read (AMD has no
# leaf 0xA to zero), and the driver says it did not load: no-pmu.
expect ${C}kvm-firecracker-guest-amd-epyc-no-vpmu-6.18.44 no-pmu no-vpmu,not-intel
# QEMU's regression gave the guest the TCG CPU's AMD identity: the kernel
# then runs the AMD driver, and event 0x00 umask 0x04 is an ordinary event.
expect ${C}kvm-guest-cpu-host-on-i7-8650U-qemu-2021-broken-qemu not-intel not-intel
# KVM guests with 3 fixed counters (upstream KVM's cap): counter 3 is never
# advertised.
expect ${C}kvm-guest-cpu-host-on-i7-8650U-qemu-2021 safe facts-unknown,healthy
expect ${C}kvm-guest-on-clx-xeon-gold-6240-6.16.0-rc1 safe facts-unknown,healthy
expect ${C}kvm-guest-on-skx-xeon-gold-6140-6.16.0-rc1 safe facts-unknown,healthy
expect ${C}kvm-guest-on-dgx-h100-xeon-8480C-6.12.1 safe facts-unknown,healthy
expect ${C}kvm-guest-on-emr-xeon-8575C-6.12.0-pkvm-ia safe facts-unknown,healthy
expect ${C}kvm-guest-on-tglh-6.1.0-rc5 safe facts-unknown,healthy
expect ${C}kvm-libguestfs-guest-on-i7-10510U-6.18.12 safe facts-unknown,healthy
expect ${C}qemu-kvm-guest-on-i7-11850H-6.18.0-rc1 safe facts-unknown,healthy
# Counter 3 on bare Tiger Lake: its block, after its boot's banner, has
# bit 48 (perf metrics proven).  The Alder Lake excerpt (a journal quoted
# in a mail) starts at its DMI line: without the boot's start (banner,
# command line, DMI line, where the kernel names a hypervisor) nothing
# says bare metal, and its bit 48 proves nothing: unknown (issue 49).
expect ${C}bare-adl-i7-1260P-acer-swift-sfx16-7.0.3 unknown facts-unknown
expect ${C}bare-tgl-i7-11390H-dell-inspiron5510-6.18.12 safe facts-unknown,healthy
# GCE C4 with --performance-monitoring-unit=enhanced: perfmon version 2
# with counter 3 is a vPMU, bit 48 or not.  Its bit 48 would prove perf
# metrics, but the excerpt (a grep) lacks its boot's start, so the bit
# cannot be told from a user's lines: a guest whose counter 3 is neither
# proven nor refuted, from a log alone: unknown (fail open).
expect ${C}gcp-gke-c4-standard-288-gnr-6985P-C-pmu-enhanced unknown facts-unknown
# Bare Ivy Bridge whose BIOS left a fixed counter enabled.
expect ${C}bare-ivb-i3-3240-hp-microserver-gen8-4.15.0-76 safe counters-in-use,facts-unknown
