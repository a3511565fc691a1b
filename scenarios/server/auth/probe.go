package auth

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
	"github.com/mcpconform/mcpconform/transport"
)

// Each probe is one request made by hand, so that the exact Authorization
// header (or none) goes out and the status and challenge come back as the
// server wrote them: over Streamable HTTP a POST of the version's first
// request (initialize, or server/discover at 2026-07-28), over WebSocket
// the handshake with the credentials and, once it is accepted, the same
// request on the connection. Its exchange is noted in the transcript under
// the label "auth".

const probeLabel = "auth"

// answer is what a probe got back.
type answer struct {
	status int         // the HTTP status (a WebSocket handshake's too)
	header http.Header // the response's header
	body   string      // the start of the body (a refusal's)
	// served says the server answered the request with a result: it took
	// the credentials.
	served bool
	// rpcError is the JSON-RPC error the request got instead, if any.
	rpcError *jsonrpc.Error
}

func (a *answer) String() string {
	if a.served {
		return fmt.Sprintf("HTTP %d and a result: the request was served", a.status)
	}
	s := fmt.Sprintf("HTTP %d", a.status)
	if c := a.header.Values("WWW-Authenticate"); len(c) > 0 {
		s += fmt.Sprintf(" WWW-Authenticate: %s", strings.Join(c, ", "))
	} else if a.status == http.StatusUnauthorized || a.status == http.StatusForbidden {
		s += " (no WWW-Authenticate)"
	}
	if a.rpcError != nil {
		s += fmt.Sprintf(" JSON-RPC error %d %q", a.rpcError.Code, a.rpcError.Message)
	}
	return s
}

// refused reports a refusal at the HTTP level (any 4xx).
func (a *answer) refused() bool { return a.status >= 400 && a.status < 500 }

// prober makes probes against the target of t.
type prober struct {
	t      *serverside.T
	target client.Target
	hc     *http.Client // never follows a redirect: a 3xx is the target's answer
	n      int
}

func newProber(t *serverside.T) *prober {
	target, _ := t.Env.Target.(client.Target)
	return &prober{t: t, target: target, hc: transport.NewHTTPClient(nil)}
}

// credentials say what a probe carries: an Authorization header value ("" none)
// and a token in the access_token query parameter ("" none).
type credentials struct {
	authorization string
	query         string
	what          string // for the transcript: "no token", "an expired token"…
}

// send makes one probe.
func (p *prober) send(c credentials) (*answer, error) {
	p.n++
	id := jsonrpc.StringID(fmt.Sprintf("mcpconform-auth-%d", p.n))
	body, method := p.firstRequest(id)
	target := p.target.URL
	if c.query != "" {
		u, err := url.Parse(target)
		if err != nil {
			return nil, err
		}
		q := u.Query()
		q.Set("access_token", c.query)
		u.RawQuery = q.Encode()
		target = u.String()
	}
	header := p.target.Header.Clone()
	if header == nil {
		header = http.Header{}
	}
	header.Del("Authorization")
	if c.authorization != "" {
		header.Set("Authorization", c.authorization)
	}
	tr := p.t.Transcript()
	tr.Eventf(probeLabel, "%s with %s", method, c.what)
	var a *answer
	var err error
	if p.target.Kind == transport.WS {
		a, err = p.sendWS(target, header, body, id)
	} else {
		a, err = p.sendHTTP(target, header, body, id, method)
	}
	if err != nil {
		tr.Eventf(probeLabel, "%s: %v", method, err)
		return nil, err
	}
	tr.Eventf(probeLabel, "%s", a)
	return a, nil
}

