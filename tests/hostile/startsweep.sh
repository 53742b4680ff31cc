#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The shim's scan of the initial stack (shim/libc_sym.c), which every
# preloaded process runs before main, against a randomized sweep of start
# layouts (issue 47, item 2): it searches for the next layout that crashes
# a start or makes it read AT_SECURE wrongly, rather than listing the
# known ones (GLIBC_TUNABLES once, a setuid start's NULLs, GLIBC_TUNABLES
# twice: each crashed every process of a fleet).  startsweep.c builds the
# layouts; the seed is printed, and PMUGUARD_SWEEP_SEED replays a run.
#
#   startsweep.sh CASE
#
# real     PMUGUARD_SWEEP_STARTS (3000) starts of sweep_target, in a private
#          mount namespace (tests/e2e/sandbox.sh): a third under LD_PRELOAD,
#          the rest with the shim in /etc/ld.so.preload; plain, argc 0,
#          ld.so PROGRAM (with LD_PRELOAD, --preload, --argv0), as uid
#          65534, and setuid-root, setgid-root and file-capability copies
#          run as 65534 with LD_*, MALLOC_*, TMPDIR set.  Every start's
#          environment says PMUGUARD_MODE=off and the policy file says the
#          m6i world: each must exit by itself (no signal), a secure start
#          denied (AT_SECURE read as 1: the environment ignored), any other
#          let through to the kernel (read as 0)
# stacks   the scan alone, PMUGUARD_SWEEP_STACKS (20000) times, over stacks
#          built to end at an unmapped page (a read past the top faults),
#          ld.so's frames stood in for by random words: every kernel and
#          loader layout found with its AT_SECURE, never another vector;
#          tables changed as no loader is known to: no fault
#
# Exit: 0 pass, 1 fail, 77 skip (a failure when PMUGUARD_TESTS_MUST_RUN=1).
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
if [ "${1:-}" = --list ]; then list_cases "$0" case_name; exit 0; fi
: "${LIB:?}" "${FIXTURES:?}" "${STARTSWEEP:?}" "${SWEEP_TARGET:?}"
here=$(cd "$(dirname "$0")" && pwd)
case_name=${1:?usage: startsweep.sh CASE}

seed=${PMUGUARD_SWEEP_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "# seed $seed (PMUGUARD_SWEEP_SEED=$seed replays this run)"

case_tmp
chmod 755 "$tmp"

case $case_name in
real)
	[ "$(id -u)" = 0 ] || skip "needs root (setuid copies, a private /etc/ld.so.preload)"
	unshare -m true 2>/dev/null || skip "unshare -m is not permitted here"
	starts=${PMUGUARD_SWEEP_STARTS:-3000}
	# The copies live where uid 65534 can run them.
	cp "$SWEEP_TARGET" "$tmp/target"
	for k in setuid setgid caps; do cp "$SWEEP_TARGET" "$tmp/$k"; done
	chown root:root "$tmp/setuid" "$tmp/setgid"
	chmod 4755 "$tmp/setuid"
	chmod 2755 "$tmp/setgid"
	secure=(--setuid "$tmp/setuid" --setgid "$tmp/setgid")
	if command -v setcap >/dev/null && setcap cap_net_bind_service+ep "$tmp/caps" 2>"$tmp/err"; then
		secure+=(--caps "$tmp/caps")
	else
		echo "# file-capability starts: not run (setcap: $(cat "$tmp/err" 2>/dev/null || echo not installed))"
	fi
	ldso=()
	for f in /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-aarch64.so.1; do
		[ -x "$f" ] && ldso=(--ldso "$f") && break
	done
	if [ ${#ldso[@]} = 0 ]; then
		echo "# ld.so PROGRAM starts: not run (no ld.so at a known path)"
	elif "${ldso[1]}" --help 2>&1 | grep -q -- --argv0; then
		ldso+=(--argv0)
	fi
	sweep=("$STARTSWEEP" starts "$seed")
	common=(--target "$tmp/target" --lib "$LIB" --user 65534 "${ldso[@]}")
	cat >"$tmp/script" <<SH
set -e
printf 'snapshot = %s\nlog = quiet\n' "$FIXTURES/m6i-16xlarge" >/etc/pmuguard.conf
rm -f /etc/ld.so.preload
echo "== LD_PRELOAD"
${sweep[*]} $((starts / 3)) ${common[*]} || echo "failed: LD_PRELOAD"
printf '%s\n' "$LIB" >/etc/ld.so.preload
echo "== /etc/ld.so.preload"
${sweep[*]} $((starts - starts / 3)) ${common[*]} --first $((starts / 3)) --preloaded ${secure[*]} || echo "failed: /etc/ld.so.preload"
SH
	rc=0
	unshare -m -- "$here/../e2e/sandbox.sh" "$tmp/sb" bash "$tmp/script" >"$tmp/out" 2>"$tmp/err" || rc=$?
	cat "$tmp/out"
	[ "$rc" = 0 ] || fail "the sandbox ended with $rc"
	if grep -q '^failed' "$tmp/out"; then
		grep '^FAIL' "$tmp/err" | head -n 10
		fail "some starts crashed or read AT_SECURE wrongly (seed $seed)"
	fi
	grep -q '^starts .* failed 0$' "$tmp/out" || fail "the sweep did not run"
	ok "$starts starts: none killed by a signal, every secure start read as secure and no other"
	;;
stacks)
	rc=0
	"$STARTSWEEP" stacks "$seed" "${PMUGUARD_SWEEP_STACKS:-20000}" >"$tmp/out" 2>"$tmp/err" || rc=$?
	cat "$tmp/out"
	[ "$rc" = 0 ] || fail "the scan faulted, took another vector or missed one (seed $seed)"
	ok "no read past a stack's top, every vector found and no other"
	;;
*)
	fail "no case $case_name"
	;;
esac
