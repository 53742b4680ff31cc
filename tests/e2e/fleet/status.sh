#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Fleet, pmuguard-fleet status: the preload observed by a canary, blocks counted
# (syslog, this boot), what a user cannot see, container runtimes, unknown,
# --keys and --quiet, reports dropped without /dev/log.
# The sandbox and helpers: lib.sh here.
#
#   status.sh CASE        exit 0 pass, 1 fail, 77 skip;  status.sh --list
set -euo pipefail
# shellcheck source=tests/e2e/fleet/lib.sh
. "$(dirname "$0")/lib.sh"

case $case_name in
status-counts-blocks)
	# The preload blocks in fleet mode; status counts the reports it finds
	# (here the sandbox's syslog file), by encoding, as text, JSON and
	# node_exporter metrics written atomically.
	cat >"$tmp/script" <<SH
# The host's policy names the world: the canary that status starts runs
# with an empty environment, as every protected process may.
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
set -e
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
unset LD_PRELOAD
PMUGUARD_SNAPSHOT=$M6I $PEO_DYN 4:0x400 4:0x8000 4:0x1a4 >/dev/null
PMUGUARD_SNAPSHOT=$M6I $PEO_DYN 4:0x400 >/dev/null
# The listener writes each datagram as it takes it: a last one sent after
# the reports, once written, says every report before it is in the file.
python3 -c 'import socket; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"sandbox: reports end", "/dev/log")'
for _ in \$(seq 600); do grep -q 'sandbox: reports end' $tmp/sb/syslog && break; sleep 0.05; done
PMUGUARD_SNAPSHOT=$M6I $FLEET status --layer preload --lib $LIB --pmuguard $PMUGUARD --syslog-file $tmp/sb/syslog \
	--textfile $tmp/metrics/pmuguard.prom
PMUGUARD_SNAPSHOT=$M6I $FLEET status --json --layer preload --lib $LIB --pmuguard $PMUGUARD --syslog-file $tmp/sb/syslog >$tmp/status.json
SH
	mkdir -p "$tmp/metrics"
	m6i_host
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc"
	grep -q 'preload blocks reported since boot: 3 ' "$tmp/out" || fail "status did not count 3 reports"
	grep -q 'preload reports go to: /dev/log' "$tmp/out" || fail "status does not say where reports go"
	python3 - "$tmp/status.json" <<'PY' || fail "the JSON is wrong: $(cat "$tmp/status.json")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["schema"] == 2 and s["version"] and s["generated_at"], s
assert s["hazard"] is True and s["verdict"] == "hazard" and s["guarded"] is True, s
assert s["layer"] == "preload" and s["preload"]["installed"] is True, s
assert s["reports"]["blocks_reported"] == 3, s
enc = {(e["pmu_type"], e["config"]): e["reports"] for e in s["reports"]["by_encoding"]}
assert enc == {(4, "0x400"): 2, (4, "0x8000"): 1}, enc
PY
	prom=$tmp/metrics/pmuguard.prom
	grep -qx 'pmuguard_hazard 1' "$prom" || fail "metrics: no hazard"
	grep -qx 'pmuguard_layer_installed{layer="preload"} 1' "$prom" || fail "metrics: no layer"
	grep -qx 'pmuguard_preload_reports{pmu_type="4",config="0x400"} 2' "$prom" || fail "metrics: no count by encoding"
	python3 "$here/alerts.py" "$here/../../scripts/prometheus/pmuguard.rules.yml" "$prom" pmuguard_preload_reports pmuguard_unguarded \
		pmuguard_status_timestamp_seconds pmuguard_verdict pmuguard_boot_time_seconds >"$tmp/alerts.out" ||
		fail "a shipped alert (pmuguard.rules.yml) selects nothing in the preload's metrics: $(cat "$tmp/alerts.out")"
	[ "$(find "$tmp/metrics" -type f | wc -l)" = 1 ] || fail "a temporary was left beside the metrics"
	# Every sample line is NAME{LABELS} VALUE: what the textfile collector parses.
	! grep -v '^#' "$prom" | grep -vqE '^[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? -?[0-9]+$' ||
		fail "metrics: a line the collector would reject"
	ok "status counts the reports by encoding: text, JSON (schema 1), metrics"
	;;
