#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Fleet, journald native entries (a stand-in journald and journalctl in the
# namespace): counted by MESSAGE_ID and layer, forged ones no evidence.
# The sandbox and helpers: lib.sh here.
#
#   journal.sh CASE        exit 0 pass, 1 fail, 77 skip;  journal.sh --list
set -euo pipefail
# shellcheck source=tests/e2e/fleet/lib.sh
. "$(dirname "$0")/lib.sh"

case $case_name in
journal-entries-counted-by-message-id)
	# Under journald the preload and the supervisor send native entries
	# (MESSAGE_ID, PMUGUARD_* fields), nothing to /dev/log.  status counts
	# the preload's entries only: the kernel guard's (enforce follow under
	# systemd sends its own MESSAGE_ID) and a plain "pmuguard" stdout line of
	# the enforce service are not preload blocks (they were counted as such
	# by "journalctl -t pmuguard").
	cat >"$tmp/script" <<SH
# The host's policy names the world: the canary that status starts runs
# with an empty environment, as every protected process may.
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
set -e
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
unset LD_PRELOAD
PMUGUARD_SNAPSHOT=$M6I $PEO_DYN 4:0x400 4:0x8000 >/dev/null
printf 'snapshot = %s\nlog = syslog\n' $M6I >/etc/pmuguard.conf
$PMUGUARD run --mode seccomp --snapshot $M6I -- $PEO 4:0x8100 >/dev/null
python3 - <<'PY'
import socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
for d in (b"MESSAGE=blocked perf_event_open(type=4, config=0x400) in perf[7]: TOPDOWN.SLOTS\n"
          b"MESSAGE_ID=d93446f22afd479cb455b565ea7ca8ed\nSYSLOG_IDENTIFIER=pmuguard\nPMUGUARD_LAYER=kernel\n",
          b"MESSAGE=pmuguard: blocked perf_event_open(type=4, config=0x400) in perf[8]: TOPDOWN.SLOTS\n"
          b"SYSLOG_IDENTIFIER=pmuguard\n",
          # Counted by their fields, whatever their words: a denial (with
          # two reports its process could not deliver) and an audit.
          b"MESSAGE=reworded, in other words entirely\nMESSAGE_ID=7cd40d08058b4d219f41289bb6a12067\n"
          b"SYSLOG_IDENTIFIER=fake\nPMUGUARD_LAYER=preload\nPMUGUARD_DECISION=deny\n"
          b"PMUGUARD_TYPE=4\nPMUGUARD_CONFIG=0x8300\nPMUGUARD_UNDELIVERED=2\n",
          b"MESSAGE=blocked perf_event_open(type=4, config=0x400) in words only\n"
          b"MESSAGE_ID=7cd40d08058b4d219f41289bb6a12067\nSYSLOG_IDENTIFIER=fake\nPMUGUARD_LAYER=preload\n"
          b"PMUGUARD_DECISION=audit\nPMUGUARD_TYPE=4\nPMUGUARD_CONFIG=0x8400\n"):
    s.sendto(d, "/run/systemd/journal/socket")
# Sent last, once in the file it says every entry before it is there.
s.sendto(b"MESSAGE=entries end\nSYSLOG_IDENTIFIER=sync\n", "/run/systemd/journal/socket")
PY
for _ in \$(seq 600); do grep -q 'entries end' $tmp/sb/journal && break; sleep 0.05; done
PATH=$here:\$PATH SANDBOX_JOURNAL_FILE=$tmp/sb/journal PMUGUARD_SNAPSHOT=$M6I \
	$FLEET status --json --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/status.json
SH
	m6i_host
	SANDBOX_JOURNAL=1 sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc: $(cat "$tmp/err")"
	! grep -q 'blocked' "$tmp/syslog" || fail "a report went to /dev/log although journald listens"
	python3 - "$tmp/sb/journal" "$tmp/status.json" <<'PY' || fail "journal or status wrong: $(cat "$tmp/sb/journal" "$tmp/status.json")"
import json, sys
entries = [json.loads(l) for l in open(sys.argv[1])]
mine = [e for e in entries if e.get("MESSAGE_ID") == "7cd40d08058b4d219f41289bb6a12067" and e.get("SYSLOG_IDENTIFIER") != "fake"]
layers = sorted((e["PMUGUARD_LAYER"], e["PMUGUARD_CONFIG"]) for e in mine)
assert layers == [("preload", "0x400"), ("preload", "0x8000"), ("seccomp", "0x8100")], layers
for e in mine:
    assert e["PRIORITY"] == "4" and e["SYSLOG_IDENTIFIER"] == "pmuguard", e
    assert e["PMUGUARD_DECISION"] == "deny" and e["PMUGUARD_TYPE"] == "4" and e["PMUGUARD_UID"] == "0", e
    assert e["PMUGUARD_PROGRAM"].startswith("peo") and int(e["PMUGUARD_PID"]) > 0, e
    assert e["MESSAGE"].startswith("blocked perf_event_open(type=4, config=" + e["PMUGUARD_CONFIG"] + ")"), e
    assert "_BAD" not in e, e
