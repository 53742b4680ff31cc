#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Fleet mitigation, end to end: /etc/ld.so.preload read by the real dynamic
# loader, /etc/pmuguard.conf read by the real shim, blocks reported to a
# syslog listener, all inside a private mount namespace whose /etc and /dev
# are overlays (sandbox.sh): the machine's own files are never touched.
#
#   fleet.sh CASE        exit 0 pass, 1 fail, 77 skip
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
: "${PMUGUARD:?}" "${FAULTSIM:?}" "${FIXTURES:?}" "${LIB:?}" "${FLEET:?}" "${PEO_DYN:?}"
here=$(cd "$(dirname "$0")" && pwd)
case_name=${1:?usage: fleet.sh CASE}


[ "$(id -u)" = 0 ] || skip "needs root for a private mount namespace"
unshare -m true 2>/dev/null || skip "unshare -m is not permitted here"
grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null || true
grep -qw overlay /proc/filesystems || skip "no overlayfs for the /etc sandbox"
command -v python3 >/dev/null || skip "python3 is needed for the syslog listener"

# The machine's own files, to prove at the end that no case touched them.
real_state() { for f in /etc/ld.so.preload /etc/pmuguard.conf /dev/log; do
	if [ -e "$f" ]; then ls -l "$f"; [ -f "$f" ] && sha256sum "$f"; else echo "$f absent"; fi
done; }
real_before=$(real_state)

tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
M6I=$FIXTURES/m6i-16xlarge
ICX=$FIXTURES/icx-8375c-metal
export PMUGUARD_LOG=warn

# sandbox CMD...: run CMD in the overlay sandbox; sets rc; output in $tmp/{out,err}.
sandbox() {
	set +e
	unshare -m -- "$here/sandbox.sh" "$tmp/sb" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	set -e
	cp "$tmp/sb/syslog" "$tmp/syslog" 2>/dev/null || : >"$tmp/syslog"
}
mkdir -p "$tmp/sb"
etc() { echo "$tmp/sb/etc-up"; } # what the sandbox's /etc gained

fleet() { "$FLEET" "$@" --lib "$LIB" --pmuguard "$PMUGUARD"; }

case $case_name in
install-guards-every-process)
	# Install on an m6i (the probe reads the m6i snapshot), then run the real
	# perf with no LD_PRELOAD in the m6i world under the fault simulator.
	cat >"$tmp/script" <<SH
set -e
PMUGUARD_SNAPSHOT=$M6I $FLEET install --lib $LIB --pmuguard $PMUGUARD
unset LD_PRELOAD
$here/in-world.sh $M6I GenuineIntel-6-6A-6 \
	$FAULTSIM --log $tmp/log -- perf stat -e TOPDOWN.SLOTS,instructions -- true
SH
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "install or the guarded perf failed (exit $rc)"
	grep -qxF "$LIB" "$(etc)/ld.so.preload" || fail "ld.so.preload does not list the library"
	! grep -q FAULT "$tmp/log" || fail "perf reached the simulated fault"
	grep -q 'type=0 config=0x1 verdict=continue' "$tmp/log" || fail "instructions never reached the kernel"
	grep -q '<not supported>.*TOPDOWN.SLOTS' "$tmp/err" || fail "perf did not report TOPDOWN.SLOTS as not supported"
	grep -q 'pmuguard\[[0-9]*\]: blocked perf_event_open(type=4, config=0x400) in perf' "$tmp/syslog" ||
		fail "the block was not reported to syslog"
	! grep -q '^pmuguard:' "$tmp/err" || fail "fleet mode wrote to the process's stderr"
	ok "ld.so.preload guards perf started without LD_PRELOAD; the block went to syslog, not stderr"
	;;
unguarded-baseline)
	# The same run without the install reaches the fault: the case above can fail.
	sandbox "$here/in-world.sh" "$M6I" GenuineIntel-6-6A-6 \
		"$FAULTSIM" --log "$tmp/log" -- perf stat -e TOPDOWN.SLOTS,instructions -- true
	{ [ "$rc" = 86 ] && grep -q 'config=0x400 verdict=FAULT' "$tmp/log"; } ||
		fail "without the preload perf should reach the fault (exit $rc)"
	ok "without the preload the fault is reached"
	;;
