#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Fleet, install and uninstall: the guard every process gets, the entries kept
# byte for byte, a healthy host left alone, bad libraries and a full /etc
# refused, --dry-run, a tree's code never run as root, setuid programs.
# The sandbox and helpers: lib.sh here.
#
#   install.sh CASE        exit 0 pass, 1 fail, 77 skip;  install.sh --list
set -euo pipefail
# shellcheck source=tests/e2e/fleet/lib.sh
. "$(dirname "$0")/lib.sh"

case $case_name in
install-guards-every-process)
	# Install on an m6i (the probe reads the m6i snapshot), then run the real
	# perf with no LD_PRELOAD in the m6i world under the fault simulator.
	cat >"$tmp/script" <<SH
set -e
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD
unset LD_PRELOAD
$here/in-world.sh $M6I GenuineIntel-6-6A-6 \
	$FAULTSIM --log $tmp/log -- perf stat -e TOPDOWN.SLOTS,instructions -- true
SH
	m6i_host
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "install or the guarded perf failed (exit $rc)"
	grep -qxF "$LIB" "$(etc)/ld.so.preload" || fail "ld.so.preload does not list the library"
	! grep -q FAULT "$tmp/log" || fail "perf reached the simulated fault"
	grep -q 'type=0 config=0x1 verdict=continue' "$tmp/log" || fail "instructions never reached the kernel"
	grep -q '<not supported>.*TOPDOWN.SLOTS' "$tmp/err" || fail "perf did not report TOPDOWN.SLOTS as not supported"
	grep -q 'pmuguard\[[0-9]*\]: blocked perf_event_open(type=4, config=0x400) in perf' "$tmp/syslog" ||
		fail "the block was not reported to syslog"
	! grep -q '^pmuguard:' "$tmp/err" || fail "fleet mode wrote to the process's stderr"
	ok "ld.so.preload guards perf started without LD_PRELOAD; the block went to syslog, not stderr"
	;;
unguarded-baseline)
	# The same run without the install reaches the fault: the case above can fail.
	sandbox "$here/in-world.sh" "$M6I" GenuineIntel-6-6A-6 \
		"$FAULTSIM" --log "$tmp/log" -- perf stat -e TOPDOWN.SLOTS,instructions -- true
	{ [ "$rc" = 86 ] && grep -q 'config=0x400 verdict=FAULT' "$tmp/log"; } ||
		fail "without the preload perf should reach the fault (exit $rc)"
	ok "without the preload the fault is reached"
	;;
healthy-host-untouched)
	# Healthy bare metal, new kernel and old: the 5.4 worlds log no bit 48
	# and list no slots, the Arrow Lake-U one clears bit 48 itself; the
	# fleet must not guard any of them.  A fresh sandbox for each, its
	# world named by the host's policy (install, which locks, judges by
	# the policy, and refuses a PMUGUARD_SNAPSHOT naming another: fleet
	# install-refuses-a-snapshot-its-lock-would-ignore).
	for world in icx-8375c-metal icx-metal-5.4 icx-metal-5.4-no-log arl-u-hybrid-metal-6.12; do
		rm -rf "$tmp/sb" && mkdir -p "$tmp/sb" "$(etc)"
		printf 'snapshot = %s\n' "$FIXTURES/$world" >"$(etc)/pmuguard.conf"
		sandbox "$FLEET" install --lib "$LIB" --pmuguard "$PMUGUARD"
		[ "$rc" = 0 ] || fail "$world: install on a healthy host failed ($rc)"
		grep -q 'no hazard' "$tmp/out" || fail "$world: install did not say why it did nothing"
		[ ! -e "$(etc)/ld.so.preload" ] || fail "$world: a healthy host's ld.so.preload was written"
		grep -q "probe verdict: safe" "$tmp/out" || fail "$world: install did not judge the world (safe): $(cat "$tmp/out")"
		ok "$world: healthy host: nothing written"
	done
	;;
