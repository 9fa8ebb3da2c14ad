package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// InputError says which member of a request body is wrong and how.
type InputError struct {
	Field   string // a path such as messages[2].content[0].type; empty for the body itself
	Problem string
}

// Error names the member at fault, when there is one, and the problem.
func (e *InputError) Error() string {
	if e.Field == "" {
		return e.Problem
	}
	return fmt.Sprintf("field %q: %s", e.Field, e.Problem)
}

// DecodeOptions controls how forgiving DecodeRunAgentInput is.
type DecodeOptions struct {
	// Strict rejects anything the AG-UI 1.1 schema does not allow: missing required
	// members, unknown members, unknown content parts.
	Strict bool
	// NewID mints ids for a missing threadId, runId or message id in lenient mode.
	NewID func(kind string) string
	// MaxMessages rejects inputs with more messages; 0 means no limit.
	MaxMessages int
}

// DecodeJSON decodes one JSON value, keeping numbers exact, and rejects trailing data
// and bytes that are not UTF-8. A well-formed body is read by decodeJSONFast; any other
// by encoding/json, whose error says what is wrong.
func DecodeJSON(body []byte) (any, error) {
	if err := CheckUTF8(body); err != nil {
		return nil, err
	}
	if v, ok := decodeJSONFast(body); ok {
		return v, nil
	}
	return decodeJSONStd(body)
}

// decodeJSONStd is DecodeJSON through encoding/json.
func decodeJSONStd(body []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &InputError{Problem: "the body is empty; expected a JSON object"}
		}
		return nil, &InputError{Problem: "malformed JSON: " + strings.TrimPrefix(err.Error(), "json: ")}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &InputError{Problem: "malformed JSON: unexpected data after the top-level value"}
	}
	return v, nil
}

// DecodeRunAgentInput parses and checks a RunAgentInput body. Errors are *InputError
// values naming the offending member.
func DecodeRunAgentInput(body []byte, opts DecodeOptions) (*RunAgentInput, error) {
	v, err := DecodeJSON(body)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, &InputError{Problem: "the body must be a JSON object (a RunAgentInput), got " + jsonKind(v)}
	}
	d := inputDecoder{opts: opts}
	in := d.input(obj)
	if d.err != nil {
		return nil, d.err
	}
	return in, nil
}

// inputDecoder walks a decoded body and records the first problem it meets.
type inputDecoder struct {
	opts DecodeOptions
	err  *InputError
}

func (d *inputDecoder) fail(field, format string, args ...any) {
	if d.err == nil {
		d.err = &InputError{Field: field, Problem: fmt.Sprintf(format, args...)}
	}
}

func (d *inputDecoder) mint(kind string) string {
	if d.opts.NewID == nil {
		return ""
	}
	return d.opts.NewID(kind)
}

// str reads the string member key of obj, whose path is parent; a required member that
// is absent fails. The member's path is built only to report a problem: most inputs
// have none.
func (d *inputDecoder) str(obj map[string]any, parent, key string, required bool) string {
	v, ok := obj[key]
	if !ok || (v == nil && !d.opts.Strict && !required) {
		if required {
			d.fail(join(parent, key), "required, but missing")
		}
		return ""
	}
	s, ok := v.(string)
	if !ok {
		d.fail(join(parent, key), "expected a string, got %s", jsonKind(v))
	}
	return s
}

func (d *inputDecoder) unknown(obj map[string]any, path string, known ...string) {
	if !d.opts.Strict {
		return
	}
	for _, k := range sortedKeys(obj) {
		if !slices.Contains(known, k) {
			d.fail(join(path, k), "unknown member (strict mode accepts only AG-UI 1.1 fields)")
			return
		}
	}
}

func (d *inputDecoder) input(obj map[string]any) *RunAgentInput {
	in := &RunAgentInput{Raw: obj}
	d.unknown(obj, "", "threadId", "runId", "parentRunId", "state", "messages", "tools", "context",
		"forwardedProps", "resume", "protocolVersion")
	in.ThreadID = d.str(obj, "", "threadId", d.opts.Strict)
	in.RunID = d.str(obj, "", "runId", d.opts.Strict)
	in.ParentRunID = d.str(obj, "", "parentRunId", false)
	in.ProtocolVersion = d.str(obj, "", "protocolVersion", false)
	if d.err != nil {
		return nil
	}
	if in.ThreadID == "" && !d.opts.Strict {
		in.ThreadID = d.mint("thread")
		obj["threadId"] = in.ThreadID
	}
	if in.RunID == "" && !d.opts.Strict {
		in.RunID = d.mint("run")
		obj["runId"] = in.RunID
	}
	if in.ProtocolVersion != "" {
		if _, err := ParseVersion(in.ProtocolVersion); err != nil {
			d.fail("protocolVersion", "%v", err)
		}
	}
	if s, ok := obj["state"]; ok {
		if s == nil && d.opts.Strict {
			d.fail("state", "must not be null (omit it instead)")
		}
		in.State = s
	}
	if fp, ok := obj["forwardedProps"]; ok {
		if fp == nil && d.opts.Strict {
			d.fail("forwardedProps", "must not be null (omit it instead)")
		}
		in.ForwardedProps = fp
		in.Command = commandOf(fp)
	}
	in.Messages = d.messages(obj)
	in.Tools = d.tools(obj)
	in.Context = d.context(obj)
	in.Resume = d.resume(obj)
	return in
}

