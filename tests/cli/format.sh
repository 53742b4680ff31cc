#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every C file follows .clang-format, except those written before it, listed
# in tests/format-legacy.txt: new files must follow it, and old ones are not
# reformatted wholesale under the feet of those editing them.
#
#   format.sh SOURCE_ROOT
#
# clang-format 14 is the version the configuration matches (another major
# version lays some constructs out otherwise); CLANG_FORMAT names another
# binary.  Without it the test skips.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
src=$(cd "${1:?usage: format.sh SOURCE_ROOT}" && pwd)

cf=${CLANG_FORMAT:-}
if [ -z "$cf" ]; then
	for c in clang-format-14 clang-format; do
		if command -v "$c" >/dev/null; then cf=$c; break; fi
	done
fi
if [ -z "$cf" ] || ! command -v "$cf" >/dev/null; then
	skip "clang-format is not installed (Debian package clang-format-14)"
fi
version=$("$cf" --version)
major=$(sed -nE 's/.*clang-format version ([0-9]+).*/\1/p' <<<"$version")
[ "$major" = 14 ] || skip "$cf is version ${major:-unknown} ($version); .clang-format matches 14"

legacy=$src/tests/format-legacy.txt
declare -A old=()
while read -r f; do
	case $f in '' | '#'*) continue ;; esac
	old[$f]=1
done <"$legacy"

# The C files of the tree: tracked ones and new ones not yet added, or, in
# an unpacked release, every one outside the build directories.
# shellcheck source=scripts/lib.sh
. "$src/scripts/lib.sh" # tree_files
files=$(tree_files "$src" | tr '\0' '\n' | sed 's|^\./||' | grep -E '\.[ch]$' || true)

out=$(mktemp)
trap 'rm -f "$out"' EXIT
bad=0 checked=0
while IFS= read -r f; do
	[ -f "$src/$f" ] || continue # also the empty line of an empty list
	if [ -n "${old[$f]:-}" ]; then
		# Say when a listed file became clean, so it can come off the list.
		if "$cf" --style=file --dry-run --Werror "$src/$f" >/dev/null 2>&1; then
			echo "note: $f is clean now: take it off tests/format-legacy.txt"
		fi
		continue
	fi
	checked=$((checked + 1))
	if ! (cd "$src" && "$cf" --style=file --dry-run --Werror "$f") >"$out" 2>&1; then
		bad=$((bad + 1))
		echo "FAIL: $f is not formatted as .clang-format says (clang-format -i $f):"
		head -n 30 "$out"
	fi
done <<<"$files"
for f in "${!old[@]}"; do
	[ -f "$src/$f" ] || echo "note: $f is listed in tests/format-legacy.txt but is gone"
done
[ "$bad" = 0 ] || { echo "FAIL: $bad of $checked C files not in tests/format-legacy.txt are not formatted"; exit 1; }
ok "$checked C files not in tests/format-legacy.txt follow .clang-format ($version)"
