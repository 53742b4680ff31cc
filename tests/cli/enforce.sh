#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `pmuguard enforce` on the host that builds it: whatever this kernel
# allows, nothing of ours may stay attached, pinned or mounted.  Cases that
# need bpffs mount a private one in a private mount namespace (unshare -m),
# which goes away with the case; the host's /sys/fs/bpf is never touched.
# The real attach is tested in the VM (tests/vm/enforce/).
#   enforce.sh CASE; needs $PMUGUARD and $FIXTURES ($ENFORCE=0: built without).
set -euo pipefail
# JSON and keys of two runs are compared: one generated_at for all (cli_utc_now).
export SOURCE_DATE_EPOCH=0
: "${PMUGUARD:?}" "${FIXTURES:?}"
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # expected-status CMD...
	local want=$1 rc=0
	shift
	"$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" = "$want" ] || fail "$* exited $rc, expected $want"
}

# refused_agent FILE: `enforce agent --textfile FILE` on the m6i's facts,
# in a private namespace with a bpffs of its own, where this host's kernel
# refuses the guard; its exit in rc, output in $tmp/out and $tmp/err.
# Skips where no bpffs can be mounted or the kernel lets the guard attach
# (the refusal is shown in tests/vm then).
refused_agent() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	private_ns sh -c 'mount -t bpf bpf /sys/fs/bpf || exit 99
		exec timeout 120 "$0" enforce agent --snapshot "$1" --textfile "$2"' \
		"$PMUGUARD" "$FIXTURES/m6i-16xlarge" "$1" >"$tmp/out" 2>"$tmp/err" && rc=0 || rc=$?
	[ "$rc" != 99 ] || skip "cannot mount a private bpffs"
	if [ "$rc" = 0 ] || [ "$rc" = 124 ]; then
		skip "this kernel let the guard attach (the refusal is shown in tests/vm)"
	fi
}

need_enforce() {
	[ "${ENFORCE:-1}" = 1 ] || skip "built without enforce"
}

# CMD run as root in a private mount namespace.
private_ns() {
	[ "$(id -u)" = 0 ] || skip "needs root (a private bpffs mount)"
	unshare -m --propagation private true 2>/dev/null || skip "unshare -m is not allowed here"
	unshare -m --propagation private "$@"
}

case $1 in
built-without)
	[ "${ENFORCE:-1}" = 0 ] || skip "built with enforce"
	for sub in start stop status follow; do
		run 5 "$PMUGUARD" enforce "$sub"
		grep -q 'built without kernel enforcement' "$tmp/err" || fail "$sub: no reason given"
	done
	ok "every subcommand exits 5 and says why"
	;;
usage)
	need_enforce
	run 2 "$PMUGUARD" enforce
	run 2 "$PMUGUARD" enforce frobnicate
	run 2 "$PMUGUARD" enforce start --mode preload
	run 2 "$PMUGUARD" enforce stop now
	run 0 "$PMUGUARD" enforce --help
	grep -q 'enforce start' "$tmp/out" || fail "no usage text"
	# The exit statuses are documented once, in the README's table for
	# `pmuguard enforce`; --help and pmuguard(1) list the same codes.
	# shellcheck disable=SC2016 # the backticks are the README's, not a command
	codes=$(sed -n '/^`pmuguard enforce`$/,/^`pmuguard-fleet`$/s/^| \([0-9][0-9]*\) |.*/\1/p' \
		"$here/../README.md" | tr '\n' ' ')
	[ "$codes" = "0 1 2 4 5 6 7 8 9 " ] || fail "README's enforce exit table lists: $codes"
	for c in $codes; do
		grep -q "^  $c  " "$tmp/out" || fail "--help does not list exit $c"
		sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$here/../probe/cli/pmuguard.1" | grep -qx "\.B $c" ||
			fail "pmuguard(1) does not list exit $c"
	done
	grep -q '^  7  start, status, ready: attached and denying, but events of the class' "$tmp/out" ||
		fail "--help: exit 7 does not name ready"
	grep -q '^  9  status, ready: attached in audit mode: it blocks nothing' "$tmp/out" ||
		fail "--help does not document exit 9 (audit mode)"
	grep -q -- '--keys' "$tmp/out" || fail "--help does not document --keys"
	# --json with --keys: the one message every subcommand gives (cli-doc-*)
	for v in status start; do
		run 2 "$PMUGUARD" enforce $v --keys --json
		head -n 1 "$tmp/err" | grep -qx "pmuguard: enforce $v: --json and --keys print the same document: choose one" ||
			fail "enforce $v --keys --json: $(head -n 1 "$tmp/err")"
	done
	run 2 "$PMUGUARD" enforce status --bogus
	run 2 "$PMUGUARD" enforce status extra
	ok "usage errors exit 2 (--json and --keys together too); --help and pmuguard(1) list the README's exit statuses; --help documents --keys"
	;;
