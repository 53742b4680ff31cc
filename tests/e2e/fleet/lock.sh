#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Fleet, the run's lock in /run/pmuguard: never another user's, refused where
# unsafe, its holder named, held across the probe.
# The sandbox and helpers: lib.sh here.
#
#   lock.sh CASE        exit 0 pass, 1 fail, 77 skip;  lock.sh --list
set -euo pipefail
# shellcheck source=tests/e2e/fleet/lib.sh
. "$(dirname "$0")/lib.sh"

case $case_name in
lock-cannot-be-taken-by-a-user)
	# Issue: /run/lock is writable by every user, and a user who made
	# /run/lock/pmuguard first locked every later install, uninstall and
	# reprobe out (exit 1).  The lock is in /run/pmuguard now, where only
	# root can create it.  On the real paths (the sandbox's /run has the
	# machine's mode): nobody makes /run/lock/pmuguard with a lock in it,
	# holds that lock, and cannot create /run/pmuguard; every command still
	# works at once.
	cat >"$tmp/script" <<SH
set -e
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "\$@"; }
as_nobody mkdir -m 0700 /run/lock/pmuguard
as_nobody sh -c ': >/run/lock/pmuguard/fleet.lock'
as_nobody sh -c 'exec 8>>/run/lock/pmuguard/fleet.lock && flock 8 && exec sleep 60' &
holder=\$!
while flock -n /run/lock/pmuguard/fleet.lock true; do sleep 0.05; done
if as_nobody mkdir /run/pmuguard 2>/dev/null; then echo "NOBODY MADE /run/pmuguard"; fi
export PMUGUARD_SNAPSHOT=$M6I
timeout 20 $FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD
grep -qxF $LIB /etc/ld.so.preload && echo "installed"
timeout 20 $FLEET reprobe --layer preload --lib $LIB --pmuguard $PMUGUARD --quiet
echo "reprobed"
timeout 20 $FLEET uninstall --layer preload --lib $LIB --pmuguard $PMUGUARD
[ ! -e /etc/ld.so.preload ] && echo "uninstalled"
stat -c 'lockdir %u %a' /run/pmuguard
kill \$holder
SH
	m6i_host
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "a lock another user made in /run/lock: exit $rc"
	! grep -q 'NOBODY MADE' "$tmp/out" || fail "an unprivileged user could create /run/pmuguard"
	for w in installed reprobed uninstalled; do grep -qx "$w" "$tmp/out" || fail "not $w"; done
	grep -qx 'lockdir 0 700' "$tmp/out" || fail "the lock directory is not root's, 0700"
	# Under --root likewise: ROOT/run/lock/pmuguard of another user (what
	# the old case refused) is no concern of the lock.
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard" "$root/run/lock/pmuguard"
	chmod 0755 "$root/run"
	chmod 1777 "$root/run/lock"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	printf '/usr/lib/libkeep.so\n' >"$root/etc/ld.so.preload"
	cp "$root/etc/ld.so.preload" "$tmp/orig"
	chown 65534 "$root/run/lock/pmuguard"
	for op in install reprobe uninstall; do
		PMUGUARD_SNAPSHOT=$M6I timeout 20 "$FLEET" "$op" --root "$root" --pmuguard "$PMUGUARD" \
			>"$tmp/out" 2>&1 || fail "--root: $op with another user's run/lock/pmuguard: exit $?"
	done
	cmp -s "$root/etc/ld.so.preload" "$tmp/orig" || fail "--root: the file is not as it was"
	ok "another user's /run/lock/pmuguard (its lock held) locks nobody out; only root can make /run/pmuguard"
	;;
