package scenarios

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agui-mock/agui-mock/protocol"
)

// A scenario can span several runs of one thread. A run pauses at an interrupt step, or
// after frontend tool calls when more steps follow; the thread keeps a Cursor, and the
// next run continues from it with the branch each answer chooses.
//
// The rules of interrupts and resume live here, for both forms of scenario: where a run
// pauses (pause, pauseExplicit), whether a run continues its thread's paused
// conversation (Continue), whether its answers are acceptable (CheckAnswers), which
// branch each answer plays (branchCase.holds: choose for steps, eventsBranch.matches for
// recorded continuations) and what the continuation's templates see of the answers
// (answerData).

// PendingInterrupt is an interrupt a paused thread waits on.
type PendingInterrupt struct {
	ID         string
	ToolCallID string
	ExpiresAt  time.Time      // zero when it does not expire
	Wire       map[string]any // the interrupt as sent in RUN_FINISHED
	def        *interruptDef
	schema     *jsonschema.Schema // its responseSchema; nil when it has none
}

// PendingToolCall is a frontend tool call a paused thread waits on.
type PendingToolCall struct {
	ID   string
	Name string
	def  *toolStep
}

// Cursor is where a paused conversation continues: the steps left to play, the ids and
// captures of its earlier runs, and what it waits for.
type Cursor struct {
	Scenario   *Scenario // nil for a seeded thread's pause that no scenario continues (SeededPause)
	Dialect    Dialect   // the interrupts were raised in it, which says how they are answered
	Interrupts []PendingInterrupt
	ToolCalls  []PendingToolCall
	frames     []frame    // the steps form: what is left to play
	node       *eventsRun // the explicit form: the run whose continuations follow
	captures   map[string]string
	ids        map[string]string
	openCalls  map[string]bool
	activities map[string]string
	lastTexts  map[string]string
}

// Awaiting is the number of interrupts the conversation waits answers to, in either
// dialect; 0 when there is no conversation to continue. A run that leaves some pauses,
// whatever its outcome says: a LangGraph-dialect run finishes as success.
func (c *Cursor) Awaiting() int {
	if c == nil {
		return 0
	}
	return len(c.Interrupts)
}

// frame is a list of steps being played and the answer its templates see; the
// children of a subagent step, with the invocation they play inside.
type frame struct {
	steps    []step
	next     int
	answer   map[string]any
	subagent *invocation
}

// pause records where the conversation continues.
func (p *planner) pause(stack []frame) {
	p.next = &Cursor{
		Dialect:    p.dialect,
		Interrupts: p.interrupts,
		ToolCalls:  p.pendingTools,
		frames:     cloneFrames(stack),
		captures:   p.captures,
		ids:        maps.Clone(p.ids),
		openCalls:  maps.Clone(p.openCalls),
		activities: maps.Clone(p.activityTypes),
		lastTexts:  maps.Clone(p.lastTexts),
	}
}

// pauseExplicit reads what a recorded run waits for from its events: the interrupts of
// its outcome, with the responseSchema each was sent with, or the tool calls it left
// without a result.
func (p *planner) pauseExplicit(run *eventsRun) error {
	c := &Cursor{Dialect: p.dialect, node: run, captures: p.captures, ids: maps.Clone(p.ids), openCalls: maps.Clone(p.openCalls), activities: maps.Clone(p.activityTypes)}
	interrupts, calls := protocol.Awaited(p.events, func(t Timed) protocol.Event { return t.Event })
	for _, wire := range interrupts {
		pi, expires := pendingInterrupt(wire)
		if !expires.IsZero() {
			pi.ExpiresAt = p.wallTime(expires)
		}
		if schema, ok := wire["responseSchema"]; ok && len(run.events) > 0 {
			var err error
			end := run.events[len(run.events)-1].at
			if pi.schema, err = compileRecordedSchema(end, schema); err != nil {
				return &stepError{at: end, err: fmt.Errorf("interrupt %q: %w", pi.ID, err)}
			}
		}
		c.Interrupts = append(c.Interrupts, pi)
	}
	for _, start := range calls {
		c.ToolCalls = append(c.ToolCalls, PendingToolCall{ID: start.Str("toolCallId"), Name: start.Str("toolCallName")})
	}
	p.next = c
	return nil
}