status-nothing-attached)
	need_enforce
	# Whatever this host has, /sys/fs/bpf/pmuguard is not ours to find.
	[ ! -e /sys/fs/bpf/pmuguard ] || skip "/sys/fs/bpf/pmuguard exists on this host"
	run 6 "$PMUGUARD" enforce status
	grep -q '^pmuguard enforce: not attached: nothing is pinned at /sys/fs/bpf/pmuguard/link' \
		"$tmp/out" || fail "status does not say what is missing"
	grep -q '^  policy: ' "$tmp/out" || fail "status does not say what the policy wants"
	grep -q '^  kernel: BTF ' "$tmp/out" || fail "status does not say what the kernel offers"
	# Events are judged with an attached guard's rule: none here, so no look.
	if grep -q 'existing events' "$tmp/out"; then fail "status judged events without a guard"; fi
	run 0 "$PMUGUARD" enforce stop
	grep -q 'nothing was attached' "$tmp/out" || fail "stop with nothing attached"
	# The same as data, with the same exit status.
	run 6 "$PMUGUARD" enforce status --keys
	cp "$tmp/out" "$tmp/keys"
	run 6 "$PMUGUARD" enforce status --json
	cp "$tmp/out" "$tmp/json"
	same_document "$tmp/json" "$tmp/keys"
	for k in exit=6 attached=false 'why=nothing is pinned at /sys/fs/bpf/pmuguard/link' policy.would_attach= \
		policy.mode= policy.reason= kernel.btf= kernel.bpffs=; do
		grep -q "^$k" "$tmp/keys" || fail "status --keys: no $k"
	done
	if grep -q '^existing' "$tmp/keys"; then fail "status --keys judged events without a guard"; fi
	ok "status says why nothing is attached (exit 6), as text, JSON and keys; stop is idempotent"
	;;
healthy-attaches-nothing)
	need_enforce
	for w in icx-8375c-metal amd-epyc-guest m5-24xlarge; do
		run 0 "$PMUGUARD" enforce start --snapshot "$FIXTURES/$w"
		grep -q '^pmuguard: enforce: nothing to attach' "$tmp/out" || fail "$w: attached?"
	done
	run 0 "$PMUGUARD" enforce start --mode off --snapshot "$FIXTURES/m6i-16xlarge"
	grep -q 'nothing to attach (mode off' "$tmp/out" || fail "mode off attached"
	run 0 "$PMUGUARD" enforce start --keys --snapshot "$FIXTURES/icx-8375c-metal"
	cp "$tmp/out" "$tmp/keys"
	run 0 "$PMUGUARD" enforce start --json --snapshot "$FIXTURES/icx-8375c-metal"
	cp "$tmp/out" "$tmp/json"
	same_document "$tmp/json" "$tmp/keys"
	for k in outcome=nothing-to-attach exit=0 error= attach= mode=auto enforce=false facts.state=safe \
		facts.source=snapshot "facts.snapshot=$FIXTURES/icx-8375c-metal" 'reason=.' earlier.attached=false; do
		grep -q "^$k" "$tmp/keys" || fail "start --keys: no $k"
	done
	run 0 "$PMUGUARD" enforce start --keys --mode off --snapshot "$FIXTURES/m6i-16xlarge"
	{ grep -qx 'mode=off' "$tmp/out" && grep -qx 'outcome=nothing-to-attach' "$tmp/out"; } || fail "start --keys --mode off"
	ok "a healthy world and mode off load nothing (text, JSON and keys say so)"
	;;
