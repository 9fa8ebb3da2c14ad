package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// postJSON sends a non-streaming request to the handler and decodes its JSON answer.
func postJSON(t *testing.T, s *Server, path, body string, header map[string]string) (int, map[string]any) {
	t.Helper()
	rec := post(t.Context(), s, path, body, header)
	var out map[string]any
	if err := json.Unmarshal([]byte(rec.body()), &out); err != nil {
		t.Fatalf("%s: %d %q is not JSON: %v", path, rec.status, rec.body(), err)
	}
	return rec.status, out
}

func TestCancelEndsTheStreamWithACancelledOutcome(t *testing.T) {
	for _, tt := range []struct {
		version, lastType, code, message string
	}{
		{"1.0", protocol.RunFinished, "", "its stream ended with RUN_FINISHED with outcome cancelled"},
		{"", protocol.RunError, "cancelled", "its stream ended with RUN_ERROR with code cancelled (the client sent no protocolVersion"},
	} {
		t.Run("client "+tt.version, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newServer(t, timedScenario, nil)
				done := make(chan *streamRecorder)
				body := `{"threadId":"t1","runId":"r1","messages":[]}`
				if tt.version != "" {
					body = `{"threadId":"t1","runId":"r1","protocolVersion":"` + tt.version + `","messages":[]}`
				}
				go func() { done <- post(t.Context(), s, "/", body, nil) }()
				time.Sleep(1150 * time.Millisecond) // inside the first text message
				status, answer := postJSON(t, s, CancelPath, `{"threadId":"t1"}`, nil)
				if status != 200 || answer["cancelled"] != true || answer["runId"] != "r1" || !strings.Contains(answer["message"].(string), tt.message) {
					t.Errorf("cancel answered %d %v, want a message with %q", status, answer, tt.message)
				}
				events := (<-done).events(t)
				if _, err := protocol.CheckStream(events, "t1"); err != nil {
					t.Errorf("the cancelled stream breaks the rules: %v\n%v", err, types(events))
				}
				last := events[len(events)-1]
				if last.Type != tt.lastType || last.Str("code") != tt.code {
					t.Errorf("last event %+v", last)
				}
				status, history := postJSON(t, s, HistoryPath, `{"threadId":"t1"}`, nil)
				runs := history["runs"].([]any)
				if status != 200 || runs[0].(map[string]any)["outcome"] != "cancelled" || history["running"] != nil {
					t.Errorf("history %d %v", status, history)
				}
				status, answer = postJSON(t, s, CancelPath, `{"threadId":"t1"}`, nil)
				if status != 200 || answer["cancelled"] != false {
					t.Errorf("second cancel %d %v", status, answer)
				}
			})
		})
	}
}

func TestOneStreamPerThread(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, timedScenario, nil)
		done := make(chan *streamRecorder)
		go func() { done <- post(t.Context(), s, "/", `{"threadId":"t1","runId":"r1","messages":[]}`, nil) }()
		time.Sleep(time.Second)
		asked := time.Now()
		status, answer := postJSON(t, s, "/", `{"threadId":"t1","runId":"r2","messages":[]}`, nil)
		if status != http.StatusConflict || answer["error"] != "run_in_progress" {
			t.Errorf("second run got %d %v", status, answer)
		}
		if waited := time.Since(asked); waited != busyWait {
			t.Errorf("the second run was refused after %v, want after waiting %v for the first to end", waited, busyWait)
		}
		<-done
		if rec := post(t.Context(), s, "/", `{"threadId":"t1","runId":"r3","messages":[]}`, nil); rec.status != 200 {
			t.Errorf("a run after the first ended got %d", rec.status)
		}
	})
}

// A client that stops a run and at once starts the next one on the thread may come
// before the server has seen it leave: the next run waits for the first to end, and
// streams, as it would against an agent.
func TestARunJustAfterAStoppedOneWaitsForItsEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, timedScenario, nil)
		stopped, stop := context.WithCancel(t.Context())
		done := make(chan *streamRecorder)
		go func() { done <- post(stopped, s, "/", `{"threadId":"t1","runId":"r1","messages":[]}`, nil) }()
		time.Sleep(time.Second)
		next := make(chan *streamRecorder)
		go func() { next <- post(t.Context(), s, "/", `{"threadId":"t1","runId":"r2","messages":[]}`, nil) }()
		time.Sleep(300 * time.Millisecond) // the server sees the first client leave only now
		stop()
		<-done
		if rec := <-next; rec.status != http.StatusOK || !strings.Contains(rec.body(), "RUN_FINISHED") {
			t.Errorf("the run after the stopped one got %d:\n%s", rec.status, rec.body())
		}
	})
}