// pendingInterrupt is an interrupt as a run raised it, wire, with the time it expires at
// as it says it (zero when it does not expire).
func pendingInterrupt(wire map[string]any) (PendingInterrupt, time.Time) {
	pi := PendingInterrupt{Wire: wire}
	pi.ID, _ = wire["id"].(string)
	pi.ToolCallID, _ = wire["toolCallId"].(string)
	var expires time.Time
	if at, ok := wire["expiresAt"].(string); ok {
		expires, _ = time.Parse(time.RFC3339Nano, at)
	}
	return pi, expires
}

func cloneFrames(frames []frame) []frame {
	out := make([]frame, len(frames))
	copy(out, frames)
	return out
}

// Continue decides how a run of a thread starts. cursor is where the thread's
// conversation paused, nil when it waits for nothing; now is when the run starts, for
// interrupt expiry. When the run continues the conversation, Continue returns its Start
// and true. When it starts afresh — nothing is paused, or the client moved on without
// the results of the pending frontend tool calls — it returns false, and the scenario
// set picks what the run plays. A request that cannot be played gets a typed error:
// *InterruptsPendingError, *NoPendingInterruptsError or *AnswerError.
//
// A run answers interrupts in its resume, or, in the LangGraph dialect's way, in a
// command (forwardedProps.command.resume): one resolved answer, whose payload is the
// command's resume value (see commandAnswer). Either way of answering is taken whatever
// the dialect the interrupts were raised in, as LangGraph's AG-UI bridge takes both.
func Continue(cursor *Cursor, in *protocol.RunAgentInput, now time.Time) (Start, bool, error) {
	resume := in.Resume
	if len(resume) == 0 && in.Command != nil {
		resume = []protocol.ResumeEntry{commandAnswer(cursor, in.Command)}
	}
	if cursor != nil && len(cursor.Interrupts) > 0 {
		if len(resume) == 0 {
			return Start{}, false, &InterruptsPendingError{Pending: cursor.Interrupts, Dialect: cursor.Dialect}
		}
		if err := cursor.CheckAnswers(resume, now); err != nil {
			return Start{}, false, err
		}
		if cursor.Scenario == nil { // a seeded pause: answered, the run starts afresh
			return Start{}, false, nil
		}
		return Start{Resume: cursor, answers: resume}, true, nil
	}
	if len(resume) > 0 {
		return Start{}, false, &NoPendingInterruptsError{ThreadID: in.ThreadID, ByCommand: len(in.Resume) == 0}
	}
	if cursor != nil && cursor.Scenario != nil && protocol.IsContinuation(in, cursor.toolCallIDs()) {
		return Start{Resume: cursor}, true, nil
	}
	return Start{}, false, nil
}

// commandAnswer is the resume entry a LangGraph command stands for: it resolves the
// interrupt whose on_interrupt value it names in interruptEvent (by the id in it), or
// else the first one the thread waits for, with the command's resume as its payload.
func commandAnswer(cursor *Cursor, cmd *protocol.Command) protocol.ResumeEntry {
	event, _ := cmd.InterruptEvent.(map[string]any)
	id, _ := event["id"].(string)
	if id == "" && cursor != nil && len(cursor.Interrupts) > 0 {
		id = cursor.Interrupts[0].ID
	}
	return cmd.Answer(id)
}

// toolCallIDs lists the ids of the frontend tool calls the cursor waits for.
func (c *Cursor) toolCallIDs() []string {
	ids := make([]string, len(c.ToolCalls))
	for i, tc := range c.ToolCalls {
		ids[i] = tc.ID
	}
	return ids
}

