package scenarios

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// Limits of the load-time exploration of a conversation's branches.
const (
	maxDryRunDepth = 6  // runs in one conversation
	maxDryRunRuns  = 64 // runs per scenario
)

// dryRun plays the scenario on a sample request, and every branch of its
// continuations: templates must render within limits, JSON Patches must apply, and the
// events must follow the protocol unless the scenario says it is broken on purpose.
func (sc *Scenario) dryRun(ctx context.Context, limits Limits) []Diagnostic {
	req, err := sc.sampleRequest()
	if err != nil {
		return nil // the example that cannot be sent is the set's problem to report
	}
	captures, _ := sc.Match.test(req)
	x := explorer{ctx: ctx, limits: limits, runs: maxDryRunRuns, broke: map[protocol.Rule]bool{}}
	diags := x.explore(sc, req, Start{Captures: captures}, 1)
	diags = append(diags, sc.unbrokenMarks(x.broke)...)
	seen := map[string]bool{}
	unique := diags[:0]
	for _, d := range diags {
		if !seen[d.Error()] {
			seen[d.Error()] = true
			unique = append(unique, d)
		}
	}
	return unique
}

// explorer is the state of one scenario's dry runs.
type explorer struct {
	ctx    context.Context
	limits Limits
	runs   int                    // how many more runs may be tried
	broke  map[protocol.Rule]bool // the rules the scenario marks that its runs broke
}

// explore dry-runs one run, then each way its continuation can go. A run whose
// templates go past their limits ends the exploration: each of its runs could cost as
// much.
func (x *explorer) explore(sc *Scenario, req *Request, start Start, depth int) []Diagnostic {
	x.runs--
	plan, origins, err := sc.plan(x.ctx, req, start, PlanOptions{Seed: 1, Timing: DefaultTiming(), Now: time.Now(), Limits: x.limits}, true)
	if err != nil {
		var le *LimitError
		if errors.As(err, &le) {
			x.runs = 0
		}
		var se *stepError
		if errors.As(err, &se) {
			return []Diagnostic{{File: se.at.File, Line: se.at.Line, Column: se.at.Column, Message: se.err.Error()}}
		}
		return []Diagnostic{sc.diagnostic(err.Error(), "")}
	}
	if depth == 1 {
		sc.eventsHint = len(plan.Events)
	}
	diags := append(sc.verify(plan, origins, req.Input.ThreadID, x.broke), sc.protoWarnings(plan, origins)...)
	next := plan.Next
	if next != nil && next.node != nil && len(next.Interrupts) == 0 && len(next.ToolCalls) == 0 {
		at := next.node.next[0].at
		return append(diags, Diagnostic{File: at.File, Line: at.Line, Column: at.Column,
			Message: "this run waits for no answer (no interrupt outcome, no tool call left without a result), so what follows in next never plays"})
	}
	if next == nil || depth >= maxDryRunDepth {
		return diags
	}
	variants := []*branchChoice{nil}
	if next.node != nil {
		variants = nil
		for k := range next.node.next {
			variants = append(variants, &branchChoice{item: recordedRun, branch: k})
		}
	}
	for i, pi := range next.Interrupts {
		if pi.def == nil {
			break
		}
		for k := range pi.def.cases {
			variants = append(variants, &branchChoice{item: interruptItem, index: i, branch: k})
		}
	}
	for i, tc := range next.ToolCalls {
		if tc.def == nil {
			break
		}
		for k := range tc.def.cases {
			variants = append(variants, &branchChoice{item: toolCallItem, index: i, branch: k})
		}
	}
	for n, forced := range variants {
		if x.runs <= 0 {
			break
		}
		nextReq := continuationRequest(req, next, forced, fmt.Sprintf("%s-%d", req.Input.RunID, n))
		diags = append(diags, x.explore(sc, nextReq, Start{Resume: next, forced: forced, answers: nextReq.Input.Resume}, depth+1)...)
	}
	return diags
}