bpffs-not-mounted)
	need_enforce
	# A tmpfs over /sys/fs/bpf, in a private namespace: not bpffs.
	# shellcheck disable=SC2016 # expanded by the inner shell
	private_ns sh -c 'mount -t tmpfs none /sys/fs/bpf && exec "$0" enforce start \
		--snapshot "$1"' "$PMUGUARD" "$FIXTURES/m6i-16xlarge" >"$tmp/out" 2>"$tmp/err" &&
		rc=0 || rc=$?
	[ "$rc" = 4 ] || fail "exit $rc, expected 4"
	grep -q 'bpffs is not mounted at /sys/fs/bpf' "$tmp/err" || fail "reason missing"
	grep -q 'Nothing of this start was left attached or pinned' "$tmp/err" || fail "no word on cleanup"
	# As data: outcome refused, exit 4, the reason in error.
	# shellcheck disable=SC2016 # expanded by the inner shell
	private_ns sh -c 'mount -t tmpfs none /sys/fs/bpf && exec "$0" enforce start --keys \
		--snapshot "$1"' "$PMUGUARD" "$FIXTURES/m6i-16xlarge" >"$tmp/out" 2>"$tmp/err" &&
		rc=0 || rc=$?
	[ "$rc" = 4 ] || fail "--keys: exit $rc, expected 4"
	for k in schema=1 outcome=refused exit=4 'error=bpffs is not mounted at /sys/fs/bpf' attach= \
		mode=auto enforce=true facts.state=hazard facts.source=snapshot; do
		grep -q "^$k" "$tmp/out" || fail "start --keys: no $k"
	done
	ok "no bpffs: exit 4, one line that says so (and --keys: outcome refused, the reason as error)"
	;;
agent-refused-writes-metrics)
	need_enforce
	# Issue 40 (8): where the kernel refuses the guard, the agent exited 4
	# and wrote nothing: the one node that needs an alert had no series.
	mkdir -p "$tmp/m"
	chmod 755 "$tmp/m"
	refused_agent "$tmp/m/p.prom"
	[ "$rc" = 4 ] || fail "the agent exited $rc, expected 4"
	[ -f "$tmp/m/p.prom" ] || fail "the refused agent wrote no metrics"
	grep -qx 'pmuguard_unguarded 1' "$tmp/m/p.prom" || fail "no pmuguard_unguarded 1: $(cat "$tmp/m/p.prom")"
	grep -q '^pmuguard_kernel_refused_info{error="lsm: .*"} 1$' "$tmp/m/p.prom" ||
		fail "the refusal is not in the metrics: $(grep refused "$tmp/m/p.prom")"
	grep -q '"event":"textfile"' "$tmp/out" || fail "the agent's log does not name the file"
	# Issue 40 (12): the pod's log holds stdout and stderr alike; the
	# refusal (some 450 characters) was in the "start" event and again on
	# stderr.  Said once.
	grep -q '"event":"start".*"outcome":"refused"' "$tmp/out" || fail "the start event does not carry the refusal"
	! grep -q 'could not attach the kernel guard' "$tmp/err" ||
		fail "the refusal is said twice in the pod's log (stderr too): $(cat "$tmp/err")"
	ok "the refused agent exits 4 and writes the node's metrics: unguarded 1, and why; its refusal said once"
	;;
