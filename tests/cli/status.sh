#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The cli suite, pmuguard status: whole in six worlds (pinned), its children
# bounded, --root kept in the tree, hostile textfile places.
# The suite's preamble: lib.sh here.  status.sh CASE, or --list.
set -euo pipefail
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

case $1 in
status-pinned)
	# pmuguard status, whole, as the reports are pinned: text, JSON,
	# keys, metrics and exit code in a few worlds (tests/cli/status/,
	# worlds.sh; pin-status.sh re-pins).  Any changed word fails here,
	# with its diff; the JSON is what status.schema.json says, and the
	# keys are the JSON flattened (one document, two renderers).
	: "${LIB:?}"
	here=$(cd "$(dirname "$0")" && pwd)
	mkdir "$tmp/status"
	"$here/status/worlds.sh" "$PMUGUARD" "$LIB" "$FIXTURES" "$tmp/status"
	bad=0
	for f in "$here"/status/pinned/*; do
		name=${f##*/}
		diff -u --label "$name (pinned)" --label "$name (printed)" "$f" "$tmp/status/$name" ||
			{ echo "FAIL: $name differs from its pin"; bad=1; }
	done
	HERE=$here python3 - "$tmp/status" <<'PY' || bad=1
import glob, json, os, sys
sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.environ["HERE"])
import doc_keys
for j in glob.glob(sys.argv[1] + "/*.one-line.json"):
    raw = open(j, encoding="utf-8").read()
    doc = json.loads(raw)
    flat = doc_keys.flatten(doc)
    keys = j.replace(".one-line.json", ".keys")
    want = [l.replace("host=HOST", "host=" + doc["host"]).replace("@VERSION@", doc["version"])
            for l in open(keys).read().splitlines()]
    root = [l for l in flat if l.startswith("preload.file=")][0].split("=", 1)[1]
    root = root[: -len("/etc/ld.so.preload")]
    got = [l.replace(root, "ROOT") for l in flat]
    assert got == want, (j, set(got) ^ set(want))
    # The status document as it has always been printed: ", " and ": ".
    assert raw.startswith('{"schema": 2, "version": '), raw[:40]
