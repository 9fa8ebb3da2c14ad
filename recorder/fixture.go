package recorder

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/agui-mock/agui-mock/protocol"
)

// capturedEvent is an event relayed from upstream, when it arrived, and how long after
// the previous one.
type capturedEvent struct {
	gap   time.Duration
	at    time.Time
	event protocol.Event
}

// session is what the recorder remembers of a thread it is recording.
type session struct {
	file     string            // the fixture the thread's runs go into
	id       string            // the fixture's scenario id
	shadowed bool              // an earlier recording answers the same first request
	path     []string          // the canonical when-keys from the root run to the latest
	ids      map[string]string // upstream ids → local names, shared by the thread's runs
	counts   map[string]int    // per prefix, names handed out so far
	runs     int
	// unrecorded marks a thread whose latest run was not recorded: the runs continuing it
	// are not recorded either.
	unrecorded bool
	// awaiting lists, in the order the last run raised them, the upstream ids of its
	// interrupts or of its tool calls left without a result: the order replays match
	// answers in.
	awaiting []string
	// toolCalls lists, in the same order, the upstream ids of the tool calls the last
	// run left without a result, when it raised no interrupt.
	toolCalls []string
}

// noteAwaiting records what the session's latest run waits for.
func (s *session) noteAwaiting(events []capturedEvent) {
	interrupts, calls := protocol.Awaited(events, func(ce capturedEvent) protocol.Event { return ce.event })
	s.awaiting = nil
	for _, wire := range interrupts {
		if id, ok := wire["id"].(string); ok {
			s.awaiting = append(s.awaiting, id)
		}
	}
	s.toolCalls = nil
	for _, start := range calls {
		s.awaiting = append(s.awaiting, start.Str("toolCallId"))
		s.toolCalls = append(s.toolCalls, start.Str("toolCallId"))
	}
}

// raisesLangGraphInterrupts reports whether a run waits for interrupts it raised in the
// LangGraph dialect: what it waits for (protocol.Awaited) is interrupts, and its
// RUN_FINISHED has no interrupt outcome, so they are its on_interrupt events. Its
// fixture is then of that dialect.
func raisesLangGraphInterrupts(events []capturedEvent) bool {
	interrupts, _ := protocol.Awaited(events, func(ce capturedEvent) protocol.Event { return ce.event })
	if len(interrupts) == 0 {
		return false
	}
	for _, ce := range events {
		if _, ok := ce.event.Outcome()["interrupts"]; ok && ce.event.Type == protocol.RunFinished {
			return false
		}
	}
	return true
}

// continuedBy reports whether a run continues the session's latest run, by the rule a
// replay follows (protocol.IsContinuation). What a run that was not recorded waits for
// is unknown; the tool results at the end of the run's messages are taken to answer it.
func (s *session) continuedBy(in *protocol.RunAgentInput) bool {
	pending := s.toolCalls
	if s.unrecorded {
		pending = nil
		for i := len(in.Messages) - 1; i >= 0 && in.Messages[i].Role == "tool"; i-- {
			pending = append(pending, in.Messages[i].ToolCallID)
		}
	}
	return protocol.IsContinuation(in, pending)
}

// rank orders answers as the session's last run raised what they answer.
func (s *session) rank(id string) int {
	for i, a := range s.awaiting {
		if a == id {
			return i
		}
	}
	return len(s.awaiting)
}

// localName returns the template for an upstream id, naming it on first sight.
func (s *session) localName(id, prefix string) string {
	name, ok := s.ids[id]
	if !ok {
		s.counts[prefix]++
		name = fmt.Sprintf("%s%d", prefix, s.counts[prefix])
		s.ids[id] = name
	}
	return "{{ id `" + name + "` }}"
}

// idPrefix returns the prefix of the local names a field's generated ids get, and
// whether the field holds one: the field that names a stream of the protocol (c for a
// tool call's, m for a message's), and the fields that refer to a message.
func idPrefix(field string) (string, bool) {
	if field == "parentMessageId" || field == "entityId" {
		return "m", true
	}
	for _, s := range protocol.StreamedTypes() {
		if s.IDField == field && field != "" {
			if s.Family == protocol.ToolArgsStream {
				return "c", true
			}
			return "m", true
		}
	}
	return "", false
}

