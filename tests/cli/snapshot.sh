#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The cli suite, pmuguard snapshot: the round trip, a private folder never
# handed to another user or followed through a link, reference snapshots
# by name and as installed.
# The suite's preamble: lib.sh here.  snapshot.sh CASE, or --list.
set -euo pipefail
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

case $1 in
snapshot-round-trip)
	"$PMUGUARD" snapshot "$tmp/snap" 2>"$tmp/err" || fail "snapshot failed: $(cat "$tmp/err")"
	[ -s "$tmp/snap/cpuid.txt" ] || fail "no cpuid.txt"
	[ -d "$tmp/snap/sys/bus/event_source/devices" ] || fail "no sysfs mirror"
	# The report's first line names its source; JSON is one line, compared
	# whole minus its source keys.  The container runtimes running here are
	# no fact of the snapshot (null there): left out of both.
	"$PMUGUARD" probe | sed 1d | grep -v '^  Containers  ' >"$tmp/live.txt"
	"$PMUGUARD" probe --snapshot "$tmp/snap" | sed 1d >"$tmp/snap.txt"
	"$PMUGUARD" probe --json | sed -e 's/"source":"[a-z]*","snapshot":[^,]*,//' -e 's/"generated_at":"[^"]*"//' \
		-e 's/"containers":{"runtimes":\[[^]]*\],"evidence":\[[^]]*\]}/"containers":null/' >"$tmp/live.json"
	"$PMUGUARD" probe --json --snapshot "$tmp/snap" |
		sed -e 's/"source":"[a-z]*","snapshot":[^,]*,//' -e 's/"generated_at":"[^"]*"//' >"$tmp/snap.json"
	diff -u "$tmp/live.json" "$tmp/snap.json" || fail "JSON differs between live and snapshot"
	diff -u "$tmp/live.txt" "$tmp/snap.txt" || fail "report differs between live and snapshot"
	status 1 "$PMUGUARD" snapshot "$tmp/snap"
	grep -q "not empty" "$tmp/err" || fail "snapshot into a full directory: no clear error"
	echo "ok: snapshot -> probe equals the live probe ($(wc -l <"$tmp/live.txt") report lines)"
	;;
snapshot-private)
	# The snapshot holds the kernel log (root's alone where
	# kernel.dmesg_restrict=1): its folders are 0700 and its files 0600,
	# in a DIR it makes and in an empty one of the caller's own.
	umask 022
	status 0 "$PMUGUARD" snapshot "$tmp/new"
	mkdir -m 0755 "$tmp/own"
	status 0 "$PMUGUARD" snapshot "$tmp/own/"
	[ "$(stat -c %a "$tmp/new")" = 700 ] || fail "DIR was made $(stat -c %a "$tmp/new"), not 0700"
	for d in "$tmp/new" "$tmp/own"; do
		[ -f "$d/snapshot.txt" ] || fail "$d: nothing written"
		find "$d" -mindepth 1 \( -type d ! -perm 0700 -o -type f ! -perm 0600 -o ! -type d ! -type f \) \
			-printf '%m %y %p\n' >"$tmp/open"
		[ ! -s "$tmp/open" ] || fail "not private: $(head -n 5 "$tmp/open")"
	done
	"$PMUGUARD" snapshot --help >"$tmp/out"
	grep -q 'folders are 0700 and its files 0600' "$tmp/out" || fail "--help does not say the files are private"
	echo "ok: folders 0700, files 0600, said in --help"
	;;
snapshot-refuses-shared-dirs)
	# A DIR others can write (group, other, sticky or not) or a link in
	# DIR's place is refused, exit 1, with the reason, nothing written.
	for m in 0770 0777 1777 0757; do
		mkdir -m "$m" "$tmp/d$m"
		status 1 "$PMUGUARD" snapshot "$tmp/d$m"
		grep -q "snapshot $tmp/d$m: refused: the directory is writable by .* (mode $m)" "$tmp/err" ||
			fail "mode $m: no reason given: $(cat "$tmp/err")"
		[ -z "$(ls -A "$tmp/d$m")" ] || fail "mode $m: written into"
	done
	grep -q 'a sticky bit does not' "$tmp/err" || fail "the sticky bit is not named"
	mkdir -m 0700 "$tmp/real"
	ln -s "$tmp/real" "$tmp/link"
	status 1 "$PMUGUARD" snapshot "$tmp/link"
	grep -q "snapshot $tmp/link: refused: it is a symbolic link" "$tmp/err" || fail "a link as DIR: $(cat "$tmp/err")"
	[ -z "$(ls -A "$tmp/real")" ] || fail "written through the link"
	echo "ok: group- or world-writable directories (sticky too) and links refused; nothing written"
	;;
