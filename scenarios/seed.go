package scenarios

import (
	"context"
	"fmt"
	"slices"

	"github.com/agui-mock/agui-mock/protocol"
)

// A seeded thread (protocol.SeededThread) may end waiting: for answers to interrupts, or
// for the results of frontend tool calls. Its Cursor is where the thread continues:
// the pause of the scenario it names, reached by playing that scenario for the seeded
// conversation, with the seeded ids in place of those the scenario mints (SeedCursor);
// or, when it names none, a pause of no scenario, whose answers are checked as any
// others and after which the run's scenario is chosen afresh (SeededPause).

// SeededPause is where a seeded thread that names no scenario waits: its answers are
// checked (every interrupt answered once, none expired), and the run that brings them
// starts afresh.
func SeededPause(thread *protocol.SeededThread) *Cursor {
	c := &Cursor{}
	if thread.LangGraph {
		c.Dialect = DialectLangGraph
	}
	c.Interrupts, c.ToolCalls = awaitedBy(thread)
	if len(c.Interrupts) == 0 && len(c.ToolCalls) == 0 {
		return nil
	}
	return c
}

// awaitedBy reads what a seeded thread's last run waits for.
func awaitedBy(thread *protocol.SeededThread) ([]PendingInterrupt, []PendingToolCall) {
	events, err := thread.Events()
	if err != nil || len(events) == 0 {
		return nil, nil
	}
	interrupts, calls := protocol.Awaited(events[len(events)-1], func(ev protocol.Event) protocol.Event { return ev })
	var pending []PendingInterrupt
	for _, wire := range interrupts {
		pi, expires := pendingInterrupt(wire)
		pi.ExpiresAt = expires
		pending = append(pending, pi)
	}
	var tools []PendingToolCall
	if len(pending) == 0 {
		for _, start := range calls {
			tools = append(tools, PendingToolCall{ID: start.Str("toolCallId"), Name: start.Str("toolCallName")})
		}
	}
	return pending, tools
}

// SeedMismatchError says the scenario a seeded thread names does not pause where the
// thread waits.
type SeedMismatchError struct {
	Scenario string
	Problem  string
}

// Error says how the scenario and the thread differ.
func (e *SeedMismatchError) Error() string {
	return fmt.Sprintf("scenario %q cannot answer this thread's next run: %s", e.Scenario, e.Problem)
}

// SeedCursor is where a seeded thread continues in the scenario it names: nil when the
// thread waits for nothing (its next run plays the scenario from its start), else the
// pause the scenario reaches when played for the thread's last run, which must wait for
// as many interrupts, or for tool calls of the same names in the same order, as the
// thread does; the cursor then waits under the thread's ids. A scenario that is not
// loaded, or that pauses elsewhere, is an error: *SeedMismatchError, or
// *NoScenarioError.
func (s *Set) SeedCursor(ctx context.Context, thread *protocol.SeededThread, route string, opts PlanOptions) (*Cursor, error) {
	interrupts, calls := awaitedBy(thread)
	req := seededRequest(thread, route)
	sel := s.Force(thread.Scenario, req)
	if sel == nil {
		return nil, &SeedMismatchError{Scenario: thread.Scenario, Problem: "no scenario of that id is loaded"}
	}
	if len(interrupts) == 0 && len(calls) == 0 {
		return nil, nil
	}
	plan, err := sel.Scenario.Plan(ctx, req, Start{Captures: sel.Captures}, opts)
	if err != nil {
		return nil, &SeedMismatchError{Scenario: thread.Scenario, Problem: "playing it for the thread's last run failed: " + err.Error()}
	}
	next := plan.Next
	switch {
	case next == nil:
		return nil, &SeedMismatchError{Scenario: thread.Scenario, Problem: "its first run waits for nothing, and the thread waits for " + waitsFor(interrupts, calls)}
	case len(next.Interrupts) != len(interrupts) || len(next.ToolCalls) != len(calls):
		return nil, &SeedMismatchError{Scenario: thread.Scenario, Problem: "its first run waits for " + waitsFor(next.Interrupts, next.ToolCalls) + ", and the thread waits for " + waitsFor(interrupts, calls)}
	}
	for i, tc := range next.ToolCalls {
		if tc.Name != calls[i].Name {
			return nil, &SeedMismatchError{Scenario: thread.Scenario, Problem: fmt.Sprintf("its tool call %d is %q, and the thread's is %q", i+1, tc.Name, calls[i].Name)}
		}
	}
	return next.asSeeded(interrupts, calls), nil
}

// asSeeded is the cursor waiting under a seeded thread's ids: its interrupts as the
// thread raised them, its tool calls with the thread's ids.
func (c *Cursor) asSeeded(interrupts []PendingInterrupt, calls []PendingToolCall) *Cursor {
	out := *c
	out.Interrupts = slices.Clone(c.Interrupts)
	for i := range out.Interrupts {
		out.Interrupts[i].ID, out.Interrupts[i].ToolCallID = interrupts[i].ID, interrupts[i].ToolCallID
		out.Interrupts[i].Wire, out.Interrupts[i].ExpiresAt = interrupts[i].Wire, interrupts[i].ExpiresAt
	}
	rename := map[string]string{}
	out.ToolCalls = slices.Clone(c.ToolCalls)
	for i := range out.ToolCalls {
		rename[out.ToolCalls[i].ID] = calls[i].ID
		out.ToolCalls[i].ID = calls[i].ID
	}
	out.ids = make(map[string]string, len(c.ids))
	for local, id := range c.ids {
		if to, ok := rename[id]; ok {
			id = to
		}
		out.ids[local] = id
	}
	out.openCalls = make(map[string]bool, len(c.openCalls))
	for id, open := range c.openCalls {
		if to, ok := rename[id]; ok {
			id = to
		}
		out.openCalls[id] = open
	}
	return &out
}

// waitsFor says in words what a pause waits for.
func waitsFor(interrupts []PendingInterrupt, calls []PendingToolCall) string {
	switch {
	case len(interrupts) > 0:
		return fmt.Sprintf("%d interrupt(s)", len(interrupts))
	case len(calls) > 0:
		names := make([]string, len(calls))
		for i, c := range calls {
			names[i] = c.Name
		}
		return fmt.Sprintf("tool call(s) %q", names)
	}
	return "nothing"
}

// seededRequest is the request of a seeded thread's last run: the conversation up to the
// last message its client sent, as a CopilotKit client sends it.
func seededRequest(thread *protocol.SeededThread, route string) *Request {
	var msgs []protocol.Message
	for _, run := range thread.Runs {
		msgs = append(msgs, run.Messages...)
	}
	last := len(msgs)
	for last > 0 && msgs[last-1].Role != "user" {
		last--
	}
	if last == 0 {
		last = len(msgs)
	}
	raw := make([]any, last)
	for i, m := range msgs[:last] {
		raw[i] = m.Raw
	}
	in := &protocol.RunAgentInput{ThreadID: thread.ThreadID, RunID: thread.Runs[len(thread.Runs)-1].RunID, Messages: msgs[:last],
		Raw: map[string]any{"threadId": thread.ThreadID, "messages": raw}}
	return &Request{Route: route, Agent: thread.Agent, Input: in}
}
