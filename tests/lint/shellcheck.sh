#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every shell script under scripts/ and tests/ is shellcheck-clean, at every
# severity: the *.sh files and those whose first line runs sh or bash.
# It runs from the source root with -x, so that the source=PATH directives,
# written from there, are followed.  A finding where the code is right
# carries its own disable=SCxxxx directive, with the reason.
#
#   tests/lint/shellcheck.sh SOURCE_ROOT
#
# Without shellcheck (Debian package shellcheck, in scripts/lib.sh's list)
# the test skips.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
src=$(cd "${1:?usage: shellcheck.sh SOURCE_ROOT}" && pwd)
command -v shellcheck >/dev/null || skip "shellcheck is not installed (Debian package shellcheck)"

# The files of the tree: tracked ones and new ones not yet added, or, in an
# unpacked release, every one outside the build directories.
# shellcheck source=scripts/lib.sh
. "$src/scripts/lib.sh" # tree_files
files=()
while IFS= read -r -d '' f; do
	f=${f#./}
	case $f in scripts/* | tests/*) ;; *) continue ;; esac
	[ -f "$src/$f" ] || continue
	case $f in
	*.sh) ;;
	*) head -n 1 "$src/$f" | grep -qE '^#!.*[/ ](ba|da)?sh( |$)' || continue ;;
	esac
	files+=("$f")
done < <(tree_files "$src")
[ "${#files[@]}" -gt 0 ] || fail "no shell scripts under $src/scripts and $src/tests"

out=$(mktemp)
trap 'rm -f "$out"' EXIT
if ! (cd "$src" && shellcheck -x -f gcc "${files[@]}") >"$out" 2>&1; then
	cat "$out"
	fail "$(grep -c . "$out") shellcheck findings in $(cut -d: -f1 "$out" | sort -u | wc -l) of ${#files[@]} shell scripts"
fi
ok "${#files[@]} shell scripts under scripts/ and tests/ are shellcheck-clean ($(shellcheck --version | sed -n 's/^version: //p'))"