snapshot-refuses-another-users-dir)
	# A directory another user made first (in /tmp, say) is refused: root
	# would copy the kernel log into a folder its owner reads and can plant
	# links in.  Nothing is written.
	[ "$(id -u)" = 0 ] || skip "needs root to make a directory as another user"
	command -v setpriv >/dev/null || skip "setpriv (util-linux) is needed"
	chmod 0755 "$tmp"
	mkdir -m 1777 "$tmp/pub"
	setpriv --reuid=65534 --regid=65534 --clear-groups mkdir -m 0700 "$tmp/pub/pmu-facts"
	status 1 "$PMUGUARD" snapshot "$tmp/pub/pmu-facts"
	grep -q "snapshot $tmp/pub/pmu-facts: refused: the directory belongs to uid 65534.*, not to uid 0" "$tmp/err" ||
		fail "no reason given: $(cat "$tmp/err")"
	grep -q 'give a path that does not exist yet' "$tmp/err" || fail "the error does not say what to do"
	[ -z "$(ls -A "$tmp/pub/pmu-facts")" ] || fail "written into another user's directory"
	# A new folder in the same shared parent is the caller's own: made 0700.
	status 0 "$PMUGUARD" snapshot "$tmp/pub/mine"
	[ "$(stat -c '%u %a' "$tmp/pub/mine")" = '0 700' ] || fail "a new DIR is not root's, 0700"
	echo "ok: another user's directory refused, naming its owner; a new one is private"
	;;
snapshot-never-follows-links)
	# A link planted in DIR while the snapshot runs, in the place of a
	# folder it makes later (sys/, dmi/), is never followed: nothing is
	# made at its end.  The snapshot is held at a known point in a private
	# mount namespace: /dev/cpu/0/msr is a FIFO there, whose open blocks
	# until its other end is opened, after snapshot.txt, cpuid.txt and
	# dmesg.txt are written and before sys/.
	[ "$(id -u)" = 0 ] || skip "needs root for a private mount namespace"
	unshare -m true 2>/dev/null || skip "unshare -m is not permitted here"
	mkdir "$tmp/target" "$tmp/realdev"
	rc=0
	# shellcheck disable=SC2016 # the inner shell's variables
	unshare -m -- bash -c '
		set -eu
		tmp=$1 PMUGUARD=$2
		mount --make-rprivate /
		mount --rbind /dev "$tmp/realdev"
		mount -t tmpfs -o mode=0755 tmpfs /dev
		for n in null kmsg; do
			[ -e "$tmp/realdev/$n" ] || continue
			: >"/dev/$n"
			mount --bind "$tmp/realdev/$n" "/dev/$n"
		done
		mkdir -p /dev/cpu/0
		mkfifo /dev/cpu/0/msr
		"$PMUGUARD" snapshot "$tmp/snap" >"$tmp/out" 2>"$tmp/err" &
		pid=$!
		for _ in $(seq 200); do [ -e "$tmp/snap/snapshot.txt" ] && break; sleep 0.05; done
		[ -e "$tmp/snap/snapshot.txt" ] || { echo "the snapshot never began"; exit 2; }
		ln -s "$tmp/target" "$tmp/snap/sys"
		ln -s "$tmp/target" "$tmp/snap/dmi"
		timeout 20 bash -c "exec 3>/dev/cpu/0/msr" || { echo "the snapshot never opened the FIFO"; exit 2; }
		wait "$pid"' _ "$tmp" "$PMUGUARD" >"$tmp/log" 2>&1 || rc=$?
	[ -z "$(ls -A "$tmp/target")" ] ||
		fail "the snapshot wrote through the planted link: $(find "$tmp/target" | head -n 5)"
	[ "$rc" = 1 ] || fail "exit $rc, not 1: $(cat "$tmp/log")"
	grep -q "snapshot $tmp/snap: sys appeared in it while the snapshot was written" "$tmp/err" ||
		fail "no reason given: $(cat "$tmp/err")"
	echo "ok: a link planted in DIR during the snapshot is refused, never followed"
	;;
