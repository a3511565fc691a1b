package transport

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// outputDrainWait bounds how long an exit waits for the output pipe to drain.
const outputDrainWait = time.Second

// LaunchOptions configure a process started by Launch.
type LaunchOptions struct {
	// Env is added to the inherited environment.
	Env []string
	Dir string
	// Transcript and Label record the process's start, exit and output.
	Transcript *jsonrpc.Transcript
	Label      string
}

// Process is a program the suite started that speaks no JSON-RPC on its
// own pipes: a client under test, which connects to the fake server by the
// address it was given. Its stdout and stderr are kept (the last 64 KiB)
// and recorded in the transcript; it runs in a process group of its own and
// carries a launch token in its environment (LaunchEnv), so Stop, or its
// own exit, takes down whatever it started, even what left the group.
type Process struct {
	cmd    *exec.Cmd
	pid    int
	opts   LaunchOptions
	output *byteRing
	exited chan struct{}
	pumps  sync.WaitGroup
	outR   *os.File // the read end of its output, closed once it is drained or given up on

	tree    *procTree // signals the group and what escaped it
	exitErr error
}

// Launch starts argv. A missing command is an error before anything runs.
func Launch(argv []string, opts LaunchOptions) (*Process, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("transport: Launch: empty command")
	}
	if err := resolveCommand(argv[0], opts.Dir); err != nil {
		return nil, err
	}
	token := prepareLaunch()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = launchEnv(opts.Env, token)
	cmd.Dir = opts.Dir
	cmd.SysProcAttr = processAttr()
	cmd.Stdin = nil // the null device: a client under test reads no input from us
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("transport: output pipe: %w", err)
	}
	cmd.Stdout, cmd.Stderr = outW, outW
	err = cmd.Start()
	outW.Close()
	if err != nil {
		outR.Close()
		return nil, fmt.Errorf("transport: start %q: %w", argv[0], err)
	}
	p := &Process{cmd: cmd, pid: cmd.Process.Pid, opts: opts, output: &byteRing{max: stderrRingBytes}, exited: make(chan struct{})}
	p.tree = newProcTree(cmd.Process, token, p.exited)
	p.outR = outR
	opts.Transcript.Eventf(opts.Label, "process started: pid %d: %s", p.pid, formatArgv(argv))
	p.pumps.Add(1)
	go func() {
		defer p.pumps.Done()
		defer outR.Close()
		pumpStderr(outR, p.output, opts.Transcript, opts.Label)
	}()
	go p.reap()
	return p, nil
}

func (p *Process) reap() {
	defer close(p.exited)
	// Whatever it left running, in its group or escaped from it, is killed
	// once it has exited.
	p.exitErr = p.tree.leaderExited(waitExitedNoReap(p.pid), p.cmd.Wait)
	// What it wrote before exiting belongs with its exit: let the pump
	// drain the pipe, unless something it started still holds it open.
	drained := make(chan struct{})
	go func() { p.pumps.Wait(); close(drained) }()
	t := time.NewTimer(outputDrainWait)
	defer t.Stop()
	select {
	case <-drained:
	case <-t.C:
	}
	status := "unknown status"
	if ps := p.cmd.ProcessState; ps != nil {
		status = ps.String()
	}
	p.opts.Transcript.Eventf(p.opts.Label, "process exited: %s", status)
}

// Pid is the process id, which is also its process group id.
func (p *Process) Pid() int { return p.pid }

// Exited is closed once the process has exited and been reaped, and what it
// wrote is in Output.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// ExitCode is the exit code, or -1 while it runs or if a signal ended it.
func (p *Process) ExitCode() int {
	select {
	case <-p.exited:
		return p.cmd.ProcessState.ExitCode()
	default:
		return -1
	}
}

// Output returns the last 64 KiB the process wrote to stdout and stderr.
func (p *Process) Output() string { return p.output.String() }

// Stop ends the process: SIGTERM to its group and to the descendants that
// left it, then SIGKILL to all of them after grace.
// It returns once the process is reaped (or a further grace has passed for
// one that survives SIGKILL), and does nothing to a process already gone.
func (p *Process) Stop(grace time.Duration) {
	grace = shutdownWait(grace)
	select {
	case <-p.exited:
	default:
		p.signal(false)
		if !p.waitExit(grace) {
			p.opts.Transcript.Eventf(p.opts.Label, "process %d still running %s after %s; sending %s", p.pid, grace, termSignalName, killSignalName)
			p.signal(true)
			p.waitExit(grace)
		}
	}
	// A process that escaped every search (it cleared its environment and
	// left the group) may still hold the output pipe open: read what is
	// left for a moment, then stop reading.
	drained := make(chan struct{})
	go func() { p.pumps.Wait(); close(drained) }()
	if !waitClosed(drained, outputDrainWait) {
		p.outR.Close()
		<-drained
	}
}

// Wait waits for the process to exit by itself, up to d, and reports whether it did.
func (p *Process) Wait(d time.Duration) bool { return p.waitExit(d) }

func (p *Process) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

func (p *Process) signal(kill bool) { _ = p.tree.signal(kill) }
