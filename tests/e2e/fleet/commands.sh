#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Fleet, the commands themselves: --help and usage, remove, root needed for a
# change, the metrics refreshed after one.
# The sandbox and helpers: lib.sh here.
#
#   commands.sh CASE        exit 0 pass, 1 fail, 77 skip;  commands.sh --list
set -euo pipefail
# shellcheck source=tests/e2e/fleet/lib.sh
. "$(dirname "$0")/lib.sh"

case $case_name in
help-and-usage)
	for c in "" install uninstall reprobe status; do
		"$FLEET" $c --help >"$tmp/out" 2>"$tmp/err" || fail "pmuguard-fleet $c --help exited $?"
		[ ! -s "$tmp/err" ] || fail "pmuguard-fleet $c --help wrote to stderr"
		grep -q "^Usage: pmuguard-fleet ${c:-COMMAND}" "$tmp/out" || fail "pmuguard-fleet $c --help: no usage"
		grep -q '^Exit' "$tmp/out" || fail "pmuguard-fleet $c --help: no exit codes"
	done
	for args in "" "bogus" "install --bogus" "status --layer sideways" "install --json" "install --root" \
		"status --json --keys" "status --keys --json"; do
		set +e
		# shellcheck disable=SC2086 # split on purpose
		"$FLEET" $args >"$tmp/out" 2>"$tmp/err"
		r=$?
		set -e
		[ "$r" = 2 ] || fail "pmuguard-fleet $args exited $r, not 2"
		grep -q '^pmuguard-fleet: ' "$tmp/err" || fail "pmuguard-fleet $args: no prefixed message"
		grep -q "^Try 'pmuguard-fleet --help'." "$tmp/err" || fail "pmuguard-fleet $args: no hint"
	done
	# (probe: its --help is checked with the JSON document's tests)
	for c in run snapshot check enforce; do
		"$PMUGUARD" $c --help >"$tmp/out" 2>"$tmp/err" || fail "pmuguard $c --help exited $?"
		[ ! -s "$tmp/err" ] || fail "pmuguard $c --help wrote to stderr"
		[ "$(wc -l <"$tmp/out")" -gt 2 ] || fail "pmuguard $c --help is one line"
	done
	ok "every --help on stdout with exit 0; usage errors exit 2 with one prefix"
	;;
remove-is-uninstall)
	# `remove` is uninstall by another name (apt's, dnf's word).
	"$FLEET" --help >"$tmp/out" || fail "--help exited $?"
	grep -q '^  remove  ' "$tmp/out" || fail "--help does not list remove"
	"$FLEET" remove --help >"$tmp/out" || fail "remove --help exited $?"
	grep -q '^Usage: pmuguard-fleet uninstall' "$tmp/out" || fail "remove --help is not uninstall's"
	grep -q 'pmuguard-fleet remove' "$tmp/out" || fail "uninstall --help does not name remove"
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	printf '# site\n/usr/lib/libkeep.so\n' >"$root/etc/ld.so.preload"
	cp "$root/etc/ld.so.preload" "$tmp/orig"
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" install --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1 ||
		fail "install: exit $?"
	grep -qx /usr/lib/pmuguard/libpmuguard.so "$root/etc/ld.so.preload" || fail "not installed"
	# The command not on PATH: remove needs no probe, but the command is
	# the one writer; without it nothing is changed, and it says how.
	set +e
	env PATH=/usr/bin:/bin "$FLEET" remove --root "$root" >"$tmp/out" 2>&1
	r=$?
	set -e
	[ "$r" = 1 ] || fail "remove without the command exited $r, not 1"
	grep -q 'the pmuguard command writes the files (give --pmuguard PATH, or remove the line /usr/lib/pmuguard/libpmuguard.so from .* by hand); nothing changed' "$tmp/out" ||
		fail "remove without the command does not say why: $(cat "$tmp/out")"
	grep -qx /usr/lib/pmuguard/libpmuguard.so "$root/etc/ld.so.preload" || fail "remove without the command changed the file"
	env PATH=/usr/bin:/bin "$FLEET" remove --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1 || fail "remove: exit $?"
	grep -q '^pmuguard-fleet: uninstalled: removed /usr/lib/pmuguard/libpmuguard.so' "$tmp/out" ||
		fail "remove did not say what uninstall says"
	cmp -s "$root/etc/ld.so.preload" "$tmp/orig" || fail "remove did not restore the file byte for byte"
	"$FLEET" remove --root "$root" --quiet >"$tmp/out" 2>&1 || fail "a second remove: exit $?"
	[ ! -s "$tmp/out" ] || fail "remove --quiet with nothing to do printed: $(cat "$tmp/out")"
	set +e
	"$FLEET" remove --root "$root" --json >"$tmp/out" 2>"$tmp/err"
	r=$?
	set -e
	[ "$r" = 2 ] || fail "remove --json exited $r, not 2"
	grep -q '^pmuguard-fleet: uninstall: --json and --keys are for status' "$tmp/err" || fail "remove --json: $(cat "$tmp/err")"
	ok "remove works as uninstall: the same help, the same words, the same file restored"
	;;
