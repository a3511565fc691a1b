package transport

import (
	"fmt"
	"net/http"
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

// RedirectNote describes a redirect for messages and transcripts: "redirect
// to "URL" (not followed)", or "" for an answer without a Location. The
// Location is the target's text: it is cut short and quoted, which escapes
// every control character (nothing reaches a terminal raw).
func RedirectNote(h http.Header) string {
	loc := h.Get("Location")
	if loc == "" {
		return ""
	}
	return fmt.Sprintf("redirect to %s (not followed)", quoteLocation(loc))
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
func redirectSuffix(h http.Header) string {
	if n := RedirectNote(h); n != "" {
		return " " + n
	}
	return ""
}
