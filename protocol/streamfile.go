package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// IsStreamFile reports whether the file name is an event stream by its extension:
// .json (an array of events, or a conformance fixture with a "stream" array), .jsonl
// or .ndjson (one event per line).
func IsStreamFile(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json", ".jsonl", ".ndjson":
		return true
	}
	return false
}

// FileEvent is an event of a stream file and where it starts in the file (1-based).
type FileEvent struct {
	Event        Event
	Line, Column int
}

// StreamFileError is a stream file that is not a stream of events: where the problem
// is in the file (1-based), and what it is.
type StreamFileError struct {
	Line, Column int
	Err          error
}

// Error says what the problem is.
func (e *StreamFileError) Error() string { return e.Err.Error() }

// Unwrap returns the problem.
func (e *StreamFileError) Unwrap() error { return e.Err }

// ReadStreamFile decodes the events of the stream file name, whose content is data:
// with a .json extension, a JSON array of events or a conformance fixture's "stream"
// array; otherwise JSON lines. Each event keeps its position; a file that cannot be
// read as events is a *StreamFileError.
func ReadStreamFile(name string, data []byte) ([]FileEvent, error) {
	trimmed := bytes.TrimSpace(data)
	fail := func(offset int, err error) error {
		line, col := lineCol(data, offset)
		return &StreamFileError{Line: line, Column: col, Err: err}
	}
	if len(trimmed) == 0 {
		return nil, fail(0, errors.New("the file is empty; expected AG-UI events"))
	}
	if strings.EqualFold(filepath.Ext(name), ".json") {
		start := bytes.IndexAny(data, "[{")
		if trimmed[0] == '{' {
			var fixture struct {
				Stream json.RawMessage `json:"stream"`
			}
			if err := json.Unmarshal(data, &fixture); err != nil || len(fixture.Stream) == 0 {
				return nil, fail(start, errors.New("expected an array of events, or an object with a \"stream\" array"))
			}
			start = bytes.Index(data, fixture.Stream)
		}
		return readEventArray(data, start, fail)
	}
	var events []FileEvent
	offset := 0
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 {
			ev, err := DecodeEvent(line)
			if err != nil {
				return nil, fail(offset, fmt.Errorf("line %d: %w", i+1, err))
			}
			events = append(events, FileEvent{ev, i + 1, 1})
		}
		offset += len(line) + 1
	}
	return events, nil
}

// readEventArray decodes the JSON array of events that starts at start (-1: data holds
// neither an array nor an object, a number or a string, say).
func readEventArray(data []byte, start int, fail func(int, error) error) ([]FileEvent, error) {
	if start < 0 {
		return nil, fail(0, errors.New("expected a JSON array of events"))
	}
	dec := json.NewDecoder(bytes.NewReader(data[start:]))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, fail(start, errors.New("expected a JSON array of events"))
	}
	var events []FileEvent
	for dec.More() {
		at := start + int(dec.InputOffset())
		for at < len(data) && strings.ContainsRune(" \t\r\n,", rune(data[at])) {
			at++
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fail(at, fmt.Errorf("malformed JSON: %w", err))
		}
		ev, err := DecodeEvent(raw)
		if err != nil {
			return nil, fail(at, fmt.Errorf("event %d: %w", len(events), err))
		}
		line, col := lineCol(data, at)
		events = append(events, FileEvent{ev, line, col})
	}
	return events, nil
}

// lineCol turns a byte offset into a 1-based line and column.
func lineCol(data []byte, offset int) (int, int) {
	offset = min(max(offset, 0), len(data))
	before := data[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := offset - bytes.LastIndexByte(before, '\n')
	return line, col
}
