package protocol

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// SequenceError is a violation of the AG-UI event rules at one event of a stream.
type SequenceError struct {
	Index   int // position of the offending event in the stream, from 0; -1 at end of stream
	Type    string
	Message string
	Rule    Rule // the named rule it breaks, if it breaks one (see Rule)
}

// Error names the event at fault, by its place and type, and the rule it breaks.
func (e *SequenceError) Error() string {
	if e.Rule != "" {
		return (&RuleError{Rule: e.Rule, Message: e.message()}).Error()
	}
	return e.message()
}

func (e *SequenceError) message() string {
	if e.Index < 0 {
		return e.Message
	}
	return fmt.Sprintf("event %d (%s): %s", e.Index, e.Type, e.Message)
}

// RuleChecker checks a stream event by event against the rules the official client enforces:
// the shape of every known event, run boundaries and identity, open/close pairing of
// messages, tool calls, steps, reasoning spans and subagents, chunk expansion, and
// interrupt outcomes. It follows the 1.x client (plus the post-1.1 identity and truncation
// rules), the strictest line a scenario must satisfy. Things that client only warns about
// are collected in Warnings.
type RuleChecker struct {
	// ThreadID, when set, is the input's thread: every run must carry it.
	ThreadID string
	Warnings []SequenceError
	// Tolerate lists the named rules the stream may break: a break of one is noted in
	// Breaks, and the check goes on, instead of failing.
	Tolerate []Rule
	// Breaks lists the tolerated rules the stream broke, each once, in the order it
	// first broke them.
	Breaks []Rule

	index      int
	started    bool // any run has started
	runActive  bool
	finished   bool
	errored    bool
	runID      string
	threadID   string
	messages   map[string]bool
	tools      map[string]bool
	steps      map[string]bool
	spans      map[string]bool
	reasonings map[string]bool
	subagents  map[string]bool
	owners     map[entityKey]string // entity → subagentRunId it was opened with
	chunk      chunkState
	single     [1]Event // expandChunks' answer in the common case, without allocating
}

type chunkState struct {
	family StreamFamily // of the open chunk stream, "" when none is open
	id     string
	role   string
	name   string
}

// Check verifies the next event of the stream.
func (v *RuleChecker) Check(ev Event) error {
	if err := checkShape(ev); err != nil {
		err := v.fail(ev, err)
		v.index++
		return err
	}
	return v.Track(ev)
}

// Track is Check without the checks of the event's own shape, for events whose shape is
// known to be good (a planned run's): it still follows the sequence and its rules, and
// keeps what is open for Closers.
func (v *RuleChecker) Track(ev Event) error {
	defer func() { v.index++ }()
	if !knownEvent(ev.Type) {
		v.Warnings = append(v.Warnings, SequenceError{Index: v.index, Type: ev.Type, Message: fmt.Sprintf("unknown event type %q is dropped by 1.x clients and fatal for 0.0.x clients", ev.Type)})
		return nil
	}
	expanded, err := v.expandChunks(ev)
	if err != nil {
		return v.fail(ev, err)
	}
	for _, e := range expanded {
		if err := v.apply(e); err != nil {
			return v.fail(ev, err)
		}
	}
	return nil
}

// End verifies that the stream ended properly: with a terminal event for its last run.
func (v *RuleChecker) End() error {
	if !v.started && !v.errored {
		return &SequenceError{Index: -1, Message: "the stream ended without any event"}
	}
	if v.runActive {
		if err := v.broke(RuleOpenEnd, "the stream ended without a terminal event (RUN_FINISHED or RUN_ERROR)"); err != nil {
			return &SequenceError{Index: -1, Message: err.(*RuleError).Message, Rule: RuleOpenEnd}
		}
	}
	return nil
}

// CheckStream checks a whole stream.
func CheckStream(events []Event, threadID string) (*RuleChecker, error) {
	v := &RuleChecker{ThreadID: threadID}
	return v, v.Stream(events)
}

// Stream checks a whole stream's events, then its end: the first error found.
func (v *RuleChecker) Stream(events []Event) error {
	for _, ev := range events {
		if err := v.Check(ev); err != nil {
			return err
		}
	}
	return v.End()
}

