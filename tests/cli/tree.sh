#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A tree under --root is data, never code, and is judged by the rules of a
# live host (probe/status/status_tree.c): pmuguard status --root and
# pmuguard tree.
#
#   tree.sh CASE
#
# tree-policy-decides    the tree's policy file by the guard's settings:
#                        mode off or audit guards nothing (NO, exit 3), a
#                        snapshot leaves it unknown (exit 4); the preload
#                        file as the loader parses it (a NUL before our
#                        line: not installed); the plain tree: yes
# tree-hostile-files     a FIFO at the preload file or the policy file,
#                        an 8 GiB sparse preload file: status ends, reads
#                        neither whole, and says why
# tree-policy-owners     a policy file others can write in the tree guards
#                        (its mode = off is not taken, as on a live host);
#                        one owned by the builder's uid that says off where
#                        it would be root's: unknown
# tree-facts             pmuguard tree: paths resolved in the tree, a link
#                        out of it refused, the library checked as nobody
# tree-check-load-leaves-nothing-running
#                        --check-load of a library whose constructor forks
#                        twice and leaves a process in a session of its
#                        own: nothing of it runs after the command, as
#                        root (a PID namespace) and as uid 65534 (where
#                        none can be made: a subreaper)
#
# Exit: 0 pass, 1 fail, 77 skip (a failure when PMUGUARD_TESTS_MUST_RUN=1).
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
if [ "${1:-}" = --list ]; then list_cases "$0" case_name; exit 0; fi
: "${PMUGUARD:?}" "${FIXTURES:?}" "${LIB:?}"
case_name=${1:?usage: tree.sh CASE}

tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
M6I=$FIXTURES/m6i-16xlarge
ENTRY=/usr/lib/x86_64-linux-gnu/pmuguard/libpmuguard.so

# A tree guarded by the preload as a package leaves it.
mktree() {
	rm -rf "$tmp/root"
	mkdir -p "$tmp/root/etc" "$tmp/root/${ENTRY%/*}"
	cp "$LIB" "$tmp/root/$ENTRY"
	echo "$ENTRY" >"$tmp/root/etc/ld.so.preload"
}
# st EXPECTED_EXIT: status --root on the m6i's verdict; its words in $tmp/out.
st() {
	local rc=0
	PMUGUARD_SNAPSHOT=$M6I timeout 60 "$PMUGUARD" status --root "$tmp/root" >"$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" != 124 ] || fail "status --root did not end within 60 s"
	[ "$rc" = "$1" ] || { cat "$tmp/out"; fail "status --root exited $rc, not $1"; }
}
says() { grep -qF -- "$1" "$tmp/out" || { cat "$tmp/out"; fail "status --root did not say: $1"; }; }

case $case_name in
tree-policy-decides)
	mktree
	st 0
	says "protected: yes, by preload"
	says "the tree's policy: mode auto"
	for mode in off audit; do
		echo "mode = $mode" >"$tmp/root/etc/pmuguard.conf"
		st 3
		says "protected: NO"
		says "preload: LISTED, BUT IT GUARDS NOTHING: the tree's /etc/pmuguard.conf says mode = $mode"
	done
	rm "$tmp/root/etc/pmuguard.conf"
	# The loader reads the file as a C string: nothing after a NUL.
	printf '/usr/lib/other.so\0%s\n' "$ENTRY" >"$tmp/root/etc/ld.so.preload"
	st 3
	says "preload: not installed"
	# Comments are blanked, names split at ": \t\n", as glibc does.
	printf '/usr/lib/a.so:%s\t# %s\n' "$ENTRY" /usr/lib/b.so >"$tmp/root/etc/ld.so.preload"
	st 0
	says "protected: yes, by preload"
	printf '# %s\n' "$ENTRY" >"$tmp/root/etc/ld.so.preload"
	st 3
	says "preload: not installed"
	# Facts from a snapshot: what the library decides there is unknown.
	echo "$ENTRY" >"$tmp/root/etc/ld.so.preload"
	printf 'snapshot = /srv/facts\n' >"$tmp/root/etc/pmuguard.conf"
	st 4
	says "protected: unknown: the tree's /etc/pmuguard.conf reads the facts from a snapshot (/srv/facts)"
	ok "the tree's policy and preload file decide by the live host's rules"
	;;
tree-hostile-files)
	mktree
	rm "$tmp/root/etc/ld.so.preload"
	mkfifo "$tmp/root/etc/ld.so.preload"
	st 3
	says "is not a regular file"
	rm "$tmp/root/etc/ld.so.preload"
	truncate -s 8G "$tmp/root/etc/ld.so.preload"
	st 3
	says "is larger than 1024 KiB: not read"
	rm "$tmp/root/etc/ld.so.preload"
	echo "$ENTRY" >"$tmp/root/etc/ld.so.preload"
	# A policy file that is a FIFO is unreadable, as on a live host: the
	# defaults, locked (the guard fails closed), never waited on.
	mkfifo "$tmp/root/etc/pmuguard.conf"
	st 0
	says "its policy file could not be read: the defaults, locked"
	rm "$tmp/root/etc/pmuguard.conf"
	truncate -s 8G "$tmp/root/etc/pmuguard.conf"
	st 0
	ok "a FIFO or an 8 GiB sparse file in the tree: status ends and says why"
	;;
