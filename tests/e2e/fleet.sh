#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Fleet mitigation, end to end: /etc/ld.so.preload read by the real dynamic
# loader, /etc/pmuguard.conf read by the real shim, blocks reported to a
# syslog listener, all inside a private mount namespace whose /etc and /dev
# are overlays (sandbox.sh): the machine's own files are never touched.
#
#   fleet.sh CASE        exit 0 pass, 1 fail, 77 skip
set -euo pipefail
# (shellcheck -x follows it; without -x, SC1091 would only say it did not.)
# shellcheck source=tests/lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"
if [ "${1:-}" = --list ]; then list_cases "$0" case_name; exit 0; fi
: "${PMUGUARD:?}" "${FAULTSIM:?}" "${FIXTURES:?}" "${LIB:?}" "${FLEET:?}" "${PEO_DYN:?}"
here=$(cd "$(dirname "$0")" && pwd)
case_name=${1:?usage: fleet.sh CASE}


[ "$(id -u)" = 0 ] || skip "needs root for a private mount namespace"
unshare -m true 2>/dev/null || skip "unshare -m is not permitted here"
grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null || true
grep -qw overlay /proc/filesystems || skip "no overlayfs for the /etc sandbox"
command -v python3 >/dev/null || skip "python3 is needed for the syslog listener"

# The machine's own files, to prove at the end that no case touched them
# (and that no case left the installer's lock directory in its /run).
# (A directory there, such as a /run/pmuguard some other run left, is
# listed, not hashed: it must not end the suite with no word under set -e.)
real_state() { for f in /etc/ld.so.preload /etc/pmuguard.conf /dev/log /run/pmuguard; do
	if [ -e "$f" ]; then
		ls -ld "$f"
		if [ -f "$f" ]; then sha256sum "$f"; fi
	else
		echo "$f absent"
	fi
done; }
real_before=$(real_state)

# Directories the cases make are writable by their owner only, as the
# installer wants of every directory a lock or a link goes through.
umask 022
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
M6I=$FIXTURES/m6i-16xlarge
ICX=$FIXTURES/icx-8375c-metal
export PMUGUARD_LOG=warn

# sandbox CMD...: run CMD in the overlay sandbox; sets rc; output in $tmp/{out,err}.
# /run is a private tmpfs with the machine's /run mode, so that the
# installer's lock directory (/run/pmuguard) is never made in the machine's
# /run (sandbox.sh makes /run/lock private in the same way).
sandbox() {
	set +e
	# shellcheck disable=SC2016 # $1 and $@ are the inner shell's
	unshare -m -- bash -c 'mount --make-rprivate / && mount -t tmpfs -o "mode=$1" tmpfs /run && shift && exec "$@"' \
		_ "$(stat -c %a /run)" "$here/sandbox.sh" "$tmp/sb" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	set -e
	cp "$tmp/sb/syslog" "$tmp/syslog" 2>/dev/null || : >"$tmp/syslog"
}
mkdir -p "$tmp/sb"
etc() { echo "$tmp/sb/etc-up"; } # what the sandbox's /etc gained

fleet() { "$FLEET" "$@" --lib "$LIB" --pmuguard "$PMUGUARD"; }
# The sandbox's /etc/pmuguard.conf pins the m6i's facts, as a real m6i's
# are its live ones: install locks the policy, and a locked policy ignores
# PMUGUARD_SNAPSHOT, so the environment no longer stands in for the host
# once it is installed.
m6i_host() { mkdir -p "$(etc)" && printf 'snapshot = %s\n' "$M6I" >"$(etc)/pmuguard.conf"; }

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
	# fleet must not guard any of them.  A fresh sandbox for each.
	for world in icx-8375c-metal icx-metal-5.4 icx-metal-5.4-no-log arl-u-hybrid-metal-6.12; do
		rm -rf "$tmp/sb" && mkdir -p "$tmp/sb"
		sandbox env PMUGUARD_SNAPSHOT="$FIXTURES/$world" "$FLEET" install --lib "$LIB" --pmuguard "$PMUGUARD"
		[ "$rc" = 0 ] || fail "$world: install on a healthy host failed ($rc)"
		grep -q 'no hazard' "$tmp/out" || fail "$world: install did not say why it did nothing"
		[ ! -e "$(etc)/ld.so.preload" ] || fail "$world: a healthy host's ld.so.preload was written"
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
	ok "install --root checked the tree's library as uid 65534 alone ($(ls "$tmp/mark" | wc -l) run(s)), with nothing of root's environment"
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
policy-others-can-write-is-replaced)
	# Issue 38 (5): a policy file any user can write (a config-management
	# or umask mistake) is no lock: status says it is not trusted, install
	# replaces it with a file of root's and adopts none of its lines.
	mkdir -p "$(etc)"
	printf '# site policy\nmode = off\n' >"$(etc)/pmuguard.conf"
	chmod 666 "$(etc)/pmuguard.conf"
	sandbox "$PMUGUARD" status
	grep -q 'policy: ignored: /etc/pmuguard.conf: /etc/pmuguard.conf is writable by other users (mode 0666): not trusted' "$tmp/out" ||
		{ cat "$tmp/out" "$tmp/err"; fail "status did not say the policy file is not trusted"; }
	# --force: the file others can write cannot name the facts, and
	# install, which locks, takes no PMUGUARD_SNAPSHOT (fleet
	# install-under-lock-agrees-with-status).
	sandbox "$FLEET" install --force --layer preload --lib "$LIB" --pmuguard "$PMUGUARD"
	[ "$rc" = 0 ] || fail "install failed ($rc)"
	grep -q 'was writable by other users (mode 666)' "$tmp/err" || fail "install did not say why it replaced the policy"
	[ "$(stat -c '%u %a' "$(etc)/pmuguard.conf")" = "0 644" ] ||
		fail "the policy is still $(stat -c '%u %a' "$(etc)/pmuguard.conf") after install"
	! grep -q 'mode = off' "$(etc)/pmuguard.conf" || fail "install adopted a line anyone could have written: $(cat "$(etc)/pmuguard.conf")"
	grep -qx 'lock = yes' "$(etc)/pmuguard.conf" || fail "the new policy is not locked"
	grep -q 'mode = off' "$(etc)/pmuguard.conf.pmuguard-untrusted" || fail "the old file was not kept aside"
	# A directory others can write is refused: they could replace any file.
	rm -rf "$tmp/sb" && mkdir -p "$tmp/sb"
	sandbox sh -c 'chmod 777 /etc && exec "$@"' sh "$FLEET" install --force --layer preload --lib "$LIB" --pmuguard "$PMUGUARD"
	[ "$rc" != 0 ] || fail "install locked a policy in a directory others can write"
	grep -q 'policy NOT locked: /etc is writable by other users' "$tmp/err" || fail "no reason for refusing: $(cat "$tmp/err")"
	ok "a policy others can write: status says so, install replaces it (none of its lines adopted), a directory others can write is refused"
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
interrupted-install-leaves-a-valid-file | interrupted-install-through-a-link-leaves-a-valid-file)
	# No hook in the product: every external command the script runs (cat,
	# cp, mv, mktemp, sync, ...) is a wrapper on PATH that counts itself and
	# kills the script's whole process group with SIGKILL just before, or
	# just after, its Nth call, for every N until a run completes.  Each
	# kill must leave ld.so.preload as it was or fully changed, and the next
	# run must clean up and finish the job.  The second case does the same
	# where /etc/ld.so.preload is a link to a file configuration management
	# owns (srv/cm/ld.so.preload): that file is edited, the link is kept.
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard" "$tmp/bin"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	file=$root/etc/ld.so.preload
	dirs=$root/etc
	if [ "$case_name" = interrupted-install-through-a-link-leaves-a-valid-file ]; then
		mkdir -p "$root/srv/cm"
		: >"$root/srv/cm/ld.so.preload"
		ln -s ../srv/cm/ld.so.preload "$root/etc/ld.so.preload"
		file=$root/srv/cm/ld.so.preload
		dirs="$root/etc $root/srv/cm"
	fi
	entry=/usr/lib/pmuguard/libpmuguard.so
	printf '# site\n/usr/lib/libkeep.so\n' >"$tmp/orig"
	{ echo "$entry"; cat "$tmp/orig"; } >"$tmp/installed"
	for c in cat chmod cp flock grep mkdir mktemp mv readlink rm sed stat sync; do
		real=$(command -v "$c") || fail "no $c"
		cat >"$tmp/bin/$c" <<SH
#!/bin/sh
read -r n <"$tmp/count" || n=0
n=\$((n + 1))
echo "\$n" >"$tmp/count"
[ "\$n" != "\$KILL_BEFORE" ] || kill -9 0
"$real" "\$@"
rc=\$?
[ "\$n" != "\$KILL_AFTER" ] || kill -9 0
exit \$rc
SH
		chmod 755 "$tmp/bin/$c"
	done
	# trial OP FROM-FILE BEFORE|AFTER N: 0 if the run completed uninterrupted.
	trial() {
		cp "$3" "$file"
		echo 0 >"$tmp/count"
		set +e
		env PATH="$tmp/bin:$PATH" "KILL_$1=$4" PMUGUARD_SNAPSHOT="$M6I" \
			setsid -w "$FLEET" "$2" --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1
		r=$?
		set -e
		[ "$r" = 0 ] && [ "$(cat "$tmp/count")" -lt "$4" ]
	}
	# The link, where there is one, is never replaced.
	link_kept() {
		[ "$file" = "$root/etc/ld.so.preload" ] ||
			[ "$(readlink "$root/etc/ld.so.preload")" = ../srv/cm/ld.so.preload ]
	}
	# shellcheck disable=SC2086 # $dirs is a list of paths without spaces
	temporaries() { find $dirs -maxdepth 1 \( -name '*pmuguard-new*' -o -name '*bak.new*' \); }
	kills=0
	for op in install uninstall; do
		if [ $op = install ]; then from=$tmp/orig to=$tmp/installed; else from=$tmp/installed to=$tmp/orig; fi
		for when in BEFORE AFTER; do
			n=1
			until trial "$when" "$op" "$from" "$n"; do
				if ! cmp -s "$file" "$from" && ! cmp -s "$file" "$to"; then
					fail "$op killed $when external command $n: ld.so.preload is neither the old file nor the new one"
				fi
				link_kept || fail "$op killed $when external command $n: the link was replaced"
				[ "$(stat -c %a "$file")" = 644 ] || fail "$op killed at $n: the file is not 0644"
				kills=$((kills + 1))
				# The next run, uninterrupted, cleans up and finishes the job.
				PMUGUARD_SNAPSHOT=$M6I "$FLEET" "$op" --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1 ||
					fail "$op after a kill at $n failed"
				cmp -s "$file" "$to" || fail "$op after a kill at $n: the file is not as it should be"
				link_kept || fail "$op after a kill at $n: the link was replaced"
				[ -z "$(temporaries)" ] || fail "$op after a kill at $n: a temporary was left: $(temporaries)"
				n=$((n + 1))
				[ "$n" -lt 200 ] || fail "$op never completed"
			done
			cmp -s "$file" "$to" || fail "$op: an uninterrupted run did not finish the job"
			link_kept || fail "$op: the link was replaced"
			ok "$op killed before/after each of its $((n - 1)) external commands ($when): the file is always whole"
		done
	done
	[ "$kills" -ge 20 ] || fail "only $kills kill points: the wrappers did not see the script's steps"
	[ -z "$(temporaries)" ] || fail "a stale temporary file was left"
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
preload-link-is-kept)
	# Issue: where /etc/ld.so.preload is a link to a file another tool owns
	# (configuration management), install and uninstall replaced the link
	# with a plain file.  Now the file at the end of the link is edited in
	# its own directory and the link is kept: relative, absolute (read
	# inside --root), two links; the backup is a plain copy beside the link;
	# a file that listed only ours is left empty, not removed.
	root=$tmp/root
	mkdir -p "$root/etc/alternatives" "$root/usr/lib/pmuguard" "$root/srv/cm"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	entry=/usr/lib/pmuguard/libpmuguard.so
	cm=$root/srv/cm/ld.so.preload
	f() { PMUGUARD_SNAPSHOT=$M6I "$FLEET" "$@" --root "$root" --pmuguard "$PMUGUARD"; }
	# through LINK...: each LINK is "NAME TARGET", the first one etc/ld.so.preload.
	through() {
		rm -f "$root/etc/ld.so.preload" "$root/etc/alternatives/ld.so.preload" "$root/etc/ld.so.preload.pmuguard-bak"
		for l in "$@"; do ln -s "${l#* }" "$root/${l%% *}"; done
		for l in "$@"; do readlink "$root/${l%% *}"; done >"$tmp/links"
		printf '# managed by cm\n/usr/lib/libcm.so\n# no newline at the end' >"$cm"
		cp "$cm" "$tmp/orig"
		f install >"$tmp/out" 2>&1 || fail "$*: install failed"
		for l in "$@"; do readlink "$root/${l%% *}"; done | cmp -s - "$tmp/links" || fail "$*: a link was replaced"
		{ echo "$entry"; cat "$tmp/orig"; } | cmp -s - "$cm" || fail "$*: the linked file does not list ours first, the rest kept"
		[ "$(stat -c %a "$cm")" = 644 ] || fail "$*: the linked file is not 0644"
		grep -q "installed: .*ld.so.preload (a link to .*srv/cm/ld.so.preload) now lists" "$tmp/out" ||
			fail "$*: install does not say it followed the link"
		if [ -L "$root/etc/ld.so.preload.pmuguard-bak" ] || ! cmp -s "$root/etc/ld.so.preload.pmuguard-bak" "$tmp/orig"; then
			fail "$*: no plain, faithful backup beside the link"
		fi
		f install >"$tmp/out" 2>&1 || fail "$*: a second install failed"
		grep -q 'already installed' "$tmp/out" || fail "$*: a second install is not idempotent"
		f status --json >"$tmp/status.json" 2>&1 || fail "$*: status of a host guarded through a link is not 0"
		grep -q '"preload": {"installed": true' "$tmp/status.json" || fail "$*: status does not see the entry"
		f uninstall >"$tmp/out" 2>&1 || fail "$*: uninstall failed"
		cmp -s "$cm" "$tmp/orig" || fail "$*: uninstall did not restore the linked file byte for byte"
		for l in "$@"; do readlink "$root/${l%% *}"; done | cmp -s - "$tmp/links" || fail "$*: uninstall replaced a link"
		[ -z "$(find "$root/etc" "$root/srv/cm" -name '*pmuguard-new*' -o -name '*bak.new*')" ] || fail "$*: a temporary was left"
	}
	through 'etc/ld.so.preload ../srv/cm/ld.so.preload'
	through 'etc/ld.so.preload /srv/cm/ld.so.preload'
	through 'etc/ld.so.preload /etc/alternatives/ld.so.preload' 'etc/alternatives/ld.so.preload ../../srv/cm/ld.so.preload'
	# A linked file that listed nothing: after uninstall it is there, empty.
	: >"$cm"
	f install >"$tmp/out" 2>&1 || fail "install into an empty linked file failed"
	[ "$(cat "$cm")" = "$entry" ] || fail "the empty linked file does not list ours"
	f uninstall >"$tmp/out" 2>&1 || fail "uninstall from a linked file that lists only ours failed"
	if [ ! -L "$root/etc/ld.so.preload" ] || [ ! -f "$cm" ] || [ -s "$cm" ]; then
		fail "the link or its file is gone, or the file is not empty"
	fi
	grep -q 'is empty now' "$tmp/out" || fail "uninstall does not say the file is empty now"
	# The real loader reads the list through the link: processes are guarded.
	cat >"$tmp/script" <<SH