snapshot-names)
	# --snapshot NAME and PMUGUARD_SNAPSHOT=NAME find a reference
	# snapshot (installed in DATADIR/pmuguard/snapshots; here the fixtures,
	# through PMUGUARD_SNAPSHOT_DIR), in the command and in the shim alike;
	# a path, or a directory of that name here, is read as given; a name
	# found nowhere is an error that says where it looked and lists them.
	: "${PEO_DYN:?}" "${LIB:?}"
	mkdir "$tmp/cwd"
	cd "$tmp/cwd"
	export PMUGUARD_SNAPSHOT_DIR=$FIXTURES
	unset PMUGUARD_SNAPSHOT PMUGUARD_MODE PMUGUARD_LOG
	status 3 "$PMUGUARD" probe --check --snapshot m6i-16xlarge
	grep -qxF "pmuguard probe (snapshot $FIXTURES/m6i-16xlarge)" "$tmp/out" ||
		fail "the report does not name the folder read: $(head -n1 "$tmp/out")"
	status 0 "$PMUGUARD" probe --check --snapshot icx-8375c-metal
	PMUGUARD_SNAPSHOT=m6i-16xlarge status 3 "$PMUGUARD" probe --check
	status 0 "$PMUGUARD" run --audit --snapshot m6i-16xlarge -- "$PEO_DYN" 4:0x400
	grep -qF "(facts: $FIXTURES/m6i-16xlarge)" "$tmp/err" || fail "the audit does not name the folder"
	grep -q '0x400 .*would' "$tmp/err" || fail "the audit does not list the counter-3 call"
	# A command that did not run is no verdict on the tool: the answer says
	# that nothing was opened.
	status 127 "$PMUGUARD" run --audit --snapshot m6i-16xlarge -- "$tmp/no-such-tool"
	grep -q 'affected machine: no (it made no perf_event_open call' "$tmp/err" ||
		fail "the audit of a command that never ran reads as a verdict: $(tail -n1 "$tmp/err")"
	# The seccomp supervisor, and the preload it exports the folder to.
	status 0 "$PMUGUARD" run --mode seccomp --snapshot m6i-16xlarge -- "$PEO" 4:0x400
	grep -q 'config=0x400 .*errno=ENOENT' "$tmp/out" || fail "seccomp: slots not denied by NAME"
	PMUGUARD_SNAPSHOT=m6i-16xlarge status 0 "$PMUGUARD" run --mode preload -- "$PEO_DYN" 4:0x400
	grep -q 'config=0x400 errno=ENOENT' "$tmp/out" || fail "preload: slots not denied by NAME"
	# The shim alone reads the same folder for the same NAME.
	PMUGUARD_SNAPSHOT=m6i-16xlarge LD_PRELOAD=$LIB status 0 "$PEO_DYN" 4:0x400
	grep -q 'config=0x400 errno=ENOENT' "$tmp/out" || fail "the shim does not find the NAME"
	# A directory of that name here wins, and a '/' makes a path.
	cp -r "$FIXTURES/icx-8375c-metal" m6i-16xlarge
	status 0 "$PMUGUARD" probe --check --snapshot m6i-16xlarge
	grep -qx "pmuguard probe (snapshot m6i-16xlarge)" "$tmp/out" || fail "the directory here was not read"
	status 1 "$PMUGUARD" probe --snapshot ./icx-8375c-metal
	grep -q 'snapshot ./icx-8375c-metal: No such file or directory' "$tmp/err" ||
		fail "a path was looked up as a NAME: $(cat "$tmp/err")"
	# --list: the names, one a line, sorted: what the folder holds.
	status 0 "$PMUGUARD" snapshot --list
	(cd "$FIXTURES" && find . -mindepth 1 -maxdepth 1 -type d ! -name '.*' -printf '%f\n' | LC_ALL=C sort) >"$tmp/want"
	diff -u "$tmp/want" "$tmp/out" || fail "snapshot --list is not the folder's snapshots"
	# Not found: exit 1, where it looked (here, the folder), every name.
	status 1 "$PMUGUARD" probe --snapshot m6i-16xlarg
	head -n1 "$tmp/err" | grep -qxF "pmuguard: snapshot m6i-16xlarg: not a directory in $tmp/cwd, nor a reference snapshot in $FIXTURES" ||
		fail "the error does not say where it looked: $(head -n1 "$tmp/err")"
	while read -r name; do
		grep -qxF "  $name" "$tmp/err" || fail "the error does not list $name"
	done <"$tmp/want"
	PMUGUARD_SNAPSHOT=m6i-16xlarg status 1 "$PMUGUARD" run --audit -- true
	grep -qxF '  m6i-16xlarge' "$tmp/err" || fail "run: the error does not list the names"
	PMUGUARD_SNAPSHOT_DIR=$tmp/none status 1 "$PMUGUARD" run --audit --snapshot icx-8375c-metal -- true
	grep -qxF "pmuguard: no reference snapshots: $tmp/none: No such file or directory" "$tmp/err" ||
		fail "a missing folder is not said: $(cat "$tmp/err")"
	PMUGUARD_SNAPSHOT_DIR=$tmp/none status 1 "$PMUGUARD" snapshot --list
	echo "ok: NAME found by the command and the shim alike; paths and directories here as given; errors list the names"
	;;
