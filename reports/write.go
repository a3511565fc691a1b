package reports

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// File names written by WriteAll.
const (
	JUnitFile    = "junit.xml"
	JSONFile     = "results.json"
	MarkdownFile = "summary.md"
	HTMLFile     = "report.html"
)

// WriteAll writes junit.xml, results.json, summary.md, report.html and results.sarif into dir
// (created if missing) and returns the paths, in that order. The set is
// replaced as a whole or not at all: a reader must never find a new
// junit.xml beside the previous run's results.json, summary and HTML (a
// full disk after the first file, a kill mid-write). See stageAndSwap. The
// target text of the run (transcripts, stderr, check messages) is held to
// RunTextBudget per file, the largest texts trimmed first (see budgetRun),
// so neither the files nor the memory needed to write them grow with what
// a target sends. On error nothing of dir's previous set has changed, no
// file of this run is left in it, and no paths are returned.
func WriteAll(dir string, r *Run) ([]string, error) {
	if r == nil {
		return nil, errNilRun
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	// Normalised once here for the four writers, which read it as it is.
	r = redactRun(budgetRun(normalized(r), RunTextBudget))
	outputs := []output{
		{JUnitFile, writeJUnit},
		{JSONFile, writeJSON},
		{MarkdownFile, writeMarkdown},
		{HTMLFile, writeHTML},
		{SARIFFile, writeSARIF},
	}
	if err := stageAndSwap(dir, r, outputs); err != nil {
		return nil, err
	}
	paths := make([]string, len(outputs))
	for i, o := range outputs {
		paths[i] = filepath.Join(dir, o.name)
	}
	return paths, nil
}

type output struct {
	name  string
	write func(io.Writer, *Run) error
}

// Staging lives inside dir, not beside it: -o is the user's directory,
// which may be ".", hold other files, or sit in a parent mcpconform may not
// write to (CheckOutDir checks dir only), so dir itself is never renamed or
// replaced, and a rename from the staging directory into dir never crosses
// a file system. The names are hidden and mcpconform's own.
const (
	stagingPrefix = ".mcpconform-staging-"
	stagedNew     = "new"       // the new set, complete before anything moves
	stagedOld     = "old"       // the previous set, moved aside during the swap
	stagedCommit  = "committed" // present once the new set is complete and synced
)

// stageAndSwap writes every output into dir/.mcpconform-staging-*/new and
// fsyncs them; only then does it mark the staging directory committed and
// move the set into place, the previous files aside first. A failure before
// the mark leaves dir as it was; a failure during the moves puts the
// previous files back. Either way the staging directory goes. A run killed
// with the staging directory still there is cleaned up by the next one
// (cleanStaging): rolled forward when it was committed (every new file is
// complete, and some may already be in place), removed otherwise.
func stageAndSwap(dir string, r *Run, outputs []output) error {
	cleanStaging(dir, outputs)
	stage, err := os.MkdirTemp(dir, stagingPrefix+"*")
	if err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	defer os.RemoveAll(stage)
	newDir, oldDir := filepath.Join(stage, stagedNew), filepath.Join(stage, stagedOld)
	for _, d := range []string{newDir, oldDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return fmt.Errorf("reports: %w", err)
		}
	}
	for _, o := range outputs {
		if err := writeStaged(filepath.Join(newDir, o.name), func(w io.Writer) error { return o.write(w, r) }); err != nil {
			return err
		}
	}
	if err := syncDir(newDir); err != nil {
		return err
	}
	if err := writeStaged(filepath.Join(stage, stagedCommit), func(io.Writer) error { return nil }); err != nil {
		return err
	}
	for _, o := range outputs {
		// Only files are replaced: a directory of that name is the user's.
		if fi, err := os.Lstat(filepath.Join(dir, o.name)); err == nil && fi.IsDir() {
			return fmt.Errorf("reports: %s is a directory, not a report", filepath.Join(dir, o.name))
		}
	}
	if err := syncDir(stage); err != nil {
		return err
	}
	// The swap: each previous file kept aside (a hard link, so that the
	// name never goes missing; a rename where links are not supported),
	// then its new one renamed over it. Undone in reverse on the first
	// error.
	var undo []func()
	for _, o := range outputs {
		target, old := filepath.Join(dir, o.name), filepath.Join(oldDir, o.name)
		if _, err := os.Lstat(target); err == nil {
			if os.Link(target, old) != nil {
				if err := os.Rename(target, old); err != nil {
					rollBack(undo)
					return fmt.Errorf("reports: %w", err)
				}
			}
			undo = append(undo, func() { _ = os.Rename(old, target) })
		} else {
			undo = append(undo, func() { _ = os.Remove(target) })
		}
		if err := os.Rename(filepath.Join(newDir, o.name), target); err != nil {
			rollBack(undo)
			return fmt.Errorf("reports: %w", err)
		}
	}
	// The new set is in place: a failed sync of dir (the renames not yet
	// durable) must not report the run's reports as unwritten.
	_ = syncDir(dir)
	return nil
}

func rollBack(undo []func()) {
	for i := len(undo) - 1; i >= 0; i-- {
		undo[i]()
	}
}

// cleanStaging finishes or removes what a killed run left in dir: a
// committed staging directory has its remaining new files moved into
// place, any other is removed; so are the temporary files of earlier
// versions of mcpconform (".junit.xml.123", one per report being written)
// and of CheckOutDir. Nothing else in dir is touched.
func cleanStaging(dir string, outputs []output) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		switch {
		case e.IsDir() && strings.HasPrefix(name, stagingPrefix):
			if _, err := os.Stat(filepath.Join(path, stagedCommit)); err == nil {
				for _, o := range outputs {
					_ = os.Rename(filepath.Join(path, stagedNew, o.name), filepath.Join(dir, o.name))
				}
			}
			_ = os.RemoveAll(path)
		case !e.IsDir() && (strings.HasPrefix(name, checkPrefix) || isOldTemp(name, outputs)):
			_ = os.Remove(path)
		}
	}
}

// isOldTemp reports a temporary file of the writer before staging: "." and
// a report's name, a dot and digits (os.CreateTemp's random part).
func isOldTemp(name string, outputs []output) bool {
	for _, o := range outputs {
		rest, ok := strings.CutPrefix(name, "."+o.name+".")
		if ok && rest != "" && strings.Trim(rest, "0123456789") == "" {
			return true
		}
	}
	return false
}

// writeFault, when set (by tests), fails the staging of the file named.
var writeFault func(name string) error

// writeStaged streams what render writes into path, a new file, and syncs
// it: no copy of the whole file is held in memory, and the file is on disk
// before the set that holds it is committed.
func writeStaged(path string, render func(io.Writer) error) error {
	if writeFault != nil {
		if err := writeFault(filepath.Base(path)); err != nil {
			return fmt.Errorf("reports: %w", err)
		}
	}
	// Reports are meant to be shared artefacts: 0644, as before.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	if err := render(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("reports: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("reports: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	return nil
}

// syncDir makes the entries of dir (files created or renamed) durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) { // some file systems cannot sync a directory
		return fmt.Errorf("reports: %w", err)
	}
	return nil
}
