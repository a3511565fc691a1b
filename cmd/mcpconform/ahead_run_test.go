package main_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"

	"github.com/mcpconform/mcpconform/internal/ahead"
)

// ranAhead is a run of `mcpconform args...` made ahead of its spec's turn
// (internal/ahead), which judges it as it would a run of its own.
type ranAhead struct {
	args     []string
	dir      string // a directory of the run's own, for -o and scripts
	code     int
	Out, Err *gbytes.Buffer
	err      error // the run could not be made
}

func (r *ranAhead) Close() { _ = os.RemoveAll(r.dir) }

// runAhead registers, for the spec whose full text is spec, a run of
// mcpconform with the arguments args returns for a fresh directory; setup
// (when not nil) prepares that directory first (a script, say).
func runAhead(spec string, weight int, setup func(dir string) error, args func(dir string) []string) ahead.Work[*ranAhead] {
	return runAheadPart(spec, "", weight, setup, args)
}

// runAheadPart is runAhead for one of several runs a spec reads.
func runAheadPart(spec, part string, weight int, setup func(dir string) error, args func(dir string) []string) ahead.Work[*ranAhead] {
	return ahead.AddPart(pool, spec, part, weight, func(ctx context.Context) *ranAhead {
		r := &ranAhead{Out: gbytes.NewBuffer(), Err: gbytes.NewBuffer()}
		if r.dir, r.err = os.MkdirTemp("", "mcpconform-ahead-"); r.err != nil {
			return r
		}
		if setup != nil {
			if r.err = setup(r.dir); r.err != nil {
				return r
			}
		}
		r.args = args(r.dir)
		runCtx, cancel := context.WithTimeout(ctx, 10*exitWithin)
		defer cancel()
		cmd := exec.CommandContext(runCtx, exe, r.args...)
		cmd.Stdout, cmd.Stderr = r.Out, r.Err
		r.err = cmd.Run()
		if _, exited := r.err.(*exec.ExitError); exited && runCtx.Err() == nil {
			r.err = nil
		}
		if cmd.ProcessState != nil {
			r.code = cmd.ProcessState.ExitCode()
		}
		return r
	})
}

// ranWith takes a run made ahead and asserts it exited with code, as run
// does for a run of the spec's own.
func ranWith(w ahead.Work[*ranAhead], code int) *ranAhead {
	GinkgoHelper()
	r := w.Get()
	DeferCleanup(r.Close)
	Expect(r.err).NotTo(HaveOccurred(), "mcpconform %v could not run or did not end", r.args)
	Expect(r.code).To(Equal(code), "mcpconform %v\nstdout:\n%s\nstderr:\n%s", r.args, r.Out.Contents(), r.Err.Contents())
	return r
}

// out is the -o directory of a run made ahead.
func (r *ranAhead) out() string { return filepath.Join(r.dir, "out") }