status-observes-the-preload)
	# The preload counts only as observed: a library the loader refuses
	# (every process prints "cannot be preloaded ... ignored") is no layer,
	# and a process started before the install, holding a perf event, is
	# named as at risk now.
	cat >"$tmp/script" <<SH
# The host's policy names the world: the canary that status starts runs
# with an empty environment, as every protected process may.
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
set -e
python3 -c '
import ctypes, struct, sys, time
libc = ctypes.CDLL(None, use_errno=True)
attr = ctypes.create_string_buffer(struct.pack("IIQ", 1, 128, 9) + bytes(128 - 16), 128)
fd = libc.syscall(298, attr, 0, -1, -1, 8)
print(fd, flush=True)
time.sleep(60)' >$tmp/holder.out &
holder=\$!
for _ in \$(seq 100); do [ -s $tmp/holder.out ] && break; sleep 0.05; done
echo \$holder >$tmp/holder.pid
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/install.out
PMUGUARD_SNAPSHOT=$M6I $FLEET status --json --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/ok.json
# The library made unloadable, as a broken upgrade leaves it.
mount --bind $tmp/short.so $LIB
set +e
PMUGUARD_SNAPSHOT=$M6I $FLEET status --json --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/broken.json 2>/dev/null
echo \$? >$tmp/broken.rc
PMUGUARD_SNAPSHOT=$M6I $FLEET status --layer preload --lib $LIB --pmuguard $PMUGUARD --textfile $tmp/m.prom >$tmp/broken.txt 2>/dev/null
umount $LIB
kill \$holder
SH
	head -c 100 "$LIB" >"$tmp/short.so"
	m6i_host
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc: $(cat "$tmp/err")"
	grep -q 'only processes started from now on load it; those already running stay unguarded until they restart' "$tmp/install.out" ||
		fail "install does not say that running processes stay unguarded: $(cat "$tmp/install.out")"
	python3 - "$tmp/ok.json" "$(cat "$tmp/holder.pid")" <<'PY' || fail "status JSON is wrong: $(cat "$tmp/ok.json")"
import json, sys
s = json.load(open(sys.argv[1]))
p = s["preload"]
assert s["guarded"] is True and p["installed"] and p["loads"] is True and p["guards"] is True, s
assert p["processes_not_mapping"] >= 1 and p["processes_mapping"] >= 1, p
risk = {r["pid"]: r for r in p["at_risk"]}
assert int(sys.argv[2]) in risk and risk[int(sys.argv[2])]["comm"] == "python3", p["at_risk"]
assert s["version"] and s["generated_at"], s
PY
	[ "$(cat "$tmp/broken.rc")" = 3 ] || fail "status with an unloadable library exited $(cat "$tmp/broken.rc"), not 3"
	python3 - "$tmp/broken.json" <<'PY' || fail "status JSON with a broken library is wrong: $(cat "$tmp/broken.json")"
import json, sys
s = json.load(open(sys.argv[1]))
p = s["preload"]
assert s["guarded"] is False and s["layer"] == "none" and p["installed"] is True and p["loads"] is False, s
assert "cannot be preloaded" in p["load_error"], p
PY
	grep -q '^pmuguard-fleet: preload: LISTED BUT NOT LOADED: .*cannot be preloaded' "$tmp/broken.txt" ||
		fail "status text does not say the library does not load: $(cat "$tmp/broken.txt")"
	{ grep -qx 'pmuguard_protected 0' "$tmp/m.prom" && grep -qx 'pmuguard_layer_installed{layer="preload"} 0' "$tmp/m.prom"; } ||
		fail "metrics claim the unloadable preload: $(cat "$tmp/m.prom")"
	ok "status counts the preload only where the loader takes it, and names a process started before the install holding a perf event"
	;;
