#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Pins the whole report of every fixture, as lscpu's tests pin their dumps:
# each folder here gets report.txt (`pmuguard probe --snapshot NAME`) and
# report.json (the same with --json), run from this folder so that the
# snapshot is named NAME, never a path of the build or source tree.  The
# JSON is kept indented (python3 -m json.tool, the probe's key order), one
# value a line, so that a changed value is a one-line diff; the probe
# prints it on one line, and the test checks those bytes too.  The cli
# suite (cli/probe.sh reports-pinned) diffs both on every run.
#
#   tests/snapshots/pin-reports.sh BUILD_DIR     (e.g. build-report)
#
# Rerun after changing the report or a fixture, and read the diff
# (git diff tests/snapshots) before committing it: every changed word of
# every report is there.
set -euo pipefail
[ $# = 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
pmuguard=$(cd "$1" && pwd)/probe/cli/pmuguard
[ -x "$pmuguard" ] || { echo "$0: no $pmuguard (build first)" >&2; exit 1; }
cd "$(dirname "$0")"

# The settings the probe takes from outside must not reach the report.
unset PMUGUARD_SNAPSHOT PMUGUARD_MODE PMUGUARD_SLOTS PMUGUARD_LOG
export LC_ALL=C
# generated_at: a fixed time (the reproducible-builds convention).
export SOURCE_DATE_EPOCH=0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The build's version (scripts/version: a commit's own) pinned as @VERSION@.
version=$("$pmuguard" --version) version=${version#pmuguard }
version_re=$(printf '%s' "$version" | sed 's/[.]/[.]/g')
n=0
for w in */; do
	name=${w%/}
	"$pmuguard" probe --snapshot "$name" >"$tmp/report.txt"
	"$pmuguard" probe --json --snapshot "$name" >"$tmp/one-line.json"
	python3 -m json.tool --indent 2 --no-ensure-ascii "$tmp/one-line.json" |
		sed "s/^  \"version\": \"$version_re\",\$/  \"version\": \"@VERSION@\",/" >"$tmp/report.json"
	mv "$tmp/report.txt" "$name/report.txt"
	mv "$tmp/report.json" "$name/report.json"
	n=$((n + 1))
done
echo "pinned the reports of $n fixtures"
