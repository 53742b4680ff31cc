#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Fleet, a symlinked /etc/ld.so.preload edited through its link, insane links
# refused, a --root whose directories lead out of it refused; a tree whose
# etc/ its builder owns: links planted at every fixed name, and swapped over
# each temporary as it appears, never followed.
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
preload-link-target-ends-in-a-newline)
	# A link's target is read whole: "$(readlink)" dropped a trailing
	# newline, so the edit went to etc/real while the loader follows the
	# link to "etc/real<newline>" (helper-18's review).  Such a name is
	# refused: nothing changed, either file.
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	nl=$'\n'
	echo /usr/lib/libfoo.so >"$root/etc/real"
	echo /usr/lib/libfoo.so >"$root/etc/real$nl"
	ln -s "real$nl" "$root/etc/ld.so.preload"
	rc=0
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" install --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1 || rc=$?
	[ "$rc" = 1 ] || fail "install exited $rc: $(cat "$tmp/out")"
	grep -q 'names a file whose name holds a newline' "$tmp/out" || fail "no reason: $(cat "$tmp/out")"
	! grep -q libpmuguard "$root/etc/real" "$root/etc/real$nl" || fail "a file was edited"
	ok "a link whose target's name holds a newline is refused, nothing edited"
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
root-builder-links-never-followed)
	# Issue 47, 1: in a tree whose etc/ its builder owns (a rootless image
	# build), a link the builder planted at a name install or uninstall
	# writes (the policy kept aside, the backup, the policy, the preload
	# file's temporaries) was followed by root's cp -p and chmod: a
	# root-only file outside the tree got the builder's content and mode.
	# Every write is now through descriptors: the links are replaced,
	# never followed, and the files outside are byte for byte as they were.
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard" "$tmp/outside"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	for v in victim1 victim2 victim3; do
		printf 'root only: %s\n' "$v" >"$tmp/outside/$v"
		chmod 600 "$tmp/outside/$v"
	done
	outside() { find "$tmp/outside" -printf '%p %y %m %u %g %s\n' | sort && sha256sum "$tmp/outside"/*; }
	outside >"$tmp/outside.before"
	chown 65534:65534 "$root/etc"
	# The builder's own policy, writable by all: install replaces it and
	# keeps the old one aside, at a name the builder has put a link at.
	printf 'mode = off\n' >"$root/etc/pmuguard.conf"
	chmod 666 "$root/etc/pmuguard.conf"
	printf '# the image\n/usr/lib/libimage.so\n' >"$root/etc/ld.so.preload"
	chown 65534:65534 "$root/etc/pmuguard.conf" "$root/etc/ld.so.preload"
	ln -s "$tmp/outside/victim1" "$root/etc/pmuguard.conf.pmuguard-untrusted"
	ln -s "$tmp/outside/victim2" "$root/etc/ld.so.preload.pmuguard-bak"
	ln -s "$tmp/outside/victim3" "$root/etc/ld.so.preload.pmuguard-bak.new.XXXXXX"
	ln -s "$tmp/outside/victim3" "$root/etc/pmuguard.conf.pmuguard-new.XXXXXX"
	f() { PMUGUARD_SNAPSHOT=$M6I "$FLEET" "$@" --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1 ||
		fail "$*: exit $?: $(cat "$tmp/out")"; }
	f install
	outside | cmp -s - "$tmp/outside.before" || fail "install wrote outside the tree: $(outside | diff "$tmp/outside.before" - | tail -n 6)"
	grep -q 'policy locked' "$tmp/out" || fail "install did not lock the policy: $(cat "$tmp/out")"
	for n in pmuguard.conf.pmuguard-untrusted ld.so.preload.pmuguard-bak; do
		{ [ -f "$root/etc/$n" ] && [ ! -L "$root/etc/$n" ]; } || fail "$n is not a plain file of the tree now"
	done
	[ "$(cat "$root/etc/pmuguard.conf.pmuguard-untrusted")" = 'mode = off' ] || fail "the old policy was not kept aside"
	[ "$(stat -c %a "$root/etc/pmuguard.conf.pmuguard-untrusted")" = 600 ] || fail "the policy kept aside is not 0600"
	head -n 1 "$root/etc/ld.so.preload" | grep -qxF /usr/lib/pmuguard/libpmuguard.so || fail "not installed"
	[ -z "$(find "$root/etc" -name '*XXXXXX')" ] || fail "a killed run's temporaries (the builder's links) were not removed"
	# Uninstall, with links planted again at every fixed name.
	rm -f "$root/etc/ld.so.preload.pmuguard-bak"
	ln -s "$tmp/outside/victim2" "$root/etc/ld.so.preload.pmuguard-bak"
	ln -s "$tmp/outside/victim3" "$root/etc/ld.so.preload.pmuguard-new.XXXXXX"
	f uninstall
	outside | cmp -s - "$tmp/outside.before" || fail "uninstall wrote outside the tree: $(outside | diff "$tmp/outside.before" - | tail -n 6)"
	printf '# the image\n/usr/lib/libimage.so\n' | cmp -s - "$root/etc/ld.so.preload" || fail "uninstall did not restore the file"
	# A link at the policy itself is a tool's: not written through.
	rm -f "$root/etc/pmuguard.conf"
	ln -s "$tmp/outside/victim1" "$root/etc/pmuguard.conf"
	f install
	grep -q 'policy NOT locked: .*pmuguard.conf is not a regular file' "$tmp/out" || fail "a linked policy was not refused: $(cat "$tmp/out")"
	outside | cmp -s - "$tmp/outside.before" || fail "install wrote through the policy's link"
	ok "links planted at every fixed name in a builder's etc/: replaced or refused, never followed; nothing outside the tree changed"
	;;
root-builder-swaps-temporaries)
	# Issue 47, 1 (the race): the builder watches its etc/ with inotify and
	# renames a link to a root-only file over each temporary install and
	# uninstall create there (*.pmuguard-new.*, *.new.*).  Root's chmod,
	# chown --reference and > followed it (7 of 7 runs).  Every write is
	# now to the open file, and what would be renamed into place is proved
	# the file written: a run either finishes or refuses, saying why, and
	# the file outside is never touched.
	command -v inotifywait >/dev/null || skip "inotifywait (inotify-tools) is not installed"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard" "$tmp/outside"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	printf 'root only\n' >"$tmp/outside/victim"
	chmod 600 "$tmp/outside/victim"
	outside() { find "$tmp/outside" -printf '%p %y %m %u %g %s\n' | sort && sha256sum "$tmp/outside"/*; }
	outside >"$tmp/outside.before"
	chown 65534:65534 "$root/etc"
	# The builder, as uid 65534: a link over every temporary, at once.
	cat >"$tmp/builder.sh" <<'SH'
cd "$1" || exit 1
inotifywait -q -m -e create --format '%f' . | while IFS= read -r f; do
	case $f in
	*.pmuguard-new.* | *.new.*) ln -s "$2" ".swap.$$" 2>/dev/null && mv -f ".swap.$$" "$f" 2>/dev/null && echo "swapped $f" >>"$3" ;;
	esac
done
SH
	: >"$tmp/swaps"
	chmod 666 "$tmp/swaps"
	# (In a process group of its own: all of it is killed at the end.)
	setsid setpriv --reuid 65534 --regid 65534 --clear-groups -- \
		sh "$tmp/builder.sh" "$root/etc" "$tmp/outside/victim" "$tmp/swaps" 2>/dev/null &
	builder=$!
	trap 'kill -9 -- "-$builder" 2>/dev/null; rm -rf "$tmp"' EXIT
	# Until inotifywait watches (it says nothing with -q): a probe file.
	for _ in $(seq 100); do
		# shellcheck disable=SC2016 # the inner shell's $1
		setpriv --reuid 65534 --regid 65534 --clear-groups -- sh -c ': >"$1/probe.pmuguard-new.0" && rm -f "$1/probe.pmuguard-new.0"' _ "$root/etc"
		for _ in $(seq 50); do grep -q probe "$tmp/swaps" && break; sleep 0.02; done
		grep -q probe "$tmp/swaps" && break
	done
	grep -q probe "$tmp/swaps" || skip "the builder's inotifywait never saw a file created"
	runs=0 refused=0
	for t in $(seq 6); do
		for op in install uninstall; do
			printf 'mode = off\n' >"$root/etc/pmuguard.conf"
			chmod 666 "$root/etc/pmuguard.conf"
			set +e
			PMUGUARD_SNAPSHOT=$M6I timeout 60 "$FLEET" "$op" --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1
			r=$?
			set -e
			runs=$((runs + 1))
			case $r in
			0) ;;
			1)
				grep -q 'was replaced by another while it was written\|is not the file written' "$tmp/out" ||
					fail "trial $t: $op exited 1 without the reason: $(cat "$tmp/out")"
				refused=$((refused + 1))
				;;
			*) fail "trial $t: $op exited $r: $(cat "$tmp/out")" ;;
			esac
			outside | cmp -s - "$tmp/outside.before" ||
				fail "trial $t: $op wrote outside the tree through a swapped link: $(outside | diff "$tmp/outside.before" - | tail -n 6)"
		done
	done
	swaps=$(grep -vc probe "$tmp/swaps" || true)
	[ "$swaps" -gt 0 ] || fail "the builder swapped no temporary: the race was not run"
	ok "$runs runs against a builder that swapped $swaps temporaries for links: $refused refused with the reason, the rest done; nothing outside the tree changed"
	;;
esac
fleet_case_done
