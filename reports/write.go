package reports

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// File names written by WriteAll.
const (
	JUnitFile    = "junit.xml"
	JSONFile     = "results.json"
	MarkdownFile = "summary.md"
	HTMLFile     = "report.html"
)

// WriteAll writes junit.xml, results.json, summary.md and report.html into dir
// (created if missing) and returns the paths, in that order. Each file is
// written to a temporary file and then renamed into place, so a CI step
// reading the directory never sees a half-written report. The target text
// of the run (transcripts, stderr, check messages) is held to RunTextBudget
// per file, the largest texts trimmed first (see budgetRun), so neither the
// files nor the memory needed to write them grow with what a target sends.
// On error the paths already written are returned with it.
func WriteAll(dir string, r *Run) ([]string, error) {
	if r == nil {
		return nil, errNilRun
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	r = budgetRun(r, RunTextBudget)
	outputs := []struct {
		name  string
		write func(io.Writer, *Run) error
	}{
		{JUnitFile, WriteJUnit},
		{JSONFile, WriteJSON},
		{MarkdownFile, WriteMarkdown},
		{HTMLFile, WriteHTML},
	}
	var paths []string
	for _, o := range outputs {
		p := filepath.Join(dir, o.name)
		if err := writeFileAtomic(p, func(w io.Writer) error { return o.write(w, r) }); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// writeFileAtomic streams what render writes into a temporary file beside
// path and renames it into place once complete: no copy of the whole file
// is held in memory.
func writeFileAtomic(path string, render func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	bw := bufio.NewWriterSize(tmp, 256<<10)
	if err := render(bw); err != nil {
		tmp.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("reports: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	// CreateTemp makes 0600 files; reports are meant to be shared artefacts.
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	return nil
}