s = json.load(open(sys.argv[2]))
assert s["reports"]["counted_from"] == "journal", s
assert s["reports"]["blocks_reported"] == 3 and s["reports"]["undelivered"] == 2, s
enc = {(e["pmu_type"], e["config"]): e["reports"] for e in s["reports"]["by_encoding"]}
assert enc == {(4, "0x400"): 1, (4, "0x8000"): 1, (4, "0x8300"): 1}, enc
assert s["reports"]["destination"].startswith("journald"), s
PY
	ok "journald entries carry MESSAGE_ID and the fields; status counts the preload's denials only, by their fields"
	;;
journal-forged-entries-are-not-evidence)
	# Any user can write a journal entry with any field but the trusted
	# ones journald sets (_UID, _PID).  A kernel-layer entry counts only
	# from root; the preload's are the processes' own reports, bounded.
	[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3 for a user to run (python3 on PATH may be root's own)"
	cat >"$tmp/forge.py" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
def send(**f):
    s.sendto("".join("%s=%s\n" % kv for kv in f.items()).encode(), "/run/systemd/journal/socket")
K, B = "d93446f22afd479cb455b565ea7ca8ed", "7cd40d08058b4d219f41289bb6a12067"
if sys.argv[1] == "user":
    send(MESSAGE="blocked", MESSAGE_ID=K, PMUGUARD_LAYER="kernel", PMUGUARD_PROGRAM="sshd", _UID="0")
    send(MESSAGE="blocked", MESSAGE_ID=B, PMUGUARD_LAYER="kernel", PMUGUARD_PROGRAM="sshd")
    for i in range(200):
        send(MESSAGE="blocked", MESSAGE_ID=B, PMUGUARD_LAYER="preload", PMUGUARD_DECISION="deny",
             PMUGUARD_TYPE="4", PMUGUARD_CONFIG="0x%x" % (0x10000 + i), PMUGUARD_PROGRAM="p%d" % i)
    send(MESSAGE="blocked", MESSAGE_ID=B, PMUGUARD_LAYER="preload", PMUGUARD_DECISION="deny",
         PMUGUARD_TYPE="4", PMUGUARD_CONFIG="0x400", PMUGUARD_UNDELIVERED="1000000", PMUGUARD_PROGRAM="perf")
else:
    send(MESSAGE="blocked", MESSAGE_ID=K, PMUGUARD_LAYER="kernel", PMUGUARD_PROGRAM="toplev")
send(MESSAGE="forged: end", SYSLOG_IDENTIFIER="forge")
PY
	cat >"$tmp/script" <<SH
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
set -e
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 $tmp/forge.py user
python3 $tmp/forge.py root
for _ in \$(seq 200); do [ "\$(grep -c 'forged: end' $tmp/sb/journal)" = 2 ] && break; sleep 0.05; done
PATH=$here:\$PATH SANDBOX_JOURNAL_FILE=$tmp/sb/journal PMUGUARD_SNAPSHOT=$M6I \
	$FLEET status --layer preload --lib $LIB --pmuguard $PMUGUARD --textfile $tmp/m.prom >$tmp/st.txt 2>&1
PATH=$here:\$PATH SANDBOX_JOURNAL_FILE=$tmp/sb/journal PMUGUARD_SNAPSHOT=$M6I \
	$FLEET status --json --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/st.json
SH
	SANDBOX_JOURNAL=1 sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc: $(cat "$tmp/err") $(cat "$tmp/st.txt" 2>/dev/null)"
	! grep -q 'sshd.*kernel' "$tmp/st.txt" || fail "a user's entry named a program blocked by the kernel: $(grep sshd "$tmp/st.txt")"
	grep -q 'blocked this boot: toplev, 1 time(s) (kernel layer' "$tmp/st.txt" ||
		fail "root's kernel entry was not counted: $(cat "$tmp/st.txt")"
	python3 - "$tmp/st.json" "$tmp/m.prom" <<'PY' || fail "forged entries were taken as evidence"
import json, sys
s = json.load(open(sys.argv[1]))
progs = s["blocked_by_program"]
kernel = [p["program"] for p in progs if p["layer"] == "kernel"]
assert kernel == ["toplev"], progs
assert len(progs) <= 22, len(progs)
assert s["reports"]["undelivered"] <= 1000, s["reports"]
series = [l for l in open(sys.argv[2]) if l.startswith("pmuguard_preload_reports{")]
assert len(series) <= 21, len(series)
assert any('config="other"' in l for l in series), series
PY
	ok "a user's journal entries never name a kernel block, and 200 forged encodings and programs are folded"
	;;
journal-binary-field-hides-no-report)
	# journalctl writes a value with a control byte in export's binary form
	# (the stand-in does as it does).  Any user can send one: a forged
	# denial whose config and program hold \x01 (and a NUL), sent before
	# the real reports, is one "other" block and hides none after it.
	cat >"$tmp/forge.py" <<'PY'
import socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.sendto(b"MESSAGE=blocked\nMESSAGE_ID=7cd40d08058b4d219f41289bb6a12067\nPMUGUARD_LAYER=preload\n"
         b"PMUGUARD_DECISION=deny\nPMUGUARD_TYPE=4\nPMUGUARD_CONFIG=0x400\x01\n"
         b"PMUGUARD_PROGRAM=ev\x01l\x00x\n", "/run/systemd/journal/socket")
PY
	cat >"$tmp/script" <<SH
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
set -e
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
python3 $tmp/forge.py
for _ in \$(seq 200); do grep -q 'PMUGUARD_CONFIG' $tmp/sb/journal && break; sleep 0.05; done
unset LD_PRELOAD
PMUGUARD_SNAPSHOT=$M6I $PEO_DYN 4:0x400 4:0x8000 >/dev/null
python3 -c 'import socket; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"MESSAGE=entries end\n", "/run/systemd/journal/socket")'
for _ in \$(seq 600); do grep -q 'entries end' $tmp/sb/journal && break; sleep 0.05; done
PATH=$here:\$PATH SANDBOX_JOURNAL_FILE=$tmp/sb/journal PMUGUARD_SNAPSHOT=$M6I \
	$FLEET status --json --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/st.json
PATH=$here:\$PATH SANDBOX_JOURNAL_FILE=$tmp/sb/journal journalctl -b -q -o export PMUGUARD_LAYER=preload >$tmp/export
SH
	m6i_host
	SANDBOX_JOURNAL=1 sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc: $(cat "$tmp/err")"
	grep -qa '^PMUGUARD_CONFIG$' "$tmp/export" || fail "the stand-in wrote no binary field: $(cat -v "$tmp/export")"
	python3 - "$tmp/st.json" <<'PY' || fail "a binary field hid the reports after it: $(cat "$tmp/st.json")"
import json, sys
s = json.load(open(sys.argv[1]))
r = s["reports"]
assert r["counted_from"] == "journal", r
enc = {(e["pmu_type"], e["config"]): e["reports"] for e in r["by_encoding"]}
assert enc == {(4, "0x400"): 1, (4, "0x8000"): 1, (None, "other"): 1}, enc
assert r["blocks_reported"] == 3, r
progs = {(p["layer"], p["program"]): p["reports"] for p in s["blocked_by_program"]}
assert progs.get(("preload", "ev?l?x")) == 1, progs
assert sum(n for (l, p), n in progs.items() if p.startswith("peo")) == 2, progs
PY
	ok "a forged binary field is one other block; the real reports after it are counted"
	;;
journal-unread-is-unknown)
	# A journalctl that fails, and a user who sees only its own entries
	# (journalctl -q hides "insufficient permissions"), count nothing:
	# the preload's blocks are unknown, with the reason, never 0.
	mkdir -p "$tmp/failjc"
	printf '#!/bin/sh\necho "Failed to open the journal" >&2\nexit 1\n' >"$tmp/failjc/journalctl"
	chmod 755 "$tmp/failjc/journalctl"
	cat >"$tmp/script" <<SH
