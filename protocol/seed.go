package protocol

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// SeededThread is a conversation a test gives the mock to start from, as if its runs had
// been played: the thread a CopilotKit app restores after a reload. Its runs become the
// events a runtime would have kept of them (Events), so that a client that reconnects
// gets them as it would from a real one.
type SeededThread struct {
	ThreadID string
	Agent    string // "" for the runtime's default agent
	Runs     []SeededRun
	// LangGraph says the last run's interrupts were raised in the LangGraph dialect: as
	// on_interrupt custom events before a plain RUN_FINISHED.
	LangGraph bool
	// Scenario names the scenario that answers the thread's next run; "" when the
	// request's match chooses it, as for any other run.
	Scenario string
}

// SeededRun is one run of a seeded thread.
type SeededRun struct {
	RunID string
	// Messages are the run's messages in order: what its client sent (user, system and
	// developer messages, results of an earlier run's tool calls) and what its agent
	// answered (assistant messages and their tool calls, results of those calls).
	Messages []Message
	State    any // the state at the run's end; nil when the run said none
	// Error, when set, is the RUN_ERROR the run ended with: its message and code.
	Error map[string]any
	// Interrupts are what the run, the last one, ended waiting for.
	Interrupts []map[string]any
}

// seededRoles are the roles a seeded message may have.
var seededRoles = []string{"user", "system", "developer", "assistant", "tool"}

// DecodeSeededThread reads a seeded thread from its decoded JSON body:
//
//	{threadId, agent?, messages | runs, state?, interrupts?, error?, dialect?, scenario?}
//
// where messages is the whole conversation, cut into runs at each user message, and runs
// lists them one by one ({runId?, messages, state?, error?, interrupts?}). Messages are
// checked as a RunAgentInput's are (a missing id is minted by newID). The thread's
// events must follow the protocol's rules: the error names the member at fault, such as
// runs[1].messages[2].toolCallId, and says why.
func DecodeSeededThread(v any, newID func(kind string) string) (*SeededThread, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, &InputError{Problem: "the body must be a JSON object (a seeded thread), got " + jsonKind(v)}
	}
	if err := onlyMembers(obj, "", "threadId", "agent", "messages", "runs", "state", "interrupts", "error", "dialect", "scenario"); err != nil {
		return nil, err
	}
	t := &SeededThread{}
	var err error
	if t.ThreadID, err = seedString(obj, "", "threadId", true); err != nil {
		return nil, err
	}
	if t.Agent, err = seedString(obj, "", "agent", false); err != nil {
		return nil, err
	}
	if t.Scenario, err = seedString(obj, "", "scenario", false); err != nil {
		return nil, err
	}
	dialect, err := seedString(obj, "", "dialect", false)
	if err != nil {
		return nil, err
	}
	switch dialect {
	case "", "agui":
	case "langgraph":
		t.LangGraph = true
	default:
		return nil, &InputError{Field: "dialect", Problem: fmt.Sprintf("unknown dialect %q (agui or langgraph)", dialect)}
	}
	_, hasMessages := obj["messages"]
	_, hasRuns := obj["runs"]
	switch {
	case hasMessages && hasRuns:
		return nil, &InputError{Field: "runs", Problem: "give messages (the conversation, cut into runs at each user message) or runs, not both"}
	case hasRuns:
		if t.Runs, err = seededRuns(obj, newID); err != nil {
			return nil, err
		}
		for _, key := range []string{"state", "interrupts", "error"} {
			if _, ok := obj[key]; ok {
				return nil, &InputError{Field: key, Problem: "with runs, give " + key + " on the run it belongs to"}
			}
		}
	default:
		msgs, err := seededMessages(obj, "", newID)
		if err != nil {
			return nil, err
		}
		last := SeededRun{}
		for _, m := range msgs {
			if m.Role == "user" && hasAnswer(last.Messages) {
				t.Runs = append(t.Runs, last)
				last = SeededRun{}
			}
			last.Messages = append(last.Messages, m)
		}
		if err := runEnding(obj, "", &last); err != nil {
			return nil, err
		}
		t.Runs = append(t.Runs, last)
	}
	for i := range t.Runs {
		if t.Runs[i].RunID == "" {
			t.Runs[i].RunID = t.ThreadID + "-seeded-run-" + strconv.Itoa(i+1)
		}
	}
	if _, err := t.Events(); err != nil {
		return nil, err
	}
	return t, nil
}

