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
if [ "${1:-}" = --list ]; then list_cases "$0" case_name; exit 0; fi
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
conf-log-reaches-seccomp-mode)
	# Issue 10 item 12.  log = quiet in /etc/pmuguard.conf silences the
	# supervisor (seccomp and auto modes) as it does the preload, even with
	# PMUGUARD_LOG=debug; log = syslog sends its lines to syslog, not stderr
	# (f2788d1 wrote them to stderr).
	cat >"$tmp/script" <<SH
set -e
printf 'log = quiet\n' >/etc/pmuguard.conf
$PMUGUARD run --mode seccomp --snapshot $M6I -- $PEO 4:0x400
$PMUGUARD run --snapshot $M6I -- taskset -c 0 $PEO 4:0x8000
PMUGUARD_LOG=debug $PMUGUARD run --snapshot $M6I -- $PEO_DYN 4:0x400
PMUGUARD_LOG=debug $PMUGUARD run --mode seccomp --snapshot $M6I -- $PEO 4:0x400
printf 'log = syslog\n' >/etc/pmuguard.conf
$PMUGUARD run --mode seccomp --snapshot $M6I -- $PEO 4:0x8100
SH
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc"
	[ "$(grep -c 'errno=ENOENT' "$tmp/out")" = 5 ] || fail "not every call was denied"
	! grep -q 'pmuguard' "$tmp/err" || fail "the policy file's log setting did not silence stderr"
	grep -q 'pmuguard\[[0-9]*\]: blocked perf_event_open(type=4, config=0x8100) in peo' "$tmp/syslog" ||
		fail "log = syslog: the supervisor's line did not reach syslog"
	! grep -q 'config=0x400\|config=0x8000)' "$tmp/syslog" || fail "log = quiet still logged to syslog"
	ok "the policy file's log setting governs the supervisor: quiet is silent, syslog goes to syslog"
	;;
conf-lock-reports-ignored-snapshot)
	# Issue 10 item 12.  With lock = yes, PMUGUARD_SNAPSHOT and --snapshot
	# are ignored, and each is reported (escaped) instead of silently dropped.
	cat >"$tmp/script" <<SH
set -e
printf 'lock = yes\nsnapshot = $M6I\nlog = stderr\n' >/etc/pmuguard.conf
PMUGUARD_SNAPSHOT=$ICX $PMUGUARD run --mode seccomp -- $PEO 4:0x400
$PMUGUARD run --mode seccomp --snapshot $ICX -- $PEO 4:0x400
$PMUGUARD run --snapshot $ICX -- $PEO_DYN 4:0x400
SH
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc"
	[ "$(grep -c 'config=0x400 .*errno=ENOENT' "$tmp/out")" = 3 ] ||
		fail "a user's snapshot replaced the locked facts"
	grep -q "^pmuguard: ignoring PMUGUARD_SNAPSHOT=$ICX: /etc/pmuguard.conf has lock = yes" "$tmp/err" ||
		fail "the ignored PMUGUARD_SNAPSHOT was not reported"
	[ "$(grep -c "^pmuguard: ignoring --snapshot $ICX: /etc/pmuguard.conf has lock = yes" "$tmp/err")" = 2 ] ||
		fail "the ignored --snapshot was not reported (seccomp and auto)"
	ok "lock = yes: ignored PMUGUARD_SNAPSHOT and --snapshot are reported"
	;;
*)
	echo "unknown case $case_name"
	exit 2
	;;
esac
[ "$(real_state)" = "$real_before" ] || fail "the machine's own /etc or /dev/log changed"
echo "PASS: $case_name"
