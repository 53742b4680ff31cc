#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The checks are called through guarded(); the job's variables are its own.
# shellcheck disable=SC2317,SC2016
#
# Kernel enforcement, what the guard judges on each world's PMUs: both
# core types of a hybrid, fixed counters 4-6, and a healthy world where
# nothing is attached.
# The VM, the TAP lines and the checks: lib.sh here (../lib.sh under it).
#
#   pmus.sh --tap GROUP;  pmus.sh --list
#
# Groups:
#   enforce-hybrid   both core types of a hybrid guest (cpu_core 4, cpu_atom)
#   enforce-fixed456 a Clearwater Forest guest's fixed counters 4-6: the
#                    topdown events denied in the kernel, unguarded it dies
#   enforce-healthy  a healthy world: nothing is attached, slots counts
set -euo pipefail
# shellcheck source=tests/vm/enforce/lib.sh
. "$(dirname "$0")/lib.sh"

case $group in
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