textfile-two-writers-say-so)
	need_enforce
	# Issue 40 (9): the package's timer (pmuguard status --textfile) and a
	# node agent's --textfile on one file overwrite each other's series.
	# Each file carries its writer's mark; each writer that finds the
	# other's fresh mark says so, in its log and in the file
	# (pmuguard_textfile_shared).  A mark older than 15 minutes is a
	# writer gone, not a second one.
	mkdir -p "$tmp/m"
	chmod 755 "$tmp/m"
	f=$tmp/m/p.prom
	"$PMUGUARD" status --textfile "$f" >/dev/null 2>"$tmp/err" || :
	grep -qx 'pmuguard_textfile_writer_info{writer="host"} 1' "$f" || fail "status wrote no writer mark: $(cat "$f")"
	! grep -q 'pmuguard_textfile_shared' "$f" || fail "one writer alone is called shared"
	refused_agent "$f"
	grep -q '"event":"textfile-shared".*also written by the host' "$tmp/out" ||
		fail "the agent did not say the file has a second writer: $(cat "$tmp/out")"
	grep -qx 'pmuguard_textfile_shared{other_writer="host"} 1' "$f" || fail "the agent's file does not say shared: $(grep textfile "$f")"
	grep -qx 'pmuguard_textfile_writer_info{writer="agent"} 1' "$f" || fail "the agent wrote no writer mark"
	"$PMUGUARD" status --textfile "$f" >/dev/null 2>"$tmp/err" || :
	grep -q 'also written by a node agent' "$tmp/err" || fail "status did not say the file has a second writer: $(cat "$tmp/err")"
	grep -qx 'pmuguard_textfile_shared{other_writer="agent"} 1' "$f" || fail "status's file does not say shared"
	# The agent's mark an hour old: a writer gone, not a second one.
	sed -i 's/writer="host"/writer="agent"/' "$f"
	touch -d '1 hour ago' "$f"
	"$PMUGUARD" status --textfile "$f" >/dev/null 2>"$tmp/err" || :
	! grep -q 'also written' "$tmp/err" || fail "an hour-old mark was called a second writer"
	! grep -q 'pmuguard_textfile_shared' "$f" || fail "an hour-old mark made the file shared"
	ok "two writers of one textfile: each says so (log, stderr, pmuguard_textfile_shared); an old mark does not"
	;;
status-snapshot-judges-the-policy)
	need_enforce
	# Issue 40 (11): enforce status had no --snapshot: what a start would
	# do on another machine's facts could not be asked.  Nothing attached:
	# the policy is judged on the facts named.
	[ ! -e /sys/fs/bpf/pmuguard ] || skip "/sys/fs/bpf/pmuguard exists on this host"
	run 6 "$PMUGUARD" enforce status --snapshot "$FIXTURES/m6i-16xlarge" --keys
	grep -qx 'policy.would_attach=true' "$tmp/out" || fail "m6i: the policy would not attach: $(grep policy "$tmp/out")"
	grep -q '^policy.reason=this guest advertises fixed counter 3' "$tmp/out" || fail "m6i: no reason"
	run 6 "$PMUGUARD" enforce status --snapshot "$FIXTURES/icx-8375c-metal"
	grep -q '^  policy: nothing to attach' "$tmp/out" || fail "healthy metal: the policy would attach: $(cat "$tmp/out")"
	run 1 "$PMUGUARD" enforce status --snapshot "$tmp/none"
	ok "enforce status --snapshot: where nothing is attached, the policy judged on the facts named"
	;;
