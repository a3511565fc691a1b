// Package asside is the driver of scenarios that judge an OAuth
// authorization server (mcpconform authserver): mcpconform plays an MCP
// client's part of the flow — metadata discovery, dynamic registration,
// the authorization code grant with PKCE, refresh — over hand-made HTTP
// requests whose exchanges go into the transcript. It follows no redirect:
// the authorization response is read from the Location the server answers
// with, which is how a server's auto-approving test mode is judged. It
// uses no endpoint on another origin than the issuer's, and registers
// every credential it receives as a secret.
package asside

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"

	"golang.org/x/net/html"

	"github.com/mcpconform/mcpconform/internal/secret"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/transport"
)

// Target is the authorization server under test.
type Target struct {
	// Issuer is its issuer identifier (the URL its metadata is found from).
	Issuer string
	// ClientID, ClientSecret and RedirectURI name a client registered with
	// it beforehand; without ClientID, clients are registered dynamically
	// where the metadata offers registration.
	ClientID, ClientSecret, RedirectURI string
	// Approval, when set, are the fields of the login (and consent) forms
	// the authorization endpoint shows before it approves: mcpconform fills
	// them in, keeping every other field of the form, and follows the
	// forms and redirects on the issuer's origin until the answer leaves it.
	Approval map[string]string
}

func (t Target) String() string { return "authorization server: " + t.Issuer }

// DefaultRedirectURI is where mcpconform asks the code to be sent: a
// loopback URL nothing needs to listen on, since the answer is read from
// the Location header.
const DefaultRedirectURI = "http://127.0.0.1:47831/callback"

const label = "as"

// T is handed to an authorization-server body.
type T struct {
	*scenarios.T
	target Target
	hc     *http.Client
	meta   *Metadata
}

// Body adapts a body to the verdict core.
func Body(body func(t *T)) func(*scenarios.T) {
	return func(core *scenarios.T) {
		target, ok := core.Env.Target.(Target)
		if !ok {
			core.Abort("an authorization-server scenario needs an authorization server, not %T (a defect in mcpconform)", core.Env.Target)
		}
		hc := transport.NewHTTPClient(nil)
		hc.Jar, _ = cookiejar.New(nil) // a login's session, within the scenario
		body(&T{T: core, target: target, hc: hc})
	}
}

// Answer is one HTTP exchange's answer.
type Answer struct {
	URL      *url.URL // the request's
	Status   int
	Header   http.Header
	Body     []byte
	JSON     map[string]any // the body as a JSON object, nil when it is none
	Location *url.URL       // a redirect's Location, resolved
}

// MediaType is the answer's Content-Type without parameters.
func (a *Answer) MediaType() string {
	mt, _, _ := mime.ParseMediaType(a.Header.Get("Content-Type"))
	return mt
}

// Str reads a string member of the JSON body.
func (a *Answer) Str(key string) string {
	s, _ := a.JSON[key].(string)
	return s
}

func (a *Answer) String() string {
	s := fmt.Sprintf("HTTP %d (%s)", a.Status, a.Header.Get("Content-Type"))
	if a.Location != nil {
		s += " Location: " + a.Location.String()
	}
	if len(a.Body) > 0 {
		s += fmt.Sprintf(" %.300s", a.Body)
	}
	return secret.Redact(s)
}

// Do sends one request and reads its answer (a redirect is not followed).
func (t *T) Do(method, u string, header http.Header, body io.Reader) (*Answer, error) {
	ctx, cancel := t.Wait()
	defer cancel()
	return t.do(ctx, method, u, header, body)
}

