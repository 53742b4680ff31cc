#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Fleet, the policy file /etc/pmuguard.conf: locked by install, kept, replaced
# where others can write it, read by the shim and the supervisor.
# The sandbox and helpers: lib.sh here.
#
#   policy.sh CASE        exit 0 pass, 1 fail, 77 skip;  policy.sh --list
set -euo pipefail
# shellcheck source=tests/e2e/fleet/lib.sh
. "$(dirname "$0")/lib.sh"

case $case_name in
policy-others-can-write-is-replaced)
	# Issue 38 (5): a policy file any user can write (a config-management
	# or umask mistake) is no lock: status says it is not trusted, install
	# replaces it with a file of root's and adopts none of its lines.
	mkdir -p "$(etc)"
	printf '# site policy\nmode = off\n' >"$(etc)/pmuguard.conf"
	chmod 666 "$(etc)/pmuguard.conf"
	sandbox "$PMUGUARD" status
	grep -q 'policy: ignored: /etc/pmuguard.conf: /etc/pmuguard.conf is writable by other users (mode 0666): not trusted' "$tmp/out" ||
		{ cat "$tmp/out" "$tmp/err"; fail "status did not say the policy file is not trusted"; }
	# --force: the file others can write cannot name the facts, and
	# install, which locks, takes no PMUGUARD_SNAPSHOT (fleet
	# install-under-lock-agrees-with-status).
	sandbox "$FLEET" install --force --layer preload --lib "$LIB" --pmuguard "$PMUGUARD"
	[ "$rc" = 0 ] || fail "install failed ($rc)"
	grep -q 'was writable by other users (mode 666)' "$tmp/err" || fail "install did not say why it replaced the policy"
	[ "$(stat -c '%u %a' "$(etc)/pmuguard.conf")" = "0 644" ] ||
		fail "the policy is still $(stat -c '%u %a' "$(etc)/pmuguard.conf") after install"
	! grep -q 'mode = off' "$(etc)/pmuguard.conf" || fail "install adopted a line anyone could have written: $(cat "$(etc)/pmuguard.conf")"
	grep -qx 'lock = yes' "$(etc)/pmuguard.conf" || fail "the new policy is not locked"
	grep -q 'mode = off' "$(etc)/pmuguard.conf.pmuguard-untrusted" || fail "the old file was not kept aside"
	# A directory others can write is refused: they could replace any file.
	rm -rf "$tmp/sb" && mkdir -p "$tmp/sb"
	sandbox sh -c 'chmod 777 /etc && exec "$@"' sh "$FLEET" install --force --layer preload --lib "$LIB" --pmuguard "$PMUGUARD"
	[ "$rc" = 1 ] || fail "install locked a policy in a directory others can write (exit $rc)"
	grep -q 'policy cannot be locked: /etc is writable by other users.*nothing changed' "$tmp/err" ||
		fail "no reason for refusing: $(cat "$tmp/err")"
	# Exit 1 says the list is unchanged: the refusal comes before it is
	# touched (helper-18's review: it was edited, then the lock failed).
	[ ! -e "$(etc)/ld.so.preload" ] || fail "the refused install changed the preload list: $(cat "$(etc)/ld.so.preload")"
	ok "a policy others can write: status says so, install replaces it (none of its lines adopted), a directory others can write is refused with nothing changed"
	;;
install-locks-the-policy)
	# A fleet install locks the policy: on the hazardous host, a user's
	# PMUGUARD_MODE=off or PMUGUARD_SNAPSHOT=<a healthy machine> must not
	# switch the guard off for their processes (uid 65534), one of which
	# reaching the counter takes the host down for everyone.  The admin's
	# lines are kept byte for byte.
	mkdir -p "$(etc)" "$tmp/nb"
	chmod 777 "$tmp/nb"
	printf '# site policy\nmode = auto\nsnapshot = %s\n\nlog = syslog  # the journal\n# no newline at the end' \
		"$M6I" >"$(etc)/pmuguard.conf"
	cp "$(etc)/pmuguard.conf" "$tmp/conf.orig"
	cat >"$tmp/script" <<SH
