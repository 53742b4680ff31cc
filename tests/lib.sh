# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the shell test scripts: how a case says skip, fail and ok.
# Exit codes: 0 pass, 1 fail, 77 skip (meson's convention).
# shellcheck shell=bash

# A skip with its reason; PMUGUARD_TESTS_MUST_RUN=1 (CI) makes it a failure.
skip() {
	echo "SKIP: $*"
	if [ "${PMUGUARD_TESTS_MUST_RUN:-0}" = 1 ]; then
		echo "FAIL: PMUGUARD_TESTS_MUST_RUN=1 turns this skip into a failure"
		exit 1
	fi
	exit 77
}

# A failure, with the tail of whatever the case captured in $tmp.
fail() {
	echo "FAIL: $*"
	local f
	for f in out err log syslog; do
		if [ -n "${tmp:-}" ] && [ -s "$tmp/$f" ]; then
			echo "--- $f"
			tail -n 40 "$tmp/$f"
		fi
	done
	exit 1
}

ok() { echo "ok: $*"; }

# case_tmp: the case's private directory, $tmp, removed when it exits.
case_tmp() {
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
}

# status WANT CMD...: CMD exits WANT (else a failure, with its output);
# its stdout and stderr are left in $tmp/out and $tmp/err.
status() {
	local want=$1 rc=0
	shift
	"$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" = "$want" ] || fail "$* exited $rc, expected $want"
}

# in_world WORLD CPUID [FAULTSIM-OPTION...] -- CMD...: CMD in a private
# mount namespace showing the snapshot WORLD's PMUs, with PERF_CPUID=CPUID
# and PMUGUARD_SNAPSHOT=WORLD (e2e/in-world.sh), under $FAULTSIM, which
# logs each perf_event_open to $tmp/log and faults (exit 86) where WORLD's
# kernel would.  Sets rc; stdout and stderr in $tmp/out and $tmp/err.  A
# faultsim that cannot run here (exit 77) is a skip.
in_world() {
	local world=$1 cpuid=$2
	shift 2
	local fs=()
	while [ "$1" != -- ]; do
		fs+=("$1")
		shift
	done
	shift
	: >"$tmp/log"
	set +e
	unshare -m -- "$(dirname "${BASH_SOURCE[0]}")/e2e/in-world.sh" "$world" "$cpuid" \
		"$FAULTSIM" --log "$tmp/log" "${fs[@]}" -- "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	set -e
	[ "$rc" != 77 ] || skip "faultsim cannot run here: $(cat "$tmp/err")"
}

# `SCRIPT --list`: the case names of the script's `case $VAR in` statement,
# one a line ("a | b)" gives both), so that meson.build takes its test list
# from the script instead of a copy that could miss a case.
#   list_cases SCRIPT VAR
list_cases() {
	awk -v var="$2" '$0 == "case $" var " in" { on = 1; next }
	     on && /^esac/ { exit }
	     on && /^[a-z0-9][a-z0-9. |-]*\)/ {
		sub(/\).*/, ""); n = split($0, l, / *\| */)
		for (i = 1; i <= n; i++) print l[i]
	     }' "$1"
}

# same_document JSON KEYS: the KEY=VALUE lines are the JSON document
# flattened (paths joined by '.', array elements by index, strings with
# control characters and '\' as \xHH, null empty), line for line in order,
# the first schema=1: one model, rendered twice (enforce's documents,
# run --audit's).
same_document() {
	python3 - "$1" "$2" <<'PY' || fail "--keys is not --json flattened: $(diff <(python3 -c 'import sys; print(open(sys.argv[1]).read())' "$1") "$2" | head -5)"
import json, sys
doc = json.load(open(sys.argv[1]))
keys = open(sys.argv[2]).read().splitlines()
out = []
def flat(v, path):
    if isinstance(v, dict):
        for k, x in v.items():
            flat(x, path + [k])
    elif isinstance(v, list):
        for i, x in enumerate(v):
            flat(x, path + [str(i)])
    else:
        if v is None:
            s = ""
        elif v is True or v is False:
            s = "true" if v else "false"
        elif isinstance(v, int):
            s = str(v)
        else:
            s = "".join("\\x%02x" % ord(c) if ord(c) < 0x20 or c in "\x7f\\" else c for c in v)
        out.append(".".join(path) + "=" + s)
flat(doc, [])
assert list(doc)[0] == "schema" and doc["schema"] == 1, doc
assert keys and keys[0] == "schema=1", keys[:1]
assert out == keys, [(a, b) for a, b in zip(out, keys) if a != b][:3] or (len(out), len(keys))
PY
}
