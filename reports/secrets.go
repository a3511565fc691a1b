package reports

import (
	"slices"
	"strings"
	"sync"
)

// The secrets of this process: the values mcpconform was given to send to a
// target (bearer tokens, the values of --header). A target may echo them
// back (an error message quoting the token it refused, a tool that prints
// its request's headers), and what a target sends reaches the transcripts,
// the check messages and the console. No secret may be written to a report
// or a terminal, so every console line (CleanTerminal) and every report
// (WriteAll) goes through Redact.
var secrets struct {
	mu     sync.RWMutex
	values []string
}

// MinSecretLen is the shortest value AddSecrets takes: a shorter one (a
// version, a media type, "true") is no secret and would blot out ordinary
// words.
const MinSecretLen = 8

// Redacted stands where a secret was.
const Redacted = "[redacted]"

// AddSecrets registers values as secrets of this process. A header value is
// also split on spaces, so that "Bearer TOKEN" redacts TOKEN alone too, and
// each is taken as JSON writes it with "/" escaped as well.
func AddSecrets(values ...string) {
	var add []string
	for _, v := range values {
		for _, part := range append([]string{v}, strings.Fields(v)...) {
			if len(part) < MinSecretLen {
				continue
			}
			add = append(add, part)
			if escaped := strings.ReplaceAll(part, "/", `\/`); escaped != part {
				add = append(add, escaped)
			}
		}
	}
	secrets.mu.Lock()
	defer secrets.mu.Unlock()
	for _, v := range add {
		if !slices.Contains(secrets.values, v) {
			secrets.values = append(secrets.values, v)
		}
	}
	// Longest first: a value that contains another is replaced whole.
	slices.SortFunc(secrets.values, func(a, b string) int { return len(b) - len(a) })
}

// ResetSecrets forgets every secret (for tests that register their own).
func ResetSecrets() {
	secrets.mu.Lock()
	defer secrets.mu.Unlock()
	secrets.values = nil
}

// Redact replaces every registered secret in s with Redacted.
func Redact(s string) string {
	secrets.mu.RLock()
	defer secrets.mu.RUnlock()
	for _, v := range secrets.values {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Redacted)
		}
	}
	return s
}

// hasSecrets reports whether any secret is registered.
func hasSecrets() bool {
	secrets.mu.RLock()
	defer secrets.mu.RUnlock()
	return len(secrets.values) > 0
}

// redactRun returns r with every text a target controls redacted: a copy
// when there is anything to redact, r itself otherwise.
func redactRun(r *Run) *Run {
	if !hasSecrets() {
		return r
	}
	cp := *r
	cp.Target, cp.Interrupted = Redact(r.Target), Redact(r.Interrupted)
	cp.Scenarios = append([]Scenario(nil), r.Scenarios...)
	for i := range cp.Scenarios {
		s := &cp.Scenarios[i]
		s.Transcript, s.Stderr = Redact(s.Transcript), Redact(s.Stderr)
		s.Checks = append([]Check(nil), s.Checks...)
		for j := range s.Checks {
			s.Checks[j].Message = Redact(s.Checks[j].Message)
		}
	}
	return &cp
}
