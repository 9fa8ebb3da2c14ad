package verify

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/protocol"
)

// -update re-records a drifted scenario in its file, leaving the file's other scenario
// alone, and the file then verifies clean.
func TestUpdateThenVerifyClean(t *testing.T) {
	const token = "tok-never-written"
	agent := &testAgent{token: token, replies: map[string]func(*protocol.RunAgentInput) []protocol.Event{
		"deploy": deployReply("confirmation", func(in *protocol.RunAgentInput) []protocol.Event {
			return join(toolCall("c1", "notify", `{}`), finished(in))
		}),
		"weather": weatherReply(nil),
	}}
	url := agent.start(t)
	header := func(c *Config) { c.Header = http.Header{"Authorization": {"Bearer " + token}} }
	file := deployFixture + "---\n" + weatherFixture
	rep, set, dir := verifyFiles(t, url, map[string]string{"both.yaml": file, "notes.yaml": "id: notes\nsteps: [{text: no examples}]\n"}, header)
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "notes.yaml") + ":1: skipped: scenario notes: it has no examples\n"; !strings.Contains(text.String(), want) {
		t.Errorf("the report lacks %q:\n%s", want, text.String())
	}
	if rep.Count(Drift) != 1 || rep.Count(Pass) != 1 {
		t.Fatalf("before: %+v", rep.Results)
	}
	cfg := Config{Header: http.Header{"Authorization": {"Bearer " + token}}}
	cfg.Upstream = mustURL(t, url)
	Update(context.Background(), cfg, set, rep, UpdateConfig{})
	res := rep.Results[0]
	if res.Scenario != "deploy" || !strings.HasPrefix(res.Updated, "example 1, turn 2 after interrupt 1 cancelled: ") || res.NotUpdated != "" {
		t.Fatalf("update: %+v", res)
	}
	data, err := os.ReadFile(filepath.Join(dir, "both.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if s := string(data); strings.Contains(s, token) || !strings.Contains(s, "Re-recorded by agui-mock verify -update") ||
		!strings.Contains(s, "id: deploy") || !strings.Contains(s, "id: weather") || !strings.Contains(s, "notify") {
		t.Fatalf("the file after the update:\n%s", s)
	}
	again := Run(context.Background(), Config{Upstream: cfg.Upstream, Header: cfg.Header}, load(t, dir))
	if again.Count(Pass) != 2 || len(again.Skipped) != 1 {
		t.Errorf("after the update: %+v", again.Results)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("the update left files behind: %v", entries)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestUpdateWritesNoSplitSecret re-records a scenario whose agent now thinks aloud and
// answers in chunks, with credentials split across reasoning chunks and across text
// chunks of which only the first names the message, the rest one character each: the
// file written holds none of them, and verifies clean against the agent.
func TestUpdateWritesNoSplitSecret(t *testing.T) {
	const key, token = "sk-proj-abcdefghijklmnopqrstuvwxyz012345", "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"
	agent := &testAgent{replies: map[string]func(*protocol.RunAgentInput) []protocol.Event{
		"secrets": func(in *protocol.RunAgentInput) []protocol.Event {
			events := []protocol.Event{
				protocol.NewEvent(protocol.ReasoningMessageChunk, "messageId", "r1", "delta", "I will use "+key[:12]),
				protocol.NewEvent(protocol.ReasoningMessageChunk, "delta", key[12:]+" for this."),
				protocol.NewEvent(protocol.TextMessageChunk, "messageId", "m1", "delta", "Your token: "+token[:1]),
			}
			for _, c := range token[1:] {
				events = append(events, protocol.NewEvent(protocol.TextMessageChunk, "delta", string(c)))
			}
			return join(events, finished(in))
		},
	}}
	url := agent.start(t)
	fixture := "id: secrets\nmatch: {message: ^secrets$}\nexamples: [{message: secrets}]\nsteps:\n  - text: Nothing to see.\n"
	rep, set, dir := verifyFiles(t, url, map[string]string{"secrets.yaml": fixture}, nil)
	if rep.Count(Drift) != 1 {
		t.Fatalf("before: %+v", rep.Results)
	}
	cfg := Config{Upstream: mustURL(t, url)}
	Update(context.Background(), cfg, set, rep, UpdateConfig{})
	if res := rep.Results[0]; res.NotUpdated != "" || res.Updated == "" {
		t.Fatalf("update: %+v", res)
	}
	data, err := os.ReadFile(filepath.Join(dir, "secrets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var joined strings.Builder // the file's text without its YAML, where one-character deltas would meet
	for _, line := range strings.Split(string(data), "\n") {
		if _, delta, ok := strings.Cut(line, "delta: "); ok {
			joined.WriteString(strings.Trim(strings.TrimSuffix(strings.TrimSpace(delta), "}"), `"`))
		}
	}
	for _, part := range []string{key[3:12], key[12:24], token[4:12], token[20:30]} {
		if strings.Contains(string(data), part) || strings.Contains(joined.String(), part) {
			t.Errorf("the file holds %q:\n%s", part, data)
		}
	}
	if !strings.Contains(string(data), "[REDACTED]") {
		t.Errorf("nothing was redacted:\n%s", data)
	}
	if again := Run(context.Background(), cfg, load(t, dir)); again.Count(Pass) != 1 {
		t.Errorf("after the update: %+v", again.Results)
	}
}
