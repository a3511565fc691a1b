package reports

import "github.com/mcpconform/mcpconform/internal/secret"

// The secrets of this process (internal/secret): the values mcpconform was
// given to send to a target (bearer tokens, the values of --header) and the
// credentials its fakes minted. A target may echo them back (an error
// message quoting the token it refused, a tool that prints its request's
// headers), and what a target sends reaches the transcripts, the check
// messages and the console. No secret may be written to a report or a
// terminal, so every console line (CleanTerminal) and every report
// (WriteAll) goes through Redact.

// MinSecretLen is the shortest value AddSecrets takes.
const MinSecretLen = secret.MinLen

// Redacted stands where a secret was.
const Redacted = secret.Redacted

// AddSecrets registers values as secrets of this process (secret.Add).
func AddSecrets(values ...string) { secret.Add(values...) }

// ResetSecrets forgets every secret (for tests that register their own).
func ResetSecrets() { secret.Reset() }

// Redact replaces every registered secret in s with Redacted.
func Redact(s string) string { return secret.Redact(s) }

func hasSecrets() bool { return secret.Any() }

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
