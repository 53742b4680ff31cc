#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `pmuguard status` in a few worlds, each a tree under --root (so no
# canary runs and no process of this host is counted) with the facts of a
# reference snapshot and, for the kernel layer, a stub command answering
# `enforce status --keys` as the real one does:
#
#   worlds.sh PMUGUARD LIB FIXTURES OUTDIR
#
# writes OUTDIR/NAME.{txt,json,keys,prom,rc}: the text, the document
# (indented), its keys, the metrics and the exit code, with what changes
# from run to run masked (the tree's path as ROOT, the version as
# @VERSION@, host, the textfile's timestamps; generated_at is
# SOURCE_DATE_EPOCH's).  pin-status.sh writes
# them here (pinned/), cli/status.sh status-pinned diffs them.
set -euo pipefail
[ $# = 4 ] || { echo "usage: $0 PMUGUARD LIB FIXTURES OUTDIR" >&2; exit 2; }
pmuguard=$1 lib=$2 fixtures=$3 out=$4
unset PMUGUARD_SNAPSHOT PMUGUARD_MODE PMUGUARD_SLOTS PMUGUARD_LOG PMUGUARD_SNAPSHOT_DIR
export LC_ALL=C SOURCE_DATE_EPOCH=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The build's version (scripts/version: a commit's own) as @VERSION@.
version=$("$pmuguard" --version) version=${version#pmuguard }
version_re=$(printf '%s' "$version" | sed 's/[.]/[.]/g')
# The loader's check under --root runs as uid 65534: the trees must be
# readable to it, as a real tree's /usr/lib is.
chmod 755 "$tmp"

# A stub of the command for `enforce status --keys` (STUB: attached,
# existing, detached); everything else is the real one.  Attached, it
# names its state as the real one does (`state`); detached, it says it by
# its exit alone, as a pmuguard before that key did: status reads both.
cat >"$tmp/stub" <<SH
#!/bin/sh
[ "\$1 \${2:-} \${3:-}" = "enforce status --keys" ] || exec "$pmuguard" "\$@"
echo schema=1
case \$STUB in
attached | existing)
	printf '%s\\n' state=attached attached=true error= protects=true verified=true verification.ran=true \\
		verification.checked_at=1764676900 verification.checked_utc=2025-12-02T12:01:40Z \\
		started=1764676800 started_utc=2025-12-02T12:00:00Z why= attach=lsm mode=auto \\
		enforce=true core_types.0=4 totals.denied=7 totals.audited=0 totals.reports_lost=0 \\
		by_encoding.0.decision=denied by_encoding.0.uid=0 by_encoding.0.pmu_type=4 \\
		by_encoding.0.config=0x0400 by_encoding.0.calls=5 'by_encoding.0.last_comm=perf\\x1b[0m' by_encoding.1.decision=denied \\
		by_encoding.1.uid=1000 by_encoding.1.pmu_type=4 by_encoding.1.config=0x400 \\
		by_encoding.1.calls=1 by_encoding.1.last_comm=toplev by_encoding.2.decision=denied by_encoding.2.uid=0 \\
		by_encoding.2.pmu_type=4 by_encoding.2.config=0x8000 by_encoding.2.calls=1 \\
		existing.known=true
	if [ "\$STUB" = existing ]; then
		printf '%s\\n' existing.hits=3 existing.unguarded=true existing.events.0.pid=321 \\
			'existing.events.0.comm=perf\\x1b[0m' existing.events.1.pid=654 existing.events.1.comm=toplev
		exit 7
	fi
	printf '%s\\n' existing.hits=0 existing.unguarded=false
	exit 0 ;;
*)
	printf '%s\\n' attached=false error= protects=false verified=false \\
		'why=nothing is pinned at /sys/fs/bpf/pmuguard/link' policy.would_attach=true
	exit 6 ;;
esac
SH
chmod 755 "$tmp/stub"