set -e
mkdir -p /etc/site
printf '# site\n' >/etc/site/ld.so.preload
ln -s site/ld.so.preload /etc/ld.so.preload
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD
unset LD_PRELOAD
PMUGUARD_SNAPSHOT=$M6I $PEO_DYN 4:0x400
[ -L /etc/ld.so.preload ] && [ "\$(readlink /etc/ld.so.preload)" = site/ld.so.preload ] && echo "link kept"
$FLEET uninstall --layer preload --lib $LIB --pmuguard $PMUGUARD
[ -L /etc/ld.so.preload ] && [ "\$(cat /etc/ld.so.preload)" = '# site' ] && echo "link kept, file restored"
SH
	m6i_host
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "install through the link in the sandbox: exit $rc"
	grep -q 'config=0x400 errno=ENOENT' "$tmp/out" || fail "a process was not guarded through the link"
	grep -qx 'link kept' "$tmp/out" || fail "install replaced the sandbox's link"
	grep -qx 'link kept, file restored' "$tmp/out" || fail "uninstall replaced the link or did not restore its file"
	ok "a linked ld.so.preload: the file it leads to is edited, every link kept, the backup beside the link; the loader follows it"
	;;
preload-link-refused-where-insane)
	# A link that leads nowhere sane is refused, with the reason, exit 1,
	# and every link and file as it was (nothing made at a dangling link's
	# end), by install and uninstall; status warns and counts it as not
	# installed.  Sane: at most 8 links, each in a directory only root can
	# write, ending at a regular file (not our backup) inside --root.
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard" "$root/srv/cm" "$tmp/outside"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	printf '/usr/lib/libcm.so\n' >"$root/srv/cm/ld.so.preload"
	printf '/usr/lib/libout.so\n' >"$tmp/outside/ld.so.preload"
	snap() { find "$root/etc" "$root/srv" "$tmp/outside" -printf '%p %y %m %u %l %s\n' | sort; }
	# refused REASON SETUP: after SETUP (run in $root/etc), install and
	# uninstall are refused and nothing changes.
	refused() {
		find "$root/etc" -mindepth 1 -delete
		(cd "$root/etc" && eval "$2")
		snap >"$tmp/before"
		for op in install uninstall; do
			set +e
			PMUGUARD_SNAPSHOT=$M6I timeout 20 "$FLEET" "$op" --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1
			r=$?
			set -e
			[ "$r" = 1 ] || fail "$2: $op exited $r, not 1"
			grep -q "ld.so.preload is a symbolic link to no sane place: $1; nothing changed" "$tmp/out" ||
				fail "$2: $op: the reason ($1) is not given"
			snap | cmp -s - "$tmp/before" || fail "$2: $op changed a file or a link: $(snap | diff "$tmp/before" - | tail -n 5)"
		done
		set +e
		PMUGUARD_SNAPSHOT=$M6I "$FLEET" status --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1
		r=$?
		set -e
		[ "$r" = 3 ] || fail "$2: status exited $r, not 3 (hazard, not guarded)"
		grep -q 'counted as not listing the library' "$tmp/out" || fail "$2: status does not warn"
	}
	chain() { # chain N: etc/ld.so.preload -> l1 -> ... -> l(N-1) -> the cm file: N links
		prev=ld.so.preload
		for k in $(seq $(($1 - 1))); do ln -s "l$k" "$prev"; prev=l$k; done
		ln -s ../srv/cm/ld.so.preload "$prev"
	}
	refused 'it is dangling: .*srv/cm/missing does not exist' 'ln -s ../srv/cm/missing ld.so.preload'
	refused 'it is dangling: the directory of .*/nowhere/ld.so.preload does not exist' 'ln -s /nowhere/ld.so.preload ld.so.preload'
	refused 'it is a loop, or a chain of more than 8 links' 'ln -s a ld.so.preload && ln -s ld.so.preload a'
	refused 'it is a loop, or a chain of more than 8 links' 'ln -s ld.so.preload ld.so.preload'
	refused 'it is a loop, or a chain of more than 8 links' 'chain 9'
	refused '.*srv/cm is not a regular file' 'ln -s ../srv/cm ld.so.preload'
	refused 'the link .*ld.so.preload names a directory (../srv/cm/), not a file' 'ln -s ../srv/cm/ ld.so.preload'
	refused '.*fifo is not a regular file' 'mkfifo fifo && ln -s fifo ld.so.preload'
	refused "it leads out of --root $root, to $tmp/outside" 'ln -s ../../outside/ld.so.preload ld.so.preload'
	refused "it leads out of --root $root, to $tmp/outside" "ln -s $tmp/outside ../srv/out && ln -s /srv/out/ld.so.preload ld.so.preload"
	refused 'it goes through .*/srv/open is writable by other users (mode 1777)' \
		'mkdir -p -m 1777 ../srv/open && printf "/usr/lib/libx.so\n" >../srv/open/x && chown 65534 ../srv/open/x && ln -s ../srv/open/x ld.so.preload'
	refused 'it goes through .*/srv/open2 belongs to uid 65534' \
		'mkdir -p ../srv/open2 && chown 65534 ../srv/open2 && ln -s ../srv/cm/ld.so.preload ../srv/open2/l && ln -s ../srv/open2/l ld.so.preload'
	refused 'it leads to our own backup .*ld.so.preload.pmuguard-bak' ': >ld.so.preload.pmuguard-bak && ln -s ld.so.preload.pmuguard-bak ld.so.preload'
	# 8 links is still sane.
	find "$root/etc" -mindepth 1 -delete
	(cd "$root/etc" && chain 8)
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" install --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1 || fail "a chain of 8 links was refused"
	head -n1 "$root/srv/cm/ld.so.preload" | grep -qxF /usr/lib/pmuguard/libpmuguard.so || fail "8 links: not installed"
	[ -L "$root/etc/ld.so.preload" ] || fail "8 links: the link was replaced"
	cmp -s "$tmp/outside/ld.so.preload" - <<<'/usr/lib/libout.so' || fail "the file outside the root changed"
	ok "dangling links, loops, more than 8 links, non-files, links out of --root or through open directories: refused, nothing changed"
	;;
root-dir-link-refused-where-it-leads-out)
	# Under --root every component of a path is resolved inside DIR: a
	# directory link that leads out of it (DIR/etc absolute to a directory
	# elsewhere, or DIR/etc -> ../outside, or a link further down) is
	# refused by install, uninstall and reprobe, exit 1, with the reason
	# and the link, and the file outside is left byte for byte.  (A check
	# of the last component, ld.so.preload itself, would miss every one.)
	root=$tmp/root
	mkdir -p "$root/usr/lib/pmuguard" "$root/srv" "$tmp/outside"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	printf '/usr/lib/libout.so\n# no newline' >"$tmp/outside/ld.so.preload"
	cp "$tmp/outside/ld.so.preload" "$tmp/orig"
	snap() { find "$root" "$tmp/outside" -printf '%p %y %m %u %l %s\n' | sort; }
	# refused LINK TARGET WHERE: with LINK (under $root) leading to TARGET,
	# each command is refused and nothing changes.
	refused() {
		rm -rf "${root:?}/etc" "$root/srv/etc"
		ln -s "$2" "$root/$1"
		[ "$1" = etc ] || ln -s srv/etc "$root/etc"
		snap >"$tmp/before"
		for op in install uninstall reprobe; do
			set +e
			PMUGUARD_SNAPSHOT=$M6I timeout 20 "$FLEET" "$op" --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1
			r=$?
			set -e
			[ "$r" = 1 ] || fail "$1 -> $2: $op exited $r, not 1"
			grep -qF "refusing $root/etc: it leads out of --root $root, to $3 (the link $root/$1 -> $2); every link on a path under --root must stay inside it; nothing changed" "$tmp/out" ||
				fail "$1 -> $2: $op: the reason is not given"
			snap | cmp -s - "$tmp/before" || fail "$1 -> $2: $op changed a file or a link: $(snap | diff "$tmp/before" - | tail -n 5)"
			cmp -s "$tmp/outside/ld.so.preload" "$tmp/orig" || fail "$1 -> $2: $op edited the file outside --root"
		done
	}
	refused etc "$tmp/outside" "$tmp/outside"
	refused etc ../outside "$tmp/outside"
	refused srv/etc ../../outside "$tmp/outside"
	# A link that stays inside DIR is followed: relative, or absolute to
	# DIR's own path as this host sees it.
	for t in etc.real "$root/etc.real"; do
		rm -rf "${root:?}/etc" "$root/etc.real"
		mkdir "$root/etc.real"
		ln -s "$t" "$root/etc"
		PMUGUARD_SNAPSHOT=$M6I "$FLEET" install --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1 ||
			fail "etc -> $t (inside --root): install refused"
		grep -qxF /usr/lib/pmuguard/libpmuguard.so "$root/etc.real/ld.so.preload" || fail "etc -> $t: not installed"
		"$FLEET" uninstall --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1 || fail "etc -> $t: uninstall failed"
		[ ! -e "$root/etc.real/ld.so.preload" ] || fail "etc -> $t: not uninstalled"
	done
	cmp -s "$tmp/outside/ld.so.preload" "$tmp/orig" || fail "the file outside the root changed"
	ok "a directory link under --root that leads out of it (absolute or ..) is refused, nothing changed; one inside it is followed"
	;;