entries-survive-byte-for-byte)
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	printf '# site preloads\n/usr/lib/libfoo.so /usr/lib/libbar.so\n\n# no newline at the end' \
		>"$root/etc/ld.so.preload"
	cp "$root/etc/ld.so.preload" "$tmp/orig"
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" install --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out"
	head -n1 "$root/etc/ld.so.preload" | grep -qx /usr/lib/pmuguard/libpmuguard.so ||
		fail "the entry is not the first line"
	cmp -s "$root/etc/ld.so.preload.pmuguard-bak" "$tmp/orig" || fail "no faithful backup"
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" install --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out"
	grep -q 'already installed' "$tmp/out" || fail "a second install is not idempotent"
	[ "$(grep -c libpmuguard "$root/etc/ld.so.preload")" = 1 ] || fail "entry added twice"
	"$FLEET" uninstall --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out"
	cmp "$root/etc/ld.so.preload" "$tmp/orig" || fail "uninstall did not restore the file byte for byte"
	rm "$root/etc/ld.so.preload"
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" install --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out"
	"$FLEET" uninstall --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out"
	[ ! -e "$root/etc/ld.so.preload" ] || fail "a file install created is left behind"
	ok "entries and comments survive install/uninstall byte for byte; idempotent"
	;;
entries-keep-their-owner-and-mode)
	# The list is edited in place of the builder's: its owner and mode
	# stay, but for write by group or others (helper-18's review: it came
	# back root's, 0644).
	[ "$(id -u)" = 0 ] || skip "needs root to give the tree's files other owners"
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	echo /usr/lib/libfoo.so >"$root/etc/ld.so.preload"
	chown 1000:1001 "$root/etc/ld.so.preload"
	chmod 640 "$root/etc/ld.so.preload"
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" install --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out"
	[ "$(stat -c %u:%g:%a "$root/etc/ld.so.preload")" = 1000:1001:640 ] ||
		fail "install: $(stat -c %u:%g:%a "$root/etc/ld.so.preload"), not 1000:1001:640"
	"$FLEET" uninstall --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out"
	[ "$(stat -c %u:%g:%a "$root/etc/ld.so.preload")" = 1000:1001:640 ] ||
		fail "uninstall: $(stat -c %u:%g:%a "$root/etc/ld.so.preload"), not 1000:1001:640"
	chmod 666 "$root/etc/ld.so.preload"
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" install --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1 || :
	if grep -q '^/usr/lib/pmuguard/libpmuguard.so$' "$root/etc/ld.so.preload"; then
		[ "$(stat -c %a "$root/etc/ld.so.preload")" = 644 ] ||
			fail "a list others could write kept that mode: $(stat -c %a "$root/etc/ld.so.preload")"
	fi
	ok "an edited list keeps its owner and mode, never writable by others"
	;;
install-root-never-runs-the-trees-code-as-root)
	# Issue 38 (1): a tree is often another's (a vendor's image, a build
	# user's rootfs); its library's constructor is its code.  Install
	# under --root checks it as uid 65534, with nothing of root's
	# environment, or not at all: never as root.
	command -v cc >/dev/null || skip "no C compiler for the tree's library"
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard" "$tmp/mark"
	chmod 1777 "$tmp/mark"
	cat >"$tmp/ctor.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
extern char **environ;
__attribute__((constructor)) static void mark(void)
{
	char path[4096];
	snprintf(path, sizeof(path), MARK ".%d", (int)getpid());
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd >= 0) {
		dprintf(fd, "%u\n", (unsigned)geteuid());
		for (char **e = environ; *e; e++)
			dprintf(fd, "%s\n", *e);
		close(fd);
	}
}
C
	cc -shared -fPIC -DMARK="\"$tmp/mark/ran\"" -o "$root/usr/lib/pmuguard/libpmuguard.so" "$tmp/ctor.c" ||
		skip "cannot build the tree's library"
	AWS_SECRET_ACCESS_KEY=sekrit VAULT_TOKEN=sekrit PMUGUARD_SNAPSHOT=$M6I \
		"$FLEET" install --root "$root" --layer preload --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1 ||
		fail "install --root failed: $(tail -n 3 "$tmp/out")"
	grep -qx /usr/lib/pmuguard/libpmuguard.so "$root/etc/ld.so.preload" || fail "the tree was not guarded"
	ls "$tmp/mark"/ran.* >/dev/null 2>&1 || fail "the tree's library was not checked at all, and install did not say so"
	for f in "$tmp/mark"/ran.*; do
		[ "$(head -n 1 "$f")" = 65534 ] || fail "the tree's library ran as uid $(head -n 1 "$f") during install"
		! grep -q sekrit "$f" || fail "the tree's library was given root's environment: $(grep sekrit "$f" | cut -d= -f1 | paste -sd ' ')"
	done
	grep -q 'checked as uid 65534, never as root' "$tmp/out" || fail "install did not say how it checked the library"
	ok "install --root checked the tree's library as uid 65534 alone ($(find "$tmp/mark" -name 'ran.*' | wc -l) run(s)), with nothing of root's environment"
	;;
