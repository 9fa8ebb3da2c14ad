package scenarios

import (
	"errors"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

func TestCheckAnswers(t *testing.T) {
	set, err := loadOne(t, approvalScenario)
	if err != nil {
		t.Fatal(err)
	}
	c := &conversation{t: t, set: set}
	c.run(`{"messages":[{"role":"user","content":"deploy"}]}`)
	ok := `{"interruptId":"int-notify","status":"cancelled"}`
	tests := []struct {
		name, resume, code string
		at                 time.Time
	}{
		{"missing one", `[` + ok + `]`, "interrupt_not_answered", time.Unix(1000, 0)},
		{"unknown id", `[{"interruptId":"nope","status":"resolved"},` + ok + `]`, "unknown_interrupt", time.Unix(1000, 0)},
		{"twice", `[` + ok + `,` + ok + `]`, "duplicate_answer", time.Unix(1000, 0)},
		{"schema", `[{"interruptId":"int-deploy","status":"resolved","payload":{"reason":5}},` + ok + `]`, "invalid_payload", time.Unix(1000, 0)},
		{"expired", `[{"interruptId":"int-deploy","status":"resolved","payload":{"reason":"late"}},` + ok + `]`, "interrupt_expired", time.Unix(1000, 0).Add(11 * time.Minute)},
		{"expired may still be cancelled", `[{"interruptId":"int-deploy","status":"cancelled"},` + ok + `]`, "", time.Unix(1000, 0).Add(11 * time.Minute)},
		{"resolved without payload is checked as an empty object", `[{"interruptId":"int-deploy","status":"resolved"},` + ok + `]`, "invalid_payload", time.Unix(1000, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := protocol.DecodeRunAgentInput([]byte(`{"messages":[],"resume":`+tt.resume+`}`), protocol.DecodeOptions{NewID: func(string) string { return "x" }})
			if err != nil {
				t.Fatal(err)
			}
			err = c.cursor.CheckAnswers(in.Resume, tt.at)
			var ae *AnswerError
			switch {
			case tt.code == "" && err != nil:
				t.Errorf("rejected: %v", err)
			case tt.code != "" && (!errors.As(err, &ae) || ae.Code != tt.code):
				t.Errorf("got %v, want %s", err, tt.code)
			}
		})
	}
}

func TestContinue(t *testing.T) {
	set, err := loadOne(t, approvalScenario)
	if err != nil {
		t.Fatal(err)
	}
	c := &conversation{t: t, set: set}
	c.run(`{"messages":[{"role":"user","content":"deploy"}]}`)
	tools, err := loadOne(t, `
match: {message: pick}
steps:
  - tool: {name: pick, args: {}}
  - text: Picked.
`)
	if err != nil {
		t.Fatal(err)
	}
	tc := &conversation{t: t, set: tools}
	tc.run(`{"messages":[{"role":"user","content":"pick"}]}`)
	callID := tc.cursor.ToolCalls[0].ID
	answers := `[{"interruptId":"int-deploy","status":"cancelled"},{"interruptId":"int-notify","status":"cancelled"}]`
	tests := []struct {
		name      string
		cursor    *Cursor
		body      string
		continues bool
		err       any // a pointer to the type of error wanted, or nil
	}{
		{"nothing paused", nil, `{"messages":[]}`, false, nil},
		{"interrupts answered", c.cursor, `{"messages":[],"resume":` + answers + `}`, true, nil},
		{"interrupts not answered", c.cursor, `{"messages":[]}`, false, new(*InterruptsPendingError)},
		{"answers that do not check", c.cursor, `{"messages":[],"resume":[{"interruptId":"nope","status":"resolved"}]}`, false, new(*AnswerError)},
		{"answers with nothing pending", nil, `{"messages":[],"resume":` + answers + `}`, false, new(*NoPendingInterruptsError)},
		{"tool results brought", tc.cursor, `{"messages":[{"id":"m","role":"tool","toolCallId":"` + callID + `","content":"a"}]}`, true, nil},
		{"tool results missing: start afresh", tc.cursor, `{"messages":[{"role":"user","content":"pick"}]}`, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := protocol.DecodeRunAgentInput([]byte(tt.body), protocol.DecodeOptions{NewID: func(string) string { return "x" }})
			if err != nil {
				t.Fatal(err)
			}
			start, continues, err := Continue(tt.cursor, in, time.Unix(1000, 0))
			switch {
			case tt.err == nil && err != nil:
				t.Fatalf("rejected: %v", err)
			case tt.err != nil && !errors.As(err, tt.err):
				t.Fatalf("got %v, want a %T", err, tt.err)
			case continues != tt.continues || (start.Resume != nil) != tt.continues:
				t.Errorf("continues %v with %+v, want %v", continues, start, tt.continues)
			}
		})
	}
}

