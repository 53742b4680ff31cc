# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the vm suite's drivers (cases.sh, matrix.sh, enforce/lib.sh):
# their command line, the TAP output, the worlds, one boot, and the checks
# of a boot's steps, so that each helper has one definition and one
# timeout.  Sourcing defines only; vm_setup prepares the VM and the job's
# temporary directory.
# shellcheck shell=bash

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh" # list_cases

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fixtures=$(cd "$here/../snapshots" && pwd)

# What each driver's inputs are (tests/vm/meson.build sets them).
declare -gA vm_inputs=(
	[PMUGUARD]='path to the pmuguard command'
	[LIB]='path to libpmuguard.so'
	[PEO]='path to the static peo target'
	[PEO_ENABLE]='path to the static peo-enable target'
	[VM_CACHE]='cache directory for the VM'
	[MATRIX_JSON]='where matrix.json goes'
)

# vm_group_args VAR... -- ARG...: a driver's command line.  --list names
# its groups (the arms of its `case $group in`) and exits; else each VAR
# (vm_inputs) must be set, and [--tap] GROUP sets $group.
vm_group_args() {
	local v need=()
	while [ "$1" != -- ]; do need+=("$1"); shift; done
	shift
	if [ "${1:-}" = --list ]; then
		list_cases "$0" group
		exit 0
	fi
	for v in "${need[@]}"; do
		[ -n "${!v:-}" ] || { echo "${0##*/}: $v is not set: ${vm_inputs[$v]}" >&2; exit 2; }
	done
	[ "${1:-}" != --tap ] || shift
	[ -n "${1:-}" ] || { echo "usage: ${0##*/} [--tap] GROUP" >&2; exit 2; }
	group=$1
}

# --- TAP: one line per proof, the plan at the end.
n=0 failed=0
tap_ok() { n=$((n + 1)); echo "ok $n - $*"; }
tap_not_ok() { # DESC [FILE...]: the tail of each file as TAP comments
	n=$((n + 1))
	failed=1
	echo "not ok $n - $1"
	shift
	local f
	for f in "$@"; do
		[ -s "$f" ] || continue
		echo "# --- ${f##*/}"
		tail -n 25 "$f" | sed 's/^/#   /'
	done
}
finish() {
	echo "1..$n"
	exit "$failed"
}
# A host that cannot run the VM: a TAP skip, a failure under
# PMUGUARD_TESTS_MUST_RUN=1 (CI).
skip_all() {
	if [ "${PMUGUARD_TESTS_MUST_RUN:-0}" = 1 ]; then
		echo "not ok 1 - the VM cannot run here: $* (PMUGUARD_TESTS_MUST_RUN=1 makes this a failure)"
		echo "1..1"
		exit 1
	fi
	echo "1..0 # SKIP $*"
	exit 0
}

# prepare_vm [cloud]: fill $VM_CACHE (tests/vm/prepare.sh); a host that
# cannot skips, a failure to prepare is a failed test.
prepare_vm() {
	local why rc
	set +e
	why=$("$here/prepare.sh" "$VM_CACHE" ${1:+"$1"} 2>&1)
	rc=$?
	set -e
	case $rc in
	0) ;;
	77) skip_all "${1:+the $1 kernel: }$why" ;;
	*) tap_not_ok "preparing the ${1:+$1 }VM (kernel, initramfs, test PMU module) failed: $why"; finish ;;
	esac
}

# vm_setup: the generic kernel prepared and its vm.env read (KVER, KERNEL,
# INITRD, TESTPMU, GOPEO), and $tmp for the boots' job directories
# (kept with VM_KEEP=1).
vm_setup() {
	prepare_vm
	# shellcheck source=/dev/null
	. "$VM_CACHE/vm.env"
	GOPEO=${GOPEO:-}
	tmp=$(mktemp -d)
	if [ "${VM_KEEP:-0}" = 1 ]; then
		echo "# VM_KEEP=1: the boots' files stay in $tmp"
	else
		trap 'rm -rf "$tmp"' EXIT
	fi
}

# PERF_CPUID of each world's CPU model (perf's JSON tables).
ICX=GenuineIntel-6-6A-6
ADL=GenuineIntel-6-97-2
CWF=GenuineIntel-6-DD-1