full-etc-leaves-the-file-as-it-was)
	# Issue 40 (1): with /etc full, install said "printf: I/O error", then
	# "installed", left a 0-byte /etc/ld.so.preload and exited 0 (the
	# status of the write was its group's last command).  The sandbox's
	# /etc here is an overlay whose upper layer is a 64 KiB tmpfs, filled;
	# what install left is looked at before the namespace goes.
	mkdir -p "$tmp/full"
	set +e
	# shellcheck disable=SC2016 # the inner shells' arguments
	unshare -m -- bash -c 'mount --make-rprivate / && mount -t tmpfs -o "mode=$(stat -c %a /run)" tmpfs /run &&
		mount -t tmpfs -o size=64k tmpfs "$1" && shift && exec "$@"' _ "$tmp/full" \
		"$here/sandbox.sh" "$tmp/full" sh -c '{ dd if=/dev/zero of=/etc/fill bs=1k 2>/dev/null; :; }
			"$@"; echo "rc=$?"
			if [ -e /etc/ld.so.preload ]; then echo "left=$(wc -c </etc/ld.so.preload) bytes"; else echo left=none; fi' \
		sh env PMUGUARD_SNAPSHOT="$M6I" "$FLEET" install --layer preload --no-lock --lib "$LIB" \
		--pmuguard "$PMUGUARD" >"$tmp/out" 2>"$tmp/err"
	set -e
	grep -qx 'rc=0' "$tmp/out" && fail "install with /etc full exited 0"
	grep -qx 'rc=[0-9]*' "$tmp/out" || fail "install did not run: $(cat "$tmp/err")"
	grep -qx 'left=none' "$tmp/out" || fail "install left /etc/ld.so.preload behind: $(grep left= "$tmp/out")"
	! grep -q 'installed:' "$tmp/out" "$tmp/err" || fail "install said 'installed' with /etc full"
	grep -q 'a full file system' "$tmp/err" || fail "no reason given: $(cat "$tmp/err")"
	ok "install with /etc full: $(grep rc= "$tmp/out"), nothing left, nothing said installed, the reason given"
	;;
corrupt-or-missing-library-refused)
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard"
	printf '/usr/lib/libkeep.so\n' >"$root/etc/ld.so.preload"
	cp "$root/etc/ld.so.preload" "$tmp/orig"
	head -c 20000 /dev/urandom >"$root/usr/lib/pmuguard/libpmuguard.so"
	set +e
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" install --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>"$tmp/err"
	r1=$?
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" install --root "$root" --lib /usr/lib/nope/libpmuguard.so \
		--pmuguard "$PMUGUARD" >>"$tmp/out" 2>>"$tmp/err"
	r2=$?
	set -e
	{ [ "$r1" = 1 ] && [ "$r2" = 1 ]; } || fail "a bad library was not refused ($r1, $r2)"
	grep -q 'does not load cleanly' "$tmp/err" || fail "no clear reason for the corrupt library"
	grep -q 'does not exist' "$tmp/err" || fail "no clear reason for the missing library"
	cmp -s "$root/etc/ld.so.preload" "$tmp/orig" || fail "the file changed"
	ok "a corrupt or missing library is refused before the file changes"
	;;
install-under-lock-agrees-with-status)
	# Issue 40 (6): install honoured PMUGUARD_SNAPSHOT, locked the policy,
	# and the status after it, under that lock, ignored the setting and
	# said "no hazard": the Ansible role's verify failed on its own
	# simulation.  Under the lock install is about to set, its probe takes
	# the settings as status will: the environment is ignored, and said;
	# the policy file is where root simulates the facts.  (Without a lock
	# the environment moves only the facts of the commands it is given to:
	# status's canary, a process started now, meets the host's policy.)
	cat >"$tmp/script" <<SH
