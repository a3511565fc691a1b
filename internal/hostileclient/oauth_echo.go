package main

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
)

// oauthEcho (mode oauth-echo, http, 2025-11-25) authorizes at the protected
// server by hand (challenge, metadata, registration, the code through the
// redirect's Location, the exchange with a PKCE verifier), then shouts every
// credential of the flow: on stderr, in the arguments of its tools/call, and
// into echoFile, so that a test can grep every report for each of them.
func oauthEcho(server, echoFile string) {
	fail := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "hostile client: "+format+"\n", args...)
		os.Exit(1)
	}
	post := func(token string, body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, server, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := noRedirects.Do(req)
		if err != nil {
			fail("POST: %v", err)
		}
		return resp
	}
	getJSON := func(u string) map[string]any {
		resp, err := noRedirects.Get(u)
		if err != nil {
			fail("GET %s: %v", u, err)
		}
		defer resp.Body.Close()
		var doc map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&doc)
		return doc
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"hostile","version":"0"}}}`
	resp := post("", initialize)
	resp.Body.Close()
	challenge := resp.Header.Get("WWW-Authenticate")
	_, prmURL, ok := strings.Cut(challenge, `resource_metadata="`)
	if resp.StatusCode != http.StatusUnauthorized || !ok {
		fail("expected a 401 naming resource_metadata, got %d %q", resp.StatusCode, challenge)
	}
	prmURL, _, _ = strings.Cut(prmURL, `"`)
	prm := getJSON(prmURL)
	servers, _ := prm["authorization_servers"].([]any)
	if len(servers) == 0 {
		fail("no authorization server in %s", prmURL)
	}
	issuer, _ := servers[0].(string)
	meta := getJSON(issuer + "/.well-known/oauth-authorization-server")
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }

	reg, _ := json.Marshal(map[string]any{"client_name": "hostile", "redirect_uris": []string{"http://localhost:3000/callback"},
		"token_endpoint_auth_method": "client_secret_post", "application_type": "native"})
	rresp, err := noRedirects.Post(str(meta, "registration_endpoint"), "application/json", bytes.NewReader(reg))
	if err != nil {
		fail("register: %v", err)
	}
	var client map[string]any
	_ = json.NewDecoder(rresp.Body).Decode(&client)
	rresp.Body.Close()

	b := make([]byte, 32)
	_, _ = rand.Read(b)
	verifier := hex.EncodeToString(b)
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"response_type": {"code"}, "client_id": {str(client, "client_id")}, "redirect_uri": {"http://localhost:3000/callback"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
		"state": {"hostile-state"}, "resource": {str(prm, "resource")}}
	aresp, err := noRedirects.Get(str(meta, "authorization_endpoint") + "?" + q.Encode())
	if err != nil {
		fail("authorize: %v", err)
	}
	aresp.Body.Close()
	loc, _ := url.Parse(aresp.Header.Get("Location"))
	code := loc.Query().Get("code")
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {"http://localhost:3000/callback"},
		"code_verifier": {verifier}, "client_id": {str(client, "client_id")}, "client_secret": {str(client, "client_secret")},
		"resource": {str(prm, "resource")}}
	tresp, err := noRedirects.PostForm(str(meta, "token_endpoint"), form)
	if err != nil {
		fail("token: %v", err)
	}
	var tok map[string]any
	_ = json.NewDecoder(tresp.Body).Decode(&tok)
	tresp.Body.Close()
	token := str(tok, "access_token")

	secrets := map[string]string{"access_token": token, "code": code, "code_verifier": verifier, "client_secret": str(client, "client_secret")}
	out, _ := json.Marshal(secrets)
	if echoFile != "" {
		if err := os.WriteFile(echoFile, out, 0o600); err != nil {
			fail("writing %s: %v", echoFile, err)
		}
	}
	fmt.Fprintf(os.Stderr, "hostile client: my credentials are %s\n", out)
	fmt.Printf("hostile client: token %s, code %s, verifier %s\n", token, code, verifier)

	r := post(token, initialize)
	_, _ = io.Copy(io.Discard, r.Body)
	r.Body.Close()
	sid := r.Header.Get("Mcp-Session-Id")
	call := func(body string) {
		req, _ := http.NewRequest(http.MethodPost, server, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Mcp-Session-Id", sid)
		if resp, err := noRedirects.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	call(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	args, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
		"params": map[string]any{"name": "test-tool", "arguments": secrets}})
	call(string(args))
	fmt.Fprintln(os.Stderr, "hostile client: called test-tool with every credential as its arguments")
}
