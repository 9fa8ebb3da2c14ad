package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/agui-mock/agui-mock/internal/prototest"
)

// FuzzDecodeRunAgentInput: any body is either decoded or rejected with an InputError
// naming the problem — never a panic — and a decoded input is usable.
func FuzzDecodeRunAgentInput(f *testing.F) {
	for _, seed := range []string{
		`{"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}]}`,
		`{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","source":{"type":"url","value":"u"}},{"type":"mixcut_assets"}]}]}`,
		`{"messages":[{"role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","toolCallId":"c","content":"x"}],"resume":[{"interruptId":"i","status":"cancelled","payload":{"a":1}}]}`,
		`{"threadId":5}`, `[]`, `{"messages":{}}`, `{"state":null,"forwardedProps":null}`, `{"protocolVersion":"1.1","tools":[{"name":"n","parameters":{}}],"context":[{"description":"d","value":"v"}]}`,
		`{"messages":[{"role":"user","content":"\xff\xfe"}]}`, `{"a":` + strings.Repeat("[", 100),
	} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, strict bool) {
		in, err := DecodeRunAgentInput(body, DecodeOptions{Strict: strict, NewID: func(k string) string { return k + "-1" }})
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || ie.Error() == "" {
				t.Fatalf("error %v is not an InputError", err)
			}
			return
		}
		for _, m := range in.Messages {
			_ = m.Text()
		}
		in.LastUserMessage()
		in.ToolNames()
		var c Conversation
		c.AddInput(in)
	})
}

// FuzzFrameReader: any byte stream yields frames or an error, never a panic; the
// frames' data never exceeds the limit; and the frames do not depend on how the stream
// arrives (whole, or a byte at a time).
func FuzzFrameReader(f *testing.F) {
	for _, seed := range []string{
		"data: {\"type\":\"RUN_STARTED\"}\n\n",
		"id: A_1\ndata: a\ndata: b\n\n: keep-alive\n\nevent: x\r\ndata: c\r\n\r\n",
		"data:no-space\rdata: cr\r\r", "data: " + strings.Repeat("x", 300), "\n\n\n", ":\n", "data",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		fr := NewFrameReader(bytes.NewReader(stream), 256)
		byteWise := NewFrameReader(iotest.OneByteReader(bytes.NewReader(stream)), 256)
		for range 1000 {
			frame, err := fr.Next()
			frame2, err2 := byteWise.Next()
			if frame != frame2 || fmt.Sprint(err) != fmt.Sprint(err2) {
				t.Fatalf("read whole: %+v, %v; a byte at a time: %+v, %v", frame, err, frame2, err2)
			}
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, ErrFrameTooLarge) {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if len(frame.Data) > 256 {
				t.Fatalf("a frame of %d bytes passed a 256-byte limit", len(frame.Data))
			}
			if ev, err := DecodeEvent([]byte(frame.Data)); err == nil {
				var v RuleChecker
				_ = v.Check(ev)
				if _, err := ev.MarshalJSON(); err != nil {
					t.Fatalf("a decoded event does not encode: %v", err)
				}
			}
		}
	})
}

// FuzzProtoFrameReader: any bytes read as a protobuf stream give events or an error —
// never a panic — and an event read encodes again to a frame that reads back the same.
func FuzzProtoFrameReader(f *testing.F) {
	var enc ProtoEncoder
	for _, ev := range protoForms() {
		frame, err := enc.AppendFrame(nil, ev, 1)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(frame)
	}
	f.Add(enc.MalformedFrame())
	f.Add([]byte{0, 0, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 1})
	f.Fuzz(func(t *testing.T, stream []byte) {
		r := NewEventReader(ProtoContentType, bytes.NewReader(stream), 1<<16)
		for {
			ev, err := r.Next()
			if err != nil {
				return
			}
			if len(ProtoLosses(ev)) > 0 {
				continue
			}
			frame, err := enc.AppendFrame(nil, ev, -1)
			if err != nil {
				t.Fatalf("%v read from a frame does not encode: %v", ev, err)
			}
			again, err := NewEventReader(ProtoContentType, bytes.NewReader(frame), 1<<16).Next()
			if err != nil {
				t.Fatalf("%v encoded to %x, which does not read: %v", ev, frame, err)
			}
			if got, want := fmt.Sprint(prototest.WithoutAddedZeros(again.Map(), ev.Map())), fmt.Sprint(ev.Map()); got != want {
				t.Fatalf("read back as %s, want %s", got, want)
			}
		}
	})
}