// fail is the SequenceError of an error at the event, with the rule it breaks if it
// breaks a named one.
func (v *RuleChecker) fail(ev Event, err error) error {
	if re, ok := err.(*RuleError); ok {
		return &SequenceError{Index: v.index, Type: ev.Type, Message: re.Message, Rule: re.Rule}
	}
	return &SequenceError{Index: v.index, Type: ev.Type, Message: err.Error()}
}

// keepsChunk reports the events that do not close an open chunk stream; every other
// known event does.
func keepsChunk(typ string) bool {
	switch typ {
	case Raw, ActivitySnapshot, ActivityDelta, ReasoningEncryptedValue:
		return true
	}
	return false
}

// chunkOf returns the chunk form of a stream family and its expanded content form.
func chunkOf(typ string) (chunk, content StreamedType, ok bool) {
	chunk, ok = Streamed(typ)
	if !ok || !chunk.Chunk {
		return StreamedType{}, StreamedType{}, false
	}
	return chunk, contentOf(chunk.Family), true
}

// contentOf returns the content form of a stream family, which a chunk expands into.
func contentOf(f StreamFamily) StreamedType {
	for _, s := range streamedTypes {
		if s.Family == f && !s.Chunk {
			return s
		}
	}
	return StreamedType{}
}

// chunkNameField is the field that names what a chunk stream of the family streams,
// which its chunks must not change.
func chunkNameField(f StreamFamily) string {
	switch f {
	case TextStream:
		return "name"
	case ToolArgsStream:
		return "toolCallName"
	}
	return ""
}

// expandChunks turns chunk events into the start/content/end events the client
// synthesizes, and closes an open chunk stream before an event that ends it.
func (v *RuleChecker) expandChunks(ev Event) ([]Event, error) {
	var out []Event
	closeOpen := func() {
		if v.chunk.family != "" {
			content := contentOf(v.chunk.family)
			out = append(out, NewEvent(content.End, content.IDField, v.chunk.id))
		}
		v.chunk = chunkState{}
	}
	k, content, isChunk := chunkOf(ev.Type)
	if !isChunk {
		if v.chunk.family == "" {
			v.single[0] = ev
			return v.single[:], nil // the common case: nothing to expand or close
		}
		if !keepsChunk(ev.Type) {
			closeOpen()
		}
		return append(out, ev), nil
	}
	nameField := chunkNameField(k.Family)
	id := ev.Str(k.IDField)
	if v.chunk.family != k.Family || (id != "" && id != v.chunk.id) {
		closeOpen()
	}
	if v.chunk.family == "" {
		if id == "" {
			return nil, fmt.Errorf("First %s must have a %s", ev.Type, k.IDField)
		}
		start := NewEvent(k.Start, k.IDField, id)
		switch k.Family {
		case TextStream:
			role := ev.Str("role")
			if role == "" {
				role = "assistant"
			}
			start = start.With("role", role)
			v.chunk.role = role
		case ToolArgsStream:
			if ev.Str("toolCallName") == "" {
				return nil, fmt.Errorf("First %s must have a toolCallName", ev.Type)
			}
			start = start.With("toolCallName", ev.Str("toolCallName"))
			if p := ev.Str("parentMessageId"); p != "" {
				start = start.With("parentMessageId", p)
			}
		case ReasoningStream:
			start = start.With("role", "reasoning")
		}
		if nameField != "" {
			v.chunk.name = ev.Str(nameField)
		}
		v.chunk.family, v.chunk.id = k.Family, id
		if sa := ev.Str("subagentRunId"); sa != "" {
			start = start.With("subagentRunId", sa)
		}
		out = append(out, start)
	} else {
		if r := ev.Str("role"); k.Family == TextStream && r != "" && r != v.chunk.role {
			return nil, fmt.Errorf("role %q does not match the open stream's role %q", r, v.chunk.role)
		}
		if nameField != "" {
			if n := ev.Str(nameField); n != "" && v.chunk.name != "" && n != v.chunk.name {
				return nil, fmt.Errorf("%s %q does not match the open stream's %s %q", nameField, n, nameField, v.chunk.name)
			}
		}
	}
	if delta, ok := ev.Get(k.DeltaField); ok {
		piece := NewEvent(content.Type, content.IDField, v.chunk.id, content.DeltaField, delta)
		if sa := ev.Str("subagentRunId"); sa != "" {
			piece = piece.With("subagentRunId", sa)
		}
		out = append(out, piece)
	}
	return out, nil
}

