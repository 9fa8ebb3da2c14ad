package scenarios

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

const approvalScenario = `
id: approve
match: {message: deploy}
steps:
  - text: Ready to deploy.
  - tool: {name: deploy, args: {env: prod}}
    id: deploy
  - interrupt:
      - id: int-deploy
        toolCall: deploy
        message: Deploy to prod?
        expiresIn: 10m
        responseSchema: {type: object, properties: {reason: {type: string}}, required: [reason]}
        on:
          resolved:
            - toolResult: deployed
            - text: Deployed because {{ .answer.payload.reason }}.
          cancelled:
            - toolResult: skipped
            - text: Not deployed.
      - id: int-notify
        message: Tell the team?
        on:
          - status: resolved
            payload: {channel: ops}
            steps: [{text: Posted in ops.}]
          - status: resolved
            steps: [{text: Posted in general.}]
  - text: Done.
`

// conversation plays a scenario run by run, as the server does.
type conversation struct {
	t      *testing.T
	set    *Set
	cursor *Cursor
	runs   int
	// dialect is the server's default, as --dialect sets it
	dialect Dialect
}

func (c *conversation) run(body string) []protocol.Event {
	c.t.Helper()
	c.runs++
	req := request(c.t, "/", body)
	req.Input.ThreadID, req.Input.RunID = "t", "r"+string(rune('0'+c.runs))
	opts := PlanOptions{Timing: DefaultTiming(), Now: time.Unix(1000, 0), Dialect: c.dialect}
	var plan *Plan
	var err error
	if c.cursor != nil {
		start, continues, err := Continue(c.cursor, req.Input, opts.Now)
		if err != nil || !continues {
			c.t.Fatalf("run %d does not continue the conversation: %v", c.runs, err)
		}
		plan, err = c.cursor.Scenario.Plan(context.Background(), req, start, opts)
	} else {
		plan = planFor(c.t, c.set, req, opts)
	}
	if err != nil {
		c.t.Fatal(err)
	}
	events := make([]protocol.Event, len(plan.Events))
	for i, e := range plan.Events {
		events[i] = e.Event
	}
	if _, err := protocol.CheckStream(events, "t"); err != nil {
		c.t.Fatalf("run %d breaks the rules: %v", c.runs, err)
	}
	c.cursor = plan.Next
	return events
}

// texts joins each text message's deltas.
func texts(events []protocol.Event) []string {
	var out []string
	for _, ev := range events {
		switch ev.Type {
		case protocol.TextMessageStart:
			out = append(out, "")
		case protocol.TextMessageContent:
			out[len(out)-1] += ev.Str("delta")
		case protocol.ToolCallResult:
			out = append(out, "result:"+ev.Str("content"))
		}
	}
	return out
}

func TestInterruptsPauseAndEachAnswerPicksItsBranch(t *testing.T) {
	set, err := loadOne(t, approvalScenario)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		resume string
		want   []string
	}{
		{"both resolved", `[{"interruptId":"int-deploy","status":"resolved","payload":{"reason":"tests pass"}},{"interruptId":"int-notify","status":"resolved","payload":{"channel":"ops"}}]`,
			[]string{"result:deployed", "Deployed because tests pass.", "Posted in ops.", "Done."}},
		{"case without payload match falls through", `[{"interruptId":"int-deploy","status":"resolved","payload":{"reason":"x"}},{"interruptId":"int-notify","status":"resolved"}]`,
			[]string{"result:deployed", "Deployed because x.", "Posted in general.", "Done."}},
		{"cancelled with no case plays nothing", `[{"interruptId":"int-deploy","status":"cancelled"},{"interruptId":"int-notify","status":"cancelled"}]`,
			[]string{"result:skipped", "Not deployed.", "Done."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &conversation{t: t, set: set}
			first := c.run(`{"messages":[{"role":"user","content":"deploy"}]}`)
			last := first[len(first)-1]
			outcome, _ := last.Get("outcome")
			interrupts := outcome.(map[string]any)["interrupts"].([]any)
			if len(interrupts) != 2 || interrupts[0].(map[string]any)["toolCallId"] == nil || interrupts[0].(map[string]any)["expiresAt"] != "1970-01-01T00:26:40Z" {
				t.Fatalf("interrupt outcome %v", outcome)
			}
			if c.cursor == nil || len(c.cursor.ToolCalls) != 0 {
				t.Fatalf("the approval-bound call must not be awaited as a frontend tool: %+v", c.cursor)
			}
			got := texts(c.run(`{"messages":[],"resume":` + tt.resume + `}`))
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("continuation %q, want %q", got, tt.want)
			}
			if c.cursor != nil {
				t.Error("the conversation should be over")
			}
		})
	}
}