snapshots-installed)
	# meson installs the hand-made worlds (tests/snapshots/generate.sh's
	# HANDMADE) as the reference snapshots: their facts, not the tests' pins;
	# each replays as its fixture does.
	build=${PMUGUARD%/probe/cli/pmuguard}
	[ -f "$build/meson-info/intro-installed.json" ] || skip "no meson build tree above $PMUGUARD"
	meson install -C "$build" --no-rebuild --tags snapshots --destdir "$tmp/dest" >"$tmp/log" 2>&1 ||
		fail "meson install --tags snapshots: $(tail -n 5 "$tmp/log")"
	ref=$(find "$tmp/dest" -type d -path '*/pmuguard/snapshots' | head -n1)
	[ -n "$ref" ] || fail "nothing installed under share/pmuguard/snapshots"
	sed -n '/^HANDMADE=(/,/)/p' "$FIXTURES/generate.sh" | sed 's/HANDMADE=(//; s/)//' |
		tr -s '[:space:]' '\n' | grep . | LC_ALL=C sort >"$tmp/want"
	[ "$(wc -l <"$tmp/want")" -gt 10 ] || fail "cannot read HANDMADE from generate.sh"
	find "$ref" -mindepth 1 -maxdepth 1 -printf '%f\n' | LC_ALL=C sort >"$tmp/got"
	diff -u "$tmp/want" "$tmp/got" || fail "meson.build's reference_snapshots is not generate.sh's HANDMADE"
	! find "$ref" -name expected -o -name 'report.*' -o -name enforce-start.json | grep . ||
		fail "the tests' pins were installed"
	export SOURCE_DATE_EPOCH=0 PMUGUARD_SNAPSHOT_DIR=$ref
	cd "$tmp"
	while read -r name; do
		(cd "$FIXTURES/$name" && find . -type f ! -name expected ! -name 'report.*' ! -name enforce-start.json | LC_ALL=C sort) >"$tmp/files.want"
		(cd "$ref/$name" && find . -type f | LC_ALL=C sort) >"$tmp/files.got"
		diff -u "$tmp/files.want" "$tmp/files.got" || fail "$name: not every fact file was installed"
		"$PMUGUARD" probe --json --snapshot "$name" | sed 's/"snapshot":"[^"]*"//' >"$tmp/got.json"
		"$PMUGUARD" probe --json --snapshot "$FIXTURES/$name" | sed 's/"snapshot":"[^"]*"//' >"$tmp/want.json"
		cmp -s "$tmp/want.json" "$tmp/got.json" || fail "$name: the installed snapshot reads otherwise"
	done <"$tmp/want"
	echo "ok: $(wc -l <"$tmp/want") reference snapshots installed, without pins, each read as its fixture"
	;;
esac