// InterruptsPendingError is a run on a thread that waits for answers to interrupts,
// and that brings none.
type InterruptsPendingError struct {
	Pending []PendingInterrupt
	Dialect Dialect // the one they were raised in, which says how to answer them
}

// Error says how many interrupts wait, and how to answer them.
func (e *InterruptsPendingError) Error() string {
	if e.Dialect == DialectLangGraph {
		return fmt.Sprintf("the thread waits for an answer to %d interrupt(s) raised as on_interrupt events; send it in forwardedProps.command.resume (or answer each in resume)", len(e.Pending))
	}
	return fmt.Sprintf("the thread waits for answers to %d interrupt(s); send them in resume (status resolved or cancelled)", len(e.Pending))
}

// NoPendingInterruptsError is a run that answers interrupts on a thread that waits for
// none.
type NoPendingInterruptsError struct {
	ThreadID  string
	ByCommand bool // the answer came in forwardedProps.command.resume
}

// Error names the thread that waits for no answer.
func (e *NoPendingInterruptsError) Error() string {
	what := "resume answers interrupts"
	if e.ByCommand {
		what = "forwardedProps.command.resume answers an interrupt"
	}
	return what + ", but none is pending on thread " + strconv.Quote(e.ThreadID)
}

// AnswerError is a resume that does not answer the pending interrupts properly.
type AnswerError struct {
	Code        string // interrupt_not_answered, unknown_interrupt, duplicate_answer, interrupt_expired, invalid_payload
	InterruptID string
	Message     string
	// Pending are the interrupts the thread waits for, as the client should answer them.
	Pending []PendingInterrupt
}

// Error is the message the client gets.
func (e *AnswerError) Error() string { return e.Message }

// CheckAnswers verifies a run input's resume entries against the pending interrupts the
// way an agent would: every interrupt answered exactly once, no unknown ids, no
// resolution of an expired interrupt, and payloads that satisfy the responseSchema.
func (c *Cursor) CheckAnswers(resume []protocol.ResumeEntry, now time.Time) error {
	pending := map[string]PendingInterrupt{}
	for _, pi := range c.Interrupts {
		pending[pi.ID] = pi
	}
	answered := map[string]bool{}
	for _, r := range resume {
		pi, ok := pending[r.InterruptID]
		if !ok {
			return &AnswerError{Code: "unknown_interrupt", InterruptID: r.InterruptID, Pending: c.Interrupts,
				Message: fmt.Sprintf("resume answers interrupt %q, which is not pending on this thread (pending: %s)", r.InterruptID, strings.Join(slices.Sorted(maps.Keys(pending)), ", "))}
		}
		if answered[r.InterruptID] {
			return &AnswerError{Code: "duplicate_answer", InterruptID: r.InterruptID, Pending: c.Interrupts, Message: fmt.Sprintf("resume answers interrupt %q twice", r.InterruptID)}
		}
		answered[r.InterruptID] = true
		if r.Status == protocol.ResumeResolved && !pi.ExpiresAt.IsZero() && !now.Before(pi.ExpiresAt) {
			return &AnswerError{Code: "interrupt_expired", InterruptID: r.InterruptID, Pending: c.Interrupts,
				Message: fmt.Sprintf("interrupt %q expired at %s and can only be cancelled", r.InterruptID, pi.ExpiresAt.UTC().Format(time.RFC3339))}
		}
		if r.Status == protocol.ResumeResolved && pi.schema != nil {
			// An absent payload (it is optional) is checked as an empty object: it answers
			// a schema whose members are all optional, not one that requires some.
			payload, what := r.Payload, fmt.Sprintf("the payload for interrupt %q does not satisfy", r.InterruptID)
			if payload == nil {
				payload = map[string]any{}
				what = fmt.Sprintf("the answer resolving interrupt %q has no payload (checked as an empty object), which does not satisfy", r.InterruptID)
			}
			if err := pi.schema.Validate(payload); err != nil {
				return &AnswerError{Code: "invalid_payload", InterruptID: r.InterruptID, Pending: c.Interrupts,
					Message: fmt.Sprintf("%s its responseSchema: %s", what, schemaProblem(err))}
			}
		}
	}
	for _, pi := range c.Interrupts {
		if !answered[pi.ID] {
			return &AnswerError{Code: "interrupt_not_answered", InterruptID: pi.ID, Pending: c.Interrupts,
				Message: fmt.Sprintf("resume does not answer pending interrupt %q; every pending interrupt needs an answer", pi.ID)}
		}
	}
	return nil
}

