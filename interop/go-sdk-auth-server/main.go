// Command go-sdk-auth-server is a protected MCP server (an OAuth 2.0
// resource server) on go-sdk v1.8.0, an interop target for mcpconform's
// judging of protected servers. It serves Streamable HTTP at /mcp behind
// go-sdk's auth.RequireBearerToken middleware, and Protected Resource
// Metadata (RFC 9728) at /.well-known/oauth-protected-resource/mcp through
// go-sdk's auth.ProtectedResourceMetadataHandler.
//
// Access tokens are JWTs (RFC 9068) checked with go-jose against the JWKS
// named by the issuer's RFC 8414 metadata (ISSUER/.well-known/
// oauth-authorization-server → jwks_uri), fetched on first use, cached, and
// refetched when a token names an unknown kid. A token passes when: it is a
// compact JWS with alg ES256 and typ at+jwt (or application/at+jwt), its
// signature verifies under the JWKS key its kid names, iss equals -issuer,
// aud contains -resource (byte-equal, RFC 9728 §3.3's simple string
// comparison), exp is present, and exp/nbf/iat hold with 60 s leeway.
//
// The 401/403 answers, their WWW-Authenticate challenges and their bodies
// are go-sdk's own (auth.RequireBearerToken): this harness only maps every
// verification failure to an error wrapping auth.ErrInvalidToken.
//
// It is a separate module so mcpconform's go.mod never depends on go-sdk.
//
// usage: go-sdk-auth-server -http 127.0.0.1:PORT -issuer http://127.0.0.1:AS
//
//	[-resource http://127.0.0.1:PORT/mcp] [-scopes "mcp:tools"] [-stateless]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// leeway bounds the clock skew tolerated on exp, nbf and iat.
const leeway = 60 * time.Second