concurrent-installs-never-lose-an-entry)
	# 40 trials of three concurrent install/uninstall runs on a file that
	# other products' entries share, while a reader watches the file: no
	# entry of theirs is ever missing, ours is never listed twice, and no
	# temporary is left.  (Without the lock, 9 of 40 such trials lost an
	# entry.)
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	entry=/usr/lib/pmuguard/libpmuguard.so
	printf '# other products\n/usr/lib/libother.so\n/opt/agent/libagent.so\n' >"$tmp/orig"
	export PMUGUARD_SNAPSHOT=$M6I
	ops=(install uninstall)
	for t in $(seq 40); do
		if [ $((t % 2)) = 0 ]; then cp "$tmp/orig" "$root/etc/ld.so.preload"; else
			{ echo "$entry"; cat "$tmp/orig"; } >"$root/etc/ld.so.preload"; fi
		: >"$tmp/seen"
		(while [ ! -e "$tmp/stop" ]; do
			if [ -e "$root/etc/ld.so.preload" ]; then
				grep -c -x -e /usr/lib/libother.so -e /opt/agent/libagent.so "$root/etc/ld.so.preload" >>"$tmp/seen" || echo 0 >>"$tmp/seen"
			else echo absent >>"$tmp/seen"; fi
		done) &
		reader=$!
		pids=()
		for k in 0 1 2; do
			"$FLEET" "${ops[$(((t + k * (t / 2)) % 2))]}" --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out.$k" 2>&1 &
			pids+=($!)
		done
		for k in 0 1 2; do wait "${pids[$k]}" || { cat "$tmp/out.$k" >"$tmp/out"; fail "trial $t: run $k failed"; }; done
		touch "$tmp/stop"
		wait "$reader"
		rm -f "$tmp/stop"
		n=$(grep -cxF "$entry" "$root/etc/ld.so.preload" || true)
		[ "$n" -le 1 ] || fail "trial $t: our entry is listed $n times"
		grep -vxF "$entry" "$root/etc/ld.so.preload" | cmp -s - "$tmp/orig" || fail "trial $t: another product's entry was lost or changed"
		! grep -vx 2 "$tmp/seen" | grep -q . || fail "trial $t: a reader saw the file without every other entry: $(sort -u "$tmp/seen" | tr '\n' ' ')"
		[ -z "$(find "$root/etc" -name '*pmuguard-new*')" ] || fail "trial $t: a temporary was left"
	done
	ok "40 trials of 3 concurrent installs/uninstalls: no entry lost or duplicated, every read whole"
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
layer-choice)
	# install --layer auto takes the kernel guard where it attaches, the
	# preload where the kernel refuses; --layer kernel fails (4) without
	# touching the file; status names the layer.  A stub stands in for
	# `pmuguard enforce` (the real one is refused on this build host, and
	# the vm suite shows the real attach); everything else is the real
	# pmuguard.
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	printf '/usr/lib/libkeep.so\n' >"$root/etc/ld.so.preload"
	cp "$root/etc/ld.so.preload" "$tmp/orig"
	# The stub answers as the real one does for scripts: --keys (KEY=VALUE
	# lines, schema 1) and the exit codes; the human words it would print
	# are not the script's to read, so the stub prints none.
	cat >"$tmp/pmuguard" <<SH
#!/bin/sh
echo "\$*" >>"$tmp/calls.log"
case "\$1 \${2:-} \${3:-}" in
"enforce start --keys")
	echo start >>"$tmp/enforce.log"
	echo schema=1
	if [ "\$STUB_KERNEL" != ok ]; then
		printf '%s\\n' outcome=refused exit=4 'error=the kernel refused to load the fmod_ret program: Operation not permitted' \
			attach= mode=auto enforce=true facts.state=hazard facts.source=live facts.snapshot= reason=hazard
		exit 4
	fi
	if [ -e "$tmp/attached" ]; then echo outcome=already; else echo outcome=attached; fi
	touch "$tmp/attached"
	printf '%s\\n' error= attach=lsm mode=auto enforce=true core_types.0=4 core_types.1=10 facts.state=hazard \
		facts.source=live facts.snapshot= 'reason=this guest advertises fixed counter 3' started=1764676800 \
		existing.known=true existing.files=2
	if [ "\${STUB_EXISTING:-0}" = 1 ]; then
		printf '%s\\n' exit=7 existing.hits=1 existing.unguarded=true existing.events.0.pid=321 \
			'existing.events.0.comm=perf\\x1b[0m' existing.events.0.fd=3 existing.events.0.type=4 \
			existing.events.0.config=0x400 'existing.events.0.name=TOPDOWN.SLOTS (fixed counter 3)'
		exit 7
	fi
	printf '%s\\n' exit=0 existing.hits=0 existing.unguarded=false
	exit 0 ;;
"enforce status --keys")
	echo schema=1
	if [ -e "$tmp/attached" ] && [ "\${STUB_UNVERIFIED:-0}" = 1 ]; then
		printf '%s\\n' exit=8 attached=true error= protects=false verified=false verification.ran=true \
			'verification.why=the self-test'"'"'s canary event was opened: the lsm program is attached but the kernel does not run it' \
			why= attach=lsm mode=auto enforce=true core_types.0=4 totals.denied=0 totals.audited=0
		exit 8
	fi
	if [ -e "$tmp/attached" ] && [ "\${STUB_AUDIT:-0}" = 1 ]; then
		printf '%s\\n' exit=9 attached=true error= protects=false verified=true verification.ran=true \
			verification.checked_at=1764676900 verification.checked_utc=2025-12-02T12:01:40Z \
			why= attach=lsm mode=audit enforce=false core_types.0=4 totals.denied=0 totals.audited=3 \
			existing.known=true existing.files=0 existing.hits=0 existing.unguarded=false
		exit 9
	fi
	if [ -e "$tmp/attached" ] && [ "\${STUB_EXISTING:-0}" = 1 ]; then
		printf '%s\\n' exit=7 attached=true error= protects=true verified=true verification.ran=true \
			verification.checked_at=1764676900 verification.checked_utc=2025-12-02T12:01:40Z \
			started=1764676800 started_utc=2025-12-02T12:00:00Z why= attach=lsm mode=auto enforce=true \
			core_types.0=4 totals.denied=0 totals.audited=0 existing.known=true existing.files=3 \
			existing.hits=2 existing.unguarded=true existing.events.0.pid=321 'existing.events.0.comm=perf\\x1b[0m' \
			existing.events.0.fd=3 existing.events.0.config=0x400 existing.events.1.pid=654 \
			existing.events.1.comm=toplev existing.events.1.fd=5 existing.events.1.config=0x8000
		exit 7
	fi
	if [ -e "$tmp/attached" ]; then
		printf '%s\\n' exit=0 attached=true error= protects=true verified=true verification.ran=true \
			verification.checked_at=1764676900 verification.checked_utc=2025-12-02T12:01:40Z \
			started=1764676800 started_utc=2025-12-02T12:00:00Z \
			why= attach=lsm mode=auto enforce=true core_types.0=4 \
			totals.denied=7 totals.audited=0 totals.reports_lost=0 totals.keys_not_counted=0 encodings=3 \
			by_encoding.0.decision=denied by_encoding.0.uid=0 by_encoding.0.pmu_type=4 by_encoding.0.config=0x400 by_encoding.0.calls=5 \
			'by_encoding.0.last_comm=perf\\x0a' 'by_encoding.0.name=TOPDOWN.SLOTS (fixed counter 3)' \
			by_encoding.1.decision=denied by_encoding.1.uid=1000 by_encoding.1.pmu_type=4 by_encoding.1.config=0x400 by_encoding.1.calls=1 \
			by_encoding.2.decision=denied by_encoding.2.uid=0 by_encoding.2.pmu_type=4 by_encoding.2.config=0x8000 by_encoding.2.calls=1 \
			existing.known=true existing.files=2 existing.hits=0 existing.unguarded=false
		exit 0
	fi
	printf '%s\\n' exit=6 attached=false error= 'why=nothing is pinned at /sys/fs/bpf/pmuguard/link'; exit 6 ;;
"enforce stop "*) rm -f "$tmp/attached"; echo "pmuguard: enforce: stopped"; exit 0 ;;
"enforce "*) echo "stub: unexpected \$*" >&2; exit 2 ;;
	esac
exec "$PMUGUARD" "\$@"
SH
	chmod 755 "$tmp/pmuguard"
	f() { PMUGUARD_SNAPSHOT=$M6I "$FLEET" "$@" --root "$root" --pmuguard "$tmp/pmuguard"; }
	# The kernel refuses: auto falls back to the preload and says why.
	STUB_KERNEL=eperm f install --layer auto >"$tmp/out" 2>&1 || fail "auto install with a refusing kernel failed"
	grep -q 'kernel: not available (could not attach the kernel guard: .*Operation not permitted.*): using the preload' "$tmp/out" ||
		fail "the fallback was not explained"
	grep -qxF /usr/lib/pmuguard/libpmuguard.so "$root/etc/ld.so.preload" || fail "the preload was not installed"
	STUB_KERNEL=eperm f status --layer auto >"$tmp/out" || fail "status of a guarded host is not 0"
	grep -q '^pmuguard-fleet: layer: preload$' "$tmp/out" || fail "status does not name the preload layer"
	f uninstall >"$tmp/out"
	cmp -s "$root/etc/ld.so.preload" "$tmp/orig" || fail "uninstall did not restore the file"
	# --layer kernel with a refusing kernel: exit 4, nothing changed.
	set +e
	STUB_KERNEL=eperm f install --layer kernel >"$tmp/out" 2>"$tmp/err"
	r=$?
	set -e
	[ "$r" = 4 ] || fail "--layer kernel on a refusing kernel exited $r, not 4"
	grep -q 'cannot attach the kernel guard' "$tmp/err" || fail "--layer kernel: no reason given"
	cmp -s "$root/etc/ld.so.preload" "$tmp/orig" || fail "--layer kernel changed the file"
	# Status exit 3: hazard, nothing guards.
	set +e
	STUB_KERNEL=eperm f status --layer auto >"$tmp/out"
	r=$?
	set -e
	[ "$r" = 3 ] || fail "status on an unguarded hazardous host exited $r, not 3"
	grep -q '^pmuguard-fleet: layer: none$' "$tmp/out" || fail "status does not say no layer guards the host"
	# The kernel takes it: auto attaches and leaves the file alone; again: quiet.
	STUB_KERNEL=ok f install --layer auto >"$tmp/out" 2>&1 || fail "auto install with a willing kernel failed"
	grep -q '^pmuguard-fleet: kernel: attached (lsm' "$tmp/out" || fail "the kernel layer was not reported"
	cmp -s "$root/etc/ld.so.preload" "$tmp/orig" || fail "the kernel layer also wrote the preload"
	STUB_KERNEL=ok f install --layer auto --quiet >"$tmp/out" 2>&1 || fail "second install failed"
	[ ! -s "$tmp/out" ] || fail "a second install is not quiet: $(cat "$tmp/out")"
	STUB_KERNEL=ok f status --layer auto >"$tmp/out" || fail "status with the kernel layer is not 0"
	grep -q '^pmuguard-fleet: layer: kernel$' "$tmp/out" || fail "status does not name the kernel layer"
	grep -q 'kernel: attached and verified .*; denied 7' "$tmp/out" || fail "status does not give the kernel's counts"
	# JSON and metrics from the counts' data: summed over uids, the
	# encoding as 0x%x (as the preload's), a comm's escape carried as text.
	STUB_KERNEL=ok f status --layer auto --json --textfile "$tmp/k.prom" >"$tmp/k.json" || fail "status --json with the kernel layer is not 0"
	python3 - "$tmp/k.json" <<'PY' || fail "kernel JSON is wrong: $(cat "$tmp/k.json")"
import json, sys
s = json.load(open(sys.argv[1]))
k = s["kernel"]
assert s["layer"] == "kernel" and k["state"] == "attached" and k["attach"] == "lsm" and k["mode"] == "auto", s
assert k["denied"] == 7 and k["audited"] == 0 and k["reports_lost"] == 0 and k["existing_events"] == 0, k
enc = {(e["decision"], e["pmu_type"], e["config"]): e["calls"] for e in k["by_encoding"]}
assert enc == {("denied", 4, "0x400"): 6, ("denied", 4, "0x8000"): 1}, enc
PY
	grep -qx 'pmuguard_kernel_calls_total{decision="denied",pmu_type="4",config="0x400"} 6' "$tmp/k.prom" ||
		fail "metrics: the kernel's counts by encoding: $(grep kernel_calls "$tmp/k.prom")"
	python3 "$here/alerts.py" "$here/../../scripts/prometheus/pmuguard.rules.yml" "$tmp/k.prom" pmuguard_kernel_calls_total \
		pmuguard_unguarded pmuguard_status_timestamp_seconds pmuguard_verdict >"$tmp/alerts.out" ||
		fail "a shipped alert (pmuguard.rules.yml) selects nothing in the kernel layer's metrics: $(cat "$tmp/alerts.out")"
	grep -qx 'pmuguard_layer_installed{layer="kernel"} 1' "$tmp/k.prom" || fail "metrics: no kernel layer"
	grep -qx 'pmuguard_kernel_verified_timestamp_seconds 1764676900' "$tmp/k.prom" || fail "metrics: no verification time"
	grep -q '^pmuguard-fleet: kernel: attached and verified at 2025-12-02T12:01:40Z (self-test), since 2025-12-02T12:00:00Z' "$tmp/out" ||
		fail "status text does not say verified when and since when: $(cat "$tmp/out")"
	# Attached, but its self-test fails (exit 8): no layer, unguarded (3).
	set +e
	STUB_KERNEL=ok STUB_UNVERIFIED=1 f status --layer auto --json >"$tmp/u.json"
	r=$?
	STUB_KERNEL=ok STUB_UNVERIFIED=1 f status --layer auto >"$tmp/u.txt"
	set -e
	[ "$r" = 3 ] || fail "status with an unverified kernel guard exited $r, not 3"
	python3 - "$tmp/u.json" <<'PY' || fail "unverified JSON is wrong: $(cat "$tmp/u.json")"