set -e
$FLEET install --layer preload --force --lib $LIB --pmuguard $PMUGUARD
unset LD_PRELOAD
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "\$@"; }
set +e
as_nobody env PMUGUARD_MODE=off $FAULTSIM --log $tmp/nb/mode-off.log -- $PEO_DYN 4:0x400 >$tmp/nb/mode-off.out 2>&1
echo "mode-off rc=\$?"
as_nobody env PMUGUARD_SNAPSHOT=$ICX $FAULTSIM --log $tmp/nb/snapshot.log -- $PEO_DYN 4:0x400 >$tmp/nb/snapshot.out 2>&1
echo "snapshot rc=\$?"
SH
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "install or the runs as nobody failed (exit $rc)"
	for v in mode-off snapshot; do
		! grep -q FAULT "$tmp/nb/$v.log" ||
			fail "$v: a user's environment switched the guard off: the simulated fault was reached ($(sed -n "s/^$v //p" "$tmp/out"))"
		grep -qx "$v rc=0" "$tmp/out" || fail "$v: the process as nobody exited $(sed -n "s/^$v rc=//p" "$tmp/out"): $(cat "$tmp/nb/$v.out")"
		grep -q 'config=0x400 errno=ENOENT' "$tmp/nb/$v.out" || fail "$v: 4:0x400 was not refused: $(cat "$tmp/nb/$v.out")"
	done
	grep -qxF 'pmuguard-fleet: policy locked: /etc/pmuguard.conf lock = yes; users cannot switch the guard off' "$tmp/out" ||
		fail "install does not say it locked the policy"
	{ cat "$tmp/conf.orig"; printf '\nlock = yes\n'; } | cmp -s - "$(etc)/pmuguard.conf" ||
		fail "the policy is not the admin's, byte for byte, and lock = yes: $(od -c "$(etc)/pmuguard.conf" | tail -n 4)"
	[ "$(stat -c '%a %u' "$(etc)/pmuguard.conf")" = '644 0' ] || fail "the policy is not 0644 root's"
	ok "after install, PMUGUARD_MODE=off and PMUGUARD_SNAPSHOT=<healthy> of uid 65534 are refused; the admin's lines kept byte for byte"
	;;
install-lock-keeps-the-policy-file)
	# What install and uninstall do to the policy file, under --root: create
	# it (0644) where there is none and remove it while unchanged; set an
	# existing file's lock lines keeping every other byte, its owner and
	# mode, and leave it at uninstall; --no-lock leaves it as it is.
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	conf=$root/etc/pmuguard.conf
	f() { PMUGUARD_SNAPSHOT=$M6I "$FLEET" "$@" --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1 ||
		fail "$*: exit $?: $(cat "$tmp/out")"; }
	# None: created, root's, 0644; idempotent; removed by uninstall.
	f install
	[ "$(stat -c '%a %u' "$conf")" = '644 0' ] || fail "the created policy is not 0644 root's"
	[ "$(grep -v '^#' "$conf")" = 'lock = yes' ] || fail "the created policy is not lock = yes: $(cat "$conf")"
	grep -q "policy locked: $conf lock = yes; users cannot switch the guard off" "$tmp/out" || fail "install does not say it"
	f install
	grep -q "policy: already locked" "$tmp/out" || fail "a second install is not idempotent: $(cat "$tmp/out")"
	f uninstall
	[ ! -e "$conf" ] || fail "uninstall left the policy file install created"
	# Created, then edited: the admin's now; uninstall leaves it.
	f install
	printf 'log = syslog\n' >>"$conf"
	cp "$conf" "$tmp/edited"
	f uninstall
	cmp -s "$conf" "$tmp/edited" || fail "uninstall changed or removed a policy the admin edited"
	rm "$conf"
	# The admin's, with lock = no: the lock lines set, every other byte,
	# the owner and the mode kept; uninstall leaves the lock.
	printf '# site\nmode = auto\n  lock = no  # users may\nslots = substitute\nlock=maybe\n# no newline at the end' >"$conf"
	chmod 640 "$conf"
	chown 65534 "$conf"
	cp "$conf" "$tmp/orig"
	f install
	sed 's/^  lock = no  # users may$/lock = yes/; s/^lock=maybe$/lock = yes/' "$tmp/orig" | cmp -s - "$conf" ||
		fail "the lock lines were not set with every other byte kept: $(od -c "$conf" | tail -n 5)"
	[ "$(stat -c '%a %u' "$conf")" = '640 65534' ] || fail "the owner or mode changed: $(stat -c '%a %u' "$conf")"
	cp "$conf" "$tmp/locked"
	f uninstall
	cmp -s "$conf" "$tmp/locked" || fail "uninstall changed the admin's policy"
	# --no-lock: the file as it was, or none.
	cp "$tmp/orig" "$conf"
	f uninstall
	f install --no-lock
	cmp -s "$conf" "$tmp/orig" || fail "--no-lock changed the policy"
	# (lock=maybe, a lock line that does not parse, reads as lock = yes:
	# the stricter reading, issue 50 item 6.)
	grep -q "policy: left as it is (--no-lock): $conf has lock = yes" "$tmp/out" || fail "--no-lock does not say what it left: $(cat "$tmp/out")"
	f uninstall
	rm "$conf"
	f install --no-lock
	[ ! -e "$conf" ] || fail "--no-lock created a policy"
	set +e
	"$FLEET" uninstall --no-lock --root "$root" >"$tmp/out" 2>&1
	r=$?
	set -e
	[ "$r" = 2 ] || fail "uninstall --no-lock exited $r, not 2 (usage)"
	[ -z "$(find "$root/etc" -name '*pmuguard-new*')" ] || fail "a temporary was left"
	ok "the policy: created 0644 and removed while unchanged; the admin's lock lines set, every other byte, owner and mode kept; --no-lock leaves it"
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
conf-log-reaches-seccomp-mode)
	# `log = quiet` in /etc/pmuguard.conf silences the
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
	# With lock = yes, PMUGUARD_SNAPSHOT and --snapshot
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
conf-typo-is-named)
	# A line the policy does not understand is named with its file, line
	# and key, by the command, once by the preload, and by fleet status;
	# the rest of the file (lock = yes) still applies.
	cat >"$tmp/script" <<SH