// holds reports whether an answer meets a case's conditions: an interrupt's status and
// payload, or the text of a frontend tool's result. A condition a case leaves out holds
// for every answer.
func (bc branchCase) holds(status string, payload any, content string) bool {
	return (bc.status == "" || bc.status == status) &&
		(bc.payload == nil || subset(payload, bc.payload)) &&
		(bc.content == nil || bc.content.MatchString(content))
}

// choose picks the steps of the first case whose conditions hold for an answer.
func choose(cases []branchCase, status string, payload any, content string) []step {
	for _, bc := range cases {
		if bc.holds(status, payload, content) {
			return bc.steps
		}
	}
	return nil
}

// answers lines up a continuing run's answers with what the cursor waits for, in the
// order it was raised: the resume entry of each pending interrupt (from given, the
// answers Continue accepted), and the result of each pending frontend tool call in the
// run's input. The results are all empty unless the run brings every one of them, as
// when it continues by its answers to interrupts alone.
func (c *Cursor) answers(given []protocol.ResumeEntry, in *protocol.RunAgentInput) (resume []protocol.ResumeEntry, results []string) {
	resume = make([]protocol.ResumeEntry, len(c.Interrupts))
	byID := make(map[string]protocol.ResumeEntry, len(given))
	for _, r := range given {
		byID[r.InterruptID] = r
	}
	for i, pi := range c.Interrupts {
		resume[i] = byID[pi.ID]
	}
	results = make([]string, len(c.ToolCalls))
	brought := protocol.ToolResults(in)
	for i, tc := range c.ToolCalls {
		content, ok := brought[tc.ID]
		if !ok {
			clear(results)
			break
		}
		results[i] = content
	}
	return resume, results
}

// branchChoice forces the branch one pending item plays, whatever its answer chooses;
// loading uses it to try every branch of a conversation.
type branchChoice struct {
	item   pendingItem
	index  int // the item's index among the pending interrupts or tool calls
	branch int // the index of the case, or of the recorded continuation, played
}

// pendingItem is the kind of item a paused run waits for.
type pendingItem int

const (
	recordedRun pendingItem = iota + 1 // the explicit form: the continuation recorded next
	interruptItem
	toolCallItem
)

// forces returns the branch forced for the index-th pending item of a kind, if any. A
// nil choice forces nothing.
func (f *branchChoice) forces(item pendingItem, index int) (int, bool) {
	if f == nil || f.item != item || f.index != index {
		return 0, false
	}
	return f.branch, true
}

// continuation builds the frames a resumed run plays: each answered item's branch, in
// the order the items were raised, then the steps that followed the pause.
func (p *planner) continuation(start Start, in *protocol.RunAgentInput) []frame {
	c, forced := start.Resume, start.forced
	stack := cloneFrames(c.frames)
	var branches []frame
	answers, contents := c.answers(start.answers, in)
	each, resume := c.answerData(answers, contents)
	p.r.setResume(resume)
	for i, pi := range c.Interrupts {
		r := answers[i]
		steps := choose(pi.def.cases, r.Status, r.Payload, "")
		if k, ok := forced.forces(interruptItem, i); ok {
			steps = pi.def.cases[k].steps
		}
		branches = append(branches, frame{steps: steps, answer: each[i]})
	}
	for i, tc := range c.ToolCalls {
		steps := choose(tc.def.cases, "", nil, contents[i])
		if k, ok := forced.forces(toolCallItem, i); ok {
			steps = tc.def.cases[k].steps
		}
		branches = append(branches, frame{steps: steps, answer: each[len(c.Interrupts)+i]})
	}
	// the steps after the pause see the answer to the last item, which for the usual
	// single interrupt or tool call is the answer
	if len(stack) > 0 && len(branches) > 0 {
		stack[len(stack)-1].answer = branches[len(branches)-1].answer
	}
	slices.Reverse(branches)
	return append(stack, branches...)
}

