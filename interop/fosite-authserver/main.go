// Command fosite-authserver is an OAuth 2.1 authorization server built on
// github.com/ory/fosite v0.49.0, for mcpconform to judge (interop/authservers.sh).
// It is configured as a careful operator would for MCP clients:
//
//   - the authorization code grant only (no implicit, no password, no client
//     credentials), with PKCE required of every client (EnforcePKCE) and S256
//     the only method (EnablePKCEPlainChallengeMethod false);
//   - refresh tokens for clients registered with the refresh_token grant
//     type (RefreshTokenScopes empty: no offline_access needed; the MCP
//     page leaves the issuing to the server), rotated on every use by
//     fosite's refresh handler, a replayed one revoking the family;
//   - one pre-registered public client, mcpconform-public, whose only
//     redirect URI is http://127.0.0.1:47831/callback;
//   - token revocation (RFC 7009).
//
// The authorization endpoint approves every valid request at once as the
// fixed user "test-user" (a test mode: there is no login or consent page).
// fosite serves no metadata and has no dynamic registration (RFC 7591):
// the RFC 8414 document at /.well-known/oauth-authorization-server is
// written here from this configuration, and names no registration_endpoint.
//
// usage: fosite-authserver -http 127.0.0.1:PORT
// The issuer is http://127.0.0.1:PORT (no path, no trailing slash).
package main

import (
	"crypto/rand"
	"encoding/json"
	"flag"
	"log"
	"net/http"
	"time"

	"github.com/ory/fosite"
	"github.com/ory/fosite/compose"
	"github.com/ory/fosite/storage"
)

const (
	clientID    = "mcpconform-public"
	redirectURI = "http://127.0.0.1:47831/callback"
	testUser    = "test-user"
)

func main() {
	addr := flag.String("http", "127.0.0.1:0", "loopback address to serve on (host:port)")
	flag.Parse()
	issuer := "http://" + *addr

	secret := make([]byte, 32) // HMAC key of codes and tokens, fresh per run
	if _, err := rand.Read(secret); err != nil {
		log.Fatal(err)
	}
	cfg := &fosite.Config{
		AccessTokenLifespan:            time.Hour,
		AuthorizeCodeLifespan:          5 * time.Minute,
		RefreshTokenLifespan:           24 * time.Hour,
		GlobalSecret:                   secret,
		EnforcePKCE:                    true,
		EnablePKCEPlainChallengeMethod: false,
		RefreshTokenScopes:             []string{},
		ScopeStrategy:                  fosite.ExactScopeStrategy,
		AudienceMatchingStrategy:       fosite.DefaultAudienceMatchingStrategy,
		TokenURL:                       issuer + "/token",
		AccessTokenIssuer:              issuer,
		IDTokenIssuer:                  issuer,
		SendDebugMessagesToClients:     false,
	}

	store := storage.NewMemoryStore()
	// A DefaultResponseModeClient, so that an explicit response_mode=query
	// is taken (a plain DefaultClient refuses every explicit response_mode).
	store.Clients[clientID] = &fosite.DefaultResponseModeClient{
		DefaultClient: &fosite.DefaultClient{
			ID:            clientID,
			Public:        true,
			RedirectURIs:  []string{redirectURI},
			GrantTypes:    []string{"authorization_code", "refresh_token"},
			ResponseTypes: []string{"code"},
			Scopes:        []string{"mcp"},
		},
		ResponseModes: []fosite.ResponseModeType{fosite.ResponseModeQuery},
	}

	provider := compose.Compose(cfg, store, compose.NewOAuth2HMACStrategy(cfg),
		compose.OAuth2AuthorizeExplicitFactory,
		compose.OAuth2RefreshTokenGrantFactory,
		compose.OAuth2PKCEFactory, // after the authorize code handler, as fosite asks
		compose.OAuth2TokenRevocationFactory,
	)

	// RFC 8414 §2: what this server does, and nothing else.
	metadata := map[string]any{
		"issuer":                                     issuer,
		"authorization_endpoint":                     issuer + "/authorize",
		"token_endpoint":                             issuer + "/token",
		"revocation_endpoint":                        issuer + "/revoke",
		"response_types_supported":                   []string{"code"},
		"response_modes_supported":                   []string{"query"},
		"grant_types_supported":                      []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":           []string{"S256"},
		"token_endpoint_auth_methods_supported":      []string{"none"},
		"revocation_endpoint_auth_methods_supported": []string{"none"},
		"scopes_supported":                           []string{"mcp"},
	}

	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(metadata)
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		ar, err := provider.NewAuthorizeRequest(ctx, r)
		if err != nil {
			log.Printf("authorize: %v", err)
			provider.WriteAuthorizeError(ctx, w, ar, err)
			return
		}
		// Auto-approve: the fixed test user grants every scope the client
		// asked for (NewAuthorizeRequest has checked them against the
		// client's) and the requested audience.
		for _, s := range ar.GetRequestedScopes() {
			ar.GrantScope(s)
		}
		for _, a := range ar.GetRequestedAudience() {
			ar.GrantAudience(a)
		}
		session := &fosite.DefaultSession{Subject: testUser, Username: testUser}
		resp, err := provider.NewAuthorizeResponse(ctx, ar, session)
		if err != nil {
			log.Printf("authorize: %v", err)
			provider.WriteAuthorizeError(ctx, w, ar, err)
			return
		}
		provider.WriteAuthorizeResponse(ctx, w, ar, resp)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		ar, err := provider.NewAccessRequest(ctx, r, &fosite.DefaultSession{})
		if err != nil {
			log.Printf("token: %v", err)
			provider.WriteAccessError(ctx, w, ar, err)
			return
		}
		resp, err := provider.NewAccessResponse(ctx, ar)
		if err != nil {
			log.Printf("token: %v", err)
			provider.WriteAccessError(ctx, w, ar, err)
			return
		}
		provider.WriteAccessResponse(ctx, w, ar, resp)
	})
	mux.HandleFunc("/revoke", func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		provider.WriteRevocationResponse(ctx, w, provider.NewRevocationRequest(ctx, r))
	})

	log.Printf("fosite-authserver: issuer %s, public client %s, redirect URI %s", issuer, clientID, redirectURI)
	log.Fatal(http.ListenAndServe(*addr, mux))
}