printf 'snapshot = %s\nmdoe = off\nlock = yes\nlog = stderr\n' $M6I >/etc/pmuguard.conf
PMUGUARD_MODE=off $PMUGUARD run --mode seccomp -- $PEO 4:0x400 >$tmp/run.out 2>$tmp/run.err
LD_PRELOAD=$LIB PMUGUARD_MODE=off $PEO_DYN 4:0x400 4:0x8000 >$tmp/peo.out 2>$tmp/peo.err
$FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
$FLEET status --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/st.txt 2>&1
$FLEET status --json --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/st.json 2>/dev/null
true
SH
	sandbox bash "$tmp/script"
	want="pmuguard: ignoring /etc/pmuguard.conf:2 (unknown key 'mdoe'): that line only; the rest applies"
	grep -qxF "$want" "$tmp/run.err" || fail "pmuguard run does not name the line: $(cat "$tmp/run.err")"
	[ "$(grep -cF "$want" "$tmp/peo.err")" = 1 ] || fail "the preload did not name the line once: $(cat "$tmp/peo.err")"
	grep -q 'ignoring PMUGUARD_MODE=off: /etc/pmuguard.conf has lock = yes' "$tmp/peo.err" ||
		fail "lock = yes after the typo was not kept: $(cat "$tmp/peo.err")"
	grep -q 'config=0x400 .*errno=ENOENT' "$tmp/peo.out" || fail "the locked policy did not deny: $(cat "$tmp/peo.out")"
	grep -qF "policy: ignored: /etc/pmuguard.conf:2 (unknown key 'mdoe')" "$tmp/st.txt" ||
		fail "fleet status does not say the policy has a line it does not understand: $(cat "$tmp/st.txt")"
	python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["preload"]; assert "mdoe" in p["policy_not_understood"], p' "$tmp/st.json" ||
		fail "status --json: $(cat "$tmp/st.json")"
	ok "the typo is named (file, line, key) by run, once by the preload and by fleet status; lock = yes still holds"
	;;
conf-lock-typo-locks)
	# A lock line that does not parse never loosens (issue 50, item 6):
	# `lock = ye` is read as lock = yes, so a user's PMUGUARD_MODE=off
	# (uid 65534) is refused the counter, and status says locked (words,
	# key, metric).  A policy that is not locked (install --no-lock, no
	# lock line) is said as such wherever the preload is listed: "NOT
	# LOCKED", policy_locked false, pmuguard_policy_locked 0.
	mkdir -p "$(etc)" "$tmp/nb" "$tmp/metrics"
	chmod 777 "$tmp/nb"
	printf 'snapshot = %s\nlock = ye\nlog = stderr\n' "$M6I" >"$(etc)/pmuguard.conf"
	cat >"$tmp/script" <<SH
