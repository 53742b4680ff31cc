#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The command's documents (probe/doc/): every form of one from one walker.
# The suite's preamble: lib.sh here.  doc.sh CASE, or --list.
#
# doc-tree-json-is-its-keys    pmuguard tree --json (the facts, with
#                              --check-load, and an edit's outcome) is
#                              what tree.schema.json says, and flattened it
#                              is --keys's lines, which are the default's
# doc-canary-json-is-its-keys  the same for pmuguard canary and
#                              canary.schema.json, the exit the same
# doc-json-keys-one-message    --json and --keys together: exit 2 and one
#                              message, whichever subcommand is asked
set -euo pipefail
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
: "${LIB:?}"
here=$(cd "$(dirname "$0")" && pwd)
schemas=$here/../../probe/doc/schema

# same FORMS_DIR NAME: $FORMS_DIR/NAME.json is valid against its schema,
# and its members flattened (KEY its path joined with '.', null empty,
# control characters and '\' as \xHH) are $FORMS_DIR/NAME.keys's lines.
same() {
	local r=0
	python3 "$here/../e2e/schema-check.py" "$schemas" "$1/$2.json" >"$tmp/schema.out" || r=$?
	[ "$r" = 77 ] || [ "$r" = 0 ] || fail "$2 --json is not what its schema says: $(cat "$tmp/schema.out")"
	[ "$r" = 77 ] || grep -q '^schema-check: 1 document(s) checked, 0 error' "$tmp/schema.out" ||
		fail "$2 --json was not checked: $(cat "$tmp/schema.out")"
	HERE=$here python3 - "$1/$2.json" "$1/$2.keys" <<'PY' || fail "$2: --json flattened is not --keys"
import json, os, sys
sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.environ["HERE"])
import doc_keys
flat = doc_keys.flatten(json.loads(open(sys.argv[1], encoding="utf-8").read()))
keys = open(sys.argv[2], encoding="utf-8").read().splitlines()
if flat != keys:
    import difflib
    print("\n".join(difflib.unified_diff(keys, flat, "--keys", "--json flattened", lineterm="")))
    sys.exit(1)
PY
}

# forms NAME WANT CMD...: CMD with --json, --keys and neither, each
# exiting WANT, into $tmp/NAME.json, .keys and .default.
forms() {
	local name=$1 want=$2 form rc
	shift 2
	for form in json keys default; do
		rc=0
		if [ "$form" = default ]; then
			"$@" >"$tmp/$name.$form" 2>"$tmp/err" || rc=$?
		else
			"$@" "--$form" >"$tmp/$name.$form" 2>"$tmp/err" || rc=$?
		fi
		[ "$rc" = "$want" ] || fail "$* --$form exited $rc, expected $want"
	done
	cmp -s "$tmp/$name.keys" "$tmp/$name.default" || fail "$* --keys is not its default output"
	head -n 1 "$tmp/$name.keys" | grep -qx 'schema=1' || fail "$* --keys does not start schema=1"
}

case $1 in
doc-tree-json-is-its-keys)
	entry=/usr/lib/x86_64-linux-gnu/pmuguard/libpmuguard.so
	mkdir -p "$tmp/root/etc" "$tmp/root/${entry%/*}"
	cp "$LIB" "$tmp/root/$entry"
	printf '%s\n' "$entry" >"$tmp/root/etc/ld.so.preload"
	printf 'mode = off\n' >"$tmp/root/etc/pmuguard.conf"
	forms facts 0 "$PMUGUARD" tree --root "$tmp/root" --check-load
	grep -qx "preload.lists=true" "$tmp/facts.keys" || fail "the tree's preload file does not list $entry"
	same "$tmp" facts
	forms bare 0 "$PMUGUARD" tree --root "$tmp/root" --lib /nowhere/libpmuguard.so
	same "$tmp" bare
	forms edit 0 "$PMUGUARD" tree --root "$tmp/root" --policy-lock --dry-run
	same "$tmp" edit
	ok "pmuguard tree --json: the facts and an edit's outcome, what tree.schema.json says, --keys flattened"
	;;
doc-canary-json-is-its-keys)
	rc=0
	"$PMUGUARD" canary >/dev/null 2>&1 || rc=$?
	case $rc in 0 | 3) ;; *) fail "pmuguard canary exited $rc" ;; esac
	forms canary "$rc" "$PMUGUARD" canary
	same "$tmp" canary
	grep -q '^calls\.0\.answer=' "$tmp/canary.keys" || fail "the canary made no call"
	ok "pmuguard canary --json (exit $rc): what canary.schema.json says, --keys flattened"
	;;
doc-json-keys-one-message)
	for c in "probe" "status" "tree" "canary" "run --audit"; do
		# shellcheck disable=SC2086 # the verb and its option are words
		status 2 "$PMUGUARD" $c --json --keys -- true
		head -n 1 "$tmp/err" | grep -qx "pmuguard: ${c%% *}: --json and --keys print the same document: choose one" ||
			fail "$c --json --keys: $(head -n 1 "$tmp/err")"
	done
	ok "--json with --keys: one message from probe, status, tree, canary and run"
	;;
esac