start-as-a-user-leads-with-root)
	need_enforce
	# Issue 50 (14): a user's start led with the kernel's refusal, and
	# only then said "run it as root".  The cause and its remedy come
	# first, the kernel's words after them as the detail, as text and
	# beside --keys.  As nobody, without capabilities, whatever this
	# host's bpffs is (none: mounting it is refused; bpffs: bpf() is),
	# nothing can be mounted or attached.
	if [ "$(id -u)" = 0 ]; then
		command -v setpriv >/dev/null || skip "setpriv (util-linux) is needed"
		as=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
		"${as[@]}" true 2>/dev/null || skip "setpriv cannot switch to nobody here"
	else
		as=(env)
	fi
	for form in text --keys; do
		args=(enforce start --snapshot "$FIXTURES/m6i-16xlarge")
		[ "$form" = text ] || args+=("$form")
		run 4 "${as[@]}" "$PMUGUARD" "${args[@]}"
		head -n 1 "$tmp/err" | grep -q '^pmuguard: enforce: run it as root (it needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN): the kernel refused uid [0-9]*$' ||
			fail "$form: the first line is not the cause and its remedy: $(cat "$tmp/err")"
		sed -n 2p "$tmp/err" | grep -q '^pmuguard: enforce: could not attach the kernel guard: .*\(Operation not permitted\|Permission denied\)' ||
			fail "$form: the kernel's refusal does not follow it: $(cat "$tmp/err")"
		[ "$(grep -c 'run it as root' "$tmp/err")" = 1 ] || fail "$form: the remedy is said twice: $(cat "$tmp/err")"
	done
	grep -qx 'outcome=refused' "$tmp/out" || fail "--keys: not refused: $(cat "$tmp/out")"
	ok "a user's refused start leads with the cause and remedy (root), the kernel's refusal after it"
	;;
refused-leaves-nothing)
	need_enforce
	# This host's kernel refuses BPF trampoline/LSM programs (EPERM).  The
	# start must fail with the reason and leave the private bpffs empty;
	# the listing is taken inside the namespace, before it goes away.
	# A refusal read as an attach (libbpf before 1.0 returns ERR_PTR, not
	# NULL, where the loader does not ask for 1.0's errors) says attached:
	# the data of a second start, and status, must say not.
	# shellcheck disable=SC2016 # expanded by the inner shell
	# A kernel that lets it attach: stop, and the same check of bpffs.
	private_ns sh -c 'mount -t bpf bpf /sys/fs/bpf || exit 99
		rc=0; "$0" enforce start --snapshot "$1" || rc=$?
		if [ "$rc" = 0 ]; then "$0" enforce stop || rc=98; fi
		if [ "$rc" != 0 ]; then
			"$0" enforce start --keys --snapshot "$1" >"$2/keys" 2>/dev/null || :
			"$0" enforce status --keys >"$2/status" 2>/dev/null || :
		fi
		ls -A /sys/fs/bpf >"$2/ls"
		exit "$rc"' "$PMUGUARD" "$FIXTURES/m6i-16xlarge" "$tmp" >"$tmp/out" 2>"$tmp/err" &&
		rc=0 || rc=$?
	[ "$rc" != 99 ] || skip "cannot mount a private bpffs"
	[ "$rc" != 98 ] || fail "attached, but stop failed"
	if [ "$rc" = 0 ]; then
		grep -q '^pmuguard: enforce: attached' "$tmp/out" || fail "exit 0 without attaching"
		if grep -q pmuguard "$tmp/ls"; then
			fail "left behind in bpffs after stop: $(tr '\n' ' ' <"$tmp/ls")"
		fi
		ok "this kernel let it attach; stop left nothing in bpffs (see tests/vm for the rest)"
		exit 0
	fi
	[ "$rc" = 4 ] || fail "exit $rc, expected 4"
	grep -q '^pmuguard: enforce: could not attach the kernel guard: ' "$tmp/err" ||
		fail "no reason line"
	grep -q 'Nothing of this start was left attached or pinned' "$tmp/err" || fail "no word on cleanup"
	for kv in outcome=refused exit=4 attach= protects=false; do
		grep -qxF "$kv" "$tmp/keys" || fail "start --keys of a refused start lacks $kv: $(grep -E '^(outcome|exit|attach|protects)=' "$tmp/keys" | tr '\n' ' ')"
	done
	grep -qx 'attached=false' "$tmp/status" || fail "status after a refused start does not say attached=false: $(grep '^attached=' "$tmp/status")"
	if grep -q pmuguard "$tmp/ls"; then
		fail "left behind in bpffs: $(tr '\n' ' ' <"$tmp/ls")"
	fi
	ok "refused: exit 4, $(sed -n 's/.*could not attach the kernel guard: \([^.]*\).*/\1/p' \
		"$tmp/err"); bpffs holds: $(tr '\n' ' ' <"$tmp/ls")"
	;;