status-canary-meets-the-policy)
	# The preload counts only where a canary, started now as nobody with an
	# empty environment through /etc/ld.so.preload, was refused: the policy's
	# mode off or audit, an unknown verdict, or a library only root can read
	# each leave it listed and loadable by root, and guarding nothing for
	# every other process.
	UNKNOWN=$FIXTURES/cap-aws-c5-9xlarge-pcm-2021
	mkdir -p "$tmp/lib"
	cp "$LIB" "$tmp/lib/libpmuguard.so"
	cat >"$tmp/script" <<SH
set -e
st() { PMUGUARD_SNAPSHOT=\$1 $FLEET status --json --layer preload --lib $tmp/lib/libpmuguard.so --pmuguard $PMUGUARD \
	--textfile $tmp/\$2.prom >$tmp/\$2.json 2>$tmp/\$2.err || echo \$? >$tmp/\$2.rc; }
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer preload --lib $tmp/lib/libpmuguard.so --pmuguard $PMUGUARD >$tmp/install.out
st $M6I guarded
printf 'snapshot = %s\nmode = off\n' $M6I >/etc/pmuguard.conf
st $M6I off
printf 'snapshot = %s\nmode = audit\n' $M6I >/etc/pmuguard.conf
st $M6I audit
printf 'snapshot = %s\n' $UNKNOWN >/etc/pmuguard.conf
st $UNKNOWN unknown
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
chmod 0600 $tmp/lib/libpmuguard.so
st $M6I rootonly
# As root, the loader still takes it: a process of root's is refused.
PMUGUARD_SNAPSHOT=$M6I $PEO_DYN 4:0x400 >$tmp/root-peo.out
SH
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc: $(cat "$tmp/err")"
	python3 - "$tmp" <<'PY' || fail "status counted a preload that guards nothing"
import json, os, sys
t = sys.argv[1]
def st(name):
    s = json.load(open(os.path.join(t, name + ".json")))
    rc = open(os.path.join(t, name + ".rc")).read().strip() if os.path.exists(os.path.join(t, name + ".rc")) else "0"
    prom = open(os.path.join(t, name + ".prom")).read().split("\n")
    return s, rc, prom
for name in ("off", "audit", "rootonly"):
    s, rc, prom = st(name)
    p = s["preload"]
    assert p["installed"] and p["loads"] and not p["guards"], (name, s)
    assert not s["guarded"] and rc == "3" and "pmuguard_protected 0" in prom, (name, s, rc)
    assert p["canary"] == "reached", (name, s)
s, rc, prom = st("rootonly")
assert "did not load the library" in s["preload"]["canary_why"], s
s, rc, prom = st("unknown")
assert s["verdict"] == "unknown" and not s["preload"]["guards"] and s["preload"]["canary"] == "reached", s
assert not s["guarded"] and rc == "4" and "pmuguard_protected 0" in prom, (s, rc)
s, rc, prom = st("guarded")
assert s["guarded"] and s["preload"]["guards"] and s["preload"]["canary"] == "refused", s
assert s["preload"]["canary_as"] == "uid 65534" and rc == "0" and "pmuguard_protected 1" in prom, (s, rc)
PY
	grep -q 'errno=ENOENT' "$tmp/root-peo.out" || fail "root's own process was not refused: $(cat "$tmp/root-peo.out")"
	# The canary is answered, never said: no block report names it.
	! grep -q 'blocked perf_event_open.* in pmuguard\[' "$tmp/sb/syslog" ||
		fail "the canary's calls were reported as blocks: $(grep 'in pmuguard\[' "$tmp/sb/syslog")"
	grep -q 'blocked perf_event_open.* in peo-dyn\[' "$tmp/sb/syslog" ||
		fail "root's process's block was not reported (the check above proves nothing): $(cat "$tmp/sb/syslog")"
	ok "mode off, mode audit, an unknown verdict and a library only root can read: the canary (uid 65534) was not refused, and status says NO"
	ok "with the policy as installed, the canary was refused and status says yes"
	;;