// reset forgets what is open. The sets are made when something opens: a run that opens
// no step or tool call costs no map for them.
func (v *RuleChecker) reset() {
	for _, m := range []map[string]bool{v.messages, v.tools, v.steps, v.spans, v.reasonings, v.subagents} {
		clear(m)
	}
	clear(v.owners)
	v.chunk = chunkState{}
}

// Reuse empties the checker for another stream, as a zero RuleChecker, keeping the memory
// of what it tracked: a server reuses one for many runs.
func (v *RuleChecker) Reuse() {
	v.reset()
	keep := RuleChecker{messages: v.messages, tools: v.tools, steps: v.steps, spans: v.spans,
		reasonings: v.reasonings, subagents: v.subagents, owners: v.owners}
	*v = keep
}

// apply enforces the sequence rules for one (expanded) event.
func (v *RuleChecker) apply(ev Event) error {
	if v.errored && ev.Type != RunStarted {
		return fmt.Errorf("Cannot send event type '%s': The run has already errored with 'RUN_ERROR'. Start a new run with 'RUN_STARTED'", ev.Type)
	}
	if v.finished && ev.Type != RunStarted && ev.Type != RunError {
		return fmt.Errorf("Cannot send event type '%s': The run has already finished with 'RUN_FINISHED'. Start a new run with 'RUN_STARTED'", ev.Type)
	}
	if !v.runActive && !v.finished && !v.errored && ev.Type != RunStarted && ev.Type != RunError {
		return fmt.Errorf("First event must be 'RUN_STARTED', got '%s'", ev.Type)
	}
	if err := v.checkAttribution(ev); err != nil {
		return err
	}
	switch ev.Type {
	case RunStarted:
		if v.runActive {
			return fmt.Errorf("Cannot send 'RUN_STARTED' while a run is still active")
		}
		thread := ev.Str("threadId")
		switch {
		case v.ThreadID != "" && thread != v.ThreadID:
			if err := v.broke(RuleOneThread, "every run must carry the input's threadId %q, got %q", v.ThreadID, thread); err != nil {
				return err
			}
		case v.threadID != "" && thread != v.threadID:
			if err := v.broke(RuleOneThread, "a second run on another thread: every run carries the input's threadId %q, got %q", v.threadID, thread); err != nil {
				return err
			}
		}
		v.reset()
		v.started, v.runActive, v.finished, v.errored = true, true, false, false
		v.runID, v.threadID = ev.Str("runId"), thread
	case RunFinished:
		if open := v.openItems(); open != "" {
			return fmt.Errorf("Cannot send 'RUN_FINISHED' while %s", open)
		}
		if id := ev.Str("runId"); id != v.runID {
			if err := v.broke(RuleFinishedRunID, "RUN_STARTED and RUN_FINISHED must agree on their runId: started %q, finished %q", v.runID, id); err != nil {
				return err
			}
		}
		if t := ev.Str("threadId"); t != v.threadID {
			if err := v.broke(RuleFinishedThreadID, "RUN_FINISHED must carry the input's threadId %q, got %q", v.threadID, t); err != nil {
				return err
			}
		}
		if err := v.checkOutcome(ev); err != nil {
			return err
		}
		v.runActive, v.finished = false, true
	case RunError:
		v.runActive, v.errored, v.finished = false, true, false
	case StepStarted:
		return open(&v.steps, ev.Str("stepName"), "Step", "already active")
	case StepFinished:
		return closeItem(v.steps, ev.Str("stepName"), "Cannot send 'STEP_FINISHED' for step '%s' that was not started")
	case TextMessageStart:
		return open(&v.messages, ev.Str("messageId"), "Text message", "already in progress")
	case TextMessageContent, TextMessageEnd:
		return continueItem(v.messages, ev.Str("messageId"), ev.Type, "text message", ev.Type == TextMessageEnd)
	case ToolCallStart:
		return open(&v.tools, ev.Str("toolCallId"), "Tool call", "already in progress")
	case ToolCallArgs, ToolCallEnd:
		return continueItem(v.tools, ev.Str("toolCallId"), ev.Type, "tool call", ev.Type == ToolCallEnd)
	case ReasoningStart:
		return open(&v.spans, ev.Str("messageId"), "Reasoning span", "already active")
	case ReasoningEnd:
		return closeItem(v.spans, ev.Str("messageId"), "Cannot send 'REASONING_END': No active reasoning span found with ID '%s'")
	case ReasoningMessageStart:
		return open(&v.reasonings, ev.Str("messageId"), "Reasoning message", "already in progress")
	case ReasoningMessageContent, ReasoningMessageEnd:
		return continueItem(v.reasonings, ev.Str("messageId"), ev.Type, "reasoning message", ev.Type == ReasoningMessageEnd)
	case SubagentStarted:
		return open(&v.subagents, ev.Str("subagentRunId"), "Subagent run", "already active")
	case SubagentFinished, SubagentError:
		return closeItem(v.subagents, ev.Str("subagentRunId"), "Cannot send '"+ev.Type+"': subagent run '%s' was not started")
	}
	return nil
}