lock-refused-where-unsafe)
	# A lock place another user could hold or replace is refused at once
	# (exit 1, nothing changed, never a wait): each of ROOT/run,
	# ROOT/run/pmuguard and its fleet.lock a link, of another owner, of the
	# wrong type or writable by others.  Only root could make these (or the
	# owner of a --root tree).  A sticky ROOT/run open to all (a tmpfs
	# mounted without mode=0755) works while no one else made the directory
	# first.
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard" "$tmp/elsewhere"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	printf '/usr/lib/libkeep.so\n' >"$root/etc/ld.so.preload"
	cp "$root/etc/ld.so.preload" "$tmp/orig"
	# refused SETUP REASON: after SETUP (run in $root), install is refused.
	refused() {
		rm -rf "$root/run" "$tmp/victim"
		mkdir -m 0755 "$root/run"
		(cd "$root" && eval "$1")
		set +e
		PMUGUARD_SNAPSHOT=$M6I timeout 20 "$FLEET" install --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1
		r=$?
		set -e
		[ "$r" = 1 ] || fail "$1: exit $r, not 1"
		grep -q "$2" "$tmp/out" || fail "$1: the reason ($2) is not given"
		cmp -s "$root/etc/ld.so.preload" "$tmp/orig" || fail "$1: the file changed"
		[ ! -e "$tmp/victim" ] || fail "$1: the lock was created through a link"
	}
	refused 'mkdir -m 0700 run/pmuguard && chown 65534 run/pmuguard' 'run/pmuguard belongs to uid 65534'
	refused 'mkdir -m 0777 run/pmuguard' 'run/pmuguard is writable by other users (mode 777)'
	refused 'mkdir -m 0755 run/pmuguard' 'run/pmuguard is open to other users (mode 755)'
	refused "ln -s $tmp/elsewhere run/pmuguard" 'run/pmuguard is a symbolic link'
	refused ': >run/pmuguard' 'run/pmuguard is not a directory'
	refused "mkdir -m 0700 run/pmuguard && ln -s $tmp/victim run/pmuguard/fleet.lock" 'fleet.lock: it is not a plain file'
	refused 'mkdir -m 0700 run/pmuguard && : >run/pmuguard/fleet.lock && chown 65534 run/pmuguard/fleet.lock' 'not a plain file of uid 0'
	refused 'mkdir -m 0700 run/pmuguard && mkfifo run/pmuguard/fleet.lock' 'not a plain file'
	refused "rmdir run && ln -s $tmp/elsewhere run" 'cannot keep the lock in .*/run: .*/run is a symbolic link'
	refused 'chmod 0777 run' 'cannot keep the lock in .*writable by other users (mode 777)'
	refused 'chmod 1777 run && mkdir -m 0700 run/pmuguard && chown 65534 run/pmuguard' 'give .*/run mode 0755'
	# A sticky open ROOT/run where no one else got there first works.
	rm -rf "$root/run"
	mkdir -m 1777 "$root/run"
	PMUGUARD_SNAPSHOT=$M6I timeout 20 "$FLEET" install --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1 ||
		fail "a sticky ROOT/run open to all: install failed"
	[ "$(stat -c '%u %a' "$root/run/pmuguard")" = '0 700' ] || fail "the lock directory is not root's, 0700"
	"$FLEET" uninstall --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1 || fail "uninstall failed"
	cmp -s "$root/etc/ld.so.preload" "$tmp/orig" || fail "the file is not as it was"
	# A ROOT without run/ gets one, 0755.
	rm -rf "$root/run"
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" install --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1 ||
		fail "a root without run/: install failed"
	[ "$(stat -c %a "$root/run")" = 755 ] || fail "ROOT/run was not made 0755"
	ok "a lock place of another owner, a link, the wrong type or open to others is refused at once; nothing changed"
	;;
