#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Pins what `pmuguard enforce start --json` says for every fixture, as
# pin-reports.sh pins the probe's reports: each folder here gets
# enforce-start.json, indented (python3 -m json.tool, the command's key
# order), so that a changed value is a one-line diff.
#
# start decides from the snapshot, and where its policy wants a guard it
# goes on to the kernel.  So that nothing is ever attached, and the
# document is the same on every machine, each start runs in a user and
# mount namespace of its own (unshare -Urm: no capability over the
# machine's kernel) with a tmpfs over /sys/fs/bpf (not bpffs: start
# refuses there, before it loads anything) and an empty policy file over
# /etc/pmuguard.conf where the machine has one.  A healthy fixture says
# nothing-to-attach (exit 0); a hazardous one, refused (exit 4) with the
# policy it would have attached.  The snapshot's absolute path (start
# keeps it for the guard's rodata) is written @FIXTURES@/NAME.
#
#   tests/snapshots/pin-enforce.sh BUILD_DIR|PMUGUARD          pin
#   tests/snapshots/pin-enforce.sh BUILD_DIR|PMUGUARD --check  diff with the pins
#
# Exit 0, 1 (a difference, or a start that failed), 77 where unshare -Urm
# is not allowed (the cli suite's enforce-start-pinned then skips).  Rerun
# after changing start's document, the policy or a fixture, and read the
# diff (git diff tests/snapshots) before committing it.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 BUILD_DIR|PMUGUARD [--check]" >&2
	exit 2
fi
if [ -f "$1" ] && [ -x "$1" ]; then
	pmuguard=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
else
	pmuguard=$(cd "$1" && pwd)/probe/cli/pmuguard
fi
[ -x "$pmuguard" ] || { echo "$0: no $pmuguard (build first)" >&2; exit 1; }
check=${2:-}
[ -z "$check" ] || [ "$check" = --check ] || { echo "usage: $0 BUILD_DIR|PMUGUARD [--check]" >&2; exit 2; }
cd "$(dirname "$0")"
fixtures=$(pwd -P)

unset PMUGUARD_SNAPSHOT PMUGUARD_SNAPSHOT_DIR PMUGUARD_MODE PMUGUARD_SLOTS PMUGUARD_LOG
export LC_ALL=C
export SOURCE_DATE_EPOCH=0 # generated_at, as pin-reports.sh pins it

# shellcheck disable=SC2016 # expanded by the inner shell
sealed='mount -t tmpfs none /sys/fs/bpf || exit 99
	if [ -e /etc/pmuguard.conf ]; then mount --bind /dev/null /etc/pmuguard.conf || exit 99; fi
	exec "$0" enforce start --json --snapshot "$1"'
if ! unshare -Urm --propagation private sh -c 'mount -t tmpfs none /sys/fs/bpf' 2>/dev/null; then
	echo "SKIP: unshare -Urm (a user and mount namespace with a tmpfs over /sys/fs/bpf) is not allowed here"
	exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/one-line" "$tmp/pinned"
bad=0
for w in */; do
	name=${w%/}
	rc=0
	unshare -Urm --propagation private sh -c "$sealed" "$pmuguard" "$name" \
		>"$tmp/one-line/$name" 2>"$tmp/err" || rc=$?
	if [ "$rc" != 0 ] && [ "$rc" != 4 ]; then
		echo "FAIL: $name: enforce start exited $rc: $(head -n 3 "$tmp/err")"
		bad=1
		rm -f "$tmp/one-line/$name"
	fi
done
# Indented, the path made @FIXTURES@ and the version @VERSION@ (one python
# for all: it starts slowly).
python3 - "$tmp/one-line" "$tmp/pinned" "$fixtures" <<'PY'
import json, os, sys
src, dst, fixtures = sys.argv[1:]
for name in os.listdir(src):
    with open(os.path.join(src, name)) as f:
        doc = json.load(f)
    doc["version"] = "@VERSION@" # a commit's own (scripts/version)
    snap = doc["facts"]["snapshot"]
    if snap and snap.startswith(fixtures + "/"):
        doc["facts"]["snapshot"] = "@FIXTURES@" + snap[len(fixtures):]
    with open(os.path.join(dst, name), "w") as f:
        f.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
PY
n=0
for f in "$tmp/pinned"/*; do
	name=${f##*/}
	n=$((n + 1))
	if [ -z "$check" ]; then
		mv "$f" "$name/enforce-start.json"
	elif [ ! -f "$name/enforce-start.json" ]; then
		echo "FAIL: $name has no enforce-start.json"
		bad=1
	elif ! diff -u --label "$name/enforce-start.json (pinned)" --label "$name/enforce-start.json (printed)" \
		"$name/enforce-start.json" "$f"; then
		echo "FAIL: $name: enforce start's document differs from its pin"
		bad=1
	fi
done
if [ -n "$check" ]; then
	[ "$bad" = 0 ] || exit 1
	echo "ok: enforce start's document of $n fixtures is its pin"
else
	echo "pinned enforce start's document of $n fixtures"
	exit "$bad"
fi