import json, sys
s = json.load(open(sys.argv[1]))
k = s["kernel"]
assert s["guarded"] is False and s["layer"] == "none", s
assert k["state"] == "unverified" and k["verified"] is False and "does not run" in k["not_verified_because"], k
PY
	grep -q '^pmuguard-fleet: kernel: ATTACHED BUT NOT VERIFIED: .*does not run it: it guards nothing' "$tmp/u.txt" ||
		fail "status text does not say the kernel guard is unverified: $(cat "$tmp/u.txt")"
	STUB_KERNEL=ok f uninstall --layer auto >"$tmp/out"
	[ ! -e "$tmp/attached" ] || fail "uninstall did not stop the kernel guard"
	# Attached, but an event of the class was opened before (exit 7): the
	# install succeeds and names it on stderr, its comm escaped.
	STUB_KERNEL=ok STUB_EXISTING=1 f install --layer kernel >"$tmp/out" 2>"$tmp/err" || fail "install with exit 7 of start failed"
	grep -q '^pmuguard-fleet: kernel: attached (lsm, denying with ENOENT, mode auto, core PMU types 4, 10, facts from this machine): this guest' "$tmp/out" ||
		fail "exit 7: the kernel layer was not reported: $(cat "$tmp/out")"
	grep -q 'kernel: warning: 1 perf event(s) of the counter-3 class were allocated before the guard' "$tmp/err" ||
		fail "exit 7: no warning: $(cat "$tmp/err")"
	grep -qF 'kernel:   pid 321 (perf\x1b[0m) fd 3: type 4 config 0x400: TOPDOWN.SLOTS (fixed counter 3)' "$tmp/err" ||
		fail "exit 7: the event is not named (escaped): $(cat "$tmp/err")"
	# Status, while those events exist (enforce status exits 7): enabled,
	# one still panics the host, so the kernel layer guards it only
	# PARTLY: exit 3, the processes named, the metrics say so.
	set +e
	STUB_KERNEL=ok STUB_EXISTING=1 f status --layer kernel --textfile "$tmp/e.prom" >"$tmp/e.txt"
	r=$?
	STUB_KERNEL=ok STUB_EXISTING=1 f status --layer kernel --json >"$tmp/e.json"
	set -e
	[ "$r" = 3 ] || fail "status with events opened before the kernel guard exited $r, not 3"
	grep -qxF 'pmuguard-fleet: protected: PARTLY, by kernel: 2 perf events of the hazardous class opened before the guard (pid 321 perf\x1b[0m, pid 654 toplev) are not guarded; restart those processes' "$tmp/e.txt" ||
		fail "status does not say PARTLY and name the processes: $(cat "$tmp/e.txt")"
	for m in 'pmuguard_protected 0' 'pmuguard_unguarded 1' 'pmuguard_kernel_existing_events 2' \
		'pmuguard_layer_installed{layer="kernel"} 1'; do
		grep -qxF "$m" "$tmp/e.prom" || fail "metrics: no '$m': $(grep -v '^#' "$tmp/e.prom")"
	done
	python3 - "$tmp/e.json" <<'PY' || fail "PARTLY JSON is wrong: $(cat "$tmp/e.json")"
import json, sys
s = json.load(open(sys.argv[1]))
k = s["kernel"]
assert s["exit"] == 3 and s["guarded"] is True and s["layer"] == "kernel", s
assert k["state"] == "attached" and k["existing_events"] == 2 and k["existing_unguarded"] == 2, k
PY
	STUB_KERNEL=ok f uninstall --layer kernel >"$tmp/out"
	# Attached in audit mode (enforce status exits 9): no layer (3); and
	# uninstall still stops it.
	STUB_KERNEL=ok f install --layer kernel >"$tmp/out" 2>&1 || fail "install before the audit case failed"
	set +e
	STUB_KERNEL=ok STUB_AUDIT=1 f status --layer kernel --textfile "$tmp/a.prom" >"$tmp/a.txt"
	r=$?
	set -e
	[ "$r" = 3 ] || fail "status with an audit kernel guard exited $r, not 3"
	grep -q '^pmuguard-fleet: protected: NO' "$tmp/a.txt" ||
		fail "status does not say NO under an audit guard: $(cat "$tmp/a.txt")"
	grep -q '^pmuguard-fleet: kernel: attached in audit mode' "$tmp/a.txt" ||
		fail "status does not say the kernel guard is in audit mode: $(cat "$tmp/a.txt")"
	grep -qx 'pmuguard_protected 0' "$tmp/a.prom" || fail "metrics: an audit guard counted as protection"
	rm -f "$tmp/calls.log"
	STUB_KERNEL=ok STUB_AUDIT=1 f uninstall --layer kernel >"$tmp/out"
	[ ! -e "$tmp/attached" ] || fail "uninstall did not stop the audit kernel guard: $(cat "$tmp/out")"
	# Uninstall asks the kernel layer alone: no whole status (its canary
	# and /proc scan), in the package's prerm too.
	! grep -q '^status' "$tmp/calls.log" || fail "uninstall ran a whole pmuguard status: $(cat "$tmp/calls.log")"
	grep -qx 'enforce status --keys' "$tmp/calls.log" || fail "uninstall did not ask the kernel layer: $(cat "$tmp/calls.log")"
	# Under --root without --layer, the running kernel is left alone.
	rm -f "$tmp/enforce.log"
	STUB_KERNEL=ok f install >"$tmp/out" 2>&1
	[ ! -e "$tmp/enforce.log" ] || fail "install --root without --layer touched the running kernel"
	f uninstall >"$tmp/out"
	ok "auto: kernel where it attaches, else the preload (said why); kernel only: 4, file unchanged; status names the layer; PARTLY (3) while events opened before the kernel guard exist; audit is no layer, and uninstall stops it"
	;;
layer-auto-falls-back-on-this-kernel)
	# The real `pmuguard enforce start`, in a private mount namespace with
	# a private bpffs: this build host's kernel refuses BPF LSM and fmod_ret
	# loads (EPERM), so auto must take the preload.  Where a kernel does
	# attach, the kernel layer is checked instead and stopped again.
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	cat >"$tmp/script" <<SH
set -e
mount --make-rprivate /
mount -t bpf bpf /sys/fs/bpf 2>/dev/null || mount -t tmpfs tmpfs /sys/fs/bpf
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer auto --root $root --pmuguard $PMUGUARD
set +e
PMUGUARD_SNAPSHOT=$M6I $FLEET status --layer auto --root $root --pmuguard $PMUGUARD
echo "status=\$?"
PMUGUARD_SNAPSHOT=$M6I $FLEET uninstall --layer auto --root $root --pmuguard $PMUGUARD
SH
	unshare -m bash "$tmp/script" >"$tmp/out" 2>&1 || fail "install in the namespace failed"
	grep -q 'status=0' "$tmp/out" || fail "status after install is not 0"
	if grep -q 'kernel: not available' "$tmp/out"; then
		grep -q 'layer: preload' "$tmp/out" || fail "the fallback did not install the preload"
		ok "this kernel refuses the guard: auto installed the preload"
	else
		grep -q 'layer: kernel' "$tmp/out" || fail "neither layer was installed"
		ok "this kernel took the guard: auto installed the kernel layer (and stopped it)"
	fi
	[ ! -e "$root/etc/ld.so.preload" ] || fail "uninstall left the file"
	;;
reprobe-follows-the-host)
	# A host that is stopped and started as another type: reprobe guards it
	# when it is an m6i, unguards it when it is an icx, and is quiet when
	# nothing changes; an unknown verdict changes nothing.
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	printf '/usr/lib/libkeep.so\n' >"$root/etc/ld.so.preload"
	cp "$root/etc/ld.so.preload" "$tmp/orig"
	rp() { PMUGUARD_SNAPSHOT=$1 "$FLEET" reprobe --quiet --root "$root" --pmuguard "$PMUGUARD" --textfile "$tmp/pmuguard.prom"; }
	rp "$M6I" >"$tmp/out" || fail "reprobe on an m6i failed"
	grep -q 'installed: .* now lists' "$tmp/out" || fail "reprobe did not say it installed"
	grep -q '^pmuguard_layer_installed{layer="preload"} 1$' "$tmp/pmuguard.prom" || fail "the metrics do not show the preload"
	rp "$M6I" >"$tmp/out" || fail "a second reprobe failed"
	[ ! -s "$tmp/out" ] || fail "reprobe with nothing to change is not quiet: $(cat "$tmp/out")"
	rp "$ICX" >"$tmp/out" || fail "reprobe on an icx failed"
	grep -q 'uninstalled' "$tmp/out" || fail "reprobe on a healthy host did not uninstall"
	cmp -s "$root/etc/ld.so.preload" "$tmp/orig" || fail "the healthy host's file is not as it was"
	grep -q '^pmuguard_hazard 0$' "$tmp/pmuguard.prom" || fail "the metrics still say hazard"
	rp "$ICX" >"$tmp/out" || fail "a second reprobe on icx failed"
	[ ! -s "$tmp/out" ] || fail "a second reprobe on icx is not quiet"
	set +e
	rp "$tmp/no-such-snapshot" >"$tmp/out" 2>&1
	r=$?
	set -e
	[ "$r" = 1 ] || fail "an unknown verdict exited $r, not 1"
	cmp -s "$root/etc/ld.so.preload" "$tmp/orig" || fail "an unknown verdict changed the file"
	# Facts that can be read but decide nothing (probe --check exits 0,
	# guard_state unknown) are no proof of health: a guarded host stays so.
	rp "$M6I" >"$tmp/out" || fail "reprobe on an m6i (again) failed"
	set +e
	rp "$FIXTURES/guest-no-leaf-a" >"$tmp/out" 2>&1
	r=$?
	set -e
	[ "$r" = 1 ] || fail "a guest without leaf 0xA exited $r, not 1 (unknown)"
	head -n1 "$root/etc/ld.so.preload" | grep -q libpmuguard || fail "an unknown verdict took the guard away"
	# The timer's status keeps the boot's reprobe lines in the one file:
	# each series once, the status's own timestamp.
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" status --quiet --root "$root" --pmuguard "$PMUGUARD" \
		--textfile "$tmp/pmuguard.prom" >/dev/null || :
	grep -qx 'pmuguard_reprobe_success 0' "$tmp/pmuguard.prom" ||
		fail "status dropped the last reprobe's pmuguard_reprobe_success: $(cat "$tmp/pmuguard.prom")"
	grep -q '^pmuguard_reprobe_error_info{exit="1",' "$tmp/pmuguard.prom" || fail "status dropped the reprobe's error"
	dups=$(grep -v '^#' "$tmp/pmuguard.prom" | sed 's/ [^ ]*$//' | sort | uniq -d)
	[ -z "$dups" ] || fail "series written twice: $dups"
	ok "reprobe: m6i guarded, icx unguarded, quiet when nothing changes, unknown (no snapshot, or facts that decide nothing) changes nothing; a later status keeps the reprobe's metrics, each series once"
	;;
status-counts-blocks)
	# The preload blocks in fleet mode; status counts the reports it finds
	# (here the sandbox's syslog file), by encoding, as text, JSON and
	# node_exporter metrics written atomically.
	cat >"$tmp/script" <<SH
# The host's policy names the world: the canary that status starts runs
# with an empty environment, as every protected process may.
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
set -e
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
unset LD_PRELOAD
PMUGUARD_SNAPSHOT=$M6I $PEO_DYN 4:0x400 4:0x8000 4:0x1a4 >/dev/null
PMUGUARD_SNAPSHOT=$M6I $PEO_DYN 4:0x400 >/dev/null
# The listener writes each datagram as it takes it: a last one sent after
# the reports, once written, says every report before it is in the file.
python3 -c 'import socket; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"sandbox: reports end", "/dev/log")'
for _ in \$(seq 600); do grep -q 'sandbox: reports end' $tmp/sb/syslog && break; sleep 0.05; done
PMUGUARD_SNAPSHOT=$M6I $FLEET status --layer preload --lib $LIB --pmuguard $PMUGUARD --syslog-file $tmp/sb/syslog \
	--textfile $tmp/metrics/pmuguard.prom
PMUGUARD_SNAPSHOT=$M6I $FLEET status --json --layer preload --lib $LIB --pmuguard $PMUGUARD --syslog-file $tmp/sb/syslog >$tmp/status.json
SH
	mkdir -p "$tmp/metrics"
	m6i_host
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc"
	grep -q 'preload blocks reported since boot: 3 ' "$tmp/out" || fail "status did not count 3 reports"
	grep -q 'preload reports go to: /dev/log' "$tmp/out" || fail "status does not say where reports go"
	python3 - "$tmp/status.json" <<'PY' || fail "the JSON is wrong: $(cat "$tmp/status.json")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["schema"] == 2 and s["version"] and s["generated_at"], s