status-as-a-user-says-what-it-cannot-see)
	# Run by a user, status cannot read other users' processes: it says so
	# and gives no count, instead of counting that user's alone.
	cat >"$tmp/script" <<SH
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
set -e
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
sleep 30 &
holder=\$!
set +e
setpriv --reuid=65534 --regid=65534 --clear-groups env PMUGUARD_SNAPSHOT=$M6I \
	$FLEET status --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/user.txt 2>&1
setpriv --reuid=65534 --regid=65534 --clear-groups env PMUGUARD_SNAPSHOT=$M6I \
	$FLEET status --json --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/user.json 2>/dev/null
kill \$holder
SH
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc: $(cat "$tmp/err")"
	grep -q "preload: [1-9][0-9]* running processes could not be read as uid 65534" "$tmp/user.txt" ||
		fail "status as a user does not say what it cannot see: $(cat "$tmp/user.txt")"
	! grep -q 'running processes map it' "$tmp/user.txt" || fail "status as a user gave a count: $(cat "$tmp/user.txt")"
	python3 - "$tmp/user.json" <<'PY' || fail "status --json as a user: $(cat "$tmp/user.json")"
import json, sys
p = json.load(open(sys.argv[1]))["preload"]
assert p["processes_unreadable"] >= 1 and p["processes_mapping"] is None and p["processes_not_mapping"] is None, p
PY
	ok "status as a user says how many processes it could not read, and counts none"
	;;
status-names-container-runtimes)
	# A container runtime running here (a process named
	# containerd) is named, and on a hazardous host whose only layer is the
	# preload, status says its containers are not covered.
	mkdir -p "$tmp/bin"
	cp "$(command -v sleep)" "$tmp/bin/containerd"
	cat >"$tmp/script" <<SH
# The host's policy names the world: the canary that status starts runs
# with an empty environment, as every protected process may.
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
set -e
$tmp/bin/containerd 60 &
rt=\$!
for _ in \$(seq 100); do [ "\$(cat /proc/\$rt/comm 2>/dev/null)" = containerd ] && break; sleep 0.02; done
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/install.out
set +e
PMUGUARD_SNAPSHOT=$M6I $FLEET status --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/st.txt 2>&1
PMUGUARD_SNAPSHOT=$M6I $FLEET status --json --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/st.json 2>$tmp/st.err
kill \$rt
SH
	m6i_host
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc: $(cat "$tmp/err")"
	# (Other runtimes this machine runs meanwhile, such as another suite's
	# podman, are named too: only ours is required.)
	grep -q '^pmuguard-fleet: containers: .*containerd.* running (.*process containerd, pid [0-9]*.*): NOT covered: the preload does not reach into containers' "$tmp/st.txt" ||
		fail "status does not name the runtime: $(cat "$tmp/st.txt")"
	grep -q '^pmuguard-fleet: protected: PARTLY, by preload: the containers of .*containerd.* are not covered' "$tmp/st.txt" ||
		fail "status claims the containers are protected: $(cat "$tmp/st.txt")"
	python3 - "$tmp/st.json" <<'PY' || fail "status --json: $(cat "$tmp/st.json" "$tmp/st.err")"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["containers"]
assert "containerd" in c["runtimes"] and c["covered_by_kernel_layer"] is False, c
assert d["layer"] == "preload", d["layer"]
PY
	ok "status names the container runtime and says the preload does not cover its containers"
	;;
status-canary-without-preload)
	# No preload listed (issue 50, item 18): the canary's reason says the
	# file does not list the library, not that the loader failed to load
	# it for uid 65534.
	cat >"$tmp/script" <<SH
