package transport

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpconform/mcpconform/protocol/codes"
)

// Origin policy of the HTTP server (HTTPServerOptions.AllowedOrigins).

// checkOrigin answers 403 for a request whose Origin is present and not
// allowed (2025-11-25 and 2026-07-28 "Security Warning": validate Origin; the
// body MAY be a JSON-RPC error without id) and reports whether the request
// may go on.
func (s *HTTPServer) checkOrigin(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if s.originAllowed(origin) {
		return true
	}
	s.eventf("HTTP 403 %s: Origin %q not allowed", r.Method, origin)
	httpWriteJSONError(w, http.StatusForbidden, nil, codes.InvalidRequest, "Origin not allowed")
	return false
}

// originAllowed: no Origin at all, one listed in AllowedOrigins ("*" lists
// every one), or, when that list is empty, http(s) on a loopback host.
func (s *HTTPServer) originAllowed(origin string) bool {
	if origin == "" {
		return true
	}
	if len(s.opts.AllowedOrigins) > 0 {
		for _, a := range s.opts.AllowedOrigins {
			if a == "*" || strings.EqualFold(a, origin) {
				return true
			}
		}
		return false
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	switch u.Hostname() {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}
