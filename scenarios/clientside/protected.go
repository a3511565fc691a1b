package clientside

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakes/authserver"
	"github.com/mcpconform/mcpconform/transport"
)

// PRMDefault is where a protected resource at /mcp serves its metadata by
// default: the well-known suffix with the resource's path inserted (RFC
// 9728 §3.1).
const PRMDefault = "/.well-known/oauth-protected-resource/mcp"

// PRMRoot is the well-known location without the resource's path.
const PRMRoot = "/.well-known/oauth-protected-resource"

// Protection puts the fake server behind OAuth: a protected resource that
// answers 401 with a challenge until a request carries a token one of the
// scenario's authorization servers issued for it, and serves its Protected
// Resource Metadata (RFC 9728); and the authorization servers themselves,
// each on its own loopback origin.
type Protection struct {
	// Servers script the authorization servers, the first being the one
	// the metadata names unless AuthorizationServers says otherwise.
	Servers []authserver.Options
	// SameOrigin serves the first authorization server on the resource's
	// own origin (2025-03-26: no resource metadata, the server's root is
	// the authorization base URL).
	SameOrigin bool
	// PRMPath is where the metadata is served; "" is PRMDefault, "-" none.
	PRMPath string
	// HideMetadataURL leaves resource_metadata out of the challenge, so the
	// client must find the metadata at a well-known location.
	HideMetadataURL bool
	// ChallengeScope is the scope parameter of the 401 challenge ("" none).
	ChallengeScope string
	// Resource replaces the metadata's resource ("" is the canonical URI:
	// the endpoint's URL, or its origin for metadata at PRMRoot).
	Resource string
	// ResourceSuffix is appended to the canonical resource ("/": the
	// trailing-slash variant of the endpoint's URL).
	ResourceSuffix string
	// ScopesSupported is the metadata's scopes_supported (nil: absent).
	ScopesSupported []string
	// AuthorizationServers, when set, picks the issuers the metadata names
	// at each request (migration); nil names the first server.
	AuthorizationServers func(p *Protected) []string
	// Refuse, when set, is asked about every request that carries a valid
	// token: a non-empty scope refuses it with 403 insufficient_scope
	// naming that scope (step-up).
	Refuse func(rpcMethod string, g *authserver.Grant) (scope string)
	// RejectToken, when set, is asked about every request that carries a
	// valid token: true answers it 401 invalid_token as if the token were
	// not (a loop of refused tokens).
	RejectToken func(rpcMethod string, g *authserver.Grant) bool
	// Context adds keys to MCP_CONFORMANCE_CONTEXT once the servers listen
	// (credentials, issuers).
	Context func(p *Protected) map[string]any
	// Present, when set, replaces the bearer check of every MCP request
	// (DPoP, RFC 9449 §7): it reads the request's credential and returns
	// the grant it stands for, or nil with the challenge and the headers
	// (DPoP-Nonce) of the 401 to answer instead.
	Present func(p *Protected, r *http.Request) (g *authserver.Grant, challenge string, header http.Header)
}

// Protected is a running protection: its servers and the log of every
// HTTP request the client made to any of them.
type Protected struct {
	opts     Protection
	Log      *authserver.Log
	Servers  []*authserver.Server
	Endpoint string // the MCP endpoint's URL
	Origin   string // the resource's origin
	closers  []func()
}

// AS is the i-th authorization server.
func (p *Protected) AS(i int) *authserver.Server { return p.Servers[i] }

// PRMURL is where the metadata is served ("" for none).
func (p *Protected) PRMURL() string {
	if p.opts.PRMPath == "-" {
		return ""
	}
	return p.Origin + p.prmPath()
}

func (p *Protected) prmPath() string {
	if p.opts.PRMPath == "" {
		return PRMDefault
	}
	return p.opts.PRMPath
}

// ResourceID is the resource identifier the metadata publishes.
func (p *Protected) ResourceID() string {
	switch {
	case p.opts.Resource != "":
		return p.opts.Resource
	case p.opts.PRMPath == PRMRoot:
		return p.Origin + p.opts.ResourceSuffix
	}
	return p.Endpoint + p.opts.ResourceSuffix
}

// Lookup finds the grant of a token any of the servers issued.
func (p *Protected) Lookup(token string) (*authserver.Grant, *authserver.Server) {
	for _, s := range p.Servers {
		if g, ok := s.Lookup(token); ok {
			return g, s
		}
	}
	return nil, nil
}

// Auth is the scenario's protection (nil when its server is not protected).
func (t *T) Auth() *Protected { return t.protected }

// listenProtected serves the fake server's endpoint behind the protection,
// and the authorization servers on origins of their own.
func (t *T) listenProtected(ctx context.Context, pr *Protection) (transport.Listener, string, error) {
	if t.Env.Transport != transport.HTTP {
		return nil, "", fmt.Errorf("authorization is served over Streamable HTTP only")
	}
	p := &Protected{opts: *pr, Log: authserver.NewLog()}
	p.Log.OnAdd = func(x authserver.Exchange) {
		t.Transcript().Eventf(x.Server, "HTTP %s %s → %d%s", x.Method, x.URL(), x.Status, describeAuth(x.Header))
	}
	if len(pr.Servers) == 0 {
		pr.Servers = []authserver.Options{{}}
	}
	for i, o := range pr.Servers {
		if o.Label == "" {
			o.Label = "as"
			if i > 0 {
				o.Label = fmt.Sprintf("as%d", i+1)
			}
		}
		s := authserver.New(o, p.Log)
		p.Servers = append(p.Servers, s)
		if i == 0 && pr.SameOrigin {
			continue // given the resource's origin below
		}
		base, stop, err := serveOn(ctx, s, o.Host)
		if err != nil {
			p.close()
			return nil, "", err
		}
		s.Base = base
		p.closers = append(p.closers, stop)
	}
	l, err := transport.ListenHTTP(ctx, "127.0.0.1:0", transport.HTTPServerOptions{
		Transcript: t.Transcript(),
		Wrap:       func(mcp http.Handler) http.Handler { return p.handler(mcp) },
	})
	if err != nil {
		p.close()
		return nil, "", err
	}
	p.Endpoint = l.Addr()
	p.Origin = strings.TrimSuffix(p.Endpoint, "/mcp")
	if pr.SameOrigin {
		p.Servers[0].Base = p.Origin
	}
	t.protected = p
	t.Cleanup(p.close)
	return l, l.Addr(), nil
}

