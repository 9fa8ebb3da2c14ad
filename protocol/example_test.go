package protocol_test

import (
	"fmt"
	"log"

	"github.com/agui-mock/agui-mock/protocol"
)

// A run continues its thread's previous run, which left the frontend tool call "call-1"
// waiting, when it brings that call's result, wherever it is in the messages.
func ExampleIsContinuation() {
	pending := []string{"call-1"}
	for _, body := range []string{
		`{"messages":[{"id":"u1","role":"user","content":"pick one"}]}`,
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
	// true
}
