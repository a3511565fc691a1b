//go:build linux

package transport

import (
	"syscall"
	"unsafe"
)

// waitExitedNoReap blocks until process pid has exited, without reaping it,
// and reports whether it could. While the exited leader is not reaped its
// pid, which is also the process group id, cannot be reused, so the group
// can still be signalled safely.
func waitExitedNoReap(pid int) bool {
	const pPID = 1      // P_PID
	var info [16]uint64 // siginfo_t, 128 bytes
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info)), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		switch errno {
		case 0:
			return true
		case syscall.EINTR:
			continue
		default:
			return false
		}
	}
}
