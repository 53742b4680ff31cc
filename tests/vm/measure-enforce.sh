#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The kernel guard's size and per-event cost, for BENCHMARKS.md: in the VM
# test bed (vm.sh), `pmuguard enforce start` in the m6i world and in the
# Clearwater Forest guest world, then bpftool's view of the attached
# program (BPF instructions after the verifier, JIT-compiled bytes) and
# bpfpath.py's count of the instructions it runs per event.
#
#   VM_CACHE=build/tests/vm/cache tests/vm/measure-enforce.sh [BUILD]
#
# Needs what the vm suite needs (prepare.sh has filled VM_CACHE) and bpftool.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
: "${VM_CACHE:=$build/tests/vm/cache}"
export VM_CACHE
command -v bpftool >/dev/null || { echo "bpftool is not installed (Debian package bpftool)" >&2; exit 77; }
fixtures=$(cd "$here/../snapshots" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
measure() { # NAME FIXTURE PERF_CPUID 'MODULE PARAMS'
	local d=$tmp/$1 rodata
	mkdir -p "$d"
	cat >"$d/job.sh" <<EOF
. '$here/world.sh'
world_facts '$fixtures/$2' $3
'$build/probe/cli/pmuguard' enforce start >start.out 2>&1
bpftool prog show --json >progs.json
id=\$(python3 -c 'import json; print([p["id"] for p in json.load(open("progs.json")) if p.get("name", "").startswith("pmug_")][0])')
bpftool prog dump xlated id \$id >xlated.txt
for m in \$(python3 -c 'import json; print(" ".join(str(m) for p in json.load(open("progs.json")) if p.get("name", "").startswith("pmug_") for m in p.get("map_ids", [])))'); do
	bpftool map show id \$m --json >map\$m.show.json
	bpftool map dump id \$m --json >map\$m.json 2>/dev/null || true
done
'$build/probe/cli/pmuguard' enforce stop >stop.out 2>&1
EOF
	result=$("$here/vm.sh" --pmu "$4" "$d")
	[ "$result" = "exit 0" ] || { echo "$1: the boot ended in: $result" >&2; cat "$d/start.out" >&2 || true; exit 1; }
	rodata=$(grep -l '"pmug_enf.rodata"' "$d"/map*.show.json | sed 's/\.show//')
	echo "### $1 ($2): $(python3 -c 'import json, sys
for p in json.load(open(sys.argv[1])):
    if p.get("name", "").startswith("pmug"):
        print("%s: %d BPF instructions after the verifier, %d JIT-compiled bytes" % (p["name"], p["bytes_xlated"] // 8, p["bytes_jited"]))' "$d/progs.json")"
	echo
	python3 "$here/bpfpath.py" "$d/xlated.txt" "$rodata"
	echo
}
measure m6i m6i-16xlarge-oldkernel GenuineIntel-6-6A-6 'faulty=1 td_events=1'
measure clearwater-forest-guest cwf-guest-fixed456 GenuineIntel-6-DD-1 'faulty=1 etd=1 missing=0x70 td_events=0'