lock-wait-names-the-holder)
	# A run that waits for another's lock says so (after a second), on
	# stderr, naming the holder as apt does ("held by process PID (COMM)"),
	# --quiet or not; where the holder cannot be told, it says that.
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard" "$root/run"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	export PMUGUARD_SNAPSHOT=$M6I
	"$FLEET" install --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1 || fail "install: exit $?"
	lock=$root/run/pmuguard/fleet.lock
	[ -f "$lock" ] || fail "no lock file at $lock"
	# held HOLDER-CMD...: run HOLDER-CMD (it holds the lock until killed),
	# in a session of its own (setsid execs it: the pid is the command's);
	# sets holder (its pid) once the lock is held.
	held() {
		setsid "$@" &
		holder=$!
		for _ in $(seq 200); do flock -n "$lock" true || return 0; sleep 0.05; done
		fail "$* never took the lock"
	}
	# waits OP WANT: OP --quiet waits; its first stderr line, within seconds, is
	# WANT; it finishes once the holder is gone.
	waits() {
		# Emptied first: the job truncates it only once it has forked, and
		# the previous run's line must not pass for this one's.
		: >"$tmp/err"
		"$FLEET" "$1" --root "$root" --pmuguard "$PMUGUARD" --quiet >"$tmp/out" 2>"$tmp/err" &
		run=$!
		# Its first line comes after a second: a generous bound on a busy
		# machine.
		for _ in $(seq 1200); do [ ! -s "$tmp/err" ] || break; sleep 0.05; done
		sleep 0.5
		kill -0 "$run" 2>/dev/null || fail "$1 did not wait for the lock"
		[ "$(wc -l <"$tmp/err")" = 1 ] || fail "$1: not one line on stderr"
		grep -qxF "pmuguard-fleet: waiting for the lock $lock held by $2..." "$tmp/err" ||
			fail "$1: not 'waiting ... held by $2': $(cat "$tmp/err")"
		[ ! -s "$tmp/out" ] || fail "$1: the wait went to stdout"
		# The whole session: flock's child would hold the lock on.
		kill -- "-$holder"
		wait "$holder" 2>/dev/null || :
		wait "$run" || fail "$1 failed once the lock was free (exit $?)"
	}
	# A shell holding it itself (the pid in /proc/locks is its flock(1),
	# gone by now): the holder is the process with the lock on its file.
	# shellcheck disable=SC2016 # $1 is the inner shell's
	held bash -c 'exec 8>>"$1" && flock 8 && exec sleep 60' _ "$lock"
	waits uninstall "process $holder (sleep)"
	[ ! -e "$root/etc/ld.so.preload" ] || fail "uninstall did not finish after the wait"
	# flock(1) holding it around a command: flock, not its child.
	held flock "$lock" sleep 60
	waits install "process $holder (flock)"
	grep -qx /usr/lib/pmuguard/libpmuguard.so "$root/etc/ld.so.preload" || fail "install did not finish after the wait"
	# Through another path (a hard link) and with the taker gone: unknown,
	# said so, never a wrong pid.
	ln "$lock" "$tmp/hardlink"
	# shellcheck disable=SC2016 # $1 is the inner shell's
	held bash -c 'exec 8>>"$1" && flock 8 && exec sleep 60' _ "$tmp/hardlink"
	waits uninstall "another process (which one cannot be told)"
	# The same path, but /proc/locks names the holder (flock(1)).
	held flock "$tmp/hardlink" sleep 60
	waits install "process $holder (flock)"
	ok "a wait for the lock is said on stderr, under --quiet too, naming the holder's pid and command (or that it cannot be told)"
	;;
lock-held-across-the-probe)
	# The lock is taken once, before the probe, and held to the end (as
	# apt's daily script takes its own): a run waits for another's before
	# it decides anything, so no run acts on a verdict another run's
	# change made stale.  Even a healthy host's install, which changes
	# nothing, waits; and nothing is printed before the wait ends.
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	lock=$root/run/pmuguard/fleet.lock
	for world in "$ICX" "$M6I"; do
		"$FLEET" uninstall --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1 || fail "uninstall: exit $?"
		[ -f "$lock" ] || fail "no lock file at $lock"
		setsid flock "$lock" sleep 60 &
		holder=$!
		for _ in $(seq 200); do flock -n "$lock" true || break; sleep 0.05; done
		! flock -n "$lock" true || fail "the holder never took the lock"
		: >"$tmp/err"
		PMUGUARD_SNAPSHOT=$world "$FLEET" install --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>"$tmp/err" &
		run=$!
		# Until it says it waits, or ends: a generous bound on a busy machine.
		for _ in $(seq 1200); do
			if [ -s "$tmp/err" ] || ! kill -0 "$run" 2>/dev/null; then break; fi
			sleep 0.05
		done
		grep -q "waiting for the lock $lock" "$tmp/err" ||
			fail "${world##*/}: install did not wait for the lock: $(cat "$tmp/err" "$tmp/out")"
		[ ! -s "$tmp/out" ] || fail "${world##*/}: install probed before it held the lock: $(cat "$tmp/out")"
		kill -- "-$holder"
		wait "$holder" 2>/dev/null || :
		wait "$run" || fail "${world##*/}: install failed once the lock was free (exit $?)"
		grep -q 'probe verdict' "$tmp/out" || fail "${world##*/}: install did not probe once it held the lock"
	done
	ok "install waits for another run's lock before it probes (a healthy host's too), and probes once it holds it"
	;;
esac
fleet_case_done
