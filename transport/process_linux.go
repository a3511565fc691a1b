//go:build linux

package transport

import (
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// stdoutPipeBytes is the size asked for the pipe of a target's stdout: the
// most an unprivileged process may set by default (fs.pipe-max-size). With
// the default 64 KiB, a 16 MiB line takes 256 turns of writer and reader,
// each of which waits for a core on a busy machine.
const stdoutPipeBytes = 1 << 20

// growPipe asks for a larger pipe buffer; a refusal leaves the pipe as it
// is. It goes through SyscallConn, since Fd would put the file in blocking
// mode, where Close no longer ends a pending Read.
func growPipe(f *os.File) {
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { _, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, stdoutPipeBytes) })
	}
}

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
