#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""An event that only a child ever schedules: inherited, enabled on exec.

    inherit.py [--libc NAME] TYPE:CONFIG...

Opens each event for this process through glibc's syscall() (ctypes), with
disabled, inherit and enable_on_exec set, so this process never schedules it.
Then it forks a child that execs /bin/true.  The child's inherited copy is
enabled at that exec (perf_event_exec) and scheduled there.  At the child's
exit its count folds back into ours.  Prints "pid=P" (its own pid,
before the fork), then per event "type=T config=0xC ret=fd count=N" or
"... ret=-1 errno=NAME".

--libc NAME takes syscall() from ctypes.CDLL(NAME), the common idiom
CDLL("libc.so.6"): a lookup in libc's own scope, not the global one
(CDLL(None)), so the preload must have claimed libc's symbol.
"""
import ctypes
import errno
import os
import struct
import sys

NR_PERF_EVENT_OPEN = 298  # x86_64
PERF_FLAG_FD_CLOEXEC = 8
DISABLED, INHERIT, ENABLE_ON_EXEC = 1 << 0, 1 << 1, 1 << 12

LIBC_NAME = None
if len(sys.argv) > 2 and sys.argv[1] == "--libc":
    LIBC_NAME = sys.argv[2]
    del sys.argv[1:3]
libc = ctypes.CDLL(LIBC_NAME, use_errno=True)
libc.syscall.restype = ctypes.c_long


def open_event(typ, config):
    # PERF_ATTR_SIZE_VER0: type, size, config, sample_period, sample_type,
    # read_format, the flag bits, then zeros.
    attr = struct.pack("<IIQQQQQ", typ, 64, config, 0, 0, 0,
                       DISABLED | INHERIT | ENABLE_ON_EXEC).ljust(64, b"\0")
    buf = ctypes.create_string_buffer(attr, 64)
    fd = libc.syscall(ctypes.c_long(NR_PERF_EVENT_OPEN), buf, ctypes.c_long(0),
                      ctypes.c_long(-1), ctypes.c_long(-1), ctypes.c_long(PERF_FLAG_FD_CLOEXEC))
    return fd, ctypes.get_errno()


def main():
    events = []
    for arg in sys.argv[1:]:
        typ, config = (int(x, 0) for x in arg.split(":", 1))
        events.append((typ, config) + open_event(typ, config))
    print(f"pid={os.getpid()}", flush=True)
    pid = os.fork()
    if pid == 0:
        os.execv("/bin/true", ["true"])
    os.waitpid(pid, 0)
    for typ, config, fd, err in events:
        if fd < 0:
            print(f"type={typ} config={config:#x} ret=-1 errno={errno.errorcode.get(err, err)}")
        else:
            count = struct.unpack("<Q", os.read(fd, 8))[0]
            print(f"type={typ} config={config:#x} ret=fd count={count}")


if __name__ == "__main__":
    main()