pmuguard-path-checked)
	# --pmuguard names the command: a path that is not there, a directory
	# or a file that cannot run is exit 1 and one line saying so (the man
	# page's exit codes), never the shell's raw error with 126 or 127
	# (issue 50, item 3).
	: >"$tmp/plain"
	for bad in "$tmp/nowhere" "$tmp" "$tmp/plain" no-such-pmuguard-command; do
		for c in status "status --json" "install --dry-run --root $tmp" "uninstall --dry-run --root $tmp"; do
			set +e
			# shellcheck disable=SC2086 # split on purpose
			"$FLEET" $c --pmuguard "$bad" >"$tmp/out" 2>"$tmp/err"
			r=$?
			set -e
			[ "$r" = 1 ] || fail "$c --pmuguard $bad exited $r, not 1: $(cat "$tmp/err")"
			[ ! -s "$tmp/out" ] || fail "$c --pmuguard $bad printed on stdout: $(cat "$tmp/out")"
			grep -qx "pmuguard-fleet: --pmuguard $bad: \(no such file\|not an executable file\) (the pmuguard command's path); nothing changed" "$tmp/err" ||
				fail "$c --pmuguard $bad: $(cat "$tmp/err")"
			[ "$(wc -l <"$tmp/err")" = 1 ] || fail "$c --pmuguard $bad said more: $(cat "$tmp/err")"
		done
	done
	ok "a --pmuguard that is no command is exit 1 with one line saying so, in status, install and uninstall"
	;;
uninstall-stays-off-until-install)
	# Uninstall means off until the next install (issue 50, item 9): the
	# boot's re-probe unit, which the packages enable, would attach the
	# guard again at the next boot of a hazardous host.  uninstall disables
	# it and says so; install enables it again; a package's removal
	# (PMUGUARD_FLEET_NO_REFRESH=1) leaves it as it is.  A stand-in
	# systemctl keeps the unit's state; a "boot" runs the re-probe where
	# the unit is enabled, as systemd would.
	mkdir -p "$tmp/bin"
	cat >"$tmp/bin/systemctl" <<SH
#!/bin/sh
printf '%s\n' "\$*" >>$tmp/systemctl.log
for a; do u=\$a; done
[ "\$u" = pmuguard-reprobe.service ] || exit 0
	case \$1 in
	is-enabled) cat $tmp/unit-state; [ "\$(cat $tmp/unit-state)" = enabled ] ;;
	enable) echo enabled >$tmp/unit-state ;;
	disable) echo disabled >$tmp/unit-state ;;
	*) exit 0 ;;
	esac
SH
	chmod 755 "$tmp/bin/systemctl"
	echo enabled >"$tmp/unit-state"
	cat >"$tmp/script" <<SH
set -e
export PATH=$tmp/bin:\$PATH
mkdir -p /run/systemd/system
boot() {
	if systemctl is-enabled pmuguard-reprobe.service >/dev/null; then
		$FLEET reprobe --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
	fi
	if grep -qx $LIB /etc/ld.so.preload 2>/dev/null; then echo "\$1: guarded"; else echo "\$1: not guarded"; fi
}
$FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
boot after-install
$FLEET uninstall --lib $LIB --pmuguard $PMUGUARD >$tmp/uninstall.out
echo "state \$(cat $tmp/unit-state)"
boot after-uninstall
boot and-the-next
$FLEET uninstall --dry-run --lib $LIB --pmuguard $PMUGUARD >$tmp/dry.out
$FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/install.out
echo "state \$(cat $tmp/unit-state)"
boot after-reinstall
PMUGUARD_FLEET_NO_REFRESH=1 $FLEET uninstall --lib $LIB --pmuguard $PMUGUARD >/dev/null
echo "state \$(cat $tmp/unit-state)"
SH
	m6i_host
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc: $(cat "$tmp/err")"
	want='after-install: guarded
