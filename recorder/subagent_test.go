package recorder_test

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/recorder"
	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/server"
)

// upstreamSubagents is an agent that delegates to nested subagents, one of which
// pauses for an interrupt.
const upstreamSubagents = `
id: delegate
match: {message: ^book$}
timing: {firstEvent: 10ms, firstToken: 20ms, stepGap: 10ms, tokensPerSecond: 200, jitter: 0}
steps:
  - subagent:
      name: booker
      description: Books trips
      steps:
        - text: Looking.
          metadata: {source: cache}
        - subagent:
            name: payer
            steps:
              - interrupt: {message: 'Pay?', on: {resolved: [{text: Paid.}], cancelled: [{error: refused}]}}
              - text: Receipt.
  - text: Done.
`

// A recorded subagent stream keeps its lifecycle, attribution and metadata, with the
// invocations' ids (and the interrupts' among a suspended outcome's) generated per
// replay, and replays like the original across its pause.
func TestASubagentStreamIsRecordedAndReplays(t *testing.T) {
	out := t.TempDir()
	upstream := serverFor(t, server.DefaultConfig(), scenarios.Source{FS: fstest.MapFS{"s/u.yaml": {Data: []byte(upstreamSubagents)}}, Root: "s", Label: "upstream"})
	u, _ := url.Parse(upstream.URL)
	proxy := recordingProxy(t, recorder.Config{Upstream: u, OutDir: out, Dedupe: true})

	play := func(base string) [][]protocol.Event {
		c := client{t, base}
		first, _ := c.run(`{"threadId":"t1","runId":"r1","protocolVersion":"1.1","messages":[{"id":"u1","role":"user","content":"book"}]}`)
		second, _ := c.run(fmt.Sprintf(`{"threadId":"t1","runId":"r2","protocolVersion":"1.1","messages":[],"resume":[{"interruptId":"%s","status":"resolved"}]}`, interruptIDs(first)[0]))
		return [][]protocol.Event{first, second}
	}
	recorded := play(proxy.URL)
	files, _ := filepath.Glob(filepath.Join(out, "*.yaml"))
	if len(files) != 1 {
		t.Fatalf("recorded files %v", files)
	}
	fixture, _ := os.ReadFile(files[0])
	for _, run := range recorded {
		for _, ev := range run {
			if id := ev.Str("subagentRunId"); id != "" && strings.Contains(string(fixture), id) {
				t.Fatalf("the fixture keeps the upstream's subagentRunId %s instead of generating it:\n%s", id, fixture)
			}
		}
	}
	for _, want := range []string{"type: SUBAGENT_STARTED", "parentSubagentRunId: '{{ id `s1` }}'", "interruptIds: ['{{ id `i1` }}']", "metadata: {source: cache}"} {
		if !strings.Contains(string(fixture), want) {
			t.Errorf("the fixture has no %q:\n%s", want, fixture)
		}
	}
	replay := serverFor(t, server.DefaultConfig(), scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out})
	replayed := play(replay.URL)
	for run := range recorded {
		want, got := normalized(recorded[run]), normalized(replayed[run])
		if strings.Join(want, "\n") != strings.Join(got, "\n") {
			t.Errorf("run %d replays differently:\n got %s\nwant %s", run, strings.Join(got, "\n    "), strings.Join(want, "\n    "))
		}
	}
}
