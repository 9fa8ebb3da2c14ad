package recorder

import (
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agui-mock/agui-mock/internal/secret"
	"github.com/agui-mock/agui-mock/protocol"
)

// redacted replaces every secret the recorder finds.
const redacted = "[REDACTED]"

// isSecretPointer reports whether a JSON Pointer passes through a member that holds a
// secret, so that the value a JSON Patch operation sets there is one.
func isSecretPointer(pointer string) bool {
	for seg := range strings.SplitSeq(pointer, "/") {
		if secret.IsName(strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)) {
			return true
		}
	}
	return false
}

// redactor scrubs the secrets from what one recording writes, and counts them.
type redactor struct {
	patterns []*regexp.Regexp
	count    int // values and matches replaced
}

// text returns s with its secrets replaced: what the patterns match and, when s is a
// JSON object or array, the strings of members that hold secrets.
func (rd *redactor) text(s string) string {
	return rd.replace(s, rd.spans(s))
}

// value returns v with its secrets replaced: every string and member of a value that
// holds a secret (hidden), else the strings of members that do, and what the patterns
// match in the other strings.
func (rd *redactor) value(v any, hidden bool) any {
	switch x := v.(type) {
	case string:
		if hidden && x != "" && x != redacted {
			rd.count++
			return redacted
		}
		if hidden {
			return x
		}
		return rd.text(x)
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = rd.value(item, hidden)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, item := range x {
			out[k] = rd.value(item, hidden || secret.IsName(k))
		}
		return out
	}
	return v
}

// patch redacts a JSON Patch: the value an operation sets at a secret's path, and the
// secrets in the others.
func (rd *redactor) patch(v any) any {
	ops, ok := v.([]any)
	if !ok {
		return rd.value(v, false)
	}
	out := make([]any, len(ops))
	for i, op := range ops {
		m, ok := op.(map[string]any)
		if !ok {
			out[i] = rd.value(op, false)
			continue
		}
		path, _ := m["path"].(string)
		red := make(map[string]any, len(m))
		for k, item := range m {
			red[k] = rd.value(item, secret.IsName(k) || (k == "value" && isSecretPointer(path)))
		}
		out[i] = red
	}
	return out
}

// event redacts every field of an event but the deltas of streamed text, which
// streams redacts as a whole; a JSON Patch by the paths it sets.
func (rd *redactor) event(ev protocol.Event) protocol.Event {
	out := protocol.Event{Type: ev.Type, Fields: make([]protocol.Field, len(ev.Fields)), Order: ev.Order}
	streamed, isStreamed := protocol.Streamed(ev.Type)
	patch, isPatch := protocol.PatchField(ev.Type)
	for i, f := range ev.Fields {
		switch {
		case isStreamed && f.Name == streamed.DeltaField:
		case isPatch && f.Name == patch:
			f.Value = rd.patch(f.Value)
		default:
			f.Value = rd.value(f.Value, secret.IsName(f.Name))
		}
		out.Fields[i] = f
	}
	return out
}

// events redacts a run's events: streamed text as a whole, then every other field.
func (rd *redactor) events(events []capturedEvent) []capturedEvent {
	events = rd.streams(events)
	for i := range events {
		events[i].event = rd.event(events[i].event)
	}
	return events
}

// streams scrubs secrets from streamed text, where a secret may be split across deltas,
// down to one character each: the deltas of each logical stream (protocol.StreamTracker:
// a message's, a tool call's arguments, whichever form carries them) are joined and
// redacted as one text, and the deltas a secret spans are merged into the first; the
// merged-away events' time passes to the next event.
func (rd *redactor) streams(events []capturedEvent) []capturedEvent {
	groups := map[protocol.StreamKey][]int{}
	var order []protocol.StreamKey
	var tracker protocol.StreamTracker
	for i, ce := range events {
		key, _, ok := tracker.Next(ce.event)
		if !ok {
			continue
		}
		if groups[key] == nil {
			order = append(order, key)
		}
		groups[key] = append(groups[key], i)
	}
	drop := map[int]bool{}
	for _, key := range order {
		idx := groups[key]
		var joined strings.Builder
		starts := make([]int, len(idx)+1)
		for n, i := range idx {
			starts[n] = joined.Len()
			joined.WriteString(deltaOf(events[i].event))
		}
		text := joined.String()
		starts[len(idx)] = len(text)
		spans := rd.spans(text)
		next := 0 // the first span not yet placed
		for n := 0; n < len(idx) && next < len(spans); {
			// the deltas from n to last become one when a secret spans them
			first, last := next, n
			for ; next < len(spans) && spans[next][0] < starts[last+1]; next++ {
				for spans[next][1] > starts[last+1] && last+1 < len(idx) {
					last++
				}
			}
			if first < next {
				lo := starts[n]
				within := make([][2]int, next-first)
				for j, sp := range spans[first:next] {
					within[j] = [2]int{sp[0] - lo, sp[1] - lo}
				}
				merged := rd.replace(text[lo:starts[last+1]], within)
				head := events[idx[n]].event
				s, _ := protocol.Streamed(head.Type)
				events[idx[n]].event = head.With(s.DeltaField, merged)
				for m := n + 1; m <= last; m++ {
					drop[idx[m]] = true
				}
			}
			n = last + 1
		}
		if slices.ContainsFunc(idx, func(i int) bool { return drop[i] }) {
			named(events, idx, drop, key)
		}
	}
	out := make([]capturedEvent, 0, len(events))
	var carried time.Duration
	for i, ce := range events {
		if drop[i] {
			carried += ce.gap
			continue
		}
		ce.gap += carried
		carried = 0
		out = append(out, ce)
	}
	return out
}