func TestConversationEndpointsAnswerErrors(t *testing.T) {
	s := newServer(t, "", nil)
	tests := []struct {
		name, path, body string
		status           int
		code             string
	}{
		{"history of an unknown thread", HistoryPath, `{"threadId":"nope","forwardedProps":{"scenario_name":"video-mixcut"}}`, 404, "unknown_thread"},
		{"cancel of an unknown thread", CancelPath, `{"threadId":"nope"}`, 404, "unknown_thread"},
		{"history without threadId", HistoryPath, `{"forwardedProps":{}}`, 400, "invalid_input"},
		{"cancel with a numeric threadId", CancelPath, `{"threadId":7}`, 400, "invalid_input"},
		{"history with broken JSON", HistoryPath, `{"threadId":`, 400, "invalid_input"},
		{"resume with nothing pending", "/agui/chat", `{"threadId":"fresh","messages":[],"resume":[{"interruptId":"i","status":"resolved"}]}`, 400, "no_pending_interrupts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, answer := postJSON(t, s, tt.path, tt.body, nil)
			if status != tt.status || answer["error"] != tt.code {
				t.Errorf("got %d %v, want %d %s", status, answer, tt.status, tt.code)
			}
		})
	}
}

func TestPendingInterruptsMustBeAnswered(t *testing.T) {
	s := newServer(t, "", func(c *Config) { c.Speed = 0 })
	first := `{"threadId":"m1","runId":"r1","messages":[{"id":"u1","role":"user","content":"Search for ocean wave videos and trim the first 10 seconds"}],"forwardedProps":{"scenario_name":"media_management","approval_mode":"level:low"}}`
	events := post(t.Context(), s, "/agui/chat", first, nil).events(t)
	outcome, _ := events[len(events)-1].Get("outcome")
	if outcome.(map[string]any)["type"] != "interrupt" {
		t.Fatalf("outcome %v", outcome)
	}
	status, answer := postJSON(t, s, "/agui/chat", `{"threadId":"m1","runId":"r2","messages":[{"role":"user","content":"hello?"}]}`, nil)
	if status != http.StatusConflict || answer["error"] != "interrupts_pending" || len(answer["details"].(map[string]any)["interrupts"].([]any)) != 2 {
		t.Errorf("a run without resume got %d %v", status, answer)
	}
	status, answer = postJSON(t, s, "/agui/chat", `{"threadId":"m1","runId":"r2","messages":[],"resume":[{"interruptId":"interruptId-001","status":"resolved","payload":{"nope":1}},{"interruptId":"interruptId-002","status":"resolved"}]}`, nil)
	if status != http.StatusBadRequest || answer["error"] != "invalid_payload" || !strings.Contains(answer["message"].(string), "additional properties 'nope' not allowed") {
		t.Errorf("a bad payload got %d %v", status, answer)
	}
	// the rejected requests changed nothing: the right answer still continues
	resume := `{"threadId":"m1","runId":"r2","messages":[{"role":"user","content":""}],"resume":[{"interruptId":"interruptId-001","status":"cancelled","payload":{"feedback":"No cropping needed"}},{"interruptId":"interruptId-002","status":"resolved"}]}`
	events = post(t.Context(), s, "/agui/chat", resume, nil).events(t)
	var text strings.Builder
	for _, ev := range events {
		text.WriteString(ev.Str("delta"))
	}
	if want := `Left the video untrimmed ("No cropping needed").Added the watermark.`; !strings.Contains(text.String(), want) {
		t.Errorf("continuation %q lacks %q", text.String(), want)
	}
	_, history := postJSON(t, s, HistoryPath, `{"threadId":"m1"}`, nil)
	if len(history["interrupts"].([]any)) != 0 || len(history["runs"].([]any)) != 2 {
		t.Errorf("history %v", history)
	}
}

