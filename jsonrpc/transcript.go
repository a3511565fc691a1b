package jsonrpc

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Direction says who sent a frame, seen from mcpconform.
type Direction string

const (
	Sent     Direction = "send" // mcpconform → target
	Received Direction = "recv" // target → mcpconform
	Stderr   Direction = "stderr"
	Event    Direction = "event" // transport events: HTTP status, process exit, connection closed
)

// Frame is one recorded unit: a JSON-RPC frame, a stderr line, or a transport event.
type Frame struct {
	At        time.Time
	Direction Direction
	Session   string // which session/connection, for multi-session scenarios
	Raw       []byte
}

// Transcript records every frame in order. It is safe for concurrent use and
// bounded twice, so a target that floods output cannot exhaust memory: each
// entry keeps at most DefaultEntryLimit bytes (a longer frame keeps its head
// and notes its full length), and the whole at most DefaultTranscriptLimit.
type Transcript struct {
	mu      sync.Mutex
	start   time.Time
	frames  []Frame
	bytes   int
	dropped int
	limit   int
}

// DefaultTranscriptLimit bounds the bytes a transcript keeps.
const DefaultTranscriptLimit = 4 << 20

// DefaultEntryLimit bounds one recorded frame. A report reader needs the
// start of a multi-megabyte frame to see what it was, not all of it, and
// without this cap a single 3.9 MB line fills a transcript that every report
// file then repeats.
const DefaultEntryLimit = 64 << 10

// NewTranscript starts an empty transcript.
func NewTranscript() *Transcript {
	return &Transcript{start: time.Now(), limit: DefaultTranscriptLimit}
}

// Record appends a frame; the bytes are copied, a frame longer than
// DefaultEntryLimit cut (see CutEntry).
func (t *Transcript) Record(dir Direction, session string, raw []byte) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	// A full transcript drops before copying: a flood costs no garbage.
	if t.bytes+min(len(raw), DefaultEntryLimit) > t.limit {
		t.dropped++
		return
	}
	entry := CutEntry(raw, DefaultEntryLimit)
	if len(entry) == len(raw) {
		entry = append([]byte(nil), raw...) // CutEntry did not copy
	}
	t.bytes += len(entry)
	t.frames = append(t.frames, Frame{At: time.Now(), Direction: dir, Session: session, Raw: entry})
}

// CutEntry returns raw itself when it has at most limit bytes; otherwise a
// new slice with its first bytes (ending on a character boundary) and a note
// of the full length, "…[cut: 3,900,112 bytes]", at most limit bytes in all.
func CutEntry(raw []byte, limit int) []byte {
	if len(raw) <= limit {
		return raw
	}
	note := "…[cut: " + Thousands(len(raw)) + " bytes]"
	n := max(0, limit-len(note))
	for n > 0 && n < len(raw) && !utf8.RuneStart(raw[n]) {
		n--
	}
	out := make([]byte, 0, n+len(note))
	return append(append(out, raw[:n]...), note...)
}

// Thousands formats n with commas between groups of three digits.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Eventf records a transport event.
func (t *Transcript) Eventf(session, format string, args ...any) {
	t.Record(Event, session, []byte(fmt.Sprintf(format, args...)))
}

// Frames returns a copy of the recorded frames.
func (t *Transcript) Frames() []Frame {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Frame(nil), t.frames...)
}

// Len is the number of frames recorded so far; a Mark for Since.
func (t *Transcript) Len() int {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.frames)
}

// String formats the transcript, one frame per line, times relative to the start.
func (t *Transcript) String() string { return t.Since(0) }

// Since formats the frames from index mark on.
func (t *Transcript) Since(mark int) string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var b strings.Builder
	if mark < 0 || mark > len(t.frames) {
		mark = 0
	}
	for _, f := range t.frames[mark:] {
		fmt.Fprintf(&b, "%9.3fs %-6s", f.At.Sub(t.start).Seconds(), f.Direction)
		if f.Session != "" {
			fmt.Fprintf(&b, " [%s]", f.Session)
		}
		b.WriteByte(' ')
		b.WriteString(strings.TrimRight(string(f.Raw), "\r\n"))
		b.WriteByte('\n')
	}
	if t.dropped > 0 {
		fmt.Fprintf(&b, "… %d further frames dropped (transcript limit %d bytes)\n", t.dropped, t.limit)
	}
	return b.String()
}
