#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Fleet, a symlinked /etc/ld.so.preload edited through its link, insane links
# refused, a --root whose directories lead out of it refused.
# The sandbox and helpers: lib.sh here.
#
#   links.sh CASE        exit 0 pass, 1 fail, 77 skip;  links.sh --list
set -euo pipefail
# shellcheck source=tests/e2e/fleet/lib.sh
. "$(dirname "$0")/lib.sh"

case $case_name in
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
esac
fleet_case_done
