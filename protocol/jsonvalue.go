package protocol

import (
	"encoding/json"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// sharedBodyMax is the largest body whose decoded strings share one copy of it: a
// string kept from a larger body (a message in a thread's history) is copied apart, so
// that it does not keep the rest of the body alive.
const sharedBodyMax = 8 << 10

// jsonMaxDepth is encoding/json's limit of nested arrays and objects: a deeper value
// is left to it, to be rejected with its words.
const jsonMaxDepth = 10000

// decodeJSONFast decodes one JSON value, UTF-8 already checked, into what encoding/json
// decodes it into with UseNumber: map[string]any, []any, string, json.Number, bool and
// nil. It reads the body once, without reflection, and keeps the strings of a small body
// in one allocation. ok is false when the body is anything but one well-formed value
// (surrounded by white space) that it reads without help: encoding/json then decodes
// it, and says what is wrong.
func decodeJSONFast(body []byte) (v any, ok bool) {
	d := fastDecoder{b: body}
	if len(body) <= sharedBodyMax {
		d.shared = string(body)
		d.share = true
	}
	v, ok = d.value(0)
	if !ok {
		return nil, false
	}
	d.space()
	return v, d.i == len(d.b)
}

// fastDecoder is the state of decodeJSONFast.
type fastDecoder struct {
	b      []byte
	i      int
	shared string // b as a string, when share
	share  bool
}

func (d *fastDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// str is b[from:to] as a string: a part of the shared copy, or a copy of its own.
func (d *fastDecoder) str(from, to int) string {
	if d.share {
		return d.shared[from:to]
	}
	return string(d.b[from:to])
}

func (d *fastDecoder) value(depth int) (any, bool) {
	d.space()
	if d.i >= len(d.b) {
		return nil, false
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		s, ok := d.string()
		if !ok {
			return nil, false
		}
		return boxed(s), true
	case c == '-' || ('0' <= c && c <= '9'):
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	}
	return nil, false
}

// boxed is s as a value. The strings every message of a run input repeats, its role
// among them, box as constants, which costs no allocation, and keep nothing of the body.
func boxed(s string) any {
	switch s {
	case "user":
		return "user"
	case "assistant":
		return "assistant"
	case "tool":
		return "tool"
	case "system":
		return "system"
	case "developer":
		return "developer"
	case "function":
		return "function"
	case "text":
		return "text"
	}
	return s
}

func (d *fastDecoder) literal(word string) bool {
	if len(d.b)-d.i < len(word) || string(d.b[d.i:d.i+len(word)]) != word {
		return false
	}
	d.i += len(word)
	return true
}

func (d *fastDecoder) object(depth int) (any, bool) {
	if depth > jsonMaxDepth {
		return nil, false
	}
	d.i++ // {
	obj := make(map[string]any)
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return obj, true
	}
	for {
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, false
		}
		key, ok := d.string()
		if !ok {
			return nil, false
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, false
		}
		d.i++
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		obj[key] = v
		if end, ok := d.separator('}'); !ok {
			return nil, false
		} else if end {
			return obj, true
		}
	}
}

// separator reads what follows a member or an element: a comma (end false) or the
// closer of its object or array (end true); ok is false for anything else.
func (d *fastDecoder) separator(closer byte) (end, ok bool) {
	d.space()
	if d.i >= len(d.b) {
		return false, false
	}
	switch d.b[d.i] {
	case ',':
		d.i++
		return false, true
	case closer:
		d.i++
		return true, true
	}
	return false, false
}

func (d *fastDecoder) array(depth int) (any, bool) {
	if depth > jsonMaxDepth {
		return nil, false
	}
	d.i++ // [
	arr := make([]any, 0)
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return arr, true
	}
	for {
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		arr = append(arr, v)
		if end, ok := d.separator(']'); !ok {
			return nil, false
		} else if end {
			return arr, true
		}
	}
}

// number reads a number in JSON's grammar, as a json.Number of its text.
func (d *fastDecoder) number() (any, bool) {
	start := d.i
	if d.b[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.b) && d.b[d.i] == '0':
		d.i++
	case d.i < len(d.b) && '1' <= d.b[d.i] && d.b[d.i] <= '9':
		d.digits()
	default:
		return nil, false
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if !d.digits() {
			return nil, false
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if !d.digits() {
			return nil, false
		}
	}
	return json.Number(d.str(start, d.i)), true
}

// digits reads one digit or more.
func (d *fastDecoder) digits() bool {
	start := d.i
	for d.i < len(d.b) && '0' <= d.b[d.i] && d.b[d.i] <= '9' {
		d.i++
	}
	return d.i > start
}

// string reads a quoted string. One without escapes is a part of the body; one with
// them is unescaped as encoding/json does (a lone surrogate becomes U+FFFD).
func (d *fastDecoder) string() (string, bool) {
	d.i++ // "
	start := d.i
	for d.i < len(d.b) {
		switch c := d.b[d.i]; {
		case c == '"':
			d.i++
			return d.str(start, d.i-1), true
		case c == '\\':
			return d.escaped(start)
		case c < ' ':
			return "", false
		}
		d.i++
	}
	return "", false
}

// escaped reads the rest of a string that has an escape at d.i, from its start.
func (d *fastDecoder) escaped(start int) (string, bool) {
	out := append(make([]byte, 0, d.i-start+16), d.b[start:d.i]...)
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(out), true
		case c < ' ':
			return "", false
		case c != '\\':
			out = append(out, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.b) {
			return "", false
		}
		switch e := d.b[d.i+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(d.b[d.i+2:])
			if r < 0 {
				return "", false
			}
			d.i += 6
			if utf16.IsSurrogate(r) {
				if d.i+1 < len(d.b) && d.b[d.i] == '\\' && d.b[d.i+1] == 'u' {
					if r2 := hex4(d.b[d.i+2:]); r2 >= 0 {
						if dec := utf16.DecodeRune(r, r2); dec != unicode.ReplacementChar {
							d.i += 6
							out = utf8.AppendRune(out, dec)
							continue
						}
					}
				}
				r = unicode.ReplacementChar
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			return "", false
		}
		d.i += 2
	}
	return "", false
}

// hex4 is the value of the four hex digits b begins with, or -1.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