// list reads an array member whose items are objects.
func (d *inputDecoder) list(obj map[string]any, key string, required bool) []map[string]any {
	v, ok := obj[key]
	if !ok || (v == nil && !d.opts.Strict) {
		if required && d.opts.Strict {
			d.fail(key, "required, but missing")
		}
		return nil
	}
	arr, ok := v.([]any)
	if !ok {
		d.fail(key, "expected an array, got %s", jsonKind(v))
		return nil
	}
	items := make([]map[string]any, 0, len(arr))
	for i, item := range arr {
		m, ok := item.(map[string]any)
		if !ok {
			d.fail(indexed(key, i), "expected an object, got %s", jsonKind(item))
			return nil
		}
		items = append(items, m)
	}
	return items
}

func (d *inputDecoder) messages(obj map[string]any) []Message {
	items := d.list(obj, "messages", true)
	if d.opts.MaxMessages > 0 && len(items) > d.opts.MaxMessages {
		d.fail("messages", "%d messages exceed the limit of %d", len(items), d.opts.MaxMessages)
		return nil
	}
	msgs := make([]Message, 0, len(items))
	for i, m := range items {
		path := indexed("messages", i)
		msg := Message{Raw: m}
		msg.Role = d.str(m, path, "role", true)
		if d.err != nil {
			return nil
		}
		if !slices.Contains(messageRoles, msg.Role) {
			d.fail(path+".role", "unknown role %q (one of %s)", msg.Role, strings.Join(messageRoles, ", "))
			return nil
		}
		msg.ID = d.str(m, path, "id", d.opts.Strict)
		if msg.ID == "" && !d.opts.Strict {
			msg.ID = d.mint("msg")
			m["id"] = msg.ID
		}
		msg.Name = d.str(m, path, "name", false)
		msg.ToolCallID = d.str(m, path, "toolCallId", msg.Role == "tool")
		msg.Content = d.content(m, path, msg.Role)
		d.roleMembers(m, path, msg.Role)
		if d.err != nil {
			return nil
		}
		msgs = append(msgs, msg)
	}
	return msgs
}

// roleMembers checks the members that only some roles carry.
func (d *inputDecoder) roleMembers(m map[string]any, path, role string) {
	// room for the members of any role: the list is built without allocating
	known := append(make([]string, 0, 9), "id", "role", "content", "encryptedValue", "metadata")
	switch role {
	case "developer", "system", "user":
		known = append(known, "name", "encryptedValueType", "subagentRunId")
	case "assistant":
		known = append(known, "name", "toolCalls", "encryptedValueType", "subagentRunId")
		if tcs, ok := m["toolCalls"]; ok && tcs != nil {
			arr, ok := tcs.([]any)
			if !ok {
				d.fail(path+".toolCalls", "expected an array, got %s", jsonKind(tcs))
				return
			}
			for j, tc := range arr {
				d.toolCall(tc, indexed(path+".toolCalls", j))
			}
		}
	case "tool":
		known = append(known, "toolCallId", "error", "encryptedValueType", "subagentRunId")
		d.str(m, path, "error", false)
	case "activity":
		known = append(known, "activityType", "subagentRunId")
		d.str(m, path, "activityType", true)
	case "reasoning":
		known = append(known, "encryptedValueType", "subagentRunId")
	}
	d.str(m, path, "encryptedValue", false)
	if md, ok := m["metadata"]; ok {
		if _, isObj := md.(map[string]any); !isObj {
			d.fail(path+".metadata", "expected an object, got %s", jsonKind(md))
		}
	}
	d.unknown(m, path, known...)
}

func (d *inputDecoder) toolCall(v any, path string) {
	tc, ok := v.(map[string]any)
	if !ok {
		d.fail(path, "expected an object, got %s", jsonKind(v))
		return
	}
	d.str(tc, path, "id", true)
	if d.opts.Strict || tc["type"] != nil {
		if t := d.str(tc, path, "type", d.opts.Strict); d.err == nil && t != "function" {
			d.fail(path+".type", `must be "function", got %q`, t)
		}
	}
	fn, ok := tc["function"].(map[string]any)
	if !ok {
		d.fail(path+".function", "expected an object with name and arguments, got %s", jsonKind(tc["function"]))
		return
	}
	d.str(fn, path+".function", "name", true)
	d.str(fn, path+".function", "arguments", d.opts.Strict)
	d.unknown(tc, path, "id", "type", "function", "encryptedValue", "encryptedValueType", "metadata")
}

