package protocol

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/agui-mock/agui-mock/protocol/pb"
)

// ProtoContentType is the Content-Type of AG-UI's protobuf transport: each event is a
// protobuf Event message (protocol/pb) after its length, 4 bytes big-endian.
const ProtoContentType = "application/vnd.ag-ui.event+proto"

// protoLengthSize is the size of the length before each frame of the protobuf transport.
const protoLengthSize = 4

// ProtoEncoder writes frames of the protobuf transport as @ag-ui/proto 1.0.0 does.
type ProtoEncoder struct{}

// ContentType is application/vnd.ag-ui.event+proto.
func (ProtoEncoder) ContentType() string { return ProtoContentType }

// AppendFrame appends the length-prefixed Event message of ev. An event the .proto has
// no message for (see ProtoLosses) appends nothing.
func (ProtoEncoder) AppendFrame(dst []byte, ev Event, timestamp int64) ([]byte, error) {
	msg, err := toProto(ev, timestamp, nil)
	if err != nil || msg == nil {
		return dst, err
	}
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst, err = proto.MarshalOptions{}.MarshalAppend(dst, msg)
	if err != nil {
		return dst[:start], fmt.Errorf("encoding %s as protobuf: %w", ev.Type, err)
	}
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-protoLengthSize))
	return dst, nil
}

// KeepAlive is nil: the protobuf transport has no frame a client skips.
func (ProtoEncoder) KeepAlive() []byte { return nil }

// MalformedFrame is a frame whose length is right but whose TEXT_MESSAGE_CONTENT
// message is cut short: its length says 10 bytes and 2 follow.
func (ProtoEncoder) MalformedFrame() []byte {
	return []byte{0, 0, 0, 4, 2<<3 | 2, 10, 1<<3 | 2, 0}
}

// ErrProtoFrameTooLarge is returned for a protobuf frame larger than the reader's limit.
var ErrProtoFrameTooLarge = errors.New("protobuf frame exceeds the size limit")

// ProtoFrameReader reads the frames of the protobuf transport: a length, 4 bytes
// big-endian, then that many bytes of an Event message.
type ProtoFrameReader struct {
	r       io.Reader
	maxSize int
	buf     []byte
}

// NewProtoFrameReader reads frames of at most maxSize bytes from r.
func NewProtoFrameReader(r io.Reader, maxSize int) *ProtoFrameReader {
	return &ProtoFrameReader{r: r, maxSize: maxSize}
}

// Next returns the next frame's message bytes, valid until the next call. At the end of
// the stream between frames it returns io.EOF; a stream that ends inside a frame is
// io.ErrUnexpectedEOF.
func (fr *ProtoFrameReader) Next() ([]byte, error) {
	var head [protoLengthSize]byte
	if _, err := io.ReadFull(fr.r, head[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(head[:])
	if uint64(n) > uint64(fr.maxSize) {
		return nil, fmt.Errorf("%w: %d bytes", ErrProtoFrameTooLarge, n)
	}
	if cap(fr.buf) < int(n) {
		fr.buf = make([]byte, n)
	}
	fr.buf = fr.buf[:n]
	if _, err := io.ReadFull(fr.r, fr.buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("a frame of %d bytes: %w", n, err)
	}
	return fr.buf, nil
}

// EventReader reads the events of a stream in either transport.
type EventReader interface {
	// Next returns the next event; io.EOF at the end of the stream.
	Next() (Event, error)
}

// NewEventReader reads the events of a response of contentType: protobuf frames for
// ProtoContentType, SSE otherwise; maxFrame bounds each frame.
func NewEventReader(contentType string, r io.Reader, maxFrame int) EventReader {
	if IsProtoContentType(contentType) {
		return protoEvents{NewProtoFrameReader(r, maxFrame)}
	}
	return sseEvents{NewFrameReader(r, maxFrame)}
}

// IsProtoContentType reports whether a Content-Type is the protobuf transport's.
func IsProtoContentType(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), ProtoContentType)
}

