// Package logline writes log records byte for byte as log/slog's text and JSON handlers
// write them, without their general machinery for the records a server writes on every
// request: flat ones (no groups, no attributes added by With), whose values are strings
// of printable ASCII, numbers, booleans and durations. Any other record, and every
// record of a handler derived with WithAttrs or WithGroup, is slog's handler's to write,
// through the same lock, so that lines never interleave.
package logline

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// Handler is a slog.Handler that writes as slog.TextHandler or slog.JSONHandler does.
type Handler struct {
	json bool
	out  *lockedWriter
	std  slog.Handler // slog's own, writing through out
}

// NewText returns a handler that writes what slog.NewTextHandler(w, opts) would.
func NewText(w io.Writer, opts *slog.HandlerOptions) slog.Handler { return newHandler(w, opts, false) }

// NewJSON returns a handler that writes what slog.NewJSONHandler(w, opts) would.
func NewJSON(w io.Writer, opts *slog.HandlerOptions) slog.Handler { return newHandler(w, opts, true) }

func newHandler(w io.Writer, opts *slog.HandlerOptions, json bool) slog.Handler {
	if opts != nil && (opts.AddSource || opts.ReplaceAttr != nil) {
		// what they change is slog's to do
		if json {
			return slog.NewJSONHandler(w, opts)
		}
		return slog.NewTextHandler(w, opts)
	}
	out := &lockedWriter{w: w}
	h := &Handler{json: json, out: out}
	if json {
		h.std = slog.NewJSONHandler(out, opts)
	} else {
		h.std = slog.NewTextHandler(out, opts)
	}
	return h
}

// lockedWriter serializes the writes of a handler and of the handlers derived from it.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Enabled reports whether the handler writes records of the level.
func (h *Handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.std.Enabled(ctx, level)
}

// WithAttrs returns slog's handler with the attributes: records of a derived handler
// are written by slog.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler { return h.std.WithAttrs(attrs) }

// WithGroup returns slog's handler with the group: records of a derived handler are
// written by slog.
func (h *Handler) WithGroup(name string) slog.Handler { return h.std.WithGroup(name) }

// bufs holds the buffers lines are made in.
var bufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// Handle writes the record as one line, in one Write.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	bp := bufs.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= 16<<10 { // a huge line's buffer is not kept
			bufs.Put(bp)
		}
	}()
	line, ok := h.appendRecord((*bp)[:0], r)
	*bp = line
	if !ok {
		return h.std.Handle(ctx, r)
	}
	_, err := h.out.Write(line)
	return err
}

// line is a record's line being made.
type line struct {
	b    []byte
	json bool
	sep  bool // a key has been written: the next one is preceded by a separator
	ok   bool // false once the record is found not to be one this package writes
}

// appendRecord appends the record's line, or reports that it is not one this package
// writes.
func (h *Handler) appendRecord(b []byte, r slog.Record) ([]byte, bool) {
	l := line{b: b, json: h.json, ok: true}
	if h.json {
		l.b = append(l.b, '{')
	}
	if !r.Time.IsZero() {
		l.key(slog.TimeKey)
		t := r.Time.Round(0) // as slog: without the monotonic reading
		if h.json {
			if y := t.Year(); y < 0 || y >= 10000 {
				return l.b, false // slog writes an error of its own
			}
			l.b = append(l.b, '"')
			l.b = t.AppendFormat(l.b, time.RFC3339Nano)
			l.b = append(l.b, '"')
		} else {
			l.b = appendRFC3339Millis(l.b, t)
		}
	}
	l.key(slog.LevelKey)
	l.str(r.Level.String())
	l.key(slog.MessageKey)
	l.str(r.Message)
	if l.ok {
		r.Attrs(l.attr)
	}
	if !l.ok {
		return l.b, false
	}
	if h.json {
		l.b = append(l.b, '}')
	}
	return append(l.b, '\n'), true
}