tree-policy-owners)
	[ "$(id -u)" = 0 ] || skip "needs root to give the tree's files other owners"
	mktree
	echo "mode = off" >"$tmp/root/etc/pmuguard.conf"
	chmod 666 "$tmp/root/etc/pmuguard.conf"
	# Its modes travel with the tree: anyone may write it there too, so
	# the guard takes nothing from it that loosens it.
	st 0
	says "protected: yes, by preload"
	chmod 644 "$tmp/root/etc/pmuguard.conf"
	chown 1000:1000 "$tmp/root/etc/pmuguard.conf"
	# A builder's file: root's where the tree is deployed, perhaps.
	st 4
	says "protected: unknown: /etc/pmuguard.conf is owned by uid 1000"
	ok "a policy others can write guards; a builder's that says off is unknown"
	;;
tree-facts)
	mktree
	mkdir -p "$tmp/out-of-tree"
	echo "lock = yes" >"$tmp/out-of-tree/pmuguard.conf"
	ln -s "$tmp/out-of-tree/pmuguard.conf" "$tmp/root/etc/pmuguard.conf"
	"$PMUGUARD" tree --root "$tmp/root" --check-load >"$tmp/out" 2>"$tmp/err" || fail "pmuguard tree failed"
	for kv in "lib=$ENTRY" "lib.at=$(cd "$tmp/root" && pwd -P)$ENTRY" preload.lists=true \
		lib.loads=true policy.state=guards policy.locked=false; do
		grep -qxF "$kv" "$tmp/out" || { cat "$tmp/out"; fail "pmuguard tree lacks $kv"; }
	done
	# The absolute link is resolved in the tree, where it leads nowhere:
	# this host's file is never read.
	grep -qx 'policy.at=' "$tmp/out" || { cat "$tmp/out"; fail "the policy link was followed out of the tree"; }
	if [ "$(id -u)" = 0 ]; then
		grep -qx 'lib.checked_as=uid 65534' "$tmp/out" || fail "the library was checked as root"
	fi
	ok "pmuguard tree: the tree's facts as data, no link followed out"
	;;
tree-check-load-leaves-nothing-running)
	[ "$(id -u)" = 0 ] || skip "needs root (the check as uid 65534, a PID namespace)"
	unshare -p -f true 2>/dev/null || skip "this host refuses a PID namespace (unshare -p)"
	command -v cc >/dev/null || skip "no C compiler for the tree's library"
	mktree
	mkdir -p "$tmp/mark"
	chmod 1777 "$tmp/mark"
	cat >"$tmp/escape.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
/* Leaves a process behind: forks twice, the grandchild writes its pid as
 * /proc names it (in a PID namespace getpid() is the namespace's), then
 * a session of its own and no descriptor of the check's; the constructor
 * returns only once the pid is written. */
__attribute__((constructor)) static void escape(void)
{
	int p[2];
	if (pipe(p) != 0)
		return;
	pid_t child = fork();
	if (child == 0) {
		if (fork() != 0)
			_exit(0);
		char self[32] = "";
		if (readlink("/proc/self", self, sizeof(self) - 1) < 0)
			_exit(1);
		int fd = open(PIDFILE, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dprintf(fd, "%s\n", self);
		close(fd);
		setsid();
		prctl(PR_SET_NAME, "pmug-escapee");
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0), dup2(null, 1), dup2(null, 2);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		close(p[0]), close(p[1]);
		for (;;)
			pause();
	}
	close(p[1]);
	char c;
	if (child > 0 && waitpid(child, NULL, 0) == child && read(p[0], &c, 1) != 1)
		_exit(1);
	close(p[0]);
}
C
	cc -shared -fPIC -DPIDFILE="\"$tmp/mark/pid\"" -o "$tmp/root/$ENTRY" "$tmp/escape.c" ||
		skip "cannot build the tree's library"
	# The escapee, should one outlive the check, is killed with the case.
	trap 'p=$(cat "$tmp/mark/pid" 2>/dev/null) && [ "$(cat "/proc/$p/comm" 2>/dev/null)" = pmug-escapee ] && kill -9 "$p"; rm -rf "$tmp"' EXIT
	# alive: the escapee of the last check still runs (its pid is written
	# before the check returns, and must be gone when it has).
	alive() {
		local p
		p=$(cat "$tmp/mark/pid" 2>/dev/null) || fail "the library's constructor did not run (no pid written)"
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = pmug-escapee ]
	}
	check() {
		rm -f "$tmp/mark/pid"
		timeout 60 "$@" "$PMUGUARD" tree --root "$tmp/root" --check-load >"$tmp/out" 2>"$tmp/err" ||
			fail "pmuguard tree --check-load $* failed"
		grep -qx 'lib.loads=true' "$tmp/out" || fail "the library did not load"
	}
	check
	grep -qx 'lib.checked_as=uid 65534' "$tmp/out" || fail "the library was not checked as uid 65534"
	! alive || fail "as root, the library's process $(cat "$tmp/mark/pid") (uid $(stat -c %u "/proc/$(cat "$tmp/mark/pid")")) outlived the check"
	# As uid 65534 no PID namespace can be made: every process the check
	# left is killed and reaped before it returns.
	check setpriv --reuid=65534 --regid=65534 --clear-groups
	! alive || fail "as uid 65534, the library's process $(cat "$tmp/mark/pid") outlived the check"
	ok "nothing the loader's check starts outlives it, in a PID namespace or without one"
	;;
*)
	fail "unknown case $1"
	;;
esac
