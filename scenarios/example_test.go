package scenarios_test

import (
	"context"
	"fmt"
	"testing/fstest"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// A set of scenarios selects the one a request matches, and the scenario plans the
// events its run streams.
func ExampleSet_Select() {
	files := fstest.MapFS{"s/greet.yaml": {Data: []byte(`id: greet
match:
  message: hello
steps:
  - text: Hi there
`)}}
	set, err := scenarios.Load(scenarios.Source{FS: files, Root: "s", Label: "scenarios"})
	if err != nil {
		fmt.Println(err)
		return
	}
	in, err := protocol.DecodeRunAgentInput([]byte(`{"threadId":"t1","runId":"r1","messages":[{"id":"m1","role":"user","content":"hello"}]}`), protocol.DecodeOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	req := &scenarios.Request{Route: "/agui/chat", Input: in}
	sel, _ := set.Select(req)
	fmt.Println(sel.Scenario.ID, "from", sel.Scenario.Source)
	plan, err := sel.Scenario.Plan(context.Background(), req, scenarios.Start{Captures: sel.Captures}, scenarios.PlanOptions{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range plan.Events {
		if t.Event.Type == protocol.TextMessageContent {
			fmt.Printf("%s %q\n", t.Event.Type, t.Event.Str("delta"))
			continue
		}
		fmt.Println(t.Event.Type)
	}
	// Output:
	// greet from scenarios/greet.yaml:1:1
	// RUN_STARTED
	// TEXT_MESSAGE_START
	// TEXT_MESSAGE_CONTENT "Hi "
	// TEXT_MESSAGE_CONTENT "there"
	// TEXT_MESSAGE_END
	// RUN_FINISHED
}
