package auth

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/fakes/authserver"
	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/scenarios"
)

// Client identity: how the client identifies itself to an authorization
// server (pre-registration, a client ID metadata document URL, dynamic
// registration) and authenticates at its token endpoint; what it registers
// (application_type, grant types). The scenarios that drive these are in
// registration_scenarios.go.

// Pages of the 2026-07-28 authorization folder the checks cite.
const (
	registration26 = "2026-07-28/basic/authorization/client-registration.mdx"
	page0618       = "2025-06-18/basic/authorization.mdx"
)

// since holds the first version of a check whose rule is younger than
// some version its scenario runs at: there it is skipped, saying so.
var since = map[string]string{}

// withApplicationType adds SEP-837's check to a scenario whose client
// registers dynamically; it is judged from 2026-07-28 on.
func (c *common) withApplicationType() *common {
	c.applicationType = &scenarios.Check{ID: c.id + "/application-type", Level: scenarios.Must,
		Spec:   registration26 + "#application-type-and-redirect-uri-constraints",
		Title:  `every dynamic registration request names its application_type, "native" or "web" (2026-07-28 on)`,
		Quote:  "MCP clients MUST specify an appropriate application_type during Dynamic Client Registration.",
		Faults: faults(client.AuthNoApplicationType)}
	since[c.applicationType.ID] = "2026-07-28"
	return c
}

func (c *common) judgeApplicationType(f *flow) {
	t := f.t
	if v := since[c.applicationType.ID]; t.Env.Version < v {
		t.Skip(c.applicationType, "application_type is asked of a registering client from "+v+" on; this run is at "+t.Env.Version)
		return
	}
	regs := registrations(f)
	if len(regs) == 0 {
		t.Skip(c.applicationType, "the client registered nowhere ("+f.end()+")")
		return
	}
	var bad []string
	for _, e := range regs {
		switch v, _ := e.JSON["application_type"].(string); v {
		case "native", "web":
		case "":
			bad = append(bad, e.Server+": no application_type")
		default:
			bad = append(bad, fmt.Sprintf("%s: application_type %q", e.Server, v))
		}
	}
	t.Judge(c.applicationType, len(bad) == 0, `application_type "native" or "web" in every registration request`, listed(bad))
}

// registrations are the client's registration requests, at any
// authorization server.
func registrations(f *flow) []authserver.Exchange {
	var out []authserver.Exchange
	for _, as := range f.p.Servers {
		for _, e := range f.endpoint(as, "/register") {
			if e.Method == http.MethodPost {
				out = append(out, e)
			}
		}
	}
	return out
}

// tokenRequests are the client's token requests to as.
func tokenRequests(f *flow, as *authserver.Server) []authserver.Exchange {
	var out []authserver.Exchange
	for _, e := range f.endpoint(as, "/token") {
		if e.Method == http.MethodPost {
			out = append(out, e)
		}
	}
	return out
}

// clientAuth is how a token request authenticated its client, as RFC 7591
// §2 names the methods.
type clientAuth struct {
	method, id, secret string
	// malformed says what was wrong with an HTTP Basic header.
	malformed string
}

// readClientAuth reads a token request's client authentication: an HTTP
// Basic header (its id and secret form-urlencoded, RFC 6749 §2.3.1), the
// body's client_secret, a client assertion, or none.
func readClientAuth(e authserver.Exchange) clientAuth {
	if scheme, cred, ok := strings.Cut(e.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Basic") {
		a := clientAuth{method: "client_secret_basic"}
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred))
		if err != nil {
			a.malformed = "the Basic credentials are not base64"
			return a
		}
		id, secret, ok := strings.Cut(string(raw), ":")
		if !ok {
			a.malformed = "the Basic credentials have no colon between id and secret"
			return a
		}
		a.id, a.secret = unescape(id), unescape(secret)
		return a
	}
	switch {
	case e.Form.Get("client_secret") != "":
		return clientAuth{method: "client_secret_post", id: e.Form.Get("client_id"), secret: e.Form.Get("client_secret")}
	case e.Form.Get("client_assertion") != "":
		return clientAuth{method: "private_key_jwt", id: e.Form.Get("client_id")}
	}
	return clientAuth{method: "none", id: e.Form.Get("client_id")}
}

