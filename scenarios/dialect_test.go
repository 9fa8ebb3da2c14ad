package scenarios

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

const langgraphScenario = `
id: lg-approve
dialect: langgraph
match: {message: publish}
steps:
  - text: Ready to publish.
  - interrupt:
      id: int-publish
      message: Publish the post?
      metadata: {draft: post-7}
      on:
        - payload: {approved: true}
          steps: [{text: "Published {{ .answer.payload.draft }}."}]
        - steps: [{text: Not published.}]
  - text: Done.
`

// onInterrupts returns the values of a run's on_interrupt events, decoded, and whether
// its RUN_FINISHED has an outcome.
func onInterrupts(t *testing.T, events []protocol.Event) (values []map[string]any, outcome bool) {
	t.Helper()
	for _, ev := range events {
		switch {
		case ev.Type == protocol.Custom && ev.Str("name") == protocol.OnInterrupt:
			var v map[string]any
			if err := json.Unmarshal([]byte(ev.Str("value")), &v); err != nil {
				t.Fatalf("the on_interrupt value is not a JSON string: %v", ev.Fields)
			}
			values = append(values, v)
		case ev.Type == protocol.RunFinished:
			_, outcome = ev.Get("outcome")
		}
	}
	return values, outcome
}

func TestLangGraphInterruptIsACustomEventAndACommandAnswersIt(t *testing.T) {
	set, err := loadOne(t, langgraphScenario)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, command, want string }{
		{"an object", `{"resume":{"approved":true,"draft":"post-7"}}`, "Published post-7.|Done."},
		{"a JSON string, decoded as LangGraph's bridge does", `{"resume":"{\"approved\":true,\"draft\":\"x\"}"}`, "Published x.|Done."},
		{"a plain string", `{"resume":"no thanks"}`, "Not published.|Done."},
		{"naming the event it answers", `{"resume":{"approved":false},"interruptEvent":"{\"id\":\"int-publish\"}"}`, "Not published.|Done."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := &conversation{t: t, set: set}
			values, outcome := onInterrupts(t, c.run(`{"messages":[{"role":"user","content":"publish"}]}`))
			if len(values) != 1 || outcome {
				t.Fatalf("want one on_interrupt event and a plain RUN_FINISHED, got %v (outcome %v)", values, outcome)
			}
			if v := values[0]; v["id"] != "int-publish" || v["message"] != "Publish the post?" || v["metadata"].(map[string]any)["draft"] != "post-7" {
				t.Errorf("the interrupt's value lacks its id, message or metadata: %v", v)
			}
			if c.cursor == nil || c.cursor.Dialect != DialectLangGraph || len(c.cursor.Interrupts) != 1 {
				t.Fatalf("the thread should wait for the interrupt: %+v", c.cursor)
			}
			got := texts(c.run(`{"messages":[],"forwardedProps":{"command":` + tt.command + `}}`))
			if strings.Join(got, "|") != tt.want {
				t.Errorf("continuation %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAStandardResumeAnswersALangGraphInterrupt(t *testing.T) {
	set, err := loadOne(t, langgraphScenario)
	if err != nil {
		t.Fatal(err)
	}
	c := &conversation{t: t, set: set}
	c.run(`{"messages":[{"role":"user","content":"publish"}]}`)
	got := texts(c.run(`{"messages":[],"resume":[{"interruptId":"int-publish","status":"resolved","payload":{"approved":true,"draft":"d"}}]}`))
	if strings.Join(got, "|") != "Published d.|Done." {
		t.Errorf("continuation %q", got)
	}
}

func TestTheServerDefaultDialectAppliesToScenariosThatNameNone(t *testing.T) {
	set, err := loadOne(t, approvalScenario)
	if err != nil {
		t.Fatal(err)
	}
	c := &conversation{t: t, set: set, dialect: DialectLangGraph}
	values, outcome := onInterrupts(t, c.run(`{"messages":[{"role":"user","content":"deploy"}]}`))
	if len(values) != 2 || outcome {
		t.Fatalf("want the two interrupts as on_interrupt events, got %v (outcome %v)", values, outcome)
	}
	// a scenario that names its dialect keeps it
	lg := strings.Replace(langgraphScenario, "dialect: langgraph", "dialect: agui", 1)
	if set, err = loadOne(t, lg); err != nil {
		t.Fatal(err)
	}
	c = &conversation{t: t, set: set, dialect: DialectLangGraph}
	if values, outcome := onInterrupts(t, c.run(`{"messages":[{"role":"user","content":"publish"}]}`)); len(values) != 0 || !outcome {
		t.Errorf("dialect: agui should send the interrupt outcome, got %v (outcome %v)", values, outcome)
	}
}

func TestLangGraphAnswersGetTheErrorsOfTheStandardDialect(t *testing.T) {
	set, err := loadOne(t, langgraphScenario)
	if err != nil {
		t.Fatal(err)
	}
	c := &conversation{t: t, set: set}
	c.run(`{"messages":[{"role":"user","content":"publish"}]}`)
	decode := func(body string) *protocol.RunAgentInput {
		return request(t, "/", body).Input
	}
	now := time.Unix(1000, 0)

	_, _, err = Continue(c.cursor, decode(`{"messages":[{"role":"user","content":"and?"}]}`), now)
	var pending *InterruptsPendingError
	if !errors.As(err, &pending) || !strings.Contains(err.Error(), "forwardedProps.command.resume") {
		t.Errorf("a run that answers nothing: got %v, want an InterruptsPendingError naming forwardedProps.command.resume", err)
	}

	_, _, err = Continue(c.cursor, decode(`{"messages":[],"forwardedProps":{"command":{"resume":"yes","interruptEvent":{"id":"int-other"}}}}`), now)
	var answer *AnswerError
	if !errors.As(err, &answer) || answer.Code != "unknown_interrupt" || answer.InterruptID != "int-other" {
		t.Errorf("an answer to an interrupt that is not waiting: got %v, want unknown_interrupt", err)
	}

	_, _, err = Continue(nil, decode(`{"threadId":"t9","messages":[],"forwardedProps":{"command":{"resume":"yes"}}}`), now)
	var none *NoPendingInterruptsError
	if !errors.As(err, &none) || !strings.Contains(err.Error(), `forwardedProps.command.resume answers an interrupt, but none is pending on thread "t9"`) {
		t.Errorf("an answer on a thread that waits for nothing: got %v", err)
	}
}

func TestTheLangGraphDialectIsChecked(t *testing.T) {
	for _, tt := range []struct{ yaml, want string }{
		{"dialect: langchain\nsteps: [{text: hi}]", `unknown dialect "langchain" (one of agui, langgraph)`},
		{"dialect: langgraph\nsteps:\n  - interrupt: [{message: a}, {message: b}]", "in the langgraph dialect a run answers one interrupt"},
	} {
		_, err := loadOne(t, tt.yaml)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want %q", tt.yaml, err, tt.want)
		}
	}
}

func TestBothDialectsInOneFile(t *testing.T) {
	file := langgraphScenario + "---\n" + strings.Replace(approvalScenario, "id: approve", "id: approve\ndialect: agui", 1)
	set, err := Load(Source{FS: fstest.MapFS{"s/mixed.yaml": {Data: []byte(file)}}, Root: "s"})
	if err != nil {
		t.Fatal(err)
	}
	c := &conversation{t: t, set: set}
	if values, outcome := onInterrupts(t, c.run(`{"messages":[{"role":"user","content":"publish"}]}`)); len(values) != 1 || outcome {
		t.Errorf("the langgraph scenario of the file: %v, outcome %v", values, outcome)
	}
	c = &conversation{t: t, set: set, dialect: DialectLangGraph}
	if values, outcome := onInterrupts(t, c.run(`{"messages":[{"role":"user","content":"deploy"}]}`)); len(values) != 0 || !outcome {
		t.Errorf("the agui scenario of the file: %v, outcome %v", values, outcome)
	}
}

// A LangGraph session as the recorder writes it: the explicit form, whose on_interrupt
// event is the interrupt the run waits for.
const recordedLangGraph = `
id: rec-lg
dialect: langgraph
match: {message: publish}
events:
  - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
  - {type: CUSTOM, name: on_interrupt, value: "{\"question\": \"Publish?\"}"}
  - {type: RUN_FINISHED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
next:
  - when: {resume: [{status: resolved, payload: {approved: true}}]}
    events:
      - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
      - {type: TEXT_MESSAGE_START, messageId: m1, role: assistant}
      - {type: TEXT_MESSAGE_CONTENT, messageId: m1, delta: published}
      - {type: TEXT_MESSAGE_END, messageId: m1}
      - {type: RUN_FINISHED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
`

func TestARecordedLangGraphSessionWaitsForItsCommand(t *testing.T) {
	set, err := loadOne(t, recordedLangGraph)
	if err != nil {
		t.Fatal(err)
	}
	c := &conversation{t: t, set: set}
	c.run(`{"messages":[{"role":"user","content":"publish"}]}`)
	if c.cursor == nil || len(c.cursor.Interrupts) != 1 || c.cursor.Interrupts[0].Wire["message"] != nil {
		t.Fatalf("the on_interrupt event should pause the thread: %+v", c.cursor)
	}
	if got := texts(c.run(`{"messages":[],"forwardedProps":{"command":{"resume":"{\"approved\":true}","interruptEvent":"{\"question\": \"Publish?\"}"}}}`)); strings.Join(got, "|") != "published" {
		t.Errorf("continuation %q", got)
	}
}