type protoEvents struct{ fr *ProtoFrameReader }

func (p protoEvents) Next() (Event, error) {
	b, err := p.fr.Next()
	if err != nil {
		return Event{}, err
	}
	return DecodeProto(b)
}

type sseEvents struct{ fr *FrameReader }

func (s sseEvents) Next() (Event, error) {
	f, err := s.fr.Next()
	if err != nil {
		return Event{}, err
	}
	return DecodeEvent([]byte(f.Data))
}

// ProtoLosses says what of ev the protobuf transport cannot carry: its type, when the
// .proto has no message for it, or each member it has no field for. Empty when it
// carries the whole event.
func ProtoLosses(ev Event) []string {
	var lost []string
	msg, err := toProto(ev, -1, func(what string) { lost = append(lost, what) })
	if err != nil {
		lost = append(lost, err.Error())
	} else if msg == nil {
		lost = append(lost, "the event type "+ev.Type+" (the .proto has no message for it)")
	}
	return lost
}

// The members of BaseEvent, which every event message holds as base_event.
const (
	baseEventField = "baseEvent"
	timestampField = "timestamp"
	rawEventField  = "rawEvent"
	metadataField  = "metadata"
)

// armName is the name of the Event oneof's member for an event type: TEXT_MESSAGE_START
// is textMessageStart.
func armName(typ string) string {
	var b strings.Builder
	upper := false
	for _, r := range typ {
		switch {
		case r == '_':
			upper = true
		case upper:
			b.WriteRune(r)
			upper = false
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// toProto builds the Event message of ev as @ag-ui/proto's encode does. It returns nil
// for an event type the .proto has no message for; lost, if not nil, hears of each
// member the message has no field for, which the encoding drops.
func toProto(ev Event, timestamp int64, lost func(string)) (*pb.Event, error) {
	typ, ok := pb.EventType_value[ev.Type]
	if !ok {
		return nil, nil
	}
	env := &pb.Event{}
	arm := env.ProtoReflect().Descriptor().Fields().ByJSONName(armName(ev.Type))
	if arm == nil {
		return nil, nil
	}
	c := protoConv{lost: lost}
	msg := env.ProtoReflect().Mutable(arm).Message()
	base := msg.Mutable(msg.Descriptor().Fields().ByJSONName(baseEventField)).Message()
	baseFields := base.Descriptor().Fields()
	base.Set(baseFields.ByJSONName("type"), protoreflect.ValueOfEnum(protoreflect.EnumNumber(typ)))
	if timestamp >= 0 {
		base.Set(baseFields.ByJSONName(timestampField), protoreflect.ValueOfInt64(timestamp))
	}
	for _, f := range ev.Fields {
		var err error
		switch f.Name {
		case timestampField, rawEventField, metadataField:
			err = c.set(base, f.Name, f.Value, ev.Type)
		case "outcome":
			err = c.setOutcome(msg, f.Value, ev.Type)
		case "content":
			err = c.setContent(msg, f.Value, ev.Type)
		case "pendingToolCallIds", "interrupts", "interruptIds":
			// @ag-ui/proto carries these only inside an outcome (setOutcome).
			if ev.Type == RunFinished || ev.Type == SubagentFinished {
				c.drop(ev.Type + "." + f.Name + " outside an outcome")
				continue
			}
			err = c.set(msg, f.Name, f.Value, ev.Type)
		default:
			err = c.set(msg, f.Name, f.Value, ev.Type)
		}
		if err != nil {
			return nil, err
		}
	}
	return env, nil
}

// protoConv converts JSON values to the fields of protobuf messages.
type protoConv struct{ lost func(string) }

func (c protoConv) drop(what string) {
	if c.lost != nil {
		c.lost(what)
	}
}

// set sets m's field of a JSON name to v; a null leaves an optional field unset, as
// @ag-ui/proto omits optional nulls. at names the place, for errors.
func (c protoConv) set(m protoreflect.Message, name string, v any, at string) error {
	fd := m.Descriptor().Fields().ByJSONName(name)
	if fd == nil {
		c.drop(at + "." + name)
		return nil
	}
	at += "." + name
	if v == nil && !isValueMessage(fd) {
		return nil
	}
	if fd.IsList() {
		items, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: a list is needed, got %s", at, jsonKind(v))
		}
		list := m.Mutable(fd).List()
		for i, item := range items {
			pv, err := c.value(fd, list.NewElement, item, fmt.Sprintf("%s[%d]", at, i))
			if err != nil {
				return err
			}
			list.Append(pv)
		}
		return nil
	}
	pv, err := c.value(fd, func() protoreflect.Value { return m.NewField(fd) }, v, at)
	if err != nil {
		return err
	}
	m.Set(fd, pv)
	return nil
}

func isValueMessage(fd protoreflect.FieldDescriptor) bool {
	return fd.Message() != nil && fd.Message().FullName() == "google.protobuf.Value"
}

// value converts v to a value of fd's kind; newMessage makes a message of its type.
func (c protoConv) value(fd protoreflect.FieldDescriptor, newMessage func() protoreflect.Value, v any, at string) (protoreflect.Value, error) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		s, ok := v.(string)
		if !ok {
			return protoreflect.Value{}, fmt.Errorf("%s: a string is needed, got %s", at, jsonKind(v))
		}
		return protoreflect.ValueOfString(s), nil
	case protoreflect.BoolKind:
		b, ok := v.(bool)
		if !ok {
			return protoreflect.Value{}, fmt.Errorf("%s: a boolean is needed, got %s", at, jsonKind(v))
		}
		return protoreflect.ValueOfBool(b), nil
	case protoreflect.Int64Kind:
		n, ok := jsonInt(v)
		if !ok {
			return protoreflect.Value{}, fmt.Errorf("%s: an integer is needed, got %s", at, jsonKind(v))
		}
		return protoreflect.ValueOfInt64(n), nil
	case protoreflect.EnumKind: // a JSON Patch operation's op
		s, _ := v.(string)
		ev := fd.Enum().Values().ByName(protoreflect.Name(strings.ToUpper(s)))
		if ev == nil {
			return protoreflect.Value{}, fmt.Errorf("%s: %q is not one of the operations the .proto knows", at, s)
		}
		return protoreflect.ValueOfEnum(ev.Number()), nil
	case protoreflect.MessageKind:
		switch fd.Message().FullName() {
		case "google.protobuf.Value":
			pv, err := toValue(v)
			if err != nil {
				return protoreflect.Value{}, fmt.Errorf("%s: %w", at, err)
			}
			return protoreflect.ValueOfMessage(pv.ProtoReflect()), nil
		case "google.protobuf.Struct":
			obj, ok := v.(map[string]any)
			if !ok {
				return protoreflect.Value{}, fmt.Errorf("%s: an object is needed, got %s", at, jsonKind(v))
			}
			s, err := toStruct(obj)
			if err != nil {
				return protoreflect.Value{}, fmt.Errorf("%s: %w", at, err)
			}
			return protoreflect.ValueOfMessage(s.ProtoReflect()), nil
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return protoreflect.Value{}, fmt.Errorf("%s: an object is needed, got %s", at, jsonKind(v))
		}
		mv := newMessage()
		return mv, c.setObject(mv.Message(), obj, at)
	}
	return protoreflect.Value{}, fmt.Errorf("%s: the field's kind %s has no JSON form here", at, fd.Kind())
}