$FLEET status --keys --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/keys 2>/dev/null
true
SH
	sandbox bash "$tmp/script"
	grep -qx 'preload.installed=false' "$tmp/keys" || fail "the sandbox lists the preload: $(grep preload "$tmp/keys")"
	grep -qx 'preload.canary_why=nothing refused it for uid 65534: /etc/ld.so.preload does not list the library, so no process loads it' "$tmp/keys" ||
		fail "canary_why: $(grep canary_why "$tmp/keys")"
	ok "without a preload entry, the canary's reason says the file does not list the library"
	;;
status-unknown-is-not-fine)
	# No verdict: status exits 4, the metrics say unknown in their own
	# series (no "unguarded 0", no "hazard -1"), and a failed reprobe
	# rewrites the textfile with the failure and its time.
	mkdir -p "$tmp/m"
	printf 'pmuguard_hazard 0\npmuguard_unguarded 0\npmuguard_status_timestamp_seconds 1\n' >"$tmp/m/p.prom"
	set +e
	PMUGUARD_SNAPSHOT=$tmp/nowhere "$FLEET" status --root "$tmp" --lib /x/pmuguard/libpmuguard.so --pmuguard "$PMUGUARD" --textfile "$tmp/m/s.prom" >"$tmp/out" 2>&1
	r=$?
	PMUGUARD_SNAPSHOT=$tmp/nowhere "$FLEET" reprobe --root "$tmp" --lib /x/pmuguard/libpmuguard.so --pmuguard "$PMUGUARD" --textfile "$tmp/m/p.prom" >"$tmp/rout" 2>&1
	rr=$?
	set -e
	[ "$r" = 4 ] || fail "status with no verdict exited $r, not 4: $(cat "$tmp/out")"
	grep -qx 'pmuguard_verdict{state="unknown"} 1' "$tmp/m/s.prom" || fail "metrics: no unknown verdict series: $(cat "$tmp/m/s.prom")"
	! grep -q '^pmuguard_unguarded \|^pmuguard_hazard ' "$tmp/m/s.prom" || fail "metrics: a 0/1 gauge read with nothing checked"
	grep -qx 'pmuguard_protected 0' "$tmp/m/s.prom" || fail "metrics: protected is not 0"
	grep -q '^pmuguard_build_info{version="[0-9][0-9a-z.]*"} 1$' "$tmp/m/s.prom" || fail "metrics: no build_info"
	[ "$rr" = 1 ] || fail "reprobe with no verdict exited $rr, not 1"
	grep -qx 'pmuguard_reprobe_success 0' "$tmp/m/p.prom" || fail "a failed reprobe left the old textfile: $(cat "$tmp/m/p.prom")"
	grep -q '^pmuguard_reprobe_error_info{exit="1",error="the probe gave no verdict' "$tmp/m/p.prom" || fail "metrics: the failure is not said"
	t=$(sed -n 's/^pmuguard_reprobe_timestamp_seconds //p' "$tmp/m/p.prom")
	[ "${t:-0}" -gt $(($(date +%s) - 100)) ] || fail "metrics: the failure has no fresh time"
	ok "an unknown verdict exits 4 and has its own series; a failed reprobe rewrites the metrics with the failure and its time"
	;;
status-syslog-this-boot)
	# Issue 40 (5): "since boot" from a syslog file counted earlier boots'
	# lines.  An earlier boot's report (RFC 3339, 2001) is not counted,
	# this boot's is; one whose time cannot be read is counted and said.
	now=$(date -u +%Y-%m-%dT%H:%M:%S.000000+00:00)
	{
		echo "2001-01-01T00:00:00.000000+00:00 host pmuguard[1]: blocked [data: layer=preload decision=deny type=4 config=0x400]"
		echo "$now host pmuguard[2]: blocked [data: layer=preload decision=deny type=4 config=0x8000]"
	} >"$tmp/syslog.in"
	sandbox "$PMUGUARD" status --keys --syslog-file "$tmp/syslog.in"
	grep -qx 'reports.blocks_reported=1' "$tmp/out" || fail "not this boot's one report: $(grep '^reports\.' "$tmp/out")"
	grep -qx 'reports.of_unknown_boot=0' "$tmp/out" || fail "of_unknown_boot: $(grep '^reports\.' "$tmp/out")"
	echo "<12>pmuguard[3]: blocked [data: layer=preload decision=deny type=4 config=0x400]" >>"$tmp/syslog.in"
	sandbox "$PMUGUARD" status --syslog-file "$tmp/syslog.in"
	grep -q 'preload blocks reported since boot: 2 .*the count may span boots' "$tmp/out" ||
		fail "a report of no readable time was not said: $(grep 'since boot' "$tmp/out")"
	ok "a syslog file's earlier boots are not counted; a line of no readable time is counted and said"
	;;