PY
	schema=$here/../../probe/doc/schema
	python3 "$here/../e2e/schema-check.py" "$schema" "$tmp"/status/*.one-line.json >"$tmp/schema.out" ||
		[ $? = 77 ] || { cat "$tmp/schema.out"; echo "FAIL: a status document is not what its schema says"; bad=1; }
	# Where the words, the keys, the metrics and the exit say one fact,
	# they say it alike (issue 43, item 3).
	python3 "$here/status/agree.py" "$tmp/status" || bad=1
	[ "$bad" = 0 ] || fail "pmuguard status differs from its pins (tests/cli/status/pin-status.sh BUILD re-pins)"
	echo "ok: pmuguard status in $(find "$here/status/pinned" -name "*.rc" | wc -l) worlds is as pinned"
	;;
status-child-deadline)
	# A child of status that never answers (here the kernel layer's
	# `enforce status --keys`, which sleeps) is killed at the deadline,
	# with what it started, and its layer is unknown: status itself ends.
	# PMUGUARD_STATUS_CHILD_DEADLINE_MS may only shorten the minute.
	root=$tmp/root
	mkdir -p "$root/etc"
	cat >"$tmp/stub" <<SH
#!/bin/sh
[ "\$1 \${2:-} \${3:-}" = "enforce status --keys" ] || exec "$PMUGUARD" "\$@"
echo \$\$ >"$tmp/stub.pid"
echo schema=1
echo attached=true
sleep 1000 &
exec sleep 1000
SH
	chmod 755 "$tmp/stub"
	rc=0
	PMUGUARD_STATUS_CHILD_DEADLINE_MS=500 PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge timeout 60 \
		"$PMUGUARD" status --json --root "$root" --layer kernel --pmuguard "$tmp/stub" \
		>"$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" != 124 ] || fail "status waited on a child that never answers"
	[ -s "$tmp/stub.pid" ] || fail "the stub never ran: $(cat "$tmp/err")"
	python3 - "$tmp/out" <<'PY' || fail "the kernel layer of a child killed at the deadline: $(cat "$tmp/out" "$tmp/err")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kernel"]["state"] == "unknown", d["kernel"]
assert d["kernel"]["not_attached_because"], d["kernel"]
PY
	# Its process group (the stub and the sleep it left behind) is gone.
	pg=$(cat "$tmp/stub.pid")
	for _ in $(seq 200); do kill -0 -- "-$pg" 2>/dev/null || break; sleep 0.05; done
	! kill -0 -- "-$pg" 2>/dev/null || fail "the child's process group $pg outlived status"
	echo "ok: a child past the deadline is killed with its group; the kernel layer is unknown (exit $rc)"
	;;
status-sigchld-ignored)
	# SIGCHLD ignored is inherited across exec; then no wait sees a child's
	# exit.  status answers the same as with the default disposition.
	root=$tmp/root
	mkdir -p "$root/etc"
	run() {
		PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge SOURCE_DATE_EPOCH=0 python3 -c '
import os, signal, sys
if sys.argv[1] == "ign":
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execv(sys.argv[2], sys.argv[2:])' "$1" "$PMUGUARD" status --keys --root "$root" >"$tmp/$1" 2>&1 || echo "rc=$?" >>"$tmp/$1"
		grep -v '^host=' "$tmp/$1" >"$tmp/$1.k"
	}
	run dfl
	run ign
	grep -qx 'verdict=hazard' "$tmp/dfl.k" || fail "no hazard verdict on the m6i: $(cat "$tmp/dfl")"
	diff -u "$tmp/dfl.k" "$tmp/ign.k" || fail "status with SIGCHLD ignored differs"
	echo "ok: with SIGCHLD ignored, status answers as with it default"
	;;
status-root-stays-in-tree)
	# Under --root every path is the tree's: an absolute link in it
	# (etc -> a directory outside, as a tree's etc -> /etc would be) is
	# resolved in the tree, never followed to this host's files.
	chmod 755 "$tmp"
	mkdir -p "$tmp/root/usr/lib" "$tmp/host/etc" "$tmp/host/lib/pmuguard"
	cp "$LIB" "$tmp/host/lib/pmuguard/libpmuguard.so"
	echo /usr/lib/pmuguard/libpmuguard.so >"$tmp/host/etc/ld.so.preload"
	ln -s "$tmp/host/etc" "$tmp/root/etc"
	ln -s "$tmp/host/lib/pmuguard" "$tmp/root/usr/lib/pmuguard"
	PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge "$PMUGUARD" status --root "$tmp/root" --keys \
		>"$tmp/keys" 2>&1 || :
	grep -qx 'preload.installed=false' "$tmp/keys" ||
		{ cat "$tmp/keys"; fail "status --root read the preload file a link outside the tree leads to"; }
	grep -qx 'preload.loads=true' "$tmp/keys" &&
		{ cat "$tmp/keys"; fail "status --root loaded the library a link outside the tree leads to"; }
	# The same files inside the tree are read.
	rm "$tmp/root/etc" "$tmp/root/usr/lib/pmuguard"
	cp -r "$tmp/host/etc" "$tmp/root/etc"
	cp -r "$tmp/host/lib/pmuguard" "$tmp/root/usr/lib/pmuguard"
	PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge "$PMUGUARD" status --root "$tmp/root" --keys \
		>"$tmp/keys" 2>&1 || :
	if ! grep -qx 'preload.installed=true' "$tmp/keys" || ! grep -qx 'preload.loads=true' "$tmp/keys"; then
		cat "$tmp/keys"
		fail "status --root did not read the tree's own preload file"
	fi
	echo "ok: status --root reads the tree's files, and no link leads it out"
	;;
status-root-load-error-says-where)
	# A tree without the package: the reason names the tree and says no
	# library is there, never the tree's path glued to the library's name
	# ("TREElibpmuguard.so", issue 50, item 4); a library named with
	# --lib and absent from the tree: its path in the tree, one '/' apart,
	# also where the root is given with a trailing '/'.
	mkdir -p "$tmp/tree/etc"
	for root in "$tmp/tree" "$tmp/tree/"; do
		PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge "$PMUGUARD" status --root "$root" --keys \
			>"$tmp/keys" 2>&1 || :
		grep -qx "preload.load_error=libpmuguard.so is not installed in $tmp/tree (in none of the folders the package puts it in)" "$tmp/keys" ||
			fail "--root $root without the package: $(grep load_error "$tmp/keys")"
		PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge "$PMUGUARD" status --root "$root" --keys \
			--lib /usr/lib/pmuguard/libpmuguard.so >"$tmp/keys" 2>&1 || :
		grep -qx "preload.load_error=$tmp/tree/usr/lib/pmuguard/libpmuguard.so does not exist" "$tmp/keys" ||
			fail "--root $root --lib (absent): $(grep load_error "$tmp/keys")"
	done
	ok "status --root names where the library is missing: the tree, or its path in the tree"
	;;
status-textfile-not-prom-said)
	# node_exporter's textfile collector reads only *.prom (issue 50, item
	# 17): another name is written, and said on stderr; a .prom is not.
	mkdir -p "$tmp/root/etc" "$tmp/m"
	chmod 755 "$tmp/m"
	st() { PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge "$PMUGUARD" status --root "$tmp/root" -q "$@"; }
	st --textfile "$tmp/m/p.txt" 2>"$tmp/err" || :
	[ -s "$tmp/m/p.txt" ] || fail "the file was not written"
	grep -qF "pmuguard: --textfile $tmp/m/p.txt: node_exporter's textfile collector reads only files named *.prom" "$tmp/err" ||
		fail "a textfile node_exporter never reads is not said: $(cat "$tmp/err")"
	st --textfile "$tmp/m/p.prom" 2>"$tmp/err" || :
	! grep -q 'reads only files named' "$tmp/err" || fail "a .prom file was said not to be read"
	ok "a --textfile not named *.prom is written and said; a .prom is not"
	;;
status-root-opens-only-regular-files)
	# A tree is data: a device node put where pmuguard reads a file (the
	# preload list, the policy, the library) is never opened, as its
	# driver would run on this host (a watchdog's open arms it); a FIFO at
	# the syslog file never blocks status, whose reports are then said not
	# counted.  The nodes are /dev/null's (1,3): inotify sees every real
	# open of them, and none of an O_PATH one.
	[ "$(id -u)" = 0 ] || skip "mknod needs root"
	command -v inotifywait >/dev/null || skip "inotifywait is not installed (Debian package inotify-tools)"
	t=$tmp/root
	mkdir -p "$t/etc" "$t/usr/lib/pmuguard" "$t/var/log" "$t/dev"
	mknod "$t/etc/ld.so.preload" c 1 3
	mknod "$t/etc/pmuguard.conf" c 1 3
	mknod "$t/usr/lib/pmuguard/libpmuguard.so" c 1 3
	mkfifo "$t/var/log/syslog"
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).bind(sys.argv[1])' \
		"$t/dev/log"
	: >"$tmp/sentinel"
	coproc INO {
		exec inotifywait -m -e open --format '%w%f' "$t/etc/ld.so.preload" "$t/etc/pmuguard.conf" \
			"$t/usr/lib/pmuguard/libpmuguard.so" "$tmp/sentinel" 2>&1 </dev/null
	}
	while IFS= read -r -t 60 line <&"${INO[0]}" && [ "$line" != 'Watches established.' ]; do :; done
	[ "${line:-}" = 'Watches established.' ] || fail "inotifywait never set up its watches"
	export PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge
	rc=0
	timeout 60 "$PMUGUARD" tree --root "$t" --check-load --keys >"$tmp/tree" 2>&1 || rc=$?
	[ "$rc" != 124 ] || fail "tree --root hung"
	rc=0
	timeout 60 "$PMUGUARD" status --root "$t" --keys >"$tmp/status" 2>&1 || rc=$?
	[ "$rc" != 124 ] || fail "status --root hung on a FIFO at /var/log/syslog"
	grep -qx "reports.not_counted_because=$t/var/log/syslog could not be read: it is not a regular file" \
		"$tmp/status" || fail "the syslog FIFO is not said: $(grep '^reports' "$tmp/status")"
	timeout 60 "$PMUGUARD" tree --root "$t" --preload-add /usr/lib/pmuguard/libpmuguard.so \
		--file /etc/ld.so.preload --keys >"$tmp/add" 2>&1 || :
	grep -qx 'outcome=refused' "$tmp/add" || fail "an edit of a device node was not refused: $(cat "$tmp/add")"
	timeout 60 "$PMUGUARD" tree --root "$t" --policy-lock --keys >"$tmp/lock" 2>&1 || :
	grep -qx 'action=not-regular' "$tmp/lock" ||
		fail "a policy that is a device node was not left alone: $(cat "$tmp/lock")"
	# Every event before the sentinel's own open is a device's.
	cat "$tmp/sentinel"
	opens=()
	while IFS= read -r -t 60 line <&"${INO[0]}" && [ "$line" != "$tmp/sentinel" ]; do opens+=("$line"); done
	[ "${line:-}" = "$tmp/sentinel" ] || fail "inotifywait never saw the sentinel's open"
	kill "$INO_PID" 2>/dev/null || :
	[ "${#opens[@]}" = 0 ] || fail "pmuguard opened a device node of the tree: ${opens[*]}"
	ok "no device node of the tree was opened, and the syslog FIFO was said, not waited on"
	;;
status-syslog-odd-lines-counted)
	# The syslog file is read in lines of at most 4 KiB: a longer line, or
	# one with a NUL, is no report and is passed over; the line after it
	# is still read (and counted).
	ts=$(date +'%b %e %H:%M:%S')
	rep="$ts host pmuguard[1]: blocked [data: layer=preload decision=deny type=4 config=0x400]"
	{
		printf 'a\0b\n%s\n' "$rep"
		head -c 10000 /dev/zero | tr '\0' x
		printf '\n%s\n' "$rep"
	} >"$tmp/syslog"
	PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge "$PMUGUARD" status --syslog-file "$tmp/syslog" --keys \
		>"$tmp/keys" 2>/dev/null || :
	grep -qx 'reports.blocks_reported=2' "$tmp/keys" ||
		fail "the reports after odd lines: $(grep '^reports' "$tmp/keys")"
	ok "a line with a NUL or over 4 KiB is passed over; the reports after it are counted"
	;;
status-root-loader-as-nobody)
	# The loader's check under --root preloads the tree's library, whose
	# constructor is the tree's code: as root it runs as uid 65534.
	[ "$(id -u)" = 0 ] || skip "needs root (the drop to uid 65534)"
	command -v cc >/dev/null || skip "no C compiler for the tree's library"
	chmod 755 "$tmp"
	mkdir -p "$tmp/root/etc" "$tmp/root/usr/lib/pmuguard" "$tmp/mark"
	chmod 1777 "$tmp/mark"
	cat >"$tmp/ctor.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
extern char **environ;
/* Its uid, then the environment it was given, one variable a line: the
 * path is built in, since nothing of the caller's reaches it. */
