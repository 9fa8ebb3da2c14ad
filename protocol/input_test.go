package protocol

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func mintIDs(kind string) string { return kind + "-minted" }

func TestDecodeRunAgentInputAcceptsRealRequests(t *testing.T) {
	tests := []struct {
		name, body string
		check      func(t *testing.T, in *RunAgentInput)
	}{
		{
			name: "seed request without message ids",
			body: `{"threadId":"thread-001","runId":"run-001","messages":[{"role":"user","content":"Search for ocean wave videos"}],"forwardedProps":{"scenario_name":"video-mixcut"}}`,
			check: func(t *testing.T, in *RunAgentInput) {
				if in.Messages[0].ID != "msg-minted" || in.Raw["messages"].([]any)[0].(map[string]any)["id"] != "msg-minted" {
					t.Errorf("message id not minted: %+v", in.Messages[0])
				}
				if in.Tools == nil && len(in.Tools) != 0 {
					t.Errorf("absent tools should be empty")
				}
			},
		},
		{
			name: "multimodal content with a custom part",
			body: `{"threadId":"t","runId":"r","messages":[{"role":"user","content":[{"type":"text","text":"Help me mash up these assets"},{"type":"mixcut_assets","metadata":{"attachments":[{"fileId":"vod-file-001"}]}},{"type":"image","source":{"type":"url","value":"https://x/y.png"}},{"type":"binary","mimeType":"video/mp4","url":"https://x/v.mp4"},{"type":"text","text":"please"}]}]}`,
			check: func(t *testing.T, in *RunAgentInput) {
				msg, _ := in.LastUserMessage()
				if got := msg.Text(); got != "Help me mash up these assets\nplease" {
					t.Errorf("Text() = %q", got)
				}
			},
		},
		{
			name: "all roles, tools, context, resume, version",
			body: `{"threadId":"t","runId":"r","parentRunId":"p","protocolVersion":"1.0","state":{"a":1},
				"messages":[{"id":"1","role":"system","content":"s"},{"id":"2","role":"developer","content":"d"},
				{"id":"3","role":"user","content":"u"},{"id":"4","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},
				{"id":"5","role":"tool","toolCallId":"c","content":"ok"},{"id":"6","role":"reasoning","content":"hm","encryptedValue":"x"},
				{"id":"7","role":"activity","activityType":"PLAN","content":{"s":1}}],
				"tools":[{"name":"clarify","description":"ask","parameters":{"type":"object"}}],
				"context":[{"description":"d","value":"v"}],
				"resume":[{"interruptId":"i1","status":"cancelled","payload":{"feedback":"no"}}],"forwardedProps":{}}`,
			check: func(t *testing.T, in *RunAgentInput) {
				if len(in.Messages) != 7 || in.ToolNames()[0] != "clarify" || in.Resume[0].Status != ResumeCancelled || in.ProtocolVersion != "1.0" {
					t.Errorf("decoded %+v", in)
				}
			},
		},
		{
			name: "missing ids are minted",
			body: `{"messages":[]}`,
			check: func(t *testing.T, in *RunAgentInput) {
				if in.ThreadID != "thread-minted" || in.RunID != "run-minted" {
					t.Errorf("ids %q %q", in.ThreadID, in.RunID)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := DecodeRunAgentInput([]byte(tt.body), DecodeOptions{NewID: mintIDs})
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, in)
		})
	}
}

