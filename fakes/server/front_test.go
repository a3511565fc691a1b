package server_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// The faults that read a request's head as it came: Go's server has
// canonicalized the header names and trimmed the values before any
// handler, so they see the raw head of a connection's first request.
var _ = Describe("the reference server's raw-head variants", func() {
	meta := map[string]any{"_meta": map[string]any{
		protocol.MetaProtocolVersion:    "2026-07-28",
		protocol.MetaClientInfo:         map[string]any{"name": "t", "version": "1"},
		protocol.MetaClientCapabilities: map[string]any{},
	}}
	var toolsList, toolsCall string
	BeforeEach(func() {
		toolsList = request(`"1"`, "tools/list", meta)
		toolsCall = request(`"2"`, "tools/call", map[string]any{"name": "test_simple_text", "arguments": map[string]any{}, "_meta": meta["_meta"]})
	})

	// rawPost writes a POST with the header lines as given and returns the
	// status and the body.
	rawPost := func(endpoint string, lines []string, body string) (int, string) {
		GinkgoHelper()
		u, err := url.Parse(endpoint)
		Expect(err).NotTo(HaveOccurred())
		var d net.Dialer
		conn, err := d.DialContext(stepCtx(), "tcp", u.Host)
		Expect(err).NotTo(HaveOccurred())
		defer conn.Close()
		head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
			"MCP-Protocol-Version: 2026-07-28\r\n%s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", u.RequestURI(), u.Host,
			strings.Join(lines, "\r\n"), len(body))
		_, err = io.WriteString(conn, head+body)
		Expect(err).NotTo(HaveOccurred())
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		Expect(err).NotTo(HaveOccurred())
		return resp.StatusCode, string(b)
	}

	It("serves any spelling of Mcp-Method, and trims Mcp-Name, without a variant", func() {
		url := overFront(nil)
		for _, name := range []string{"mcp-method", "MCP-METHOD", "Mcp-Method"} {
			status, body := rawPost(url, []string{name + ": tools/list"}, toolsList)
			Expect(status).To(Equal(http.StatusOK), "%s: %s", name, body)
		}
		status, body := rawPost(url, []string{"Mcp-Method: tools/call", "Mcp-Name:   test_simple_text  "}, toolsCall)
		Expect(status).To(Equal(http.StatusOK), body)
		Expect(body).NotTo(ContainSubstring("-32020"))
	})

	It("refuses Mcp-Method spelled otherwise with header-names-case-sensitive, and serves it spelled exactly", func() {
		url := overFront(server.HeaderNamesCaseSensitive)
		status, body := rawPost(url, []string{"mcp-method: tools/list"}, toolsList)
		Expect(status).To(Equal(http.StatusBadRequest))
		Expect(body).To(ContainSubstring("-32020"))
		status, body = rawPost(url, []string{"Mcp-Method: tools/list"}, toolsList)
		Expect(status).To(Equal(http.StatusOK), body)
		// Go's client canonicalizes: its requests are served.
		status, _, body = post(url, http.Header{"MCP-Protocol-Version": {"2026-07-28"}, "mcp-method": {"tools/list"}}, toolsList)
		Expect(status).To(Equal(http.StatusOK), body)
	})

	It("refuses an Mcp-Name with spaces around it with header-value-untrimmed, and serves the plain one", func() {
		url := overFront(server.HeaderValueUntrimmed)
		status, body := rawPost(url, []string{"Mcp-Method: tools/call", "Mcp-Name:   test_simple_text  "}, toolsCall)
		Expect(status).To(Equal(http.StatusBadRequest))
		Expect(body).To(ContainSubstring("-32020"))
		status, body = rawPost(url, []string{"Mcp-Method: tools/call", "Mcp-Name: test_simple_text"}, toolsCall)
		Expect(status).To(Equal(http.StatusOK), body)
	})
})

// The Origin variants of the transport rules, on the wire.
var _ = Describe("the reference server's Origin variants", func() {
	initialize := func(endpoint, host, origin string) int {
		GinkgoHelper()
		body := request(`"1"`, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "t", "version": "1"}})
		req, err := http.NewRequestWithContext(stepCtx(), http.MethodPost, endpoint, strings.NewReader(body))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Origin", origin)
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	own := func(endpoint string) string {
		u, err := url.Parse(endpoint)
		Expect(err).NotTo(HaveOccurred())
		return "http://" + u.Host
	}

	It("refuses a foreign Host and Origin, and serves its own Origin, without a variant", func() {
		endpoint := overFront(nil)
		Expect(initialize(endpoint, "rebinding.example", "http://rebinding.example")).To(Equal(http.StatusForbidden))
		Expect(initialize(endpoint, "", own(endpoint))).To(Equal(http.StatusOK))
	})

	It("serves a foreign Origin that agrees with the Host with foreign-host-accepted, and still refuses one that does not", func() {
		endpoint := overFront(server.ForeignHostAccepted)
		Expect(initialize(endpoint, "rebinding.example", "http://rebinding.example")).To(Equal(http.StatusOK))
		Expect(initialize(endpoint, "", "http://rebinding.example")).To(Equal(http.StatusForbidden))
	})

	It("refuses its own Origin with own-origin-refused", func() {
		endpoint := overFront(server.OwnOriginRefused)
		Expect(initialize(endpoint, "", own(endpoint))).To(Equal(http.StatusForbidden))
	})
})

// overFront serves the reference (or a variant) over Streamable HTTP
// behind the variant's front, as a run does.
func overFront(f *fault.Fault) string {
	GinkgoHelper()
	e, err := server.NewReference(server.ReferenceOptions{Variant: f})
	Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithCancel(context.Background())
	l, err := server.Listen(stepCtx(), transport.HTTP, "127.0.0.1:0", f, transport.Options{})
	Expect(err).NotTo(HaveOccurred())
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = e.Serve(ctx, l)
	}()
	DeferCleanup(func() {
		cancel()
		_ = l.Close()
		Eventually(served).WithTimeout(wait).Should(BeClosed())
	})
	return l.Addr()
}
