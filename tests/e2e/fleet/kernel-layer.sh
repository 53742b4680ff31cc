#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Fleet, the layer choice (the kernel guard, or the preload where the kernel
# refuses, on this host for real) and reprobe across host types.
# The sandbox and helpers: lib.sh here.
#
#   kernel-layer.sh CASE        exit 0 pass, 1 fail, 77 skip;  kernel-layer.sh --list
set -euo pipefail
# shellcheck source=tests/e2e/fleet/lib.sh
. "$(dirname "$0")/lib.sh"

case $case_name in
layer-choice)
	# install --layer auto takes the kernel guard where it attaches, the
	# preload where the kernel refuses; --layer kernel fails (4) without
	# touching the file; status names the layer.  A stub stands in for
	# `pmuguard enforce` (the real one is refused on this build host, and
	# the vm suite shows the real attach); everything else is the real
	# pmuguard.
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	printf '/usr/lib/libkeep.so\n' >"$root/etc/ld.so.preload"
	cp "$root/etc/ld.so.preload" "$tmp/orig"
	# The stub answers as the real one does for scripts: --keys (KEY=VALUE
	# lines, schema 1, the guard's state named) and the exit codes; the
	# human words it would print are not the script's to read, so the
	# stub prints none.
	cat >"$tmp/pmuguard" <<SH
#!/bin/sh
echo "\$*" >>"$tmp/calls.log"
case "\$1 \${2:-} \${3:-}" in
"enforce start --keys")
	echo start >>"$tmp/enforce.log"
	echo schema=1
	if [ "\$STUB_KERNEL" != ok ]; then
		printf '%s\\n' outcome=refused exit=4 'error=the kernel refused to load the fmod_ret program: Operation not permitted' \
			attach= mode=auto enforce=true facts.state=hazard facts.source=live facts.snapshot= reason=hazard
		exit 4
	fi
	if [ -e "$tmp/attached" ]; then echo outcome=already; else echo outcome=attached; fi
	touch "$tmp/attached"
	printf '%s\\n' error= attach=lsm mode=auto enforce=true core_types.0=4 core_types.1=10 facts.state=hazard \
		facts.source=live facts.snapshot= 'reason=this guest advertises fixed counter 3' started=1764676800 \
		existing.known=true existing.files=2
	if [ "\${STUB_EXISTING:-0}" = 1 ]; then
		printf '%s\\n' exit=7 existing.hits=1 existing.unguarded=true existing.events.0.pid=321 \
			'existing.events.0.comm=perf\\x1b[0m' existing.events.0.fd=3 existing.events.0.type=4 \
			existing.events.0.config=0x400 'existing.events.0.name=TOPDOWN.SLOTS (fixed counter 3)'
		exit 7
	fi
	printf '%s\\n' exit=0 existing.hits=0 existing.unguarded=false
	exit 0 ;;