// chooseContinuation picks the recorded continuation that the answers a resumed run
// brings lead to, and makes the answers available to its templates.
func (p *planner) chooseContinuation(c *Cursor, start Start, in *protocol.RunAgentInput) (*eventsRun, error) {
	answers, contents := c.answers(start.answers, in)
	each, resume := c.answerData(answers, contents)
	p.r.setResume(resume)
	if len(each) > 0 {
		p.r.setAnswer(each[len(each)-1])
	}
	if k, ok := start.forced.forces(recordedRun, 0); ok {
		return &c.node.next[k].run, nil
	}
	for i := range c.node.next {
		if b := &c.node.next[i]; b.matches(answers, contents) {
			return &b.run, nil
		}
	}
	return nil, &NoBranchError{Branches: len(c.node.next)}
}

// answerData is what a continuing run's templates read of its answers, the same for
// both forms. each holds the answer to every pending item, in the order the cursor
// waits for them, which .answer is while the item's branch plays: an interrupt's
// {interruptId, status, payload, toolCallId} (toolCallId when it is bound to a tool
// call), then a frontend tool call's {toolCallId, name, content}; the steps after the
// branches, and a recorded continuation, see the last one. resume, which .resume is,
// lists the interrupts' answers alone. answers and results are the cursor's answers
// (Cursor.answers).
func (c *Cursor) answerData(answers []protocol.ResumeEntry, results []string) (each []map[string]any, resume []any) {
	each = make([]map[string]any, 0, len(c.Interrupts)+len(c.ToolCalls))
	resume = make([]any, len(c.Interrupts))
	for i, pi := range c.Interrupts {
		r := answers[i]
		m := map[string]any{"interruptId": r.InterruptID, "status": r.Status, "payload": orEmpty(r.Payload)}
		if pi.ToolCallID != "" {
			m["toolCallId"] = pi.ToolCallID
		}
		each, resume[i] = append(each, m), m
	}
	for i, tc := range c.ToolCalls {
		each = append(each, map[string]any{"toolCallId": tc.ID, "name": tc.Name, "content": results[i]})
	}
	return each, resume
}

// eventsRun is a run of the explicit form and the runs that may continue it.
type eventsRun struct {
	events []eventStep
	next   []eventsBranch
	// stopped says why the run stops without a terminal event, when the client stopped
	// it while it was recorded: it is held open where its events end.
	stopped string
}

// eventsBranch is a continuation of an explicit run, chosen by the answers of the run
// that continues it: the status and payload of each interrupt, in order, and the text of
// each frontend tool result, in order. A recording keeps one branch per answer given.
type eventsBranch struct {
	at          pos
	resume      []branchCase
	toolResults []*regexp.Regexp
	run         eventsRun
}

// matches reports whether the answers choose this branch.
func (b eventsBranch) matches(resume []protocol.ResumeEntry, results []string) bool {
	for i, bc := range b.resume {
		if i >= len(resume) || !bc.holds(resume[i].Status, resume[i].Payload, "") {
			return false
		}
	}
	for i, re := range b.toolResults {
		if i >= len(results) || (re != nil && !re.MatchString(results[i])) {
			return false
		}
	}
	return true
}

// NoBranchError says that no recorded continuation matches the answers a run brings.
type NoBranchError struct{ Branches int }

// Error says how many recorded continuations there were.
func (e *NoBranchError) Error() string {
	return fmt.Sprintf("none of the %d recorded continuations matches these answers", e.Branches)
}
