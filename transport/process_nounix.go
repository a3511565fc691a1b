//go:build !unix

package transport

import (
	"os"
	"syscall"
)

// processAttr: there are no process groups to set up here.
func processAttr() *syscall.SysProcAttr { return nil }

// terminateGroup asks p to stop; where that is not supported it fails and
// the shutdown sequence goes on to killGroup.
func terminateGroup(p *os.Process) error { return p.Signal(os.Interrupt) }

// killGroup kills p.
func killGroup(p *os.Process) error { return p.Kill() }

const (
	termSignalName = "interrupt"
	killSignalName = "kill"
)
