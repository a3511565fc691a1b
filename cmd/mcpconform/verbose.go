package main

import (
	"bytes"
	"io"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
)

// sourcePaths strips mcpconform's own source locations from Ginkgo's
// spec-by-spec output (-v): "suites/suites.go:359" lines and the " - …go:N"
// after a status say nothing to someone judging their server. A target's own
// text (a Go stack trace in its stderr) is left alone: only paths under
// mcpconform's source root are taken out.
type sourcePaths struct {
	mu      sync.Mutex
	out     io.Writer
	pending []byte
	alone   *regexp.Regexp // a line that is only a location, or Ginkgo's "In [It] at: location"
	inline  *regexp.Regexp // " - location" within a line
}

// moduleRoot is the directory mcpconform was built from, with a trailing
// slash: this file's directory, two levels up.
func moduleRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	return filepath.Dir(filepath.Dir(filepath.Dir(file))) + "/"
}

func newSourcePaths(out io.Writer, root string) *sourcePaths {
	loc := regexp.QuoteMeta(root) + `\S+\.go:\d+`
	return &sourcePaths{out: out,
		alone:  regexp.MustCompile(`^\s*(In \[\w+\] at: )?` + loc + `(\s+@ .*)?$`),
		inline: regexp.MustCompile(`\s+-\s+` + loc)}
}

func (s *sourcePaths) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = append(s.pending, p...)
	for {
		i := bytes.IndexByte(s.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(s.pending[:i])
		s.pending = s.pending[i+1:]
		if s.alone.MatchString(line) {
			continue
		}
		if _, err := io.WriteString(s.out, s.inline.ReplaceAllString(line, "")+"\n"); err != nil {
			return len(p), err
		}
	}
}

// Flush writes a last line that had no newline.
func (s *sourcePaths) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) > 0 {
		line := strings.TrimRight(string(s.pending), "\n")
		if !s.alone.MatchString(line) {
			_, _ = io.WriteString(s.out, s.inline.ReplaceAllString(line, ""))
		}
		s.pending = nil
	}
}