// entityOf returns the stream an event of an entity with an id opens, continues or
// closes (a text message, a tool call, a reasoning message), in its content form.
func entityOf(typ string) (StreamedType, bool) {
	for _, s := range streamedTypes {
		if !s.Chunk && s.IDField != "" && (typ == s.Type || typ == s.Start || typ == s.End) {
			return s, true
		}
	}
	return StreamedType{}, false
}

// checkAttribution rejects an event whose subagentRunId differs from the one its entity
// was opened with (without one: the parent agent), and a tool call whose subagentRunId
// differs from its parent message's: a tool call belongs to the message that carries it.
func (v *RuleChecker) checkAttribution(ev Event) error {
	sa := ev.Str("subagentRunId")
	if parent := ev.Str("parentMessageId"); ev.Type == ToolCallStart && sa != "" && parent != "" {
		if owner, ok := v.owners[entityKey{TextStream, parent}]; ok && sa != owner {
			return fmt.Errorf("subagentRunId %q does not match %s, the owner of its parent message %q: a tool call belongs to the message that carries it", sa, ownerName(owner), parent)
		}
	}
	s, ok := entityOf(ev.Type)
	if !ok {
		return nil
	}
	key := entityKey{s.Family, ev.Str(s.IDField)}
	if ev.Type == s.Start {
		if v.owners == nil {
			v.owners = map[entityKey]string{}
		}
		v.owners[key] = sa
		return nil
	}
	if owner, ok := v.owners[key]; ok && sa != "" && sa != owner {
		return fmt.Errorf("subagentRunId %q does not match %s, the subagent run that opened it", sa, ownerName(owner))
	}
	return nil
}

// entityKey names an entity that events open and close: its family and id.
type entityKey struct {
	family StreamFamily
	id     string
}

// ownerName names the owner of an entity as errors say it: its subagentRunId quoted, or
// the parent agent.
func ownerName(subagentRunID string) string {
	if subagentRunID == "" {
		return "the parent agent"
	}
	return strconv.Quote(subagentRunID)
}

func (v *RuleChecker) openItems() string {
	var parts []string
	describe := func(set map[string]bool, what string) {
		if len(set) > 0 {
			ids := make([]string, 0, len(set))
			for id := range set {
				ids = append(ids, "'"+id+"'")
			}
			slices.Sort(ids)
			parts = append(parts, fmt.Sprintf("%s are still active (%s)", what, strings.Join(ids, ", ")))
		}
	}
	describe(v.messages, "text messages")
	describe(v.tools, "tool calls")
	describe(v.steps, "steps")
	describe(v.spans, "reasoning spans")
	describe(v.reasonings, "reasoning messages")
	describe(v.subagents, "subagent runs")
	return strings.Join(parts, "; ")
}

