package scenarios

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

const publish = `id: publish
match: {message: publish}
steps:
  - text: The draft is ready.
  - interrupt:
      id: int-publish
      message: Publish?
      on:
        - payload: {approved: true}
          steps: [{text: Published.}]
        - steps: [{text: Not published.}]
---
id: clarify
match: {message: video}
steps:
  - tool: {name: clarify, args: {question: "Which style?"}}
  - text: "Making it {{ .answer.content }}."
`

// seeded decodes a seeded thread from JSON.
func seeded(t *testing.T, body string) *protocol.SeededThread {
	t.Helper()
	v, err := protocol.DecodeJSON([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	thread, err := protocol.DecodeSeededThread(v, func(kind string) string { n++; return kind + "-" + strconv.Itoa(n) })
	if err != nil {
		t.Fatal(err)
	}
	return thread
}

func TestASeededThreadContinuesTheScenarioItNames(t *testing.T) {
	set, err := loadOne(t, publish)
	if err != nil {
		t.Fatal(err)
	}
	thread := seeded(t, `{"threadId": "t", "scenario": "publish", "messages": [{"id": "u", "role": "user", "content": "publish it"}, {"id": "a", "role": "assistant", "content": "The draft is ready."}],
		"interrupts": [{"id": "my-interrupt", "reason": "confirm", "message": "Publish?"}]}`)
	cursor, err := set.SeedCursor(t.Context(), thread, "/copilotkit/agent/default/run", PlanOptions{Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if cursor == nil || len(cursor.Interrupts) != 1 || cursor.Interrupts[0].ID != "my-interrupt" || cursor.Scenario.ID != "publish" {
		t.Fatalf("cursor %+v", cursor)
	}
	in := &protocol.RunAgentInput{ThreadID: "t", RunID: "r2", Resume: []protocol.ResumeEntry{{InterruptID: "my-interrupt", Status: "resolved", Payload: map[string]any{"approved": true}}}}
	start, continues, err := Continue(cursor, in, time.Now())
	if err != nil || !continues {
		t.Fatalf("the answer does not continue the scenario: %v %v", continues, err)
	}
	plan, err := cursor.Scenario.Plan(t.Context(), &Request{Input: in}, start, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if texts := planText(plan); !strings.Contains(texts, "Published.") {
		t.Errorf("the branch of the answer is not played: %q", texts)
	}

	tool := seeded(t, `{"threadId": "t", "scenario": "clarify", "messages": [{"role": "user", "content": "a video"},
		{"role": "assistant", "toolCalls": [{"id": "my-call", "function": {"name": "clarify", "arguments": "{}"}}]}]}`)
	cursor, err = set.SeedCursor(t.Context(), tool, "/copilotkit/agent/default/run", PlanOptions{Now: time.Now()})
	if err != nil || len(cursor.ToolCalls) != 1 || cursor.ToolCalls[0].ID != "my-call" {
		t.Fatalf("tool cursor %+v %v", cursor, err)
	}
}

// planText joins the text deltas of a plan.
func planText(plan *Plan) string {
	var b strings.Builder
	for _, t := range plan.Events {
		b.WriteString(t.Event.Str("delta"))
	}
	return b.String()
}

func TestASeededThreadNamingAScenarioThatPausesElsewhereIsRefused(t *testing.T) {
	set, err := loadOne(t, publish)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ body, problem string }{
		{`{"threadId": "t", "scenario": "nope", "messages": [{"role": "user", "content": "x"}]}`, "no scenario of that id is loaded"},
		{`{"threadId": "t", "scenario": "clarify", "messages": [{"role": "user", "content": "video"}], "interrupts": [{"id": "i", "reason": "confirm"}]}`, `waits for tool call(s) ["clarify"], and the thread waits for 1 interrupt(s)`},
		{`{"threadId": "t", "scenario": "clarify", "messages": [{"role": "user", "content": "video"}, {"role": "assistant", "toolCalls": [{"id": "c", "function": {"name": "other", "arguments": "{}"}}]}]}`, `its tool call 1 is "clarify", and the thread's is "other"`},
	} {
		_, err := set.SeedCursor(t.Context(), seeded(t, tt.body), "/r", PlanOptions{Now: time.Now()})
		var me *SeedMismatchError
		if !errors.As(err, &me) || !strings.Contains(err.Error(), tt.problem) {
			t.Errorf("%s: %v, want %q", tt.body, err, tt.problem)
		}
	}
	finished := seeded(t, `{"threadId": "t", "scenario": "clarify", "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}]}`)
	if cursor, err := set.SeedCursor(t.Context(), finished, "/r", PlanOptions{}); cursor != nil || err != nil {
		t.Errorf("a thread that waits for nothing: %v %v", cursor, err)
	}
}

func TestASeededPauseWithoutAScenarioChecksAnswersAndStartsAfresh(t *testing.T) {
	thread := seeded(t, `{"threadId": "t", "messages": [{"role": "user", "content": "x"}], "interrupts": [{"id": "i1", "reason": "confirm"}]}`)
	cursor := SeededPause(thread)
	if cursor == nil || cursor.Scenario != nil || len(cursor.Interrupts) != 1 {
		t.Fatalf("%+v", cursor)
	}
	wrong := &protocol.RunAgentInput{Resume: []protocol.ResumeEntry{{InterruptID: "i2", Status: "resolved"}}}
	var ae *AnswerError
	if _, _, err := Continue(cursor, wrong, time.Now()); !errors.As(err, &ae) || ae.Code != "unknown_interrupt" {
		t.Errorf("a wrong answer: %v", err)
	}
	right := &protocol.RunAgentInput{Resume: []protocol.ResumeEntry{{InterruptID: "i1", Status: "resolved"}}}
	if _, continues, err := Continue(cursor, right, time.Now()); continues || err != nil {
		t.Errorf("a right answer: %v %v, want a fresh start", continues, err)
	}
	if _, _, err := Continue(cursor, &protocol.RunAgentInput{}, time.Now()); err == nil {
		t.Error("a run that does not answer the interrupts is taken")
	}
	done := seeded(t, `{"threadId": "t", "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}]}`)
	if SeededPause(done) != nil {
		t.Error("a finished thread waits")
	}
}

func TestThreadDocumentsLoadBesideScenarios(t *testing.T) {
	set, err := loadOne(t, publish+`---
thread:
  threadId: yesterday
  agent: writer
  scenario: publish
  messages:
    - {role: user, content: publish the post}
    - {role: assistant, content: The draft is ready.}
  interrupts: [{id: int-1, reason: confirm, message: "Publish?"}]
`)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Scenarios()) != 2 || len(set.Threads()) != 1 || set.Thread("yesterday") == nil || set.Thread("yesterday").Agent != "writer" {
		t.Errorf("%d scenarios, threads %+v", len(set.Scenarios()), set.Threads())
	}
}

func TestAThreadDocumentsProblemIsReportedAtItsMember(t *testing.T) {
	for _, tt := range []struct {
		yaml, want string
	}{
		{"thread:\n  threadId: t\n  messages:\n    - {role: user, content: hi}\n    - {role: tool, toolCallId: x, content: r}\n",
			`dir/test.yaml:5:32: thread.messages[1].toolCallId: no assistant message before it made a tool call "x"`},
		{"thread:\n  threadId: t\n  scenario: missing\n  messages: [{role: user, content: hi}]\n",
			`scenario "missing" cannot answer this thread's next run: no scenario of that id is loaded`},
		{"thread:\n  messages: []\n", `thread.threadId: required, but missing`},
		{"thread: {threadId: t, messages: [{role: user, content: a}]}\n---\nthread: {threadId: t, messages: [{role: user, content: b}]}\n", `thread "t" is already seeded by`},
	} {
		_, err := loadOne(t, tt.yaml)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v\nwant %q", tt.yaml, err, tt.want)
		}
	}
}

func TestAgentMatchesRunsOfTheRuntimesRoutes(t *testing.T) {
	set, err := loadOne(t, "id: researcher\nmatch: {agent: [researcher, scout]}\nsteps: [{text: found}]\n")
	if err != nil {
		t.Fatal(err)
	}
	req := func(agent string) *Request {
		return &Request{Route: "/r", Agent: agent, Input: &protocol.RunAgentInput{}}
	}
	if sel, _ := set.Select(req("scout")); sel == nil {
		t.Error("agent scout does not select it")
	}
	for agent, reason := range map[string]string{"": "the run names no agent", "writer": "agent writer is not researcher or scout"} {
		sel, candidates := set.Select(req(agent))
		if sel != nil || len(candidates) != 1 || !strings.Contains(strings.Join(candidates[0].Reasons, ";"), reason) {
			t.Errorf("agent %q: %v %+v, want %q", agent, sel, candidates, reason)
		}
	}
	if got := set.Agents(); len(got) != 2 || got[0] != "researcher" || got[1] != "scout" {
		t.Errorf("agents %v", got)
	}
}
