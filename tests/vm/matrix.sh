#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The checks are called through guarded(); $T and friends are the job's own.
# shellcheck disable=SC2317,SC2016
#
# Where it runs: every layer on each (kernel, userland) row, against the
# test PMU's real panic (tests/vm/README.md, "The matrix").
#
#   matrix.sh --tap matrix
#
# A row is a Debian suite's kernel (linux-image-amd64, the test PMU built
# for it by the suite's own compiler) and a suite's userland (its tree:
# glibc, the loader, perf, python3), made by prepare-suite.sh (bookworm's
# are this machine's own).  Per row, two boots: unguarded, the row's perf
# opening TOPDOWN.SLOTS must kill the kernel (the control); guarded, in
# one boot: the preload (that perf's TOPDOWN.SLOTS, a plain perf stat,
# perf list, libc's own syscall() through ctypes), pmuguard run over the
# static target, the kernel guard (enforce start, then a denial) and
# pmuguard status, whose "protected" must be what a canary saw.  The
# outcomes, in words, go to BUILD/matrix.json; README.md's "Where it runs"
# table must be the one it makes (matrix-table.py).
#
# Exit 0 pass, 1 fail; a host that cannot run the VM gives a TAP skip, a
# failure under PMUGUARD_TESTS_MUST_RUN=1.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
vm_group_args PMUGUARD LIB PEO VM_CACHE MATRIX_JSON PEO_ENABLE -- "$@"
# Downloaded trees and kernels: outside the clone, kept across runs (a
# fresh machine fetches them once).
SUITES=${PMUGUARD_VM_SUITES:-/var/cache/pmuguard/vm-suites}

vm_setup
# shellcheck disable=SC2034 # read by boot() through job_vars
VMDIR=$here
job_vars=(PMUGUARD LIB PEO PEO_ENABLE VMDIR T W DEB)
guarded_word=

# The rows: KERNEL-SUITE:USERLAND-SUITE.
ROWS=${PMUGUARD_MATRIX_ROWS:-bullseye:bullseye bookworm:bookworm trixie:trixie sid:sid bookworm:bullseye sid:bullseye}