// firstRequest is the version's first request: initialize, or
// server/discover with its _meta where every request stands alone.
func (p *prober) firstRequest(id jsonrpc.ID) ([]byte, string) {
	v := p.t.Version()
	caps := map[string]any{}
	var params map[string]any
	if v.Era == protocol.Stateless {
		params = map[string]any{"_meta": map[string]any{protocol.MetaProtocolVersion: v.Name,
			protocol.MetaClientInfo: client.DefaultClientInfo, protocol.MetaClientCapabilities: caps}}
	} else {
		params = map[string]any{"protocolVersion": v.Name, "capabilities": caps, "clientInfo": client.DefaultClientInfo}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": v.Handshake, "params": params})
	return b, v.Handshake
}

func (p *prober) sendHTTP(target string, header http.Header, body []byte, id jsonrpc.ID, method string) (*answer, error) {
	ctx, cancel := p.t.Wait()
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = header
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	if v := p.t.Version(); v.Era == protocol.Stateless {
		req.Header.Set(transport.HeaderProtocolVersion, v.Name)
		req.Header.Set(transport.HeaderMethod, method)
	}
	resp, err := p.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	a := &answer{status: resp.StatusCode, header: resp.Header}
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		a.body = string(b)
		return a, nil
	}
	// The answer, in a JSON body or on an SSE stream.
	m := readAnswer(bufio.NewReader(io.LimitReader(resp.Body, 4<<20)), id)
	a.note(m)
	p.endSession(resp.Header.Get(transport.HeaderSessionID), header)
	return a, nil
}

// endSession ends a session a probe opened, so that none is left behind.
func (p *prober) endSession(sid string, header http.Header) {
	if sid == "" {
		return
	}
	ctx, cancel := p.t.Wait()
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, p.target.URL, nil)
	if err != nil {
		return
	}
	req.Header = header.Clone()
	req.Header.Set(transport.HeaderSessionID, sid)
	if resp, err := p.hc.Do(req); err == nil {
		resp.Body.Close()
	}
}

func (a *answer) note(m *jsonrpc.Message) {
	if m == nil {
		return
	}
	if m.Error != nil {
		a.rpcError = m.Error
		return
	}
	a.served = m.Result != nil
}

// readAnswer finds the answer to id in a JSON body or an SSE stream.
func readAnswer(r *bufio.Reader, id jsonrpc.ID) *jsonrpc.Message {
	head, _ := r.Peek(1)
	if len(head) == 1 && (head[0] == '{' || head[0] == '[') {
		var m jsonrpc.Message
		if json.NewDecoder(r).Decode(&m) == nil {
			return &m
		}
		return nil
	}
	var data []string
	for {
		line, err := r.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		if d, ok := strings.CutPrefix(line, "data:"); ok {
			data = append(data, strings.TrimPrefix(d, " "))
		}
		if line == "" && len(data) > 0 {
			var m jsonrpc.Message
			if json.Unmarshal([]byte(strings.Join(data, "\n")), &m) == nil && m.Method == "" && m.ID.Key() == id.Key() {
				return &m
			}
			data = nil
		}
		if err != nil {
			return nil
		}
	}
}

func (p *prober) sendWS(target string, header http.Header, body []byte, id jsonrpc.ID) (*answer, error) {
	ctx, cancel := p.t.Wait()
	defer cancel()
	conn, err := transport.DialWebSocket(ctx, target, transport.Options{Transcript: p.t.Transcript(), Session: probeLabel, Header: header})
	if err != nil {
		var hs *transport.HTTPStatusError
		if errors.As(err, &hs) {
			return &answer{status: hs.Status, header: hs.Header, body: hs.Body}, nil
		}
		return nil, err
	}
	defer conn.Close()
	a := &answer{status: http.StatusSwitchingProtocols, header: http.Header{}}
	if err := conn.Send(ctx, body); err != nil {
		return a, nil
	}
	for {
		b, err := conn.Recv(ctx)
		if err != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				p.t.Transcript().Eventf(probeLabel, "no answer on the WebSocket before the deadline")
			}
			return a, nil
		}
		var m jsonrpc.Message
		if json.Unmarshal(b, &m) == nil && m.Method == "" && m.ID.Key() == id.Key() {
			a.note(&m)
			return a, nil
		}
	}
}
