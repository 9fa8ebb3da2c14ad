package server

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// ruleFaultScenarios: a plain run, a run with two interrupts, and a scenario whose fault
// steps stand in the middle of the run.
const ruleFaultScenarios = `id: plain
match: {message: ^plain$}
steps: [{text: hi}]
---
id: asks
match: {message: ^asks$}
steps:
  - interrupt: [{id: trim, message: Trim}, {id: mark, message: Watermark}]
---
id: asks-once
match: {message: ^once$}
steps: [{interrupt: {id: only, message: Go}}]
---
id: stepped
broken: rule-breaking fault steps in the middle of the run
match: {message: ^stepped$}
steps:
  - text: before
  - fault: unknownEvent
  - fault: wrongRunId
  - text: after
`

func ruleFaultRun(t *testing.T, s *Server, message, fault string) []protocol.Event {
	t.Helper()
	header := map[string]string{SpeedHeader: "0", TestIDHeader: t.Name() + fault + message} // a thread of its own
	if fault != "" {
		header[FaultHeader] = fault
	}
	body := `{"threadId":"t1","runId":"r1","messages":[{"id":"u1","role":"user","content":"` + message + `"}]}`
	rec := post(t.Context(), s, "/", body, header)
	if rec.status != 200 {
		t.Fatalf("%s with %q: %d %s", message, fault, rec.status, rec.body())
	}
	return rec.events(t)
}

// Each kind that rewrites the run's end sends the rule break it names, and nothing else
// changes.
func TestEndFaultsRewriteTheRunsEnd(t *testing.T) {
	s := newServer(t, ruleFaultScenarios, nil)
	last := func(events []protocol.Event) protocol.Event { return events[len(events)-1] }
	if end := last(ruleFaultRun(t, s, "plain", "wrongRunId")); end.Type != protocol.RunFinished || end.Str("runId") != "r1-other" || end.Str("threadId") != "t1" {
		t.Errorf("wrongRunId: %s", mustJSON(end))
	}
	if end := last(ruleFaultRun(t, s, "plain", "wrongThreadId")); end.Str("runId") != "r1" || end.Str("threadId") != "t1-other" {
		t.Errorf("wrongThreadId: %s", mustJSON(end))
	}
	events := ruleFaultRun(t, s, "plain", "otherThread")
	tail := events[len(events)-3:]
	if got := strings.Join(types(tail), " "); got != "RUN_FINISHED RUN_STARTED RUN_FINISHED" ||
		tail[0].Str("threadId") != "t1" || tail[1].Str("threadId") != "t1-other" || tail[2].Str("runId") != "r1-other" {
		t.Errorf("otherThread: %s %s %s", mustJSON(tail[0]), mustJSON(tail[1]), mustJSON(tail[2]))
	}
	ids := func(end protocol.Event) (out []string) {
		for _, in := range end.Outcome()["interrupts"].([]any) {
			out = append(out, in.(map[string]any)["id"].(string))
		}
		return out
	}
	if got := ids(last(ruleFaultRun(t, s, "asks", "duplicateInterruptId"))); strings.Join(got, ",") != "trim,trim" {
		t.Errorf("duplicateInterruptId of two: %v", got)
	}
	if got := ids(last(ruleFaultRun(t, s, "once", "duplicateInterruptId"))); strings.Join(got, ",") != "only,only" {
		t.Errorf("duplicateInterruptId of one: %v", got)
	}
	// the thread keeps the interrupts as the scenario raised them: the next run answers them
	if got := ids(last(ruleFaultRun(t, s, "asks", ""))); strings.Join(got, ",") != "trim,mark" {
		t.Errorf("the plan's interrupts changed: %v", got)
	}
}

// An interrupt's expiresAt lies a minute before the time the RUN_FINISHED carries.
func TestExpiredInterruptHasPassedWhenItArrives(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, ruleFaultScenarios, nil)
		time.Sleep(90 * time.Second) // the bubble's clock, not the test's time
		events := ruleFaultRun(t, s, "asks", "expiredInterrupt")
		end := events[len(events)-1]
		ts, _ := end.Get("timestamp")
		ms, _ := ts.(json.Number).Int64()
		sent := time.UnixMilli(ms)
		if !sent.Equal(time.Now().Truncate(time.Millisecond)) {
			t.Errorf("RUN_FINISHED at %v, now %v", sent, time.Now())
		}
		for _, in := range end.Outcome()["interrupts"].([]any) {
			at, err := time.Parse(time.RFC3339, in.(map[string]any)["expiresAt"].(string))
			if err != nil || !at.Equal(sent.Add(-time.Minute)) {
				t.Errorf("expiresAt %v (%v), want a minute before %v", at, err, sent)
			}
		}
	})
}

// A fault on interrupts is refused before any stream when the run raises none.
func TestInterruptFaultsNeedARunWithInterrupts(t *testing.T) {
	s := newServer(t, ruleFaultScenarios, nil)
	for _, kind := range []string{"duplicateInterruptId", "expiredInterrupt"} {
		rec := post(t.Context(), s, "/", `{"messages":[{"role":"user","content":"plain"}]}`, map[string]string{FaultHeader: kind})
		var answer errorBody
		if err := json.Unmarshal([]byte(rec.body()), &answer); err != nil || rec.status != 422 || answer.Error != "fault_not_applicable" ||
			!strings.Contains(answer.Message, "fault "+kind+" acts on the interrupts of the run's interrupt outcome, and this run (scenario plain) ends without any") {
			t.Errorf("%s: %d %s", kind, rec.status, rec.body())
		}
	}
}

// An inserted event comes after the number of events asked for, never before
// RUN_STARTED, and the run goes on to its end; a fault step inserts it where it stands,
// and a step that rewrites the end acts on the RUN_FINISHED that comes later.
func TestInsertedFaultEventsLetTheRunGoOn(t *testing.T) {
	s := newServer(t, ruleFaultScenarios, nil)
	for _, tt := range []struct{ fault, want string }{
		{"unknownEvent", "RUN_STARTED MOCK_UNKNOWN_EVENT TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END RUN_FINISHED"},
		{"unknownEvent; after=2", "RUN_STARTED TEXT_MESSAGE_START MOCK_UNKNOWN_EVENT TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END RUN_FINISHED"},
		{"badField; after=4", "RUN_STARTED TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END CUSTOM RUN_FINISHED"},
	} {
		if got := strings.Join(types(ruleFaultRun(t, s, "plain", tt.fault)), " "); got != tt.want {
			t.Errorf("%s: %s\nwant %s", tt.fault, got, tt.want)
		}
	}
	events := ruleFaultRun(t, s, "plain", "badField")
	if !strings.Contains(mustJSON(events[1]), `"name":42`) {
		t.Errorf("badField: %s", mustJSON(events[1]))
	}
	events = ruleFaultRun(t, s, "stepped", "")
	if got := strings.Join(types(events), " "); got != "RUN_STARTED TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END MOCK_UNKNOWN_EVENT TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END RUN_FINISHED" {
		t.Errorf("fault steps: %s", got)
	}
	if end := events[len(events)-1]; end.Str("runId") != "r1-other" {
		t.Errorf("the stepped wrongRunId: %s", mustJSON(end))
	}
}

func mustJSON(ev protocol.Event) string {
	b, _ := json.Marshal(ev)
	return string(b)
}
