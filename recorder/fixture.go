package recorder

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// capturedEvent is an event relayed from upstream, when it arrived, and how long after
// the previous one.
type capturedEvent struct {
	gap   time.Duration
	at    time.Time
	event protocol.Event
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
// tool call's, m for a message's), the fields that refer to a message, and those that
// name a subagent invocation (s). A run or thread id other than the run's own (r, t)
// is an agent's that breaks a producer rule, as @ag-ui/langgraph's RUN_FINISHED does
// with LangGraph's run id: it is replayed as an id of the replay's own, not the request's.
func idPrefix(field string) (string, bool) {
	switch field {
	case "parentMessageId", "entityId":
		return "m", true
	case "runId":
		return "r", true
	case "threadId":
		return "t", true
	case "subagentRunId", "parentSubagentRunId":
		return "s", true
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
// {{ id "name" }} shared across the thread's runs, the messages of a MESSAGES_SNAPSHOT
// that echo what the client sent (the request's messages) become the replayed client's
// own, and text that looks like a template is escaped so it replays verbatim. An id is
// templated wherever it stands as a whole string, at any depth (a state snapshot's
// messages, a JSON Patch's values, a RAW event's payload): the id of a message the
// request brought as {{ (nth -2 .messages).id }}, the replayed client's own id for it,
// which the client is never given a generated name for. Outside a member whose name
// says it holds an id, only strings of minIDLen characters or more are taken for ids.
func (s *session) templated(events []capturedEvent, threadID, runID string, sent []protocol.Message) []scenarios.RecordedEvent {
	events = slices.Clone(events)
	for i, ce := range events {
		if ce.event.Type == protocol.MessagesSnapshot {
			events[i].event = echoesOf(ce.event, sent)
		}
	}
	client := sentIDs(sent)
	name := func(id, prefix string) {
		if _, isClients := client[id]; !isClients || s.ids[id] != "" {
			s.localName(id, prefix)
		}
	}
	for _, ce := range events { // name ids in order of appearance
		if ce.event.Type == protocol.MessagesSnapshot {
			s.nameSnapshotIDs(ce.event, name)
		}
		for _, f := range ce.event.Fields {
			if prefix, ok := idPrefix(f.Name); ok {
				if id, isStr := f.Value.(string); isStr && id != "" && id != threadID && id != runID {
					name(id, prefix)
				}
			}
		}
		if ce.event.Type == protocol.RunFinished {
			list, _ := ce.event.Outcome()["interrupts"].([]any)
			for _, item := range list {
				if in, ok := item.(map[string]any); ok {
					if id, ok := in["id"].(string); ok {
						name(id, "i")
					}
					if id, ok := in["toolCallId"].(string); ok && id != "" { // the call an approval stands for
						name(id, "c")
					}
				}
			}
		}
	}
	convert := func(v string, idMember bool) string {
		switch {
		case v == threadID && v != "":
			return "{{ .threadId }}"
		case v == runID && v != "":
			return "{{ .runId }}"
		case !idMember && len(v) < minIDLen:
			return escapeTemplate(v) // too short to be taken for an id outside an id's member
		}
		if name, ok := s.ids[v]; ok {
			return "{{ id `" + name + "` }}"
		}
		if expr, ok := client[v]; ok {
			return expr
		}
		return escapeTemplate(v)
	}
	out := make([]scenarios.RecordedEvent, 0, len(events))
	// Delays are whole milliseconds between offsets rounded from the start, so rounding
	// never adds up along the run.
	var offset time.Duration
	var written int64
	for _, ce := range events {
		offset += ce.gap
		at := offset.Round(time.Millisecond).Milliseconds()
		ev := scenarios.RecordedEvent{Delay: time.Duration(at-written) * time.Millisecond, Type: ce.event.Type, Order: ce.event.Order}
		written = at
		for _, f := range ce.event.Fields {
			if f.Name == "timestamp" {
				continue // replays stamp their own time
			}
			v := templatedValue(f.Value, f.Name, convert)
			if ce.event.Type == protocol.RunFinished && f.Name == "outcome" {
				relativeExpiry(v, ce.at)
			}
			ev.Fields = append(ev.Fields, protocol.Field{Name: f.Name, Value: v})
		}
		out = append(out, ev)
	}
	return out
}

// sentMessage stands, in a recorded MESSAGES_SNAPSHOT, for a message the client sent: its
// index in the request's messages counted from the end (-1: the last). It is written as
// {{ nth -1 .messages }}, so that a replay sends the replayed client's own message, with
// its id, in its place, and leaves it out when that client sent no such message.
type sentMessage int

// echoesOf replaces the messages of a snapshot that echo a message of the request with
// the sentMessage that stands for it. An echo carries the id of a message the client
// sent; an agent that gives the client's messages ids of its own echoes them with the
// same role and content (and toolCallId), which is looked for among the messages that
// are not the agent's own (assistant ones).
func echoesOf(ev protocol.Event, sent []protocol.Message) protocol.Event {
	list, ok := ev.Get("messages")
	messages, isList := list.([]any)
	if !ok || !isList || len(sent) == 0 {
		return ev
	}
	byID := map[string]int{}
	for i, m := range sent {
		if m.ID != "" {
			byID[m.ID] = i
		}
	}
	used := map[int]bool{}
	out := make([]any, len(messages))
	for i, item := range messages {
		out[i] = item
		m, _ := item.(map[string]any)
		id, _ := m["id"].(string)
		at, found := byID[id]
		if !found && m["role"] != "assistant" {
			at, found = sameMessage(m, sent, used)
		}
		if found && !used[at] {
			used[at] = true
			out[i] = sentMessage(at - len(sent))
		}
	}
	return ev.With("messages", out)
}

// sameMessage finds the request's message, not yet echoed, with m's role, content and
// toolCallId.
func sameMessage(m map[string]any, sent []protocol.Message, used map[int]bool) (int, bool) {
	content, _ := json.Marshal(m["content"])
	for i, s := range sent {
		if used[i] || s.Role != m["role"] || s.ToolCallID != fmt.Sprint(orNothing(m["toolCallId"])) {
			continue
		}
		if b, _ := json.Marshal(s.Content); string(b) == string(content) {
			return i, true
		}
	}
	return 0, false
}

// orNothing is v, or "" for nil.
func orNothing(v any) any {
	if v == nil {
		return ""
	}
	return v
}

// nameSnapshotIDs names the ids of the agent's own messages in a snapshot — their ids,
// their tool calls' and the calls their tool messages answer — so that a replay
// generates them per run like every other id, and the same ones where the run streamed
// them. name names one.
func (s *session) nameSnapshotIDs(ev protocol.Event, name func(id, prefix string)) {
	list, _ := ev.Get("messages")
	messages, _ := list.([]any)
	for _, item := range messages {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		if id, ok := m["id"].(string); ok && id != "" {
			name(id, "m")
		}
		calls, _ := m["toolCalls"].([]any)
		for _, c := range calls {
			if call, ok := c.(map[string]any); ok {
				if id, ok := call["id"].(string); ok && id != "" {
					name(id, "c")
				}
			}
		}
		if id, ok := m["toolCallId"].(string); ok && id != "" {
			name(id, "c")
		}
	}
}

// relativeExpiry rewrites the expiresAt of each interrupt in a run's outcome as the
// time after sending it had left when it arrived, so that a replay expires the same
// time after its own sending instead of at the recorded moment.
func relativeExpiry(outcome any, arrived time.Time) {
	o, _ := outcome.(map[string]any)
	interrupts, _ := o["interrupts"].([]any)
	if arrived.IsZero() {
		return
	}
	for _, item := range interrupts {
		in, _ := item.(map[string]any)
		at, ok := in["expiresAt"].(string)
		if !ok {
			continue
		}
		expires, err := time.Parse(time.RFC3339Nano, at)
		if err != nil {
			continue // not a time: kept as sent
		}
		left := expires.Sub(arrived).Round(time.Millisecond)
		in["expiresAt"] = "{{ fromNow `" + left.String() + "` }}"
	}
}

// escapeTemplate makes recorded text that contains template delimiters replay as is.
func escapeTemplate(s string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	return strings.ReplaceAll(s, "{{", "{{`{{`}}")
}

// templatedValue is a JSON value as a recording writes it: its strings passed through
// convert, told whether they stand in a member that names an id (key is the name of
// the member the value is in, or of the list it is an item of), and the messages a
// snapshot echoes as the templates that stand for them. It is a copy: the event it
// comes from stays as it was.
func templatedValue(v any, key string, convert func(s string, idMember bool) string) any {
	switch x := v.(type) {
	case string:
		return convert(x, isIDMember(key))
	case sentMessage:
		return fmt.Sprintf("{{ nth %d .messages }}", int(x))
	case []any:
		out := make([]any, len(x))
		for i, it := range x {
			out[i] = templatedValue(it, key, convert)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, it := range x {
			out[k] = templatedValue(it, k, convert)
		}
		return out
	}
	return v
}

// minIDLen is the shortest string taken for a recorded id outside a member that names
// one: a shorter one ("1", "a", "yes") could be any text that happens to equal an id.
const minIDLen = 8

// isIDMember reports whether a member's name says it holds an id: id, messageId,
// tool_call_id, ids, …
func isIDMember(key string) bool {
	k := strings.ToLower(key)
	return k == "id" || k == "ids" || strings.HasSuffix(key, "Id") || strings.HasSuffix(key, "Ids") ||
		strings.HasSuffix(k, "_id") || strings.HasSuffix(k, "_ids")
}

// sentIDs are the ids a run's request brought — its messages', their tool calls', and
// the calls its tool messages answer — each with the template that reads the replayed
// client's own id at the same place: the message counted from the end, its call by
// position.
func sentIDs(sent []protocol.Message) map[string]string {
	ids := make(map[string]string, len(sent))
	add := func(id, expr string) {
		if _, taken := ids[id]; id != "" && !taken {
			ids[id] = expr
		}
	}
	for i, m := range sent {
		at := i - len(sent)
		add(m.ID, fmt.Sprintf("{{ (nth %d .messages).id }}", at))
		for j, call := range m.ToolCalls() {
			add(call.ID, fmt.Sprintf("{{ (index (nth %d .messages).toolCalls %d).id }}", at, j))
		}
		if m.Role == "tool" {
			add(m.ToolCallID, fmt.Sprintf("{{ (nth %d .messages).toolCallId }}", at))
		}
	}
	return ids
}

// fixtureKey identifies the first request of a session — by its message, or for a later
// turn by its conversation too (keyText; "" for a first turn): repeating it updates the
// same fixture.
func fixtureKey(route, message string, forwardedProps any, conversation string) string {
	name := ""
	if fp, ok := forwardedProps.(map[string]any); ok {
		name, _ = fp["scenario_name"].(string)
	}
	key := route + "\x00" + message + "\x00" + name
	if conversation != "" {
		key += "\x00" + conversation
	}
	sum := sha256.Sum256([]byte(key))
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
