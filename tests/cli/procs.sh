#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pmuguard status's /proc scan (probe/status/status_procs.c) against the
# processes any user can start: its work is bounded, and what it did not
# read is said as unknown, never as mapped or unmapped.  procs.sh CASE;
# needs $PMUGUARD, $FIXTURES, $LIB and $MAPS_FLOOD.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
if [ "${1:-}" = --list ]; then list_cases "$0" 1; exit 0; fi
: "${PMUGUARD:?}" "${FIXTURES:?}" "${LIB:?}" "${MAPS_FLOOD:?}"
tmp=$(mktemp -d)
ns=
cleanup() {
	# unshare --kill-child takes the namespace's first process with it,
	# and the kernel every process of the namespace with that one.
	if [ -n "$ns" ]; then kill "$ns" 2>/dev/null || :; wait "$ns" 2>/dev/null || :; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

case $1 in
status-procs-bounded)
	# A process of another user (uid 65534) with about 15 MB of
	# /proc/PID/maps (4,000 mappings of a file whose path is 3,900
	# bytes): its maps are read up to the cap (4 MiB) and no further, and
	# it is counted as not read (unknown), not among the processes that
	# do not map the library (those a restart would guard).  In a PID
	# namespace of its own, so the processes are known: the namespace's
	# shell, the flood and status itself.
	[ "$(id -u)" = 0 ] || skip "needs root: another user's process, in a PID namespace of its own"
	unshare --pid --fork --mount-proc true 2>"$tmp/err" ||
		skip "no PID namespace here (unshare --pid: $(cat "$tmp/err"))"
	chmod 755 "$tmp"
	mkdir "$tmp/nobody"
	chown 65534:65534 "$tmp/nobody"
	printf '%s\n' "$LIB" >"$tmp/ld.so.preload"
	cat >"$tmp/inner.sh" <<'SH'
set -eu
setpriv --reuid=65534 --regid=65534 --clear-groups --no-new-privs \
	"$MAPS_FLOOD" "$T/nobody" 4000 "$T/nobody/ready" &
flood=$!
# Ready when its file exists; a flood that died never will be.
while [ ! -e "$T/nobody/ready" ]; do
	kill -0 "$flood" 2>/dev/null || { echo "maps-flood exited" >&2; exit 1; }
	sleep 0.05
done
lines=$(wc -l <"/proc/$flood/maps")
echo "$lines" >"$T/lines"
run() { PMUGUARD_SNAPSHOT=$FIXTURES/m6i-16xlarge "$PMUGUARD" status --lib "$LIB" --preload "$T/ld.so.preload" "$@"; }
rc=0
run --keys >"$T/keys" 2>"$T/keys.err" || rc=$?
echo "$rc" >"$T/keys.rc"
rc=0
run --json >"$T/json" 2>/dev/null || rc=$?
rc=0
run >"$T/out" 2>&1 || rc=$?
kill "$flood"
SH
	T=$tmp MAPS_FLOOD=$MAPS_FLOOD PMUGUARD=$PMUGUARD LIB=$LIB FIXTURES=$FIXTURES \
		unshare --pid --fork --mount-proc --kill-child bash "$tmp/inner.sh" &
	ns=$!
	wait "$ns" || { ns=; fail "the namespace's script failed"; }
	ns=
	[ "$(cat "$tmp/lines")" -ge 4000 ] || fail "the flood's maps has $(cat "$tmp/lines") lines, not 4000"
	key() { sed -n "s/^preload\.$1=//p" "$tmp/keys"; }
	cat "$tmp/keys.err" >>"$tmp/err"
	grep -q '^preload\.processes_not_read=' "$tmp/keys" ||
		fail "no preload.processes_not_read key: $(grep '^preload\.processes' "$tmp/keys" | tr '\n' ' ')"
	[ "$(key processes_not_read)" = 1 ] ||
		fail "processes_not_read=$(key processes_not_read), not 1 (the flood)"
	# The shell and status itself map no library; the flood is neither
	# mapping nor not mapping: unknown.
	counts="$(key processes_mapping) $(key processes_not_mapping) $(key processes_unreadable)"
	[ "$counts" = "0 2 0" ] ||
		fail "the flood counted as read: $(grep '^preload\.processes' "$tmp/keys" | tr '\n' ' ')"
	ok "the flood's maps were not read whole: not_read=1, not_mapping=2"
	cp "$tmp/out" "$tmp/log"
	grep -q '^pmuguard: preload: 0 running processes map it; 2 do not ' "$tmp/out" ||
		fail "the text counts the flood as mapping or not mapping"
	grep -q '; 1 not read whole' "$tmp/out" || fail "the text does not say 1 process was not read"
	ok "the text says 2 do not map it and 1 was not read"
	rc=0
	python3 "$(dirname "$0")/../e2e/schema-check.py" \
		"$(dirname "$0")/../../probe/doc/schema" "$tmp/json" >"$tmp/schema.out" || rc=$?
	if [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
		cat "$tmp/schema.out"
		fail "the document is not what its schema says"
	fi
	python3 - "$tmp/json" <<'PY' || fail "the document's counts"
import json, sys
p = json.load(open(sys.argv[1]))["preload"]
assert (p["processes_mapping"], p["processes_not_mapping"], p["processes_not_read"]) == (0, 2, 1), p
PY
	ok "the document says the same, as its schema says"
	;;
esac
