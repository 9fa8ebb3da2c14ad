package protocol

import (
	"bytes"
	"testing"
)

// BenchmarkAppendFrame encodes one text delta as an SSE frame, the hottest path of a
// stream.
func BenchmarkAppendFrame(b *testing.B) {
	ev := NewEvent(TextMessageContent, "messageId", "msg-3f9a1c2e4b5d", "delta", "Hello, world! ")
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = AppendFrame(buf[:0], ev, 1784102011155, true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProtoAppendFrame encodes the same text delta as a protobuf frame.
func BenchmarkProtoAppendFrame(b *testing.B) {
	ev := NewEvent(TextMessageContent, "messageId", "msg-3f9a1c2e4b5d", "delta", "Hello, world! ")
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = (ProtoEncoder{}).AppendFrame(buf[:0], ev, 1784102011155); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeRunAgentInput decodes a typical request.
func BenchmarkDecodeRunAgentInput(b *testing.B) {
	body := []byte(`{"threadId":"thread-001","runId":"run-001","messages":[{"id":"u1","role":"user","content":"Search for ocean wave videos"},{"id":"a1","role":"assistant","content":"Sure."}],"tools":[{"name":"clarify","description":"ask","parameters":{"type":"object"}}],"context":[],"forwardedProps":{"scenario_name":"video-mixcut"},"state":{}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeRunAgentInput(body, DecodeOptions{NewID: func(string) string { return "x" }}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFrameReader reads a 500-event stream of text deltas, as the recorder and the
// load tool do.
func BenchmarkFrameReader(b *testing.B) {
	ev := NewEvent(TextMessageContent, "messageId", "msg-3f9a1c2e4b5d", "delta", "Hello, world! ")
	var stream []byte
	for range 500 {
		stream, _ = AppendFrame(stream, ev, 1784102011155, true)
	}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		fr := NewFrameReader(bytes.NewReader(stream), 1<<20)
		for {
			if _, err := fr.Next(); err != nil {
				break
			}
		}
	}
}
