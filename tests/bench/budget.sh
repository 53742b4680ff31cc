#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The system calls the preload costs, counted exactly (strace -f -c), held
# to issue 42's goals:
#   start-up    a /bin/true start with libpmuguard.so preloaded makes at most
#               3 system calls more than with an empty preloaded library
#   decision    in the m6i world, steady state, no supervisor: a denied call
#               at most 2, an allowed one at most 2 besides its own
#               perf_event_open; the same without /proc (a mount namespace
#               without it; skipped where unshare -m is not permitted)
# Decisions are counted as the difference of two loop lengths of bench
# (9 batches each), so start-up and the first call's probe cancel out.
#
#   budget.sh        (LIB, EMPTY, BENCH, FIXTURES from meson)
#
# Exit: 0 pass, 1 fail, 77 skip (a failure when PMUGUARD_TESTS_MUST_RUN=1).
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
: "${LIB:?}" "${EMPTY:?}" "${BENCH:?}" "${FIXTURES:?}"
command -v strace >/dev/null || skip "strace is not installed"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
M6I=$FIXTURES/m6i-16xlarge

# calls CMD...: the number of system calls CMD makes, children included.
# With NOPROC=1, in a mount namespace whose /proc is unmounted.
calls() {
	local pre=()
	[ "${NOPROC:-0}" = 1 ] && pre=(unshare -m -- sh -c 'umount -l /proc && exec "$@"' sh)
	: >"$tmp/c"
	"${pre[@]}" strace -f -c -o "$tmp/c" "$@" >/dev/null 2>&1 || :
	awk '$NF == "total" { print $4 }' "$tmp/c"
}

# per_call PREFIX OP: system calls per bench OP call, in the m6i world.
per_call() {
	local a b
	a=$(calls "$@" 10)
	b=$(calls "$@" 110)
	if [ -z "$a" ] || [ -z "$b" ]; then fail "strace counted nothing for $*"; fi
	echo $(((b - a) / 900)).$(((b - a) % 900 * 10 / 900))
}

floor=$(calls env -u LD_PRELOAD LD_PRELOAD="$EMPTY" /bin/true)
ours=$(calls env LD_PRELOAD="$LIB" /bin/true)
over=$((ours - floor))
[ "$over" -le 3 ] || fail "a /bin/true start makes $over system calls more than over an empty library ($ours against $floor; goal 3)"
ok "start-up: $over system calls over an empty preloaded library ($ours against $floor)"

guard=(env LD_PRELOAD="$LIB" PMUGUARD_SNAPSHOT="$M6I" PMUGUARD_LOG=quiet "$BENCH")
check() { # WHAT MEASURED GOAL
	awk -v m="$2" -v g="$3" 'BEGIN { exit !(m <= g) }' ||
		fail "$1: $2 system calls per call (goal $3)"
	ok "$1: $2 system calls per call (goal $3)"
}
check "denied, with /proc" "$(per_call "${guard[@]}" peo-denied)" 2
check "allowed, with /proc (its own call included)" "$(per_call "${guard[@]}" peo-allowed)" 3
# With logging on (the default), a repeated denial is not said again: no
# getpid for the table of lines said.
check "denied, with /proc, logging on" \
	"$(per_call env LD_PRELOAD="$LIB" PMUGUARD_SNAPSHOT="$M6I" "$BENCH" peo-denied)" 2

if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	check "denied, without /proc" "$(NOPROC=1 per_call "${guard[@]}" peo-denied)" 2
	check "allowed, without /proc (its own call included)" \
		"$(NOPROC=1 per_call "${guard[@]}" peo-allowed)" 3
else
	echo "# without /proc: not counted (needs root for unshare -m)"
fi