func TestBearerAuth(t *testing.T) {
	s := newServer(t, "", func(c *Config) { c.AuthToken = "s3cret"; c.Speed = 0 })
	tests := []struct {
		name, path, auth string
		status           int
		mention          string // a 401 answer must say this
	}{
		{"run without a token", "/agui/chat", "", 401, "missing Authorization header"},
		{"run with a wrong token", "/agui/chat", "Bearer nope", 401, "the bearer token is not valid"},
		{"history without a token", HistoryPath, "", 401, "missing Authorization header"},
		{"cancel with the token in the wrong scheme", CancelPath, "Basic s3cret", 401, `uses the \"Basic\" scheme; send Authorization: Bearer`},
		{"run with a token and no scheme", "/agui/chat", "s3cret", 401, "names no scheme"},
		{"run with a token before another word", "/agui/chat", "s3cret more", 401, "does not start with a known scheme; send Authorization: Bearer"},
		{"run with the scheme and no token", "/agui/chat", "Bearer", 401, "the bearer token is not valid"},
		{"run with the token", "/agui/chat", "Bearer s3cret", 200, ""},
		{"run with the scheme in lower case", "/agui/chat", "bearer s3cret", 200, ""},
		{"run with the scheme in upper case", "/agui/chat", "BEARER s3cret", 200, ""},
		{"history with the token", HistoryPath, "Bearer s3cret", 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := map[string]string{}
			if tt.auth != "" {
				header["Authorization"] = tt.auth
			}
			rec := post(t.Context(), s, tt.path, `{"threadId":"unseen","messages":[{"role":"user","content":"hi"}]}`, header)
			if rec.status != tt.status {
				t.Errorf("got %d %s, want %d", rec.status, rec.body(), tt.status)
			}
			if tt.status == 401 && (!strings.Contains(rec.body(), `"error":"unauthorized"`) || !strings.Contains(rec.body(), tt.mention) || rec.header.Get("WWW-Authenticate") == "" ||
				strings.Contains(rec.body(), "s3cret")) {
				t.Errorf("401 answer %q %v, want it to say %q and not the token", rec.body(), rec.header, tt.mention)
			}
		})
	}
	// Without a token of its own, the admin API, health checks included, takes this one.
	for auth, want := range map[string]int{"": 401, "Bearer s3cret": 200} {
		if status, body := call(t, s, http.MethodGet, AdminPrefix+"/healthz", "", map[string]string{"Authorization": auth}); status != want {
			t.Errorf("a health check with Authorization %q: %d %s, want %d", auth, status, body, want)
		}
	}
}

func TestAnIdleThreadExpiresWithoutAnotherBeingCreated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, "", func(c *Config) { c.Speed = 0; c.Threads.IdleTTL = 3 * time.Second })
		if rec := post(t.Context(), s, "/agui/chat", `{"threadId":"T9","messages":[{"role":"user","content":"hi"}]}`, nil); rec.status != 200 {
			t.Fatal(rec.status, rec.body())
		}
		time.Sleep(8 * time.Second)
		if status, answer := postJSON(t, s, HistoryPath, `{"threadId":"T9"}`, nil); status != 404 || answer["error"] != "unknown_thread" {
			t.Errorf("history of a thread idle past --thread-ttl: %d %v", status, answer)
		}
	})
}

func TestAnUnrecordedAnswerSaysHowToRecordIt(t *testing.T) {
	s := newServer(t, `
id: rec
match: {message: ^approve$}
events:
  - {type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
  - {type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ .runId }}', outcome: {type: interrupt, interrupts: [{id: i1, reason: confirmation}]}}
next:
  - when: {resume: [{status: resolved}]}
    events:
      - {type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
      - {type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
`, nil)
	if rec := post(t.Context(), s, "/", `{"threadId":"t","runId":"r1","protocolVersion":"1.1","messages":[{"id":"u1","role":"user","content":"approve"}]}`, nil); rec.status != 200 {
		t.Fatalf("first run: %d %s", rec.status, rec.body())
	}
	status, answer := postJSON(t, s, "/", `{"threadId":"t","runId":"r2","protocolVersion":"1.1","messages":[],"resume":[{"interruptId":"i1","status":"cancelled"}]}`, nil)
	msg, _ := answer["message"].(string)
	if status != 400 || answer["error"] != "no_recorded_branch" || !strings.Contains(msg, "through `agui-mock record` into the same --record-dir") ||
		!strings.Contains(msg, "serve --record-missing replays the recorded first run") {
		t.Errorf("an unrecorded answer: %d %v", status, answer)
	}
}

