package protocol

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Frame is one SSE event block as read from a stream.
type Frame struct {
	ID   string // the id: field, if any
	Data string // the data: lines joined by "\n"
}

// ErrFrameTooLarge is returned for a frame larger than the reader's limit.
var ErrFrameTooLarge = errors.New("SSE frame exceeds the size limit")

// FrameReader reads SSE frames: fields per line, blocks separated by a blank line, with
// LF, CRLF or CR line ends; comments and unknown fields are skipped, as the spec says.
type FrameReader struct {
	r       *bufio.Reader
	maxSize int
	buf     []byte // the current line
	data    []byte // the current frame's data
}

// NewFrameReader reads frames of at most maxSize bytes from r.
func NewFrameReader(r io.Reader, maxSize int) *FrameReader {
	return &FrameReader{r: bufio.NewReaderSize(r, 64<<10), maxSize: maxSize}
}

// Next returns the next frame that carries data. At the end of the stream it returns
// io.EOF; a last block without its blank line still counts.
func (fr *FrameReader) Next() (Frame, error) {
	var f Frame
	data := fr.data[:0]
	defer func() { fr.data = data[:0] }() // reused by the next frame
	hasData, size := false, 0
	for {
		line, err := fr.line()
		if err != nil && !(errors.Is(err, io.EOF) && len(line) > 0) {
			if errors.Is(err, io.EOF) && hasData {
				f.Data = string(data)
				return f, nil
			}
			return Frame{}, err
		}
		size += len(line)
		if size > fr.maxSize {
			return Frame{}, ErrFrameTooLarge
		}
		if len(line) == 0 {
			if hasData {
				f.Data = string(data)
				return f, nil
			}
			f = Frame{}
			continue
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(name) {
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = true
		case "id":
			f.ID = string(value)
		}
	}
}

// line reads one line without its ending, accepting LF, CRLF and lone CR. It scans what
// is buffered rather than byte by byte; the line it returns is valid until the next call.
func (fr *FrameReader) line() ([]byte, error) {
	fr.buf = fr.buf[:0]
	for {
		if fr.r.Buffered() == 0 {
			if _, err := fr.r.Peek(1); err != nil {
				return fr.buf, err
			}
		}
		chunk, _ := fr.r.Peek(fr.r.Buffered())
		end := bytes.IndexByte(chunk, '\n')
		if end < 0 {
			end = len(chunk)
		}
		if cr := bytes.IndexByte(chunk[:end], '\r'); cr >= 0 {
			end = cr
		}
		if len(fr.buf)+end > fr.maxSize {
			return nil, ErrFrameTooLarge
		}
		fr.buf = append(fr.buf, chunk[:end]...)
		if end == len(chunk) { // no line end buffered yet
			_, _ = fr.r.Discard(end)
			continue
		}
		_, _ = fr.r.Discard(end + 1)
		if chunk[end] == '\r' {
			if next, err := fr.r.Peek(1); err == nil && next[0] == '\n' {
				_, _ = fr.r.Discard(1)
			}
		}
		return fr.buf, nil
	}
}

// ReadEvents reads every event of a stream, decoding each frame's data as one event.
func ReadEvents(r io.Reader, maxFrame int) ([]Event, error) {
	fr := NewFrameReader(r, maxFrame)
	var events []Event
	for {
		f, err := fr.Next()
		if errors.Is(err, io.EOF) {
			return events, nil
		}
		if err != nil {
			return events, err
		}
		ev, err := DecodeEvent([]byte(f.Data))
		if err != nil {
			return events, fmt.Errorf("event %d: %w", len(events), err)
		}
		events = append(events, ev)
	}
}

// DecodeEvent decodes one event from its JSON object, keeping its fields in the order
// they were written, and the order of the members of the objects in them (Order).
func DecodeEvent(data []byte) (Event, error) {
	v, err := DecodeJSON(data)
	if err != nil {
		return Event{}, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return Event{}, fmt.Errorf("an event must be a JSON object, got %s", jsonKind(v))
	}
	typ, ok := m["type"].(string)
	if !ok {
		return Event{}, fmt.Errorf("the event has no string type")
	}
	keys, order := eventKeyOrder(data)
	ev := Event{Type: typ, Fields: make([]Field, 0, len(m)-1), Order: order}
	for _, name := range keys {
		if name != "type" {
			ev.Fields = append(ev.Fields, Field{Name: name, Value: m[name]})
		}
	}
	return ev, nil
}
