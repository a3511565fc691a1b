package main_test

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	. "github.com/onsi/gomega"
)

// The outside of the redirect entries (issue 21): a host that the hostile
// target's redirects point to, on 127.0.0.2 (another loopback address, so
// another host as far as mcpconform can tell). It answers like an MCP
// server, so that an mcpconform that followed a redirect would judge its
// answers as the target's, and it counts the connections it accepts: the
// run is over before they are counted, so any would have been.
type hostileOutside struct {
	ln       net.Listener
	srv      *http.Server
	url      string
	accepted atomic.Int64

	mu   sync.Mutex
	seen []string // "METHOD method (headers that carried a secret)"
}

// The secrets of a redirect entry: given to mcpconform with --header, they
// must reach no report, no console and no other host.
const (
	outsideBearer = "Bearer hostile-redirect-secret-token"
	outsideHeader = "hostile-redirect-secret-header"
)

// outsideArgs are the mcpconform flags that carry the secrets.
var outsideArgs = []string{"--header", "Authorization: " + outsideBearer, "--header", "X-Redirect-Probe: " + outsideHeader}

func listenHostileOutside() (*hostileOutside, error) {
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		return nil, fmt.Errorf("cannot listen on 127.0.0.2 to play another host (on Linux all of 127.0.0.0/8 is loopback): %w", err)
	}
	o := &hostileOutside{url: "http://" + ln.Addr().String() + "/mcp"}
	o.ln = countAccepts{ln, &o.accepted}
	o.srv = &http.Server{Handler: http.HandlerFunc(o.serve)}
	go func() { _ = o.srv.Serve(o.ln) }()
	return o, nil
}

type countAccepts struct {
	net.Listener
	n *atomic.Int64
}

func (l countAccepts) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

func (o *hostileOutside) Close() { _ = o.srv.Close() }

func (o *hostileOutside) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(body, &m)
	var secrets []string
	if r.Header.Get("Authorization") == outsideBearer {
		secrets = append(secrets, "Authorization")
	}
	if r.Header.Get("X-Redirect-Probe") == outsideHeader {
		secrets = append(secrets, "X-Redirect-Probe")
	}
	o.mu.Lock()
	o.seen = append(o.seen, fmt.Sprintf("%s %s (secrets: %s)", r.Method, m.Method, strings.Join(secrets, ", ")))
	o.mu.Unlock()
	switch {
	case r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusOK)
	case r.Method != http.MethodPost:
		w.WriteHeader(http.StatusMethodNotAllowed)
	case m.ID == nil:
		w.WriteHeader(http.StatusAccepted)
	default:
		result := `{}`
		switch m.Method {
		case "initialize":
			w.Header().Set("Mcp-Session-Id", "outside-session")
			result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"outside","version":"0"}}`
		case "tools/list":
			result = `{"tools":[]}`
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
	}
}

func (o *hostileOutside) requests() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.seen...)
}

// judgeOutside: the outside saw nothing, the target did redirect, no check
// of notPassed passed, and the secrets are in no output and no report.
func judgeOutside(c hostileCase, r *hostileRun, res hostileResults) {
	Expect(r.outside.accepted.Load()).To(BeZero(), "the outside at %s accepted connections; the requests it got: %q",
		r.outside.url, r.outside.requests())
	Expect(pidsIn(r.pidfile, "redirected")).NotTo(BeEmpty(), "the target answered with a redirect")
	if c.notPassed != "" {
		for _, sc := range res.Scenarios {
			if sc.ID != c.notPassed {
				continue
			}
			for _, ch := range sc.Checks {
				Expect(ch.Status).NotTo(Equal("passed"), "%s passes on answers that are not the target's", ch.ID)
			}
		}
	}
	judgeNoSecrets(r, outsideBearer, strings.TrimPrefix(outsideBearer, "Bearer "), outsideHeader)
}

// The secrets of the echo-secrets entry: the target quotes them back in an
// error message, which reaches the check's message, the transcript and the
// console's reasons.
const (
	echoBearer = "Bearer hostile-echo-secret-token"
	echoAPIKey = "hostile-echo-secret-api-key"
)

var echoArgs = []string{"--header", "Authorization: " + echoBearer, "--header", "X-Api-Key: " + echoAPIKey}

// judgeNoSecrets: no secret is on the console or in any file of the report
// directory.
func judgeNoSecrets(r *hostileRun, secrets ...string) {
	for _, secret := range secrets {
		Expect(string(r.stdout)).NotTo(ContainSubstring(secret), "the console (stdout) shows a secret")
		Expect(string(r.stderr)).NotTo(ContainSubstring(secret), "the console (stderr) shows a secret")
		_ = filepath.WalkDir(r.dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(path)
				Expect(string(b)).NotTo(ContainSubstring(secret), "%s holds a secret", filepath.Base(path))
			}
			return nil
		})
	}
}