// templated turns a run's events into the explicit form's entries: the run's own thread
// and run ids become templates that echo the replayed request's, generated ids become
// {{ id "name" }} shared across the thread's runs, and text that looks like a template
// is escaped so it replays verbatim.
func (s *session) templated(events []capturedEvent, threadID, runID string) []*yaml.Node {
	for _, ce := range events { // name ids in order of appearance
		for _, f := range ce.event.Fields {
			if prefix, ok := idPrefix(f.Name); ok {
				if id, isStr := f.Value.(string); isStr && id != "" && id != threadID && id != runID {
					s.localName(id, prefix)
				}
			}
		}
		if ce.event.Type == protocol.RunFinished {
			list, _ := ce.event.Outcome()["interrupts"].([]any)
			for _, item := range list {
				if in, ok := item.(map[string]any); ok {
					if id, ok := in["id"].(string); ok {
						s.localName(id, "i")
					}
				}
			}
		}
	}
	convert := func(v string) string {
		switch {
		case v == threadID && v != "":
			return "{{ .threadId }}"
		case v == runID && v != "":
			return "{{ .runId }}"
		}
		if name, ok := s.ids[v]; ok {
			return "{{ id `" + name + "` }}"
		}
		return escapeTemplate(v)
	}
	nodes := make([]*yaml.Node, 0, len(events))
	// Delays are whole milliseconds between offsets rounded from the start, so rounding
	// never adds up along the run.
	var offset time.Duration
	var written int64
	for _, ce := range events {
		offset += ce.gap
		m := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		at := offset.Round(time.Millisecond).Milliseconds()
		if ms := at - written; ms > 0 {
			m.Content = append(m.Content, scalar("delay"), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(ms, 10)})
		}
		written = at
		m.Content = append(m.Content, scalar("type"), scalar(ce.event.Type))
		for _, f := range ce.event.Fields {
			if f.Name == "timestamp" || (ce.event.Type == protocol.RunStarted && f.Name == "protocolVersion") {
				continue // replays stamp their own time, and declare the version their client speaks
			}
			v := toNode(f.Value, convert)
			if ce.event.Type == protocol.RunFinished && f.Name == "outcome" {
				relativeExpiry(v, ce.at)
			}
			m.Content = append(m.Content, scalar(f.Name), v)
		}
		nodes = append(nodes, m)
	}
	return nodes
}

// relativeExpiry rewrites the expiresAt of each interrupt in a run's outcome as the
// time after sending it had left when it arrived, so that a replay expires the same
// time after its own sending instead of at the recorded moment.
func relativeExpiry(outcome *yaml.Node, arrived time.Time) {
	interrupts := member(outcome, "interrupts")
	if interrupts == nil || arrived.IsZero() {
		return
	}
	for _, in := range interrupts.Content {
		at := member(in, "expiresAt")
		if at == nil {
			continue
		}
		expires, err := time.Parse(time.RFC3339Nano, at.Value)
		if err != nil {
			continue // not a time: kept as sent
		}
		left := expires.Sub(arrived).Round(time.Millisecond)
		at.Value = "{{ fromNow `" + left.String() + "` }}"
	}
}

// escapeTemplate makes recorded text that contains template delimiters replay as is.
func escapeTemplate(s string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	return strings.ReplaceAll(s, "{{", "{{`{{`}}")
}

func scalar(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	return n
}

// toNode writes a JSON value as YAML, passing strings through convert.
func toNode(v any, convert func(string) string) *yaml.Node {
	switch x := v.(type) {
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(x)}
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(string(x), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: string(x)}
	case float64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: strconv.FormatFloat(x, 'g', -1, 64)}
	case string:
		return scalar(convert(x))
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, it := range x {
			n.Content = append(n.Content, toNode(it, convert))
		}
		return n
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			n.Content = append(n.Content, scalar(k), toNode(x[k], convert))
		}
		return n
	}
	return scalar(fmt.Sprint(v))
}

// fixtureKey identifies the first request of a session: repeating it updates the same
// fixture.
func fixtureKey(route, message string, forwardedProps any) string {
	name := ""
	if fp, ok := forwardedProps.(map[string]any); ok {
		name, _ = fp["scenario_name"].(string)
	}
	sum := sha256.Sum256([]byte(route + "\x00" + message + "\x00" + name))
	return hex.EncodeToString(sum[:4])
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

// slug makes a readable file name from a message.
func slug(s string) string {
	s = strings.Trim(nonWord.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if len(s) > 48 {
		s = strings.TrimRight(s[:48], "-")
	}
	if s == "" {
		return "run"
	}
	return s
}

// writeAtomically writes data under a temporary hidden name in the same directory and
// renames it into place, so a watching server or reader never sees half a file.
func writeAtomically(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