"enforce status --keys")
	echo schema=1
	if [ -e "$tmp/attached" ] && [ "\${STUB_UNVERIFIED:-0}" = 1 ]; then
		printf '%s\\n' exit=8 state=unverified attached=true error= protects=false verified=false verification.ran=true \
			'verification.why=the self-test'"'"'s canary event was opened: the lsm program is attached but the kernel does not run it' \
			why= attach=lsm mode=auto enforce=true core_types.0=4 totals.denied=0 totals.audited=0
		exit 8
	fi
	if [ -e "$tmp/attached" ] && [ "\${STUB_AUDIT:-0}" = 1 ]; then
		printf '%s\\n' exit=9 state=audit attached=true error= protects=false verified=true verification.ran=true \
			verification.checked_at=1764676900 verification.checked_utc=2025-12-02T12:01:40Z \
			why= attach=lsm mode=audit enforce=false core_types.0=4 totals.denied=0 totals.audited=3 \
			existing.known=true existing.files=0 existing.hits=0 existing.unguarded=false
		exit 9
	fi
	if [ -e "$tmp/attached" ] && [ "\${STUB_EXISTING:-0}" = 1 ]; then
		printf '%s\\n' exit=7 state=attached attached=true error= protects=true verified=true verification.ran=true \
			verification.checked_at=1764676900 verification.checked_utc=2025-12-02T12:01:40Z \
			started=1764676800 started_utc=2025-12-02T12:00:00Z why= attach=lsm mode=auto enforce=true \
			core_types.0=4 totals.denied=0 totals.audited=0 existing.known=true existing.files=3 \
			existing.hits=2 existing.unguarded=true existing.events.0.pid=321 'existing.events.0.comm=perf\\x1b[0m' \
			existing.events.0.fd=3 existing.events.0.config=0x400 existing.events.1.pid=654 \
			existing.events.1.comm=toplev existing.events.1.fd=5 existing.events.1.config=0x8000
		exit 7
	fi
	if [ -e "$tmp/attached" ]; then
		printf '%s\\n' exit=0 state=attached attached=true error= protects=true verified=true verification.ran=true \
			verification.checked_at=1764676900 verification.checked_utc=2025-12-02T12:01:40Z \
			started=1764676800 started_utc=2025-12-02T12:00:00Z \
			why= attach=lsm mode=auto enforce=true core_types.0=4 \
			totals.denied=7 totals.audited=0 totals.reports_lost=0 totals.keys_not_counted=0 encodings=3 \
			by_encoding.0.decision=denied by_encoding.0.uid=0 by_encoding.0.pmu_type=4 by_encoding.0.config=0x400 by_encoding.0.calls=5 \
			'by_encoding.0.last_comm=perf\\x0a' 'by_encoding.0.name=TOPDOWN.SLOTS (fixed counter 3)' \
			by_encoding.1.decision=denied by_encoding.1.uid=1000 by_encoding.1.pmu_type=4 by_encoding.1.config=0x400 by_encoding.1.calls=1 \
			by_encoding.2.decision=denied by_encoding.2.uid=0 by_encoding.2.pmu_type=4 by_encoding.2.config=0x8000 by_encoding.2.calls=1 \
			existing.known=true existing.files=2 existing.hits=0 existing.unguarded=false
		exit 0
	fi
	printf '%s\\n' exit=6 state=detached attached=false error= 'why=nothing is pinned at /sys/fs/bpf/pmuguard/link'; exit 6 ;;
"enforce stop "*) rm -f "$tmp/attached"; echo "pmuguard: enforce: stopped"; exit 0 ;;
"enforce "*) echo "stub: unexpected \$*" >&2; exit 2 ;;
	esac
exec "$PMUGUARD" "\$@"
SH
	chmod 755 "$tmp/pmuguard"
	f() { PMUGUARD_SNAPSHOT=$M6I "$FLEET" "$@" --root "$root" --pmuguard "$tmp/pmuguard"; }
	# The kernel refuses: auto falls back to the preload and says why.
	STUB_KERNEL=eperm f install --layer auto >"$tmp/out" 2>&1 || fail "auto install with a refusing kernel failed"
	grep -q 'kernel: not available (could not attach the kernel guard: .*Operation not permitted.*): using the preload' "$tmp/out" ||
		fail "the fallback was not explained"
	grep -qxF /usr/lib/pmuguard/libpmuguard.so "$root/etc/ld.so.preload" || fail "the preload was not installed"
	STUB_KERNEL=eperm f status --layer auto >"$tmp/out" || fail "status of a guarded host is not 0"
	grep -q '^pmuguard-fleet: layer: preload$' "$tmp/out" || fail "status does not name the preload layer"
	f uninstall >"$tmp/out"
	cmp -s "$root/etc/ld.so.preload" "$tmp/orig" || fail "uninstall did not restore the file"
	# --layer kernel with a refusing kernel: exit 4, nothing changed.
	set +e
	STUB_KERNEL=eperm f install --layer kernel >"$tmp/out" 2>"$tmp/err"
	r=$?
	set -e
	[ "$r" = 4 ] || fail "--layer kernel on a refusing kernel exited $r, not 4"
	grep -q 'cannot attach the kernel guard' "$tmp/err" || fail "--layer kernel: no reason given"
	cmp -s "$root/etc/ld.so.preload" "$tmp/orig" || fail "--layer kernel changed the file"
	# Status exit 3: hazard, nothing guards.
	set +e
	STUB_KERNEL=eperm f status --layer auto >"$tmp/out"
	r=$?
	set -e
	[ "$r" = 3 ] || fail "status on an unguarded hazardous host exited $r, not 3"
	grep -q '^pmuguard-fleet: layer: none$' "$tmp/out" || fail "status does not say no layer guards the host"
	# The kernel takes it: auto attaches and leaves the file alone; again: quiet.
	STUB_KERNEL=ok f install --layer auto >"$tmp/out" 2>&1 || fail "auto install with a willing kernel failed"
	grep -q '^pmuguard-fleet: kernel: attached (lsm' "$tmp/out" || fail "the kernel layer was not reported"
	cmp -s "$root/etc/ld.so.preload" "$tmp/orig" || fail "the kernel layer also wrote the preload"
	STUB_KERNEL=ok f install --layer auto --quiet >"$tmp/out" 2>&1 || fail "second install failed"
	[ ! -s "$tmp/out" ] || fail "a second install is not quiet: $(cat "$tmp/out")"
	STUB_KERNEL=ok f status --layer auto >"$tmp/out" || fail "status with the kernel layer is not 0"
	grep -q '^pmuguard-fleet: layer: kernel$' "$tmp/out" || fail "status does not name the kernel layer"
	grep -q 'kernel: attached and verified .*; denied 7' "$tmp/out" || fail "status does not give the kernel's counts"
	# JSON and metrics from the counts' data: summed over uids, the
	# encoding as 0x%x (as the preload's), a comm's escape carried as text.
	STUB_KERNEL=ok f status --layer auto --json --textfile "$tmp/k.prom" >"$tmp/k.json" || fail "status --json with the kernel layer is not 0"
	python3 - "$tmp/k.json" <<'PY' || fail "kernel JSON is wrong: $(cat "$tmp/k.json")"
