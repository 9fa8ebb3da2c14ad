package protocol

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// Each named producer rule fails a stream that breaks it, naming the rule; tolerated, the
// break is noted once and the check goes on.
func TestRuleCheckerNamesAndToleratesTheProducerRules(t *testing.T) {
	started := NewEvent(RunStarted, "threadId", "t", "runId", "r")
	interrupt := func(id string) map[string]any { return map[string]any{"id": id, "reason": "approval"} }
	for _, tt := range []struct {
		rule   Rule
		stream []Event
	}{
		{RuleFinishedRunID, []Event{started, NewEvent(RunFinished, "threadId", "t", "runId", "langgraph-run"),
			NewEvent(RunStarted, "threadId", "t", "runId", "r2"), NewEvent(RunFinished, "threadId", "t", "runId", "langgraph-run-2")}},
		{RuleFinishedThreadID, []Event{started, NewEvent(RunFinished, "threadId", "other", "runId", "r")}},
		{RuleOneThread, []Event{started, NewEvent(RunFinished, "threadId", "t", "runId", "r"),
			NewEvent(RunStarted, "threadId", "t2", "runId", "r2"), NewEvent(RunFinished, "threadId", "t2", "runId", "r2")}},
		{RuleUniqueInterruptIDs, []Event{started, NewEvent(RunFinished, "threadId", "t", "runId", "r",
			"outcome", map[string]any{"type": "interrupt", "interrupts": []any{interrupt("i"), interrupt("i")}})}},
		{RuleOpenEnd, []Event{started}},
	} {
		t.Run(string(tt.rule), func(t *testing.T) {
			_, err := CheckStream(tt.stream, "")
			var se *SequenceError
			if !errors.As(err, &se) || se.Rule != tt.rule || !strings.HasSuffix(err.Error(), "(rule "+string(tt.rule)+")") {
				t.Fatalf("got %v, want a SequenceError of rule %s", err, tt.rule)
			}
			v := &RuleChecker{Tolerate: []Rule{tt.rule}}
			for _, ev := range tt.stream {
				if err := v.Check(ev); err != nil {
					t.Fatalf("tolerated: %v", err)
				}
			}
			if err := v.End(); err != nil {
				t.Fatalf("tolerated: %v", err)
			}
			if !slices.Equal(v.Breaks, []Rule{tt.rule}) {
				t.Errorf("breaks %v", v.Breaks)
			}
			if got := BreaksOf(tt.stream); !slices.Equal(got, []Rule{tt.rule}) {
				t.Errorf("BreaksOf %v", got)
			}
		})
	}
}

// A tolerated rule does not let any other rule be broken.
func TestToleratingARuleKeepsTheOthers(t *testing.T) {
	v := &RuleChecker{Tolerate: []Rule{RuleFinishedRunID}}
	stream := []Event{NewEvent(RunStarted, "threadId", "t", "runId", "r"), NewEvent(RunFinished, "threadId", "x", "runId", "other")}
	var err error
	for _, ev := range stream {
		if err = v.Check(ev); err != nil {
			break
		}
	}
	var se *SequenceError
	if !errors.As(err, &se) || se.Rule != RuleFinishedThreadID {
		t.Errorf("got %v, want the thread id's rule broken", err)
	}
	if _, err := CheckStream([]Event{NewEvent(RunStarted, "threadId", "t", "runId", "r"), NewEvent(TextMessageContent, "messageId", "m", "delta", "x")}, ""); err == nil || err.(*SequenceError).Rule != "" {
		t.Errorf("a rule without a name: %v", err)
	}
}

func TestParseRule(t *testing.T) {
	for _, r := range Rules() {
		if got, err := ParseRule(string(r)); err != nil || got != r {
			t.Errorf("ParseRule(%q) = %q, %v", r, got, err)
		}
		if r.Describe() == string(r) {
			t.Errorf("%s is not described", r)
		}
	}
	if _, err := ParseRule("finished-runid"); err == nil || !strings.Contains(err.Error(), "finished-run-id, finished-thread-id") {
		t.Errorf("an unknown rule: %v", err)
	}
	if RuleOpenEnd.Markable() || !RuleFinishedRunID.Markable() {
		t.Error("only a stream's open end is not markable")
	}
}
