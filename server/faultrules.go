package server

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// The fault kinds that break a rule of AG-UI 1.0 as a faulty agent does: they send what
// clients reject or drop, and the run otherwise goes on. Each is what the named rule of
// protocol/rules.go forbids, or an event the protocol has no place for.

// unknownEventType is the type of unknownEvent's event: none AG-UI defines, nor is
// likely to.
const unknownEventType = "MOCK_UNKNOWN_EVENT"

// unknownEvent is an event of a type the protocol lacks, otherwise well formed.
func unknownEvent(scenarios.Fault) protocol.Event {
	return protocol.NewEvent(unknownEventType, "value", "an event of a type AG-UI does not define")
}

// badField is a known event with a field of the wrong type: a CUSTOM event, which may
// stand anywhere in a run, whose name is a number where the protocol wants a string.
func badField(scenarios.Fault) protocol.Event {
	return protocol.NewEvent(protocol.Custom, "name", 42, "value", "a CUSTOM event whose name is not a string")
}

// otherID is the id a rule-breaking end carries instead of the run's own.
func otherID(id string) string { return id + "-other" }

// wrongRunID ends the run with another runId than its RUN_STARTED's.
func wrongRunID(finished protocol.Event, _ time.Time) []protocol.Event {
	return []protocol.Event{finished.With("runId", otherID(finished.Str("runId")))}
}

// wrongThreadID ends the run with another threadId than its RUN_STARTED's.
func wrongThreadID(finished protocol.Event, _ time.Time) []protocol.Event {
	return []protocol.Event{finished.With("threadId", otherID(finished.Str("threadId")))}
}

// otherThread follows the run's end with a second run, whole, on another thread.
func otherThread(finished protocol.Event, _ time.Time) []protocol.Event {
	thread, run := otherID(finished.Str("threadId")), otherID(finished.Str("runId"))
	return []protocol.Event{
		finished,
		protocol.NewEvent(protocol.RunStarted, "threadId", thread, "runId", run),
		protocol.NewEvent(protocol.RunFinished, "threadId", thread, "runId", run),
	}
}

// duplicateInterruptID gives the second interrupt the first's id, or sends a lone
// interrupt twice.
func duplicateInterruptID(finished protocol.Event, _ time.Time) []protocol.Event {
	return []protocol.Event{rewriteInterrupts(finished, func(interrupts []any) []any {
		if len(interrupts) == 1 {
			return append(interrupts, interrupts[0])
		}
		second := maps.Clone(interrupts[1].(map[string]any))
		second["id"] = interrupts[0].(map[string]any)["id"]
		interrupts[1] = second
		return interrupts
	})}
}

// expiredInterrupt makes every interrupt expire a minute before the event's time at.
func expiredInterrupt(finished protocol.Event, at time.Time) []protocol.Event {
	expired := at.Add(-time.Minute).UTC().Format("2006-01-02T15:04:05.000Z07:00")
	return []protocol.Event{rewriteInterrupts(finished, func(interrupts []any) []any {
		for i, in := range interrupts {
			in := maps.Clone(in.(map[string]any))
			delete(in, "expiresIn")
			in["expiresAt"] = expired
			interrupts[i] = in
		}
		return interrupts
	})}
}

// rewriteInterrupts returns finished with the interrupts of its interrupt outcome as
// change leaves them: change is given a copy, the plan's event being the thread's too.
// An end without interrupts is left as it is (admit refuses such a run per request, the
// loader such a scenario).
func rewriteInterrupts(finished protocol.Event, change func([]any) []any) protocol.Event {
	interrupts := interruptsOf(finished)
	if len(interrupts) == 0 {
		return finished
	}
	outcome := maps.Clone(finished.Outcome())
	outcome["interrupts"] = change(append([]any(nil), interrupts...))
	return finished.With("outcome", outcome)
}

// interruptsOf returns the interrupts of a RUN_FINISHED's interrupt outcome.
func interruptsOf(finished protocol.Event) []any {
	outcome := finished.Outcome()
	if outcome["type"] != "interrupt" {
		return nil
	}
	interrupts, _ := outcome["interrupts"].([]any)
	return interrupts
}

// needsInterrupts refuses a fault that acts on the interrupts of the run's interrupt
// outcome when the run planned ends without them: the fault could not strike, and a
// test that asked for it would pass for the wrong reason.
func needsInterrupts(f scenarios.Fault, plan *scenarios.Plan) error {
	for _, t := range plan.Events {
		if t.Fault == nil && t.Event.Type == protocol.RunFinished && len(interruptsOf(t.Event)) > 0 {
			return nil
		}
	}
	return apiError(http.StatusUnprocessableEntity, "fault_not_applicable", fmt.Sprintf(
		"fault %s acts on the interrupts of the run's interrupt outcome, and this run (scenario %s) ends without any: use it on a run that raises interrupts (in the standard dialect)",
		f.Kind, plan.Scenario.ID))
}

// admitFault is err, or else why the run planned cannot take the request's fault.
func admitFault(err error, f *scenarios.Fault, plan *scenarios.Plan) error {
	if err != nil || f == nil {
		return err
	}
	if admit := hookOf(f).admit; admit != nil {
		return admit(*f, plan)
	}
	return nil
}

// strikesAt is the index of the plan's event before which the request's fault strikes:
// -1 for a kind that strikes at no one event. An inserted event comes after
// RUN_STARTED at the earliest.
func strikesAt(f *scenarios.Fault) int {
	switch hook := hookOf(f); {
	case hook.insert != nil:
		return max(f.After, 1)
	case hook.strike != nil:
		return f.After
	}
	return -1
}

// strikeFault carries out a fault where it strikes: it ends the run (done, with its
// outcome), sends its event and lets the run go on, or waits for the run's end to
// rewrite.
func (p *player) strikeFault(ctx context.Context, f *scenarios.Fault) (outcome protocol.Outcome, done bool) {
	hook := hookOf(f)
	switch {
	case hook.end != nil:
		p.ending = f // noted as struck when it rewrites the end
	case hook.insert != nil:
		p.rec.struck(f.Kind)
		if err := p.send(hook.insert(*f)); err != nil {
			return protocol.OutcomeCancelled, true
		}
	case hook.strike != nil:
		p.rec.struck(f.Kind)
		return p.strike(ctx, hook.strike(*f)), true
	}
	return "", false
}

// sendPlanned sends an event of the plan at now: a RUN_FINISHED as the fault that
// rewrites the run's end asks, if one does.
func (p *player) sendPlanned(ev protocol.Event, now time.Time) error {
	f := p.ending
	if f == nil && hookOf(p.fault).end != nil {
		f = p.fault
	}
	if f == nil || ev.Type != protocol.RunFinished {
		return p.sendAt(ev, now)
	}
	p.rec.struck(f.Kind)
	p.ending = nil // the run's end, once: a second run on another thread is the fault's own
	for _, out := range hookOf(f).end(ev, time.UnixMilli(p.timestamp(now))) {
		if err := p.sendAt(out, now); err != nil {
			return err
		}
	}
	return nil
}
