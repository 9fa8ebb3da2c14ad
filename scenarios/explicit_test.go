package scenarios

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

const recordedSession = `
match: {message: deploy}
events:
  - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
  - {delay: 10ms, type: TOOL_CALL_START, toolCallId: "{{ id ` + "`c1`" + ` }}", toolCallName: deploy}
  - {type: TOOL_CALL_END, toolCallId: "{{ id ` + "`c1`" + ` }}"}
  - {type: RUN_FINISHED, threadId: "{{ .threadId }}", runId: "{{ .runId }}", outcome: {type: interrupt, interrupts: [{id: "{{ id ` + "`i1`" + ` }}", reason: tool_call, toolCallId: "{{ id ` + "`c1`" + ` }}"}]}}
next:
  - when: {resume: [{status: resolved}]}
    events:
      - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
      - {type: TOOL_CALL_RESULT, messageId: "{{ id ` + "`r1`" + ` }}", toolCallId: "{{ id ` + "`c1`" + ` }}", content: deployed}
      - {type: RUN_FINISHED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
  - when: {resume: [{status: cancelled, payload: {feedback: later}}]}
    events:
      - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
      - {type: TOOL_CALL_RESULT, messageId: "{{ id ` + "`r2`" + ` }}", toolCallId: "{{ id ` + "`c1`" + ` }}", content: postponed}
      - {type: RUN_FINISHED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
`

func TestRecordedContinuationsAreChosenByTheAnswers(t *testing.T) {
	set, err := loadOne(t, recordedSession)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ resume, want string }{
		{`{"status":"resolved"}`, "result:deployed"},
		{`{"status":"cancelled","payload":{"feedback":"later"}}`, "result:postponed"},
	} {
		c := &conversation{t: t, set: set}
		c.run(`{"messages":[{"role":"user","content":"deploy"}]}`)
		if c.cursor == nil || len(c.cursor.Interrupts) != 1 {
			t.Fatalf("the recorded interrupt should pause the thread: %+v", c.cursor)
		}
		id := c.cursor.Interrupts[0].ID
		got := texts(c.run(`{"messages":[],"resume":[` + strings.Replace(tt.resume, "{", `{"interruptId":"`+id+`",`, 1) + `]}`))
		if strings.Join(got, "|") != tt.want {
			t.Errorf("continuation %q, want %q", got, tt.want)
		}
	}
	// an answer no recording covers
	c := &conversation{t: t, set: set}
	c.run(`{"messages":[{"role":"user","content":"deploy"}]}`)
	req := request(t, "/", `{"messages":[],"resume":[{"interruptId":"`+c.cursor.Interrupts[0].ID+`","status":"cancelled"}]}`)
	start, _, err := Continue(c.cursor, req.Input, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.cursor.Scenario.Plan(context.Background(), req, start, PlanOptions{Timing: DefaultTiming()})
	var nb *NoBranchError
	if !errors.As(err, &nb) || nb.Branches != 2 {
		t.Errorf("got %v, want a NoBranchError", err)
	}
}

func TestARecordingPausedOnAFrontendToolWaitsForItsResult(t *testing.T) {
	set, err := loadOne(t, `
match: {message: pick}
events:
  - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
  - {type: TOOL_CALL_START, toolCallId: "{{ id `+"`c0`"+` }}", toolCallName: lookup}
  - {type: TOOL_CALL_END, toolCallId: "{{ id `+"`c0`"+` }}"}
  - {type: TOOL_CALL_RESULT, messageId: "{{ id `+"`r0`"+` }}", toolCallId: "{{ id `+"`c0`"+` }}", content: found}
  - {type: TOOL_CALL_START, toolCallId: "{{ id `+"`c1`"+` }}", toolCallName: pickColor}
  - {type: TOOL_CALL_END, toolCallId: "{{ id `+"`c1`"+` }}"}
  - {type: RUN_FINISHED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
next:
  - when: {toolResults: [red]}
    events:
      - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
      - {type: TEXT_MESSAGE_START, messageId: "{{ id `+"`m`"+` }}", role: assistant}
      - {type: TEXT_MESSAGE_CONTENT, messageId: "{{ id `+"`m`"+` }}", delta: "red it is"}
      - {type: TEXT_MESSAGE_END, messageId: "{{ id `+"`m`"+` }}"}
      - {type: RUN_FINISHED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
`)
	if err != nil {
		t.Fatal(err)
	}
	c := &conversation{t: t, set: set}
	c.run(`{"messages":[{"role":"user","content":"pick"}]}`)
	if c.cursor == nil || len(c.cursor.Interrupts) != 0 || len(c.cursor.ToolCalls) != 1 || c.cursor.ToolCalls[0].Name != "pickColor" {
		t.Fatalf("the run should wait for the one tool call left without a result: %+v", c.cursor)
	}
	id := c.cursor.ToolCalls[0].ID
	got := texts(c.run(`{"messages":[{"id":"a","role":"assistant","toolCalls":[{"id":"` + id + `","type":"function","function":{"name":"pickColor","arguments":"{}"}}]},{"id":"tr","role":"tool","toolCallId":"` + id + `","content":"red"}]}`))
	if strings.Join(got, "|") != "red it is" {
		t.Errorf("continuation %q", got)
	}
}

// A snapshot's {{ nth … .messages }} is the client's own message, counted from the end
// of its messages; one the request does not have is left out of the snapshot.
func TestASnapshotCarriesTheClientsMessagesByTheirPlace(t *testing.T) {
	set, err := loadOne(t, `
match: {message: find}
events:
  - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
  - {type: MESSAGES_SNAPSHOT, messages: ["{{ nth -3 .messages }}", "{{ nth -2 .messages }}", "{{ nth -1 .messages }}", {id: a, role: assistant, content: found}]}
  - {type: RUN_FINISHED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
`)
	if err != nil {
		t.Fatal(err)
	}
	for body, want := range map[string]string{
		`{"messages":[{"id":"mine","role":"user","content":"find"}]}`:                                                                                        `[{"content":"find","id":"mine","role":"user"},{"content":"found","id":"a","role":"assistant"}]`,
		`{"messages":[{"id":"s","role":"system","content":"be brief"},{"id":"u1","role":"user","content":"hi"},{"id":"u2","role":"user","content":"find"}]}`: `[{"content":"be brief","id":"s","role":"system"},{"content":"hi","id":"u1","role":"user"},{"content":"find","id":"u2","role":"user"},{"content":"found","id":"a","role":"assistant"}]`,
	} {
		c := &conversation{t: t, set: set}
		snapshots := 0
		for _, ev := range c.run(body) {
			if ev.Type == protocol.MessagesSnapshot {
				snapshots++
				list, _ := ev.Get("messages")
				if got, _ := json.Marshal(list); string(got) != want {
					t.Errorf("%s: snapshot %s, want %s", body, got, want)
				}
			}
		}
		if snapshots != 1 {
			t.Errorf("%s: %d snapshots", body, snapshots)
		}
	}
}