// hasAnswer reports whether a run's messages hold one of its agent's.
func hasAnswer(msgs []Message) bool {
	return slices.ContainsFunc(msgs, func(m Message) bool { return m.Role == "assistant" })
}

// seededRuns reads the runs member.
func seededRuns(obj map[string]any, newID func(string) string) ([]SeededRun, error) {
	list, ok := obj["runs"].([]any)
	if !ok || len(list) == 0 {
		return nil, &InputError{Field: "runs", Problem: "expected a non-empty array of runs ({messages, state?, error?, interrupts?})"}
	}
	runs := make([]SeededRun, 0, len(list))
	for i, item := range list {
		path := indexed("runs", i)
		r, ok := item.(map[string]any)
		if !ok {
			return nil, &InputError{Field: path, Problem: "expected a run object, got " + jsonKind(item)}
		}
		if err := onlyMembers(r, path, "runId", "messages", "state", "error", "interrupts"); err != nil {
			return nil, err
		}
		run := SeededRun{}
		var err error
		if run.RunID, err = seedString(r, path, "runId", false); err != nil {
			return nil, err
		}
		if run.Messages, err = seededMessages(r, path, newID); err != nil {
			return nil, err
		}
		if err := runEnding(r, path, &run); err != nil {
			return nil, err
		}
		if len(run.Interrupts) > 0 && i < len(list)-1 {
			return nil, &InputError{Field: path + ".interrupts", Problem: "only the last run can end waiting for interrupts: a later run would have answered them"}
		}
		runs = append(runs, run)
	}
	return runs, nil
}

// seededMessages reads the messages member of obj, checked as a run input's are.
func seededMessages(obj map[string]any, path string, newID func(string) string) ([]Message, error) {
	raw, ok := obj["messages"]
	if !ok {
		return nil, &InputError{Field: join(path, "messages"), Problem: "required, but missing"}
	}
	d := inputDecoder{opts: DecodeOptions{NewID: newID}}
	msgs := d.messages(map[string]any{"messages": raw})
	if d.err != nil {
		return nil, &InputError{Field: join(path, d.err.Field), Problem: d.err.Problem}
	}
	for i, m := range msgs {
		if !slices.Contains(seededRoles, m.Role) {
			return nil, &InputError{Field: join(path, indexed("messages", i)+".role"),
				Problem: fmt.Sprintf("a seeded message's role is one of %s, not %q", strings.Join(seededRoles, ", "), m.Role)}
		}
	}
	return msgs, nil
}

// runEnding reads how a run ended: its state, its error, its interrupts.
func runEnding(obj map[string]any, path string, run *SeededRun) error {
	if s, ok := obj["state"]; ok && s != nil {
		run.State = s
	}
	if e, ok := obj["error"]; ok {
		errObj, ok := e.(map[string]any)
		if !ok {
			return &InputError{Field: join(path, "error"), Problem: "expected {message, code?}, got " + jsonKind(e)}
		}
		if _, err := seedString(errObj, join(path, "error"), "message", true); err != nil {
			return err
		}
		if _, err := seedString(errObj, join(path, "error"), "code", false); err != nil {
			return err
		}
		run.Error = errObj
	}
	if is, ok := obj["interrupts"]; ok {
		list, ok := is.([]any)
		if !ok {
			return &InputError{Field: join(path, "interrupts"), Problem: "expected an array of interrupts ({id, reason?, message?, …}), got " + jsonKind(is)}
		}
		for i, it := range list {
			in, ok := it.(map[string]any)
			if !ok {
				return &InputError{Field: join(path, indexed("interrupts", i)), Problem: "expected an interrupt object, got " + jsonKind(it)}
			}
			run.Interrupts = append(run.Interrupts, in)
		}
	}
	if run.Error != nil && len(run.Interrupts) > 0 {
		return &InputError{Field: join(path, "interrupts"), Problem: "a run that ended with an error waits for nothing: give error or interrupts, not both"}
	}
	return nil
}

