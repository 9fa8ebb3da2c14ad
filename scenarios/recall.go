package scenarios

import (
	"context"
	"maps"
	"slices"

	"github.com/agui-mock/agui-mock/protocol"
)

// MaxRecalledRuns bounds the runs Recall plays again to find where a conversation
// paused: the frontend tool pauses of one scenario since the user's last message.
// Their templates share the time limit of one run (Limits.Time), so that a request
// costs no more than one run however many it makes the server play again.
const MaxRecalledRuns = 16

// Recall finds where a conversation paused from the client's messages alone, for a run
// on a thread the server holds nothing of: after a restart, once the thread was
// forgotten, or on a replica that never saw it. The mock recognises its own earlier call
// by the scenario's steps, not by its id: when the input's last assistant message carries
// tool calls that a tool message after it answers, Recall plays the conversation again
// from the user's last message before it — the scenario that message selects (forced
// names the one the request forces, if any), then each continuation the client's tool
// results chose — and succeeds when that reaches a pause for frontend tool calls whose
// names, in order, are those of the calls the client holds, the last of them in that
// assistant message. The cursor returned waits for the calls under the client's ids, so
// Continue takes the run as a continuation exactly as if the thread had been kept.
// Ids are not compared: a run played again mints other ids (each server seeds its own,
// unless --seed is given), and clients may re-id what they hold.
func (s *Set) Recall(ctx context.Context, req *Request, forced string, opts PlanOptions) (*Cursor, bool) {
	msgs := req.Input.Messages
	last := lastRole(msgs, len(msgs), "assistant")
	if last < 0 || len(toolCallsOf(msgs[last])) == 0 || !answered(msgs[last+1:], toolCallsOf(msgs[last])) {
		return nil, false
	}
	// The run that began this part of the conversation was asked with the messages up to
	// the user's last one; without one, with those before the agent's first answer.
	from := lastRole(msgs, last, "user") + 1
	if from == 0 {
		for from < last && msgs[from].Role != "assistant" {
			from++
		}
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Limits.orDefault().Time)
	defer cancel()
	played := s.selectFor(earlier(req, from), forced)
	if played == nil {
		return nil, false
	}
	sc, start := played.Scenario, Start{Captures: played.Captures}
	for turn := range MaxRecalledRuns {
		sub := earlier(req, from)
		opts.Turn = turn
		plan, err := sc.Plan(ctx, sub, start, opts)
		if err != nil || plan.Next == nil || len(plan.Next.Interrupts) > 0 || len(plan.Next.ToolCalls) == 0 {
			return nil, false
		}
		cursor, ok := plan.Next.asCalledBy(plan.Events, msgs[from:last+1])
		if !ok {
			return nil, false
		}
		if ids := callIDs(toolCallsOf(msgs[last])); cursor.waitsFor(ids) {
			return cursor, true
		}
		end := answersEnd(msgs, cursor.toolCallIDs())
		if end < 0 || end > last {
			return nil, false
		}
		start, ok, err = Continue(cursor, earlier(req, end).Input, opts.Now)
		if err != nil || !ok {
			return nil, false
		}
		from = end
	}
	return nil, false
}

// selectFor picks the scenario a request starts: the one forced, or the one it matches.
func (s *Set) selectFor(req *Request, forced string) *Selection {
	if forced != "" {
		return s.Force(forced, req)
	}
	sel, _ := s.Select(req)
	return sel
}

// earlier is req as the client asked an earlier run: its first n messages, no answers.
func earlier(req *Request, n int) *Request {
	in := *req.Input
	in.Messages, in.Resume, in.Command = in.Messages[:n], nil, nil
	return &Request{Route: req.Route, Input: &in, Header: req.Header}
}

// lastRole is the index of the last message of a role before before, or -1.
func lastRole(msgs []protocol.Message, before int, role string) int {
	for i := before - 1; i >= 0; i-- {
		if msgs[i].Role == role {
			return i
		}
	}
	return -1
}

// toolCallsOf lists an assistant message's tool calls that have an id and a name.
func toolCallsOf(m protocol.Message) []protocol.ToolCall {
	return slices.DeleteFunc(m.ToolCalls(), func(c protocol.ToolCall) bool { return c.ID == "" || c.Name == "" })
}

func callIDs(calls []protocol.ToolCall) []string {
	ids := make([]string, len(calls))
	for i, c := range calls {
		ids[i] = c.ID
	}
	return ids
}

// answered reports whether a tool message among msgs answers one of calls.
func answered(msgs []protocol.Message, calls []protocol.ToolCall) bool {
	for _, m := range msgs {
		for _, c := range calls {
			if m.Role == "tool" && m.ToolCallID == c.ID {
				return true
			}
		}
	}
	return false
}

// answersEnd is the index after the last tool message that answers one of ids, or -1
// when one of them has no answer.
func answersEnd(msgs []protocol.Message, ids []string) int {
	end := -1
	for _, id := range ids {
		found := -1
		for i, m := range msgs {
			if m.Role == "tool" && m.ToolCallID == id {
				found = i
			}
		}
		if found < 0 {
			return -1
		}
		end = max(end, found+1)
	}
	return end
}

// asCalledBy returns the cursor with the tool call ids of the client's messages in
// place of those a run played again minted: the run's calls (its TOOL_CALL_START
// events) are found, in order and by name, among the calls the messages hold. False
// when one of them is not there.
func (c *Cursor) asCalledBy(events []Timed, msgs []protocol.Message) (*Cursor, bool) {
	var held []protocol.ToolCall
	for _, m := range msgs {
		if m.Role == "assistant" {
			held = append(held, toolCallsOf(m)...)
		}
	}
	ids := map[string]string{}
	for _, t := range events {
		if t.Event.Type != protocol.ToolCallStart {
			continue
		}
		name := t.Event.Str("toolCallName")
		for len(held) > 0 && held[0].Name != name {
			held = held[1:]
		}
		if len(held) == 0 {
			return nil, false
		}
		ids[t.Event.Str("toolCallId")] = held[0].ID
		held = held[1:]
	}
	rename := func(id string) string {
		if to, ok := ids[id]; ok {
			return to
		}
		return id
	}
	out := *c
	out.ToolCalls = make([]PendingToolCall, len(c.ToolCalls))
	for i, tc := range c.ToolCalls {
		if _, ok := ids[tc.ID]; !ok {
			return nil, false // a call the client does not hold
		}
		tc.ID = rename(tc.ID)
		out.ToolCalls[i] = tc
	}
	out.ids = make(map[string]string, len(c.ids))
	for local, id := range c.ids {
		out.ids[local] = rename(id)
	}
	out.openCalls = make(map[string]bool, len(c.openCalls))
	for id, open := range c.openCalls {
		out.openCalls[rename(id)] = open
	}
	out.captures, out.activities = maps.Clone(c.captures), maps.Clone(c.activities)
	return &out, true
}

// waitsFor reports whether the cursor waits for a call among ids.
func (c *Cursor) waitsFor(ids []string) bool {
	for _, tc := range c.ToolCalls {
		for _, id := range ids {
			if tc.ID == id {
				return true
			}
		}
	}
	return false
}