assert s["hazard"] is True and s["verdict"] == "hazard" and s["guarded"] is True, s
assert s["layer"] == "preload" and s["preload"]["installed"] is True, s
assert s["reports"]["blocks_reported"] == 3, s
enc = {(e["pmu_type"], e["config"]): e["reports"] for e in s["reports"]["by_encoding"]}
assert enc == {(4, "0x400"): 2, (4, "0x8000"): 1}, enc
PY
	prom=$tmp/metrics/pmuguard.prom
	grep -qx 'pmuguard_hazard 1' "$prom" || fail "metrics: no hazard"
	grep -qx 'pmuguard_layer_installed{layer="preload"} 1' "$prom" || fail "metrics: no layer"
	grep -qx 'pmuguard_preload_reports{pmu_type="4",config="0x400"} 2' "$prom" || fail "metrics: no count by encoding"
	python3 "$here/alerts.py" "$here/../../scripts/prometheus/pmuguard.rules.yml" "$prom" pmuguard_preload_reports pmuguard_unguarded \
		pmuguard_status_timestamp_seconds pmuguard_verdict >"$tmp/alerts.out" ||
		fail "a shipped alert (pmuguard.rules.yml) selects nothing in the preload's metrics: $(cat "$tmp/alerts.out")"
	[ "$(find "$tmp/metrics" -type f | wc -l)" = 1 ] || fail "a temporary was left beside the metrics"
	# Every sample line is NAME{LABELS} VALUE: what the textfile collector parses.
	! grep -v '^#' "$prom" | grep -vqE '^[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? -?[0-9]+$' ||
		fail "metrics: a line the collector would reject"
	ok "status counts the reports by encoding: text, JSON (schema 1), metrics"
	;;
status-observes-the-preload)
	# The preload counts only as observed: a library the loader refuses
	# (every process prints "cannot be preloaded ... ignored") is no layer,
	# and a process started before the install, holding a perf event, is
	# named as at risk now.
	cat >"$tmp/script" <<SH
# The host's policy names the world: the canary that status starts runs
# with an empty environment, as every protected process may.
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
set -e
python3 -c '
import ctypes, struct, sys, time
libc = ctypes.CDLL(None, use_errno=True)
attr = ctypes.create_string_buffer(struct.pack("IIQ", 1, 128, 9) + bytes(128 - 16), 128)
fd = libc.syscall(298, attr, 0, -1, -1, 8)
print(fd, flush=True)
time.sleep(60)' >$tmp/holder.out &
holder=\$!
for _ in \$(seq 100); do [ -s $tmp/holder.out ] && break; sleep 0.05; done
echo \$holder >$tmp/holder.pid
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/install.out
PMUGUARD_SNAPSHOT=$M6I $FLEET status --json --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/ok.json
# The library made unloadable, as a broken upgrade leaves it.
mount --bind $tmp/short.so $LIB
set +e
PMUGUARD_SNAPSHOT=$M6I $FLEET status --json --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/broken.json 2>/dev/null
echo \$? >$tmp/broken.rc
PMUGUARD_SNAPSHOT=$M6I $FLEET status --layer preload --lib $LIB --pmuguard $PMUGUARD --textfile $tmp/m.prom >$tmp/broken.txt 2>/dev/null
umount $LIB
kill \$holder
SH
	head -c 100 "$LIB" >"$tmp/short.so"
	m6i_host
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc: $(cat "$tmp/err")"
	grep -q 'only processes started from now on load it; those already running stay unguarded until they restart' "$tmp/install.out" ||
		fail "install does not say that running processes stay unguarded: $(cat "$tmp/install.out")"
	python3 - "$tmp/ok.json" "$(cat "$tmp/holder.pid")" <<'PY' || fail "status JSON is wrong: $(cat "$tmp/ok.json")"
import json, sys
s = json.load(open(sys.argv[1]))
p = s["preload"]
assert s["guarded"] is True and p["installed"] and p["loads"] is True and p["guards"] is True, s
assert p["processes_not_mapping"] >= 1 and p["processes_mapping"] >= 1, p
risk = {r["pid"]: r for r in p["at_risk"]}
assert int(sys.argv[2]) in risk and risk[int(sys.argv[2])]["comm"] == "python3", p["at_risk"]
assert s["version"] and s["generated_at"], s
PY
	[ "$(cat "$tmp/broken.rc")" = 3 ] || fail "status with an unloadable library exited $(cat "$tmp/broken.rc"), not 3"
	python3 - "$tmp/broken.json" <<'PY' || fail "status JSON with a broken library is wrong: $(cat "$tmp/broken.json")"
import json, sys
s = json.load(open(sys.argv[1]))
p = s["preload"]
assert s["guarded"] is False and s["layer"] == "none" and p["installed"] is True and p["loads"] is False, s
assert "cannot be preloaded" in p["load_error"], p
PY
	grep -q '^pmuguard-fleet: preload: LISTED BUT NOT LOADED: .*cannot be preloaded' "$tmp/broken.txt" ||
		fail "status text does not say the library does not load: $(cat "$tmp/broken.txt")"
	grep -qx 'pmuguard_protected 0' "$tmp/m.prom" && grep -qx 'pmuguard_layer_installed{layer="preload"} 0' "$tmp/m.prom" ||
		fail "metrics claim the unloadable preload: $(cat "$tmp/m.prom")"
	ok "status counts the preload only where the loader takes it, and names a process started before the install holding a perf event"
	;;
status-canary-meets-the-policy)
	# The preload counts only where a canary, started now as nobody with an
	# empty environment through /etc/ld.so.preload, was refused: the policy's
	# mode off or audit, an unknown verdict, or a library only root can read
	# each leave it listed and loadable by root, and guarding nothing for
	# every other process.
	UNKNOWN=$FIXTURES/cap-aws-c5-9xlarge-pcm-2021
	mkdir -p "$tmp/lib"
	cp "$LIB" "$tmp/lib/libpmuguard.so"
	cat >"$tmp/script" <<SH
set -e
st() { PMUGUARD_SNAPSHOT=\$1 $FLEET status --json --layer preload --lib $tmp/lib/libpmuguard.so --pmuguard $PMUGUARD \
	--textfile $tmp/\$2.prom >$tmp/\$2.json 2>$tmp/\$2.err || echo \$? >$tmp/\$2.rc; }
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer preload --lib $tmp/lib/libpmuguard.so --pmuguard $PMUGUARD >$tmp/install.out
st $M6I guarded
printf 'snapshot = %s\nmode = off\n' $M6I >/etc/pmuguard.conf
st $M6I off
printf 'snapshot = %s\nmode = audit\n' $M6I >/etc/pmuguard.conf
st $M6I audit
printf 'snapshot = %s\n' $UNKNOWN >/etc/pmuguard.conf
st $UNKNOWN unknown
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
chmod 0600 $tmp/lib/libpmuguard.so
st $M6I rootonly
# As root, the loader still takes it: a process of root's is refused.
PMUGUARD_SNAPSHOT=$M6I $PEO_DYN 4:0x400 >$tmp/root-peo.out
SH
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc: $(cat "$tmp/err")"
	python3 - "$tmp" <<'PY' || fail "status counted a preload that guards nothing"
import json, os, sys
t = sys.argv[1]
def st(name):
    s = json.load(open(os.path.join(t, name + ".json")))
    rc = open(os.path.join(t, name + ".rc")).read().strip() if os.path.exists(os.path.join(t, name + ".rc")) else "0"
    prom = open(os.path.join(t, name + ".prom")).read().split("\n")
    return s, rc, prom
for name in ("off", "audit", "rootonly"):
    s, rc, prom = st(name)
    p = s["preload"]
    assert p["installed"] and p["loads"] and not p["guards"], (name, s)
    assert not s["guarded"] and rc == "3" and "pmuguard_protected 0" in prom, (name, s, rc)
    assert p["canary"] == "reached", (name, s)
s, rc, prom = st("rootonly")
assert "did not load the library" in s["preload"]["canary_why"], s
s, rc, prom = st("unknown")
assert s["verdict"] == "unknown" and not s["preload"]["guards"] and s["preload"]["canary"] == "reached", s
assert not s["guarded"] and rc == "4" and "pmuguard_protected 0" in prom, (s, rc)
s, rc, prom = st("guarded")
assert s["guarded"] and s["preload"]["guards"] and s["preload"]["canary"] == "refused", s
assert s["preload"]["canary_as"] == "uid 65534" and rc == "0" and "pmuguard_protected 1" in prom, (s, rc)
PY
	grep -q 'errno=ENOENT' "$tmp/root-peo.out" || fail "root's own process was not refused: $(cat "$tmp/root-peo.out")"
	# The canary is answered, never said: no block report names it.
	! grep -q 'blocked perf_event_open.* in pmuguard\[' "$tmp/sb/syslog" ||
		fail "the canary's calls were reported as blocks: $(grep 'in pmuguard\[' "$tmp/sb/syslog")"
	grep -q 'blocked perf_event_open.* in peo-dyn\[' "$tmp/sb/syslog" ||
		fail "root's process's block was not reported (the check above proves nothing): $(cat "$tmp/sb/syslog")"
	ok "mode off, mode audit, an unknown verdict and a library only root can read: the canary (uid 65534) was not refused, and status says NO"
	ok "with the policy as installed, the canary was refused and status says yes"
	;;
status-as-a-user-says-what-it-cannot-see)
	# Run by a user, status cannot read other users' processes: it says so
	# and gives no count, instead of counting that user's alone.
	cat >"$tmp/script" <<SH
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
set -e
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
sleep 30 &
holder=\$!
set +e
setpriv --reuid=65534 --regid=65534 --clear-groups env PMUGUARD_SNAPSHOT=$M6I \
	$FLEET status --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/user.txt 2>&1
setpriv --reuid=65534 --regid=65534 --clear-groups env PMUGUARD_SNAPSHOT=$M6I \
	$FLEET status --json --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/user.json 2>/dev/null
kill \$holder
SH
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc: $(cat "$tmp/err")"
	grep -q "preload: [1-9][0-9]* running processes could not be read as uid 65534" "$tmp/user.txt" ||
		fail "status as a user does not say what it cannot see: $(cat "$tmp/user.txt")"
	! grep -q 'running processes map it' "$tmp/user.txt" || fail "status as a user gave a count: $(cat "$tmp/user.txt")"
	python3 - "$tmp/user.json" <<'PY' || fail "status --json as a user: $(cat "$tmp/user.json")"
import json, sys
p = json.load(open(sys.argv[1]))["preload"]
assert p["processes_unreadable"] >= 1 and p["processes_mapping"] is None and p["processes_not_mapping"] is None, p
PY
	ok "status as a user says how many processes it could not read, and counts none"
	;;
status-names-container-runtimes)
	# A container runtime running here (a process named
	# containerd) is named, and on a hazardous host whose only layer is the
	# preload, status says its containers are not covered.
	mkdir -p "$tmp/bin"
	cp "$(command -v sleep)" "$tmp/bin/containerd"
	cat >"$tmp/script" <<SH
# The host's policy names the world: the canary that status starts runs
# with an empty environment, as every protected process may.
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
set -e
$tmp/bin/containerd 60 &
rt=\$!
for _ in \$(seq 100); do [ "\$(cat /proc/\$rt/comm 2>/dev/null)" = containerd ] && break; sleep 0.02; done
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/install.out
set +e
PMUGUARD_SNAPSHOT=$M6I $FLEET status --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/st.txt 2>&1
PMUGUARD_SNAPSHOT=$M6I $FLEET status --json --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/st.json 2>$tmp/st.err
kill \$rt
SH
	m6i_host
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc: $(cat "$tmp/err")"
	# (Other runtimes this machine runs meanwhile, such as another suite's
	# podman, are named too: only ours is required.)
	grep -q '^pmuguard-fleet: containers: .*containerd.* running (.*process containerd, pid [0-9]*.*): NOT covered: the preload does not reach into containers' "$tmp/st.txt" ||
		fail "status does not name the runtime: $(cat "$tmp/st.txt")"
	grep -q '^pmuguard-fleet: protected: PARTLY, by preload: the containers of .*containerd.* are not covered' "$tmp/st.txt" ||
		fail "status claims the containers are protected: $(cat "$tmp/st.txt")"
	python3 - "$tmp/st.json" <<'PY' || fail "status --json: $(cat "$tmp/st.json" "$tmp/st.err")"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["containers"]
assert "containerd" in c["runtimes"] and c["covered_by_kernel_layer"] is False, c
assert d["layer"] == "preload", d["layer"]
PY
	ok "status names the container runtime and says the preload does not cover its containers"
	;;
