package scenarios

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/agui-mock/agui-mock/protocol"
)

// TestSchemaAgreesWithParser checks the forms the shipped files do not use: the schema
// and the parser must both accept each of these documents.
func TestSchemaAgreesWithParser(t *testing.T) {
	sch := compileSchema(t)
	tests := []struct {
		name string
		yaml string
	}{
		{"durations as strings and milliseconds", `
timing: {firstEvent: 0, firstToken: 1.5s, stepGap: 250, tokensPerSecond: 0, jitter: 1}
steps:
  - {pause: 1h2m3.5s}
  - {pause: "300"}
  - {pause: 0.5}
  - {pause: 2us}
  - {text: hi, delay: 10ms}
`},
		{"match on every criterion", `
id: every.criterion_1
priority: 10
match:
  route: [/agents/a, /agents/b/]
  message: (?i)^hello (?P<name>\w+)
  forwardedProps: {mode: fast, nested: {list: [1, 2]}}
  state: {items: [{done: true}]}
  tools: [search, clarify]
  headers: {Authorization: ^Bearer , x-tenant: acme}
examples:
  - route: /agents/a
    message: hello Ada
    forwardedProps: {mode: fast, nested: {list: [1, 2, 3]}}
    state: {items: [{done: true}]}
    tools: [search, clarify]
    headers: {Authorization: Bearer x, X-Tenant: acme}
steps:
  - text: "Hi {{ .captures.name }}"
`},
		{"an example's context, which templates read", `
examples:
  - message: hi
    context: [{description: locale, value: de-DE}, {value: only a value}]
steps:
  - text: "Locale {{ (index .context 0).value }}"
`},
		{"match on the system message and the context", `
match:
  system: (?i)travel assistant
  context:
    - {description: "(?i)locale", value: ^de}
    - {value: premium}
examples:
  - message: hi
    system: You are a travel assistant.
    context: [{description: locale, value: de-DE}, {description: plan, value: premium}]
steps:
  - text: hi
`},
		{"single route and tool", `
match: {route: /custom, tools: search}
examples: [{route: /custom, tools: search}]
steps: [{text: hi}]
`},
		{"every text, reasoning and error form", `
steps:
  - text: {content: "Be brief.", role: system, name: rules}
  - text: 42
  - reasoning: {content: thinking, encryptedValue: blob}
  - reasoning: short thought
    chunk: sentence
    tokensPerSecond: 100
  - error: {message: quota exceeded, code: "429"}
`},
		{"error short form", `
steps:
  - error: boom
`},
		{"usage as one entry", `
usage: {provider: openai, model: gpt-4o, inputTokens: 1200, outputTokens: 80, totalTokens: 1280, reasoningTokens: 20, cachedInputTokens: 1000, cacheWriteInputTokens: 200}
steps: [{text: hi}]
`},
		{"usage as a list, on an error", `
usage:
  - {provider: openai, model: gpt-4o, inputTokens: 10}
  - {provider: anthropic, model: claude-sonnet-4, outputTokens: 5}
steps: [{error: boom}]
`},
		{"usage estimated, or none", `
usage: auto
steps: [{text: hi}]
---
usage: none
steps: [{text: hi}]
`},
		{"tools", `
steps:
  - text: calling
    id: intro
  - tool: {name: front}
  - tool: {name: back, args: '{"raw": true}', result: done, parent: none}
    id: call1
    chunk: none
  - tool: {name: nested, args: [1, 2], result: {ok: true}}
`},
		{"state, patches and activities", `
steps:
  - state: {items: [], n: 0, old: 1, copy: null}
  - stateDelta:
      - {op: add, path: /items/-, value: {a: 1}}
      - {op: replace, path: /n, value: null}
      - {op: test, path: /n, value: null}
      - {op: copy, from: /items, path: /copy}
      - {op: move, from: /old, path: /new}
      - {op: remove, path: /copy}
  - activity: {type: PLAN, content: {steps: [a]}, replace: false}
    id: card
  - activityDelta:
      target: card
      patch: [{op: add, path: /steps/-, value: b}]
  - messages:
      - {id: m1, role: user, content: hi}
      - {id: "{{ id ` + "`intro`" + ` }}", role: assistant, content: hello}
`},
		{"spans, custom, raw and events", `
steps:
  - step:
      name: outer
      steps:
        - step: {name: inner, steps: [{text: deep}]}
  - custom: {name: Ping}
  - custom: {name: Ping, value: [1, {a: b}]}
  - raw: {event: 7}
  - raw: {event: {x: 1}, source: upstream}
  - event: {type: CUSTOM, name: hand-written, value: null, timestamp: 1700000000000}
  - event: {type: MY_VENDOR_EVENT, payload: 1}
    delay: 0
`},
		{"an empty steps list", `
steps: []
result: {done: true}
`},
		{"interrupts with every key", `
match:
  message: (?i)publish (?P<title>.+)
steps:
  - tool:
      name: publish
      args: {title: "{{ .captures.title }}"}
    id: pub
  - interrupt:
      - id: "approve-{{ .runId }}"
        toolCall: pub
        reason: tool_call
        message: Publish "{{ .captures.title }}" now
        responseSchema:
          type: object
          properties:
            note: {type: string, description: A note for the editor.}
          additionalProperties: false
        expiresIn: 10m
        metadata: {severity: high, thread: "{{ .threadId }}"}
        on:
          resolved:
            - toolResult: '{"published": true}'
          cancelled:
            - toolResult: {content: {published: false, note: "{{ .answer.payload.note }}"}, call: pub}
            - text: Not published.
      - message: 42
        reason: confirmation
        expiresAt: "2030-01-01T00:00:00Z"
        on:
          - status: resolved
            payload: {choice: all, tags: [news]}
            steps: [{text: "All of them ({{ len .resume }} answers)."}]
          - status: cancelled
            steps: []
          - steps: [{text: Only some.}]
      - expiresIn: 60000
  - text: "Done with {{ .answer.interruptId }}."
`},
		{"short interrupt forms and nested interrupts", `
steps:
  - text: "You sent {{ len .parts }} parts."
  - interrupt: {}
  - interrupt:
      message: Delete the draft
      on:
        resolved:
          - interrupt:
              message: Really delete it
              on: {cancelled: [{text: "Kept it ({{ .answer.status }})."}]}
        cancelled: []
  - tool: {name: approve_me}
    id: approval
  - interrupt: {toolCall: approval, on: [{status: resolved, steps: [{toolResult: 200}]}]}
  - interrupt: {toolCall: approval, on: {cancelled: [{toolResult: false}]}}
  - text: "{{ range .resume }}{{ .interruptId }}={{ .status }} {{ end }}"
`},
		{"frontend tools with continuations", `
steps:
  - text: One question first.
  - tool:
      name: clarify
      args:
        question: Which format should the video be?
        choices: [MP4, GIF]
      on:
        - content: (?i)\bgif\b
          steps:
            - text: A GIF has no sound, so I'll drop the audio.
        - steps: []
    id: ask
  - tool: {name: pick_color, on: []}
  - text: "You chose {{ .answer.content }} ({{ .answer.name }}, call {{ .answer.toolCallId }})."
`},
		{"messages snapshots with and without history", `
steps:
  - text: A first draft.
    id: draft
  - messages: {history: true}
  - messages: {history: false, messages: [{id: m1, role: user, content: hi}]}
  - messages:
      history: true
      messages:
        - {id: "{{ id ` + "`draft`" + ` }}", role: assistant, content: The final answer.}
  - messages: {}
  - messages: []
`},
		{"explicit events with delays", `
broken: tests a client against a stream that never finishes
events:
  - {type: RUN_STARTED, threadId: t, runId: r}
  - {type: TEXT_MESSAGE_CHUNK, delta: hi, delay: 1.5}
  - {type: CUSTOM, name: x, value: 1, delay: 2s}
`},
		{"recorded interrupts with nested continuations", `
description: Recorded from http://localhost:9000
match: {message: ^Publish the draft$}
examples: [{message: Publish the draft}]
events:
  - {delay: 12, type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
  - delay: 40ms
    type: RUN_FINISHED
    threadId: "{{ .threadId }}"
    runId: "{{ .runId }}"
    outcome:
      type: interrupt
      interrupts:
        - {id: "{{ id ` + "`i1`" + ` }}", reason: confirmation, message: Publish now}
        - {id: "{{ id ` + "`i2`" + ` }}", reason: confirmation, message: Notify the subscribers}
next:
  - when: {resume: [{status: resolved}, {status: cancelled, payload: {feedback: no thanks, tags: [news]}}]}
    events:
      - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
      - {delay: 1.5s, type: RUN_FINISHED, threadId: "{{ .threadId }}", runId: "{{ .runId }}", outcome: {type: interrupt, interrupts: [{id: "{{ id ` + "`i3`" + ` }}", reason: confirmation}]}}
    next:
      - when: {resume: [{}]}
        events:
          - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
          - {type: RUN_FINISHED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
  - when: {resume: [{payload: 42}]}
    events:
      - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
      - {type: RUN_FINISHED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
    next: []
  - events:
      - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
      - {type: RUN_ERROR, message: Not recorded.}
`},
		{"fault steps in every place and form", `
description: Breaks the stream in the way the user picks
broken: tests how the client copes with streams that break
steps:
  - text: Which failure should I show?
  - interrupt:
      message: Pick one
      on:
        - payload: {kind: error}
          steps:
            - fault: {kind: runError, message: Upstream model unavailable, code: 503}
        - payload: {kind: stall}
          steps: [{fault: {kind: stall, keepAlive: true}}]
        - status: cancelled
          steps:
            - step: {name: partial, steps: [{text: Half an ans, chunk: none}, {fault: truncate}]}
        - steps:
            - tool:
                name: pick_fault
                on:
                  - {content: ^drop$, steps: [{fault: disconnect, delay: 2s, id: drop}]}
                  - {steps: [{fault: malformed}]}
`},
		{"recorded frontend tool results", `
events:
  - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
  - {type: TOOL_CALL_START, toolCallId: "{{ id ` + "`c1`" + ` }}", toolCallName: pick_format}
  - {type: TOOL_CALL_ARGS, toolCallId: "{{ id ` + "`c1`" + ` }}", delta: "{\"choices\": [\"MP4\", \"GIF\"]}"}
  - {type: TOOL_CALL_END, toolCallId: "{{ id ` + "`c1`" + ` }}"}
  - {type: TOOL_CALL_START, toolCallId: "{{ id ` + "`c2`" + ` }}", toolCallName: pick_color}
  - {type: TOOL_CALL_END, toolCallId: "{{ id ` + "`c2`" + ` }}"}
  - {type: RUN_FINISHED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
next:
  - when: {toolResults: [^MP4$, '(?i)\bblue\b']}
    events: &done
      - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
      - {type: TEXT_MESSAGE_CHUNK, messageId: "{{ id ` + "`m1`" + ` }}", role: assistant, delta: Rendering.}
      - {type: RUN_FINISHED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
  - when: {toolResults: ["(?i)gif", ""], resume: []}
    events: *done
  - when: {}
    events:
      - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
      - {type: RUN_ERROR, message: No recording for these results., code: no_recorded_branch}
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := Parse("inline.yaml", []byte(tt.yaml))
			for _, d := range diags {
				t.Errorf("parser: %v", d)
			}
			docs, err := yamlDocuments([]byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			for _, doc := range docs {
				if err := sch.Validate(doc); err != nil {
					t.Errorf("schema: %v", err)
				}
			}
		})
	}
}

// TestSchemaParserEdgeCases pins how the schema and the parser judge edge cases, so that
// a change to either side shows up here. Where they still differ: the schema is stricter
// where the parser reads any scalar as text (a number for an id) or leaves a value to
// the load-time event rules (message shapes), and more lenient where a rule depends on
// the order of steps, on what a run waits for (a when with both resume and toolResults)
// or on how YAML writes a number (priority: 1.0). The
// schema also asks for broken next to a fault step, which Parse leaves to the load-time
// check.
func TestSchemaParserEdgeCases(t *testing.T) {
	sch := compileSchema(t)
	tests := []struct {
		name        string
		yaml        string
		schemaValid bool
		parserValid bool
	}{
		{"a number where the parser wants text", "id: 2024\nsteps: [{text: hi}]\n", false, true},
		{"a quoted number for a number", "timing: {jitter: \"0.5\"}\nsteps: [{text: hi}]\n", false, true},
		{"null text", "steps: [{text: null}]\n", false, false},
		{"an object as text content", "steps: [{text: {content: {a: 1}}}]\n", false, false},
		{"negative tokensPerSecond on a step", "steps: [{text: hi, tokensPerSecond: -5}]\n", false, false},
		{"a JSON Patch path that is no JSON Pointer", "steps: [{stateDelta: [{op: remove, path: items}]}]\n", false, false},
		{"messages that are not objects", "steps: [{messages: [1]}]\n", false, true},
		{"a message role AG-UI does not define", "steps: [{messages: [{id: m, role: bot, content: hi}]}]\n", false, true},
		{"an example route without a slash", "examples: [{route: chat}]\nsteps: [{text: hi}]\n", false, false},
		{"an example's forwardedProps that is a list", "examples: [{forwardedProps: [1]}]\nsteps: [{text: hi}]\n", false, false},
		{"an example's context that is an object", "examples: [{context: {locale: de}}]\nsteps: [{text: hi}]\n", false, false},
		{"an example's context item with another key", "examples: [{context: [{name: locale}]}]\nsteps: [{text: hi}]\n", false, false},
		{"NaN jitter", "timing: {jitter: NaN}\nsteps: [{text: hi}]\n", false, false},
		{"an infinite pause", "steps: [{pause: inf}]\n", false, false},
		{"priority written as a float", "priority: 1.0\nsteps: [{text: hi}]\n", true, false},
		{"priority in hexadecimal", "priority: 0x10\nsteps: [{text: hi}]\n", true, true},
		{"a merge key in a scenario", "<<: {description: merged}\nsteps: [{text: hi}]\n", true, true},
		{"an alias for the text", "description: &d hello\nsteps: [{text: *d}]\n", true, true},
		{"an alias for a JSON Patch", "steps:\n  - custom: {name: patch, value: &p [{op: add, path: /a, value: 1}]}\n  - stateDelta: *p\n", true, true},
		{"a step after an error step", "steps: [{error: boom}, {text: never sent}]\n", true, false},
		{"expiresIn next to expiresAt", "steps: [{interrupt: {expiresIn: 5m, expiresAt: \"2030-01-01T00:00:00Z\"}}]\n", false, false},
		{"an expiresAt that is no RFC 3339 time", "steps: [{interrupt: {expiresAt: tomorrow}}]\n", false, false},
		{"a boolean responseSchema", "steps: [{interrupt: {responseSchema: true}}]\n", false, false},
		{"an empty interrupt reason", "steps: [{interrupt: {reason: \"\"}}]\n", false, false},
		{"a number as interrupt id is sent as its decimal text", "steps: [{interrupt: {id: 010}}]\n", false, true},
		{"an object as interrupt message", "steps: [{interrupt: {message: {a: 1}}}]\n", false, false},
		{"a null toolResult", "steps: [{toolResult: null}]\n", false, false},
		{"history written as 1", "steps: [{messages: {history: 1}}]\n", false, false},
		{"an alias for an interrupt's on mapping", "steps:\n  - custom: {name: branches, value: &b {resolved: [{text: ok}]}}\n  - interrupt: {on: *b}\n", true, true},
		{"an alias for a list of interrupts", "steps:\n  - custom: {name: asks, value: &l [{message: Sure}]}\n  - interrupt: *l\n", true, true},
		{"next without events", "steps: [{text: hi}]\nnext: [{events: []}]\n", false, false},
		{"next with neither steps nor events", "next: [{events: []}]\n", false, false},
		{"next next to steps and events", "steps: []\nevents: []\nnext: []\n", false, false},
		{"an empty next", "events: []\nnext: []\n", true, true},
		{"a null when", "events: []\nnext: [{when: null, events: []}]\n", false, false},
		{"a null resume condition", "events: []\nnext: [{when: {resume: [null]}, events: []}]\n", false, false},
		{"a null payload condition takes any payload", "events: []\nnext: [{when: {resume: [{payload: null}]}, events: []}]\n", true, true},
		{"a null toolResults pattern", "events: []\nnext: [{when: {toolResults: [null]}, events: []}]\n", false, false},
		{"a number as toolResults pattern", "events: []\nnext: [{when: {toolResults: [200]}, events: []}]\n", false, true},
		{"a when with both resume and toolResults", "events: []\nnext: [{when: {resume: [{status: resolved}], toolResults: [ok]}, events: []}]\n", true, true},
		{"a continuation without a list of events", "events: []\nnext: [{events: {type: RUN_STARTED}}]\n", false, false},
		{"a fault step without broken", "steps: [{text: hi}, {fault: truncate}]\n", false, true},
		{"a fault step deep in a branch without broken", "steps:\n  - interrupt: [{}, {on: {cancelled: [{step: {name: s, steps: [{fault: stall}]}}]}}]\n", false, true},
		{"the word fault as text and custom name needs no broken", "steps: [{text: fault}, {custom: {name: fault, value: {fault: x}}}]\n", true, true},
		{"a null fault", "broken: x\nsteps: [{fault: null}]\n", false, false},
		{"keepAlive written as yes", "broken: x\nsteps: [{fault: {kind: stall, keepAlive: yes}}]\n", false, false},
		{"keepAlive on a fault that is no stall", "broken: x\nsteps: [{fault: {kind: disconnect, keepAlive: false}}]\n", false, false},
		{"a message on a fault that is no runError", "broken: x\nsteps: [{fault: {kind: stall, message: hi}}]\n", false, false},
		{"a code on a fault that is no runError", "broken: x\nsteps: [{fault: {kind: truncate, code: x}}]\n", false, false},
		{"every parameter of a runError", "broken: x\nsteps: [{fault: {kind: runError, message: hi, code: x}}]\n", true, true},
		{"an alias for a list of continuations", "events: []\nnext:\n  - events: []\n    next: &n [{when: {resume: [{status: cancelled}]}, events: []}]\n  - {events: [], next: *n}\n", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, err := yamlDocuments([]byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if schemaValid := sch.Validate(docs[0]) == nil; schemaValid != tt.schemaValid {
				t.Errorf("schema valid = %v, want %v", schemaValid, tt.schemaValid)
			}
			_, diags := Parse("inline.yaml", []byte(tt.yaml))
			if parserValid := len(diags) == 0; parserValid != tt.parserValid {
				t.Errorf("parser valid = %v, want %v (%v)", parserValid, tt.parserValid, diags)
			}
		})
	}
}

// TestSchemaMatchesParserVocabulary keeps the schema's fixed sets in step with the
// parser's and the protocol's. The step kinds and the step's members are not among
// them: they are generated from the table of step kinds, and internal/cmd/genschema's
// test keeps them current.
func TestSchemaMatchesParserVocabulary(t *testing.T) {
	data, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	defs, _ := doc["$defs"].(map[string]any)
	keys := func(v any) []string {
		m, _ := v.(map[string]any)
		var out []string
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	strs := func(v any) []string {
		list, _ := v.([]any)
		var out []string
		for _, e := range list {
			out = append(out, fmt.Sprint(e))
		}
		slices.Sort(out)
		return out
	}
	sorted := func(list []string) []string {
		out := slices.Clone(list)
		slices.Sort(out)
		return out
	}
	// textRoles reads the role enum of text's object form.
	textRoles := func(v any) []string {
		for _, branch := range v.([]any) {
			if props, ok := branch.(map[string]any)["properties"].(map[string]any); ok {
				return strs(props["role"].(map[string]any)["enum"])
			}
		}
		return nil
	}
	get := func(v any, path ...string) any {
		for _, p := range path {
			m, _ := v.(map[string]any)
			v = m[p]
		}
		return v
	}

	// scenarioFaults are the fault kinds a scenario step may use.
	var scenarioFaults []string
	for _, k := range FaultKinds() {
		if (Fault{Kind: k}).Check(true) == nil {
			scenarioFaults = append(scenarioFaults, k)
		}
	}
	slices.Sort(scenarioFaults)

	tests := []struct {
		name      string
		got, want []string
	}{
		{"scenario keys", keys(doc["properties"]), sorted(scenarioKeys)},
		{"match keys", keys(get(doc, "properties", "match", "properties")), sorted(requestKeys)},
		{"timing keys", keys(get(doc, "properties", "timing", "properties")), sorted(timingKeys)},
		{"example keys", keys(get(doc, "properties", "examples", "items", "properties")), sorted(exampleKeys)},
		{"chunk modes", strs(get(defs, "step", "properties", "chunk", "enum")), sorted([]string{"word", "sentence", "none"})},
		{"fault kinds", strs(get(defs, "faultKind", "enum")), scenarioFaults},
		{"fault keys", keys(get(get(defs, "step", "properties", "fault", "oneOf").([]any)[1], "properties")), sorted([]string{"kind", "keepAlive", "message", "code"})},
		{"text roles", textRoles(get(defs, "step", "properties", "text", "oneOf")), sorted([]string{"assistant", "developer", "system", "user"})},
		{"JSON Patch ops", strs(get(defs, "jsonPatchOperation", "properties", "op", "enum")), sorted([]string{"add", "remove", "replace", "move", "copy", "test"})},
		{"event types", strs(get(defs, "eventType", "examples")), protocol.KnownEventTypes()},
		{"keys only the explicit form takes", keys(get(doc["oneOf"].([]any)[0], "properties")), sorted([]string{"events", "next"})},
		{"keys only the steps form takes", keys(get(doc["oneOf"].([]any)[1], "properties")), sorted([]string{"steps", "result", "usage"})},
		{"token usage keys", keys(get(defs, "tokenUsage", "properties")), sorted(protocol.UsageMembers())},
		{"continuation keys", keys(get(defs, "continuation", "properties")), sorted(slices.Clone(continuationKeys))},
		{"when keys", keys(get(defs, "continuation", "properties", "when", "properties")), sorted([]string{"resume", "toolResults"})},
		{"resume condition keys", keys(get(defs, "resumeCondition", "properties")), sorted([]string{"status", "payload"})},
		{"resume statuses", strs(get(defs, "resumeCondition", "properties", "status", "enum")), sorted([]string{protocol.ResumeResolved, protocol.ResumeCancelled})},
	}
	for _, tt := range tests {
		if !slices.Equal(tt.got, tt.want) {
			t.Errorf("%s: schema has %v, parser has %v", tt.name, tt.got, tt.want)
		}
	}
}
