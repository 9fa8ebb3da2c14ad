package protocol

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/agui-mock/agui-mock/protocol/pb"
)

// The members of BaseEvent, which every event message holds as base_event.
const (
	baseEventField = "baseEvent"
	timestampField = "timestamp"
	rawEventField  = "rawEvent"
	metadataField  = "metadata"
)

// ProtoLosses says what of ev the protobuf transport cannot carry: its type, when the
// .proto has no message for it, or each member it has no field for. Empty when it
// carries the whole event.
func ProtoLosses(ev Event) []string {
	var lost []string
	_, ok, err := protoWriter{lost: func(what string) { lost = append(lost, what) }}.appendEvent(nil, ev, -1)
	switch {
	case err != nil:
		lost = append(lost, err.Error())
	case !ok:
		lost = append(lost, "the event type "+ev.Type+" (the .proto has no message for it)")
	}
	return lost
}

// protoWriter writes events as Event messages straight to the wire, as @ag-ui/proto's
// encode does, field by field from the .proto's descriptors: building the generated
// messages first would cost a stream dozens of allocations an event. lost, if not nil,
// hears of each member the message has no field for, which the encoding drops.
type protoWriter struct{ lost func(string) }

func (w protoWriter) drop(what string) {
	if w.lost != nil {
		w.lost(what)
	}
}

// appendEvent appends the Event message of ev, stamped with timestamp unless it is
// negative or ev carries its own; ok is false, and nothing appended, for an event type
// the .proto has no message for.
func (w protoWriter) appendEvent(dst []byte, ev Event, timestamp int64) (_ []byte, ok bool, err error) {
	typ, known := pb.EventType_value[ev.Type]
	if !known {
		return dst, false, nil
	}
	// The oneof member of an event type is its name in lower case: text_message_start.
	arm := pb.File_events_proto.Messages().ByName("Event").Fields().ByName(protoreflect.Name(strings.ToLower(ev.Type)))
	if arm == nil {
		return dst, false, nil
	}
	start := len(dst)
	md := arm.Message()
	dst = protowire.AppendTag(dst, arm.Number(), protowire.BytesType)
	mark := len(dst)
	dst = append(dst, 0)
	if dst, err = w.appendBase(dst, md, ev, typ, timestamp); err != nil {
		return dst[:start], false, err
	}
	for _, f := range ev.Fields {
		switch f.Name {
		case timestampField, rawEventField, metadataField: // in the base event
		case "outcome":
			dst, err = w.appendOutcome(dst, md, f.Value, ev.Type)
		case "content":
			dst, err = w.appendContent(dst, md, f.Value, ev.Type)
		case "pendingToolCallIds", "interrupts", "interruptIds":
			// @ag-ui/proto carries these only inside an outcome (appendOutcome).
			if ev.Type == RunFinished || ev.Type == SubagentFinished {
				w.drop(ev.Type + "." + f.Name + " outside an outcome")
				continue
			}
			dst, err = w.appendField(dst, md, f.Name, f.Value, ev.Type)
		default:
			dst, err = w.appendField(dst, md, f.Name, f.Value, ev.Type)
		}
		if err != nil {
			return dst[:start], false, err
		}
	}
	return endLength(dst, mark), true, nil
}

// appendBase appends an event message's base_event: its type, its timestamp, and its
// rawEvent and metadata when it has them.
func (w protoWriter) appendBase(dst []byte, md protoreflect.MessageDescriptor, ev Event, typ int32, timestamp int64) (_ []byte, err error) {
	fd := md.Fields().ByJSONName(baseEventField)
	base := fd.Message()
	dst = protowire.AppendTag(dst, fd.Number(), protowire.BytesType)
	mark := len(dst)
	dst = append(dst, 0)
	dst = protowire.AppendTag(dst, base.Fields().ByJSONName("type").Number(), protowire.VarintType)
	dst = protowire.AppendVarint(dst, uint64(typ))
	if _, has := ev.Get(timestampField); !has && timestamp >= 0 {
		dst = protowire.AppendTag(dst, base.Fields().ByJSONName(timestampField).Number(), protowire.VarintType)
		dst = protowire.AppendVarint(dst, uint64(timestamp))
	}
	for _, f := range ev.Fields {
		switch f.Name {
		case timestampField, rawEventField, metadataField:
			if dst, err = w.appendField(dst, base, f.Name, f.Value, ev.Type); err != nil {
				return dst, err
			}
		}
	}
	return endLength(dst, mark), nil
}