status-unknown-is-not-fine)
	# No verdict: status exits 4, the metrics say unknown in their own
	# series (no "unguarded 0", no "hazard -1"), and a failed reprobe
	# rewrites the textfile with the failure and its time.
	mkdir -p "$tmp/m"
	printf 'pmuguard_hazard 0\npmuguard_unguarded 0\npmuguard_status_timestamp_seconds 1\n' >"$tmp/m/p.prom"
	set +e
	PMUGUARD_SNAPSHOT=$tmp/nowhere "$FLEET" status --root "$tmp" --lib /x/pmuguard/libpmuguard.so --pmuguard "$PMUGUARD" --textfile "$tmp/m/s.prom" >"$tmp/out" 2>&1
	r=$?
	PMUGUARD_SNAPSHOT=$tmp/nowhere "$FLEET" reprobe --root "$tmp" --lib /x/pmuguard/libpmuguard.so --pmuguard "$PMUGUARD" --textfile "$tmp/m/p.prom" >"$tmp/rout" 2>&1
	rr=$?
	set -e
	[ "$r" = 4 ] || fail "status with no verdict exited $r, not 4: $(cat "$tmp/out")"
	grep -qx 'pmuguard_verdict{state="unknown"} 1' "$tmp/m/s.prom" || fail "metrics: no unknown verdict series: $(cat "$tmp/m/s.prom")"
	! grep -q '^pmuguard_unguarded \|^pmuguard_hazard ' "$tmp/m/s.prom" || fail "metrics: a 0/1 gauge read with nothing checked"
	grep -qx 'pmuguard_protected 0' "$tmp/m/s.prom" || fail "metrics: protected is not 0"
	grep -q '^pmuguard_build_info{version="[0-9.]*"} 1$' "$tmp/m/s.prom" || fail "metrics: no build_info"
	[ "$rr" = 1 ] || fail "reprobe with no verdict exited $rr, not 1"
	grep -qx 'pmuguard_reprobe_success 0' "$tmp/m/p.prom" || fail "a failed reprobe left the old textfile: $(cat "$tmp/m/p.prom")"
	grep -q '^pmuguard_reprobe_error_info{exit="1",error="the probe gave no verdict' "$tmp/m/p.prom" || fail "metrics: the failure is not said"
	t=$(sed -n 's/^pmuguard_reprobe_timestamp_seconds //p' "$tmp/m/p.prom")
	[ "${t:-0}" -gt $(($(date +%s) - 100)) ] || fail "metrics: the failure has no fresh time"
	ok "an unknown verdict exits 4 and has its own series; a failed reprobe rewrites the metrics with the failure and its time"
	;;
status-syslog-this-boot)
	# Issue 40 (5): "since boot" from a syslog file counted earlier boots'
	# lines.  An earlier boot's report (RFC 3339, 2001) is not counted,
	# this boot's is; one whose time cannot be read is counted and said.
	now=$(date -u +%Y-%m-%dT%H:%M:%S.000000+00:00)
	{
		echo "2001-01-01T00:00:00.000000+00:00 host pmuguard[1]: blocked [data: layer=preload decision=deny type=4 config=0x400]"
		echo "$now host pmuguard[2]: blocked [data: layer=preload decision=deny type=4 config=0x8000]"
	} >"$tmp/syslog.in"
	sandbox "$PMUGUARD" status --keys --syslog-file "$tmp/syslog.in"
	grep -qx 'reports.blocks_reported=1' "$tmp/out" || fail "not this boot's one report: $(grep '^reports\.' "$tmp/out")"
	grep -qx 'reports.of_unknown_boot=0' "$tmp/out" || fail "of_unknown_boot: $(grep '^reports\.' "$tmp/out")"
	echo "<12>pmuguard[3]: blocked [data: layer=preload decision=deny type=4 config=0x400]" >>"$tmp/syslog.in"
	sandbox "$PMUGUARD" status --syslog-file "$tmp/syslog.in"
	grep -q 'preload blocks reported since boot: 2 .*the count may span boots' "$tmp/out" ||
		fail "a report of no readable time was not said: $(grep 'since boot' "$tmp/out")"
	ok "a syslog file's earlier boots are not counted; a line of no readable time is counted and said"
	;;
status-keys-and-quiet)
	# Issue 40 (11): status --keys, which the README gives, was refused;
	# -q was missing from status --help.
	mkdir -p "$tmp/r/etc"
	set +e
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" status --keys --root "$tmp/r" --pmuguard "$PMUGUARD" >"$tmp/out" 2>"$tmp/err"
	r=$?
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" status -q --root "$tmp/r" --pmuguard "$PMUGUARD" >"$tmp/q" 2>&1
	set -e
	[ "$r" = 3 ] || fail "status --keys exited $r: $(cat "$tmp/err")"
	[ "$(head -n 1 "$tmp/out")" = schema=2 ] || fail "status --keys did not print the keys: $(head -n 3 "$tmp/out")"
	[ ! -s "$tmp/q" ] || fail "status -q printed: $(cat "$tmp/q")"
	"$FLEET" status --help | grep -q -- '-q|--quiet' || fail "status --help omits -q"
	ok "pmuguard-fleet status --keys prints the keys, -q nothing, --help names both"
	;;
reprobe-failed-command-says-so)
	# Issue 40 (4): a reprobe whose command is missing (or whose status
	# cannot write) left pmuguard_reprobe_success 1 and the old time.
	mkdir -p "$tmp/m" "$tmp/r/etc"
	printf 'pmuguard_reprobe_success 1\npmuguard_reprobe_timestamp_seconds 1\n' >"$tmp/m/p.prom"
	set +e
	"$FLEET" reprobe --root "$tmp/r" --lib /x/pmuguard/libpmuguard.so --pmuguard "$tmp/no-such-pmuguard" \
		--textfile "$tmp/m/p.prom" >"$tmp/out" 2>&1
	rr=$?
	set -e
	[ "$rr" != 0 ] || fail "a reprobe without its command exited 0"
	grep -qx 'pmuguard_reprobe_success 0' "$tmp/m/p.prom" || fail "the old success was left: $(cat "$tmp/m/p.prom")"
	grep -q '^pmuguard_reprobe_error_info{exit="[0-9]*",error=".*pmuguard status could not write the metrics' "$tmp/m/p.prom" ||
		fail "the failure is not said: $(cat "$tmp/m/p.prom")"
	t=$(sed -n 's/^pmuguard_reprobe_timestamp_seconds //p' "$tmp/m/p.prom")
	[ "${t:-0}" -gt $(($(date +%s) - 100)) ] || fail "the failure has no fresh time"
	[ "$(stat -c %a "$tmp/m/p.prom")" = 644 ] || fail "the file is mode $(stat -c %a "$tmp/m/p.prom")"
	ok "a reprobe without its command: success 0, its time and why"
	;;
journal-entries-counted-by-message-id)
	# Under journald the preload and the supervisor send native entries
	# (MESSAGE_ID, PMUGUARD_* fields), nothing to /dev/log.  status counts
	# the preload's entries only: the kernel guard's (enforce follow under
	# systemd sends its own MESSAGE_ID) and a plain "pmuguard" stdout line of
	# the enforce service are not preload blocks (they were counted as such
	# by "journalctl -t pmuguard").
	cat >"$tmp/script" <<SH
# The host's policy names the world: the canary that status starts runs
# with an empty environment, as every protected process may.
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
set -e
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
unset LD_PRELOAD
PMUGUARD_SNAPSHOT=$M6I $PEO_DYN 4:0x400 4:0x8000 >/dev/null
printf 'snapshot = %s\nlog = syslog\n' $M6I >/etc/pmuguard.conf
$PMUGUARD run --mode seccomp --snapshot $M6I -- $PEO 4:0x8100 >/dev/null
python3 - <<'PY'
import socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
for d in (b"MESSAGE=blocked perf_event_open(type=4, config=0x400) in perf[7]: TOPDOWN.SLOTS\n"
          b"MESSAGE_ID=d93446f22afd479cb455b565ea7ca8ed\nSYSLOG_IDENTIFIER=pmuguard\nPMUGUARD_LAYER=kernel\n",
          b"MESSAGE=pmuguard: blocked perf_event_open(type=4, config=0x400) in perf[8]: TOPDOWN.SLOTS\n"
          b"SYSLOG_IDENTIFIER=pmuguard\n",
          # Counted by their fields, whatever their words: a denial (with
          # two reports its process could not deliver) and an audit.
          b"MESSAGE=reworded, in other words entirely\nMESSAGE_ID=7cd40d08058b4d219f41289bb6a12067\n"
          b"SYSLOG_IDENTIFIER=fake\nPMUGUARD_LAYER=preload\nPMUGUARD_DECISION=deny\n"
          b"PMUGUARD_TYPE=4\nPMUGUARD_CONFIG=0x8300\nPMUGUARD_UNDELIVERED=2\n",
          b"MESSAGE=blocked perf_event_open(type=4, config=0x400) in words only\n"
          b"MESSAGE_ID=7cd40d08058b4d219f41289bb6a12067\nSYSLOG_IDENTIFIER=fake\nPMUGUARD_LAYER=preload\n"
          b"PMUGUARD_DECISION=audit\nPMUGUARD_TYPE=4\nPMUGUARD_CONFIG=0x8400\n"):
    s.sendto(d, "/run/systemd/journal/socket")
# Sent last, once in the file it says every entry before it is there.
s.sendto(b"MESSAGE=entries end\nSYSLOG_IDENTIFIER=sync\n", "/run/systemd/journal/socket")
PY
for _ in \$(seq 600); do grep -q 'entries end' $tmp/sb/journal && break; sleep 0.05; done
PATH=$here:\$PATH SANDBOX_JOURNAL_FILE=$tmp/sb/journal PMUGUARD_SNAPSHOT=$M6I \
	$FLEET status --json --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/status.json
SH
	m6i_host
	SANDBOX_JOURNAL=1 sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc: $(cat "$tmp/err")"
	! grep -q 'blocked' "$tmp/syslog" || fail "a report went to /dev/log although journald listens"
	python3 - "$tmp/sb/journal" "$tmp/status.json" <<'PY' || fail "journal or status wrong: $(cat "$tmp/sb/journal" "$tmp/status.json")"
import json, sys
entries = [json.loads(l) for l in open(sys.argv[1])]
mine = [e for e in entries if e.get("MESSAGE_ID") == "7cd40d08058b4d219f41289bb6a12067" and e.get("SYSLOG_IDENTIFIER") != "fake"]
layers = sorted((e["PMUGUARD_LAYER"], e["PMUGUARD_CONFIG"]) for e in mine)
assert layers == [("preload", "0x400"), ("preload", "0x8000"), ("seccomp", "0x8100")], layers
for e in mine:
    assert e["PRIORITY"] == "4" and e["SYSLOG_IDENTIFIER"] == "pmuguard", e
    assert e["PMUGUARD_DECISION"] == "deny" and e["PMUGUARD_TYPE"] == "4" and e["PMUGUARD_UID"] == "0", e
    assert e["PMUGUARD_PROGRAM"].startswith("peo") and int(e["PMUGUARD_PID"]) > 0, e
    assert e["MESSAGE"].startswith("blocked perf_event_open(type=4, config=" + e["PMUGUARD_CONFIG"] + ")"), e
    assert "_BAD" not in e, e
s = json.load(open(sys.argv[2]))
assert s["reports"]["counted_from"] == "journal", s
assert s["reports"]["blocks_reported"] == 3 and s["reports"]["undelivered"] == 2, s
enc = {(e["pmu_type"], e["config"]): e["reports"] for e in s["reports"]["by_encoding"]}
assert enc == {(4, "0x400"): 1, (4, "0x8000"): 1, (4, "0x8300"): 1}, enc
assert s["reports"]["destination"].startswith("journald"), s
PY
	ok "journald entries carry MESSAGE_ID and the fields; status counts the preload's denials only, by their fields"
	;;