# world NAME: the test PMU module's parameters, the CPUID fixture,
# PERF_CPUID, vCPUs, and metal=metal for a bare-metal world.
world() {
	metal=
	case $1 in
	m6i-old) # an m6i guest on a kernel before 6.11: slots and topdown-* listed
		pmu='faulty=1 td_events=1' facts=m6i-16xlarge-oldkernel cpuid=$ICX smp=1 ;;
	m6i-new) # an m6i guest on a kernel from 6.11 on: no slots or topdown-* listed
		pmu='faulty=1 td_events=0' facts=m6i-16xlarge cpuid=$ICX smp=1 ;;
	m6i-works) # the m6i's facts, a counter 3 that does not fault (audit)
		pmu='faulty=0 td_events=1' facts=m6i-16xlarge-oldkernel cpuid=$ICX smp=1 ;;
	hybrid) # a hazardous hybrid guest: cpu_core (type 4) and cpu_atom
		pmu='faulty=1 td_events=1 hybrid=1' facts=hybrid-guest-hazard cpuid=$ADL smp=2 ;;
	healthy) # Ice Lake with perf metrics (bit 48): counter 3 works
		pmu='faulty=0 td_events=1 deterministic=1' facts=icx-8375c-metal cpuid=$ICX smp=1 metal=metal ;;
	cwf-guest) # a Clearwater Forest guest whose CPUID claims fixed counters 4-6
		pmu='faulty=1 etd=1 missing=0x70 td_events=0' facts=cwf-guest-fixed456 cpuid=$CWF smp=1 ;;
	cwf-metal) # the same CPU on bare metal: counters 4-6 exist
		pmu='faulty=0 etd=1 td_events=0' facts=cwf-metal cpuid=$CWF smp=1 metal=metal ;;
	*) echo "unknown world $1" >&2; exit 2 ;;
	esac
}

# boot NAME WORLD < JOB-BODY: one VM boot running JOB-BODY (sh, with the
# world's facts set up and world.sh's step()), with each variable named in
# the driver's job_vars array set to its value here; sets $dir and $result,
# so it must not run in a subshell (feed it with < <(...), not a pipe).
# VM_TIMEOUT bounds a boot's silence (default 600 s with nothing new on its
# console or in its job's files; a boot takes 7-15 s when two run at once
# on 2 cores, a guarded matrix boot 50-120 s, and far more on a loaded
# host: a guarded bookworm boot once took over 400 s while the other suites
# ran, writing its steps all along), VM_TOTAL its length (default 1800 s).
# A boot that timed out anyway gets a second try, said in the log: a load
# spike is not a verdict.  VM_LSM, VM_NOMOUNT and VM_INIT reach vm.sh from
# the environment.
boot() {
	local name=$1 start v vars=
	world "$2"
	dir=$tmp/$name
	mkdir -p "$dir"
	# shellcheck disable=SC2154 # job_vars: the driver's list
	for v in "${job_vars[@]}"; do vars+=" $v='${!v:-}'"; done
	{
		echo ". '$here/world.sh'"
		echo "world_facts '$fixtures/$facts' $cpuid $metal"
		echo "${vars# }"
		cat
	} >"$dir/job.sh"
	local try
	for try in 1 2; do
		start=$(date +%s)
		result=$("$here/vm.sh" --smp "$smp" --timeout "${VM_TIMEOUT:-600}" --total "${VM_TOTAL:-1800}" \
			--pmu "$pmu" "$dir") || result="vm.sh failed"
		echo "# boot $name ($2 world${VM_LSM:+, lsm=$VM_LSM}): $result after $(($(date +%s) - start)) s$([ "$try" = 1 ] || echo ' (the second try)')"
		if [ "$result" != timeout ] || [ "$try" = 2 ]; then break; fi
		local last
		# The newest step that started and did not end.
		last=$(find "$dir" -maxdepth 1 -name '*.started' -printf '%T@ %f\n' | sort -rn |
			while read -r _ f; do [ -e "$dir/${f%.started}.rc" ] || { echo "${f%.started}"; break; }; done)
		echo "# boot $name timed out (silent for ${VM_TIMEOUT:-600} s, or past ${VM_TOTAL:-1800} s${last:+, in step $last}): a second try"
		# The job's own outputs go; job.sh stays.
		find "$dir" -mindepth 1 -maxdepth 1 ! -name job.sh -exec rm -rf {} +
	done
}

# panic_summary CONSOLE: "add of cpu event type=4 config=0x400 (hw config
# 0x400) by perf-exec via perf_event_exec": the module's panic and the path
# that scheduled the event.
panic_summary() {
	local via
	via=$(grep -oE '\b(perf_event_exec|_perf_ioctl|__do_sys_perf_event_open|__perf_event_task_sched_in|perf_event_init_task)\b' "$1" | head -n 1)
	sed -nE 's/.*not syncing: pmuguard_testpmu: [^:]*: (.*) by ([^[]*)\[.*/\1 by \2/p' "$1" | head -n 1 |
		tr -d '\n'
	echo "${via:+ via $via}"
}

