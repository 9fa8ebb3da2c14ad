package recorder

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// streamed are the events whose deltas make up one text together.
var streamed = map[string]string{
	protocol.TextMessageContent:      "messageId",
	protocol.ReasoningMessageContent: "messageId",
	protocol.ToolCallArgs:            "toolCallId",
	protocol.TextMessageChunk:        "messageId",
	protocol.ToolCallChunk:           "toolCallId",
}

// redactStreams scrubs secrets from streamed text, where a secret may be split across
// deltas: each message's or tool call's deltas are joined, and the deltas a match spans
// are merged into one, redacted; the merged-away events' time passes to the next event.
func redactStreams(events []capturedEvent, patterns []*regexp.Regexp) []capturedEvent {
	groups := map[string][]int{}
	var order []string
	for i, ce := range events {
		field, ok := streamed[ce.event.Type]
		if !ok {
			continue
		}
		key := ce.event.Type + "\x00" + ce.event.Str(field)
		if groups[key] == nil {
			order = append(order, key)
		}
		groups[key] = append(groups[key], i)
	}
	drop := map[int]bool{}
	for _, key := range order {
		idx := groups[key]
		var text strings.Builder
		starts := make([]int, len(idx))
		for n, i := range idx {
			starts[n] = text.Len()
			text.WriteString(events[i].event.Str("delta"))
		}
		// the delta ranges the matches span, merged where they overlap
		var ranges [][2]int
		for _, span := range matches(text.String(), patterns) {
			first, last := -1, -1
			for n := range idx {
				end := text.Len()
				if n+1 < len(idx) {
					end = starts[n+1]
				}
				if starts[n] < span[1] && end > span[0] {
					if first < 0 {
						first = n
					}
					last = n
				}
			}
			if first >= 0 && first < last { // within one delta the per-string redaction does it
				ranges = append(ranges, [2]int{first, last})
			}
		}
		slices.SortFunc(ranges, func(a, b [2]int) int { return a[0] - b[0] })
		for i := 0; i < len(ranges); i++ {
			first, last := ranges[i][0], ranges[i][1]
			for i+1 < len(ranges) && ranges[i+1][0] <= last {
				i++
				last = max(last, ranges[i][1])
			}
			var merged strings.Builder
			for n := first; n <= last; n++ {
				merged.WriteString(events[idx[n]].event.Str("delta"))
				if n > first {
					drop[idx[n]] = true
				}
			}
			events[idx[first]].event = events[idx[first]].event.With("delta", merged.String())
		}
	}
	out := make([]capturedEvent, 0, len(events))
	var carried int64
	for i, ce := range events {
		if drop[i] {
			carried += int64(ce.gap)
			continue
		}
		ce.gap += time.Duration(carried)
		carried = 0
		out = append(out, ce)
	}
	return out
}

// matches returns the spans any pattern matches in s.
func matches(s string, patterns []*regexp.Regexp) [][2]int {
	var spans [][2]int
	for _, re := range patterns {
		for _, m := range re.FindAllStringIndex(s, -1) {
			spans = append(spans, [2]int{m[0], m[1]})
		}
	}
	return spans
}
