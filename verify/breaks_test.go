package verify

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/protocol"
)

// markedFixture is a recording of an agent that ends its run with a run id of its own,
// as @ag-ui/langgraph does, marked as breaking the rule.
const markedFixture = "id: hi\nbreaks: [finished-run-id]\nmatch: {message: ^hi$}\nexamples: [{message: hi}]\nevents:\n" +
	"  - {type: RUN_STARTED, runId: '{{ .runId }}', threadId: '{{ .threadId }}'}\n" +
	"  - {type: TEXT_MESSAGE_START, messageId: '{{ id `m1` }}', role: assistant}\n" +
	"  - {type: TEXT_MESSAGE_CONTENT, messageId: '{{ id `m1` }}', delta: hi}\n" +
	"  - {type: TEXT_MESSAGE_END, messageId: '{{ id `m1` }}'}\n" +
	"  - {type: RUN_FINISHED, runId: '{{ id `r1` }}', threadId: '{{ .threadId }}'}\n"

// unmarkedFixture is the same run by an agent that keeps the rule.
const unmarkedFixture = "id: hi\nmatch: {message: ^hi$}\nexamples: [{message: hi}]\nevents:\n" +
	"  - {type: RUN_STARTED, runId: '{{ .runId }}', threadId: '{{ .threadId }}'}\n" +
	"  - {type: TEXT_MESSAGE_START, messageId: '{{ id `m1` }}', role: assistant}\n" +
	"  - {type: TEXT_MESSAGE_CONTENT, messageId: '{{ id `m1` }}', delta: hi}\n" +
	"  - {type: TEXT_MESSAGE_END, messageId: '{{ id `m1` }}'}\n" +
	"  - {type: RUN_FINISHED, runId: '{{ .runId }}', threadId: '{{ .threadId }}'}\n"

// hiReply answers hi, ending the run with the agent's own run id when ownRunID is set.
func hiReply(ownRunID bool) func(in *protocol.RunAgentInput) []protocol.Event {
	return func(in *protocol.RunAgentInput) []protocol.Event {
		end := finished(in)
		if ownRunID {
			end = end.With("runId", "langgraph-run-7")
		}
		return append(text("lg-m", "hi"), end)
	}
}

// A break of a producer rule the agent still makes, as the recording marks it, is a
// warning naming the rule (the scenario passes); -strict fails it; a break that appears
// or disappears compared with the recording is drift.
func TestVerifyComparesTheProducerRulesAnAgentBreaks(t *testing.T) {
	for _, tt := range []struct {
		name     string
		fixture  string
		ownRunID bool
		strict   bool
		status   Status
		says     string // in the warning, or the difference
	}{
		{"marked, still broken", markedFixture, true, false, Pass, "the agent breaks rule finished-run-id (a RUN_FINISHED carries its RUN_STARTED's runId), as the scenario marks"},
		{"marked, still broken, strict", markedFixture, true, true, Drift, "the agent breaks rule finished-run-id (a RUN_FINISHED carries its RUN_STARTED's runId), as the scenario marks; -strict fails every break"},
		{"the break appears", unmarkedFixture, true, false, Drift, "which the scenario's run does not: re-record the scenario, or mark it with breaks: [finished-run-id]"},
		{"the break disappears", markedFixture, false, false, Drift, "the agent no longer breaks rule finished-run-id"},
		{"no break, strict", unmarkedFixture, false, true, Pass, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			agent := &testAgent{replies: map[string]func(*protocol.RunAgentInput) []protocol.Event{"hi": hiReply(tt.ownRunID)}}
			rep, _, _ := verifyFiles(t, agent.start(t), map[string]string{"hi.yaml": tt.fixture}, func(c *Config) { c.Strict = tt.strict })
			if len(rep.Results) != 1 {
				t.Fatalf("results %+v", rep.Results)
			}
			res := rep.Results[0]
			if res.Status != tt.status {
				t.Fatalf("status %s, want %s: %+v", res.Status, tt.status, res)
			}
			turn := res.Turns[0]
			said := strings.Join(append(turn.Warnings, turn.Differences...), "\n")
			if !strings.Contains(said, tt.says) {
				t.Errorf("the turn says %q, want %q", said, tt.says)
			}
			if wantWarning := tt.status == Pass && tt.says != ""; (len(turn.Warnings) > 0) != wantWarning || (rep.Warnings() > 0) != wantWarning {
				t.Errorf("warnings %q", turn.Warnings)
			}
			if got := len(turn.Breaks) > 0; got != tt.ownRunID {
				t.Errorf("breaks %v", turn.Breaks)
			}
		})
	}
}

// The reports carry a warned break by the rule's name: the text report on a line of
// its own, with a count in the summary, and JUnit as a property of the test case.
func TestReportsNameTheRulesAnAgentBreaks(t *testing.T) {
	agent := &testAgent{replies: map[string]func(*protocol.RunAgentInput) []protocol.Event{"hi": hiReply(true)}}
	rep, _, _ := verifyFiles(t, agent.start(t), map[string]string{"hi.yaml": markedFixture}, nil)
	var text, junit bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{": pass: scenario hi\n", ": warning: scenario hi: example 1, turn 1: the agent breaks rule finished-run-id", "1 pass, 0 drift, 0 error; 1 warning(s)"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text report does not say %q:\n%s", want, text.String())
		}
	}
	if err := rep.WriteJUnit(&junit); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<property name="breaks" value="finished-run-id"></property>`, "<system-out>warning: the agent breaks rule finished-run-id", `failures="0"`} {
		if !strings.Contains(junit.String(), want) {
			t.Errorf("the JUnit report does not say %q:\n%s", want, junit.String())
		}
	}

	strict, _, _ := verifyFiles(t, agent.start(t), map[string]string{"hi.yaml": markedFixture}, func(c *Config) { c.Strict = true })
	junit.Reset()
	if err := strict.WriteJUnit(&junit); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(junit.String(), `<failure message="the agent breaks rule finished-run-id`) {
		t.Errorf("the strict JUnit report does not fail the break by name:\n%s", junit.String())
	}
}
