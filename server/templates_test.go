package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// mixcutRequest is the production client's multimodal message: a text part and a
// mixcut_assets part, with the given members after its type.
func mixcutRequest(part string) string {
	return `{"threadId":"t","runId":"r","messages":[{"id":"u1","role":"user","content":[` +
		`{"type":"text","text":"Help me mash up these assets"},{"type":"mixcut_assets"` + part + `}]}]}`
}

func TestTheMixcutAssetsScenarioReadsAnyMetadata(t *testing.T) {
	s := newServer(t, "", nil)
	tests := []struct {
		name, part, count, attachments string
	}{
		{"two attachments", `,"metadata":{"attachments":[{"id":"a1"},{"id":"a2"}]}`, "2", `[{"id":"a1"},{"id":"a2"}]`},
		{"no metadata", ``, "your", `[]`},
		{"null metadata", `,"metadata":null`, "your", `[]`},
		{"metadata without attachments", `,"metadata":{}`, "your", `[]`},
		{"null attachments", `,"metadata":{"attachments":null}`, "your", `[]`},
		{"attachments not a list", `,"metadata":{"attachments":"a1"}`, "your", `[]`},
		{"metadata not an object", `,"metadata":"a1"`, "your", `[]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := post(t.Context(), s, "/agui/chat", mixcutRequest(tt.part), map[string]string{"X-Agui-Mock-Speed": "0"})
			if rec.status != http.StatusOK {
				t.Fatalf("%d %s", rec.status, rec.body())
			}
			var text, args strings.Builder
			for _, ev := range rec.events(t) {
				switch ev.Type {
				case protocol.TextMessageContent:
					text.WriteString(ev.Str("delta"))
				case protocol.ToolCallArgs:
					args.WriteString(ev.Str("delta"))
				}
			}
			if want := "I'll combine " + tt.count + " assets into one mixcut."; !strings.Contains(text.String(), want) {
				t.Errorf("text %q lacks %q", text.String(), want)
			}
			var call struct{ Attachments json.RawMessage }
			if err := json.Unmarshal([]byte(args.String()), &call); err != nil || string(call.Attachments) != tt.attachments {
				t.Errorf("tool arguments %s (%v), want attachments %s", args.String(), err, tt.attachments)
			}
		})
	}
}

func TestATemplateFailingOnARequestSaysWhereAndWhy(t *testing.T) {
	tests := []struct {
		name, template, part, want string
	}{
		{"a missing value", "{{ range .parts }}{{ len .metadata.attachments }}{{ end }}", "",
			"{{ len .metadata.attachments }}: len was given .metadata.attachments, which the request does not have (guard it with {{ with .metadata.attachments }}…{{ end }})"},
		{"a member of a string", "{{ range .parts }}{{ .metadata.attachments }}{{ end }}", `,"metadata":"a1"`,
			"{{ .metadata.attachments }}: cannot read .attachments: in the request, what it is read from is not an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, "id: assets\nmatch: {message: mash}\nsteps:\n  - text: intro\n  - text: '"+tt.template+" assets'\n", nil)
			status, answer := postJSON(t, s, "/agui/chat", mixcutRequest(tt.part), map[string]string{"X-Agui-Mock-Speed": "0"})
			want := "scenario assets: d/test.yaml:5:5: template d/test.yaml:5:11: " + tt.want
			if status != http.StatusInternalServerError || answer["error"] != "scenario_failed" || answer["message"] != want {
				t.Errorf("%d %v\nwant message %s", status, answer, want)
			}
		})
	}
}

func TestARunThatWouldPlanTooManyEventsFails(t *testing.T) {
	s := newServer(t, "id: echo\nmatch: {message: '(?s)^echo'}\nsteps:\n  - text: intro\n  - text: '{{ .message }}'\n", nil)
	words := strings.Repeat("w ", scenarios.MaxRunEvents)
	status, answer := postJSON(t, s, "/agui/chat", `{"messages":[{"role":"user","content":"echo `+words+`"}]}`, map[string]string{"X-Agui-Mock-Speed": "0"})
	want := fmt.Sprintf("scenario echo: d/test.yaml:5:5: the run would stream more than %d events, the limit of one run; stream long texts in bigger pieces (chunk: sentence or none)", scenarios.MaxRunEvents)
	if status != http.StatusInternalServerError || answer["error"] != "scenario_failed" || answer["message"] != want {
		t.Errorf("%d %v\nwant message %s", status, answer, want)
	}
	if rec := post(t.Context(), s, "/agui/chat", `{"messages":[{"role":"user","content":"echo `+words[:len(words)/2]+`"}]}`, map[string]string{"X-Agui-Mock-Speed": "0"}); rec.status != http.StatusOK || !strings.Contains(rec.body(), "RUN_FINISHED") {
		t.Errorf("a run within the limit: %d", rec.status)
	}
}
