#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The cli suite, usage errors and --help's exit codes.
# The suite's preamble: lib.sh here.  usage.sh CASE, or --list.
set -euo pipefail
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

case $1 in
usage-errors)
	status 2 "$PMUGUARD"
	status 2 "$PMUGUARD" frobnicate
	status 2 "$PMUGUARD" probe --bogus
	# One prefix style: no getopt line of its own ("probe: unrecognized ...").
	head -n1 "$tmp/err" | grep -qx "pmuguard: probe: unrecognized option '--bogus'" ||
		fail "option error: $(head -n1 "$tmp/err")"
	! grep -q '^probe:' "$tmp/err" || fail "getopt spoke with its own prefix"
	status 2 "$PMUGUARD" run --mode
	grep -q "^pmuguard: run: option '--mode' needs an argument" "$tmp/err" ||
		fail "missing argument: $(head -n1 "$tmp/err")"
	for c in probe run check snapshot enforce; do
		status 0 "$PMUGUARD" $c --help
		[ "$(wc -l <"$tmp/out")" -gt 3 ] || fail "$c --help is not the full text"
	done
	status 2 "$PMUGUARD" probe --msr --snapshot "$FIXTURES/m6i-16xlarge"
	status 2 "$PMUGUARD" run
	status 2 "$PMUGUARD" snapshot
	status 1 "$PMUGUARD" probe --snapshot /nonexistent
	grep -q "/nonexistent" "$tmp/err" || fail "the error does not name the snapshot"
	status 127 "$PMUGUARD" run -- /nonexistent/cmd
	status 0 "$PMUGUARD" --help
	status 0 "$PMUGUARD" run -- true
	status 7 "$PMUGUARD" run -- sh -c 'exit 7'
	echo "ok: usage 2, internal 1, run returns the command's status"
	;;
help-exit-codes)
	# Every exit code of every command is in its --help.
	status 0 "$PMUGUARD" --help
	for c in 0 1 2 3 4 5 6 7 8 9; do
		grep -q "^  $c  " "$tmp/out" || fail "pmuguard --help does not list exit code $c"
	done
	# Every command the dispatcher takes is in the list (status was missing).
	for c in probe snapshot run check enforce canary status; do
		grep -q "^  $c " "$tmp/out" || fail "pmuguard --help does not list the command $c"
	done
	for c in '126 CMD not' '127 CMD not found'; do
		grep -q "$c" "$tmp/out" || fail "pmuguard --help does not list run's $c"
	done
	status 0 "$PMUGUARD" probe --help
	grep -q '^Exit: 0 .*3 hazard' "$tmp/out" || fail "probe --help: no exit codes"
	for c in run check snapshot; do
		status 0 "$PMUGUARD" "$c" --help
		grep -q '^Exit: ' "$tmp/out" || fail "$c --help: no exit codes"
	done
	rc=0
	"$PMUGUARD" enforce --help >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [ "$rc" = 5 ]; then
		echo "ok: (built without enforce: its --help is the exit 5 it documents)"
	else
		[ "$rc" = 0 ] || fail "enforce --help exited $rc"
		tr '\n' ' ' <"$tmp/out" >"$tmp/help1"
		for want in '4  start, agent: the kernel could not take' '5  built without' \
			'6  status, follow: nothing attached' '7  start, status, ready: attached and denying, but events' \
			'8  status, ready: attached, but the self-test failed' '9  status, ready: attached in audit mode'; do
			grep -qF "$want" "$tmp/help1" || fail "enforce --help does not say '$want'"
		done
	fi
	echo "ok: --help of pmuguard and of each subcommand lists its exit codes"
	;;
esac