state disabled
after-uninstall: not guarded
and-the-next: not guarded
state enabled
after-reinstall: guarded
state enabled'
	[ "$(cat "$tmp/out")" = "$want" ] || fail "uninstall did not stay off across boots: $(cat "$tmp/out")"
	grep -qx 'pmuguard-fleet: boot: pmuguard-reprobe.service disabled: the guard stays off across reboots until pmuguard-fleet install' "$tmp/uninstall.out" ||
		fail "uninstall does not say the boot will not guard again: $(cat "$tmp/uninstall.out")"
	grep -qx 'pmuguard-fleet: boot: pmuguard-reprobe.service enabled again: each boot matches the guard to the host' "$tmp/install.out" ||
		fail "install does not say it enabled the boot's re-probe again: $(cat "$tmp/install.out")"
	ok "after uninstall no boot guards the host again, until install; a package's removal leaves the unit as it is"
	;;
changes-need-root)
	# A command that changes the host says at once that it needs root, as
	# apt does, before it probes, tries the kernel or takes the lock.
	for c in install uninstall remove reprobe; do
		set +e
		setpriv --reuid=65534 --regid=65534 --clear-groups "$FLEET" "$c" --pmuguard "$PMUGUARD" \
			>"$tmp/out" 2>"$tmp/err"
		r=$?
		set -e
		[ "$r" = 1 ] || fail "$c as a user exited $r, not 1"
		{ [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ]; } ||
			fail "$c as a user said more than that it needs root: $(cat "$tmp/out" "$tmp/err")"
		grep -q "^pmuguard-fleet: $( [ "$c" = remove ] && echo uninstall || echo "$c") changes this host .*: it needs root; run it with sudo$" "$tmp/err" ||
			fail "$c as a user: $(cat "$tmp/err")"
	done
	ok "install, uninstall, remove and reprobe as a user say at once that they need root (exit 1)"
	;;
changes-refresh-the-metrics)
	# install, reprobe and uninstall start the metrics unit where systemd
	# runs, so that the file says the change now, not up to 5 minutes
	# later; nothing where systemd does not run, under --root, or from the
	# packages' removal scripts (PMUGUARD_FLEET_NO_REFRESH=1).  A
	# stand-in systemctl records what it is asked.
	mkdir -p "$tmp/bin"
	printf '#!/bin/sh\nprintf "%%s\\n" "$*" >>%s/systemctl.log\n' "$tmp" >"$tmp/bin/systemctl"
	chmod 755 "$tmp/bin/systemctl"
	cat >"$tmp/script" <<SH
set -e
export PATH=$tmp/bin:\$PATH
$FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
echo "-- no systemd" >>$tmp/systemctl.log
mkdir -p /run/systemd/system
echo "-- systemd" >>$tmp/systemctl.log
$FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
echo "-- installed" >>$tmp/systemctl.log
$FLEET reprobe --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
echo "-- reprobed" >>$tmp/systemctl.log
$FLEET uninstall --lib $LIB --pmuguard $PMUGUARD >/dev/null
echo "-- uninstalled" >>$tmp/systemctl.log
$FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
PMUGUARD_FLEET_NO_REFRESH=1 $FLEET uninstall --lib $LIB --pmuguard $PMUGUARD >/dev/null
echo "-- installed, uninstalled as a package removal does" >>$tmp/systemctl.log
mkdir -p $tmp/root/etc $tmp/root${LIB%/*}
cp $LIB $tmp/root$LIB
$FLEET install --root $tmp/root --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
echo "-- under --root" >>$tmp/systemctl.log
SH
	m6i_host
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc: $(cat "$tmp/err")"
	# (is-enabled: install and uninstall ask after the boot's re-probe,
	# uninstall-stays-off-until-install.)
	want='-- no systemd
-- systemd
is-enabled pmuguard-reprobe.service
start --no-block pmuguard-metrics.service
-- installed
start --no-block pmuguard-metrics.service
-- reprobed
is-enabled pmuguard-reprobe.service
start --no-block pmuguard-metrics.service
-- uninstalled
is-enabled pmuguard-reprobe.service
start --no-block pmuguard-metrics.service
-- installed, uninstalled as a package removal does
-- under --root'
	[ "$(cat "$tmp/systemctl.log")" = "$want" ] ||
		fail "the metrics unit was not started after each change, or was started where it should not be: $(cat "$tmp/systemctl.log")"
	ok "install, reprobe and uninstall start the metrics unit where systemd runs, never without systemd or under --root"
	;;
*)
	echo "unknown case $case_name"
	exit 2
	;;
esac
fleet_case_done
