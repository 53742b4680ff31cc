#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every pinned real log (tests/snapshots/cap-*/dmesg.txt) pasted in one form
# (forms.py: issue 41's forms and the ones read before them) gives the
# verdict and the findings of the log as it was published: the same state
# and the same finding ids, in order.  Each fixture keeps its other files
# (cpuid.txt, sys/, dmi/), so a form that loses the log's guest lines or
# its PMU block shows as a changed verdict or finding.
#   paste.sh FORM       paste.sh --list
# Env: PMUGUARD (the command), FIXTURES (tests/snapshots).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"
if [ "${1:-}" = --list ]; then
	python3 "$here/forms.py" --list
	exit 0
fi
[ $# = 1 ] || { echo "usage: $0 FORM|--list" >&2; exit 2; }
form=$1
: "${PMUGUARD:?}" "${FIXTURES:?}"
unset PMUGUARD_SNAPSHOT PMUGUARD_MODE PMUGUARD_SLOTS PMUGUARD_LOG
export LC_ALL=C

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The verdict and the findings' ids, one a line.
judged() {
	"$PMUGUARD" probe --keys --snapshot "$1" | grep -E '^(state|findings\.[0-9]+\.id)='
}

n=0 changed=0 bad=0
for dir in "$FIXTURES"/cap-*/; do
	name=$(basename "$dir")
	[ -f "$dir/dmesg.txt" ] || continue
	case $name in cap-form-*) continue ;; esac # a real log already pasted in a form
	w=$tmp/$name
	mkdir "$w"
	for f in "$dir"*; do
		case $(basename "$f") in
		dmesg.txt | report.txt | report.json | enforce-start.json | expected) ;;
		*) cp -R "$f" "$w/" ;;
		esac
	done
	python3 "$here/forms.py" "$form" <"$dir/dmesg.txt" >"$w/dmesg.txt"
	cmp -s "$dir/dmesg.txt" "$w/dmesg.txt" || changed=$((changed + 1))
	judged "$dir" >"$tmp/want"
	judged "$w" >"$tmp/got" || true
	if ! diff -u --label "$name (as published)" --label "$name ($form)" \
		"$tmp/want" "$tmp/got" >"$tmp/diff"; then
		cat "$tmp/diff"
		bad=$((bad + 1))
	fi
	rm -rf "$w"
	n=$((n + 1))
done
[ "$n" -gt 10 ] || fail "only $n real logs under $FIXTURES"
# A form that touched no log proves nothing.
[ "$changed" -gt 10 ] || fail "$form changed only $changed of the $n logs"
[ "$bad" = 0 ] || fail "$form: $bad of $n real logs read otherwise than as published"
ok "$form: all $n real logs ($changed of them changed by the form) read as published"
