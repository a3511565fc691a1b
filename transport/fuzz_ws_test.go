package transport

import (
	"bufio"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// Fuzz target for the WebSocket reader (run: go test ./transport -run '^$'
// -fuzz '^FuzzWSReader$' -fuzztime 60s): whatever bytes a server sends
// after a valid upgrade, the client connection delivers bounded frames, ends
// with an error and never hangs or panics. The seed corpus is in
// testdata/fuzz/FuzzWSReader/.

// wsFuzzMax bounds one message in the fuzz runs.
const wsFuzzMax = 4 << 10

// wsFrame encodes one unmasked server frame.
func wsFrame(opcode byte, fin bool, payload []byte) []byte {
	b0 := opcode
	if fin {
		b0 |= 0x80
	}
	n := len(payload)
	var h []byte
	switch {
	case n < 126:
		h = []byte{b0, byte(n)}
	case n < 1<<16:
		h = []byte{b0, 126, byte(n >> 8), byte(n)}
	default:
		h = []byte{b0, 127, 0, 0, 0, 0, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
	}
	return append(h, payload...)
}

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// wsFuzzServer answers the upgrade on its end of a pipe, writes data, and
// closes; it drains whatever the client writes (pongs, close) meanwhile.
func wsFuzzServer(conn net.Conn, data []byte) {
	defer conn.Close()
	br := bufio.NewReader(conn)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	h := sha1.New()
	h.Write([]byte(req.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	accept := base64.StdEncoding.EncodeToString(h.Sum(nil))
	if _, err := fmt.Fprintf(conn, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Accept: %s\r\nSec-WebSocket-Protocol: mcp\r\n\r\n", accept); err != nil {
		return
	}
	go func() { _, _ = io.Copy(io.Discard, br) }()
	_, _ = conn.Write(data)
}

func FuzzWSReader(f *testing.F) {
	json := []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	for _, seed := range [][]byte{
		wsFrame(websocket.TextMessage, true, json),
		wsFrame(websocket.BinaryMessage, true, json),
		cat(wsFrame(websocket.TextMessage, false, json[:10]), wsFrame(websocket.PingMessage, true, []byte("p")), wsFrame(0, true, json[10:])),
		cat(wsFrame(websocket.TextMessage, true, json), wsFrame(websocket.CloseMessage, true, []byte{0x03, 0xe8})),
		wsFrame(websocket.TextMessage, true, []byte(strings.Repeat("x", 300))),
		{0x81, 0x7f, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},          // a length of 2^63-1
		{0x81, 0x85, 1, 2, 3, 4, 'h' ^ 1, 'e' ^ 2, 'l' ^ 3, 'l' ^ 4, 'o' ^ 1}, // masked: servers must not mask
		{0xf1, 0x00}, // reserved bits
		wsFrame(websocket.TextMessage, true, []byte{0xff, 0xfe}), // invalid UTF-8 in a text frame
		wsFrame(websocket.TextMessage, true, []byte(`{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}}`)),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cliEnd, srvEnd := net.Pipe()
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); wsFuzzServer(srvEnd, data) }()
		defer wg.Wait()
		defer cliEnd.Close()
		_ = cliEnd.SetDeadline(time.Now().Add(10 * time.Second)) // the handshake's hang guard
		ws, resp, err := websocket.NewClient(cliEnd, &url.URL{Scheme: "ws", Host: "fuzz", Path: "/mcp"},
			http.Header{"Sec-WebSocket-Protocol": {"mcp"}}, 1024, 1024)
		if err != nil {
			t.Fatalf("handshake: %v", err)
		}
		resp.Body.Close()
		_ = cliEnd.SetDeadline(time.Time{})
		var mu sync.Mutex
		notes := 0
		c := newWSConn(ws, Options{OnWireNote: func(WireNote) { mu.Lock(); notes++; mu.Unlock() }}, "client", wsFuzzMax).start()
		defer c.Close()

		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		frames, payload := 0, 0
		for {
			b, err := c.Recv(ctx)
			if err != nil {
				if errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("Recv hangs after %d frames of %d bytes of input", frames, len(data))
				}
				break
			}
			frames++
			payload += len(b)
			if len(b) > wsFuzzMax {
				t.Fatalf("a %d-byte message passed the %d-byte limit", len(b), wsFuzzMax)
			}
		}
		// Every message needs a header of at least two bytes, and carries
		// nothing the input did not.
		if frames > len(data)/2 || payload > len(data) {
			t.Fatalf("%d messages, %d payload bytes from %d bytes of input", frames, payload, len(data))
		}
		mu.Lock()
		defer mu.Unlock()
		if notes > frames {
			t.Fatalf("%d binary-frame notes for %d messages", notes, frames)
		}
	})
}
