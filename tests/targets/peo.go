// SPDX-License-Identifier: GPL-2.0-or-later
// A Go test target: perf_event_open through the syscall package, as
// PerfSpect's Go code would.  Usage: gopeo TYPE:CONFIG...
package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// The first 64 bytes of struct perf_event_attr (PERF_ATTR_SIZE_VER0).
type attr struct {
	typ    uint32
	size   uint32
	config uint64
	rest   [6]uint64
}

func main() {
	for _, arg := range os.Args[1:] {
		parts := strings.SplitN(arg, ":", 2)
		t, _ := strconv.ParseUint(parts[0], 0, 32)
		c, _ := strconv.ParseUint(parts[1], 0, 64)
		a := attr{typ: uint32(t), size: 64, config: c}
		a.rest[1] = 1 | 1<<5 | 1<<6 // disabled, exclude_kernel, exclude_hv
		fd, _, errno := syscall.Syscall6(syscall.SYS_PERF_EVENT_OPEN,
			uintptr(unsafe.Pointer(&a)), 0, ^uintptr(0), ^uintptr(0), 0, 0)
		if errno == 0 {
			syscall.Close(int(fd))
			fmt.Printf("type=%d config=0x%x ret=fd errno=0\n", t, c)
		} else {
			fmt.Printf("type=%d config=0x%x ret=-1 errno=%s\n", t, c, errnoName(errno))
		}
	}
}

func errnoName(e syscall.Errno) string {
	switch e {
	case syscall.ENOENT:
		return "ENOENT"
	case syscall.ENOSYS:
		return "ENOSYS"
	case syscall.EINVAL:
		return "EINVAL"
	case syscall.EOPNOTSUPP:
		return "EOPNOTSUPP"
	case syscall.EACCES:
		return "EACCES"
	}
	return fmt.Sprintf("errno%d", int(e))
}
