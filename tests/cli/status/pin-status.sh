#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Pins `pmuguard status` whole in a few worlds (worlds.sh): the text, the
# JSON document, its keys, the metrics and the exit code of each, in
# pinned/.  The cli suite (cli/status.sh status-pinned) diffs them on every run.
#
#   tests/cli/status/pin-status.sh BUILD_DIR
#
# Rerun after changing probe/status/ and read the diff (git diff
# tests/cli/status) before committing it.
set -euo pipefail
[ $# = 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$here/pinned"
mkdir "$here/pinned"
"$here/worlds.sh" "$build/probe/cli/pmuguard" "$build/shim/libpmuguard.so" \
	"$here/../../snapshots" "$here/pinned"
rm -f "$here"/pinned/*.one-line.json