func TestAResolvedAnswerWithoutPayloadIsCheckedAgainstTheResponseSchema(t *testing.T) {
	const scenario = `
match: {message: go}
steps:
  - interrupt:
      - id: ex-1
        responseSchema: {type: object, required: [ok]}
        on: {resolved: [{text: Resolved.}]}
  - text: Fallback.
---
id: lenient
match: {message: any}
steps:
  - interrupt:
      - id: ex-1
        responseSchema: {type: object, properties: {feedback: {type: string}}}
  - text: Done.
`
	s := newServer(t, scenario, func(c *Config) { c.Speed = 0 })
	for _, tt := range []struct {
		name, message, resume string
		status                int
		code, mention         string
	}{
		{"required member", "go", `{"interruptId":"ex-1","status":"resolved"}`, http.StatusBadRequest, "invalid_payload",
			`the answer resolving interrupt "ex-1" has no payload (checked as an empty object), which does not satisfy its responseSchema: at '/': missing property 'ok'`},
		{"cancelled needs no payload", "go", `{"interruptId":"ex-1","status":"cancelled"}`, http.StatusOK, "", ""},
		{"a schema with no required member", "any", `{"interruptId":"ex-1","status":"resolved"}`, http.StatusOK, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			thread := strings.ReplaceAll(tt.name, " ", "-")
			first := post(t.Context(), s, "/", `{"threadId":"`+thread+`","runId":"r1","messages":[{"role":"user","content":"`+tt.message+`"}]}`, nil)
			if first.status != http.StatusOK {
				t.Fatalf("first run %d %s", first.status, first.body())
			}
			rec := post(t.Context(), s, "/", `{"threadId":"`+thread+`","runId":"r2","messages":[],"resume":[`+tt.resume+`]}`, nil)
			wantResumeAnswer(t, rec, tt.status, tt.code, tt.mention)
		})
	}
}

// wantResumeAnswer checks the answer to a resume: the run played when status is 200,
// else that error code and message.
func wantResumeAnswer(t *testing.T, rec *streamRecorder, status int, code, message string) {
	t.Helper()
	if status == http.StatusOK {
		if rec.status != http.StatusOK {
			t.Errorf("resume got %d %s, want it played", rec.status, rec.body())
		}
		return
	}
	var answer map[string]any
	_ = json.Unmarshal([]byte(rec.body()), &answer)
	if rec.status != status || answer["error"] != code || answer["message"] != message {
		t.Errorf("resume got %d %s, want %d %s %q", rec.status, rec.body(), status, code, message)
	}
}

// recordedApproval is a recording in the recorder's format: a run that pauses on an
// interrupt with a responseSchema, continued under next by the answer given.
const recordedApproval = `
id: rec-publish
match: {message: ^publish$}
events:
  - {delay: 1, type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
  - {delay: 1, type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ .runId }}', outcome: {type: interrupt, interrupts: [{id: '{{ id ` + "`i1`" + ` }}', reason: confirmation, responseSchema: {type: object, properties: {feedback: {type: string}}, additionalProperties: false}}]}}
next:
  - when: {resume: [{status: resolved}]}
    events:
      - {delay: 1, type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
      - {delay: 1, type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
`

func TestAReplayChecksAnswersAgainstTheRecordedResponseSchema(t *testing.T) {
	s := newServer(t, recordedApproval, func(c *Config) { c.Speed = 0 })
	for _, tt := range []struct {
		name, payload string
		status        int
		message       string
	}{
		{"a member the schema forbids", `,"payload":{"nope":1}`, http.StatusBadRequest,
			`the payload for interrupt "%s" does not satisfy its responseSchema: at '/': additional properties 'nope' not allowed`},
		{"a string for the object", `,"payload":"ship it"`, http.StatusBadRequest,
			`the payload for interrupt "%s" does not satisfy its responseSchema: at '/': got string, want object`},
		{"no payload, as the schema's members are optional", ``, http.StatusOK, ""},
		{"a payload the schema allows", `,"payload":{"feedback":"ship it"}`, http.StatusOK, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			thread := strings.ReplaceAll(tt.name, " ", "-")
			events := post(t.Context(), s, "/", `{"threadId":"`+thread+`","runId":"r1","messages":[{"role":"user","content":"publish"}]}`, nil).events(t)
			outcome, _ := events[len(events)-1].Get("outcome")
			id := outcome.(map[string]any)["interrupts"].([]any)[0].(map[string]any)["id"].(string)
			rec := post(t.Context(), s, "/", `{"threadId":"`+thread+`","runId":"r2","messages":[],"resume":[{"interruptId":"`+id+`","status":"resolved"`+tt.payload+`}]}`, nil)
			wantResumeAnswer(t, rec, tt.status, "invalid_payload", fmt.Sprintf(tt.message, id))
		})
	}
}

func TestARecordedResponseSchemaThatIsNoSchemaDoesNotLoad(t *testing.T) {
	broken := strings.Replace(recordedApproval, "additionalProperties: false", "additionalProperties: 5", 1)
	_, err := newServerErr(broken)
	if err == nil || !strings.Contains(err.Error(), "test.yaml:6:5: interrupt") || !strings.Contains(err.Error(), "responseSchema is not a valid JSON Schema") {
		t.Errorf("got %v, want the recorded schema's problem at the run's last event", err)
	}
}
