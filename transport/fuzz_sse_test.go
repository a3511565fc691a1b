package transport

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// Fuzz targets for the SSE parser (run: go test ./transport -run '^$'
// -fuzz '^FuzzSSEReader$' -fuzztime 60s). The seed corpus is in
// testdata/fuzz/<FuzzName>/ and runs with every plain go test.

// sseFuzzMaxEvent bounds an event's data in the fuzz runs, small enough
// for the fuzzer to reach.
const sseFuzzMaxEvent = 64

// sseParseAll reads every event of an event stream; partial is true when it
// ended inside an event, or when an event grew past the bound.
func sseParseAll(t *testing.T, r io.Reader) (evs []sseEvent, partial bool) {
	t.Helper()
	sr := newSSEReader(r)
	sr.maxEvent = sseFuzzMaxEvent
	for {
		ev, err := sr.Next()
		if err == io.EOF {
			return evs, sr.Partial
		}
		if errors.Is(err, errSSEEventTooLarge) {
			return evs, true
		}
		if err != nil {
			t.Fatalf("Next on an in-memory stream: %v", err)
		}
		if len(ev.Data) > sseFuzzMaxEvent {
			t.Fatalf("a %d-byte event passed the %d-byte bound", len(ev.Data), sseFuzzMaxEvent)
		}
		evs = append(evs, ev)
	}
}

// FuzzSSEReader feeds arbitrary bytes to the parser: it must not panic,
// must end, must give the same events however the input is split into
// reads, and every event must be something the input could say.
func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{
		"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
		"id: 7\r\nevent: message\r\ndata: {\"a\":\r\ndata: 1}\r\nretry: 1500\r\n\r\n",
		"data: one\r\rdata: two\r\n\r\ndata: three\n",
		"\uFEFF: keep-alive\n\nid\n\nid: a\x00b\ndata: x\n\n",
		"retry: 99999999999999999999\ndata: x\n\n",
		"data: {\"jsonrpc\":\"2.0\",\"id\":123456789012345678901234567890,\"result\":{}}\n\n",
		"data:\x80\xff\xfe\n\n",
		"data: split",
		"\r",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		whole, partial := sseParseAll(t, bytes.NewReader(in))
		bytewise, partial1 := sseParseAll(t, iotest.OneByteReader(bytes.NewReader(in)))
		half, partial2 := sseParseAll(t, iotest.HalfReader(bytes.NewReader(in)))
		if !sameEvents(whole, bytewise) || !sameEvents(whole, half) || partial != partial1 || partial != partial2 {
			t.Fatalf("events depend on how the input is split:\nwhole %+v\nbytes %+v\nhalf  %+v", whole, bytewise, half)
		}
		// An event needs at least a blank line after a field.
		if len(whole) > len(in)/2+1 {
			t.Fatalf("%d events from %d bytes", len(whole), len(in))
		}
		total := 0
		for _, ev := range whole {
			total += len(ev.Data) + len(ev.ID) + len(ev.Event)
			if strings.ContainsAny(ev.ID, "\r\n\x00") || strings.ContainsAny(ev.Event, "\r\n") || strings.Contains(ev.Data, "\r") {
				t.Fatalf("a line break or NUL survived in %+v", ev)
			}
			if ev.Retry < 0 {
				t.Fatalf("negative retry %d", ev.Retry)
			}
			if !ev.HasID && ev.ID != "" {
				t.Fatalf("id %q without HasID", ev.ID)
			}
			if ev.Data == "" && !ev.HasID && !strings.Contains(string(in), "data") {
				t.Fatalf("an empty event without id or data field: %+v", ev)
			}
			if utf8.Valid(in) && !(utf8.ValidString(ev.Data) && utf8.ValidString(ev.ID) && utf8.ValidString(ev.Event)) {
				t.Fatalf("valid UTF-8 in, invalid out: %+v", ev)
			}
		}
		// Data lines are joined with one LF per extra line, and ids repeat
		// across events, so only a loose bound holds: nothing is invented
		// beyond what many repetitions of the input could say.
		if total > (len(in)+1)*(len(whole)+1) {
			t.Fatalf("%d bytes of events from %d bytes", total, len(in))
		}
	})
}

func sameEvents(a, b []sseEvent) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzSSERoundTrip: what appendSSEEvent writes, the reader reads back, with
// line breaks in data normalised to LF.
func FuzzSSERoundTrip(f *testing.F) {
	f.Add("", "", []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	f.Add("42", "message", []byte("a\r\nb\rc\nd"))
	f.Add("1", "", []byte(""))
	f.Add(" spaced", " x", []byte(": not a comment\n\n\ndata: nested"))
	f.Add("", "", []byte("\r\n"))
	f.Fuzz(func(t *testing.T, id, event string, data []byte) {
		if strings.ContainsAny(id, "\r\n\x00") || strings.ContainsAny(event, "\r\n") {
			t.Skip("ids and event types are single lines")
		}
		if len(data)+strings.Count(string(data), "\n")+1 > sseFuzzMaxEvent {
			t.Skip("over the fuzz runs' event bound")
		}
		stream := appendSSEEvent(nil, id, event, data)
		evs, partial := sseParseAll(t, bytes.NewReader(stream))
		if len(evs) != 1 || partial {
			t.Fatalf("%q parsed as %d events (partial %v): %+v", stream, len(evs), partial, evs)
		}
		want := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(data))
		ev := evs[0]
		if ev.Data != want || ev.ID != id || ev.HasID != (id != "") || ev.Event != event {
			t.Fatalf("round trip of id %q event %q data %q gave %+v", id, event, data, ev)
		}
	})
}
