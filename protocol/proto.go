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

	"google.golang.org/protobuf/encoding/protowire"
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
// no message for, or whose members do not fit its fields (a number for a string), is
// not sent: it appends nothing, and the load-time check warns of it (see ProtoLosses).
func (ProtoEncoder) AppendFrame(dst []byte, ev Event, timestamp int64) ([]byte, error) {
	start := len(dst)
	dst, ok, err := protoWriter{}.appendEvent(append(dst, 0, 0, 0, 0), ev, timestamp)
	if err != nil || !ok {
		return dst[:start], nil
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
	case protoreflect.EnumKind: // a JSON Patch operation's op
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return strings.ToLower(string(ev.Name()))
		}
		// An operation this build cannot name rides on as its number, as @ag-ui/proto
		// passes it: the checker then names it as the unknown operation it is.
		return strconv.Itoa(int(v.Enum()))
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
	for item := range strings.SplitSeq(accept, ",") { // no list made: it runs on every request
		mt, params, _ := strings.Cut(item, ";")
		if !strings.EqualFold(strings.TrimSpace(mt), ProtoContentType) {
			continue
		}
		for p := range strings.SplitSeq(params, ";") {
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

// ProtoEventType returns the type of the event a frame's Event message carries, from
// its oneof member alone: a reader that needs no more, such as the load tool, leaves
// the rest undecoded.
func ProtoEventType(b []byte) (string, error) {
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 || typ != protowire.BytesType {
		return "", errors.New("a protobuf frame that does not start with an event")
	}
	if m := protowire.ConsumeFieldValue(num, typ, b[n:]); m < 0 {
		return "", fmt.Errorf("a protobuf frame whose event is cut short: %w", protowire.ParseError(m))
	}
	arm := (&pb.Event{}).ProtoReflect().Descriptor().Fields().ByNumber(num)
	if arm == nil {
		return "", fmt.Errorf("a protobuf frame carries event member %d, which the .proto does not know", num)
	}
	return strings.ToUpper(camelToSnake(arm.JSONName())), nil
}
