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
*)
	fail "unknown case $1"
	;;
esac
