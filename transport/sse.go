package transport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
)

// This file holds a small Server-Sent Events reader and writer, following the
// event-stream interpretation of the WHATWG HTML standard
// (https://html.spec.whatwg.org/multipage/server-sent-events.html):
// lines end in CRLF, LF or CR; a line starting with ':' is a comment; "field:
// value" drops one leading space from the value; a blank line dispatches the
// event; several data lines are joined with "\n"; an id containing NUL is
// ignored; an event left without its closing blank line at end of stream is
// discarded.

// maxSSELine bounds one line of an event stream (a whole JSON-RPC frame fits
// on one line, so this is also the frame size limit on SSE).
const maxSSELine = 32 << 20

// errSSEEventTooLarge ends a stream whose event grows past the reader's
// bound: many data lines add up even when each line is short.
var errSSEEventTooLarge = errors.New("SSE event larger than the frame size limit")

// sseEvent is one dispatched event.
type sseEvent struct {
	// ID is the event's id field, if the event carried one.
	ID    string
	HasID bool
	// Event is the event type; empty means the default "message".
	Event string
	// Data is the data lines joined with "\n".
	Data string
	// Retry is the reconnection time in milliseconds the stream asked for
	// most recently (0 when never set).
	Retry int
}

// sseProgress is what a reader parsed since the event it dispatched last,
// for a caller that gives up while the stream is still read: the bytes of
// comment and blank lines (keep-alives), the bytes of field lines, and what
// the incomplete line being read starts as (sseNoLine, sseCommentLine,
// sseFieldLine).
type sseProgress struct {
	comments, fields atomic.Int64
	partial          atomic.Int32
}

const (
	sseNoLine int32 = iota
	sseCommentLine
	sseFieldLine
)

// sseReader parses an event stream.
type sseReader struct {
	sc       *bufio.Scanner
	progress *sseProgress
	first    bool
	retry    int
	// maxEvent bounds the data of one event (default maxSSELine).
	maxEvent int
	// Partial reports, after Next returned io.EOF, whether the stream ended
	// with an undispatched event (fields seen after the last blank line).
	Partial bool
}

func newSSEReader(r io.Reader) *sseReader { return newSSEReaderProgress(r, nil) }

// newSSEReaderProgress reads r and keeps progress (nil: the reader's own)
// up to date as lines are parsed.
func newSSEReaderProgress(r io.Reader, progress *sseProgress) *sseReader {
	if progress == nil {
		progress = &sseProgress{}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxSSELine)
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		advance, token, err := scanSSELines(data, atEOF)
		switch {
		case advance > 0 || len(data) == 0:
			progress.partial.Store(sseNoLine)
		case data[0] == ':':
			progress.partial.Store(sseCommentLine)
		default:
			progress.partial.Store(sseFieldLine)
		}
		return advance, token, err
	})
	progress.comments.Store(0)
	progress.fields.Store(0)
	return &sseReader{sc: sc, progress: progress, first: true, maxEvent: maxSSELine}
}

// scanSSELines splits on CRLF, LF or lone CR.
func scanSSELines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if atEOF && len(data) == 0 {
		return 0, nil, nil
	}
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		if data[i] == '\n' {
			return i + 1, data[:i], nil
		}
		// CR: swallow a following LF, which may not have arrived yet.
		if i+1 < len(data) {
			if data[i+1] == '\n' {
				return i + 2, data[:i], nil
			}
			return i + 1, data[:i], nil
		}
		if atEOF {
			return i + 1, data[:i], nil
		}
		return 0, nil, nil // need one more byte to decide
	}
	if atEOF {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// Next returns the next dispatched event, io.EOF at a clean end of stream, or
// the read error.
func (r *sseReader) Next() (sseEvent, error) {
	var (
		ev      sseEvent
		data    strings.Builder
		hasData bool
		pending bool
	)
	for r.sc.Scan() {
		line := r.sc.Text()
		if r.first {
			r.first = false
			line = strings.TrimPrefix(line, "\uFEFF")
		}
		if line == "" {
			if hasData || ev.HasID {
				// An id-only event is returned too (with empty Data): it
				// updates the last event id, which matters for resumption.
				ev.Data = data.String()
				ev.Retry = r.retry
				r.progress.comments.Store(0)
				r.progress.fields.Store(0)
				return ev, nil
			}
			if !pending {
				r.progress.comments.Add(1)
			}
			ev, pending = sseEvent{}, false
			continue
		}
		if line[0] == ':' {
			r.progress.comments.Add(int64(len(line)) + 1)
			continue // comment (keep-alive)
		}
		r.progress.fields.Add(int64(len(line)) + 1)
		pending = true
		field, value, found := strings.Cut(line, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch field {
		case "data":
			if data.Len()+len(value)+1 > r.maxEvent {
				return sseEvent{}, fmt.Errorf("%w (%d bytes)", errSSEEventTooLarge, r.maxEvent)
			}
			if hasData {
				data.WriteByte('\n')
			}
			data.WriteString(value)
			hasData = true
		case "id":
			if !strings.ContainsRune(value, 0) {
				ev.ID, ev.HasID = value, true
			}
		case "event":
			ev.Event = value
		case "retry":
			if n, err := strconv.Atoi(value); err == nil && n >= 0 && sseIsDigits(value) {
				r.retry = n
			}
		}
	}
	if err := r.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return sseEvent{}, causeError{err, fmt.Sprintf("an SSE line longer than the limit of %d bytes", maxSSELine)}
		}
		return sseEvent{}, err
	}
	r.Partial = pending
	return sseEvent{}, io.EOF
}

// RetryMillis is the most recent retry field, in milliseconds (0 if none).
func (r *sseReader) RetryMillis() int { return r.retry }

func sseIsDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// appendSSEEvent encodes one event. Every line break in data (CRLF, LF or
// CR) starts a new data line, so the reader gets the data back with its line
// breaks normalised to LF; JSON frames are unaffected in meaning.
func appendSSEEvent(b []byte, id, event string, data []byte) []byte {
	if id != "" {
		b = append(b, "id: "...)
		b = append(b, id...)
		b = append(b, '\n')
	}
	if event != "" {
		b = append(b, "event: "...)
		b = append(b, event...)
		b = append(b, '\n')
	}
	for {
		i := bytes.IndexAny(data, "\r\n")
		b = append(b, "data: "...)
		if i < 0 {
			b = append(b, data...)
			b = append(b, '\n')
			break
		}
		b = append(b, data[:i]...)
		b = append(b, '\n')
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	return append(b, '\n')
}
