package verify

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agui-mock/agui-mock/protocol"
)

// An agent whose answers differ from run to run — one run in three answers with another
// tool — still verifies: the drifting conversation is held again, on a thread of its own,
// and a run that matches passes with a warning saying so. An agent that always answers
// with the other tool drifts, after as many attempts as allowed.
func TestADriftingConversationIsAskedAgain(t *testing.T) {
	renamed := weatherReply(func(p [][]protocol.Event) [][]protocol.Event {
		p[1] = toolCall("call-9", "get_weather", `{"city":"Lyon","days":5,"units":{"temp":"F"}}`)
		return p
	})
	for _, tt := range []struct {
		name      string
		renamedAt func(run int64) bool
		attempts  int
		status    Status
		runs      int64
	}{
		{"the first run differs", func(run int64) bool { return run == 1 }, 0, Pass, 2},
		{"two runs differ", func(run int64) bool { return run <= 2 }, 0, Pass, 3},
		{"every run differs", func(int64) bool { return true }, 0, Drift, DefaultAttempts},
		{"one attempt allowed", func(run int64) bool { return run == 1 }, 1, Drift, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var runs atomic.Int64
			reply := func(in *protocol.RunAgentInput) []protocol.Event {
				if tt.renamedAt(runs.Add(1)) {
					return renamed(in)
				}
				return weatherReply(nil)(in)
			}
			agent := &testAgent{replies: map[string]func(*protocol.RunAgentInput) []protocol.Event{"weather": reply}}
			rep, _, _ := verifyFiles(t, agent.start(t), map[string]string{"f.yaml": weatherFixture}, func(c *Config) { c.Attempts = tt.attempts })
			res := rep.Results[0]
			if res.Status != tt.status || runs.Load() != tt.runs {
				t.Fatalf("%s after %d runs, want %s after %d: %+v", res.Status, runs.Load(), tt.status, tt.runs, res)
			}
			threads := map[string]bool{}
			for _, body := range agent.bodies {
				in, _ := protocol.DecodeRunAgentInput(body, protocol.DecodeOptions{})
				threads[in.ThreadID] = true
			}
			if int64(len(threads)) != tt.runs {
				t.Errorf("%d runs on %d threads: each attempt must have a thread of its own", tt.runs, len(threads))
			}
			if tt.status == Pass && tt.runs > 1 {
				warnings := strings.Join(res.Turns[0].Warnings, "\n")
				for _, want := range []string{"the agent's answers differ from run to run", "attempt " + string(rune('0'+tt.runs)) + " of 3", "TOOL_CALL_START get_weather"} {
					if !strings.Contains(warnings, want) {
						t.Errorf("the turn's warnings %q do not say %q", warnings, want)
					}
				}
			}
		})
	}
}

// An example of a later turn sends its whole conversation to the agent, and the mock's
// side of the conversation starts from the same messages.
func TestAnExampleConversationReachesTheAgent(t *testing.T) {
	const fixture = `id: again
match:
  message: ^weather$
  conversation: [user: ^weather$, assistant, user: ^weather$]
examples:
  - conversation:
      - {role: user, content: weather}
      - {role: assistant, content: Sunny.}
      - {role: user, content: weather}
steps:
  - stateDelta: [{op: add, path: /progress, value: 10}]
  - tool: {name: lookup_weather, args: {city: Paris, days: 3, units: {temp: C}}, result: {temp: 21}}
  - text: Still sunny.
`
	agent := &testAgent{replies: map[string]func(*protocol.RunAgentInput) []protocol.Event{"weather": weatherReply(nil)}}
	rep, _, _ := verifyFiles(t, agent.start(t), map[string]string{"f.yaml": fixture}, nil)
	if res := rep.Results[0]; res.Status != Pass {
		t.Fatalf("%+v", res)
	}
	in, err := protocol.DecodeRunAgentInput(agent.bodies[0], protocol.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, m := range in.Messages {
		said = append(said, m.Role+": "+m.Text())
	}
	if got := strings.Join(said, " | "); got != "user: weather | assistant: Sunny. | user: weather" {
		t.Errorf("the agent was asked %q", got)
	}
}
