package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/oauth2"

	"github.com/mcpconform/mcpconform/protocol"
)

// The reference client's identity at an authorization server and its use
// of the token endpoint beyond the code exchange: which client id it
// presents (reference_auth.go's client), how it authenticates, which grant
// types it registers, offline_access, and refreshes.

// cimdHTTPURL is the metadata document URL of the auth-cimd-http-url
// fault: the reference's, with http instead of https.
const cimdHTTPURL = "http://conformance-test.local/client-metadata.json"

// offlineAccess is the scope by which a client asks for a refresh token
// (OpenID Connect Core §11; 2026-07-28/basic/authorization/index.mdx#refresh-tokens).
const offlineAccess = "offline_access"

// cimdURL is the client id the reference presents where the server takes
// client ID metadata documents.
func (a *authorizer) cimdURL() string {
	if a.is(AuthCIMDHTTPURL) {
		return cimdHTTPURL
	}
	return ReferenceCIMDURL
}

// preRegistered reports whether the context's credentials are for issuer:
// pre-registered credentials belong to the server that issued them
// (2026-07-28/basic/authorization/client-registration.mdx#authorization-server-binding),
// which the context names when it can.
func (a *authorizer) preRegistered(issuer string) bool {
	return a.ctx.ClientID != "" && !a.is(AuthIgnoresPreRegistration) && (a.ctx.Issuer == "" || a.ctx.Issuer == issuer)
}

// usesCIMD reports whether the client presents its metadata document URL.
func (a *authorizer) usesCIMD(doc map[string]any) bool {
	return metaBool(doc, "client_id_metadata_document_supported") &&
		!(a.is(AuthPrefersDCR) && metaString(doc, "registration_endpoint") != "")
}

// registrationMethod is the token endpoint authentication the client asks
// for when it registers.
func (a *authorizer) registrationMethod(supported []string) string {
	if a.is(AuthPrefersPost) && slices.Contains(supported, "client_secret_post") && !slices.Contains(supported, "none") {
		return "client_secret_post"
	}
	return pickMethod(supported, false)
}

// grantTypes are the grant types the client registers.
func (a *authorizer) grantTypes() []string {
	if a.is(AuthNoRefreshGrantType) || a.is(AuthNoRefreshTokens) {
		return []string{"authorization_code"}
	}
	return []string{"authorization_code", "refresh_token"}
}

// tokenAuthStyle is how the client authenticates at the token endpoint
// with the registered method (or, for the auth-wrong-auth-method fault,
// another one).
func (a *authorizer) tokenAuthStyle(method string) oauth2.AuthStyle {
	if a.is(AuthWrongAuthMethod) || a.is(AuthPreRegisteredPost) {
		if method == "client_secret_basic" {
			return oauth2.AuthStyleInParams
		}
		return oauth2.AuthStyleInHeader
	}
	return authStyle(method)
}

// withOfflineAccess adds offline_access to the scopes where the page
// grants it (2026-07-28: "MAY add offline_access to the scope parameter
// of the authorization and token requests when the Authorization Server
// metadata contains it in scopes_supported"): the reference desires
// refresh tokens.
func (a *authorizer) withOfflineAccess(scopes []string, asMeta map[string]any) []string {
	if slices.Contains(scopes, offlineAccess) || a.is(AuthNoRefreshTokens) {
		return scopes
	}
	listed := a.rc.opts.Version == protocol.V20260728 && slices.Contains(metaStrings(asMeta, "scopes_supported"), offlineAccess)
	if listed || a.is(AuthAlwaysOfflineAccess) {
		return append(slices.Clone(scopes), offlineAccess)
	}
	return scopes
}

// refreshable reports whether a refused token can be renewed by a refresh
// at issuer: the client holds a refresh token of that very server (a
// refresh token is never taken to another one).
func (a *authorizer) refreshable(issuer string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.token != nil && a.token.RefreshToken != "" && a.cfg != nil && a.issuer == issuer
}

// refresh trades the refresh token for a new access token (OAuth 2.1
// §4.3) with the resource parameter (RFC 8707 §2: a token request) and
// the client authentication the registration named. x/oauth2's token
// source cannot send resource, so the request is made here.
func (a *authorizer) refresh(ctx context.Context, resource string) error {
	a.mu.Lock()
	tok, cfg := a.token, a.cfg
	a.mu.Unlock()
	if tok == nil || tok.RefreshToken == "" || cfg == nil {
		return errors.New("no refresh token")
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}}
	if resource != "" && !a.is(AuthDropsResource) {
		form.Set("resource", resource)
	}
	style := cfg.Endpoint.AuthStyle
	if style != oauth2.AuthStyleInHeader {
		form.Set("client_id", cfg.ClientID)
		if cfg.ClientSecret != "" {
			form.Set("client_secret", cfg.ClientSecret)
		}
	}
	endpoint, err := url.Parse(cfg.Endpoint.TokenURL)
	if err != nil {
		return fmt.Errorf("token endpoint %q: %w", cfg.Endpoint.TokenURL, err)
	}
	if err := loopbackOnly(endpoint); err != nil {
		return err
	}
	if a.is(AuthRefreshTokenInQuery) {
		q := endpoint.Query()
		q.Set("refresh_token", tok.RefreshToken)
		endpoint.RawQuery = q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint.String(), strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if style == oauth2.AuthStyleInHeader {
		req.SetBasicAuth(url.QueryEscape(cfg.ClientID), url.QueryEscape(cfg.ClientSecret))
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		return fmt.Errorf("the refresh request: %w", err)
	}
	defer resp.Body.Close()
	var answer struct { // an OAuth token response (RFC 6749 §5), no MCP message
		AccessToken  string `json:"access_token"`
		TokenType    string `json:"token_type"`
		RefreshToken string `json:"refresh_token"`
		Error        string `json:"error"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&answer); err != nil {
		return fmt.Errorf("the refresh answer (HTTP %d) is not JSON: %w", resp.StatusCode, err)
	}
	if resp.StatusCode != http.StatusOK || answer.AccessToken == "" {
		return fmt.Errorf("the refresh was refused: HTTP %d %s", resp.StatusCode, answer.Error)
	}
	next := &oauth2.Token{AccessToken: answer.AccessToken, TokenType: answer.TokenType, RefreshToken: answer.RefreshToken}
	if next.RefreshToken == "" {
		next.RefreshToken = tok.RefreshToken // not rotated: the old one stays valid (OAuth 2.1 §4.3.3)
	}
	a.mu.Lock()
	a.token = next
	a.mu.Unlock()
	a.rc.logf("authorization: token refreshed")
	return nil
}