// continuationRequest is the request that answers a paused run: every interrupt
// resolved (or as its forced case says), every frontend tool answered.
func continuationRequest(prev *Request, c *Cursor, forced *branchChoice, runID string) *Request {
	in := *prev.Input
	in.RunID = runID
	in.Resume = nil
	for i, pi := range c.Interrupts {
		entry := protocol.ResumeEntry{InterruptID: pi.ID, Status: protocol.ResumeResolved, Payload: map[string]any{}}
		if k, ok := forced.forces(interruptItem, i); ok && pi.def != nil {
			bc := pi.def.cases[k]
			if bc.status != "" {
				entry.Status = bc.status
			}
			if bc.payload != nil {
				entry.Payload = bc.payload
			}
		}
		in.Resume = append(in.Resume, entry)
	}
	in.Messages = slices.Clone(in.Messages)
	for _, tc := range c.ToolCalls {
		raw := map[string]any{"id": "tool-" + tc.ID, "role": "tool", "toolCallId": tc.ID, "content": ""}
		in.Messages = append(in.Messages, protocol.Message{ID: "tool-" + tc.ID, Role: "tool", ToolCallID: tc.ID, Content: "", Raw: raw})
	}
	return &Request{Route: prev.Route, Input: &in, Header: prev.Header}
}

// verify checks one planned run against the event rules, pointing at the step that
// wrote the offending event. The producer rules the scenario marks (breaks) it may
// break: those it does are noted in broke.
func (sc *Scenario) verify(plan *Plan, origins []pos, threadID string, broke map[protocol.Rule]bool) []Diagnostic {
	if sc.Broken != "" {
		return nil
	}
	if plan.Stopped != "" {
		return sc.checkStopped(plan, origins, threadID, broke)
	}
	events := make([]protocol.Event, 0, len(plan.Events))
	for _, t := range plan.Events {
		if t.Fault != nil {
			return []Diagnostic{sc.diagnostic("the scenario breaks its stream with a "+t.Fault.Kind+" fault", "faults are deliberate: add broken: <reason>")}
		}
		events = append(events, t.Event)
	}
	v := &protocol.RuleChecker{ThreadID: threadID, Tolerate: sc.Breaks}
	err := v.Stream(events)
	for _, r := range v.Breaks {
		broke[r] = true
	}
	var diags []Diagnostic
	at := func(index int, msg, hint string) Diagnostic {
		if index < 0 || index >= len(origins) {
			return sc.diagnostic(msg, hint)
		}
		o := origins[index]
		return Diagnostic{File: o.File, Line: o.Line, Column: o.Column, Message: msg, Hint: hint}
	}
	if err != nil {
		msg, hint := "the scenario breaks the AG-UI event rules: "+err.Error(), "fix the steps, or add broken: <reason> if the breakage is the point"
		index := -1
		var se *protocol.SequenceError
		if errors.As(err, &se) {
			index = se.Index
			if se.Rule != "" {
				msg, hint = ruleDiagnostic(se)
			}
		}
		diags = append(diags, at(index, msg, hint))
	}
	for _, w := range v.Warnings {
		diags = append(diags, at(w.Index, w.Error(), "add broken: <reason> to send it anyway"))
	}
	return diags
}

// protoWarnings warns of what a planned run's events lose over the protobuf transport,
// at the steps that wrote them: the run plays whole over SSE, but a client that asks for
// protobuf does not see what the .proto has no place for.
func (sc *Scenario) protoWarnings(plan *Plan, origins []pos) []Diagnostic {
	var diags []Diagnostic
	for i, t := range plan.Events {
		if t.Fault != nil {
			continue
		}
		for _, lost := range protocol.ProtoLosses(t.Event) {
			d := sc.diagnostic("over the protobuf transport this event loses "+lost, "the AG-UI .proto has no place for it: send it in a form the .proto carries, or expect protobuf clients not to see it")
			if i < len(origins) {
				d.File, d.Line, d.Column = origins[i].File, origins[i].Line, origins[i].Column
			}
			d.Severity = Warning
			diags = append(diags, d)
		}
	}
	return diags
}

// sampleRequest is a request the scenario answers: its first example, or one made from
// its match criteria, each part as its row of criteria makes it up: the message, system
// message, context items and headers their patterns match, with their groups filled.
func (sc *Scenario) sampleRequest() (*Request, error) {
	if len(sc.Examples) > 0 {
		return sc.Examples[0].request()
	}
	var ex Example
	for i := range criteria {
		criteria[i].sample(&sc.Match, &ex)
	}
	return ex.request()
}