journal-forged-entries-are-not-evidence)
	# Any user can write a journal entry with any field but the trusted
	# ones journald sets (_UID, _PID).  A kernel-layer entry counts only
	# from root; the preload's are the processes' own reports, bounded.
	[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3 for a user to run (python3 on PATH may be root's own)"
	cat >"$tmp/forge.py" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
def send(**f):
    s.sendto("".join("%s=%s\n" % kv for kv in f.items()).encode(), "/run/systemd/journal/socket")
K, B = "d93446f22afd479cb455b565ea7ca8ed", "7cd40d08058b4d219f41289bb6a12067"
if sys.argv[1] == "user":
    send(MESSAGE="blocked", MESSAGE_ID=K, PMUGUARD_LAYER="kernel", PMUGUARD_PROGRAM="sshd", _UID="0")
    send(MESSAGE="blocked", MESSAGE_ID=B, PMUGUARD_LAYER="kernel", PMUGUARD_PROGRAM="sshd")
    for i in range(200):
        send(MESSAGE="blocked", MESSAGE_ID=B, PMUGUARD_LAYER="preload", PMUGUARD_DECISION="deny",
             PMUGUARD_TYPE="4", PMUGUARD_CONFIG="0x%x" % (0x10000 + i), PMUGUARD_PROGRAM="p%d" % i)
    send(MESSAGE="blocked", MESSAGE_ID=B, PMUGUARD_LAYER="preload", PMUGUARD_DECISION="deny",
         PMUGUARD_TYPE="4", PMUGUARD_CONFIG="0x400", PMUGUARD_UNDELIVERED="1000000", PMUGUARD_PROGRAM="perf")
else:
    send(MESSAGE="blocked", MESSAGE_ID=K, PMUGUARD_LAYER="kernel", PMUGUARD_PROGRAM="toplev")
send(MESSAGE="forged: end", SYSLOG_IDENTIFIER="forge")
PY
	cat >"$tmp/script" <<SH
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
set -e
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 $tmp/forge.py user
python3 $tmp/forge.py root
for _ in \$(seq 200); do [ "\$(grep -c 'forged: end' $tmp/sb/journal)" = 2 ] && break; sleep 0.05; done
PATH=$here:\$PATH SANDBOX_JOURNAL_FILE=$tmp/sb/journal PMUGUARD_SNAPSHOT=$M6I \
	$FLEET status --layer preload --lib $LIB --pmuguard $PMUGUARD --textfile $tmp/m.prom >$tmp/st.txt 2>&1
PATH=$here:\$PATH SANDBOX_JOURNAL_FILE=$tmp/sb/journal PMUGUARD_SNAPSHOT=$M6I \
	$FLEET status --json --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/st.json
SH
	SANDBOX_JOURNAL=1 sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc: $(cat "$tmp/err") $(cat "$tmp/st.txt" 2>/dev/null)"
	! grep -q 'sshd.*kernel' "$tmp/st.txt" || fail "a user's entry named a program blocked by the kernel: $(grep sshd "$tmp/st.txt")"
	grep -q 'blocked this boot: toplev, 1 time(s) (kernel layer' "$tmp/st.txt" ||
		fail "root's kernel entry was not counted: $(cat "$tmp/st.txt")"
	python3 - "$tmp/st.json" "$tmp/m.prom" <<'PY' || fail "forged entries were taken as evidence"
import json, sys
s = json.load(open(sys.argv[1]))
progs = s["blocked_by_program"]
kernel = [p["program"] for p in progs if p["layer"] == "kernel"]
assert kernel == ["toplev"], progs
assert len(progs) <= 22, len(progs)
assert s["reports"]["undelivered"] <= 1000, s["reports"]
series = [l for l in open(sys.argv[2]) if l.startswith("pmuguard_preload_reports{")]
assert len(series) <= 21, len(series)
assert any('config="other"' in l for l in series), series
PY
	ok "a user's journal entries never name a kernel block, and 200 forged encodings and programs are folded"
	;;
journal-binary-field-hides-no-report)
	# journalctl writes a value with a control byte in export's binary form
	# (the stand-in does as it does).  Any user can send one: a forged
	# denial whose config and program hold \x01 (and a NUL), sent before
	# the real reports, is one "other" block and hides none after it.
	cat >"$tmp/forge.py" <<'PY'
import socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.sendto(b"MESSAGE=blocked\nMESSAGE_ID=7cd40d08058b4d219f41289bb6a12067\nPMUGUARD_LAYER=preload\n"
         b"PMUGUARD_DECISION=deny\nPMUGUARD_TYPE=4\nPMUGUARD_CONFIG=0x400\x01\n"
         b"PMUGUARD_PROGRAM=ev\x01l\x00x\n", "/run/systemd/journal/socket")
PY
	cat >"$tmp/script" <<SH
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
set -e
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
python3 $tmp/forge.py
for _ in \$(seq 200); do grep -q 'PMUGUARD_CONFIG' $tmp/sb/journal && break; sleep 0.05; done
unset LD_PRELOAD
PMUGUARD_SNAPSHOT=$M6I $PEO_DYN 4:0x400 4:0x8000 >/dev/null
python3 -c 'import socket; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"MESSAGE=entries end\n", "/run/systemd/journal/socket")'
for _ in \$(seq 600); do grep -q 'entries end' $tmp/sb/journal && break; sleep 0.05; done
PATH=$here:\$PATH SANDBOX_JOURNAL_FILE=$tmp/sb/journal PMUGUARD_SNAPSHOT=$M6I \
	$FLEET status --json --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/st.json
PATH=$here:\$PATH SANDBOX_JOURNAL_FILE=$tmp/sb/journal journalctl -b -q -o export PMUGUARD_LAYER=preload >$tmp/export
SH
	m6i_host
	SANDBOX_JOURNAL=1 sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc: $(cat "$tmp/err")"
	grep -qa '^PMUGUARD_CONFIG$' "$tmp/export" || fail "the stand-in wrote no binary field: $(cat -v "$tmp/export")"
	python3 - "$tmp/st.json" <<'PY' || fail "a binary field hid the reports after it: $(cat "$tmp/st.json")"
import json, sys
s = json.load(open(sys.argv[1]))
r = s["reports"]
assert r["counted_from"] == "journal", r
enc = {(e["pmu_type"], e["config"]): e["reports"] for e in r["by_encoding"]}
assert enc == {(4, "0x400"): 1, (4, "0x8000"): 1, (None, "other"): 1}, enc
assert r["blocks_reported"] == 3, r
progs = {(p["layer"], p["program"]): p["reports"] for p in s["blocked_by_program"]}
assert progs.get(("preload", "ev?l?x")) == 1, progs
assert sum(n for (l, p), n in progs.items() if p.startswith("peo")) == 2, progs
PY
	ok "a forged binary field is one other block; the real reports after it are counted"
	;;
journal-unread-is-unknown)
	# A journalctl that fails, and a user who sees only its own entries
	# (journalctl -q hides "insufficient permissions"), count nothing:
	# the preload's blocks are unknown, with the reason, never 0.
	mkdir -p "$tmp/failjc"
	printf '#!/bin/sh\necho "Failed to open the journal" >&2\nexit 1\n' >"$tmp/failjc/journalctl"
	chmod 755 "$tmp/failjc/journalctl"
	cat >"$tmp/script" <<SH
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
set -e
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
PATH=$tmp/failjc:\$PATH PMUGUARD_SNAPSHOT=$M6I \
	$FLEET status --json --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/failed.json
PATH=$here:\$PATH SANDBOX_JOURNAL_FILE=$tmp/sb/journal PMUGUARD_SNAPSHOT=$M6I \
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	$PMUGUARD status --json --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/nobody.json
SH
	SANDBOX_JOURNAL=1 sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc: $(cat "$tmp/err")"
	python3 - "$tmp/failed.json" "$tmp/nobody.json" <<'PY' || fail "an unread journal was counted: $(cat "$tmp/failed.json" "$tmp/nobody.json")"
import json, sys
f, n = (json.load(open(p))["reports"] for p in sys.argv[1:])
assert f["blocks_reported"] is None and "journalctl exited 1" in f["not_counted_because"], f
assert n["blocks_reported"] is None and "its own journal entries" in n["not_counted_because"], n
PY
	ok "a failed journalctl and a user's own entries are unknown, never 0 blocks"
	;;
status-says-reports-are-dropped)
	# No /dev/log: the preload cannot report, so status must not say 0.
	cat >"$tmp/script" <<SH
# The host's policy names the world: the canary that status starts runs
# with an empty environment, as every protected process may.
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
set -e
rm -f /dev/log
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
PMUGUARD_SNAPSHOT=$M6I $FLEET status --layer preload --lib $LIB --pmuguard $PMUGUARD
PMUGUARD_SNAPSHOT=$M6I $FLEET status --json --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/status.json
SH
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc"
	grep -q 'preload reports go to: nowhere: /dev/log is absent' "$tmp/out" || fail "status does not say the reports are dropped"
	grep -q 'blocks reported since boot: unknown' "$tmp/out" || fail "status counts what it cannot see"
	! grep -q 'since boot: 0' "$tmp/out" || fail "status says 0"
	python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["reports"]["blocks_reported"] is None and s["reports"]["not_counted_because"], s' \
		"$tmp/status.json" || fail "JSON: blocks should be null with a reason"
	ok "without /dev/log status says where reports go (nowhere) and gives unknown, not 0"
	;;
help-and-usage)
	for c in "" install uninstall reprobe status; do
		"$FLEET" $c --help >"$tmp/out" 2>"$tmp/err" || fail "pmuguard-fleet $c --help exited $?"
		[ ! -s "$tmp/err" ] || fail "pmuguard-fleet $c --help wrote to stderr"
		grep -q "^Usage: pmuguard-fleet ${c:-COMMAND}" "$tmp/out" || fail "pmuguard-fleet $c --help: no usage"
		grep -q '^Exit' "$tmp/out" || fail "pmuguard-fleet $c --help: no exit codes"
	done
	for args in "" "bogus" "install --bogus" "status --layer sideways" "install --json" "install --root"; do
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
	# Without --pmuguard, as while the package is removed: remove needs no probe.
	env PATH=/usr/bin:/bin "$FLEET" remove --root "$root" >"$tmp/out" 2>&1 || fail "remove: exit $?"
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
install-locks-the-policy)
	# A fleet install locks the policy: on the hazardous host, a user's
	# PMUGUARD_MODE=off or PMUGUARD_SNAPSHOT=<a healthy machine> must not
	# switch the guard off for their processes (uid 65534), one of which
	# reaching the counter takes the host down for everyone.  The admin's
	# lines are kept byte for byte.
	mkdir -p "$(etc)" "$tmp/nb"
	chmod 777 "$tmp/nb"
	printf '# site policy\nmode = auto\nsnapshot = %s\n\nlog = syslog  # the journal\n# no newline at the end' \
		"$M6I" >"$(etc)/pmuguard.conf"
	cp "$(etc)/pmuguard.conf" "$tmp/conf.orig"
	cat >"$tmp/script" <<SH
set -e
$FLEET install --layer preload --force --lib $LIB --pmuguard $PMUGUARD
unset LD_PRELOAD
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "\$@"; }
set +e
as_nobody env PMUGUARD_MODE=off $FAULTSIM --log $tmp/nb/mode-off.log -- $PEO_DYN 4:0x400 >$tmp/nb/mode-off.out 2>&1
echo "mode-off rc=\$?"
as_nobody env PMUGUARD_SNAPSHOT=$ICX $FAULTSIM --log $tmp/nb/snapshot.log -- $PEO_DYN 4:0x400 >$tmp/nb/snapshot.out 2>&1
echo "snapshot rc=\$?"
SH
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "install or the runs as nobody failed (exit $rc)"
	for v in mode-off snapshot; do
		! grep -q FAULT "$tmp/nb/$v.log" ||
			fail "$v: a user's environment switched the guard off: the simulated fault was reached ($(sed -n "s/^$v //p" "$tmp/out"))"
		grep -qx "$v rc=0" "$tmp/out" || fail "$v: the process as nobody exited $(sed -n "s/^$v rc=//p" "$tmp/out"): $(cat "$tmp/nb/$v.out")"
		grep -q 'config=0x400 errno=ENOENT' "$tmp/nb/$v.out" || fail "$v: 4:0x400 was not refused: $(cat "$tmp/nb/$v.out")"
	done
	grep -qxF 'pmuguard-fleet: policy locked: /etc/pmuguard.conf lock = yes; users cannot switch the guard off' "$tmp/out" ||
		fail "install does not say it locked the policy"
	{ cat "$tmp/conf.orig"; printf '\nlock = yes\n'; } | cmp -s - "$(etc)/pmuguard.conf" ||
		fail "the policy is not the admin's, byte for byte, and lock = yes: $(od -c "$(etc)/pmuguard.conf" | tail -n 4)"
	[ "$(stat -c '%a %u' "$(etc)/pmuguard.conf")" = '644 0' ] || fail "the policy is not 0644 root's"
	ok "after install, PMUGUARD_MODE=off and PMUGUARD_SNAPSHOT=<healthy> of uid 65534 are refused; the admin's lines kept byte for byte"
	;;
install-lock-keeps-the-policy-file)
	# What install and uninstall do to the policy file, under --root: create
	# it (0644) where there is none and remove it while unchanged; set an
	# existing file's lock lines keeping every other byte, its owner and
	# mode, and leave it at uninstall; --no-lock leaves it as it is.
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	conf=$root/etc/pmuguard.conf
	f() { PMUGUARD_SNAPSHOT=$M6I "$FLEET" "$@" --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1 ||
		fail "$*: exit $?: $(cat "$tmp/out")"; }
	# None: created, root's, 0644; idempotent; removed by uninstall.
	f install
	[ "$(stat -c '%a %u' "$conf")" = '644 0' ] || fail "the created policy is not 0644 root's"
	[ "$(grep -v '^#' "$conf")" = 'lock = yes' ] || fail "the created policy is not lock = yes: $(cat "$conf")"
	grep -q "policy locked: $conf lock = yes; users cannot switch the guard off" "$tmp/out" || fail "install does not say it"
	f install
	grep -q "policy: already locked" "$tmp/out" || fail "a second install is not idempotent: $(cat "$tmp/out")"
	f uninstall
	[ ! -e "$conf" ] || fail "uninstall left the policy file install created"
	# Created, then edited: the admin's now; uninstall leaves it.
	f install
	printf 'log = syslog\n' >>"$conf"
	cp "$conf" "$tmp/edited"
	f uninstall
	cmp -s "$conf" "$tmp/edited" || fail "uninstall changed or removed a policy the admin edited"
	rm "$conf"
	# The admin's, with lock = no: the lock lines set, every other byte,
	# the owner and the mode kept; uninstall leaves the lock.
	printf '# site\nmode = auto\n  lock = no  # users may\nslots = substitute\nlock=maybe\n# no newline at the end' >"$conf"
	chmod 640 "$conf"
	chown 65534 "$conf"
	cp "$conf" "$tmp/orig"
	f install
	sed 's/^  lock = no  # users may$/lock = yes/; s/^lock=maybe$/lock = yes/' "$tmp/orig" | cmp -s - "$conf" ||
		fail "the lock lines were not set with every other byte kept: $(od -c "$conf" | tail -n 5)"
	[ "$(stat -c '%a %u' "$conf")" = '640 65534' ] || fail "the owner or mode changed: $(stat -c '%a %u' "$conf")"
	cp "$conf" "$tmp/locked"
	f uninstall
	cmp -s "$conf" "$tmp/locked" || fail "uninstall changed the admin's policy"
	# --no-lock: the file as it was, or none.
	cp "$tmp/orig" "$conf"
	f uninstall
	f install --no-lock
	cmp -s "$conf" "$tmp/orig" || fail "--no-lock changed the policy"
	grep -q "policy: left as it is (--no-lock): $conf has lock = no" "$tmp/out" || fail "--no-lock does not say what it left: $(cat "$tmp/out")"
	f uninstall
	rm "$conf"
	f install --no-lock
	[ ! -e "$conf" ] || fail "--no-lock created a policy"
	set +e
	"$FLEET" uninstall --no-lock --root "$root" >"$tmp/out" 2>&1
	r=$?
	set -e
	[ "$r" = 2 ] || fail "uninstall --no-lock exited $r, not 2 (usage)"
	[ -z "$(find "$root/etc" -name '*pmuguard-new*')" ] || fail "a temporary was left"
	ok "the policy: created 0644 and removed while unchanged; the admin's lock lines set, every other byte, owner and mode kept; --no-lock leaves it"
	;;