func unescape(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}

// describeMethod names a method for a message.
func describeMethod(m string) string {
	switch m {
	case "client_secret_basic":
		return "client_secret_basic (HTTP Basic)"
	case "client_secret_post":
		return "client_secret_post (client_secret in the body)"
	case "none":
		return "none (client_id only)"
	}
	return m
}

// tokenAuthCheck is the check of the client authentication at the token
// endpoint: RFC 8414's token_endpoint_auth_methods_supported is what the
// 2025-06-18 page tells clients to follow.
func tokenAuthCheck(id, title string, f ...*fault.Fault) *scenarios.Check {
	return &scenarios.Check{ID: id + "/token-endpoint-auth", Level: scenarios.Must, Spec: page0618 + "#server-metadata-discovery",
		Title:  title,
		Quote:  "MCP clients MUST follow the OAuth 2.0 Authorization Server Metadata RFC8414 specification to obtain the information required to interact with the authorization server.",
		Faults: f}
}

// judgeTokenAuth: every token request to as authenticates with the method
// want says for its client (the one the server advertises and
// registered), with the client's own secret (known).
func judgeTokenAuth(f *flow, ch *scenarios.Check, as *authserver.Server, want func(clientID string) string, known func(clientID string) (string, bool)) {
	t := f.t
	reqs := tokenRequests(f, as)
	if len(reqs) == 0 {
		t.Skip(ch, "the client made no token request ("+f.end()+")")
		return
	}
	var bad, used []string
	for _, e := range reqs {
		a := readClientAuth(e)
		grant := e.Form.Get("grant_type")
		if a.malformed != "" {
			bad = append(bad, grant+": "+a.malformed)
			continue
		}
		if a.id == "" {
			bad = append(bad, grant+": no client_id")
			continue
		}
		used = append(used, a.method)
		secret, ok := known(a.id)
		if !ok {
			bad = append(bad, grant+": a client_id the server never issued")
			continue
		}
		if m := want(a.id); a.method != m {
			bad = append(bad, fmt.Sprintf("%s: %s, not %s", grant, describeMethod(a.method), describeMethod(m)))
			continue
		}
		if a.method != "none" && a.secret != secret {
			bad = append(bad, grant+": not the client's secret")
		}
	}
	if len(bad) == 0 {
		slices.Sort(used)
		t.PassWith(ch, "client authentication: "+strings.Join(slices.Compact(used), ", "))
		return
	}
	t.Fail(ch, "every token request authenticated as registered", listed(bad))
}

// registry records what each registration answer named, by client id
// (the answer is the registration's word: RFC 7591 §3.2.1).
type registry struct {
	mu      sync.Mutex
	methods map[string]string
	secrets map[string]string
}

func newRegistry() *registry {
	return &registry{methods: map[string]string{}, secrets: map[string]string{}}
}

// hook is an authserver OnRegister that records the answer.
func (r *registry) hook(_ *authserver.Exchange, answer map[string]any) {
	id, _ := answer["client_id"].(string)
	m, _ := answer["token_endpoint_auth_method"].(string)
	sec, _ := answer["client_secret"].(string)
	r.mu.Lock()
	r.methods[id], r.secrets[id] = m, sec
	r.mu.Unlock()
}

// method is the method registered for client id.
func (r *registry) method(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.methods[id]
}

// credentials are every client id and secret registered, as one set.
func (r *registry) credentials() map[string]bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]bool{}
	for id, sec := range r.secrets {
		out[id] = true
		if sec != "" {
			out[sec] = true
		}
	}
	return out
}
