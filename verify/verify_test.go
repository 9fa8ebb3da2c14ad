package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"testing/synctest"

	"go.uber.org/goleak"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const weatherFixture = `id: weather
match: {message: ^weather$}
examples: [{message: weather}]
steps:
  - stateDelta: [{op: add, path: /progress, value: 10}]
  - tool: {name: lookup_weather, args: {city: Paris, days: 3, units: {temp: C}}, result: {temp: 21}}
  - text: It is sunny in Paris.
`

// weatherReply is the agent's answer that matches weatherFixture in structure, in other
// words; change alters it.
func weatherReply(change func(parts [][]protocol.Event) [][]protocol.Event) func(in *protocol.RunAgentInput) []protocol.Event {
	return func(in *protocol.RunAgentInput) []protocol.Event {
		parts := [][]protocol.Event{
			{protocol.NewEvent(protocol.StateDelta, "delta", []any{map[string]any{"op": "add", "path": "/progress", "value": 55}})},
			toolCall("call-9", "lookup_weather", `{"city":"Lyon","days":5,"units":{"temp":"F"}}`),
			{toolResult("call-9", `{"temp":70}`)},
			text("msg-9", "Sunny all week in Lyon, enjoy."),
			{finished(in)},
		}
		if change != nil {
			parts = change(parts)
		}
		var out []protocol.Event
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
}

const deployFixture = `id: deploy
match: {message: ^deploy$}
examples: [{message: deploy}]
steps:
  - text: Ready to deploy.
  - interrupt:
      reason: confirmation
      message: Deploy to prod?
      responseSchema: {type: object, properties: {note: {type: string, title: A note}}, required: [note]}
      on:
        resolved: [{text: Deployed.}]
        cancelled: [{text: Not deployed.}]
`

// deployReply answers deployFixture's conversation: an interrupt of its own id, then
// the branch of the answer. cancelled alters the cancelled branch.
func deployReply(reason string, cancelled func(in *protocol.RunAgentInput) []protocol.Event) func(in *protocol.RunAgentInput) []protocol.Event {
	return func(in *protocol.RunAgentInput) []protocol.Event {
		if len(in.Resume) == 0 {
			schema := map[string]any{"type": "object", "properties": map[string]any{"note": map[string]any{"type": "string", "description": "why"}}, "required": []any{"note"}}
			return join(text("m1", "About to ship."), interrupted(in, map[string]any{"id": "agent-int-7", "reason": reason, "message": "Ship?", "responseSchema": schema}))
		}
		r := in.Resume[0]
		if r.InterruptID != "agent-int-7" {
			return join(protocol.NewEvent(protocol.RunError, "message", "unknown interrupt "+r.InterruptID))
		}
		if r.Status == protocol.ResumeCancelled && cancelled != nil {
			return cancelled(in)
		}
		return join(text("m2", "Okay: "+r.Status+"."), finished(in))
	}
}

const researchFixture = `id: research
match: {message: ^research$}
examples: [{message: research}]
steps:
  - subagent:
      name: researcher
      steps:
        - tool: {name: search, args: {q: x}, result: found}
        - text: Found it.
  - text: Here it is.
`

// researchReply answers researchFixture's run: a researcher subagent that searches and
// says what it found; change alters the subagent's part (its own events, between its
// SUBAGENT_STARTED and SUBAGENT_FINISHED, attributed by attribute).
func researchReply(change func(attribute func(...any) []protocol.Event) []protocol.Event) func(in *protocol.RunAgentInput) []protocol.Event {
	return func(in *protocol.RunAgentInput) []protocol.Event {
		attribute := func(parts ...any) []protocol.Event {
			out := join(parts...)
			for i := range out {
				out[i] = out[i].With("subagentRunId", "agent-sub-1")
			}
			return out
		}
		inner := attribute(toolCall("c1", "search", `{"q":"y"}`), toolResult("c1", "hits"), text("m1", "Got it."))
		if change != nil {
			inner = change(attribute)
		}
		return join(protocol.NewEvent(protocol.SubagentStarted, "subagentRunId", "agent-sub-1", "name", "researcher"), inner,
			protocol.NewEvent(protocol.SubagentFinished, "subagentRunId", "agent-sub-1", "outcome", map[string]any{"type": "success"}),
			text("m2", "Here you go."), finished(in))
	}
}

// verifyFiles writes the files into a directory, loads them and verifies them against
// the agent at upstream.
func verifyFiles(t *testing.T, upstream string, files map[string]string, change func(*Config)) (*Report, *scenarios.Set, string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set := load(t, dir)
	cfg := Config{Concurrency: 2}
	cfg.Upstream, _ = url.Parse(upstream)
	if change != nil {
		change(&cfg)
	}
	return Run(context.Background(), cfg, set), set, dir
}

func load(t *testing.T, dir string) *scenarios.Set {
	t.Helper()
	set, err := scenarios.Load(scenarios.Source{FS: os.DirFS(dir), Root: ".", Label: dir})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// The kinds of drift, each against a real agent over HTTP: the difference is found and
// said in words, with the fixture's file and line.
func TestVerifyFindsEachKindOfDrift(t *testing.T) {
	without := func(i int) func([][]protocol.Event) [][]protocol.Event {
		return func(p [][]protocol.Event) [][]protocol.Event { return append(p[:i:i], p[i+1:]...) }
	}
	replace := func(i int, with []protocol.Event) func([][]protocol.Event) [][]protocol.Event {
		return func(p [][]protocol.Event) [][]protocol.Event { p[i] = with; return p }
	}
	tests := []struct {
		name    string
		fixture string
		reply   func(in *protocol.RunAgentInput) []protocol.Event
		status  Status
		want    string
	}{
		{"other words, same structure", weatherFixture, weatherReply(nil), Pass, ""},
		{"a tool call added", weatherFixture, weatherReply(func(p [][]protocol.Event) [][]protocol.Event {
			return append(p[:1:1], append([][]protocol.Event{toolCall("call-1", "lookup_user", `{}`), {toolResult("call-1", "x")}}, p[1:]...)...)
		}), Drift, "turn 1: the agent now sends TOOL_CALL_START lookup_user before TOOL_CALL_START lookup_weather"},
		{"reasoning added before the text", weatherFixture, weatherReply(func(p [][]protocol.Event) [][]protocol.Event {
			reasoning := []protocol.Event{protocol.NewEvent(protocol.ReasoningStart, "messageId", "r1"), protocol.NewEvent(protocol.ReasoningEnd, "messageId", "r1")}
			return append(p[:3:3], append([][]protocol.Event{reasoning}, p[3:]...)...)
		}), Drift, "the agent now sends REASONING_START before TEXT_MESSAGE_START"},
		{"the text left out", weatherFixture, weatherReply(without(3)), Drift, "the agent no longer sends TEXT_MESSAGE_START after TOOL_CALL_RESULT"},
		{"a tool renamed", weatherFixture, weatherReply(replace(1, toolCall("call-9", "get_weather", `{"city":"Lyon","days":5,"units":{"temp":"F"}}`))),
			Drift, "the agent now sends TOOL_CALL_START get_weather where the fixture has TOOL_CALL_START lookup_weather"},
		{"an argument of another type", weatherFixture, weatherReply(replace(1, toolCall("call-9", "lookup_weather", `{"city":"Lyon","days":"five","units":{"temp":"F"}}`))),
			Drift, "the arguments of tool lookup_weather: argument days is now a string (the fixture has a number)"},
		{"an argument gone", weatherFixture, weatherReply(replace(1, toolCall("call-9", "lookup_weather", `{"city":"Lyon","units":{"temp":"F"}}`))),
			Drift, "the arguments of tool lookup_weather: the agent no longer sends argument days"},
		{"a nested argument added", weatherFixture, weatherReply(replace(1, toolCall("call-9", "lookup_weather", `{"city":"Lyon","days":5,"units":{"temp":"F","wind":"kmh"}}`))),
			Drift, "the agent now sends argument units.wind"},
		{"another state path", weatherFixture, weatherReply(replace(0, []protocol.Event{protocol.NewEvent(protocol.StateDelta, "delta", []any{map[string]any{"op": "add", "path": "/status", "value": "x"}})})),
			Drift, "the agent now touches state /status"},
		{"an error instead of the answer", weatherFixture, func(in *protocol.RunAgentInput) []protocol.Event {
			return join(protocol.NewEvent(protocol.RunError, "message", "model overloaded"))
		}, Drift, "the run now ends with RUN_ERROR (the fixture's ends with RUN_FINISHED (success))"},
		{"an interrupt that says why otherwise", deployFixture, deployReply("input_required", nil), Drift, `interrupt 1 now has reason "input_required" (the fixture "confirmation")`},
		{"no interrupt any more", deployFixture, func(in *protocol.RunAgentInput) []protocol.Event {
			return join(text("m1", "Shipped."), finished(in))
		}, Drift, "the run now ends with RUN_FINISHED (success) (the fixture's ends with RUN_FINISHED (interrupt))"},
		{"a stream the client would refuse", weatherFixture, weatherReply(func(p [][]protocol.Event) [][]protocol.Event {
			p[3] = p[3][:len(p[3])-1] // the text message is never ended
			return p
		}), Drift, "the agent's stream breaks the AG-UI event rules"},
		{"an interrupt more", deployFixture, func(in *protocol.RunAgentInput) []protocol.Event {
			schema := map[string]any{"type": "object", "properties": map[string]any{"note": map[string]any{"type": "string"}}, "required": []any{"note"}}
			return join(text("m1", "Ship?"), interrupted(in,
				map[string]any{"id": "i1", "reason": "confirmation", "responseSchema": schema},
				map[string]any{"id": "i2", "reason": "confirmation", "responseSchema": schema}))
		}, Drift, "the agent now raises 2 interrupt(s) (the fixture 1)"},
		{"another response schema", deployFixture, func(in *protocol.RunAgentInput) []protocol.Event {
			return join(text("m1", "Ship?"), interrupted(in, map[string]any{"id": "i", "reason": "confirmation", "responseSchema": map[string]any{"type": "object"}}))
		}, Drift, `interrupt 1 now asks for an answer of schema {"type":"object"}`},
		{"a subagent in other words", researchFixture, researchReply(nil), Pass, ""},
		{"the subagent's text said by the agent itself", researchFixture, researchReply(func(attribute func(...any) []protocol.Event) []protocol.Event {
			return join(attribute(toolCall("c1", "search", `{"q":"y"}`), toolResult("c1", "hits")), text("m1", "Got it."))
		}), Drift, "the agent no longer sends TEXT_MESSAGE_START (in subagent researcher) after TOOL_CALL_RESULT (in subagent researcher)"},
		{"the subagent fails", researchFixture, func(in *protocol.RunAgentInput) []protocol.Event {
			return join(protocol.NewEvent(protocol.SubagentStarted, "subagentRunId", "s", "name", "researcher"),
				protocol.NewEvent(protocol.SubagentError, "subagentRunId", "s", "message", "quota"), text("m2", "Sorry."), finished(in))
		}, Drift, "the agent now sends SUBAGENT_ERROR (in subagent researcher) where the fixture has TOOL_CALL_START search (in subagent researcher)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agent := &testAgent{replies: map[string]func(*protocol.RunAgentInput) []protocol.Event{"weather": tt.reply, "deploy": tt.reply, "research": tt.reply}}
			rep, _, dir := verifyFiles(t, agent.start(t), map[string]string{"f.yaml": tt.fixture}, nil)
			if len(rep.Results) != 1 {
				t.Fatalf("results %+v", rep.Results)
			}
			res := rep.Results[0]
			if res.Status != tt.status || !strings.Contains(res.Difference, tt.want) {
				t.Fatalf("got %s %q, want %s with %q", res.Status, res.Difference, tt.status, tt.want)
			}
			if want := filepath.Join(dir, "f.yaml") + ":1"; res.Where() != want {
				t.Errorf("the scenario is at %s, want %s", res.Where(), want)
			}
		})
	}
}

// A conversation that pauses on an interrupt is held once per way of answering it: the
// agent gets its own interrupt's id back, with a payload its schema takes, and each
// branch is compared with what the scenario plays for the same answer.
func TestVerifyHoldsEveryBranchOfAConversation(t *testing.T) {
	var resumes []protocol.ResumeEntry
	reply := deployReply("confirmation", nil)
	agent := &testAgent{replies: map[string]func(*protocol.RunAgentInput) []protocol.Event{"deploy": func(in *protocol.RunAgentInput) []protocol.Event {
		resumes = append(resumes, in.Resume...)
		return reply(in)
	}}}
	url := agent.start(t)
	rep, _, _ := verifyFiles(t, url, map[string]string{"deploy.yaml": deployFixture}, func(c *Config) { c.Concurrency = 1 })
	res := rep.Results[0]
	if res.Status != Pass {
		t.Fatalf("%s: %s", res.Status, res.Difference)
	}
	var names []string
	for _, turn := range res.Turns {
		names = append(names, turn.Name())
	}
	want := []string{"example 1, turn 1", `example 1, turn 2 after interrupt 1 resolved with {"note":""}`, "example 1, turn 2 after interrupt 1 cancelled"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("turns %q, want %q", names, want)
	}
	if len(resumes) != 2 || resumes[0].Status != protocol.ResumeResolved || resumes[1].Status != protocol.ResumeCancelled {
		t.Errorf("the agent was answered %+v", resumes)
	}

	// Now the agent calls a tool before saying it did not deploy.
	agent.replies["deploy"] = deployReply("confirmation", func(in *protocol.RunAgentInput) []protocol.Event {
		return join(toolCall("c1", "notify", `{"who":"ops"}`), toolResult("c1", "ok"), text("m3", "Cancelled."), finished(in))
	})
	rep, _, _ = verifyFiles(t, url, map[string]string{"deploy.yaml": deployFixture}, nil)
	want1 := "example 1, turn 2 after interrupt 1 cancelled: the agent now sends TOOL_CALL_START notify before TEXT_MESSAGE_START"
	if res := rep.Results[0]; res.Status != Drift || res.Difference != want1 {
		t.Errorf("got %s %q, want drift %q", res.Status, res.Difference, want1)
	}
}

// An agent that cannot be reached, or that refuses the run, is an error, not a drift;
// with the header it asks for it answers, and the header's value is in no report.
func TestVerifyErrorsAndHeaders(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	rep, _, _ := verifyFiles(t, closed, map[string]string{"w.yaml": weatherFixture}, nil)
	if res := rep.Results[0]; res.Status != Error || !strings.Contains(res.Difference, "turn 1: the agent is unreachable") {
		t.Errorf("closed port: %s %q", res.Status, res.Difference)
	}

	const token = "tok-s3cr3t-value"
	agent := &testAgent{token: token, replies: map[string]func(*protocol.RunAgentInput) []protocol.Event{"weather": weatherReply(nil)}}
	url := agent.start(t)
	rep, _, _ = verifyFiles(t, url, map[string]string{"w.yaml": weatherFixture}, nil)
	if res := rep.Results[0]; res.Status != Error || !strings.Contains(res.Difference, "the agent refused the run: 401 Unauthorized") {
		t.Errorf("without the token: %s %q", res.Status, res.Difference)
	}
	redirect := httptest.NewServer(http.RedirectHandler(url, http.StatusTemporaryRedirect))
	defer redirect.Close()
	rep, _, _ = verifyFiles(t, redirect.URL, map[string]string{"w.yaml": weatherFixture}, func(c *Config) {
		c.Header = http.Header{"Authorization": {"Bearer " + token}}
	})
	if res := rep.Results[0]; res.Status != Error || !strings.Contains(res.Difference, "the agent answered 307 Temporary Redirect to \""+url+"\", which is not followed") {
		t.Errorf("a redirect: %s %q", res.Status, res.Difference)
	}
	rep, _, _ = verifyFiles(t, url, map[string]string{"w.yaml": weatherFixture}, func(c *Config) {
		c.Header = http.Header{"Authorization": {"Bearer " + token}}
	})
	if res := rep.Results[0]; res.Status != Pass {
		t.Fatalf("with the token: %s %q", res.Status, res.Difference)
	}
	var out bytes.Buffer
	for _, write := range []func(w *bytes.Buffer) error{
		func(w *bytes.Buffer) error { return rep.WriteText(w) },
		func(w *bytes.Buffer) error { return rep.WriteJSON(w) },
		func(w *bytes.Buffer) error { return rep.WriteJUnit(w) },
	} {
		if err := write(&out); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(out.String(), token) {
		t.Errorf("a report shows the token:\n%s", out.String())
	}
}

// The JUnit report parses, with a test case per run of each conversation and the drift
// as its failure.
func TestJUnitReport(t *testing.T) {
	agent := &testAgent{replies: map[string]func(*protocol.RunAgentInput) []protocol.Event{
		"deploy":  deployReply("confirmation", nil),
		"weather": weatherReply(func(p [][]protocol.Event) [][]protocol.Event { return append(p[:3:3], p[4:]...) }),
	}}
	rep, _, _ := verifyFiles(t, agent.start(t), map[string]string{"a.yaml": deployFixture, "b.yaml": weatherFixture}, nil)
	var buf bytes.Buffer
	if err := rep.WriteJUnit(&buf); err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &parsed); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if parsed.Tests != 4 || parsed.Failures != 1 || len(parsed.Suites) != 2 {
		t.Fatalf("tests %d, failures %d, suites %d:\n%s", parsed.Tests, parsed.Failures, len(parsed.Suites), buf.String())
	}
	weather := parsed.Suites[1]
	if weather.Name != "weather" || len(weather.Cases) != 1 || weather.Cases[0].Failure == nil ||
		!strings.Contains(weather.Cases[0].Failure.Message, "no longer sends TEXT_MESSAGE_START") {
		t.Errorf("the weather suite: %+v", weather)
	}
}

// Each run is sent as a client would send it: with the example's headers (the
// configured ones winning), and with the thread's state as the runs before left it.
func TestVerifySendsWhatAClientWould(t *testing.T) {
	const fixture = `id: tenant
match: {message: ^tenant$, headers: {X-Tenant: acme}}
examples: [{message: tenant, headers: {X-Tenant: acme, Authorization: Bearer example}, state: {count: 1}}]
steps:
  - state: {count: 2}
  - interrupt: {reason: confirmation}
  - text: Done.
`
	var states []any
	agent := &testAgent{replies: map[string]func(*protocol.RunAgentInput) []protocol.Event{"tenant": func(in *protocol.RunAgentInput) []protocol.Event {
		states = append(states, in.State)
		if len(in.Resume) == 0 {
			return join(protocol.NewEvent(protocol.StateSnapshot, "snapshot", map[string]any{"count": 2}),
				interrupted(in, map[string]any{"id": "i1", "reason": "confirmation"}))
		}
		return join(text("m", "Done."), finished(in))
	}}}
	rep, _, _ := verifyFiles(t, agent.start(t), map[string]string{"t.yaml": fixture}, func(c *Config) {
		c.Header = http.Header{"Authorization": {"Bearer configured"}}
	})
	if res := rep.Results[0]; res.Status != Pass {
		t.Fatalf("%s: %s", res.Status, res.Difference)
	}
	for _, h := range agent.headers {
		if h.Get("X-Tenant") != "acme" || h.Get("Authorization") != "Bearer configured" {
			t.Errorf("the agent got the headers %v", h)
		}
	}
	got, _ := json.Marshal(states)
	if string(got) != `[{"count":1},{"count":2}]` {
		t.Errorf("the agent got the states %s", got)
	}
}

// A run that takes longer than the timeout is an error that says so. The agent streams
// its first event and then nothing, on a transport in memory, so that the minute passes
// on the test's clock.
func TestVerifyTimesOutARun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stalling := roundTrip(func(req *http.Request) (*http.Response, error) {
			body := &stallingBody{ctx: req.Context(), first: "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"}
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: body, Request: req}, nil
		})
		set := loadFS(t, fstest.MapFS{"w.yaml": {Data: []byte(weatherFixture)}})
		rep := Run(context.Background(), Config{Upstream: mustURL(t, "http://agent.test/run"), Client: &http.Client{Transport: stalling}}, set)
		want := "example 1, turn 1: the agent's stream broke off after 1 events: no answer within 1m0s (-timeout)"
		if res := rep.Results[0]; res.Status != Error || res.Difference != want {
			t.Errorf("got %s %q, want error %q", res.Status, res.Difference, want)
		}
	})
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// stallingBody is a stream that sends its first frame and then waits for its request
// to end.
type stallingBody struct {
	ctx   context.Context
	first string
}

