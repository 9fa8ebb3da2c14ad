package scenarios

import (
	"strings"
	"testing"
	"time"
)

// A fault step that adds an event or rewrites the run's end lets the run go on: steps
// may follow it, and the plan keeps its place as a mark for the player, the run still
// ending with RUN_FINISHED. A fault that ends the stream stays the last step.
func TestRuleBreakingFaultStepsLetTheRunGoOn(t *testing.T) {
	for _, kind := range []string{FaultUnknownEvent, FaultBadField, FaultWrongRunID, FaultWrongThreadID, FaultOtherThread} {
		t.Run(kind, func(t *testing.T) {
			set, err := loadOne(t, "broken: on purpose\nsteps:\n  - text: before\n  - fault: "+kind+"\n  - text: after\n")
			if err != nil {
				t.Fatal(err)
			}
			plan := planFor(t, set, request(t, "/", `{"messages":[]}`), PlanOptions{Timing: DefaultTiming(), Now: time.Unix(1000, 0)})
			var got []string
			for _, te := range plan.Events {
				if te.Fault != nil {
					got = append(got, "fault "+te.Fault.Kind)
					continue
				}
				got = append(got, te.Event.Type)
			}
			want := "RUN_STARTED TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END fault " + kind +
				" TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END RUN_FINISHED"
			if strings.Join(got, " ") != want {
				t.Errorf("plan %v\nwant %s", got, want)
			}
		})
	}
}

// What the loader refuses of the new kinds, each with the reason at the step to blame.
func TestRuleBreakingFaultStepsAreRefusedWhereTheyCannotApply(t *testing.T) {
	for _, tt := range []struct{ name, steps, want string }{
		{"a step after a fault that ends the stream", "  - fault: truncate\n  - text: after\n",
			"dir/test.yaml:4:5: no step may follow a fault step (hint: the truncate fault ends the stream)"},
		{"duplicateInterruptId on a run without interrupts", "  - text: hi\n  - fault: duplicateInterruptId\n",
			"dir/test.yaml:4:5: fault duplicateInterruptId acts on the interrupts of the run's interrupt outcome, and this run raises none: put it in a run with an interrupt step"},
		{"expiredInterrupt on a run without interrupts", "  - fault: expiredInterrupt\n  - text: hi\n",
			"dir/test.yaml:3:5: fault expiredInterrupt acts on the interrupts of the run's interrupt outcome, and this run raises none"},
		{"expiredInterrupt in the LangGraph dialect", "  - fault: expiredInterrupt\n  - interrupt: {message: ok}\n",
			"raises them in the LangGraph dialect"},
		{"an end rewritten on a run that ends with RUN_ERROR", "  - fault: wrongRunId\n  - error: {message: boom}\n",
			"dir/test.yaml:3:5: fault wrongRunId rewrites the run's RUN_FINISHED, and this run ends without one"},
		{"after in a scenario", "  - fault: {kind: unknownEvent, after: 2}\n",
			`dir/test.yaml:3:33: unknown key "after" in fault`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dialect := ""
			if strings.Contains(tt.name, "LangGraph") {
				dialect = "dialect: langgraph\n"
			}
			_, err := loadOne(t, "broken: on purpose\n"+dialect+"steps:\n"+tt.steps)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("load: %v\nwant %q", err, tt.want)
			}
		})
	}
}

// A rewritten interrupt outcome applies to the run that raises the interrupts, the
// fault step standing anywhere before the end of that run.
func TestInterruptFaultStepsLoadOnARunWithInterrupts(t *testing.T) {
	for _, kind := range []string{FaultDuplicateInterruptID, FaultExpiredInterrupt} {
		_, err := loadOne(t, "broken: on purpose\nsteps:\n  - fault: "+kind+"\n  - interrupt: {message: ok, on: {resolved: [{text: done}]}}\n")
		if err != nil {
			t.Errorf("%s: %v", kind, err)
		}
	}
}

// The new kinds follow the table's scopes: none is request-only; only the kinds that
// end the stream are terminal; those acting on interrupts say so.
func TestRuleBreakingFaultKindsScopes(t *testing.T) {
	for _, k := range FaultKindTable() {
		terminal := k.Name == FaultRunError || k.Name == FaultDisconnect || k.Name == FaultStall || k.Name == FaultMalformed || k.Name == FaultTruncate
		if k.Terminal() != terminal {
			t.Errorf("%s: terminal %v, want %v", k.Name, k.Terminal(), terminal)
		}
		if interrupts := k.Name == FaultDuplicateInterruptID || k.Name == FaultExpiredInterrupt; k.NeedsInterrupts() != interrupts {
			t.Errorf("%s: needs interrupts %v", k.Name, k.NeedsInterrupts())
		}
	}
	for _, header := range []string{"wrongRunId", "otherThread", "unknownEvent; after=3", "badField", "expiredInterrupt"} {
		if _, err := ParseFault(header); err != nil {
			t.Errorf("%q: %v", header, err)
		}
	}
	if _, err := ParseFault("wrongRunId; after=2"); err == nil || !strings.Contains(err.Error(), "wrongRunId takes no parameters") {
		t.Errorf("after on an end fault: %v", err)
	}
}