import json, sys
s = json.load(open(sys.argv[1]))
k = s["kernel"]
assert s["layer"] == "kernel" and k["state"] == "attached" and k["attach"] == "lsm" and k["mode"] == "auto", s
assert k["denied"] == 7 and k["audited"] == 0 and k["reports_lost"] == 0 and k["existing_events"] == 0, k
enc = {(e["decision"], e["pmu_type"], e["config"]): e["calls"] for e in k["by_encoding"]}
assert enc == {("denied", 4, "0x400"): 6, ("denied", 4, "0x8000"): 1}, enc
PY
	grep -qx 'pmuguard_kernel_calls_total{decision="denied",pmu_type="4",config="0x400"} 6' "$tmp/k.prom" ||
		fail "metrics: the kernel's counts by encoding: $(grep kernel_calls "$tmp/k.prom")"
	python3 "$here/alerts.py" "$here/../../scripts/prometheus/pmuguard.rules.yml" "$tmp/k.prom" pmuguard_kernel_calls_total \
		pmuguard_unguarded pmuguard_status_timestamp_seconds pmuguard_verdict >"$tmp/alerts.out" ||
		fail "a shipped alert (pmuguard.rules.yml) selects nothing in the kernel layer's metrics: $(cat "$tmp/alerts.out")"
	grep -qx 'pmuguard_layer_installed{layer="kernel"} 1' "$tmp/k.prom" || fail "metrics: no kernel layer"
	grep -qx 'pmuguard_kernel_verified_timestamp_seconds 1764676900' "$tmp/k.prom" || fail "metrics: no verification time"
	grep -q '^pmuguard-fleet: kernel: attached and verified at 2025-12-02T12:01:40Z (self-test), since 2025-12-02T12:00:00Z' "$tmp/out" ||
		fail "status text does not say verified when and since when: $(cat "$tmp/out")"
	# Attached, but its self-test fails (exit 8): no layer, unguarded (3).
	set +e
	STUB_KERNEL=ok STUB_UNVERIFIED=1 f status --layer auto --json >"$tmp/u.json"
	r=$?
	STUB_KERNEL=ok STUB_UNVERIFIED=1 f status --layer auto >"$tmp/u.txt"
	set -e
	[ "$r" = 3 ] || fail "status with an unverified kernel guard exited $r, not 3"
	python3 - "$tmp/u.json" <<'PY' || fail "unverified JSON is wrong: $(cat "$tmp/u.json")"