func (v *RuleChecker) checkOutcome(ev Event) error {
	raw, ok := ev.Get("outcome")
	if !ok {
		return nil
	}
	o, isObj := raw.(map[string]any)
	if !isObj {
		return fmt.Errorf("outcome: expected object, received %s", strings.TrimPrefix(jsonKind(raw), "an "))
	}
	switch o["type"] {
	case "success":
		if ids, has := o["pendingToolCallIds"]; has {
			if _, isList := ids.([]any); !isList {
				return fmt.Errorf("outcome.pendingToolCallIds: expected an array of strings")
			}
		}
	case "cancelled":
	case "interrupt":
		list, _ := o["interrupts"].([]any)
		if len(list) == 0 {
			return fmt.Errorf("outcome.interrupts: an interrupt outcome needs at least one interrupt")
		}
		seen := map[string]bool{}
		for i, item := range list {
			in, _ := item.(map[string]any)
			id, _ := in["id"].(string)
			reason, _ := in["reason"].(string)
			if id == "" || reason == "" {
				return fmt.Errorf("outcome.interrupts[%d]: an interrupt needs a string id and reason", i)
			}
			if seen[id] {
				if err := v.broke(RuleUniqueInterruptIDs, "outcome.interrupts: two interrupts carrying the id '%s'", id); err != nil {
					return err
				}
			}
			seen[id] = true
			for _, f := range []string{"message", "toolCallId", "expiresAt"} {
				if x, has := in[f]; has {
					if _, isStr := x.(string); !isStr {
						return fmt.Errorf("outcome.interrupts[%d].%s: expected a string", i, f)
					}
				}
			}
			for _, f := range []string{"responseSchema", "metadata"} {
				if x, has := in[f]; has {
					if _, isMap := x.(map[string]any); !isMap {
						return fmt.Errorf("outcome.interrupts[%d].%s: expected an object", i, f)
					}
				}
			}
		}
	default:
		v.Warnings = append(v.Warnings, SequenceError{Index: v.index, Type: RunFinished, Message: fmt.Sprintf("unknown outcome type %v is stripped by 1.x clients", o["type"])})
	}
	return nil
}

func open(set *map[string]bool, id, what, already string) error {
	if (*set)[id] {
		return fmt.Errorf("%s '%s' is %s", what, id, already)
	}
	if *set == nil {
		*set = map[string]bool{}
	}
	(*set)[id] = true
	return nil
}

// continueItem checks that an event continues an open item, which its end event closes.
func continueItem(set map[string]bool, id, typ, what string, end bool) error {
	if !set[id] {
		return fmt.Errorf("Cannot send '%s': No active %s found with ID '%s'", typ, what, id)
	}
	if end {
		delete(set, id)
	}
	return nil
}

func closeItem(set map[string]bool, id, format string) error {
	if !set[id] {
		return fmt.Errorf(format, id)
	}
	delete(set, id)
	return nil
}

// Closers returns the events that close everything the stream has open, so that a run
// cut short can still end with RUN_FINISHED. An open chunk stream needs none: the
// terminal event closes it.
func (v *RuleChecker) Closers() []Event {
	var out []Event
	add := func(set map[string]bool, typ, field string, chunk StreamFamily) {
		ids := make([]string, 0, len(set))
		for id := range set {
			if !(chunk != "" && v.chunk.family == chunk && v.chunk.id == id) {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		for _, id := range ids {
			out = append(out, NewEvent(typ, field, id))
		}
	}
	add(v.tools, ToolCallEnd, "toolCallId", ToolArgsStream)
	add(v.messages, TextMessageEnd, "messageId", TextStream)
	add(v.reasonings, ReasoningMessageEnd, "messageId", ReasoningStream)
	add(v.spans, ReasoningEnd, "messageId", "")
	add(v.steps, StepFinished, "stepName", "")
	return out
}
