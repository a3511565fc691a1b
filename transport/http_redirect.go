package transport

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// NewHTTPClient is the one way mcpconform makes an HTTP client (a test greps
// the tree for any other). The client never follows a redirect: a target's
// 3xx is its own answer, judged as such. Following one would send the
// request again, with every --header, the session id and the bearer token,
// to whatever host the Location names, and judge that host's answers as the
// target's. rt nil is http.DefaultTransport (its shared pool of
// connections), as a zero http.Client would use.
func NewHTTPClient(rt http.RoundTripper) *http.Client {
	if rt == nil {
		rt = http.DefaultTransport
	}
	return &http.Client{Transport: rt, CheckRedirect: refuseRedirect}
}

// NewHTTPTransport is a private pool of connections with the defaults of
// http.DefaultTransport, for a client that closes its idle connections
// itself (a connection's Close).
func NewHTTPTransport() *http.Transport {
	return http.DefaultTransport.(*http.Transport).Clone()
}

// refuseRedirect makes the client hand the 3xx answer back to its caller.
func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// maxLocationRunes bounds the Location quoted in messages and transcripts.
const maxLocationRunes = 200

// RedirectNote describes the redirect resp is, for messages and
// transcripts: "redirect to "URL" (not followed)", or "" for an answer
// without a Location. The Location is the target's text: what the request
// sent in its headers (a bearer token, a --header's value, echoed back) is
// blotted out of it, and it is cut short and quoted, which escapes every
// control character (nothing reaches a terminal raw).
func RedirectNote(resp *http.Response) string {
	loc := resp.Header.Get("Location")
	if loc == "" {
		return ""
	}
	if resp.Request != nil {
		loc = redactSent(loc, resp.Request.Header)
	}
	return fmt.Sprintf("redirect to %s (not followed)", quoteLocation(loc))
}

// minRedacted: shorter header values (a version, a media type's parts) are
// no secrets, and blotting them would only garble the Location.
const minRedacted = 8

// redactSent replaces in loc every value of sent (and the credentials of an
// "Authorization: Scheme credentials"), as is or URL-escaped.
func redactSent(loc string, sent http.Header) string {
	var secrets []string
	for _, vs := range sent {
		for _, v := range vs {
			secrets = append(secrets, v)
			if _, cred, ok := strings.Cut(v, " "); ok {
				secrets = append(secrets, strings.TrimSpace(cred))
			}
		}
	}
	// Longest first: a whole "Bearer x" goes before its "x".
	slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	for _, v := range secrets {
		if len(v) < minRedacted {
			continue
		}
		for _, form := range []string{v, url.QueryEscape(v), url.PathEscape(v)} {
			loc = strings.ReplaceAll(loc, form, "[redacted]")
		}
	}
	return loc
}

func quoteLocation(loc string) string {
	loc = strings.ToValidUTF8(loc, "\uFFFD")
	cut := ""
	if utf8.RuneCountInString(loc) > maxLocationRunes {
		loc, cut = string([]rune(loc)[:maxLocationRunes]), "…"
	}
	return fmt.Sprintf("%+q", loc) + cut
}

// redirectSuffix is RedirectNote with a leading space, for event lines.
func redirectSuffix(resp *http.Response) string {
	if n := RedirectNote(resp); n != "" {
		return " " + n
	}
	return ""
}