func TestDecodeRunAgentInputNamesTheProblem(t *testing.T) {
	tests := []struct {
		name, body string
		strict     bool
		field      string
		problem    string
	}{
		{"empty body", ``, false, "", "empty"},
		{"truncated", `{"threadId":"t"`, false, "", "malformed JSON"},
		{"trailing data", `{} {}`, false, "", "after the top-level value"},
		{"not an object", `[1,2]`, false, "", "must be a JSON object"},
		{"threadId number", `{"threadId":5}`, false, "threadId", "expected a string, got a number"},
		{"messages object", `{"messages":{}}`, false, "messages", "expected an array"},
		{"message not object", `{"messages":["hi"]}`, false, "messages[0]", "expected an object"},
		{"unknown role", `{"messages":[{"role":"bot","content":"x"}]}`, false, "messages[0].role", `unknown role "bot"`},
		{"user without content", `{"messages":[{"role":"user"}]}`, false, "messages[0].content", "required"},
		{"content number", `{"messages":[{"role":"user","content":7}]}`, false, "messages[0].content", "got a number"},
		{"system with parts", `{"messages":[{"role":"system","content":[]}]}`, false, "messages[0].content", "must be a string"},
		{"part without type", `{"messages":[{"role":"user","content":[{"text":"x"}]}]}`, false, "messages[0].content[0].type", "required"},
		{"text part without text", `{"messages":[{"role":"user","content":[{"type":"text"}]}]}`, false, "messages[0].content[0].text", "required"},
		{"image without source", `{"messages":[{"role":"user","content":[{"type":"image"}]}]}`, false, "messages[0].content[0].source", "expected an object"},
		{"bad source type", `{"messages":[{"role":"user","content":[{"type":"image","source":{"type":"ftp","value":"x"}}]}]}`, false, "messages[0].content[0].source.type", "unknown source type"},
		{"binary without data", `{"messages":[{"role":"user","content":[{"type":"binary","mimeType":"a/b"}]}]}`, false, "messages[0].content[0]", "at least one of id, url or data"},
		{"tool without toolCallId", `{"messages":[{"role":"tool","content":"x"}]}`, false, "messages[0].toolCallId", "required"},
		{"tool call wrong type", `{"messages":[{"role":"assistant","toolCalls":[{"id":"c","type":"x","function":{"name":"f","arguments":""}}]}]}`, false, "messages[0].toolCalls[0].type", `must be "function"`},
		{"tool without name", `{"tools":[{"description":"d"}]}`, false, "tools[0].name", "required"},
		{"second message without role", `{"messages":[{"role":"user","content":"a"},{"content":"b"}]}`, false, "messages[1].role", "required"},
		{"source without value", `{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","source":{"type":"url"}}]}]}`, false, "messages[0].content[1].source.value", "required"},
		{"function without name", `{"messages":[{"role":"assistant","toolCalls":[{"id":"c","function":{"arguments":""}}]}]}`, false, "messages[0].toolCalls[0].function.name", "required"},
		{"tool parameters string", `{"tools":[{"name":"n","parameters":"x"}]}`, false, "tools[0].parameters", "JSON Schema object"},
		{"context value number", `{"context":[{"description":"d","value":1}]}`, false, "context[0].value", "expected a string"},
		{"resume bad status", `{"resume":[{"interruptId":"i","status":"approved"}]}`, false, "resume[0].status", `"resolved" or "cancelled"`},
		{"resume without id", `{"resume":[{"status":"resolved"}]}`, false, "resume[0].interruptId", "required"},
		{"bad protocol version", `{"protocolVersion":"latest"}`, false, "protocolVersion", "not MAJOR.MINOR"},
		{"strict: missing runId", `{"threadId":"t","messages":[]}`, true, "runId", "required"},
		{"strict: missing message id", `{"threadId":"t","runId":"r","messages":[{"role":"user","content":"x"}]}`, true, "messages[0].id", "required"},
		{"strict: unknown member", `{"threadId":"t","runId":"r","messages":[],"extra":1}`, true, "extra", "unknown member"},
		{"strict: custom part", `{"threadId":"t","runId":"r","messages":[{"id":"1","role":"user","content":[{"type":"mixcut_assets"}]}]}`, true, "messages[0].content[0].type", "unknown content part type"},
		{"strict: null state", `{"threadId":"t","runId":"r","messages":[],"state":null}`, true, "state", "must not be null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeRunAgentInput([]byte(tt.body), DecodeOptions{Strict: tt.strict, NewID: mintIDs})
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an *InputError", err)
			}
			if ie.Field != tt.field || !strings.Contains(ie.Problem, tt.problem) {
				t.Errorf("got field %q problem %q; want field %q problem containing %q", ie.Field, ie.Problem, tt.field, tt.problem)
			}
		})
	}
}

func TestStrictAcceptsConformantInput(t *testing.T) {
	body := `{"threadId":"t","runId":"r","messages":[{"id":"1","role":"user","content":"hi"}],"tools":[],"context":[],"forwardedProps":{},"state":{}}`
	if _, err := DecodeRunAgentInput([]byte(body), DecodeOptions{Strict: true}); err != nil {
		t.Fatal(err)
	}
}

func TestDecodeLangGraphCommand(t *testing.T) {
	for _, tt := range []struct {
		name, props string
		want        *Command
	}{
		{"none", `{}`, nil},
		{"a command without resume", `{"command":{"goto":"x"}}`, nil},
		{"an object", `{"command":{"resume":{"ok":true}}}`, &Command{Resume: map[string]any{"ok": true}}},
		{"JSON in a string", `{"command":{"resume":"{\"ok\":true}","interruptEvent":"{\"id\":\"i1\"}"}}`,
			&Command{Resume: map[string]any{"ok": true}, InterruptEvent: map[string]any{"id": "i1"}}},
		{"a plain string", `{"command":{"resume":"yes"}}`, &Command{Resume: "yes"}},
		{"null is an answer", `{"command":{"resume":null}}`, &Command{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in, err := DecodeRunAgentInput([]byte(`{"threadId":"t","runId":"r","messages":[],"forwardedProps":`+tt.props+`}`), DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(in.Command, tt.want) {
				t.Errorf("got %#v, want %#v", in.Command, tt.want)
			}
			if IsContinuation(in, nil) != (tt.want != nil) {
				t.Errorf("IsContinuation = %v with command %v", !(tt.want != nil), in.Command)
			}
		})
	}
}