export PMUGUARD_SNAPSHOT=$M6I
$FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD; echo "install=\$?"
[ -e /etc/ld.so.preload ] && echo "listed: env under lock"
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
$FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD; echo "install=\$?"
grep -qxF $LIB /etc/ld.so.preload && echo "listed: the file's snapshot"
$FLEET status --lib $LIB --pmuguard $PMUGUARD >/dev/null; echo "status=\$?"
SH
	sandbox bash "$tmp/script"
	grep -q "probe: ignoring PMUGUARD_SNAPSHOT=$M6I: the policy is being locked" "$tmp/err" ||
		fail "install did not say it ignored the environment under the lock it sets: $(cat "$tmp/err")"
	! grep -q 'listed: env under lock' "$tmp/out" || fail "install guarded on a setting the lock it set then ignores"
	grep -q 'listed: the file' "$tmp/out" || fail "install did not take the policy file's snapshot: $(cat "$tmp/out" "$tmp/err")"
	grep -qx 'status=0' "$tmp/out" || fail "status under the lock disagrees with install: $(cat "$tmp/out" "$tmp/err")"
	ok "install under the lock it sets ignores PMUGUARD_SNAPSHOT, as status does, and says so; the policy file's snapshot counts for both"
	;;
install-refuses-a-snapshot-its-lock-would-ignore)
	# Issue 50 (13): with no policy, status honours PMUGUARD_SNAPSHOT (no
	# lock: it moves the facts of what it is given to) while install,
	# about to lock, ignored it: the two judged two hosts, and install
	# said "no hazard" where status had said "hazard".  Now install and
	# reprobe refuse it (exit 2, nothing written) and say how to simulate
	# a host; a policy naming the same facts, an already locked policy
	# (status ignores it too) and --no-lock (never locked) go on.
	cat >"$tmp/script" <<SH
export PMUGUARD_SNAPSHOT=$M6I
$FLEET status --lib $LIB --pmuguard $PMUGUARD >/dev/null; echo "status=\$?"
for c in install reprobe; do
	$FLEET \$c --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null; echo "\$c=\$?"
done
[ -e /etc/ld.so.preload ] || [ -e /etc/pmuguard.conf ] || echo "nothing written"
$FLEET install --dry-run --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null; echo "dry-run=\$?"
$FLEET install --no-lock --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null; echo "no-lock=\$?"
grep -qxF $LIB /etc/ld.so.preload && echo "no-lock: listed"
$FLEET uninstall --lib $LIB --pmuguard $PMUGUARD >/dev/null; echo "uninstall=\$?"
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
$FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null; echo "same=\$?"
grep -qxF $LIB /etc/ld.so.preload && echo "same: listed"
PMUGUARD_SNAPSHOT=$ICX $FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null; echo "locked=\$?"
SH
	sandbox bash "$tmp/script"
	grep -qx 'status=3' "$tmp/out" || fail "status did not judge the simulated m6i (hazard): $(cat "$tmp/out" "$tmp/err")"
	for w in install=2 reprobe=2 'nothing written' dry-run=2 no-lock=0 'no-lock: listed' same=0 'same: listed' locked=0; do
		grep -qx "$w" "$tmp/out" || fail "expected '$w': $(cat "$tmp/out" "$tmp/err")"
	done
	grep -q "^pmuguard-fleet: install: PMUGUARD_SNAPSHOT=$M6I names other facts than the policy, .*nothing changed. To simulate a host, put 'snapshot = $M6I' in /etc/pmuguard.conf" "$tmp/err" ||
		fail "install did not say why, and how to simulate a host: $(cat "$tmp/err")"
	ok "a PMUGUARD_SNAPSHOT the lock would ignore: status judges it, install and reprobe refuse (exit 2, nothing written) and say how; --no-lock, the policy's own snapshot and a locked policy go on"
	;;
dry-run-writes-nothing)
	# Issue 40 (11): install and uninstall had no --dry-run.  It says what
	# would change, and writes nothing: not the preload, not the policy,
	# not the lock's directory, no kernel guard.
	cat >"$tmp/script" <<SH
state() { for f in /etc/ld.so.preload /etc/pmuguard.conf /run/pmuguard; do
	if [ -e "\$f" ]; then ls -ld "\$f"; [ ! -f "\$f" ] || sha256sum "\$f"; else echo "\$f absent"; fi; done; }