import json, sys
s = json.load(open(sys.argv[1]))
k = s["kernel"]
assert s["guarded"] is False and s["layer"] == "none", s
assert k["state"] == "unverified" and k["verified"] is False and "does not run" in k["not_verified_because"], k
PY
	grep -q '^pmuguard-fleet: kernel: ATTACHED BUT NOT VERIFIED: .*does not run it: it guards nothing' "$tmp/u.txt" ||
		fail "status text does not say the kernel guard is unverified: $(cat "$tmp/u.txt")"
	STUB_KERNEL=ok f uninstall --layer auto >"$tmp/out"
	[ ! -e "$tmp/attached" ] || fail "uninstall did not stop the kernel guard"
	# Attached, but an event of the class was opened before (exit 7): the
	# install succeeds and names it on stderr, its comm escaped.
	STUB_KERNEL=ok STUB_EXISTING=1 f install --layer kernel >"$tmp/out" 2>"$tmp/err" || fail "install with exit 7 of start failed"
	grep -q '^pmuguard-fleet: kernel: attached (lsm, denying with ENOENT, mode auto, core PMU types 4, 10, facts from this machine): this guest' "$tmp/out" ||
		fail "exit 7: the kernel layer was not reported: $(cat "$tmp/out")"
	grep -q 'kernel: warning: 1 perf event(s) of the counter-3 class were allocated before the guard' "$tmp/err" ||
		fail "exit 7: no warning: $(cat "$tmp/err")"
	grep -qF 'kernel:   pid 321 (perf\x1b[0m) fd 3: type 4 config 0x400: TOPDOWN.SLOTS (fixed counter 3)' "$tmp/err" ||
		fail "exit 7: the event is not named (escaped): $(cat "$tmp/err")"
	# Status, while those events exist (enforce status exits 7): enabled,
	# one still panics the host, so the kernel layer guards it only
	# PARTLY: exit 3, the processes named, the metrics say so.
	set +e
	STUB_KERNEL=ok STUB_EXISTING=1 f status --layer kernel --textfile "$tmp/e.prom" >"$tmp/e.txt"
	r=$?
	STUB_KERNEL=ok STUB_EXISTING=1 f status --layer kernel --json >"$tmp/e.json"
	set -e
	[ "$r" = 3 ] || fail "status with events opened before the kernel guard exited $r, not 3"
	grep -qxF 'pmuguard-fleet: protected: PARTLY, by kernel: 2 perf events of the hazardous class opened before the guard (pid 321 perf\x1b[0m, pid 654 toplev) are not guarded; restart those processes' "$tmp/e.txt" ||
		fail "status does not say PARTLY and name the processes: $(cat "$tmp/e.txt")"
	for m in 'pmuguard_protected 0' 'pmuguard_unguarded 1' 'pmuguard_kernel_existing_events 2' \
		'pmuguard_layer_installed{layer="kernel"} 1'; do
		grep -qxF "$m" "$tmp/e.prom" || fail "metrics: no '$m': $(grep -v '^#' "$tmp/e.prom")"
	done
	python3 - "$tmp/e.json" <<'PY' || fail "PARTLY JSON is wrong: $(cat "$tmp/e.json")"
