#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The units' `systemd-analyze security` scores that scripts/systemd/README.md
# states are the ones the shipped units get: each unit file (the .in with
# the package's paths) scored with --offline=true, which needs no running
# manager, and compared with the README's table.  The scores depend on
# systemd's version: the table says which one it was measured with, and
# another version is a skip with the reason (a failure where
# PMUGUARD_TESTS_MUST_RUN=1 only if the documented version is here).
# Exit 0 pass, 1 fail, 77 skip.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
units=$here/../../scripts/systemd
readme=$units/README.md
command -v systemd-analyze >/dev/null || skip "systemd-analyze is missing (Debian package systemd)"
case_tmp

# "| `pmuguard-enforce.service` | 9.5 UNSAFE | 2.6 OK |": the unit and its score now.
# shellcheck disable=SC2016 # backquotes of markdown, not a command
want=$(sed -n 's/^| `\(pmuguard-[a-z]*\.service\)` | [0-9.]* [A-Z]* | \([0-9.]*\) [A-Z]* |$/\1 \2/p' "$readme")
[ "$(printf '%s\n' "$want" | grep -c .)" = 3 ] ||
	fail "scripts/systemd/README.md: no table of the three units' scores (unit, before, after): $want"
# shellcheck disable=SC2016 # backquotes of markdown, not a command
documented=$(sed -n 's/.*`systemd-analyze security --offline=true` (systemd \([0-9]*\)).*/\1/p' "$readme" | head -n 1)
[ -n "$documented" ] || fail "scripts/systemd/README.md does not say which systemd measured the scores"
have=$(systemd-analyze --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')
[ "$have" = "$documented" ] ||
	skip "systemd $have here; the README's scores are systemd $documented's (another version weighs the settings otherwise)"

bad=0
while read -r unit score; do
	sed -e 's|@BINDIR@|/usr/bin|g' -e 's|@SBINDIR@|/usr/sbin|g' "$units/$unit.in" >"$tmp/$unit"
	got=$(cd "$tmp" && timeout 120 systemd-analyze security --offline=true --no-pager "$unit" 2>&1 |
		sed -n 's/^→ Overall exposure level for .*: \([0-9.]*\) .*/\1/p') || :
	[ -n "$got" ] || fail "systemd-analyze security --offline=true $unit gave no score"
	if [ "$got" = "$score" ]; then
		ok "$unit: $got, as scripts/systemd/README.md says"
	else
		echo "FAIL: $unit scores $got; scripts/systemd/README.md says $score"
		bad=1
	fi
done <<<"$want"
[ "$bad" = 0 ] || fail "the README's scores are stale: measure with systemd-analyze security --offline=true and update its table"