func (t *T) do(ctx context.Context, method, u string, header http.Header, body io.Reader) (*Answer, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	tr := t.Transcript()
	tr.Eventf(label, "%s %s", method, secret.Redact(u))
	resp, err := t.hc.Do(req)
	if err != nil {
		tr.Eventf(label, "%s %s: %v", method, u, err)
		return nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	a := &Answer{URL: resp.Request.URL, Status: resp.StatusCode, Header: resp.Header, Body: b}
	var obj map[string]any
	if json.Unmarshal(b, &obj) == nil {
		a.JSON = obj
	}
	if loc := resp.Header.Get("Location"); loc != "" {
		if l, err := resp.Request.URL.Parse(loc); err == nil {
			a.Location = l
		}
	}
	// Credentials the server hands out are secrets from here on.
	for _, k := range []string{"access_token", "refresh_token", "id_token", "client_secret", "registration_access_token"} {
		if v := a.Str(k); v != "" {
			secret.Add(v)
		}
	}
	if a.Location != nil {
		if c := a.Location.Query().Get("code"); c != "" {
			secret.Add(c)
		}
	}
	tr.Eventf(label, "%s", a)
	return a, nil
}

// Metadata is the authorization server's metadata document and where it
// was found.
type Metadata struct {
	URL    string // where it was fetched
	Issuer string // the issuer it was fetched for
	Answer *Answer
	OpenID bool // found at an OpenID Connect Discovery location
}

// Doc is the document as JSON.
func (m *Metadata) Doc() map[string]any { return m.Answer.JSON }

// Str reads a string member.
func (m *Metadata) Str(key string) string { return m.Answer.Str(key) }

// Strings reads an array of strings.
func (m *Metadata) Strings(key string) []string {
	list, _ := m.Answer.JSON[key].([]any)
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// MetadataURLs are the places the pages tell a client to look, in their
// order: RFC 8414's (path inserted), OpenID Connect's with the path
// inserted, OpenID Connect's appended.
func MetadataURLs(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil
	}
	origin := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	if path == "" {
		return []string{origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"}
	}
	return []string{origin + "/.well-known/oauth-authorization-server" + path, origin + "/.well-known/openid-configuration" + path,
		origin + path + "/.well-known/openid-configuration"}
}

// Metadata fetches the document (once per scenario); a server that serves
// none at any place stops the scenario (not judged).
func (t *T) Metadata() *Metadata {
	if t.meta != nil {
		return t.meta
	}
	var tried []string
	for i, u := range MetadataURLs(t.target.Issuer) {
		a, err := t.Do(http.MethodGet, u, http.Header{"Accept": {"application/json"}}, nil)
		if err != nil {
			t.Abort("no answer from the authorization server at %s: %v", u, err)
		}
		if a.Status == http.StatusOK {
			t.meta = &Metadata{URL: u, Issuer: t.target.Issuer, Answer: a, OpenID: i > 0}
			return t.meta
		}
		tried = append(tried, fmt.Sprintf("%s: HTTP %d", u, a.Status))
	}
	t.Abort("the authorization server serves no metadata at %s", strings.Join(tried, ", "))
	return nil
}

// Endpoint is a metadata endpoint on the issuer's origin; the scenario
// stops (not judged) when it is absent or elsewhere.
func (t *T) Endpoint(name string) string {
	raw := t.Metadata().Str(name)
	if raw == "" {
		t.SkipRest(fmt.Sprintf("the metadata names no %s", name))
	}
	u, err := url.Parse(raw)
	iss, _ := url.Parse(t.target.Issuer)
	if err != nil || iss == nil || !strings.EqualFold(u.Scheme, iss.Scheme) || !strings.EqualFold(u.Host, iss.Host) {
		t.SkipRest(fmt.Sprintf("%s %s is not on the issuer's origin: mcpconform sends nothing elsewhere", name, raw))
	}
	return raw
}

// Client is a client of the server: registered beforehand or dynamically.
type Client struct {
	ID, Secret, RedirectURI string
}

// Client returns the pre-registered client, or registers a public one
// (RFC 7591); without either the scenario is skipped.
func (t *T) Client() Client {
	if t.target.ClientID != "" {
		c := Client{ID: t.target.ClientID, Secret: t.target.ClientSecret, RedirectURI: t.target.RedirectURI}
		if c.RedirectURI == "" {
			c.RedirectURI = DefaultRedirectURI
		}
		return c
	}
	if t.Metadata().Str("registration_endpoint") == "" {
		t.SkipRest("no client to run the grant with: the metadata offers no registration_endpoint and no --client-id was given")
	}
	a := t.Register(map[string]any{"client_name": "mcpconform", "redirect_uris": []string{DefaultRedirectURI},
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
		"token_endpoint_auth_method": "none"})
	id := a.Str("client_id")
	if a.Status/100 != 2 || id == "" {
		t.SkipRest("dynamic registration gave no client_id (" + a.String() + "): no client to run the grant with")
	}
	return Client{ID: id, Secret: a.Str("client_secret"), RedirectURI: DefaultRedirectURI}
}

// Register POSTs client metadata to the registration endpoint.
func (t *T) Register(meta map[string]any) *Answer {
	b, _ := json.Marshal(meta)
	a, err := t.Do(http.MethodPost, t.Endpoint("registration_endpoint"),
		http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"}}, strings.NewReader(string(b)))
	if err != nil {
		t.Abort("registration: %v", err)
	}
	return a
}

// Authorize sends an authorization request (GET, not followed).
func (t *T) Authorize(params url.Values) *Answer {
	u := t.Endpoint("authorization_endpoint")
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	a, err := t.Do(http.MethodGet, u+sep+params.Encode(), nil, nil)
	if err != nil {
		t.Abort("authorization request: %v", err)
	}
	return t.approve(a)
}

// maxApprovalSteps bounds the forms and redirects of one approval.
const maxApprovalSteps = 8

// approve gets past a login or consent page with the target's Approval
// fields: each HTML form on the issuer's origin is submitted and each
// redirect on it followed, until an answer leaves the origin (the redirect
// to the client) or is neither.
func (t *T) approve(a *Answer) *Answer {
	if len(t.target.Approval) == 0 {
		return a
	}
	iss, err := url.Parse(t.target.Issuer)
	if err != nil {
		return a
	}
	for i := 0; i < maxApprovalSteps; i++ {
		switch {
		case a.Status/100 == 3 && a.Location != nil:
			if !sameOrigin(a.Location, iss) {
				return a
			}
			next, err := t.Do(http.MethodGet, a.Location.String(), nil, nil)
			if err != nil {
				t.Abort("approval: %v", err)
			}
			a = next
		case a.Status == http.StatusOK && a.MediaType() == "text/html":
			f, ok := firstForm(a.Body, a.URL)
			if !ok || !sameOrigin(f.action, iss) {
				return a
			}
			for k, v := range t.target.Approval {
				f.values.Set(k, v)
			}
			t.Step("fill in the form of %s and submit it to %s", a.URL.Path, f.action.Path)
			var next *Answer
			if f.method == http.MethodGet {
				u := *f.action
				u.RawQuery = f.values.Encode()
				next, err = t.Do(http.MethodGet, u.String(), nil, nil)
			} else {
				next, err = t.Do(http.MethodPost, f.action.String(), http.Header{"Content-Type": {"application/x-www-form-urlencoded"}},
					strings.NewReader(f.values.Encode()))
			}
			if err != nil {
				t.Abort("approval: %v", err)
			}
			a = next
		default:
			return a
		}
	}
	return a
}

func sameOrigin(u, base *url.URL) bool {
	return strings.EqualFold(u.Scheme, base.Scheme) && strings.EqualFold(u.Host, base.Host)
}

// Token sends a token request with the client's authentication: its
// secret by HTTP Basic (RFC 6749 §2.3.1), or its client_id alone.
func (t *T) Token(c Client, form url.Values) *Answer {
	h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Accept": {"application/json"}}
	form = cloneValues(form)
	if c.Secret != "" {
		h.Set("Authorization", "Basic "+basic(c.ID, c.Secret))
	} else {
		form.Set("client_id", c.ID)
	}
	a, err := t.Do(http.MethodPost, t.Endpoint("token_endpoint"), h, strings.NewReader(form.Encode()))
	if err != nil {
		t.Abort("token request: %v", err)
	}
	return a
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// Approved reads the code an authorization response carries, when it is
// a redirect to redirectURI without an error; why says what it was instead.
func Approved(a *Answer, redirectURI string) (code string, why string) {
	if a.Location == nil || a.Status/100 != 3 {
		return "", "the authorization endpoint did not redirect at once (" + a.String() + "): it asks for a user's approval, which " +
			"mcpconform cannot give; run the server in a test mode that approves every request"
	}
	q := a.Location.Query()
	if e := q.Get("error"); e != "" {
		return "", fmt.Sprintf("the authorization request was refused: error=%s %s", e, q.Get("error_description"))
	}
	if !strings.HasPrefix(a.Location.String(), strings.SplitN(redirectURI, "?", 2)[0]) && a.Location.Host != mustHost(redirectURI) {
		return "", "the authorization response went elsewhere: " + a.Location.String()
	}
	return q.Get("code"), ""
}

func mustHost(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return p.Host
}

// basic is the HTTP Basic credentials of a client: id and secret each
// form-urlencoded first (RFC 6749 §2.3.1).
func basic(id, secret string) string {
	return base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id) + ":" + url.QueryEscape(secret)))
}

// form is an HTML form: where it goes, how, and its fields' values.
type form struct {
	action *url.URL
	method string
	values url.Values
}

// firstForm reads the first form of a page (golang.org/x/net/html): its
// action resolved against the page's URL, its method, and the values its
// inputs carry (hidden ones included; unchecked boxes left out).
func firstForm(page []byte, base *url.URL) (form, bool) {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return form{}, false
	}
	var found *html.Node
	var find func(n *html.Node)
	find = func(n *html.Node) {
		if found != nil {
			return
		}
		if n.Type == html.ElementNode && n.Data == "form" {
			found = n
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			find(c)
		}
	}
	find(doc)
	if found == nil {
		return form{}, false
	}
	attr := func(n *html.Node, key string) (string, bool) {
		for _, a := range n.Attr {
			if strings.EqualFold(a.Key, key) {
				return a.Val, true
			}
		}
		return "", false
	}
	f := form{method: http.MethodPost, values: url.Values{}}
	if m, _ := attr(found, "method"); !strings.EqualFold(m, "post") {
		f.method = http.MethodGet
	}
	action, _ := attr(found, "action")
	if f.action, err = base.Parse(action); err != nil {
		return form{}, false
	}
	var inputs func(n *html.Node)
	inputs = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "input" {
			name, _ := attr(n, "name")
			typ, _ := attr(n, "type")
			value, _ := attr(n, "value")
			_, checked := attr(n, "checked")
			kind := strings.ToLower(typ)
			if name != "" && kind != "submit" && kind != "button" && kind != "image" && ((kind != "checkbox" && kind != "radio") || checked) {
				f.values.Add(name, value)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			inputs(c)
		}
	}
	inputs(found)
	return f, true
}