import json, sys
s = json.load(open(sys.argv[1]))
k = s["kernel"]
assert s["exit"] == 3 and s["guarded"] is True and s["layer"] == "kernel", s
assert k["state"] == "attached" and k["existing_events"] == 2 and k["existing_unguarded"] == 2, k
PY
	STUB_KERNEL=ok f uninstall --layer kernel >"$tmp/out"
	# Attached in audit mode (enforce status exits 9): no layer (3); and
	# uninstall still stops it.
	STUB_KERNEL=ok f install --layer kernel >"$tmp/out" 2>&1 || fail "install before the audit case failed"
	set +e
	STUB_KERNEL=ok STUB_AUDIT=1 f status --layer kernel --textfile "$tmp/a.prom" >"$tmp/a.txt"
	r=$?
	set -e
	[ "$r" = 3 ] || fail "status with an audit kernel guard exited $r, not 3"
	grep -q '^pmuguard-fleet: protected: NO' "$tmp/a.txt" ||
		fail "status does not say NO under an audit guard: $(cat "$tmp/a.txt")"
	grep -q '^pmuguard-fleet: kernel: attached in audit mode' "$tmp/a.txt" ||
		fail "status does not say the kernel guard is in audit mode: $(cat "$tmp/a.txt")"
	grep -qx 'pmuguard_protected 0' "$tmp/a.prom" || fail "metrics: an audit guard counted as protection"
	rm -f "$tmp/calls.log"
	STUB_KERNEL=ok STUB_AUDIT=1 f uninstall --layer kernel >"$tmp/out"
	[ ! -e "$tmp/attached" ] || fail "uninstall did not stop the audit kernel guard: $(cat "$tmp/out")"
	# Uninstall asks the kernel layer alone: no whole status (its canary
	# and /proc scan), in the package's prerm too.
	! grep -q '^status' "$tmp/calls.log" || fail "uninstall ran a whole pmuguard status: $(cat "$tmp/calls.log")"
	grep -qx 'enforce status --keys' "$tmp/calls.log" || fail "uninstall did not ask the kernel layer: $(cat "$tmp/calls.log")"
	# Under --root without --layer, the running kernel is left alone.
	rm -f "$tmp/enforce.log"
	STUB_KERNEL=ok f install >"$tmp/out" 2>&1
	[ ! -e "$tmp/enforce.log" ] || fail "install --root without --layer touched the running kernel"
	f uninstall >"$tmp/out"
	ok "auto: kernel where it attaches, else the preload (said why); kernel only: 4, file unchanged; status names the layer; PARTLY (3) while events opened before the kernel guard exist; audit is no layer, and uninstall stops it"
	;;
layer-auto-falls-back-on-this-kernel)
	# The real `pmuguard enforce start`, in a private mount namespace with
	# a private bpffs: this build host's kernel refuses BPF LSM and fmod_ret
	# loads (EPERM), so auto must take the preload.  Where a kernel does
	# attach, the kernel layer is checked instead and stopped again.
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	cat >"$tmp/script" <<SH
set -e
mount --make-rprivate /
mount -t bpf bpf /sys/fs/bpf 2>/dev/null || mount -t tmpfs tmpfs /sys/fs/bpf
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer auto --root $root --pmuguard $PMUGUARD
set +e
PMUGUARD_SNAPSHOT=$M6I $FLEET status --layer auto --root $root --pmuguard $PMUGUARD
echo "status=\$?"
PMUGUARD_SNAPSHOT=$M6I $FLEET uninstall --layer auto --root $root --pmuguard $PMUGUARD
SH
	unshare -m bash "$tmp/script" >"$tmp/out" 2>&1 || fail "install in the namespace failed"
	grep -q 'status=0' "$tmp/out" || fail "status after install is not 0"
	if grep -q 'kernel: not available' "$tmp/out"; then
		grep -q 'layer: preload' "$tmp/out" || fail "the fallback did not install the preload"
		ok "this kernel refuses the guard: auto installed the preload"
	else
		grep -q 'layer: kernel' "$tmp/out" || fail "neither layer was installed"
		ok "this kernel took the guard: auto installed the kernel layer (and stopped it)"
	fi
	[ ! -e "$root/etc/ld.so.preload" ] || fail "uninstall left the file"
	;;
