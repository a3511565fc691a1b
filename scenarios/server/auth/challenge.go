package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/internal/wwwauth"
	"github.com/mcpconform/mcpconform/transport"
)

// challenge is a WWW-Authenticate challenge.
type challenge = wwwauth.Challenge

// bearer is the Bearer challenge of a response, if it has one.
func bearer(h http.Header) (challenge, bool) { return wwwauth.Find(h, "Bearer") }

// sameOrigin reports whether u is on the origin of base (scheme, host and
// port; ws and wss count as http and https): mcpconform fetches nothing a
// target names elsewhere.
func sameOrigin(u, base *url.URL) bool {
	scheme := func(s string) string {
		switch strings.ToLower(s) {
		case "ws":
			return "http"
		case "wss":
			return "https"
		}
		return strings.ToLower(s)
	}
	return scheme(u.Scheme) == scheme(base.Scheme) && strings.EqualFold(u.Host, base.Host)
}

// httpOrigin is the http(s) origin of an endpoint URL (ws → http).
func httpOrigin(u *url.URL) string {
	s := "http"
	if strings.EqualFold(u.Scheme, "https") || strings.EqualFold(u.Scheme, "wss") {
		s = "https"
	}
	return s + "://" + u.Host
}

// prmDoc is a fetched Protected Resource Metadata document.
type prmDoc struct {
	url         string // where it was found
	status      int
	contentType string
	raw         []byte
	doc         map[string]any // nil: not a JSON object
}

func (d *prmDoc) String() string {
	return fmt.Sprintf("GET %s: HTTP %d (%s) %.300s", d.url, d.status, d.contentType, d.raw)
}

// isJSON reports a 200 whose Content-Type is application/json and whose
// body is a JSON object (RFC 9728 §3.2).
func (d *prmDoc) isJSON() bool {
	mt, _, _ := mime.ParseMediaType(d.contentType)
	return d.status == http.StatusOK && mt == "application/json" && d.doc != nil
}

func (d *prmDoc) str(key string) string {
	s, _ := d.doc[key].(string)
	return s
}

func (d *prmDoc) strings(key string) ([]string, bool) {
	list, ok := d.doc[key].([]any)
	if !ok {
		return nil, false
	}
	var out []string
	for _, v := range list {
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// fetchPRM GETs a document on the target's origin (the caller checked).
func (p *prober) fetchPRM(u string) (*prmDoc, error) {
	ctx, cancel := p.t.Wait()
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := p.hc.Do(req)
	if err != nil {
		p.t.Transcript().Eventf(probeLabel, "GET %s: %v", u, err)
		return nil, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	d := &prmDoc{url: u, status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), raw: raw}
	if resp.StatusCode == http.StatusOK {
		var doc map[string]any
		if json.Unmarshal(raw, &doc) == nil {
			d.doc = doc
		}
	}
	p.t.Transcript().Eventf(probeLabel, "%s", d)
	return d, nil
}

// wellKnownPRM lists RFC 9728's locations for the endpoint, in the pages'
// order: path-based, then root (the same when the path is empty).
func wellKnownPRM(endpoint *url.URL) []string {
	origin := httpOrigin(endpoint)
	path := strings.TrimSuffix(endpoint.EscapedPath(), "/")
	out := []string{}
	if path != "" {
		out = append(out, origin+"/.well-known/oauth-protected-resource"+path)
	}
	return append(out, origin+"/.well-known/oauth-protected-resource")
}

// AdvertisedScopes reads the scopes_supported of the Protected Resource
// Metadata at the well-known URIs of an endpoint (its own origin only),
// for the tokens of a run that was told none; nil when there is none.
func AdvertisedScopes(ctx context.Context, endpoint string) []string {
	u, err := url.Parse(endpoint)
	if err != nil || !u.IsAbs() {
		return nil
	}
	hc := transport.NewHTTPClient(nil)
	for _, wk := range wellKnownPRM(u) {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, wk, nil)
		if err != nil {
			cancel()
			return nil
		}
		resp, err := hc.Do(req)
		if err != nil {
			cancel()
			return nil
		}
		// Protected Resource Metadata (RFC 9728), which no MCP schema types.
		var doc struct {
			Scopes []string `json:"scopes_supported"`
		}
		ok := resp.StatusCode == http.StatusOK && json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&doc) == nil
		resp.Body.Close()
		cancel()
		if ok {
			return doc.Scopes
		}
	}
	return nil
}
