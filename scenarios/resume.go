package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// The rules of interrupts and resume live here: whether a run continues its thread's
// paused conversation (Continue), whether its answers are acceptable (CheckAnswers), and
// which branch each answer plays (branchCase.holds, choose).

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
		return Start{Resume: cursor, answers: resume}, true, nil
	}
	if len(resume) > 0 {
		return Start{}, false, &NoPendingInterruptsError{ThreadID: in.ThreadID, ByCommand: len(in.Resume) == 0}
	}
	if cursor != nil && protocol.IsContinuation(in, cursor.toolCallIDs()) {
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