// setObject sets the fields of m from a JSON object, as @ag-ui/proto maps the objects
// whose JSON and protobuf forms differ: a message's content, a content part.
func (c protoConv) setObject(m protoreflect.Message, obj map[string]any, at string) error {
	switch m.Descriptor().FullName() {
	case "ag_ui.InputContent":
		return c.setContentPart(m, obj, at)
	case "ag_ui.InputContentSource":
		typ, _ := obj["type"].(string)
		arm := m.Descriptor().Fields().ByJSONName(typ)
		if arm == nil {
			c.drop(fmt.Sprintf("%s (a source of type %q)", at, typ))
			return nil
		}
		return c.setObject(m.Mutable(arm).Message(), withoutKey(obj, "type"), at)
	}
	for _, k := range sortedKeys(obj) {
		var err error
		if k == "content" && m.Descriptor().FullName() == "ag_ui.Message" {
			err = c.setContent(m, obj[k], at)
		} else {
			err = c.set(m, k, obj[k], at)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// setContentPart sets an InputContent from a content part: its type names the arm.
func (c protoConv) setContentPart(m protoreflect.Message, part map[string]any, at string) error {
	typ, _ := part["type"].(string)
	arm := m.Descriptor().Fields().ByJSONName(typ)
	if arm == nil {
		c.drop(fmt.Sprintf("%s (a content part of type %q)", at, typ))
		return nil
	}
	return c.setObject(m.Mutable(arm).Message(), withoutKey(part, "type"), at)
}

// setContent sets the content of a message or a TOOL_CALL_RESULT: a string rides the
// content field, a list of parts contentParts, and an activity message's object
// activityContent.
func (c protoConv) setContent(m protoreflect.Message, v any, at string) error {
	switch v.(type) {
	case []any:
		return c.set(m, "contentParts", v, at)
	case map[string]any:
		if fd := m.Descriptor().Fields().ByJSONName("activityContent"); fd != nil {
			return c.set(m, "activityContent", v, at)
		}
	}
	return c.set(m, "content", v, at)
}

// setOutcome sets a RUN_FINISHED or SUBAGENT_FINISHED event's outcome: its type as the
// outcome string, and the lists of its payload as the fields beside it.
func (c protoConv) setOutcome(m protoreflect.Message, v any, at string) error {
	outcome, ok := v.(map[string]any)
	if !ok {
		if v != nil {
			return fmt.Errorf("%s.outcome: an object is needed, got %s", at, jsonKind(v))
		}
		return nil
	}
	typ, _ := outcome["type"].(string)
	if err := c.set(m, "outcome", typ, at); err != nil {
		return err
	}
	for _, k := range sortedKeys(outcome) {
		if k == "type" {
			continue
		}
		keep := (typ == "success" && k == "pendingToolCallIds") || (typ == "interrupt" && k == "interrupts") || (typ == "suspended" && k == "interruptIds")
		if !keep {
			c.drop(at + ".outcome." + k)
			continue
		}
		if err := c.set(m, k, outcome[k], at+".outcome"); err != nil {
			return err
		}
	}
	return nil
}

func withoutKey(obj map[string]any, key string) map[string]any {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		if k != key {
			out[k] = v
		}
	}
	return out
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

// toValue converts a JSON value to a google.protobuf.Value.
func toValue(v any) (*structpb.Value, error) {
	switch x := v.(type) {
	case nil:
		return structpb.NewNullValue(), nil
	case bool:
		return structpb.NewBoolValue(x), nil
	case string:
		return structpb.NewStringValue(x), nil
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return nil, fmt.Errorf("the number %s: %w", x, err)
		}
		return structpb.NewNumberValue(f), nil
	case float64:
		return structpb.NewNumberValue(x), nil
	case int:
		return structpb.NewNumberValue(float64(x)), nil
	case int64:
		return structpb.NewNumberValue(float64(x)), nil
	case []any:
		list := &structpb.ListValue{Values: make([]*structpb.Value, len(x))}
		for i, item := range x {
			pv, err := toValue(item)
			if err != nil {
				return nil, err
			}
			list.Values[i] = pv
		}
		return structpb.NewListValue(list), nil
	case map[string]any:
		s, err := toStruct(x)
		if err != nil {
			return nil, err
		}
		return structpb.NewStructValue(s), nil
	}
	return nil, fmt.Errorf("a %T has no JSON form", v)
}

func toStruct(obj map[string]any) (*structpb.Struct, error) {
	s := &structpb.Struct{Fields: make(map[string]*structpb.Value, len(obj))}
	for k, item := range obj {
		pv, err := toValue(item)
		if err != nil {
			return nil, err
		}
		s.Fields[k] = pv
	}
	return s, nil
}

// DecodeProto decodes one Event message of the protobuf transport into the event it
// carries, as @ag-ui/proto's decode does: the oneof member names the type, and the
// forms that differ from JSON (outcomes, content, patch operations) are rebuilt.
func DecodeProto(b []byte) (Event, error) {
	var env pb.Event
	if err := proto.Unmarshal(b, &env); err != nil {
		return Event{}, fmt.Errorf("an invalid protobuf Event: %w", err)
	}
	m := env.ProtoReflect()
	arm := m.WhichOneof(m.Descriptor().Oneofs().ByName("event"))
	if arm == nil {
		return Event{}, errors.New("a protobuf Event that carries no event this build knows")
	}
	msg := m.Get(arm).Message()
	typ := strings.ToUpper(camelToSnake(arm.JSONName()))
	base := msg.Get(msg.Descriptor().Fields().ByJSONName(baseEventField)).Message()
	if declared := pb.EventType(base.Get(base.Descriptor().Fields().ByJSONName("type")).Enum()).String(); declared != typ {
		return Event{}, fmt.Errorf("a protobuf Event carries %s but its base event declares %s", typ, declared)
	}
	ev := Event{Type: typ}
	for _, name := range [...]string{timestampField, rawEventField, metadataField} {
		if fd := base.Descriptor().Fields().ByJSONName(name); base.Has(fd) {
			ev.Fields = append(ev.Fields, Field{Name: name, Value: fromField(fd, base.Get(fd))})
		}
	}
	obj := fromMessage(msg)
	delete(obj, baseEventField)
	switch typ {
	case RunFinished:
		rebuildOutcome(obj, "pendingToolCallIds", "interrupts")
	case SubagentFinished:
		rebuildOutcome(obj, "interruptIds")
	case ToolCallResult:
		if parts, ok := obj["contentParts"]; ok {
			if _, has := obj["content"]; !has {
				obj["content"] = parts
			}
			delete(obj, "contentParts")
		} else if _, has := obj["content"]; !has {
			obj["content"] = []any{}
		}
	}
	fields := msg.Descriptor().Fields()
	for i := range fields.Len() {
		name := fields.Get(i).JSONName()
		if v, ok := obj[name]; ok {
			ev.Fields = append(ev.Fields, Field{Name: name, Value: v})
			delete(obj, name)
		}
	}
	for _, k := range sortedKeys(obj) { // rebuilt members: outcome, content
		ev.Fields = append(ev.Fields, Field{Name: k, Value: obj[k]})
	}
	return ev, nil
}

// rebuildOutcome turns the outcome string and its payload lists back into an object.
func rebuildOutcome(obj map[string]any, payload ...string) {
	typ, _ := obj["outcome"].(string)
	delete(obj, "outcome")
	if typ == "" {
		return // no outcome: the payload lists stay at the top
	}
	outcome := map[string]any{"type": typ}
	for _, k := range payload {
		if v, ok := obj[k]; ok {
			outcome[k] = v
			delete(obj, k)
		}
	}
	obj["outcome"] = outcome
}

// fromMessage converts a message to its JSON object: the fields set, by JSON name, with
// the unset lists left out and the merged forms of a message's content split again.
func fromMessage(m protoreflect.Message) map[string]any {
	desc := m.Descriptor()
	switch desc.FullName() {
	case "ag_ui.InputContent", "ag_ui.InputContentSource":
		return fromArm(m)
	}
	obj := map[string]any{}
	fields := desc.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if !m.Has(fd) {
			if !fd.HasPresence() && !fd.IsList() {
				obj[fd.JSONName()] = fromField(fd, m.Get(fd)) // a scalar at its zero value, as ts-proto reads it
			}
			continue
		}
		obj[fd.JSONName()] = fromField(fd, m.Get(fd))
	}
	if desc.FullName() == "ag_ui.Message" {
		if parts, ok := obj["contentParts"]; ok {
			obj["content"] = parts
			delete(obj, "contentParts")
		}
		if activity, ok := obj["activityContent"]; ok {
			obj["content"] = activity
			delete(obj, "activityContent")
		}
	}
	return obj
}

// fromArm converts a message that is one of its arms (a content part, a source) to
// the arm's object with its type.
func fromArm(m protoreflect.Message) map[string]any {
	fd := m.WhichOneof(m.Descriptor().Oneofs().Get(0))
	if fd == nil {
		return map[string]any{}
	}
	obj := fromMessage(m.Get(fd).Message())
	obj["type"] = fd.JSONName()
	return obj
}

func fromField(fd protoreflect.FieldDescriptor, v protoreflect.Value) any {
	if fd.IsList() {
		list := v.List()
		out := make([]any, list.Len())
		for i := range out {
			out[i] = fromScalar(fd, list.Get(i))
		}
		return out
	}
	return fromScalar(fd, v)
}

func fromScalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) any {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return v.String()
	case protoreflect.BoolKind:
		return v.Bool()
	case protoreflect.Int64Kind:
		return json.Number(strconv.FormatInt(v.Int(), 10))
	case protoreflect.EnumKind:
		return strings.ToLower(string(fd.Enum().Values().ByNumber(v.Enum()).Name()))
	case protoreflect.MessageKind:
		switch x := v.Message().Interface().(type) {
		case *structpb.Value:
			return fromValue(x)
		case *structpb.Struct:
			return fromStruct(x)
		}
		return fromMessage(v.Message())
	}
	return nil
}

