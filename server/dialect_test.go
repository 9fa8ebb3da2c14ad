package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// approvalNoDialect names no dialect: the server's default decides.
const approvalNoDialect = `
id: approve
steps:
  - interrupt:
      id: int-1
      message: Go ahead?
      on:
        - payload: {ok: true}
          steps: [{text: "Went ahead: {{ .answer.status }}."}]
        - steps: [{text: Stopped.}]
`

func TestTheDialectFlagPlaysInterruptsAsLangGraphDoes(t *testing.T) {
	s := newServer(t, approvalNoDialect, func(c *Config) { c.Speed = 0; c.Dialect = scenarios.DialectLangGraph })
	events := post(t.Context(), s, "/", `{"threadId":"t1","runId":"r1","messages":[]}`, nil).events(t)
	if got := types(events); strings.Join(got, " ") != "RUN_STARTED CUSTOM RUN_FINISHED" {
		t.Fatalf("events %v", got)
	}
	if custom := events[1]; custom.Str("name") != protocol.OnInterrupt || !strings.Contains(custom.Str("value"), `"message":"Go ahead?"`) {
		t.Errorf("the interrupt event %+v", custom)
	}
	if _, ok := events[2].Get("outcome"); ok {
		t.Errorf("RUN_FINISHED carries an outcome: %+v", events[2])
	}
	_, history := postJSON(t, s, HistoryPath, `{"threadId":"t1"}`, nil)
	if list := history["interrupts"].([]any); len(list) != 1 || list[0].(map[string]any)["id"] != "int-1" {
		t.Errorf("history shows the pending interrupts %v", history["interrupts"])
	}

	// the errors of the standard dialect
	status, answer := postJSON(t, s, "/", `{"threadId":"t1","runId":"r2","messages":[]}`, nil)
	if status != http.StatusConflict || answer["error"] != "interrupts_pending" || !strings.Contains(answer["message"].(string), "forwardedProps.command.resume") {
		t.Errorf("a run answering nothing: %d %v", status, answer)
	}
	status, answer = postJSON(t, s, "/", `{"threadId":"t1","runId":"r2","messages":[],"forwardedProps":{"command":{"resume":"x","interruptEvent":{"id":"int-9"}}}}`, nil)
	if status != http.StatusBadRequest || answer["error"] != "unknown_interrupt" {
		t.Errorf("an answer to an interrupt that is not waiting: %d %v", status, answer)
	}
	status, answer = postJSON(t, s, "/", `{"threadId":"t2","runId":"r1","messages":[],"forwardedProps":{"command":{"resume":"x"}}}`, nil)
	if status != http.StatusBadRequest || answer["error"] != "no_pending_interrupts" {
		t.Errorf("an answer on a thread that waits for nothing: %d %v", status, answer)
	}

	events = post(t.Context(), s, "/", `{"threadId":"t1","runId":"r3","messages":[],"forwardedProps":{"command":{"resume":"{\"ok\":true}"}}}`, nil).events(t)
	if _, err := protocol.VerifyStream(events, "t1"); err != nil {
		t.Fatal(err)
	}
	if text := textOf(events); text != "Went ahead: resolved." {
		t.Errorf("the resumed run says %q", text)
	}
	_, history = postJSON(t, s, HistoryPath, `{"threadId":"t1"}`, nil)
	if list := history["interrupts"].([]any); len(list) != 0 {
		t.Errorf("the answered interrupt is still pending: %v", list)
	}
}

// textOf joins the text deltas of a run.
func textOf(events []protocol.Event) string {
	var b strings.Builder
	for _, ev := range events {
		if ev.Type == protocol.TextMessageContent {
			b.WriteString(ev.Str("delta"))
		}
	}
	return b.String()
}

func TestTheScenarioListNamesEachScenariosDialect(t *testing.T) {
	s := newServer(t, strings.Replace(approvalNoDialect, "id: approve", "id: approve\ndialect: langgraph", 1), nil)
	if _, body := call(t, s, http.MethodGet, AdminPrefix+"/scenarios", "", nil); !strings.Contains(body, `"id":"approve"`) || !strings.Contains(body, `"dialect":"langgraph"`) {
		t.Errorf("the scenario list %s", body)
	}
}
