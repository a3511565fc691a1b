package authserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/internal/secret"
)

// maxRecordedBody bounds the body a log keeps of one request; the request
// itself still gets its whole body.
const maxRecordedBody = 1 << 20

// maxExchanges bounds the log: a client in a loop is judged on the first
// ones, and counted.
const maxExchanges = 4096

// Log is every HTTP request the fakes of one scenario received, from every
// origin, in arrival order.
type Log struct {
	mu      sync.Mutex
	entries []Exchange
	total   int
	changed chan struct{}
	// OnAdd, when set, is told of each exchange as it is added (a
	// transcript line); it must not block.
	OnAdd func(Exchange)
}

// NewLog makes an empty log.
func NewLog() *Log { return &Log{changed: make(chan struct{})} }

// credentialFields are the form and JSON fields that carry a secret.
var credentialFields = []string{"code", "code_verifier", "client_secret", "client_assertion", "refresh_token",
	"access_token", "assertion", "subject_token", "actor_token", "id_token"}

// Read snapshots r for the log (its body is restored for the handler) and
// registers every credential it carries as a secret.
func (l *Log) Read(server string, r *http.Request) *Exchange {
	x := &Exchange{Server: server, At: time.Now(), Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(),
		Header: r.Header.Clone(), Form: url.Values{}}
	if r.Body != nil {
		body, _ := io.ReadAll(io.LimitReader(r.Body, maxRecordedBody))
		rest := r.Body
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), rest), rest}
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		switch {
		case mt == "application/x-www-form-urlencoded":
			if f, err := url.ParseQuery(string(body)); err == nil {
				x.Form = f
			}
		case len(bytes.TrimSpace(body)) > 0 && bytes.TrimSpace(body)[0] == '{':
			var obj map[string]any
			if json.Unmarshal(body, &obj) == nil {
				x.JSON = obj
				if m, ok := obj["method"].(string); ok {
					x.RPCMethod = m
				}
			}
		}
	}
	for _, k := range credentialFields {
		secret.Add(x.Form[k]...)
		secret.Add(x.Query[k]...)
		if s, ok := x.JSON[k].(string); ok {
			secret.Add(s)
		}
	}
	// A DPoP proof is signed evidence of the client's key (RFC 9449 §4).
	secret.Add(r.Header.Values("DPoP")...)
	for _, v := range r.Header.Values("Authorization") {
		secret.Add(v)
		scheme, cred, _ := strings.Cut(v, " ")
		if strings.EqualFold(scheme, "Basic") {
			if raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred)); err == nil {
				_, pass, _ := strings.Cut(string(raw), ":")
				if p, err := url.QueryUnescape(pass); err == nil {
					secret.Add(p)
				}
				secret.Add(pass)
			}
		}
	}
	return x
}

// Add appends x (once its status is known).
func (l *Log) Add(x *Exchange) {
	l.mu.Lock()
	l.total++
	if len(l.entries) < maxExchanges {
		l.entries = append(l.entries, *x)
	}
	close(l.changed)
	l.changed = make(chan struct{})
	on := l.OnAdd
	l.mu.Unlock()
	if on != nil {
		on(*x)
	}
}

// Entries are the exchanges so far.
func (l *Log) Entries() []Exchange {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Exchange(nil), l.entries...)
}

// Total counts every exchange, kept or not.
func (l *Log) Total() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

// WaitFor waits until done holds over the entries or ctx ends, and reports
// whether it held.
func (l *Log) WaitFor(ctx context.Context, done func([]Exchange) bool) bool {
	for {
		l.mu.Lock()
		entries, changed := append([]Exchange(nil), l.entries...), l.changed
		l.mu.Unlock()
		if done(entries) {
			return true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}

// Of are the entries of one server.
func Of(entries []Exchange, server string) []Exchange {
	var out []Exchange
	for _, e := range entries {
		if e.Server == server {
			out = append(out, e)
		}
	}
	return out
}