healthy-host-untouched)
	sandbox env PMUGUARD_SNAPSHOT="$ICX" "$FLEET" install --lib "$LIB" --pmuguard "$PMUGUARD"
	[ "$rc" = 0 ] || fail "install on a healthy host failed ($rc)"
	grep -q 'no hazard' "$tmp/out" || fail "install did not say why it did nothing"
	[ ! -e "$(etc)/ld.so.preload" ] || fail "a healthy host's ld.so.preload was written"
	ok "healthy host: nothing written"
	;;
entries-survive-byte-for-byte)
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	printf '# site preloads\n/usr/lib/libfoo.so /usr/lib/libbar.so\n\n# no newline at the end' \
		>"$root/etc/ld.so.preload"
	cp "$root/etc/ld.so.preload" "$tmp/orig"
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" install --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out"
	head -n1 "$root/etc/ld.so.preload" | grep -qx /usr/lib/pmuguard/libpmuguard.so ||
		fail "the entry is not the first line"
	cmp -s "$root/etc/ld.so.preload.pmuguard-bak" "$tmp/orig" || fail "no faithful backup"
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" install --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out"
	grep -q 'already installed' "$tmp/out" || fail "a second install is not idempotent"
	[ "$(grep -c libpmuguard "$root/etc/ld.so.preload")" = 1 ] || fail "entry added twice"
	"$FLEET" uninstall --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out"
	cmp "$root/etc/ld.so.preload" "$tmp/orig" || fail "uninstall did not restore the file byte for byte"
	rm "$root/etc/ld.so.preload"
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" install --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out"
	"$FLEET" uninstall --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out"
	[ ! -e "$root/etc/ld.so.preload" ] || fail "a file install created is left behind"
	ok "entries and comments survive install/uninstall byte for byte; idempotent"
	;;
corrupt-or-missing-library-refused)
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard"
	printf '/usr/lib/libkeep.so\n' >"$root/etc/ld.so.preload"
	cp "$root/etc/ld.so.preload" "$tmp/orig"
	head -c 20000 /dev/urandom >"$root/usr/lib/pmuguard/libpmuguard.so"
	set +e
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" install --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>"$tmp/err"
	r1=$?
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" install --root "$root" --lib /usr/lib/nope/libpmuguard.so \
		--pmuguard "$PMUGUARD" >>"$tmp/out" 2>>"$tmp/err"
	r2=$?
	set -e
	{ [ "$r1" = 1 ] && [ "$r2" = 1 ]; } || fail "a bad library was not refused ($r1, $r2)"
	grep -q 'does not load cleanly' "$tmp/err" || fail "no clear reason for the corrupt library"
	grep -q 'does not exist' "$tmp/err" || fail "no clear reason for the missing library"
	cmp -s "$root/etc/ld.so.preload" "$tmp/orig" || fail "the file changed"
	ok "a corrupt or missing library is refused before the file changes"
	;;