__attribute__((constructor)) static void mark(void)
{
	int fd = open(MARK, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		dprintf(fd, "%u\n", (unsigned)getuid());
		for (char **e = environ; *e; e++)
			dprintf(fd, "%s\n", *e);
		close(fd);
	}
}
C
	cc -shared -fPIC -DMARK="\"$tmp/mark/uid\"" -o "$tmp/root/usr/lib/pmuguard/libpmuguard.so" \
		"$tmp/ctor.c" || skip "cannot build the tree's library"
	echo /usr/lib/pmuguard/libpmuguard.so >"$tmp/root/etc/ld.so.preload"
	# Root's secrets in the caller's environment must not reach the
	# tree's code (issue 38, item 2).
	AWS_SECRET_ACCESS_KEY=sekrit VAULT_TOKEN=sekrit PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge \
		"$PMUGUARD" status --root "$tmp/root" --keys >"$tmp/keys" 2>&1 || :
	[ -f "$tmp/mark/uid" ] || { cat "$tmp/keys"; fail "the loader's check did not run the library"; }
	[ "$(head -n 1 "$tmp/mark/uid")" = 65534 ] ||
		fail "the tree's library ran as uid $(head -n 1 "$tmp/mark/uid"), not 65534"
	! grep -q sekrit "$tmp/mark/uid" ||
		fail "the tree's library was given the caller's environment: $(grep sekrit "$tmp/mark/uid" | cut -d= -f1 | paste -sd ' ')"
	[ "$(sed 1d "$tmp/mark/uid" | grep -v '^LD_PRELOAD=' | paste -sd ' ')" = "PATH=/usr/sbin:/usr/bin:/sbin:/bin" ] ||
		fail "the tree's library got more than a fixed PATH: $(sed 1d "$tmp/mark/uid" | cut -d= -f1 | paste -sd ' ')"
	# A tree nobody may enter (a root-only image directory, mktemp's 0700)
	# and a library only root may read: a private copy of its bytes is
	# checked, still as uid 65534, and the copy is gone afterwards.
	rm "$tmp/mark/uid"
	chmod 600 "$tmp/root/usr/lib/pmuguard/libpmuguard.so"
	chmod 700 "$tmp/root"
	mkdir "$tmp/copies"
	TMPDIR=$tmp/copies PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge \
		"$PMUGUARD" status --root "$tmp/root" --keys >"$tmp/keys" 2>&1 || :
	[ "$(head -n 1 "$tmp/mark/uid" 2>/dev/null)" = 65534 ] ||
		{ cat "$tmp/keys"; fail "a library nobody can read was not checked as uid 65534"; }
	grep -qx 'preload.loads=true' "$tmp/keys" || { cat "$tmp/keys"; fail "its private copy was not taken by the loader"; }
	[ -z "$(ls -A "$tmp/copies" 2>/dev/null)" ] || fail "the private copy was left: $(ls -A "$tmp/copies")"
	echo "ok: the loader's check under --root runs the tree's library as uid 65534 with a fixed PATH alone, a private copy where nobody may read the tree"
	;;
