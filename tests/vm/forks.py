#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Fork when told: what an inheritable event does to its task's forks.

    forks.py FIFO

Run as the workload of `perf stat` (whose events inherit by default): it
blocks until a line arrives on FIFO, then forks a child that exits at once.
Prints "fork=ok" or "fork=-1 errno=NAME".  Under `pmuguard enforce`, a
counter-3 event that existed before the start makes the fork fail: the
child's copy of the event is allocated at fork (inherit_event ->
perf_event_alloc), the guard denies it, and copy_process fails with its
ENOENT.
"""
import errno
import os
import sys


def main():
    with open(sys.argv[1]) as fifo:
        fifo.readline()
    try:
        pid = os.fork()
    except OSError as e:
        print(f"fork=-1 errno={errno.errorcode.get(e.errno, e.errno)}", flush=True)
        return
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    print("fork=ok", flush=True)


if __name__ == "__main__":
    main()