// key appends an attribute's key, after the separator if it is not the first.
func (l *line) key(k string) {
	if l.sep {
		if l.json {
			l.b = append(l.b, ',')
		} else {
			l.b = append(l.b, ' ')
		}
	}
	l.sep = true
	l.str(k)
	if l.json {
		l.b = append(l.b, ':')
	} else {
		l.b = append(l.b, '=')
	}
}

// str appends a string value.
func (l *line) str(s string) {
	var ok bool
	if l.json {
		l.b, ok = appendJSONString(l.b, s)
	} else {
		l.b, ok = appendTextString(l.b, s)
	}
	l.ok = l.ok && ok
}

// attr appends an attribute; it returns false, and notes it, for one this package does
// not write.
func (l *line) attr(a slog.Attr) bool {
	v := a.Value
	switch k := v.Kind(); {
	case a.Key == "": // slog elides empty attributes, and inlines groups with no key
		l.ok = false
	case k == slog.KindString:
		l.key(a.Key)
		l.str(v.String())
	case k == slog.KindInt64:
		l.key(a.Key)
		l.b = strconv.AppendInt(l.b, v.Int64(), 10)
	case k == slog.KindUint64:
		l.key(a.Key)
		l.b = strconv.AppendUint(l.b, v.Uint64(), 10)
	case k == slog.KindBool:
		l.key(a.Key)
		l.b = strconv.AppendBool(l.b, v.Bool())
	case k == slog.KindDuration && l.json:
		l.key(a.Key)
		l.b = strconv.AppendInt(l.b, int64(v.Duration()), 10)
	case k == slog.KindDuration:
		l.key(a.Key)
		l.b = append(l.b, v.Duration().String()...)
	case k == slog.KindFloat64 && !l.json: // slog writes JSON's floats as encoding/json does
		l.key(a.Key)
		l.b = strconv.AppendFloat(l.b, v.Float64(), 'g', -1, 64)
	default: // groups, times, values to resolve or to marshal: slog's to write
		l.ok = false
	}
	return l.ok
}

// Classes of bytes, as the text handler judges them (textClass) and the JSON handler
// (jsonClass).
const (
	plain   = iota // written as it is
	special        // the text handler quotes the string; the JSON handler escapes the byte
	wide           // past ASCII: slog judges the string by its runes
)

var textClass, jsonClass = func() (text, json [256]uint8) {
	for c := range 256 {
		switch {
		case c >= 0x80:
			text[c], json[c] = wide, wide
		case c < 0x20:
			text[c], json[c] = special, special
		case c == '"':
			text[c], json[c] = special, special
		case c == '\\':
			json[c] = special
		case c == ' ', c == '=':
			text[c] = special
		}
	}
	return text, json
}()

// appendTextString appends s as slog's text handler does: quoted when it is empty or
// holds a space, '=', '"' or a control character. It reports false for a string with
// bytes past ASCII, which slog judges by their runes.
func appendTextString(b []byte, s string) ([]byte, bool) {
	quote := s == ""
	for i := 0; i < len(s); i++ {
		switch textClass[s[i]] {
		case special:
			quote = true
		case wide:
			return b, false
		}
	}
	if quote {
		return strconv.AppendQuote(b, s), true
	}
	return append(b, s...), true
}

// appendJSONString appends s as a JSON string as slog's JSON handler does. It reports
// false for a string with bytes past ASCII, which slog judges by their runes.
func appendJSONString(b []byte, s string) ([]byte, bool) {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch jsonClass[c] {
		case plain:
			continue
		case wide:
			return b, false
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"'), true
}

// appendRFC3339Millis appends t as slog's text handler does: RFC 3339 with exactly three
// digits of milliseconds.
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	// RFC3339Nano is the fast layout, but it trims trailing zeros: a tenth of a
	// millisecond more makes four digits, and the fourth is dropped.
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...)
}
