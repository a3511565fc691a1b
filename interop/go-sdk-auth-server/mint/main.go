// Command mint is the self-check of a protected MCP server target: it plays
// the authorization server of mcpconform's contract on a loopback port (RFC
// 8414 metadata and a JWKS of one ES256 key), mints RFC 9068 access tokens,
// good and bad, starts the target pointed at it, and prints the HTTP status
// and WWW-Authenticate the target answers to each token on an MCP
// initialize request, with the answer the contract expects.
//
// usage: go run ./mint [-scopes mcp:tools] -- TARGET-COMMAND...
//
// In TARGET-COMMAND, {addr} {port} {issuer} {resource} and {scopes} are
// replaced, e.g.
//
//	go run ./mint -- ./go-sdk-auth-server -http {addr} -issuer {issuer} -scopes {scopes}
//
// Exit status: 0 when every case matched the contract, 1 when some did not,
// 2 when the check could not run.
package main

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`

func main() {
	log.SetPrefix("mint: ")
	log.SetFlags(0)
	scopes := flag.String("scopes", "mcp:tools", "scopes the target is told to require (and a valid token carries)")
	flag.Parse()
	if flag.NArg() == 0 {
		log.Print("usage: mint [-scopes S] -- TARGET-COMMAND...")
		os.Exit(2)
	}

	// The authorization server: metadata and JWKS on a loopback port.
	asLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fatal(err)
	}
	issuer := "http://" + asLn.Addr().String()
	key := newKey("k1")
	otherSameKid := newKey("k1")
	otherKid := newKey("k-other")
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{
			"issuer":                                issuer,
			"jwks_uri":                              issuer + "/jwks",
			"introspection_endpoint":                issuer + "/introspect",
			"token_endpoint":                        issuer + "/token",
			"authorization_endpoint":                issuer + "/authorize",
			"response_types_supported":              []string{"code"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none"},
		})
	})
	var jwksHits atomic.Int32
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		jwksHits.Add(1)
		writeJSON(w, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{key.Public()}})
	})
	go http.Serve(asLn, mux)

	// The target, on a free loopback port.
	port := freePort()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	resource := "http://" + addr + "/mcp"
	repl := strings.NewReplacer("{addr}", addr, "{port}", strconv.Itoa(port), "{issuer}", issuer, "{resource}", resource, "{scopes}", *scopes)
	argv := make([]string, flag.NArg())
	for i, a := range flag.Args() {
		argv[i] = repl.Replace(a)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	target = cmd
	var targetLog bytes.Buffer
	cmd.Stdout, cmd.Stderr = &targetLog, &targetLog
	if err := cmd.Start(); err != nil {
		fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			break
		}
		select {
		case err := <-exited:
			fatal(fmt.Errorf("target exited before listening (%v):\n%s", err, targetLog.String()))
		default:
		}
		if time.Now().After(deadline) {
			fatal(fmt.Errorf("target did not listen on %s within 30 s:\n%s", addr, targetLog.String()))
		}
		time.Sleep(100 * time.Millisecond)
	}

	now := time.Now()
	claims := func(edit func(m map[string]any)) map[string]any {
		m := map[string]any{
			"iss":       issuer,
			"sub":       "selfcheck-user",
			"aud":       resource,
			"exp":       now.Add(5 * time.Minute).Unix(),
			"nbf":       now.Add(-5 * time.Second).Unix(),
			"iat":       now.Add(-5 * time.Second).Unix(),
			"jti":       rand.Text(),
			"client_id": "selfcheck-client",
		}
		if *scopes != "" {
			m["scope"] = *scopes
		}
		if edit != nil {
			edit(m)
		}
		return m
	}
	prmURL := "http://" + addr + "/.well-known/oauth-protected-resource/mcp"
	const (
		ok401 = "401 + resource_metadata"
		ok403 = "403 + insufficient_scope"
	)
	type tcase struct {
		name, token, want string
	}
	cases := []tcase{
		{"no token", "", ok401},
		{"valid", sign(key, claims(nil)), "200"},
		{"expired (exp now-600s)", sign(key, claims(func(m map[string]any) {
			m["exp"], m["nbf"], m["iat"] = now.Add(-10*time.Minute).Unix(), now.Add(-20*time.Minute).Unix(), now.Add(-20*time.Minute).Unix()
		})), ok401},
		{"expired 30s ago (inside 60s leeway)", sign(key, claims(func(m map[string]any) {
			m["exp"], m["nbf"], m["iat"] = now.Add(-30*time.Second).Unix(), now.Add(-10*time.Minute).Unix(), now.Add(-10*time.Minute).Unix()
		})), "either"},
		{"not yet valid (nbf now+600s)", sign(key, claims(func(m map[string]any) { m["nbf"] = now.Add(10 * time.Minute).Unix() })), ok401},
		{"wrong aud", sign(key, claims(func(m map[string]any) { m["aud"] = "http://127.0.0.1:1/other-mcp" })), ok401},
		{"wrong iss", sign(key, claims(func(m map[string]any) { m["iss"] = "http://127.0.0.1:1" })), ok401},
		{"other key, unknown kid", sign(otherKid, claims(nil)), ok401},
		{"other key, same kid", sign(otherSameKid, claims(nil)), ok401},
		{"alg none", unsigned(claims(nil)), ok401},
		{"alg HS256", hs256(claims(nil)), ok401},
		{"garbage token", "not-a-jwt", ok401},
	}
	if *scopes != "" {
		cases = append(cases,
			tcase{"missing scope (no scope claim)", sign(key, claims(func(m map[string]any) { delete(m, "scope") })), ok403},
			tcase{"wrong scope (scope=other)", sign(key, claims(func(m map[string]any) { m["scope"] = "other" })), ok403})
	}

	fmt.Printf("target: %s\nissuer: %s\nresource: %s\nrequired scopes: %q\n\n", strings.Join(argv, " "), issuer, resource, *scopes)
	status, _, body := do("GET", prmURL, "", nil, "")
	fmt.Printf("GET %s -> %d %s\n\n", prmURL, status, strings.TrimSpace(body))

	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\twant\tgot\tWWW-Authenticate\tbody")
	failed := 0
	var session, proto string
	var validToken string
	for _, c := range cases {
		status, hdr, body := do("POST", resource, c.token, nil, initialize)
		www := strings.Join(hdr.Values("WWW-Authenticate"), " | ")
		verdict := judge(c.want, status, www)
		if verdict == " DIFF" {
			failed++
		}
		if c.want == "200" && status == 200 {
			session, validToken = hdr.Get("Mcp-Session-Id"), c.token
			proto = protocolVersion(body)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d%s\t%s\t%s\n", c.name, c.want, status, verdict, orDash(www), short(body))
	}
	// The valid token, through a whole exchange: initialized, tools/call.
	if validToken != "" {
		h := http.Header{}
		if session != "" {
			h.Set("Mcp-Session-Id", session)
		}
		if proto != "" {
			h.Set("MCP-Protocol-Version", proto)
		}
		status, _, body := do("POST", resource, validToken, h, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		fmt.Fprintf(tw, "valid: notifications/initialized\t202\t%d%s\t-\t%s\n", status, mark(status == 202), short(body))
		if status != 202 {
			failed++
		}
		status, _, body = do("POST", resource, validToken, h, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}`)
		good := status == 200 && strings.Contains(body, "This is a simple text response for testing.")
		fmt.Fprintf(tw, "valid: tools/call test_simple_text\t200 + text\t%d%s\t-\t%s\n", status, mark(good), short(body))
		if !good {
			failed++
		}
	}
	tw.Flush()
	fmt.Printf("\nJWKS fetched %d time(s); %d case(s) did not match the contract\n", jwksHits.Load(), failed)
	if os.Getenv("MINT_TARGET_LOG") != "" {
		fmt.Printf("\n--- target log\n%s", targetLog.String())
	}
	cmd.Process.Kill()
	if failed > 0 {
		os.Exit(1)
	}
}