// seedString reads a string member; a required one must be there and not empty.
func seedString(obj map[string]any, path, key string, required bool) (string, error) {
	v, ok := obj[key]
	if !ok || v == nil {
		if required {
			return "", &InputError{Field: join(path, key), Problem: "required, but missing"}
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", &InputError{Field: join(path, key), Problem: "expected a string, got " + jsonKind(v)}
	}
	if required && s == "" {
		return "", &InputError{Field: join(path, key), Problem: "must not be empty"}
	}
	return s, nil
}

// onlyMembers refuses a member of obj that is not one of known, naming the nearest.
func onlyMembers(obj map[string]any, path string, known ...string) error {
	for _, k := range sortedKeys(obj) {
		if !slices.Contains(known, k) {
			return &InputError{Field: join(path, k), Problem: "unknown member (one of " + strings.Join(known, ", ") + ")"}
		}
	}
	return nil
}

// Events are the thread's runs as the events a runtime would have kept of them, one list
// a run: RUN_STARTED with the messages its client sent as its input; each assistant
// message's text and tool calls; a result for each call answered within the run; a
// STATE_SNAPSHOT of its state; and its end — RUN_ERROR, RUN_FINISHED with the interrupts
// it waits for (or on_interrupt events before a plain RUN_FINISHED in the LangGraph
// dialect), or a plain RUN_FINISHED. The events are checked against the protocol's rules;
// a problem is an *InputError naming the seeded member at fault.
func (t *SeededThread) Events() ([][]Event, error) {
	calls := map[string]string{} // tool call id -> the run (by runs path) that made it
	seen := map[string]string{}  // message id -> its path
	out := make([][]Event, len(t.Runs))
	for i, run := range t.Runs {
		b := seedBuilder{runPath: t.runPath(i)}
		var input []any
		answers := false
		for j, m := range run.Messages {
			path := join(b.runPath, indexed("messages", j))
			if earlier, dup := seen[m.ID]; dup {
				return nil, &InputError{Field: path + ".id", Problem: fmt.Sprintf("message id %q is already the id of %s", m.ID, earlier)}
			}
			seen[m.ID] = path
			switch m.Role {
			case "assistant":
				answers = true
				b.assistant(m, path)
				for k, tc := range m.ToolCalls() {
					id := tc.ID
					if _, dup := calls[id]; dup {
						return nil, &InputError{Field: fmt.Sprintf("%s.toolCalls[%d].id", path, k), Problem: fmt.Sprintf("tool call id %q is used twice", id)}
					}
					calls[id] = b.runPath
				}
			case "tool":
				made, ok := calls[m.ToolCallID]
				switch {
				case !ok:
					return nil, &InputError{Field: path + ".toolCallId", Problem: fmt.Sprintf("no assistant message before it made a tool call %q", m.ToolCallID)}
				case made == b.runPath && answers:
					b.add(path, NewEvent(ToolCallResult, "messageId", m.ID, "toolCallId", m.ToolCallID, "content", m.Text(), "role", "tool"))
				default: // the answer to an earlier run's call: this run's client sent it
					input = append(input, m.Raw)
				}
			default:
				if answers {
					return nil, &InputError{Field: path + ".role", Problem: fmt.Sprintf("a %s message after the agent's answer in the same run: start another run for it", m.Role)}
				}
				input = append(input, m.Raw)
			}
		}
		started := NewEvent(RunStarted, "threadId", t.ThreadID, "runId", run.RunID, "input", map[string]any{
			"threadId": t.ThreadID, "runId": run.RunID, "state": map[string]any{}, "messages": input,
			"tools": []any{}, "context": []any{}, "forwardedProps": map[string]any{}})
		b.events = append([]Event{started}, b.events...)
		b.fields = append([]string{b.runPath}, b.fields...)
		if run.State != nil {
			b.add(join(b.runPath, "state"), NewEvent(StateSnapshot, "snapshot", run.State))
		}
		b.end(t, run)
		if err := b.verify(t.ThreadID); err != nil {
			return nil, err
		}
		out[i] = b.events
	}
	return out, nil
}

// runPath is how the problems of run i name it: runs[i], or nothing when the thread was
// given as one list of messages and this is its only run.
func (t *SeededThread) runPath(i int) string {
	if len(t.Runs) == 1 {
		return ""
	}
	return indexed("runs", i)
}

// seedBuilder writes one seeded run's events, each with the member it comes from.
type seedBuilder struct {
	runPath string
	events  []Event
	fields  []string
}

func (b *seedBuilder) add(field string, ev Event) {
	b.events = append(b.events, ev)
	b.fields = append(b.fields, field)
}

// assistant writes an assistant message: its text, then its tool calls.
func (b *seedBuilder) assistant(m Message, path string) {
	if text := m.Text(); text != "" {
		b.add(path, NewEvent(TextMessageStart, "messageId", m.ID, "role", "assistant"))
		b.add(path+".content", NewEvent(TextMessageContent, "messageId", m.ID, "delta", text))
		b.add(path, NewEvent(TextMessageEnd, "messageId", m.ID))
	}
	for k, c := range m.ToolCalls() {
		field := fmt.Sprintf("%s.toolCalls[%d]", path, k)
		b.add(field, NewEvent(ToolCallStart, "toolCallId", c.ID, "toolCallName", c.Name, "parentMessageId", m.ID))
		if c.Arguments != "" {
			b.add(field+".function.arguments", NewEvent(ToolCallArgs, "toolCallId", c.ID, "delta", c.Arguments))
		}
		b.add(field, NewEvent(ToolCallEnd, "toolCallId", c.ID))
	}
}

// end writes how the run ended.
func (b *seedBuilder) end(t *SeededThread, run SeededRun) {
	switch {
	case run.Error != nil:
		ev := NewEvent(RunError, "message", run.Error["message"])
		if code, ok := run.Error["code"]; ok {
			ev = ev.With("code", code)
		}
		b.add(join(b.runPath, "error"), ev)
	case len(run.Interrupts) > 0 && t.LangGraph:
		for i, in := range run.Interrupts {
			value, _ := json.Marshal(in)
			b.add(join(b.runPath, indexed("interrupts", i)), NewEvent(Custom, "name", OnInterrupt, "value", string(value)))
		}
		b.add(b.runPath, NewEvent(RunFinished, "threadId", t.ThreadID, "runId", run.RunID))
	case len(run.Interrupts) > 0:
		interrupts := make([]any, len(run.Interrupts))
		for i, in := range run.Interrupts {
			interrupts[i] = in
		}
		b.add(join(b.runPath, "interrupts"), NewEvent(RunFinished, "threadId", t.ThreadID, "runId", run.RunID,
			"outcome", map[string]any{"type": "interrupt", "interrupts": interrupts}))
	default:
		b.add(b.runPath, NewEvent(RunFinished, "threadId", t.ThreadID, "runId", run.RunID))
	}
}

// verify checks the run's events against the protocol's rules, and names the seeded
// member of the first event that breaks one.
func (b *seedBuilder) verify(threadID string) error {
	v := RuleChecker{ThreadID: threadID}
	for i, ev := range b.events {
		if err := v.Check(ev); err != nil {
			return &InputError{Field: b.fields[i], Problem: seedProblem(err)}
		}
	}
	if err := v.End(); err != nil {
		return &InputError{Field: b.runPath, Problem: seedProblem(err)}
	}
	return nil
}

// seedProblem says a rule the seeded thread breaks in its own words, without the place
// in a stream the seed never had.
func seedProblem(err error) string {
	if se, ok := err.(*SequenceError); ok {
		return "it breaks the protocol's rules: " + se.Message
	}
	return "it breaks the protocol's rules: " + err.Error()
}