# The job's own helpers (POSIX sh: a tree's /bin/sh may be dash).
job_lib() {
	cat <<'EOF'
# tr CMD...: CMD in the row's userland (its tree, chrooted), with the
# world's facts and CPU model; the host's own where T is empty.
tr() {
	if [ -n "$T" ]; then
		chroot "$T" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			PMUGUARD_SNAPSHOT="$PMUGUARD_SNAPSHOT" PERF_CPUID="$PERF_CPUID" "$@"
	else
		"$@"
	fi
}
if [ -n "$T" ]; then
	for m in proc sys dev; do mount --bind /$m "$T/$m"; done
	mkdir -p "$T/tmp"
	cp -a /tmp/pmuguard-facts "$T/tmp/"
fi
cp "$VMDIR/inherit.py" "$T/tmp/inherit.py"
# The row's perf: Debian's wrapper picks perf_<version of the running
# kernel>, which a tree of another suite lacks; the tree's own binary.
PERF=perf
for p in "$T"/usr/bin/perf_[0-9]*; do [ -x "$p" ] && PERF=/usr/bin/${p##*/}; done
echo "$PERF" >perf.path
tr "$PERF" --version >perf.version 2>&1 || :
tr ldd --version 2>&1 | head -n 1 >libc.version || :
EOF
}

# The outcome of step CASE of the guarded boot, in words, from its files.
outcome_slots() {
	if [ ! -e "$dir/$1.rc" ]; then
		echo "panicked"
	elif not_supported "$1" "$2"; then
		echo "refused"
	else
		echo "not refused (exit $(cat "$dir/$1.rc"))"
	fi
}

json_row() { # the row's JSON object from the shell variables
	python3 - "$@" <<'PY'
import json, sys
k = ["kernel", "libc", "perf", "unguarded", "preload", "run", "kernel_guard", "status", "status_true",
     "kernel_release", "kernel_suite", "userland_suite", "package"]
v = sys.argv[1:]
row = dict(zip(k, v))
row["status_true"] = row["status_true"] == "true"
print(json.dumps(row))
PY
}

case $group in
matrix)
	rows_json=()
	# The .deb, built once per content (tests/deb.sh, shared with the
	# package suite and vm-enforce-systemd).
	deb_why=
	# shellcheck disable=SC2034 # DEB: read by boot() through job_vars
	DEB=$("$here/../deb.sh" "${DEB_CACHE:-$VM_CACHE/deb}" 2>"$tmp/deb.err") ||
		{ DEB= && deb_why=$(tail -n 1 "$tmp/deb.err"); }
	for row in $ROWS; do
		ksuite=${row%%:*} usuite=${row#*:}
		# shellcheck disable=SC2034 # T: read by boot() through job_vars
		cache=$VM_CACHE T=
		for s in "$ksuite" "$usuite"; do
			[ "$s" != bookworm ] || continue
			set +e
			why=$("$here/prepare-suite.sh" "$SUITES" "$s" 2>&1)
			rc=$?
			set -e
			case $rc in
			0) ;;
			77) skip_all "the $s suite: $why" ;;
			*) tap_not_ok "$row: preparing the $s suite failed: $why"; finish ;;
			esac
		done
		[ "$ksuite" = bookworm ] || cache=$SUITES/$ksuite
		if [ "$usuite" != bookworm ]; then
			# shellcheck disable=SC2034 # read by boot() through job_vars
			T=$(sed -n 's/^TREE=//p' "$SUITES/$usuite/vm.env")
		fi
		kver=$(sed -n 's/^KVER=//p' "$cache/vm.env")
		# Kernels from 6.11 on list no slots or topdown events where perf
		# metrics is not proven (the m6i's new-kernel facts).
		kmaj=${kver%%.*} kmin=${kver#*.} kmin=${kmin%%.*}
		W=m6i-old
		[ "$kmaj" -lt 6 ] || { [ "$kmaj" = 6 ] && [ "$kmin" -lt 11 ]; } || W=m6i-new

		# The control: unguarded, the row's perf kills the kernel.
		VM_CACHE=$cache boot "$row.unguarded" "$W" < <(
			job_lib
			cat <<'EOF'
step control tr "$PERF" stat -e TOPDOWN.SLOTS -- true
step control-raw tr "$PERF" stat -e r0400 -- true
EOF
		)
		if [ "$result" = kernel-fault ] &&
			grep -q 'Kernel panic - not syncing: pmuguard_testpmu: fixed counter 3 ' "$dir/console"; then
			unguarded=panicked
			how="TOPDOWN.SLOTS"
			[ ! -e "$dir/control.rc" ] || how="r0400 (it does not know TOPDOWN.SLOTS)"
			tap_ok "$row (kernel $kver): unguarded, $(cat "$dir/perf.version" 2>/dev/null) opening $how kills the kernel ($(panic_summary "$dir/console"))"
		else
			unguarded="did not panic: $result"
			tap_not_ok "$row (kernel $kver): unguarded, the control did not kill the kernel: $result" \
				"$dir/console" "$dir/control.err"
		fi

		# Guarded: every layer in one boot.
		VM_CACHE=$cache boot "$row.guarded" "$W" < <(
			job_lib
			cat <<'EOF'
# What a plain perf stat does here without pmuguard (perf 7.x's default
# metrics want topdown events the test PMU lists only before 6.11); before
# 6.11 a plain perf stat is itself the hazard: it kills the kernel.
[ "$W" != m6i-new ] || step plain-bare tr "$PERF" stat -- true
mkdir -p "$T/usr/lib/pmuguard"
cp "$LIB" "$T/usr/lib/pmuguard/libpmuguard.so"
echo /usr/lib/pmuguard/libpmuguard.so >"$T/etc/ld.so.preload"
step slots tr "$PERF" stat -e TOPDOWN.SLOTS,instructions -- true
grep -q '<not supported>' slots.err || step slots-raw tr "$PERF" stat -e r0400,instructions -- true
step plain tr "$PERF" stat -- true
step list tr "$PERF" list
if tr python3 -c 'import ctypes' 2>/dev/null; then
	step ctypes tr python3 /tmp/inherit.py --libc libc.so.6 4:0x400 0:1
fi
rm -f "$T/etc/ld.so.preload"
# The package, as a fleet installs it in this userland: dpkg -i, then
# pmuguard-fleet install (the facts pinned by root's policy file, as on
# the vm-fleet group), then that perf again.
if [ -n "$DEB" ]; then
	cp "$DEB" "$T/tmp/pmuguard.deb"
	echo "snapshot = /tmp/pmuguard-facts" >"$T/etc/pmuguard.conf"
	step deb-install tr dpkg -i /tmp/pmuguard.deb
	if [ "$(cat deb-install.rc)" = 0 ]; then
		step fleet-install tr pmuguard-fleet install --layer preload
		step fleet-slots tr "$PERF" stat -e r0400,instructions -- true
	fi
	rm -f "$T/etc/ld.so.preload"
fi
# peo opens its events disabled: the module panics at open for it.
echo open >/sys/module/pmuguard_testpmu/parameters/fault_at
step run "$PMUGUARD" run --mode seccomp -- "$PEO" 4:0x400 4:0x1a4
# The kernel guard judges an event after the PMU's event_init (the LSM
# hook perf_event_alloc): the fault is where the m6i dies, at sched-in,
# so peo-enable enables its events.
echo add >/sys/module/pmuguard_testpmu/parameters/fault_at
step enforce-start "$PMUGUARD" enforce start --snapshot /tmp/pmuguard-facts
if [ "$(cat enforce-start.rc)" = 0 ]; then
	# The canary: an unprivileged process, started now, meets the guard.
	step enforce-denial setpriv --reuid 65534 --regid 65534 --clear-groups --no-new-privs \
		"$PEO_ENABLE" 4:0x400 4:0x1a4
fi
step status "$PMUGUARD" status --keys
EOF
		)
		if [ "$result" != "exit 0" ]; then
			tap_not_ok "$row: the guarded boot did not finish: $result" "$dir/console" "$dir/stderr"
			preload="the boot did not finish: $result" run=$preload kg=$preload st=$preload stt=false
		else
			c=slots
			[ ! -e "$dir/slots-raw.rc" ] || c=slots-raw
			ev=TOPDOWN.SLOTS
			[ "$c" = slots ] || ev=r0400
			preload=$(outcome_slots "$c" "$ev")
			[ "$preload" != refused ] || [ "$c" = slots ] || preload="refused (r0400: this perf does not know TOPDOWN.SLOTS)"
			extra=()
			# A plain perf stat: as without pmuguard, or refused slots.
			bare=0
			[ ! -e "$dir/plain-bare.rc" ] || bare=$(cat "$dir/plain-bare.rc")
			if rc_is plain "$bare" || err_has plain 'slots event is not supported|<not supported>'; then :; else
				extra+=("plain perf stat exit $(cat "$dir/plain.rc"), $bare without pmuguard")
			fi
			rc_is list 0 || extra+=("perf list exit $(cat "$dir/list.rc")")
			if [ -e "$dir/ctypes.rc" ]; then
				out_has ctypes 'type=4 config=0x400 ret=-1 errno=ENOENT' || extra+=("ctypes not refused")
			fi
			[ ${#extra[@]} = 0 ] || preload="$preload; ${extra[*]}"
			guarded preload "$row: the preload: $preload" eval '[ "${preload%% *}" = refused ] && [ "${preload#*; }" = "$preload" ]'
			if rc_is run 0 && out_has run 'type=4 config=0x400 ret=-1 errno=ENOENT' && out_has run 'type=4 config=0x1a4 ret=fd'; then
				run=refused
			else
				run="not refused (exit $(cat "$dir/run.rc"))"
			fi
			guarded run "$row: pmuguard run over the static target: $run" [ "$run" = refused ]
			if rc_is enforce-start 0; then
				if rc_is enforce-denial 0 && out_has enforce-denial 'type=4 config=0x400 ret=-1 errno=ENOENT' &&
					out_has enforce-denial 'type=4 config=0x1a4 ret=fd'; then
					kg=refused
				else
					kg="attached, not refused"
				fi
			else
				why=$(grep -m1 -E 'pmuguard: ' "$dir/enforce-start.err" | sed 's/^pmuguard: //' | cut -c1-160)
				kg="not attached (exit $(cat "$dir/enforce-start.rc")): ${why:-no reason given}"
			fi
			guarded kernel-guard "$row: the kernel guard: $kg" [ "$kg" = refused ]
			# Protected: a layer seen to guard, and exit 0 (not PARTLY).
			prot=false
			if grep -qx 'guarded=true' "$dir/status.out" && grep -qx 'exit=0' "$dir/status.out"; then
				prot=true
			fi
			layer=$(sed -n 's/^layer=//p' "$dir/status.out")
			st="protected: no"
			[ "$prot" = false ] || st="protected: yes, by $layer"
			# The host's layers here are the kernel guard alone (the
			# row's preload is its tree's): status is true where it says
			# protected exactly when uid 65534's open was refused.
			canary_refused=false
			[ "$kg" != refused ] || canary_refused=true
			stt=false
			[ "$prot" != "$canary_refused" ] || stt=true
			guarded status "$row: pmuguard status says '$st', and uid 65534's open was $([ "$canary_refused" = true ] && echo refused || echo not refused)" [ "$stt" = true ]
		fi
		if [ -z "$DEB" ]; then
			pkg="not built: $deb_why"
		elif [ ! -e "$dir/deb-install.rc" ]; then
			pkg="not tried (the boot did not get there)"
		elif ! rc_is deb-install 0; then
			pkg="dpkg refuses it: $(grep -oE 'depends on [^;]*; however' "$dir/deb-install.err" |
				sed 's/^depends on //; s/; however//' | sort -u | paste -sd , - | sed 's/,/, /g')"
			[ "$pkg" != "dpkg refuses it: " ] || pkg="dpkg -i exit $(cat "$dir/deb-install.rc")"
			pkg="$pkg: the .deb is built on bookworm; an older userland needs a build of its own"
		elif rc_is fleet-install 0 && not_supported fleet-slots r0400; then
			pkg="installs; pmuguard-fleet install guards (refused)"
		else
			pkg="installs; not guarded (fleet install exit $(cat "$dir/fleet-install.rc" 2>/dev/null))"
		fi
		libc=$(sed -nE 's/.*(GLIBC|GNU libc)[^0-9]*([0-9]+\.[0-9]+).*/\2/p' "$dir/libc.version" 2>/dev/null | head -n 1)
		perfv=$(sed -nE 's/^perf version ([0-9]+\.[0-9]+).*/\1/p' "$dir/perf.version" 2>/dev/null | head -n 1)
		kseries=$(sed -nE 's/^([0-9]+\.[0-9]+).*/\1/p' <<<"$kver")
		rows_json+=("$(json_row "$kseries" "${libc:-?}" "${perfv:-?}" "$unguarded" "$preload" "$run" "$kg" "$st" "$stt" "$kver" "$ksuite" "$usuite" "$pkg")")
	done
	printf '%s\n' "${rows_json[@]}" | python3 -c 'import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
json.dump({"schema": 1, "rows": rows}, open(sys.argv[1], "w"), indent=1)' "$MATRIX_JSON"
	if python3 "$here/matrix-table.py" --check "$here/../../README.md" "$MATRIX_JSON" >"$tmp/table.diff" 2>&1; then
		tap_ok "README.md's \"Where it runs\" table is the one $MATRIX_JSON makes"
	else
		tap_not_ok "README.md's \"Where it runs\" table is not the one $MATRIX_JSON makes (python3 tests/vm/matrix-table.py --write README.md $MATRIX_JSON)" "$tmp/table.diff"
	fi
	;;
*)
	echo "unknown group $group" >&2
	exit 2
	;;
esac
finish
