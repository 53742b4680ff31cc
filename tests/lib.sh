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