reprobe-follows-the-host)
	# A host that is stopped and started as another type: reprobe guards it
	# when it is an m6i, unguards it when it is an icx, and is quiet when
	# nothing changes; an unknown verdict changes nothing.
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	printf '/usr/lib/libkeep.so\n' >"$root/etc/ld.so.preload"
	cp "$root/etc/ld.so.preload" "$tmp/orig"
	rp() { PMUGUARD_SNAPSHOT=$1 "$FLEET" reprobe --quiet --root "$root" --pmuguard "$PMUGUARD" --textfile "$tmp/pmuguard.prom"; }
	rp "$M6I" >"$tmp/out" || fail "reprobe on an m6i failed"
	grep -q 'installed: .* now lists' "$tmp/out" || fail "reprobe did not say it installed"
	grep -q '^pmuguard_layer_installed{layer="preload"} 1$' "$tmp/pmuguard.prom" || fail "the metrics do not show the preload"
	rp "$M6I" >"$tmp/out" || fail "a second reprobe failed"
	[ ! -s "$tmp/out" ] || fail "reprobe with nothing to change is not quiet: $(cat "$tmp/out")"
	rp "$ICX" >"$tmp/out" || fail "reprobe on an icx failed"
	grep -q 'uninstalled' "$tmp/out" || fail "reprobe on a healthy host did not uninstall"
	cmp -s "$root/etc/ld.so.preload" "$tmp/orig" || fail "the healthy host's file is not as it was"
	grep -q '^pmuguard_hazard 0$' "$tmp/pmuguard.prom" || fail "the metrics still say hazard"
	rp "$ICX" >"$tmp/out" || fail "a second reprobe on icx failed"
	[ ! -s "$tmp/out" ] || fail "a second reprobe on icx is not quiet"
	set +e
	rp "$tmp/no-such-snapshot" >"$tmp/out" 2>&1
	r=$?
	set -e
	[ "$r" = 1 ] || fail "an unknown verdict exited $r, not 1"
	cmp -s "$root/etc/ld.so.preload" "$tmp/orig" || fail "an unknown verdict changed the file"
	# Facts that can be read but decide nothing (probe --check exits 0,
	# guard_state unknown) are no proof of health: a guarded host stays so.
	rp "$M6I" >"$tmp/out" || fail "reprobe on an m6i (again) failed"
	set +e
	rp "$FIXTURES/guest-no-leaf-a" >"$tmp/out" 2>&1
	r=$?
	set -e
	[ "$r" = 1 ] || fail "a guest without leaf 0xA exited $r, not 1 (unknown)"
	head -n1 "$root/etc/ld.so.preload" | grep -q libpmuguard || fail "an unknown verdict took the guard away"
	# The timer's status keeps the boot's reprobe lines in the one file:
	# each series once, the status's own timestamp.
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" status --quiet --root "$root" --pmuguard "$PMUGUARD" \
		--textfile "$tmp/pmuguard.prom" >/dev/null || :
	grep -qx 'pmuguard_reprobe_success 0' "$tmp/pmuguard.prom" ||
		fail "status dropped the last reprobe's pmuguard_reprobe_success: $(cat "$tmp/pmuguard.prom")"
	grep -q '^pmuguard_reprobe_error_info{exit="1",' "$tmp/pmuguard.prom" || fail "status dropped the reprobe's error"
	dups=$(grep -v '^#' "$tmp/pmuguard.prom" | sed 's/ [^ ]*$//' | sort | uniq -d)
	[ -z "$dups" ] || fail "series written twice: $dups"
	ok "reprobe: m6i guarded, icx unguarded, quiet when nothing changes, unknown (no snapshot, or facts that decide nothing) changes nothing; a later status keeps the reprobe's metrics, each series once"
	;;
reprobe-failed-command-says-so)
	# Issue 40 (4): a reprobe whose command is missing (or whose status
	# cannot write) left pmuguard_reprobe_success 1 and the old time.
	mkdir -p "$tmp/m" "$tmp/r/etc"
	printf 'pmuguard_reprobe_success 1\npmuguard_reprobe_timestamp_seconds 1\n' >"$tmp/m/p.prom"
	set +e
	"$FLEET" reprobe --root "$tmp/r" --lib /x/pmuguard/libpmuguard.so --pmuguard "$tmp/no-such-pmuguard" \
		--textfile "$tmp/m/p.prom" >"$tmp/out" 2>&1
	rr=$?
	set -e
	[ "$rr" != 0 ] || fail "a reprobe without its command exited 0"
	grep -qx 'pmuguard_reprobe_success 0' "$tmp/m/p.prom" || fail "the old success was left: $(cat "$tmp/m/p.prom")"
	grep -q '^pmuguard_reprobe_error_info{exit="[0-9]*",error=".*pmuguard status could not write the metrics' "$tmp/m/p.prom" ||
		fail "the failure is not said: $(cat "$tmp/m/p.prom")"
	t=$(sed -n 's/^pmuguard_reprobe_timestamp_seconds //p' "$tmp/m/p.prom")
	[ "${t:-0}" -gt $(($(date +%s) - 100)) ] || fail "the failure has no fresh time"
	[ "$(stat -c %a "$tmp/m/p.prom")" = 644 ] || fail "the file is mode $(stat -c %a "$tmp/m/p.prom")"
	ok "a reprobe without its command: success 0, its time and why"
	;;
esac
fleet_case_done