func (p *Protected) close() {
	for _, c := range p.closers {
		c()
	}
	p.closers = nil
}

// serveOn serves h on a fresh port of a loopback address (host, ""
// 127.0.0.1).
func serveOn(ctx context.Context, h http.Handler, host string) (string, func(), error) {
	if host == "" {
		host = "127.0.0.1"
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return "", nil, fmt.Errorf("authorization server host %q is not a loopback address", host)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = srv.Close() }, nil
}

// handler is the resource's origin: metadata, the same-origin
// authorization server, and the MCP endpoint behind the token check.
func (p *Protected) handler(mcp http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p.opts.SameOrigin && p.Servers[0].Handles(r.URL.Path) {
			p.Servers[0].ServeHTTP(w, r)
			return
		}
		x := p.Log.Read("resource", r)
		rec := authserver.NewRecorder(w)
		defer func() { x.Status = rec.Status(); p.Log.Add(x) }()
		switch {
		case p.PRMURL() != "" && r.URL.Path == p.prmPath() && r.Method == http.MethodGet:
			doc := map[string]any{"resource": p.ResourceID(), "authorization_servers": p.issuers(),
				"bearer_methods_supported": []any{"header"}}
			if p.opts.ScopesSupported != nil {
				doc["scopes_supported"] = p.opts.ScopesSupported
			}
			authserver.WriteJSON(rec, http.StatusOK, doc)
		case r.URL.Path == "/mcp":
			p.guard(rec, r, x, mcp)
		default:
			authserver.WriteJSON(rec, http.StatusNotFound, map[string]any{"error": "not_found"})
		}
	})
}

func (p *Protected) issuers() []string {
	if p.opts.AuthorizationServers != nil {
		return p.opts.AuthorizationServers(p)
	}
	return []string{p.Servers[0].Issuer()}
}

// guard lets through a request with a token issued for this resource and
// answers anything else with the challenge (RFC 6750 §3, RFC 9728 §5.1).
func (p *Protected) guard(w http.ResponseWriter, r *http.Request, x *authserver.Exchange, mcp http.Handler) {
	token, ok := BearerToken(r.Header)
	var grant *authserver.Grant
	if ok {
		grant, _ = p.Lookup(token)
	}
	if p.opts.Present != nil {
		var challenge string
		var header http.Header
		if grant, challenge, header = p.opts.Present(p, r); grant == nil {
			for k, vs := range header {
				w.Header()[k] = vs
			}
			w.Header().Set("WWW-Authenticate", challenge)
			authserver.WriteJSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_token",
				"error_description": "a DPoP-bound token issued for this resource, with its proof, is required"})
			return
		}
	}
	if grant != nil && p.opts.RejectToken != nil && p.opts.RejectToken(x.RPCMethod, grant) {
		w.Header().Set("WWW-Authenticate", p.challenge("invalid_token", ""))
		authserver.WriteJSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_token",
			"error_description": "this token is not accepted"})
		return
	}
	if grant == nil {
		w.Header().Set("WWW-Authenticate", p.challenge("", ""))
		authserver.WriteJSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_token",
			"error_description": "a bearer token issued for this resource is required"})
		return
	}
	if p.opts.Refuse != nil {
		if scope := p.opts.Refuse(x.RPCMethod, grant); scope != "" {
			w.Header().Set("WWW-Authenticate", p.challenge("insufficient_scope", scope))
			authserver.WriteJSON(w, http.StatusForbidden, map[string]any{"error": "insufficient_scope",
				"error_description": "this request needs scope " + scope})
			return
		}
	}
	mcp.ServeHTTP(w, r)
}

// Challenge is the resource's Bearer challenge with an error code (""
// none), for a Present hook that answers a request without DPoP.
func (p *Protected) Challenge(errCode string) string { return p.challenge(errCode, "") }

func (p *Protected) challenge(errCode, scope string) string {
	var params []string
	if errCode != "" {
		params = append(params, fmt.Sprintf("error=%q", errCode))
	}
	if scope == "" {
		scope = p.opts.ChallengeScope
	}
	if scope != "" {
		params = append(params, fmt.Sprintf("scope=%q", scope))
	}
	if u := p.PRMURL(); u != "" && !p.opts.HideMetadataURL {
		params = append(params, fmt.Sprintf("resource_metadata=%q", u))
	}
	if len(params) == 0 {
		return "Bearer"
	}
	return "Bearer " + strings.Join(params, ", ")
}

// BearerToken is the token of an "Authorization: Bearer" header.
func BearerToken(h http.Header) (string, bool) {
	scheme, token, ok := strings.Cut(h.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// describeAuth names the credential a request carried, never its value.
func describeAuth(h http.Header) string {
	v := h.Get("Authorization")
	if v == "" {
		return ""
	}
	scheme, _, _ := strings.Cut(v, " ")
	return " (Authorization: " + scheme + " …)"
}