lock-defeats-mode-off)
	# The admin pins the facts and locks the policy; a user's environment
	# asking for mode off and a healthy snapshot must change nothing.
	cat >"$tmp/script" <<SH
set -e
printf 'mode = auto\nlock = yes\nsnapshot = $M6I\nlog = stderr\n' >/etc/pmuguard.conf
LD_PRELOAD=$LIB PMUGUARD_MODE=off PMUGUARD_SNAPSHOT=$ICX $PEO_DYN 4:0x400 4:0x1a4
echo ---
printf 'mode = auto\nsnapshot = $M6I\nlog = stderr\n' >/etc/pmuguard.conf
LD_PRELOAD=$LIB PMUGUARD_MODE=off $PEO_DYN 4:0x400
SH
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc"
	sed -n 1p "$tmp/out" | grep -q 'config=0x400 errno=ENOENT' || fail "lock = yes: PMUGUARD_MODE=off weakened the policy"
	sed -n 2p "$tmp/out" | grep -q 'config=0x1a4 errno=EINVAL' || fail "the harmless call did not reach the kernel"
	grep -q 'ignoring PMUGUARD_MODE=off: /etc/pmuguard.conf has lock = yes' "$tmp/err" ||
		fail "the ignored variable was not reported"
	sed -n 4p "$tmp/out" | grep -q 'config=0x400 errno=EINVAL' || fail "without lock, PMUGUARD_MODE=off should be honoured"
	ok "lock = yes defeats PMUGUARD_MODE=off and PMUGUARD_SNAPSHOT; without lock the variable works"
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
setpriv --reuid=65534 --regid=65534 --clear-groups env PMUGUARD_MODE=off PMUGUARD_LOG=quiet \
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
conf-log-reaches-seccomp-mode)
	# `log = quiet` in /etc/pmuguard.conf silences the
	# supervisor (seccomp and auto modes) as it does the preload, even with
	# PMUGUARD_LOG=debug; log = syslog sends its lines to syslog, not stderr
	# (f2788d1 wrote them to stderr).
	cat >"$tmp/script" <<SH
set -e
printf 'log = quiet\n' >/etc/pmuguard.conf
$PMUGUARD run --mode seccomp --snapshot $M6I -- $PEO 4:0x400
$PMUGUARD run --snapshot $M6I -- taskset -c 0 $PEO 4:0x8000
PMUGUARD_LOG=debug $PMUGUARD run --snapshot $M6I -- $PEO_DYN 4:0x400
PMUGUARD_LOG=debug $PMUGUARD run --mode seccomp --snapshot $M6I -- $PEO 4:0x400
printf 'log = syslog\n' >/etc/pmuguard.conf
$PMUGUARD run --mode seccomp --snapshot $M6I -- $PEO 4:0x8100
SH
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc"
	[ "$(grep -c 'errno=ENOENT' "$tmp/out")" = 5 ] || fail "not every call was denied"
	! grep -q 'pmuguard' "$tmp/err" || fail "the policy file's log setting did not silence stderr"
	grep -q 'pmuguard\[[0-9]*\]: blocked perf_event_open(type=4, config=0x8100) in peo' "$tmp/syslog" ||
		fail "log = syslog: the supervisor's line did not reach syslog"
	! grep -q 'config=0x400\|config=0x8000)' "$tmp/syslog" || fail "log = quiet still logged to syslog"
	ok "the policy file's log setting governs the supervisor: quiet is silent, syslog goes to syslog"
	;;
conf-lock-reports-ignored-snapshot)
	# With lock = yes, PMUGUARD_SNAPSHOT and --snapshot
	# are ignored, and each is reported (escaped) instead of silently dropped.
	cat >"$tmp/script" <<SH
set -e
printf 'lock = yes\nsnapshot = $M6I\nlog = stderr\n' >/etc/pmuguard.conf
PMUGUARD_SNAPSHOT=$ICX $PMUGUARD run --mode seccomp -- $PEO 4:0x400
$PMUGUARD run --mode seccomp --snapshot $ICX -- $PEO 4:0x400
$PMUGUARD run --snapshot $ICX -- $PEO_DYN 4:0x400
SH
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc"
	[ "$(grep -c 'config=0x400 .*errno=ENOENT' "$tmp/out")" = 3 ] ||
		fail "a user's snapshot replaced the locked facts"
	grep -q "^pmuguard: ignoring PMUGUARD_SNAPSHOT=$ICX: /etc/pmuguard.conf has lock = yes" "$tmp/err" ||
		fail "the ignored PMUGUARD_SNAPSHOT was not reported"
	[ "$(grep -c "^pmuguard: ignoring --snapshot $ICX: /etc/pmuguard.conf has lock = yes" "$tmp/err")" = 2 ] ||
		fail "the ignored --snapshot was not reported (seccomp and auto)"
	ok "lock = yes: ignored PMUGUARD_SNAPSHOT and --snapshot are reported"
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
		[ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] ||
			fail "$c as a user said more than that it needs root: $(cat "$tmp/out" "$tmp/err")"
		grep -q "^pmuguard-fleet: $( [ "$c" = remove ] && echo uninstall || echo "$c") changes this host .*: it needs root; run it with sudo$" "$tmp/err" ||
			fail "$c as a user: $(cat "$tmp/err")"
	done
	ok "install, uninstall, remove and reprobe as a user say at once that they need root (exit 1)"
	;;
conf-typo-is-named)
	# A line the policy does not understand is named with its file, line
	# and key, by the command, once by the preload, and by fleet status;
	# the rest of the file (lock = yes) still applies.
	cat >"$tmp/script" <<SH
printf 'snapshot = %s\nmdoe = off\nlock = yes\nlog = stderr\n' $M6I >/etc/pmuguard.conf
PMUGUARD_MODE=off $PMUGUARD run --mode seccomp -- $PEO 4:0x400 >$tmp/run.out 2>$tmp/run.err
LD_PRELOAD=$LIB PMUGUARD_MODE=off $PEO_DYN 4:0x400 4:0x8000 >$tmp/peo.out 2>$tmp/peo.err
$FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
$FLEET status --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/st.txt 2>&1
$FLEET status --json --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/st.json 2>/dev/null
true
SH
	sandbox bash "$tmp/script"
	want="pmuguard: ignoring /etc/pmuguard.conf:2 (unknown key 'mdoe'): that line only; the rest applies"
	grep -qxF "$want" "$tmp/run.err" || fail "pmuguard run does not name the line: $(cat "$tmp/run.err")"
	[ "$(grep -cF "$want" "$tmp/peo.err")" = 1 ] || fail "the preload did not name the line once: $(cat "$tmp/peo.err")"
	grep -q 'ignoring PMUGUARD_MODE=off: /etc/pmuguard.conf has lock = yes' "$tmp/peo.err" ||
		fail "lock = yes after the typo was not kept: $(cat "$tmp/peo.err")"
	grep -q 'config=0x400 .*errno=ENOENT' "$tmp/peo.out" || fail "the locked policy did not deny: $(cat "$tmp/peo.out")"
	grep -qF "policy: ignored: /etc/pmuguard.conf:2 (unknown key 'mdoe')" "$tmp/st.txt" ||
		fail "fleet status does not say the policy has a line it does not understand: $(cat "$tmp/st.txt")"
	python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["preload"]; assert "mdoe" in p["policy_not_understood"], p' "$tmp/st.json" ||
		fail "status --json: $(cat "$tmp/st.json")"
	ok "the typo is named (file, line, key) by run, once by the preload and by fleet status; lock = yes still holds"
	;;
conf-lock-keeps-run-audit)
	# An audit only looks: under lock = yes the host's policy still answers
	# every call, and the table judges them with the facts --snapshot names.
	cat >"$tmp/script" <<SH
set -e
printf 'lock = yes\nsnapshot = $ICX\nlog = stderr\n' >/etc/pmuguard.conf
$PMUGUARD run --audit --snapshot $M6I -- $PEO 4:0x400
printf 'lock = yes\nsnapshot = $M6I\nlog = stderr\n' >/etc/pmuguard.conf
$PMUGUARD run --audit --snapshot $ICX -- $PEO 4:0x400
SH
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc: $(cat "$tmp/err")"
	! grep -q 'ignoring' "$tmp/err" || fail "the audit's --mode or --snapshot was ignored: $(cat "$tmp/err")"
	grep -q "facts: $M6I)" "$tmp/err" || fail "the audit did not judge with the facts it named: $(cat "$tmp/err")"
	grep -Eq '0x400 .* would be denied: TOPDOWN.SLOTS' "$tmp/err" ||
		fail "the table does not say slots would be denied on the m6i: $(cat "$tmp/err")"
	grep -q 'on an affected machine: yes$' "$tmp/err" || fail "the audit did not answer yes"
	ok "lock = yes: run --audit --snapshot judges with the named facts"
	# On a host whose locked facts have the hazard, the audit weakens nothing.
	grep -q 'blocked perf_event_open(type=4, config=0x400) in peo' "$tmp/err" &&
		grep -Eq '0x400 .* denied: TOPDOWN.SLOTS' "$tmp/err" ||
		fail "the locked hazardous host's policy did not answer the audited call: $(cat "$tmp/err")"
	grep -q 'is locked (lock = yes, or unreadable): the host.s policy (mode auto) still answers every call' "$tmp/err" ||
		fail "the audit does not say the host's policy still answers"
	ok "lock = yes: the host's policy still answers the audited tree's calls"
	;;
status-quiet-prints-nothing)
	# --quiet: the exit code (and, with --textfile, the metrics) alone.
	root=$tmp/root
	mkdir -p "$root/etc"
	set +e
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" status --quiet --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1
	r=$?
	set -e
	[ "$r" = 3 ] || fail "status --quiet on an unguarded hazardous tree exited $r, not 3"
	[ ! -s "$tmp/out" ] || fail "status --quiet printed: $(cat "$tmp/out")"
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" status -q --root "$root" --pmuguard "$PMUGUARD" --textfile "$tmp/q.prom" >"$tmp/out" 2>&1 || :
	[ ! -s "$tmp/out" ] && grep -qx 'pmuguard_unguarded 1' "$tmp/q.prom" ||
		fail "status -q --textfile printed, or wrote no metrics: $(cat "$tmp/out")"
	ok "status --quiet prints nothing: the exit code and the metrics alone"
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
	want='-- no systemd
-- systemd
start --no-block pmuguard-metrics.service
-- installed
start --no-block pmuguard-metrics.service
-- reprobed
start --no-block pmuguard-metrics.service
-- uninstalled
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
# Every status document a case made is what the shipped schema says.
docs=$(find "$tmp" -name '*.json' -type f 2>/dev/null)
if [ -n "${PMUGUARD_COLLECT_JSON:-}" ]; then
	for d in $docs; do cp "$d" "$PMUGUARD_COLLECT_JSON/$case_name-$(basename "$d")"; done
fi
if [ -n "$docs" ] && [ -f "$here/../../probe/report/schema/status.schema.json" ]; then
	# shellcheck disable=SC2086 # the paths, split
	python3 "$here/schema-check.py" "$here/../../probe/report/schema" $docs >"$tmp/schema.out" ||
		[ $? = 77 ] || fail "a status document is not what its schema says: $(cat "$tmp/schema.out")"
fi
[ "$(real_state)" = "$real_before" ] || fail "the machine's own /etc or /dev/log changed"
echo "PASS: $case_name"
