package protocol_test

import (
	"errors"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/agui-mock/agui-mock/protocol"
)

// A run request is decoded and checked; its last user message is what scenarios match.
func ExampleDecodeRunAgentInput() {
	body := []byte(`{"threadId":"t1","runId":"r1","state":{},"messages":[{"id":"m1","role":"user","content":"Hello"}],
		"tools":[{"name":"clarify","description":"ask","parameters":{}}],"context":[],"forwardedProps":{}}`)
	in, err := protocol.DecodeRunAgentInput(body, protocol.DecodeOptions{Strict: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	msg, _ := in.LastUserMessage()
	fmt.Println(in.ThreadID, in.RunID, msg.Text(), in.ToolNames())

	_, err = protocol.DecodeRunAgentInput([]byte(`{"threadId":"t1","runId":"r1","messages":"hi"}`), protocol.DecodeOptions{})
	fmt.Println(err)
	// Output:
	// t1 r1 Hello [clarify]
	// field "messages": expected an array, got a string
}

// An event is written as one SSE frame: an id line when asked, one data line with the
// event's compact JSON, and a blank line.
func ExampleAppendFrame() {
	ev := protocol.NewEvent(protocol.RunStarted, "threadId", "t1", "runId", "r1")
	frame, err := protocol.AppendFrame(nil, ev, 1700000000000, true)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(frame))
	// Output:
	// id: RUN_STARTED_1700000000000
	// data: {"type":"RUN_STARTED","timestamp":1700000000000,"threadId":"t1","runId":"r1"}
}

// A stream is read back frame by frame; comments such as keep-alives are skipped.
func ExampleFrameReader() {
	stream := "data: {\"type\":\"RUN_STARTED\"}\n\n" + protocol.KeepAlive + "id: 7\ndata: {\"type\":\"RUN_FINISHED\"}\n\n"
	frames := protocol.NewFrameReader(strings.NewReader(stream), 1<<20)
	for {
		f, err := frames.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		ev, err := protocol.DecodeEvent([]byte(f.Data))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("id %q: %s\n", f.ID, ev.Type)
	}
	// Output:
	// id "": RUN_STARTED
	// id "7": RUN_FINISHED
}

// A run continues its thread's previous run, which left the frontend tool call "call-1"
// waiting, when it brings that call's result and the user has not spoken since.
func ExampleIsContinuation() {
	pending := []string{"call-1"}
	for _, body := range []string{
		`{"messages":[{"id":"u1","role":"user","content":"pick one"}]}`,
		`{"messages":[{"id":"u1","role":"user","content":"pick one"},{"id":"t1","role":"tool","toolCallId":"call-1","content":"b"}]}`,
		`{"messages":[{"id":"t1","role":"tool","toolCallId":"call-1","content":"b"},{"id":"u2","role":"user","content":"thanks"}]}`,
		`{"messages":[],"resume":[{"interruptId":"i1","status":"resolved"}]}`,
	} {
		in, err := protocol.DecodeRunAgentInput([]byte(body), protocol.DecodeOptions{})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(protocol.IsContinuation(in, pending))
	}
	// Output:
	// false
	// true
	// false
	// true
}
