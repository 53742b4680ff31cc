#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""inject.py DIR NAME...: put text into the kernel log as any user can.

For each NAME, write DIR/NAME, a page of code that loads from address 0,
map it executable and jump into it in a child.  The child dies of SIGSEGV
and the x86 kernel reports it with the basename of the file mapped at the
faulting address (show_signal_msg(), arch/x86/mm/fault.c; print_vma_addr(),
mm/memory.c: "comm[pid]: segfault at 0 ip ... in NAME[start+size]").  No
privilege is needed: the report is printed for every unhandled SIGSEGV
(debug.exception-trace, on by default).  Prints "NAME: signal N" per name.
"""
import ctypes
import os
import signal
import sys

CODE = b"\x31\xc0\x48\x8b\x00"  # xor eax,eax; mov rax,[rax]: a load from 0


def fault_in(path):
    with open(path, "wb") as f:
        f.write(CODE.ljust(4096, b"\xcc"))
    pid = os.fork()
    if pid == 0:
        fd = os.open(path, os.O_RDONLY)
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                              ctypes.c_int, ctypes.c_long]
        addr = libc.mmap(None, 4096, 0x1 | 0x4, 0x2, fd, 0)  # PROT_READ|PROT_EXEC, MAP_PRIVATE
        if addr in (None, ctypes.c_void_p(-1).value):
            os._exit(2)
        signal.signal(signal.SIGSEGV, signal.SIG_DFL)
        ctypes.CFUNCTYPE(None)(addr)()
        os._exit(3)
    _, status = os.waitpid(pid, 0)
    return os.WTERMSIG(status) if os.WIFSIGNALED(status) else -os.WEXITSTATUS(status)


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    for name in sys.argv[2:]:
        print("%r: signal %d" % (name, fault_in(os.path.join(d, name))), flush=True)


if __name__ == "__main__":
    main()