# panicked_in STEP [HWCONFIG]: the boot in $dir ended in a kernel fault
# while step STEP ran (it started and never returned), and the console's
# panic is the test PMU's fault of fixed counter 3 (with HWCONFIG: of a
# fixed counter 3-6, for that hardware encoding).  If not, status 1 and
# $panic_why says what was not so.
panicked_in() {
	local step=$1 re='fixed counter 3' fault='the counter-3 fault'
	[ -z "${2:-}" ] || re="fixed counter [3-6] .*hw config $2)" fault="the fixed-counter fault of $2"
	panic_why=
	if [ "$result" != kernel-fault ]; then
		panic_why="expected a kernel panic, got: $result"
	elif [ ! -e "$dir/$step.started" ] || [ -e "$dir/$step.rc" ]; then
		panic_why="the kernel died, but not while step $step ran"
	elif ! grep -q "Kernel panic - not syncing: pmuguard_testpmu: $re" "$dir/console"; then
		panic_why="the kernel died, but not of $fault"
	fi
	[ -z "$panic_why" ]
}

# must_panic [--hw-config HWCONFIG] NAME STEP WHAT KILLS [FILE...]: the
# TAP line of a control that must kill the kernel in step STEP
# (panicked_in): "NAME: KILLS (the panic)", or "NAME: WHAT: why not" with
# the console's tail (and each FILE's where the kernel did not die).
must_panic() {
	local config=
	if [ "$1" = --hw-config ]; then config=$2; shift 2; fi
	local name=$1 step=$2 what=$3 kills=$4
	shift 4
	if panicked_in "$step" "$config"; then
		tap_ok "$name: $kills ($(panic_summary "$dir/console"))"
	elif [ "$result" != kernel-fault ]; then
		tap_not_ok "$name: $what: $panic_why" "$dir/console" "$@"
	else
		tap_not_ok "$name: $what: $panic_why" "$dir/console"
	fi
}

# fatal CASE WORLD HWCONFIG WHAT < JOB-BODY: unguarded, in a boot of its
# own, the kernel must panic in step CASE on the fixed-counter fault of
# that hardware encoding.
fatal() {
	local case=$1 w=$2 config=$3 what=$4
	boot "$case.unguarded" "$w"
	must_panic --hw-config "$config" "$case" "$case" "unguarded, $what" \
		"unguarded, $what kills the kernel" "$dir/stderr" "$dir/$case.err" "$dir/$case.out"
}

# After a batch boot: the kernel survived and every step finished, or the
# group ends here.  Where the driver sets survival_is_a_proof=1 (enforce/:
# the kernel guard is what kept the kernel alive) the survival is a TAP
# line of its own.
survived() {
	# shellcheck disable=SC2154 # group: the driver's argument
	if [ "$result" != "exit 0" ]; then
		tap_not_ok "$group: the VM did not finish its job: $result" \
			"$dir/console" "$dir/stderr" "$dir/stdout"
		finish
	fi
	[ "${survival_is_a_proof:-0}" = 0 ] || tap_ok "$group: the kernel survived every run of the batch"
}

# guarded CASE DESC TEST...: a check of step CASE's output in the batch.
# $guarded_word (cases.sh: "guarded") prefixes DESC.
guarded() {
	local case=$1 desc=$2
	shift 2
	if "$@"; then
		tap_ok "$case: ${guarded_word:+$guarded_word, }$desc"
	else
		tap_not_ok "$case: ${guarded_word:+$guarded_word: }$desc" "$dir/$case.err" "$dir/$case.out"
	fi
}

# Checks over $dir/CASE.{out,err,rc}.
rc_is() { [ "$(cat "$dir/$1.rc" 2>/dev/null)" = "$2" ]; }
err_has() { grep -Eq -- "$2" "$dir/$1.err"; }
out_has() { grep -Eq -- "$2" "$dir/$1.out"; }
not_supported() { err_has "$1" "<not supported>[[:space:]]+$2([[:space:]]|$)"; }
counted() { err_has "$1" "^[[:space:]]*[0-9][0-9,]*[[:space:]]+$2([[:space:]]|$)"; }
# json_ok CASE EXPR: CASE's stdout is JSON and the Python expression EXPR
# (j: the object) holds; what it was is printed when not.
json_ok() {
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
if not eval(sys.argv[2]):
    print(chr(10).join("# " + l for l in json.dumps(j, indent=1)[:3000].splitlines()))
    sys.exit(1)' "$dir/$1.out" "$2"
}
