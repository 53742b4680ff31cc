#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The .deb of this tree, for the suites that install it (tests/e2e/package.sh,
# tests/vm/enforce/deploy.sh): built by scripts/build-deb once per content of the
# tree and kept in CACHE, so that two suites do not build it twice; the unit
# suite, which dpkg-buildpackage would run, runs on its own.  Prints the
# path of the .deb; exit 1 with the build's log on failure.
#
#   tests/deb.sh CACHE
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
cache=${1:?usage: deb.sh CACHE}
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
# The content of every file scripts/build-deb copies, but tests/: no test
# goes into the package, and a test's edit need not rebuild it.
# shellcheck source=scripts/lib.sh
. "$src/scripts/lib.sh"
# And its version (a commit changes it, the content may not).
key=$( (tree_files "$src" | grep -zv '^\(\./\)\{0,1\}tests/' | sort -z |
	(cd "$src" && xargs -0 -r sha1sum); sh "$src/scripts/version") | sha1sum | cut -c1-16)
if [ ! -e "$cache/$key/done" ]; then
	find "$cache" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +
	DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:+$DEB_BUILD_OPTIONS }nocheck" \
		"$src/scripts/build-deb" "$cache/$key" >/dev/null
	: >"$cache/$key/done"
fi
ls "$cache/$key"/pmuguard_*.deb