func (b *stallingBody) Read(p []byte) (int, error) {
	if b.first != "" {
		n := copy(p, b.first)
		b.first = b.first[n:]
		return n, nil
	}
	<-b.ctx.Done()
	return 0, b.ctx.Err()
}

func (b *stallingBody) Close() error { return nil }

func loadFS(t *testing.T, fsys fstest.MapFS) *scenarios.Set {
	t.Helper()
	set, err := scenarios.Load(scenarios.Source{FS: fsys, Root: ".", Label: "fixtures"})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

const approvalFixture = `id: approval
dialect: langgraph
match: {message: ^approve$}
examples: [{message: approve}]
steps:
  - text: Checking.
  - interrupt:
      message: Approve the plan?
      responseSchema: {type: object, properties: {approved: {type: boolean}}, required: [approved]}
      on:
        - payload: {approved: true}
          steps: [{text: Approved.}]
        - steps: [{text: Rejected.}]
`

// A LangGraph agent raises its interrupt as an on_interrupt custom event and reads the
// answer from forwardedProps.command alone; verify answers it so, as CopilotKit does,
// once per branch of the scenario.
func TestVerifyAnswersALangGraphAgentThroughItsCommand(t *testing.T) {
	var commands []*protocol.Command
	agent := &testAgent{replies: map[string]func(*protocol.RunAgentInput) []protocol.Event{"approve": func(in *protocol.RunAgentInput) []protocol.Event {
		if in.Command == nil {
			if len(in.Resume) > 0 {
				return join(protocol.NewEvent(protocol.RunError, "message", "this agent reads forwardedProps.command only"))
			}
			value := `{"message":"Approve the plan?"}`
			return join(text("m1", "Checking."), protocol.NewEvent(protocol.Custom, "name", protocol.OnInterrupt, "value", value), finished(in))
		}
		commands = append(commands, in.Command)
		answer, _ := in.Command.Resume.(map[string]any)
		if answer["approved"] == true {
			return join(text("m2", "Approved."), finished(in))
		}
		return join(text("m2", "Rejected."), finished(in))
	}}}
	url := agent.start(t)
	rep, _, _ := verifyFiles(t, url, map[string]string{"approval.yaml": approvalFixture}, func(c *Config) { c.Concurrency = 1 })
	if res := rep.Results[0]; res.Status != Pass {
		t.Fatalf("%s: %s", res.Status, res.Difference)
	}
	if len(commands) != 2 {
		t.Fatalf("the agent got %d commands, want one per branch", len(commands))
	}
	var approved []any
	for _, c := range commands {
		approved = append(approved, c.Resume.(map[string]any)["approved"])
		if event, _ := c.InterruptEvent.(map[string]any); event["message"] != "Approve the plan?" {
			t.Errorf("interruptEvent = %#v, want the on_interrupt value answered", c.InterruptEvent)
		}
	}
	if approved[0] != false || approved[1] != true {
		t.Errorf("the branches were answered with approved = %v, want false (the sample, which only the catch-all takes) and true", approved)
	}
}
