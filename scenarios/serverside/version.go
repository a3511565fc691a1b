package serverside

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/transport"
)

// NotImplementedAnswer describes an answer to the version's handshake that
// says the target does not implement the version, "" for any other. Such a
// target is not judged at that version; it has not failed. The rule is the
// probe a dual-era client sends (2026-07-28/basic/versioning.mdx, "Backward
// Compatibility with Initialization-Based Versions": "a recognized modern
// JSON-RPC error (such as UnsupportedProtocolVersionError) identifies a
// modern server: the client retries with a supported version rather than
// falling back. Anything else identifies a legacy server."):
//   - UnsupportedProtocolVersionError (-32022), in a response or in the body
//     of an HTTP refusal;
//   - no server/discover at all (-32601);
//   - over HTTP, a 400, 404 or 405 whose body is no modern error, with or
//     without the request's id (streamable-http.mdx, "Backward
//     Compatibility": "If the body is empty or is not a recognized modern
//     JSON-RPC error, fall back to initialize");
//   - over stdio (and WebSocket, which reuses stdio's message rules), any
//     error that is no modern one: stdio.mdx, "Backward Compatibility":
//     "The server returns any other error, or does not respond within a
//     reasonable timeout: the server is legacy." (A server that does not
//     answer is not judged either way: it is unreachable, T.Unreachable.)
//   - a DiscoverResult whose supportedVersions lacks the version.
func NotImplementedAnswer(s *client.Session, v protocol.Version, resp *jsonrpc.Message, err error) string {
	if resp != nil && resp.Error != nil && resp.Error.Code == codes.UnsupportedProtocolVersion {
		return fmt.Sprintf("%s answered %s", v.Handshake, judge.Describe(resp, nil))
	}
	if v.Handshake != protocol.MethodServerDiscover {
		return ""
	}
	var hs *transport.HTTPStatusError
	if errors.As(err, &hs) {
		code, isError := errorCode(hs.Body)
		switch {
		case isError && code == codes.UnsupportedProtocolVersion:
			return "server/discover answered " + judge.MaskAddresses(hs.Error())
		case legacyHTTPStatus(hs.Status) && !(isError && modernError(code, hs.Status)):
			return fmt.Sprintf("server/discover answered %s, not a recognized modern JSON-RPC error: an initialize-era server "+
				"(streamable-http.mdx, \"Backward Compatibility\")", judge.MaskAddresses(hs.Error()))
		}
		return ""
	}
	if err != nil && (resp == nil || resp.Error == nil) || resp == nil {
		return ""
	}
	if resp.Error == nil {
		var dr protocol.DiscoverResult
		if json.Unmarshal(resp.Result, &dr) == nil && dr.SupportedVersions != nil && !slices.Contains(dr.SupportedVersions, v.Name) {
			return fmt.Sprintf("server/discover lists supportedVersions %q, without %s", dr.SupportedVersions, v.Name)
		}
		return ""
	}
	if resp.Error.Code == codes.MethodNotFound {
		return "server/discover answered " + judge.Describe(resp, nil) + ": the target has no server/discover"
	}
	if s == nil {
		return "" // no session to tell the transport by
	}
	if status, onHTTP := s.Status(resp.ID); onHTTP {
		if legacyHTTPStatus(status) && !modernError(resp.Error.Code, status) {
			return fmt.Sprintf("server/discover answered HTTP %d with %s, not a recognized modern JSON-RPC error: an initialize-era server "+
				"(streamable-http.mdx, \"Backward Compatibility\")", status, judge.Describe(resp, nil))
		}
		return ""
	}
	if !modernError(resp.Error.Code, 0) {
		return "server/discover answered " + judge.Describe(resp, nil) + ", not a recognized modern JSON-RPC error: an initialize-era server " +
			"(stdio.mdx, \"Backward Compatibility\": \"The server returns any other error … the server is legacy\")"
	}
	return ""
}

// legacyHTTPStatus: 2026-07-28/basic/transports/streamable-http.mdx,
// "Backward Compatibility": "If it fails with HTTP status code 400 Bad
// Request, 404 Not Found, or 405 Method Not Allowed and the response body
// is not a recognized modern JSON-RPC error (a modern server returns one for
// unsupported version, unknown method, or header-validation failure)", and
// "If the body is empty or is not a recognized modern JSON-RPC error, fall
// back to initialize and continue with the legacy version for subsequent
// requests."
func legacyHTTPStatus(status int) bool {
	return status == http.StatusBadRequest || status == http.StatusNotFound || status == http.StatusMethodNotAllowed
}

// modernError reports the codes by which a modern server refuses a request
// (streamable-http.mdx, "Backward Compatibility": "modern servers also use
// 400 for UnsupportedProtocolVersionError, MissingRequiredClientCapabilityError,
// and header-validation failures"; an unknown method is "404 Not Found and a
// JSON-RPC error with code -32601"). status is 0 off HTTP, where -32601 is
// the stdio page's "commonly -32601" of a legacy server and only
// UnsupportedProtocolVersionError is named as modern; the other two are
// kept modern there too, being defined by 2026-07-28 alone.
func modernError(code, status int) bool {
	switch code {
	case codes.UnsupportedProtocolVersion, codes.MissingRequiredClientCapability, codes.HeaderMismatch:
		return true
	case codes.MethodNotFound:
		return status == http.StatusNotFound
	}
	return false
}

// errorCode reads the code of a JSON-RPC error body. The body is an HTTP
// response's, which no schema types: only error.code is read, so that a
// body whose other members are malformed (an id of no JSON-RPC type, say),
// which jsonrpc.Message would refuse, still tells its code.
func errorCode(body string) (int, bool) {
	var m struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(body), &m) != nil || m.Error == nil {
		return 0, false
	}
	return m.Error.Code, true
}
