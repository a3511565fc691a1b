package reports

import (
	"bytes"
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
// rendered fully in memory and then renamed into place, so a CI step reading
// the directory never sees a half-written report. On error the paths already
// written are returned with it.
func WriteAll(dir string, r *Run) ([]string, error) {
	if r == nil {
		return nil, errNilRun
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
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
		var buf bytes.Buffer
		if err := o.write(&buf, r); err != nil {
			return paths, err
		}
		p := filepath.Join(dir, o.name)
		if err := writeFileAtomic(p, buf.Bytes()); err != nil {
			return paths, fmt.Errorf("reports: %w", err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	// CreateTemp makes 0600 files; reports are meant to be shared artefacts.
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