# world NAME SNAPSHOT STUB PRELOADED ARGS...: one tree, run four ways.
world() {
	local name=$1 snap=$2 stub=$3 pre=$4 root=$tmp/$1/root
	shift 4
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard" "$root/var/log" "$tmp/$name/metrics"
	cp "$lib" "$root/usr/lib/pmuguard/libpmuguard.so"
	if [ "$pre" = yes ]; then
		printf '/usr/lib/libkeep.so\n/usr/lib/pmuguard/libpmuguard.so\n' >"$root/etc/ld.so.preload"
		touch -d @0 "$root/etc/ld.so.preload"
	fi
	printf '%s\n' \
		'Dec  1 00:00:01 h pmuguard[12]: blocked perf_event_open(slots) [data: layer=preload decision=deny type=4 config=0x400 undelivered=0]' \
		'Dec  1 00:00:02 h pmuguard[13]: blocked perf_event_open(slots) [data: layer=preload decision=deny type=4 config=0x400 undelivered=2]' \
		'Dec  1 00:00:03 h pmuguard[14]: blocked perf_event_open(td) [data: layer=preload decision=deny type=4 config=0x8000 undelivered=5000]' \
		'Dec  1 00:00:04 h pmuguard[15]: forged [data: layer=preload decision=deny type=x config=0x8000 undelivered=0]' \
		'Dec  1 00:00:05 h other[16]: not ours [data: layer=preload decision=deny type=4 config=0x400]' \
		>"$root/var/log/syslog"
	local rc=0
	run() { PMUGUARD_SNAPSHOT=$snap STUB=$stub "$pmuguard" status --root "$root" --pmuguard "$tmp/stub" "$@"; }
	run "$@" >"$tmp/$name/txt" 2>&1 || rc=$?
	echo "$rc" >"$out/$name.rc"
	run --json "$@" --textfile "$tmp/$name/metrics/p.prom" >"$tmp/$name/json" 2>/dev/null || :
	run --keys "$@" >"$tmp/$name/keys" 2>/dev/null || :
	local mask="s|$tmp/$name/root|ROOT|g; s|$version_re|@VERSION@|g"
	sed "$mask" "$tmp/$name/txt" >"$out/$name.txt"
	python3 - "$tmp/$name/json" <<'PY' | sed "$mask" >"$out/$name.json"
import json, sys
d = json.load(open(sys.argv[1]))
d["host"] = "HOST"
print(json.dumps(d, indent=2, ensure_ascii=False))
PY
	sed -e "$mask" -e 's/^host=.*/host=HOST/' "$tmp/$name/keys" >"$out/$name.keys"
	sed -E -e "$mask" -e 's/^(pmuguard_status_timestamp_seconds) [0-9]+$/\1 TIME/' \
		"$tmp/$name/metrics/p.prom" >"$out/$name.prom"
	# One file in the metrics' directory: no temporary left beside it.
	[ "$(find "$tmp/$name/metrics" -type f | wc -l)" = 1 ] || { echo "$name: a temporary was left" >&2; exit 1; }
	cp "$tmp/$name/json" "$out/$name.one-line.json"
}

# m6i, the preload listed and loadable: guarded (no canary under --root).
world m6i-preload "$fixtures/m6i-16xlarge" detached yes --syslog-file "$tmp/m6i-preload/root/var/log/syslog"
# m6i, nothing installed, the kernel layer asked for: attached, verified.
world m6i-kernel "$fixtures/m6i-16xlarge" attached no --layer kernel
# m6i, the kernel layer attached, events of the class opened before it: PARTLY.
world m6i-kernel-existing "$fixtures/m6i-16xlarge" existing no --layer kernel
# m6i, nothing: the hazard, unguarded.
world m6i-none "$fixtures/m6i-16xlarge" detached no
# Ice Lake-SP bare metal: nothing needed.
world icx-none "$fixtures/icx-8375c-metal" detached no
# No verdict (a snapshot that is not there): unknown, 4.
world unknown "$tmp/nowhere" detached yes