status-keys-and-quiet)
	# Issue 40 (11): status --keys, which the README gives, was refused;
	# -q was missing from status --help.
	mkdir -p "$tmp/r/etc"
	set +e
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" status --keys --root "$tmp/r" --pmuguard "$PMUGUARD" >"$tmp/out" 2>"$tmp/err"
	r=$?
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" status -q --root "$tmp/r" --pmuguard "$PMUGUARD" >"$tmp/q" 2>&1
	set -e
	[ "$r" = 3 ] || fail "status --keys exited $r: $(cat "$tmp/err")"
	[ "$(head -n 1 "$tmp/out")" = schema=2 ] || fail "status --keys did not print the keys: $(head -n 3 "$tmp/out")"
	[ ! -s "$tmp/q" ] || fail "status -q printed: $(cat "$tmp/q")"
	"$FLEET" status --help | grep -q -- '-q|--quiet' || fail "status --help omits -q"
	ok "pmuguard-fleet status --keys prints the keys, -q nothing, --help names both"
	;;
status-says-reports-are-dropped)
	# No /dev/log: the preload cannot report, so status must not say 0.
	cat >"$tmp/script" <<SH
# The host's policy names the world: the canary that status starts runs
# with an empty environment, as every protected process may.
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
set -e
rm -f /dev/log
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
PMUGUARD_SNAPSHOT=$M6I $FLEET status --layer preload --lib $LIB --pmuguard $PMUGUARD
PMUGUARD_SNAPSHOT=$M6I $FLEET status --json --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/status.json
SH
	sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc"
	grep -q 'preload reports go to: nowhere: /dev/log is absent' "$tmp/out" || fail "status does not say the reports are dropped"
	grep -q 'blocks reported since boot: unknown' "$tmp/out" || fail "status counts what it cannot see"
	! grep -q 'since boot: 0' "$tmp/out" || fail "status says 0"
	python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["reports"]["blocks_reported"] is None and s["reports"]["not_counted_because"], s' \
		"$tmp/status.json" || fail "JSON: blocks should be null with a reason"
	ok "without /dev/log status says where reports go (nowhere) and gives unknown, not 0"
	;;
status-quiet-prints-nothing)
	# --quiet: the exit code (and, with --textfile, the metrics) alone.
	root=$tmp/root
	mkdir -p "$root/etc"
	set +e
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" status --quiet --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1
	r=$?
	set -e
	[ "$r" = 3 ] || fail "status --quiet on an unguarded hazardous tree exited $r, not 3"
	[ ! -s "$tmp/out" ] || fail "status --quiet printed: $(cat "$tmp/out")"
	PMUGUARD_SNAPSHOT=$M6I "$FLEET" status -q --root "$root" --pmuguard "$PMUGUARD" --textfile "$tmp/q.prom" >"$tmp/out" 2>&1 || :
	{ [ ! -s "$tmp/out" ] && grep -qx 'pmuguard_unguarded 1' "$tmp/q.prom"; } ||
		fail "status -q --textfile printed, or wrote no metrics: $(cat "$tmp/out")"
	ok "status --quiet prints nothing: the exit code and the metrics alone"
	;;
esac
fleet_case_done