interrupted-install-leaves-a-valid-file)
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	printf '/usr/lib/libkeep.so\n' >"$root/etc/ld.so.preload"
	cp "$root/etc/ld.so.preload" "$tmp/orig"
	for stop in probe proven written backup renamed; do
		PMUGUARD_FLEET_PAUSE_AFTER=$stop PMUGUARD_SNAPSHOT=$M6I \
			"$FLEET" install --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1 &
		pid=$!
		for _ in $(seq 500); do
			grep -q "$(case $stop in probe) echo verdict ;; proven) echo 'loads cleanly' ;;
				written) echo wrote ;; backup) echo 'backed up' ;; renamed) echo 'now lists' ;; esac)" \
				"$tmp/out" && break
			sleep 0.01
		done
		pkill -9 -P "$pid" sleep 2>/dev/null || true
		kill -9 "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		if [ "$stop" = renamed ]; then
			head -n1 "$root/etc/ld.so.preload" | grep -q libpmuguard ||
				fail "killed after the rename: the new file is not in place"
			tail -n +2 "$root/etc/ld.so.preload" | cmp -s - "$tmp/orig" || fail "killed after the rename: old entries lost"
		else
			cmp -s "$root/etc/ld.so.preload" "$tmp/orig" || fail "killed after '$stop': the file changed"
		fi
		ok "killed after '$stop': ld.so.preload is whole"
	done
	"$FLEET" uninstall --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out"
	cmp -s "$root/etc/ld.so.preload" "$tmp/orig" || fail "uninstall after the interruptions"
	[ ! -e "$root/etc/ld.so.preload.pmuguard-new" ] || fail "a stale temporary file was left"
	;;
lock-defeats-mode-off)
	# The admin pins the facts and locks the policy; a user's environment
	# asking for mode off and a healthy snapshot must change nothing.
	cat >"$tmp/script" <<SH
set -e
printf 'mode = auto\nlock = yes\nsnapshot = $M6I\nlog = stderr\n' >/etc/pmuguard.conf
LD_PRELOAD=$LIB PMUGUARD_MODE=off PMUGUARD_SNAPSHOT=$ICX $PEO_DYN 4:0x400 4:0x1a4
echo ---
printf 'mode = auto\nsnapshot = $M6I\nlog = stderr\n' >/etc/pmuguard.conf
LD_PRELOAD=$LIB PMUGUARD_MODE=off $PEO_DYN 4:0x400
SH
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc"
	sed -n 1p "$tmp/out" | grep -q 'config=0x400 errno=ENOENT' || fail "lock = yes: PMUGUARD_MODE=off weakened the policy"
	sed -n 2p "$tmp/out" | grep -q 'config=0x1a4 errno=EINVAL' || fail "the harmless call did not reach the kernel"
	grep -q 'ignoring PMUGUARD_MODE=off: /etc/pmuguard.conf has lock = yes' "$tmp/err" ||
		fail "the ignored variable was not reported"
	sed -n 4p "$tmp/out" | grep -q 'config=0x400 errno=EINVAL' || fail "without lock, PMUGUARD_MODE=off should be honoured"
	ok "lock = yes defeats PMUGUARD_MODE=off and PMUGUARD_SNAPSHOT; without lock the variable works"
	;;
setuid-ignores-environment)
	# A setuid program run by an unprivileged user: the loader takes the shim
	# from /etc/ld.so.preload only, and the shim ignores PMUGUARD_* there.
	cp "$PEO_DYN" "$tmp/peo-suid"
	chown root:root "$tmp/peo-suid"
	chmod 4755 "$tmp/peo-suid"
	cat >"$tmp/script" <<SH
set -e
printf '%s\n' $LIB >/etc/ld.so.preload
printf 'snapshot = $M6I\n' >/etc/pmuguard.conf
setpriv --reuid=65534 --regid=65534 --clear-groups env PMUGUARD_MODE=off PMUGUARD_LOG=quiet \
	PMUGUARD_SNAPSHOT=$ICX $tmp/peo-suid 4:0x400
SH
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc"
	grep -q 'config=0x400 errno=ENOENT' "$tmp/out" ||
		fail "the setuid program honoured PMUGUARD_MODE=off or the snapshot"
	grep -q 'pmuguard\[[0-9]*\]: blocked' "$tmp/syslog" ||
		fail "PMUGUARD_LOG=quiet was honoured in a setuid program, or the block was not logged"
	! grep -q '^pmuguard:' "$tmp/err" || fail "the setuid program's stderr was written"
	ok "setuid: PMUGUARD_* ignored, blocked, reported to syslog only"
	;;
*)
	echo "unknown case $case_name"
	exit 2
	;;
esac
[ "$(real_state)" = "$real_before" ] || fail "the machine's own /etc or /dev/log changed"
echo "PASS: $case_name"