func (d *inputDecoder) content(m map[string]any, message, role string) any {
	c, ok := m["content"]
	if !ok || c == nil {
		if role == "assistant" || (!d.opts.Strict && c == nil && ok) {
			return nil
		}
		if d.opts.Strict || role != "assistant" {
			d.fail(join(message, "content"), "required, but missing")
		}
		return nil
	}
	switch x := c.(type) {
	case string:
		return c // the decoded value as it is: boxing x again would allocate
	case []any:
		if role == "user" || role == "tool" {
			path := join(message, "content")
			for i, p := range x {
				d.part(p, indexed(path, i))
			}
			return c
		}
		d.fail(join(message, "content"), "a %s message's content must be a string, got an array", role)
	case map[string]any:
		if role == "activity" {
			return c
		}
		d.fail(join(message, "content"), "expected a string or an array of content parts, got an object")
	default:
		d.fail(join(message, "content"), "expected a string or an array of content parts, got %s", jsonKind(c))
	}
	return nil
}

var mediaParts = []string{"image", "audio", "video", "document"}

func (d *inputDecoder) part(v any, path string) {
	p, ok := v.(map[string]any)
	if !ok {
		d.fail(path, "expected a content part object, got %s", jsonKind(v))
		return
	}
	typ := d.str(p, path, "type", true)
	if d.err != nil {
		return
	}
	switch {
	case typ == "text":
		d.str(p, path, "text", true)
		d.unknown(p, path, "type", "text", "id", "metadata")
	case slices.Contains(mediaParts, typ):
		src, ok := p["source"].(map[string]any)
		if !ok {
			d.fail(path+".source", "expected an object with type and value, got %s", jsonKind(p["source"]))
			return
		}
		st := d.str(src, path+".source", "type", true)
		d.str(src, path+".source", "value", true)
		d.str(src, path+".source", "mimeType", st == "data")
		if d.err == nil && st != "data" && st != "url" && st != "file" {
			d.fail(path+".source.type", `unknown source type %q (one of data, url, file)`, st)
		}
		d.unknown(src, path+".source", "type", "value", "mimeType", "provider")
		d.unknown(p, path, "type", "source", "id", "metadata")
	case typ == "binary":
		d.str(p, path, "mimeType", true)
		if d.err == nil && p["id"] == nil && p["url"] == nil && p["data"] == nil {
			d.fail(path, "a binary part needs at least one of id, url or data")
		}
		d.unknown(p, path, "type", "mimeType", "id", "url", "data", "filename")
	default:
		if d.opts.Strict {
			d.fail(path+".type", "unknown content part type %q (strict mode accepts text, image, audio, video, document and binary)", typ)
		}
	}
}

func (d *inputDecoder) tools(obj map[string]any) []Tool {
	items := d.list(obj, "tools", false)
	tools := make([]Tool, 0, len(items))
	for i, t := range items {
		path := indexed("tools", i)
		tool := Tool{
			Name:        d.str(t, path, "name", true),
			Description: d.str(t, path, "description", d.opts.Strict),
			Parameters:  t["parameters"],
		}
		if p, ok := t["parameters"]; ok && p != nil {
			if _, isObj := p.(map[string]any); !isObj {
				d.fail(path+".parameters", "expected a JSON Schema object, got %s", jsonKind(p))
			}
		}
		d.unknown(t, path, "name", "description", "parameters", "metadata")
		tools = append(tools, tool)
	}
	return tools
}

func (d *inputDecoder) context(obj map[string]any) []Context {
	items := d.list(obj, "context", false)
	ctx := make([]Context, 0, len(items))
	for i, c := range items {
		path := indexed("context", i)
		ctx = append(ctx, Context{
			Description: d.str(c, path, "description", true),
			Value:       d.str(c, path, "value", true),
		})
		d.unknown(c, path, "description", "value")
	}
	return ctx
}

func (d *inputDecoder) resume(obj map[string]any) []ResumeEntry {
	items := d.list(obj, "resume", false)
	var entries []ResumeEntry
	for i, r := range items {
		path := indexed("resume", i)
		e := ResumeEntry{
			InterruptID: d.str(r, path, "interruptId", true),
			Status:      d.str(r, path, "status", true),
			Payload:     r["payload"],
		}
		if d.err == nil && e.Status != ResumeResolved && e.Status != ResumeCancelled {
			d.fail(path+".status", `must be "resolved" or "cancelled", got %q`, e.Status)
		}
		d.unknown(r, path, "interruptId", "status", "payload", "metadata")
		entries = append(entries, e)
	}
	return entries
}

// jsonKind names the JSON type of a decoded value for error messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number, float64, int, int64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// indexed is the path of item i of the array at path.
func indexed(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