// A run can wait for a frontend tool call and an interrupt at once. Loading tries each
// branch of each: forcing the tool call's third case must not force a third case on the
// interrupt, which has two.
func TestLoadingForcesOneItemsBranchAtATime(t *testing.T) {
	_, err := loadOne(t, `
match: {message: both}
steps:
  - tool:
      name: pick
      args: {}
      on:
        - {content: a, steps: [{text: A.}]}
        - {content: b, steps: [{text: B.}]}
        - {steps: [{text: Other.}]}
  - interrupt:
      id: sure
      on: {resolved: [{text: Yes.}], cancelled: [{text: No.}]}
`)
	if err != nil {
		t.Fatal(err)
	}
}

// Both forms of a scenario show a continuing run's templates the same answers: .resume
// lists the answer to each interrupt in the order the interrupts were raised, whatever
// the order of the request's resume, each with the toolCallId of a tool-bound one, and
// .answer after the branches is the answer to the last interrupt.
func TestBothFormsShowTheTemplatesTheSameAnswers(t *testing.T) {
	const show = `'{{ json .resume }} {{ json .answer }}'`
	forms := map[string]string{
		"steps": `
match: {message: deploy}
steps:
  - tool: {name: deploy, args: {env: prod}}
    id: deploy
  - interrupt:
      - {id: int-deploy, toolCall: deploy}
      - {id: int-notify}
  - text: ` + show + `
`,
		"events": `
match: {message: deploy}
events:
  - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
  - {type: TOOL_CALL_START, toolCallId: call-1, toolCallName: deploy}
  - {type: TOOL_CALL_END, toolCallId: call-1}
  - {type: RUN_FINISHED, threadId: "{{ .threadId }}", runId: "{{ .runId }}", outcome: {type: interrupt, interrupts: [{id: int-deploy, reason: tool_call, toolCallId: call-1}, {id: int-notify, reason: confirmation}]}}
next:
  - events:
      - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
      - {type: TEXT_MESSAGE_START, messageId: m1, role: assistant}
      - {type: TEXT_MESSAGE_CONTENT, messageId: m1, delta: ` + show + `}
      - {type: TEXT_MESSAGE_END, messageId: m1}
      - {type: RUN_FINISHED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
`,
	}
	for name, yaml := range forms {
		t.Run(name, func(t *testing.T) {
			set, err := loadOne(t, yaml)
			if err != nil {
				t.Fatal(err)
			}
			c := &conversation{t: t, set: set}
			c.run(`{"messages":[{"role":"user","content":"deploy"}]}`)
			if c.cursor == nil || len(c.cursor.Interrupts) != 2 {
				t.Fatalf("the run should pause on two interrupts: %+v", c.cursor)
			}
			call := c.cursor.Interrupts[0].ToolCallID
			got := texts(c.run(`{"messages":[],"resume":[{"interruptId":"int-notify","status":"cancelled"},{"interruptId":"int-deploy","status":"resolved","payload":{"reason":"now"}}]}`))
			notify := `{"interruptId":"int-notify","payload":{},"status":"cancelled"}`
			want := `[{"interruptId":"int-deploy","payload":{"reason":"now"},"status":"resolved","toolCallId":"` + call + `"},` + notify + `] ` + notify
			if len(got) != 1 || got[0] != want {
				t.Errorf("the templates see\n%q\nwant\n%q", got, want)
			}
		})
	}
}