func fromValue(v *structpb.Value) any {
	switch k := v.GetKind().(type) {
	case *structpb.Value_BoolValue:
		return k.BoolValue
	case *structpb.Value_StringValue:
		return k.StringValue
	case *structpb.Value_NumberValue:
		return jsonNumber(k.NumberValue)
	case *structpb.Value_ListValue:
		out := make([]any, len(k.ListValue.GetValues()))
		for i, item := range k.ListValue.GetValues() {
			out[i] = fromValue(item)
		}
		return out
	case *structpb.Value_StructValue:
		return fromStruct(k.StructValue)
	}
	return nil
}

func fromStruct(s *structpb.Struct) map[string]any {
	out := make(map[string]any, len(s.GetFields()))
	for k, v := range s.GetFields() {
		out[k] = fromValue(v)
	}
	return out
}

// jsonNumber writes a double as JavaScript's JSON.stringify does, enough for the
// integers and decimals events carry.
func jsonNumber(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil // JSON has no form for them; JSON.stringify writes null
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return json.Number(strconv.FormatFloat(f, 'f', -1, 64))
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
}

// camelToSnake turns textMessageStart into text_message_start.
func camelToSnake(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsUpper(r) {
			b.WriteByte('_')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// AcceptsProto reports whether an Accept header lists the protobuf transport's media
// type (with a quality above 0), as @ag-ui/encoder decides to answer in it.
func AcceptsProto(accept string) bool {
	for _, item := range strings.Split(accept, ",") {
		mt, params, _ := strings.Cut(item, ";")
		if !strings.EqualFold(strings.TrimSpace(mt), ProtoContentType) {
			continue
		}
		for _, p := range strings.Split(params, ";") {
			name, value, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(name, "q") {
				if q, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err == nil && q <= 0 {
					return false
				}
			}
		}
		return true
	}
	return false
}
