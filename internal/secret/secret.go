// Package secret is the process's register of secrets: the values
// mcpconform was given to send to a target (bearer tokens, --header values)
// and the credentials its own fakes mint or receive (authorization codes,
// access and refresh tokens, client secrets, PKCE verifiers). A leaf, so
// that the fakes that mint a credential can register it and reports and the
// console, which never import the fakes, can blot it out.
package secret

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"
	"sync"
)

var register struct {
	mu     sync.RWMutex
	values []string
}

// MinLen is the shortest value Add takes: a shorter one (a version, a media
// type, "true") is no secret and would blot out ordinary words.
const MinLen = 8

// Redacted stands where a secret was.
const Redacted = "[redacted]"

// Add registers values as secrets. A header value is also split on spaces,
// so that "Bearer TOKEN" redacts TOKEN alone too, and each is taken as JSON
// writes it with "/" escaped as well.
func Add(values ...string) {
	var add []string
	for _, v := range values {
		for _, part := range append([]string{v}, strings.Fields(v)...) {
			if len(part) < MinLen {
				continue
			}
			add = append(add, part)
			if escaped := strings.ReplaceAll(part, "/", `\/`); escaped != part {
				add = append(add, escaped)
			}
		}
	}
	if len(add) == 0 {
		return
	}
	register.mu.Lock()
	defer register.mu.Unlock()
	for _, v := range add {
		if !slices.Contains(register.values, v) {
			register.values = append(register.values, v)
		}
	}
	// Longest first: a value that contains another is replaced whole.
	slices.SortFunc(register.values, func(a, b string) int { return len(b) - len(a) })
}

// Reset forgets every secret (for tests that register their own).
func Reset() {
	register.mu.Lock()
	defer register.mu.Unlock()
	register.values = nil
}

// Redact replaces every registered secret in s with Redacted.
func Redact(s string) string {
	register.mu.RLock()
	defer register.mu.RUnlock()
	for _, v := range register.values {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Redacted)
		}
	}
	return s
}

// Any reports whether any secret is registered.
func Any() bool {
	register.mu.RLock()
	defer register.mu.RUnlock()
	return len(register.values) > 0
}

// New is a fresh random credential (prefix and 32 hex digits), registered.
func New(prefix string) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	v := prefix + hex.EncodeToString(b)
	Add(v)
	return v
}
