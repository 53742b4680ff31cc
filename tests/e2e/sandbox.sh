#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sandbox.sh DIR CMD [ARGS...]
# Run inside `unshare -m`: overlay /etc and /dev with writable layers under
# DIR, so a test can write /etc/ld.so.preload, /etc/pmuguard.conf and bind
# /dev/log while the machine's real files stay untouched (they may not even
# exist, so a bind mount over them is not possible); /sys/fs/bpf and
# /run/lock are private mounts.  A syslog listener on
# /dev/log appends each datagram as one line to DIR/syslog.
# With SANDBOX_JOURNAL=1, /run is a private tmpfs and a stand-in for
# journald listens on /run/systemd/journal/socket: each datagram of the
# native protocol becomes one JSON object per line in DIR/journal (read by
# tests/e2e/journalctl, a stand-in for journalctl's matching).
set -euo pipefail
dir=$1
shift
mount --make-rprivate /
for d in etc dev; do
	mkdir -p "$dir/$d-up" "$dir/$d-work"
	mount -t overlay overlay -o "lowerdir=/$d,upperdir=$dir/$d-up,workdir=$dir/$d-work" "/$d"
done
# The kernel layer and the installer's lock: a private bpffs (or, where
# none can be mounted, an empty tmpfs, so `enforce start` finds no bpffs)
# and a private /run/lock, so nothing a case runs can pin a program in the
# machine's /sys/fs/bpf or leave a lock file in its /run/lock.
mount -t bpf bpf /sys/fs/bpf 2>/dev/null || mount -t tmpfs tmpfs /sys/fs/bpf
[ "${SANDBOX_JOURNAL:-0}" = 1 ] && mount -t tmpfs tmpfs /run
mkdir -p /run/lock
mount -t tmpfs tmpfs /run/lock
rm -f /dev/log
: >"$dir/syslog"
python3 - "$dir/syslog" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
with open(sys.argv[1], "ab", buffering=0) as out:
    while True:
        out.write(s.recv(65536).rstrip(b"\n") + b"\n")
PY
listener=$!
# wait_socket PATH WHAT: until a listener has bound PATH.
wait_socket() {
	for _ in $(seq 500); do [ -S "$1" ] && break; sleep 0.01; done
	[ -S "$1" ] || { echo "sandbox: the $2 listener did not start" >&2; exit 1; }
}
# drain PATH DATAGRAM FILE: a datagram sent just before the command ended
# may not be written yet.  Send a last one ("sandbox: end") and wait until
# the listener has written it to FILE.
drain() {
	python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.sendto(sys.argv[2].encode(), sys.argv[1])' "$1" "$2" 2>/dev/null
	for _ in $(seq 500); do grep -q 'sandbox: end' "$3" && break; sleep 0.01; done
}
wait_socket /dev/log syslog
journal=
if [ "${SANDBOX_JOURNAL:-0}" = 1 ]; then
	mkdir -p /run/systemd/journal
	: >"$dir/journal"
	python3 - "$dir/journal" <<'PY' &
import json, os, socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/run/systemd/journal/socket")
# As journald: any user may write, and the sender's credentials (from the
# kernel, SO_PASSCRED) are the trusted fields _PID, _UID, _GID; fields a
# client sends with a leading underscore are dropped.
os.chmod("/run/systemd/journal/socket", 0o666)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
with open(sys.argv[1], "a", buffering=1) as out:
    while True:
        d, anc, _, _ = s.recvmsg(65536, socket.CMSG_SPACE(12))
        d = d.decode("utf-8", "replace")
        e = {}
        for line in d.split("\n"):
            if "=" in line:
                k, v = line.split("=", 1)
                if not k.startswith("_"):
                    e[k] = v
            elif line:
                e.setdefault("_BAD", []).append(line)
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                pid, uid, gid = struct.unpack("iII", data[:12])
                e.update(_PID=str(pid), _UID=str(uid), _GID=str(gid))
        out.write(json.dumps(e) + "\n")
PY
	journal=$!
	wait_socket /run/systemd/journal/socket journal
fi
set +e
"$@"
rc=$?
if [ -n "$journal" ]; then
	drain /run/systemd/journal/socket 'MESSAGE=sandbox: end
' "$dir/journal"
	kill "$journal" 2>/dev/null
	wait "$journal" 2>/dev/null
fi
drain /dev/log '<12>sandbox: end' "$dir/syslog"
kill "$listener" 2>/dev/null
wait "$listener" 2>/dev/null
exit $rc
