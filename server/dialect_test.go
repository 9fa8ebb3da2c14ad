package server

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
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
	if _, err := protocol.CheckStream(events, "t1"); err != nil {
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

// TestEveryAccountOfAnInterruptedRunSaysWhatTheWireSaid runs the same interrupt in both
// dialects and reads the run back from the log line, the journal, the metrics, the
// thread history and the inspector's run detail: each says the outcome the client saw
// (interrupt on the standard wire, success on LangGraph's, whose RUN_FINISHED carries no
// outcome) and that the run left one interrupt waiting for an answer.
func TestEveryAccountOfAnInterruptedRunSaysWhatTheWireSaid(t *testing.T) {
	for _, tt := range []struct {
		dialect scenarios.Dialect
		outcome protocol.Outcome
	}{
		{scenarios.DialectAGUI, protocol.OutcomeInterrupt},
		{scenarios.DialectLangGraph, protocol.OutcomeSuccess},
	} {
		t.Run(string(tt.dialect), func(t *testing.T) {
			var log strings.Builder
			s := newServer(t, approvalNoDialect, func(c *Config) {
				c.Speed, c.Dialect, c.Metrics = 0, tt.dialect, true
				c.Logger = slog.New(slog.NewJSONHandler(&log, nil))
			})
			events := post(t.Context(), s, "/", `{"threadId":"t1","runId":"r1","messages":[]}`, nil).events(t)
			if wire := protocol.OutcomeOf(events[len(events)-1]); wire != tt.outcome {
				t.Fatalf("the client saw the outcome %s, want %s", wire, tt.outcome)
			}

			var line struct {
				Outcome  protocol.Outcome
				Awaiting int
			}
			for l := range strings.Lines(log.String()) {
				if strings.Contains(l, `"msg":"run"`) {
					if err := json.Unmarshal([]byte(l), &line); err != nil {
						t.Fatal(err)
					}
				}
			}
			if line.Outcome != tt.outcome || line.Awaiting != 1 {
				t.Errorf("the log line says %+v:\n%s", line, log.String())
			}

			runs := s.tests.Journal.List("", func(e JournalEntry) bool { return e.RunID == "r1" })
			if len(runs) != 1 || runs[0].Outcome != tt.outcome || runs[0].Awaiting != 1 {
				t.Fatalf("the journal says %+v", runs)
			}

			if _, body := call(t, s, "GET", "/metrics", "", nil); !strings.Contains(body, `agui_mock_runs_total{scenario="approve",outcome="`+string(tt.outcome)+`"} 1`) ||
				!strings.Contains(body, `agui_mock_runs_awaiting_total{scenario="approve"} 1`) {
				t.Errorf("the metrics say:\n%s", body)
			}

			_, history := postJSON(t, s, HistoryPath, `{"threadId":"t1"}`, nil)
			run := history["runs"].([]any)[0].(map[string]any)
			if run["outcome"] != string(tt.outcome) || run["awaiting"] != 1.0 {
				t.Errorf("the history says %v", run)
			}

			_, body := call(t, s, "GET", AdminPrefix+"/journal/"+strconv.FormatInt(runs[0].Seq, 10), "", nil)
			var detail struct {
				Entry      JournalEntry
				Interrupts []map[string]any
			}
			if err := json.Unmarshal([]byte(body), &detail); err != nil {
				t.Fatal(err)
			}
			if detail.Entry.Outcome != tt.outcome || detail.Entry.Awaiting != 1 || len(detail.Interrupts) != 1 || detail.Interrupts[0]["id"] != "int-1" {
				t.Errorf("the inspector's run detail says %s", body)
			}

			// the answer leaves nothing waiting: the answering run awaits nothing
			answer := `{"threadId":"t1","runId":"r2","messages":[],"resume":[{"interruptId":"int-1","status":"resolved","payload":{"ok":true}}]}`
			post(t.Context(), s, "/", answer, nil).events(t)
			answered := s.tests.Journal.List("", func(e JournalEntry) bool { return e.RunID == "r2" })
			if len(answered) != 1 || answered[0].Outcome != protocol.OutcomeSuccess || answered[0].Awaiting != 0 {
				t.Errorf("the answering run's entry %+v", answered)
			}
		})
	}
}
