package protocol

import "testing"

func TestRunIdentityReadsARunFinishedWithAnotherRunIDAsTheRunsEnd(t *testing.T) {
	var n RunIdentity
	stream := []Event{
		NewEvent(RunStarted, "threadId", "t", "runId", "r1"),
		NewEvent(RunFinished, "threadId", "t", "runId", "langgraph-run"),
	}
	var v Verifier
	for _, ev := range stream {
		if err := v.Check(n.Normalise(ev)); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := n.String(), `normalised RUN_FINISHED's runId "langgraph-run" read as RUN_STARTED's`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var untouched RunIdentity
	for _, ev := range []Event{stream[0], NewEvent(RunFinished, "threadId", "t", "runId", "r1")} {
		if got := untouched.Normalise(ev); got.Str("runId") != "r1" {
			t.Errorf("changed %v", got)
		}
	}
	if untouched.String() != "" {
		t.Errorf("a matching stream is noted %q", untouched.String())
	}
}
