package scenarios

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// fields reads a mapping and reports keys outside allowed (nil allows any key).
func (l *fileLoader) fields(n *yaml.Node, what string, allowed []string) map[string]*yaml.Node {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if l.unquotedTemplate(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		l.diag.add(l.pos(n), "", "%s must be a mapping", what)
		return nil
	}
	out := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if allowed != nil && !slices.Contains(allowed, k.Value) {
			l.diag.add(l.pos(k), suggest(k.Value, allowed), "unknown key %q in %s", k.Value, what)
			continue
		}
		out[k.Value] = v
	}
	return out
}

// unquotedTemplate reports a mapping whose key is itself a mapping: what YAML makes of
// an unquoted template such as text: {{ .message }}.
func (l *fileLoader) unquotedTemplate(n *yaml.Node) bool {
	if n.Kind != yaml.MappingNode || len(n.Content) < 2 || n.Content[0].Kind != yaml.MappingNode {
		return false
	}
	l.diag.add(l.pos(n), `quote values that start with "{{", e.g. text: "{{ .message }}"`, "YAML read an unquoted template as a mapping")
	return true
}

// misplacedKeys are keys valid at another level than where they are often written, with
// where they go: for them the nearest allowed key by spelling would mislead.
var misplacedKeys = map[string]string{
	"on": `"on" goes inside an interrupt, beside its id and message, or inside a frontend tool step, beside its name: indent it under interrupt: or tool:`,
}

// suggest names the closest allowed key, for typos, or where a misplaced key goes.
func suggest(got string, allowed []string) string {
	if where, ok := misplacedKeys[got]; ok {
		return where
	}
	best, ok := Closest(got, allowed)
	if !ok {
		return "allowed keys: " + strings.Join(allowed, ", ")
	}
	return fmt.Sprintf("did you mean %q?", best)
}

func (l *fileLoader) scalar(n *yaml.Node, what string) bool {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind != yaml.ScalarNode {
		l.diag.add(l.pos(n), "", "expected %s", what)
		return false
	}
	return true
}

// name reads a string the scenario uses as written, such as a tool or step name, where a
// template would be sent with its braces.
func (l *fileLoader) name(n *yaml.Node, what string) string {
	s := l.str(n)
	if strings.Contains(s, "{{") {
		l.diag.add(l.pos(n), "", "%s cannot be a template", what)
	}
	return s
}

func (l *fileLoader) str(n *yaml.Node) string {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if !l.scalar(n, "a string") {
		return ""
	}
	if n.ShortTag() == "!!null" {
		l.diag.add(l.pos(n), `write the text after the colon; quote "null" to send that word`, "expected a string, got null")
		return ""
	}
	return n.Value
}

// text reads a member sent as text, such as a message's content: a string, or a number
// or boolean sent as it is written. Null, mappings and lists are refused, as AG-UI
// carries text there; what is a mapping with a mapping key gets the hint to quote a
// template. A whole template there renders as text too (see value.asText).
func (l *fileLoader) text(n *yaml.Node, what string) *value {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if l.unquotedTemplate(n) {
		return &value{}
	}
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null":
		l.diag.add(l.pos(n), `write the text after the colon; quote "null" to send that word`, "%s must be a string, got null", what)
	case n.Kind != yaml.ScalarNode:
		l.diag.add(l.pos(n), "quote it to send the characters as written", "%s must be a string, got %s", what, nodeKind(n))
	default:
		return l.valueFromNode(n).asText(what)
	}
	return &value{}
}

// nodeKind names the kind of a YAML node that is not a scalar, for messages.
func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return "a document"
}

func (l *fileLoader) strings(n *yaml.Node) []string {
	if n.Kind == yaml.ScalarNode {
		return []string{n.Value}
	}
	if n.Kind != yaml.SequenceNode {
		l.diag.add(l.pos(n), "", "expected a string or a list of strings")
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for _, it := range n.Content {
		out = append(out, l.str(it))
	}
	return out
}

func (l *fileLoader) int(n *yaml.Node) int {
	if !l.scalar(n, "an integer") {
		return 0
	}
	i, err := strconv.ParseInt(n.Value, 0, 64)
	if err != nil {
		l.diag.add(l.pos(n), "", "expected an integer, got %q", n.Value)
	}
	return int(i)
}

func (l *fileLoader) float(n *yaml.Node) float64 {
	if !l.scalar(n, "a number") {
		return 0
	}
	f, err := strconv.ParseFloat(n.Value, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		l.diag.add(l.pos(n), "", "expected a number, got %q", n.Value)
		return 0
	}
	return f
}

func (l *fileLoader) bool(n *yaml.Node) bool {
	if !l.scalar(n, "true or false") {
		return false
	}
	if n.ShortTag() != "!!bool" {
		l.diag.add(l.pos(n), "", "expected true or false, got %q", n.Value)
		return false
	}
	b, err := strconv.ParseBool(n.Value)
	if err != nil {
		l.diag.add(l.pos(n), "", "expected true or false, got %q", n.Value)
	}
	return b
}

// duration reads "250ms", "1.5s" or a number of milliseconds.
func (l *fileLoader) duration(n *yaml.Node) time.Duration {
	if !l.scalar(n, "a duration") {
		return 0
	}
	if ms, err := strconv.ParseFloat(n.Value, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		if ms < 0 || math.IsNaN(ms) || ms > float64(math.MaxInt64/int64(time.Millisecond)) {
			l.diag.add(l.pos(n), "write e.g. 250ms, 1.5s, or a number of milliseconds", "invalid duration %q", n.Value)
			return 0
		}
		return time.Duration(ms * float64(time.Millisecond))
	}
	d, err := time.ParseDuration(n.Value)
	if err != nil || d < 0 {
		l.diag.add(l.pos(n), `write e.g. 250ms, 1.5s, or a number of milliseconds`, "invalid duration %q", n.Value)
	}
	return d
}

func (l *fileLoader) regex(n *yaml.Node) *regexp.Regexp {
	src := l.str(n)
	re, err := regexp.Compile(src)
	if err != nil {
		l.diag.add(l.pos(n), "patterns use Go regexp (RE2) syntax; (?i) makes them case-insensitive", "invalid regular expression: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		return nil
	}
	return re
}

// literal reads a JSON value whose strings are taken as written (match criteria).
func (l *fileLoader) literal(n *yaml.Node) any {
	l.verbatim = true
	defer func() { l.verbatim = false }()
	return l.valueFromNode(n).literal
}

// literalMapping reads a literal that must be a mapping, such as forwardedProps; what
// names it in the problem reported otherwise.
func (l *fileLoader) literalMapping(n *yaml.Node, what string) map[string]any {
	m, ok := l.literal(n).(map[string]any)
	if !ok {
		l.diag.add(l.pos(n), "", "%s must be a mapping", what)
	}
	return m
}

// tokensPerSecond reads a streaming rate, of a scenario's timing or of one step.
func (l *fileLoader) tokensPerSecond(n *yaml.Node) *float64 {
	tps := l.float(n)
	if tps < 0 {
		l.diag.add(l.pos(n), "0 streams without delays between tokens", "tokensPerSecond must not be negative")
	}
	return &tps
}