func TestFrontendToolsContinueByTheirResult(t *testing.T) {
	set, err := loadOne(t, `
match: {message: pick}
steps:
  - tool:
      name: choose
      args: {options: [a, b]}
      on:
        - content: ^a$
          steps: [{text: You chose a.}]
        - steps: [{text: 'Not a: {{ .answer.content }}'}]
    id: choice
  - text: Thanks.
  - tool: {name: confirm}
  - text: 'Confirmed {{ .answer.content }}.'
`)
	if err != nil {
		t.Fatal(err)
	}
	c := &conversation{t: t, set: set}
	first := c.run(`{"messages":[{"role":"user","content":"pick"}]}`)
	if c.cursor == nil || len(c.cursor.ToolCalls) != 1 {
		t.Fatalf("the run should wait for the choose tool: %+v", c.cursor)
	}
	outcome, _ := first[len(first)-1].Get("outcome")
	if ids := outcome.(map[string]any)["pendingToolCallIds"].([]any); len(ids) != 1 || ids[0] != c.cursor.ToolCalls[0].ID {
		t.Errorf("outcome %v", outcome)
	}
	callID := c.cursor.ToolCalls[0].ID
	second := c.run(`{"messages":[{"role":"tool","toolCallId":"` + callID + `","content":"b"}]}`)
	if got := texts(second); strings.Join(got, "|") != "Not a: b|Thanks." {
		t.Errorf("second run %q", got)
	}
	confirmID := c.cursor.ToolCalls[0].ID
	third := c.run(`{"messages":[{"role":"tool","toolCallId":"` + confirmID + `","content":"yes"}]}`)
	if got := texts(third); strings.Join(got, "|") != "Confirmed yes." {
		t.Errorf("third run %q", got)
	}
	if c.cursor != nil {
		t.Error("the conversation should be over")
	}
}

func TestNestedInterruptsPauseAgain(t *testing.T) {
	set, err := loadOne(t, `
steps:
  - interrupt:
      message: First?
      on:
        resolved:
          - interrupt: {message: "Really?", on: {resolved: [{text: Both yes.}]}}
  - text: End.
`)
	if err != nil {
		t.Fatal(err)
	}
	c := &conversation{t: t, set: set}
	c.run(`{"messages":[{"role":"user","content":"x"}]}`)
	first := c.cursor.Interrupts[0].ID
	c.run(`{"messages":[],"resume":[{"interruptId":"` + first + `","status":"resolved"}]}`)
	if c.cursor == nil || c.cursor.Interrupts[0].Wire["message"] != "Really?" {
		t.Fatalf("the branch's own interrupt should pause the run: %+v", c.cursor)
	}
	got := texts(c.run(`{"messages":[],"resume":[{"interruptId":"` + c.cursor.Interrupts[0].ID + `","status":"resolved"}]}`))
	if strings.Join(got, "|") != "Both yes.|End." {
		t.Errorf("last run %q", got)
	}
}

func TestAFrontendToolMayEndASpan(t *testing.T) {
	for _, yaml := range []string{
		"steps:\n  - step:\n      name: s\n      steps:\n        - text: hi\n        - tool: {name: a}\n        - tool: {name: b}\n  - text: after\n",
		"steps:\n  - step:\n      name: s\n      steps:\n        - tool: {name: a, result: ok}\n        - text: more\n",
	} {
		if _, err := loadOne(t, yaml); err != nil {
			t.Errorf("%q: %v", yaml, err)
		}
	}
}

func TestConversationLoadErrors(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"interrupt inside a span", "steps:\n  - step:\n      name: s\n      steps:\n        - interrupt: {message: x}\n", "dir/test.yaml:5:11: an interrupt cannot be inside a step span"},
		{"frontend tool followed by steps in its span", "steps:\n  - step:\n      name: s\n      steps:\n        - tool: {name: a}\n        - tool: {name: b}\n        - text: more\n  - text: after\n",
			"dir/test.yaml:6:11: a frontend tool call cannot be followed by more steps inside a step span: the run ends after it (hint: end the span with the tool call)"},
		{"frontend tool ending an inner span followed by steps", "steps:\n  - step:\n      name: outer\n      steps:\n        - step:\n            name: inner\n            steps: [{text: hi}, {tool: {name: a}}]\n        - text: more\n",
			"dir/test.yaml:7:33: a frontend tool call cannot be followed by more steps inside a step span"},
		{"on with a result", "steps:\n  - tool: {name: t, result: ok, on: [{steps: []}]}\n", "on and result exclude each other"},
		{"toolResult outside a branch", "steps:\n  - toolResult: x\n", "dir/test.yaml:2:5: toolResult needs call: <tool step id>"},
		{"unknown toolCall", "steps:\n  - interrupt: {toolCall: nope}\n", `interrupt toolCall "nope" is not the id of an earlier tool step`},
		{"bad case status", "steps:\n  - interrupt: {on: [{status: maybe, steps: []}]}\n", `status is resolved or cancelled, got "maybe"`},
		{"bad response schema", "steps:\n  - interrupt: {responseSchema: {type: 7}}\n", "responseSchema is not a valid JSON Schema"},
		{"a branch breaks the rules", "steps:\n  - interrupt:\n      on:\n        cancelled:\n          - event: {type: TEXT_MESSAGE_END, messageId: m}\n", "dir/test.yaml:5:13: the scenario breaks the AG-UI event rules: event 1 (TEXT_MESSAGE_END): Cannot send 'TEXT_MESSAGE_END': No active text message found with ID 'm'"},
		{"a branch template is wrong", "steps:\n  - tool: {name: t, on: [{content: x, steps: [{text: '{{ .answr }}'}]}]}\n  - text: after\n", ".answr is not request data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadOne(t, tt.yaml)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}