status-textfile-hostile)
	# The textfile's directory and old file, and the reprobe's words, as
	# a hostile or broken caller leaves them.
	root=$tmp/root
	mkdir -p "$root/etc" "$tmp/m"
	st() { PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge timeout 30 "$PMUGUARD" status --root "$root" -q "$@"; }
	# An old file that is a FIFO (no writer) or a link to /dev/zero is
	# not read: status ends, and replaces it.
	mkfifo "$tmp/m/fifo.prom"
	rc=0; st --textfile "$tmp/m/fifo.prom" || rc=$?
	[ "$rc" != 124 ] || fail "status waited on a FIFO at the textfile's path"
	if [ ! -f "$tmp/m/fifo.prom" ] || [ -L "$tmp/m/fifo.prom" ]; then fail "the FIFO was not replaced"; fi
	ln -s /dev/zero "$tmp/m/zero.prom"
	rc=0; st --textfile "$tmp/m/zero.prom" || rc=$?
	[ "$rc" != 124 ] || fail "status read /dev/zero through a link at the textfile's path"
	if [ ! -f "$tmp/m/zero.prom" ] || [ -L "$tmp/m/zero.prom" ]; then fail "the link was not replaced"; fi
	# A directory others may write is refused (not sticky and root's).
	mkdir "$tmp/open" && chmod 777 "$tmp/open"
	status 1 st --textfile "$tmp/open/p.prom"
	grep -q 'writable by group or others' "$tmp/err" || { cat "$tmp/err"; fail "no reason for refusing $tmp/open"; }
	[ ! -e "$tmp/open/p.prom" ] || fail "a file was written in a directory others may write"
	# An exit status that is not a number is a usage error, not success.
	status 2 st --textfile "$tmp/m/p.prom" --reprobe-exit foo
	status 2 st --textfile "$tmp/m/p.prom" --reprobe-exit 256
	status 2 st --textfile "$tmp/m/p.prom" --reprobe-exit ''
	# The reprobe's error: every byte by the one rule, UTF-8, capped.
	long=$(printf 'x%.0s' $(seq 1 300))
	st --textfile "$tmp/m/p.prom" --reprobe-exit 1 --reprobe-error "$(printf 'bad\xff\x01"q\\ \n%s' "$long")"  || :
	python3 - "$tmp/m/p.prom" <<'PY' || fail "the reprobe's error is not a valid label"
import re, sys
data = open(sys.argv[1], 'rb').read()
text = data.decode('utf-8')  # node_exporter refuses a file that is not UTF-8
line = [l for l in text.splitlines() if l.startswith('pmuguard_reprobe_error_info{')][0]
m = re.fullmatch(r'pmuguard_reprobe_error_info\{exit="1",error="((?:[^"\\\n]|\\[\\"n])*)"\} 1', line)
assert m, line
value = re.sub(r'\\(.)', lambda g: {'n': '\n'}.get(g.group(1), g.group(1)), m.group(1))
assert value.startswith('bad\\xff\\x01"q\\x5c \\x0a'), value
assert len(value) <= 200 + 3 * 10, len(value)
PY
	echo "ok: the textfile survives a hostile directory, old file and reprobe error"
	;;
*)
	fail "unknown case $1"
	;;
esac