hostile-strings)
	need_enforce
	# Strings from outside (a snapshot's path, a kernel file's contents)
	# with ESC, a newline and a byte that is not UTF-8: the text prints
	# each through the one escaper (no ESC, no forged line), the data
	# through the one writer.
	evil=$'ho\e[31mst\nforged: line\xff\\x'
	snap="$tmp/$evil"
	mkdir "$snap"
	cp -R "$FIXTURES/icx-8375c-metal/." "$snap/"
	# clean FILE WHAT: one line, no ESC and no byte that is not UTF-8.
	clean() {
		[ "$(wc -l <"$1")" = 1 ] || fail "$2: $(wc -l <"$1") lines, expected 1: $(cat -v "$1")"
		if LC_ALL=C grep -q $'\e' "$1"; then fail "$2: an ESC reached the terminal: $(cat -v "$1")"; fi
		iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1 || fail "$2: a byte that is not UTF-8: $(cat -v "$1")"
	}
	run 0 "$PMUGUARD" enforce start --snapshot "$snap"
	clean "$tmp/out" "start"
	grep -qF 'ho\x1b[31mst\x0aforged: line\xff\x5cx' "$tmp/out" || fail "start: the path is not escaped: $(cat -v "$tmp/out")"
	run 0 "$PMUGUARD" enforce start --keys --snapshot "$snap"
	grep -qxF "facts.snapshot=$tmp/ho\x1b[31mst\x0aforged: line\xff\x5cx" "$tmp/out" ||
		fail "start --keys: facts.snapshot: $(cat -v "$tmp/out")"
	if grep -q '^forged' "$tmp/out"; then fail "start --keys: a forged line"; fi
	run 0 "$PMUGUARD" enforce start --json --snapshot "$snap"
	python3 - "$tmp/out" "$snap" <<'PY' || fail "start --json: facts.snapshot is not the path: $(cat -v "$tmp/out")"
import json, sys
doc = json.loads(open(sys.argv[1], "rb").read().decode("ascii"))  # escapes only
want = sys.argv[2].encode("utf-8", "surrogateescape").decode("utf-8", "replace")
assert doc["facts"]["snapshot"] == want, (doc["facts"]["snapshot"], want)
PY
	said="a snapshot's path (text, keys, JSON)"
	# The LSM list is the kernel's file; a tmpfs over securityfs in a
	# private mount namespace stands for one that says anything.
	if [ "$(id -u)" = 0 ] && [ ! -e /sys/fs/bpf/pmuguard ] && unshare -m --propagation private true 2>/dev/null; then
		printf 'lockdown,\033]0;pwned\007\033[2J\nforged: lsm\xfe' >"$tmp/lsm"
		# shellcheck disable=SC2016 # expanded by the inner shell
		unshare -m --propagation private sh -c 'mount -t tmpfs none /sys/kernel/security &&
			cp "$1" /sys/kernel/security/lsm && exec "$0" enforce status' \
			"$PMUGUARD" "$tmp/lsm" >"$tmp/out" 2>"$tmp/err" && rc=0 || rc=$?
		[ "$rc" = 6 ] || fail "status with a hostile LSM list exited $rc, expected 6"
		grep -q '^  kernel: ' "$tmp/out" || fail "status: no kernel line: $(cat -v "$tmp/out")"
		grep '^  kernel: ' "$tmp/out" >"$tmp/kernel"
		clean "$tmp/kernel" "status's kernel line"
		grep -qF '(lsm=lockdown,\x1b]0;pwned\x07\x1b[2J\x0aforged: lsm\xfe)' "$tmp/kernel" ||
			fail "status: the LSM list is not escaped: $(cat -v "$tmp/kernel")"
		if grep -q '^forged' "$tmp/out"; then fail "status: a forged line"; fi
		said="$said and the kernel's LSM list (status)"
	else
		said="$said (the LSM list needs root and unshare -m: not checked here)"
	fi
	ok "$said: escaped in the text, one line each, no ESC"
	;;