state >/tmp/before
echo "== install preload"
$FLEET install --dry-run --layer preload --lib $LIB --pmuguard $PMUGUARD
echo "== install auto"
$FLEET install --dry-run --lib $LIB --pmuguard $PMUGUARD
state | cmp -s - /tmp/before && echo "install: nothing written"
$FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
state >/tmp/before
echo "== uninstall"
$FLEET uninstall --dry-run --lib $LIB --pmuguard $PMUGUARD
state | cmp -s - /tmp/before && echo "uninstall: nothing written"
$FLEET reprobe --dry-run --lib $LIB --pmuguard $PMUGUARD 2>/dev/null; echo "reprobe=\$?"
SH
	m6i_host
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "the dry runs failed (exit $rc): $(cat "$tmp/err")"
	sed -n '/== install preload/,/== install auto/p' "$tmp/out" >"$tmp/preload.out"
	grep -q "would: list $LIB first in /etc/ld.so.preload" "$tmp/preload.out" || fail "install --dry-run does not say it would list the library: $(cat "$tmp/out")"
	grep -q 'would: set lock = yes in /etc/pmuguard.conf' "$tmp/preload.out" || fail "install --dry-run does not say it would lock the policy"
	sed -n '/== install auto/,/== uninstall/p' "$tmp/out" >"$tmp/auto.out"
	grep -q 'would: attach the kernel guard (pmuguard enforce start: this guest advertises fixed counter 3' "$tmp/auto.out" ||
		fail "install --dry-run (auto) does not say it would try the kernel guard: $(cat "$tmp/auto.out")"
	grep -q 'the preload instead' "$tmp/auto.out" || fail "install --dry-run (auto) does not name the fallback"
	grep -qx 'install: nothing written' "$tmp/out" || fail "install --dry-run wrote something"
	grep -q "would: remove $LIB from /etc/ld.so.preload" "$tmp/out" || fail "uninstall --dry-run does not say what it would remove: $(cat "$tmp/out")"
	grep -qx 'uninstall: nothing written' "$tmp/out" || fail "uninstall --dry-run wrote something"
	grep -qx 'reprobe=2' "$tmp/out" || fail "reprobe took --dry-run"
	grep -qxF "$LIB" "$(etc)/ld.so.preload" || fail "the real install between the dry runs did not install"
	ok "install and uninstall --dry-run say what would change (preload, policy, kernel guard and its fallback) and write nothing, the lock's directory included"
	;;
setuid-ignores-environment)
	# A setuid program run by an unprivileged user: the loader takes the shim
	# from /etc/ld.so.preload only, and the shim ignores PMUGUARD_* there.
	cp "$PEO_DYN" "$tmp/peo-suid"
	chown root:root "$tmp/peo-suid"
	chmod 4755 "$tmp/peo-suid"
	cat >"$tmp/script" <<SH
set -e
printf '%s\n' $LIB >/etc/ld.so.preload
printf 'snapshot = $M6I\n' >/etc/pmuguard.conf
# TMPDIR, MALLOC_PERTURB_, GCONV_PATH, LD_LIBRARY_PATH: variables the
# loader unsetenv()s in a secure process, each leaving one more NULL
# between the environment and the auxiliary vector (sudo with TMPDIR set):
# the shim's scan of the initial stack read past its end there (SIGSEGV).
setpriv --reuid=65534 --regid=65534 --clear-groups env PMUGUARD_MODE=off PMUGUARD_LOG=quiet \
	TMPDIR=/tmp MALLOC_PERTURB_=1 GCONV_PATH=/x LD_LIBRARY_PATH=/x \
	PMUGUARD_SNAPSHOT=$ICX $tmp/peo-suid 4:0x400
SH
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc"
	grep -q 'config=0x400 errno=ENOENT' "$tmp/out" ||
		fail "the setuid program honoured PMUGUARD_MODE=off or the snapshot"
	grep -q 'pmuguard\[[0-9]*\]: blocked' "$tmp/syslog" ||
		fail "PMUGUARD_LOG=quiet was honoured in a setuid program, or the block was not logged"
	! grep -q '^pmuguard:' "$tmp/err" || fail "the setuid program's stderr was written"
	ok "setuid: PMUGUARD_* ignored, blocked, reported to syslog only"
	;;
esac
fleet_case_done