printf 'snapshot = %s\n' $M6I >/etc/pmuguard.conf
set -e
PMUGUARD_SNAPSHOT=$M6I $FLEET install --layer preload --lib $LIB --pmuguard $PMUGUARD >/dev/null
PATH=$tmp/failjc:\$PATH PMUGUARD_SNAPSHOT=$M6I \
	$FLEET status --json --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/failed.json
PATH=$here:\$PATH SANDBOX_JOURNAL_FILE=$tmp/sb/journal PMUGUARD_SNAPSHOT=$M6I \
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	$PMUGUARD status --json --layer preload --lib $LIB --pmuguard $PMUGUARD >$tmp/nobody.json
SH
	SANDBOX_JOURNAL=1 sandbox bash "$tmp/script"
	[ "$rc" = 0 ] || fail "exit $rc: $(cat "$tmp/err")"
	python3 - "$tmp/failed.json" "$tmp/nobody.json" <<'PY' || fail "an unread journal was counted: $(cat "$tmp/failed.json" "$tmp/nobody.json")"
import json, sys
f, n = (json.load(open(p))["reports"] for p in sys.argv[1:])
assert f["blocks_reported"] is None and "journalctl exited 1" in f["not_counted_because"], f
assert n["blocks_reported"] is None and "its own journal entries" in n["not_counted_because"], n
PY
	ok "a failed journalctl and a user's own entries are unknown, never 0 blocks"
	;;
esac
fleet_case_done