// judge returns "" when the answer matches want, else a marker.
func judge(want string, status int, www string) string {
	var good bool
	switch want {
	case "200":
		good = status == 200
	case "either":
		return " (info)"
	case "401 + resource_metadata":
		good = status == 401 && strings.Contains(www, "resource_metadata=")
	case "403 + insufficient_scope":
		good = status == 403 && strings.Contains(www, `error="insufficient_scope"`)
	}
	return mark(good)
}

func mark(good bool) string {
	if good {
		return ""
	}
	return " DIFF"
}

func do(method, u, token string, h http.Header, body string) (int, http.Header, string) {
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := (&http.Client{Timeout: 15 * time.Second}).Do(req)
	if err != nil {
		fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// protocolVersion pulls result.protocolVersion out of an initialize answer,
// JSON or SSE.
func protocolVersion(body string) string {
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		line := strings.TrimPrefix(sc.Text(), "data:")
		var msg struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(strings.TrimSpace(line)), &msg) == nil && msg.Result.ProtocolVersion != "" {
			return msg.Result.ProtocolVersion
		}
	}
	return ""
}

func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 70 {
		s = s[:67] + "..."
	}
	return orDash(s)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

type signingKey struct {
	kid  string
	priv *ecdsa.PrivateKey
}

func newKey(kid string) signingKey {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		fatal(err)
	}
	return signingKey{kid, priv}
}

func (k signingKey) Public() jose.JSONWebKey {
	return jose.JSONWebKey{Key: &k.priv.PublicKey, KeyID: k.kid, Algorithm: "ES256", Use: "sig"}
}

// sign makes an RFC 9068 access token: ES256, kid, typ at+jwt.
func sign(k signingKey, claims map[string]any) string {
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k.priv},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", k.kid))
	if err != nil {
		fatal(err)
	}
	tok, err := jwt.Signed(s).Claims(claims).Serialize()
	if err != nil {
		fatal(err)
	}
	return tok
}

// unsigned makes an alg none token: header.claims. (empty signature).
func unsigned(claims map[string]any) string {
	return seg(map[string]any{"alg": "none", "typ": "at+jwt", "kid": "k1"}) + "." + seg(claims) + "."
}

// hs256 makes a token MACed with a secret the target cannot know.
func hs256(claims map[string]any) string {
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: []byte("selfcheck-secret-selfcheck-secret")},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", "k1"))
	if err != nil {
		fatal(err)
	}
	tok, err := jwt.Signed(s).Claims(claims).Serialize()
	if err != nil {
		fatal(err)
	}
	return tok
}

func seg(v any) string {
	b, _ := json.Marshal(v)
	return base64.RawURLEncoding.EncodeToString(b)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func freePort() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// target is the started target, stopped by fatal.
var target *exec.Cmd

func fatal(err error) {
	log.Print(err)
	if target != nil && target.Process != nil {
		target.Process.Kill()
	}
	os.Exit(2)
}
