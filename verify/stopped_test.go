package verify

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// A run the client stopped while it was recorded is skipped with its reason, and never
// sent: the live agent would answer it to its end.
func TestAStoppedRecordingIsSkippedWithItsReason(t *testing.T) {
	const stopped = `id: rec-story
stopped: the client stopped the run while it was recorded, after 2 events
match: {message: ^tell me a story$}
examples: [{message: tell me a story}]
events:
  - {delay: 5, type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
  - {delay: 40, type: TEXT_MESSAGE_START, messageId: '{{ id "m1" }}', role: assistant}
`
	agent := &testAgent{}
	rep, _, dir := verifyFiles(t, agent.start(t), map[string]string{"story.yaml": stopped}, nil)
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "story.yaml") + ":1: skipped: scenario rec-story: its run stops without a terminal event, which no live run of the agent reproduces: the client stopped the run while it was recorded, after 2 events\n"
	if !strings.Contains(text.String(), want) {
		t.Errorf("the report lacks %q:\n%s", want, text.String())
	}
	if len(rep.Results) != 0 || len(agent.bodies) != 0 {
		t.Errorf("the stopped scenario was verified: %+v, %d run(s) sent", rep.Results, len(agent.bodies))
	}
}