start-pinned)
	need_enforce
	# enforce start's whole document for every fixture, as the probe's
	# reports are pinned (tests/snapshots/pin-enforce.sh: nothing can be
	# attached where it runs).  Any changed word fails here, with its diff.
	rc=0
	"$here/snapshots/pin-enforce.sh" "$PMUGUARD" --check >"$tmp/out" 2>&1 || rc=$?
	[ "$rc" != 77 ] || skip "$(tail -n 1 "$tmp/out")"
	[ "$rc" = 0 ] || fail "enforce start's documents differ from their pins (tests/snapshots/pin-enforce.sh)"
	ok "$(tail -n 1 "$tmp/out" | sed 's/^ok: //')"
	;;
documents-match-schema)
	need_enforce
	# What this host can make of each enforce document matches
	# enforce.schema.json: start (nothing to attach; refused, in a private
	# namespace), status (not attached), and the agent's lines on a node
	# that needs no guard (start's document, then exit at SIGTERM).  The
	# attached ones are checked in the VM (tests/vm/enforce/).
	[ ! -e /sys/fs/bpf/pmuguard ] || skip "/sys/fs/bpf/pmuguard exists on this host"
	docs=()
	run 0 "$PMUGUARD" enforce start --json --snapshot "$FIXTURES/icx-8375c-metal"
	cp "$tmp/out" "$tmp/start-nothing.json"
	docs+=("$tmp/start-nothing.json")
	run 0 "$PMUGUARD" enforce start --json --mode off --snapshot "$FIXTURES/m6i-16xlarge"
	cp "$tmp/out" "$tmp/start-off.json"
	docs+=("$tmp/start-off.json")
	run 6 "$PMUGUARD" enforce status --json
	cp "$tmp/out" "$tmp/status.json"
	docs+=("$tmp/status.json")
	# shellcheck disable=SC2016 # expanded by the inner shell
	if unshare -Urm --propagation private sh -c 'mount -t tmpfs none /sys/fs/bpf &&
		exec "$0" enforce start --json --snapshot "$1"' "$PMUGUARD" "$FIXTURES/m6i-16xlarge" \
		>"$tmp/start-refused.json" 2>"$tmp/err"; then
		fail "start attached in a user namespace with a tmpfs for bpffs"
	fi
	if [ -s "$tmp/start-refused.json" ]; then docs+=("$tmp/start-refused.json"); fi
	# The agent idles on a healthy node: its start line, then SIGTERM.  It
	# mounts securityfs where none is: here, in a namespace of its own.
	PMUGUARD_SNAPSHOT="$FIXTURES/icx-8375c-metal" unshare -Urm --propagation private \
		"$PMUGUARD" enforce agent >"$tmp/agent.jsonl" 2>"$tmp/err" &
	agent=$!
	for _ in $(seq 1200); do # 60 s at most, for a busy machine
		grep -q '"outcome"' "$tmp/agent.jsonl" && break
		kill -0 "$agent" 2>/dev/null || break
		sleep 0.05
	done
	kill -TERM "$agent" 2>/dev/null || true
	rc=0
	wait "$agent" || rc=$?
	[ "$rc" = 0 ] || fail "the agent exited $rc at SIGTERM"
	[ "$(grep -c . "$tmp/agent.jsonl")" -ge 2 ] || fail "the agent said: $(cat "$tmp/agent.jsonl")"
	docs+=("$tmp/agent.jsonl")
	set +e
	python3 "$here/e2e/schema-check.py" "$here/../probe/doc/schema" "${docs[@]}" >"$tmp/out"
	r=$?
	set -e
	[ "$r" != 77 ] || skip "$(cat "$tmp/out")"
	[ "$r" = 0 ] || fail "a document is not what enforce.schema.json says: $(cat "$tmp/out")"
	grep -q 'checked, 0 error' "$tmp/out" || fail "nothing was checked: $(cat "$tmp/out")"
	ok "$(tail -n 1 "$tmp/out"): start, status and the agent's lines match enforce.schema.json"
	;;
*)
	echo "unknown case $1" >&2
	exit 2
	;;
esac