set -e
$FLEET install --layer preload --no-lock --lib $LIB --pmuguard $PMUGUARD >/dev/null
unset LD_PRELOAD
set +e
setpriv --reuid=65534 --regid=65534 --clear-groups env PMUGUARD_MODE=off $FAULTSIM --log $tmp/nb/typo.log -- $PEO_DYN 4:0x400 >$tmp/nb/typo.out 2>&1
echo "typo rc=\$?"
$FLEET status --layer preload --lib $LIB --pmuguard $PMUGUARD --textfile $tmp/metrics/typo.prom >$tmp/typo.txt 2>&1
$FLEET status --keys --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/typo.keys 2>/dev/null
printf 'snapshot = %s\nlog = stderr\n' $M6I >/etc/pmuguard.conf
$FLEET status --layer preload --lib $LIB --pmuguard $PMUGUARD --textfile $tmp/metrics/open.prom >$tmp/open.txt 2>&1
$FLEET status --keys --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/open.keys 2>/dev/null
true
SH
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "the script failed (exit $rc)"
	! grep -q FAULT "$tmp/nb/typo.log" ||
		fail "lock = ye: a user's PMUGUARD_MODE=off reached the simulated fault: $(cat "$tmp/nb/typo.out")"
	grep -q 'config=0x400 errno=ENOENT' "$tmp/nb/typo.out" || fail "lock = ye: 4:0x400 was not refused: $(cat "$tmp/nb/typo.out")"
	grep -qF "pmuguard-fleet: policy: locked (/etc/pmuguard.conf has a lock line that says neither lock = yes nor lock = no, read as lock = yes): users cannot switch the guard off" "$tmp/typo.txt" ||
		fail "status does not say the typo locks: $(cat "$tmp/typo.txt")"
	grep -qF "policy: ignored: /etc/pmuguard.conf:2 (a lock line that says neither lock = yes nor lock = no: 'ye'): read as lock = yes" "$tmp/typo.txt" ||
		fail "status does not name the lock line: $(cat "$tmp/typo.txt")"
	grep -qx 'preload.policy_locked=true' "$tmp/typo.keys" || fail "keys: $(grep policy "$tmp/typo.keys")"
	grep -qx 'pmuguard_policy_locked 1' "$tmp/metrics/typo.prom" || fail "metrics: $(grep policy "$tmp/metrics/typo.prom")"
	grep -qF 'pmuguard-fleet: policy: NOT LOCKED: any user can switch the preload off in their own processes' "$tmp/open.txt" ||
		fail "status does not say the policy is not locked: $(cat "$tmp/open.txt")"
	grep -qx 'preload.policy_locked=false' "$tmp/open.keys" || fail "keys: $(grep policy "$tmp/open.keys")"
	grep -qx 'pmuguard_policy_locked 0' "$tmp/metrics/open.prom" || fail "metrics: $(grep policy "$tmp/metrics/open.prom")"
	ok "lock = ye locks (a user's PMUGUARD_MODE=off refused), and status says locked or NOT LOCKED in words, keys and metrics"
	;;
conf-lock-keeps-run-audit)
	# An audit only looks: under lock = yes the host's policy still answers
	# every call, and the table judges them with the facts --snapshot names.
	cat >"$tmp/script" <<SH
set -e
printf 'lock = yes\nsnapshot = $ICX\nlog = stderr\n' >/etc/pmuguard.conf
$PMUGUARD run --audit --snapshot $M6I -- $PEO 4:0x400
printf 'lock = yes\nsnapshot = $M6I\nlog = stderr\n' >/etc/pmuguard.conf
$PMUGUARD run --audit --snapshot $ICX -- $PEO 4:0x400
SH
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc: $(cat "$tmp/err")"
	! grep -q 'ignoring' "$tmp/err" || fail "the audit's --mode or --snapshot was ignored: $(cat "$tmp/err")"
	grep -q "facts: $M6I)" "$tmp/err" || fail "the audit did not judge with the facts it named: $(cat "$tmp/err")"
	grep -Eq '0x400 .* would be denied: TOPDOWN.SLOTS' "$tmp/err" ||
		fail "the table does not say slots would be denied on the m6i: $(cat "$tmp/err")"
	grep -q 'on an affected machine: yes$' "$tmp/err" || fail "the audit did not answer yes"
	ok "lock = yes: run --audit --snapshot judges with the named facts"
	# On a host whose locked facts have the hazard, the audit weakens nothing.
	{ grep -q 'blocked perf_event_open(type=4, config=0x400) in peo' "$tmp/err" &&
		grep -Eq '0x400 .* denied: TOPDOWN.SLOTS' "$tmp/err"; } ||
		fail "the locked hazardous host's policy did not answer the audited call: $(cat "$tmp/err")"
	grep -q 'is locked (lock = yes, or unreadable): the host.s policy (mode auto) still answers every call' "$tmp/err" ||
		fail "the audit does not say the host's policy still answers"
	ok "lock = yes: the host's policy still answers the audited tree's calls"
	;;
esac
fleet_case_done
