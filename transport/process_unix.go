//go:build unix

package transport

import (
	"os"
	"syscall"
)

// processAttr puts the target in a process group of its own, so that the
// shutdown signals reach whatever it spawned, and nothing else.
func processAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// terminateGroup sends SIGTERM to the process group led by p.
func terminateGroup(p *os.Process) error { return syscall.Kill(-p.Pid, syscall.SIGTERM) }

// killGroup sends SIGKILL to the process group led by p.
func killGroup(p *os.Process) error { return syscall.Kill(-p.Pid, syscall.SIGKILL) }

const (
	termSignalName = "SIGTERM"
	killSignalName = "SIGKILL"
)
