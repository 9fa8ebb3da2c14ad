package recorder_test

import (
	"os"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/recorder"
	"github.com/agui-mock/agui-mock/scenarios"
)

// An agent whose runs break other producer rules is recorded as it sent them too: a
// RUN_FINISHED on another thread, an interrupt outcome listing an id twice. Each
// recording is marked with the rules it breaks, and loads.
func TestRunsBreakingProducerRulesAreRecordedAndMarked(t *testing.T) {
	for _, tt := range []struct {
		name, rule, holds string
		finished          func(in map[string]any) map[string]any
	}{
		{"another thread", "finished-thread-id", "type: RUN_FINISHED, runId: '{{ .runId }}', threadId: '{{ id `t1` }}'",
			func(in map[string]any) map[string]any {
				return map[string]any{"type": "RUN_FINISHED", "threadId": "agent-own-thread-1", "runId": in["runId"]}
			}},
		{"an interrupt id twice", "unique-interrupt-ids", "{id: '{{ id `i1` }}', reason: approval}, {id: '{{ id `i1` }}', reason: approval}",
			func(in map[string]any) map[string]any {
				interrupt := map[string]any{"id": "int-0001-dup", "reason": "approval"}
				return map[string]any{"type": "RUN_FINISHED", "threadId": in["threadId"], "runId": in["runId"],
					"outcome": map[string]any{"type": "interrupt", "interrupts": []any{interrupt, interrupt}}}
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			upstream := scriptedUpstream(t, func(in map[string]any, send func(map[string]any)) {
				send(map[string]any{"type": "RUN_STARTED", "threadId": in["threadId"], "runId": in["runId"]})
				send(tt.finished(in))
			})
			var progress lockedBuffer
			proxy := recordingProxy(t, recorder.Config{Upstream: upstream, OutDir: out, Dedupe: true, Progress: &progress})
			events, _ := client{t, proxy.URL}.run(`{"threadId":"t","runId":"r1","messages":[{"id":"u1","role":"user","content":"hi"}]}`)
			if len(events) != 2 {
				t.Fatalf("the client got %v", events)
			}
			files := yamlFiles(t, out)
			if len(files) != 1 {
				t.Fatalf("files %v (progress: %s)", files, progress.String())
			}
			fixture := readFile(t, files[0])
			if !strings.Contains(fixture, "\nbreaks: ["+tt.rule+"]\n") || !strings.Contains(fixture, tt.holds) {
				t.Errorf("want the scenario marked %s, holding %s:\n%s", tt.rule, tt.holds, fixture)
			}
			set := load(t, scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out})
			if w := set.Warnings(); len(w) != 0 {
				t.Errorf("warnings %v", w)
			}
		})
	}
}

// A break in a continuation marks the session's scenario, whose first run keeps the
// rule: the mark is the scenario's, the loader lets its runs break it, and a replay of
// the continuation plays the break back.
func TestABreakInAContinuationMarksTheScenario(t *testing.T) {
	out := t.TempDir()
	agent := func(in map[string]any, send func(map[string]any)) {
		thread, run := in["threadId"], in["runId"]
		send(map[string]any{"type": "RUN_STARTED", "threadId": thread, "runId": run})
		if in["resume"] == nil {
			send(map[string]any{"type": "RUN_FINISHED", "threadId": thread, "runId": run, "outcome": map[string]any{"type": "interrupt",
				"interrupts": []any{map[string]any{"id": "up-i", "reason": "confirm"}}}})
			return
		}
		send(map[string]any{"type": "RUN_FINISHED", "threadId": thread, "runId": "agent-own-run-2"})
	}
	proxy := recordingProxy(t, recorder.Config{Upstream: scriptedUpstream(t, agent), OutDir: out, Dedupe: true})
	c := client{t, proxy.URL}
	c.run(`{"threadId":"t","runId":"r1","messages":[{"id":"u1","role":"user","content":"count"}]}`)
	c.run(`{"threadId":"t","runId":"r2","messages":[],"resume":[{"interruptId":"up-i","status":"resolved","payload":{}}]}`)
	files := yamlFiles(t, out)
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	fixture := readFile(t, files[0])
	if strings.Count(fixture, "breaks: [finished-run-id]") != 1 || strings.Index(fixture, "breaks:") > strings.Index(fixture, "events:") {
		t.Errorf("want the scenario marked once, above its events:\n%s", fixture)
	}
	set := load(t, scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out})
	if w := set.Warnings(); len(w) != 0 {
		t.Errorf("warnings %v", w)
	}
}
