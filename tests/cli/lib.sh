# SPDX-License-Identifier: GPL-2.0-or-later
# The pmuguard command, unprivileged.  Sourced by each tests/cli/CONCERN.sh
# (probe, run, snapshot, status, usage), a `case $1 in` of its own cases:
#   CONCERN.sh CASE      needs $PMUGUARD and $FIXTURES; exit 0, 1 or 77
#   CONCERN.sh --list    its cases
# The helpers (skip, fail, ok, status) are ../lib.sh's.
# shellcheck shell=bash
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
if [ "${1:-}" = --list ]; then list_cases "$0" 1; exit 0; fi
: "${PMUGUARD:?}" "${FIXTURES:?}"
case_tmp