// named gives the stream's id to the kept events of a stream that were sent without it,
// once deltas of the stream were merged away: the chunk that named the stream may have
// been one of them, and a chunk without an id continues only a stream a chunk opened.
func named(events []capturedEvent, idx []int, drop map[int]bool, key protocol.StreamKey) {
	for _, i := range idx {
		s, _ := protocol.Streamed(events[i].event.Type)
		if !drop[i] && s.IDField != "" && key.ID != "" && events[i].event.Str(s.IDField) == "" {
			events[i].event = events[i].event.With(s.IDField, key.ID)
		}
	}
}

// deltaOf returns the piece of streamed text an event carries.
func deltaOf(ev protocol.Event) string {
	s, _ := protocol.Streamed(ev.Type)
	return ev.Str(s.DeltaField)
}

// spans returns the sorted, disjoint spans of s that are secrets: for a JSON object or
// array, the strings of members that hold secrets and what the patterns match in its
// other strings; for other text, what the patterns match.
func (rd *redactor) spans(s string) [][2]int {
	found, isJSON := rd.jsonSpans(s)
	if !isJSON {
		found = rd.matches(s, 0)
	}
	slices.SortFunc(found, func(a, b [2]int) int { return a[0] - b[0] })
	var out [][2]int
	for _, sp := range found {
		if n := len(out); n > 0 && sp[0] < out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], sp[1])
			continue
		}
		out = append(out, sp)
	}
	return out
}

// matches returns the non-empty spans the patterns match in s, offset by at.
func (rd *redactor) matches(s string, at int) [][2]int {
	var spans [][2]int
	for _, re := range rd.patterns {
		for _, m := range re.FindAllStringIndex(s, -1) {
			if m[0] < m[1] {
				spans = append(spans, [2]int{at + m[0], at + m[1]})
			}
		}
	}
	return spans
}

// jsonSpans reads s as a JSON object or array and returns the spans of the strings in
// it that are secrets: the contents of strings under members that hold secrets, and what
// the patterns match in the contents of the others. It reports false when s is not JSON.
func (rd *redactor) jsonSpans(s string) ([][2]int, bool) {
	if t := strings.TrimSpace(s); t == "" || (t[0] != '{' && t[0] != '[') {
		return nil, false
	}
	type level struct {
		object, wantKey, hidden bool
		key                     string
	}
	var stack []level
	var spans [][2]int
	dec := json.NewDecoder(strings.NewReader(s))
	for {
		before := int(dec.InputOffset())
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return spans, true
		}
		if err != nil {
			return nil, false
		}
		end := int(dec.InputOffset())
		hidden := false
		if n := len(stack); n > 0 {
			top := &stack[n-1]
			if key, isKey := tok.(string); isKey && top.object && top.wantKey {
				top.key, top.wantKey = key, false
				continue
			}
			hidden = top.hidden || (top.object && secret.IsName(top.key))
			top.wantKey = top.object
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				stack = append(stack, level{object: t == '{', wantKey: t == '{', hidden: hidden})
			} else {
				stack = stack[:len(stack)-1]
			}
		case string:
			start := before + strings.IndexByte(s[before:end], '"') + 1
			switch {
			case hidden && t != "" && t != redacted:
				spans = append(spans, [2]int{start, end - 1})
			case !hidden:
				spans = append(spans, rd.matches(s[start:end-1], start)...)
			}
		}
	}
}

// replace replaces the spans of s, sorted and disjoint, with the redaction marker, and
// counts them.
func (rd *redactor) replace(s string, spans [][2]int) string {
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		b.WriteString(s[at:sp[0]])
		b.WriteString(redacted)
		at = sp[1]
	}
	b.WriteString(s[at:])
	rd.count += len(spans)
	return b.String()
}

// anchored returns a pattern that matches redacted text whole, with any text where a
// secret was: the original text matches it as well as the redacted one.
func anchored(text string) string {
	parts := strings.Split(text, redacted)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return "^" + strings.Join(parts, ".+") + "$"
}
