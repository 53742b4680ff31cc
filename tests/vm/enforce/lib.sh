# SPDX-License-Identifier: GPL-2.0-or-later
# Kernel enforcement (`pmuguard enforce`) on Debian's real 6.1 kernel in the
# VM test bed (tests/vm/README.md, vm.sh, world.sh).
#
# Sourced by each tests/vm/enforce/CONCERN.sh, a `case $group in` of its
# own groups; it ends with finish.  CONCERN.sh --list names them.
#   CONCERN.sh --tap GROUP   exit 0 pass, 1 fail; a host that cannot run
#                            the VM gives a TAP skip
# Here: the VM prepared (../lib.sh: the command line, the TAP lines, boot,
# fatal, must_panic, survived, guarded and the checks of a step's output),
# what every job sees, and the checks the groups of more than one concern
# make.
# shellcheck shell=bash
# The checks are called through guarded().
# shellcheck disable=SC2317

# shellcheck source=tests/vm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
vm_group_args PMUGUARD PEO VM_CACHE PEO_ENABLE -- "$@"

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