// appendField appends md's field of a JSON name, holding v; a null leaves an optional
// field out, as @ag-ui/proto omits optional nulls. at names where md stands, for errors
// and losses.
func (w protoWriter) appendField(dst []byte, md protoreflect.MessageDescriptor, name string, v any, at string) ([]byte, error) {
	fd := md.Fields().ByJSONName(name)
	if fd == nil {
		w.drop(at + "." + name)
		return dst, nil
	}
	if v == nil && !isValueMessage(fd) {
		return dst, nil
	}
	if !fd.IsList() {
		return w.appendValue(dst, fd, v, false, func() string { return at + "." + name })
	}
	items, ok := v.([]any)
	if !ok {
		return dst, fmt.Errorf("%s.%s: a list is needed, got %s", at, name, jsonKind(v))
	}
	for i, item := range items {
		var err error
		if dst, err = w.appendValue(dst, fd, item, true, func() string { return fmt.Sprintf("%s.%s[%d]", at, name, i) }); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

func isValueMessage(fd protoreflect.FieldDescriptor) bool {
	return fd.Message() != nil && fd.Message().FullName() == "google.protobuf.Value"
}

// appendValue appends one value of fd, of its kind; a scalar at its zero value is left
// out of a field without presence, as protobuf encoders do, unless it is an item of a
// list. at names the place, only when it is needed.
func (w protoWriter) appendValue(dst []byte, fd protoreflect.FieldDescriptor, v any, item bool, at func() string) ([]byte, error) {
	keepZero := item || fd.HasPresence()
	num := fd.Number()
	switch fd.Kind() {
	case protoreflect.StringKind:
		s, ok := v.(string)
		if !ok {
			return dst, fmt.Errorf("%s: a string is needed, got %s", at(), jsonKind(v))
		}
		if s == "" && !keepZero {
			return dst, nil
		}
		dst = protowire.AppendTag(dst, num, protowire.BytesType)
		return protowire.AppendString(dst, s), nil
	case protoreflect.BoolKind:
		b, ok := v.(bool)
		if !ok {
			return dst, fmt.Errorf("%s: a boolean is needed, got %s", at(), jsonKind(v))
		}
		if !b && !keepZero {
			return dst, nil
		}
		dst = protowire.AppendTag(dst, num, protowire.VarintType)
		return protowire.AppendVarint(dst, protowire.EncodeBool(b)), nil
	case protoreflect.Int64Kind:
		n, ok := jsonInt(v)
		if !ok {
			return dst, fmt.Errorf("%s: an integer is needed, got %s", at(), jsonKind(v))
		}
		if n == 0 && !keepZero {
			return dst, nil
		}
		dst = protowire.AppendTag(dst, num, protowire.VarintType)
		return protowire.AppendVarint(dst, uint64(n)), nil
	case protoreflect.EnumKind: // a JSON Patch operation's op
		s, _ := v.(string)
		ev := fd.Enum().Values().ByName(protoreflect.Name(strings.ToUpper(s)))
		if ev == nil {
			return dst, fmt.Errorf("%s: %q is not one of the operations the .proto knows", at(), s)
		}
		if ev.Number() == 0 && !keepZero {
			return dst, nil
		}
		dst = protowire.AppendTag(dst, num, protowire.VarintType)
		return protowire.AppendVarint(dst, uint64(ev.Number())), nil
	case protoreflect.MessageKind:
		dst = protowire.AppendTag(dst, num, protowire.BytesType)
		mark := len(dst)
		dst = append(dst, 0)
		var err error
		switch md := fd.Message(); md.FullName() {
		case "google.protobuf.Value":
			dst, err = appendJSONValue(dst, v)
		case "google.protobuf.Struct":
			obj, ok := v.(map[string]any)
			if !ok {
				return dst, fmt.Errorf("%s: an object is needed, got %s", at(), jsonKind(v))
			}
			dst, err = appendStruct(dst, obj)
		default:
			obj, ok := v.(map[string]any)
			if !ok {
				return dst, fmt.Errorf("%s: an object is needed, got %s", at(), jsonKind(v))
			}
			dst, err = w.appendObject(dst, md, obj, "", at())
		}
		if err != nil {
			return dst, fmt.Errorf("%s: %w", at(), err)
		}
		return endLength(dst, mark), nil
	}
	return dst, fmt.Errorf("%s: the field's kind %s has no JSON form here", at(), fd.Kind())
}

// appendObject appends the fields of md from a JSON object but its member skip, as
// @ag-ui/proto maps the objects whose JSON and protobuf forms differ: a message's
// content, a content part and its source.
func (w protoWriter) appendObject(dst []byte, md protoreflect.MessageDescriptor, obj map[string]any, skip, at string) ([]byte, error) {
	switch md.FullName() {
	case "ag_ui.InputContent", "ag_ui.InputContentSource": // the member type names the arm
		typ, _ := obj["type"].(string)
		arm := md.Fields().ByJSONName(typ)
		if arm == nil {
			w.drop(fmt.Sprintf("%s (a %s of type %q)", at, md.Name(), typ))
			return dst, nil
		}
		dst = protowire.AppendTag(dst, arm.Number(), protowire.BytesType)
		mark := len(dst)
		dst = append(dst, 0)
		dst, err := w.appendObject(dst, arm.Message(), obj, "type", at)
		return endLength(dst, mark), err
	}
	for _, k := range sortedKeys(obj) {
		var err error
		switch {
		case k == skip:
		case k == "content" && md.FullName() == "ag_ui.Message":
			dst, err = w.appendContent(dst, md, obj[k], at)
		default:
			dst, err = w.appendField(dst, md, k, obj[k], at)
		}
		if err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// appendContent appends the content of a message or a TOOL_CALL_RESULT: a string rides
// the content field, a list of parts contentParts, and an activity message's object
// activityContent.
func (w protoWriter) appendContent(dst []byte, md protoreflect.MessageDescriptor, v any, at string) ([]byte, error) {
	switch v.(type) {
	case []any:
		return w.appendField(dst, md, "contentParts", v, at)
	case map[string]any:
		if md.Fields().ByJSONName("activityContent") != nil {
			return w.appendField(dst, md, "activityContent", v, at)
		}
	}
	return w.appendField(dst, md, "content", v, at)
}

// appendOutcome appends a RUN_FINISHED or SUBAGENT_FINISHED event's outcome: its type
// as the outcome string, and the lists of its payload as the fields beside it.
func (w protoWriter) appendOutcome(dst []byte, md protoreflect.MessageDescriptor, v any, at string) ([]byte, error) {
	outcome, ok := v.(map[string]any)
	if !ok {
		if v != nil {
			return dst, fmt.Errorf("%s.outcome: an object is needed, got %s", at, jsonKind(v))
		}
		return dst, nil
	}
	typ, _ := outcome["type"].(string)
	dst, err := w.appendField(dst, md, "outcome", typ, at)
	if err != nil {
		return dst, err
	}
	for _, k := range sortedKeys(outcome) {
		if k == "type" {
			continue
		}
		keep := (typ == "success" && k == "pendingToolCallIds") || (typ == "interrupt" && k == "interrupts") || (typ == "suspended" && k == "interruptIds")
		if !keep {
			w.drop(at + ".outcome." + k)
			continue
		}
		if dst, err = w.appendField(dst, md, k, outcome[k], at+".outcome"); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// The fields of google.protobuf.Value, Struct, its entries and ListValue.
const (
	valueNull   protowire.Number = 1
	valueNumber protowire.Number = 2
	valueString protowire.Number = 3
	valueBool   protowire.Number = 4
	valueStruct protowire.Number = 5
	valueList   protowire.Number = 6
	structField protowire.Number = 1 // Struct.fields, ListValue.values
	entryKey    protowire.Number = 1
	entryValue  protowire.Number = 2
)

// appendJSONValue appends a JSON value as the body of a google.protobuf.Value.
func appendJSONValue(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		dst = protowire.AppendTag(dst, valueNull, protowire.VarintType)
		return protowire.AppendVarint(dst, 0), nil
	case bool:
		dst = protowire.AppendTag(dst, valueBool, protowire.VarintType)
		return protowire.AppendVarint(dst, protowire.EncodeBool(x)), nil
	case string:
		dst = protowire.AppendTag(dst, valueString, protowire.BytesType)
		return protowire.AppendString(dst, x), nil
	case []any:
		dst = protowire.AppendTag(dst, valueList, protowire.BytesType)
		mark := len(dst)
		dst = append(dst, 0)
		for _, item := range x {
			dst = protowire.AppendTag(dst, structField, protowire.BytesType)
			inner := len(dst)
			dst = append(dst, 0)
			var err error
			if dst, err = appendJSONValue(dst, item); err != nil {
				return dst, err
			}
			dst = endLength(dst, inner)
		}
		return endLength(dst, mark), nil
	case map[string]any:
		dst = protowire.AppendTag(dst, valueStruct, protowire.BytesType)
		mark := len(dst)
		dst = append(dst, 0)
		dst, err := appendStruct(dst, x)
		return endLength(dst, mark), err
	}
	f, ok := jsonFloat(v)
	if !ok {
		return dst, fmt.Errorf("a %T has no JSON form", v)
	}
	dst = protowire.AppendTag(dst, valueNumber, protowire.Fixed64Type)
	return protowire.AppendFixed64(dst, math.Float64bits(f)), nil
}

// appendStruct appends a JSON object as the body of a google.protobuf.Struct, its
// members in key order.
func appendStruct(dst []byte, obj map[string]any) ([]byte, error) {
	for _, k := range sortedKeys(obj) {
		dst = protowire.AppendTag(dst, structField, protowire.BytesType)
		entry := len(dst)
		dst = append(dst, 0)
		dst = protowire.AppendTag(dst, entryKey, protowire.BytesType)
		dst = protowire.AppendString(dst, k)
		dst = protowire.AppendTag(dst, entryValue, protowire.BytesType)
		value := len(dst)
		dst = append(dst, 0)
		var err error
		if dst, err = appendJSONValue(dst, obj[k]); err != nil {
			return dst, err
		}
		dst = endLength(endLength(dst, value), entry)
	}
	return dst, nil
}

// endLength writes the length of what follows mark, where one byte was kept for it,
// moving what follows when the length needs more than one byte.
func endLength(dst []byte, mark int) []byte {
	n := len(dst) - mark - 1
	size := protowire.SizeVarint(uint64(n))
	if size > 1 {
		dst = append(dst, make([]byte, size-1)...)
		copy(dst[mark+size:], dst[mark+1:mark+1+n])
	}
	protowire.AppendVarint(dst[:mark], uint64(n))
	return dst
}

// jsonInt reads an integer from a JSON number.
func jsonInt(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	case float64:
		return int64(n), n == math.Trunc(n) && math.Abs(n) < 1<<63
	case int:
		return int64(n), true
	case int64:
		return n, true
	}
	return 0, false
}

// jsonFloat reads a JSON number as a double.
func jsonFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}
