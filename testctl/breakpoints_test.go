package testctl

import (
	"context"
	"testing"
	"time"
)

func TestABreakpointTriggersOnceForItsTestAndScenario(t *testing.T) {
	var b Breakpoints
	zero := 0
	bp := b.Add(Breakpoint{TestID: "t1", Scenario: "s", Event: &zero})
	if bp.ID != "bp-1" {
		t.Errorf("id %q", bp.ID)
	}
	if b.Hit("t2", "s", "", 0, "th", "r") != nil || b.Hit("t1", "other", "", 0, "th", "r") != nil {
		t.Error("another test's or scenario's event hit the breakpoint")
	}
	hit := b.Hit("t1", "s", "", 0, "th", "r")
	if hit == nil || !hit.Wait(context.Background()) {
		t.Fatal("the breakpoint's event did not hit it")
	}
	if got := b.Snapshot(hit); !got.Reached || got.ThreadID != "th" || got.RunID != "r" {
		t.Errorf("after the hit: %+v", got)
	}
	if b.Hit("t1", "s", "", 0, "th", "r2") != nil {
		t.Error("a breakpoint triggered twice")
	}
	b.Release(hit, false)
	select {
	case <-hit.Resumed():
	default:
		t.Error("a released breakpoint holds its stream")
	}
	if _, ok := b.Get(bp.ID); !ok {
		t.Error("a released breakpoint is forgotten without forget")
	}
}

func TestAStepBreakpointMatchesTheStepsId(t *testing.T) {
	var b Breakpoints
	b.Add(Breakpoint{Step: "answer"})
	if b.Hit("", "s", "intro", 0, "", "") != nil {
		t.Error("another step hit the breakpoint")
	}
	if b.Hit("", "s", "answer", 3, "", "") == nil {
		t.Error("the step's first event did not hit the breakpoint")
	}
}

func TestWaitEndsWithItsContext(t *testing.T) {
	var b Breakpoints
	bp := b.Add(Breakpoint{Step: "x"})
	held, _ := b.Get(bp.ID)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if held.Wait(ctx) {
		t.Error("Wait reports a stream where none paused")
	}
}

func TestResetReleasesAndForgetsATestsBreakpoints(t *testing.T) {
	var b Breakpoints
	mine, theirs := b.Add(Breakpoint{TestID: "t1", Step: "x"}), b.Add(Breakpoint{TestID: "t2", Step: "x"})
	paused := b.Hit("t1", "s", "x", 0, "", "")
	b.Reset("t1", false)
	select {
	case <-paused.Resumed():
	default:
		t.Error("a stream paused at a reset breakpoint stays paused")
	}
	if _, ok := b.Get(mine.ID); ok {
		t.Error("t1's breakpoint survived its reset")
	}
	if _, ok := b.Get(theirs.ID); !ok {
		t.Error("resetting t1 forgot t2's breakpoint")
	}
	b.Reset("", true)
	if _, ok := b.Get(theirs.ID); ok || b.Hit("t2", "s", "x", 0, "", "") != nil {
		t.Error("a breakpoint survived resetting all")
	}
}