func main() {
	log.SetPrefix("go-sdk-auth-server: ")
	log.SetFlags(0)
	addr := flag.String("http", "127.0.0.1:3000", "loopback `address` to listen on")
	issuer := flag.String("issuer", "", "authorization server issuer `URL` (an origin); required")
	resource := flag.String("resource", "", "resource identifier `URL` tokens must carry in aud (default http://ADDR/mcp)")
	scopes := flag.String("scopes", "mcp:tools", "space-separated scopes required on every request (empty: none)")
	stateless := flag.Bool("stateless", false, "serve Streamable HTTP statelessly (no Mcp-Session-Id)")
	flag.Parse()
	if *issuer == "" {
		log.Fatal("-issuer is required")
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		log.Fatalf("-http %q: %v", *addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		log.Fatalf("-http %q: only a loopback IP address is allowed", *addr)
	}
	if *resource == "" {
		*resource = "http://" + *addr + "/mcp"
	}
	res, err := url.Parse(*resource)
	if err != nil || res.Scheme == "" || res.Host == "" {
		log.Fatalf("-resource %q: not an absolute URL", *resource)
	}
	// RFC 9728 §3.1: the well-known segment goes between the host and the
	// resource's path.
	prmURL := (&url.URL{Scheme: res.Scheme, Host: res.Host, Path: "/.well-known/oauth-protected-resource" + res.Path}).String()
	required := strings.Fields(*scopes)

	v := &verifier{issuer: *issuer, resource: *resource, client: &http.Client{Timeout: 10 * time.Second}}

	server := mcp.NewServer(&mcp.Implementation{Name: "go-sdk-auth-server", Version: "1.8.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "test_simple_text", Description: "Returns a fixed text response"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return text("This is a simple text response for testing."), nil, nil
		})
	type echoArgs struct {
		Message string `json:"message" jsonschema:"the text to echo back"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Echoes its message argument"},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return text("Echo: " + in.Message), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "whoami", Description: "Returns what the access token of this request said"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			ti := req.Extra.TokenInfo
			if ti == nil {
				return text("no token"), nil, nil
			}
			b, _ := json.Marshal(map[string]any{"sub": ti.UserID, "scopes": ti.Scopes, "exp": ti.Expiration.Unix(), "client_id": ti.Extra["client_id"]})
			return text(string(b)), nil, nil
		})

	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: *stateless})
	bearer := auth.RequireBearerToken(v.verify, &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: prmURL,
		Scopes:              required,
		ClockSkew:           leeway,
	})
	prm := &oauthex.ProtectedResourceMetadata{
		Resource:               *resource,
		AuthorizationServers:   []string{*issuer},
		ScopesSupported:        required,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "go-sdk v1.8.0 protected MCP server (mcpconform interop)",
	}
	mux := http.NewServeMux()
	mux.Handle("/.well-known/oauth-protected-resource"+res.Path, auth.ProtectedResourceMetadataHandler(prm))
	mux.Handle(res.Path, bearer(handler))

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("MCP endpoint %s (resource %s), metadata %s, issuer %s, required scopes %q",
		"http://"+ln.Addr().String()+res.Path, *resource, prmURL, *issuer, required)
	log.Fatal(http.Serve(ln, mux))
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// accessClaims are the RFC 9068 claims this server reads.
type accessClaims struct {
	jwt.Claims
	ClientID string `json:"client_id"`
	Scope    string `json:"scope"`
}

// verifier checks RFC 9068 access tokens against the issuer's JWKS.
type verifier struct {
	issuer, resource string
	client           *http.Client

	mu      sync.Mutex
	jwks    *jose.JSONWebKeySet
	fetched time.Time
}

// invalid wraps auth.ErrInvalidToken, which RequireBearerToken turns into a
// 401 with its challenge; any other error becomes a 500.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", auth.ErrInvalidToken, fmt.Sprintf(format, args...))
}

func (v *verifier) verify(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return nil, invalid("%v", err)
	}
	h := tok.Headers[0]
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); !strings.EqualFold(typ, "at+jwt") && !strings.EqualFold(typ, "application/at+jwt") {
		return nil, invalid("typ %q is not at+jwt", typ)
	}
	key, err := v.key(ctx, h.KeyID)
	if err != nil {
		return nil, err
	}
	var c accessClaims
	if err := tok.Claims(key, &c); err != nil {
		return nil, invalid("%v", err)
	}
	if c.Expiry == nil {
		return nil, invalid("no exp claim")
	}
	if err := c.ValidateWithLeeway(jwt.Expected{Issuer: v.issuer, AnyAudience: jwt.Audience{v.resource}}, leeway); err != nil {
		return nil, invalid("%v", err)
	}
	return &auth.TokenInfo{
		Scopes:     strings.Fields(c.Scope),
		Expiration: c.Expiry.Time(),
		UserID:     c.Subject,
		Extra:      map[string]any{"client_id": c.ClientID, "jti": c.ID},
	}, nil
}

// key returns the JWKS key kid names, fetching the JWKS when none is cached
// or (at most every 2 s) when kid is unknown.
func (v *verifier) key(ctx context.Context, kid string) (*jose.JSONWebKey, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	find := func() *jose.JSONWebKey {
		if v.jwks == nil {
			return nil
		}
		for _, k := range v.jwks.Keys {
			if k.KeyID == kid && (k.Use == "" || k.Use == "sig") {
				return &k
			}
		}
		return nil
	}
	if k := find(); k != nil {
		return k, nil
	}
	if v.jwks == nil || time.Since(v.fetched) > 2*time.Second {
		set, err := v.fetchJWKS(ctx)
		if err != nil {
			// Not an invalid token: the server cannot judge it (a 500).
			return nil, fmt.Errorf("fetching the issuer's JWKS: %w", err)
		}
		v.jwks, v.fetched = set, time.Now()
		if k := find(); k != nil {
			return k, nil
		}
	}
	return nil, invalid("no key with kid %q in the issuer's JWKS", kid)
}

func (v *verifier) fetchJWKS(ctx context.Context) (*jose.JSONWebKeySet, error) {
	var meta struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := v.getJSON(ctx, strings.TrimSuffix(v.issuer, "/")+"/.well-known/oauth-authorization-server", &meta); err != nil {
		return nil, err
	}
	if meta.Issuer != v.issuer {
		return nil, fmt.Errorf("metadata issuer %q is not %q", meta.Issuer, v.issuer)
	}
	if meta.JWKSURI == "" {
		return nil, errors.New("metadata has no jwks_uri")
	}
	var set jose.JSONWebKeySet
	if err := v.getJSON(ctx, meta.JWKSURI, &set); err != nil {
		return nil, err
	}
	return &set, nil
}

func (v *verifier) getJSON(ctx context.Context, u string, dst any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := v.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	if err := json.Unmarshal(body, dst); err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	return nil
}
