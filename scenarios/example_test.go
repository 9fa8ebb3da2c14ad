package scenarios_test

import (
	"context"
	"fmt"
	"log"
	"testing/fstest"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// A conversation that pauses on an interrupt: the first run asks, and the next run
// resumes it with an answer, which chooses the branch it plays.
func Example() {
	fsys := fstest.MapFS{"scenarios/deploy.yaml": {Data: []byte(`
id: deploy
match: {message: deploy}
steps:
  - text: Ready to deploy.
  - interrupt:
      id: confirm
      message: Deploy to prod?
      on:
        resolved: [{text: Deployed.}]
        cancelled: [{text: Not deployed.}]
`)}}
	set, err := scenarios.Load(scenarios.Source{FS: fsys, Root: "scenarios", Label: "scenarios"})
	if err != nil {
		log.Fatal(err)
	}
	opts := scenarios.PlanOptions{Timing: scenarios.DefaultTiming(), Now: time.Now()}
	play := func(cursor *scenarios.Cursor, body string) *scenarios.Cursor {
		in, err := protocol.DecodeRunAgentInput([]byte(body), protocol.DecodeOptions{})
		if err != nil {
			log.Fatal(err)
		}
		req := &scenarios.Request{Route: "/", Input: in}
		// A run continues the thread's paused conversation, or starts afresh with the
		// scenario its request matches.
		start, continues, err := scenarios.Continue(cursor, in, opts.Now)
		if err != nil {
			fmt.Println("refused:", err)
			return cursor
		}
		var sc *scenarios.Scenario
		if continues {
			sc = cursor.Scenario
		} else {
			sel, _ := set.Select(req)
			sc, start = sel.Scenario, scenarios.Start{Captures: sel.Captures}
		}
		plan, err := sc.Plan(context.Background(), req, start, opts)
		if err != nil {
			log.Fatal(err)
		}
		for _, t := range plan.Events {
			if t.Event.Type == protocol.TextMessageContent {
				fmt.Print(t.Event.Str("delta"))
			}
		}
		fmt.Println()
		return plan.Next
	}

	cursor := play(nil, `{"threadId":"t","runId":"r1","messages":[{"id":"u1","role":"user","content":"deploy"}]}`)
	fmt.Println("waits for:", cursor.Interrupts[0].ID)
	cursor = play(cursor, `{"threadId":"t","runId":"r2","messages":[]}`)
	cursor = play(cursor, `{"threadId":"t","runId":"r3","messages":[],"resume":[{"interruptId":"confirm","status":"cancelled"}]}`)
	fmt.Println("done:", cursor == nil)
	// Output:
	// Ready to deploy.
	// waits for: confirm
	// refused: the thread waits for answers to 1 interrupt(s); send them in resume (status resolved or cancelled)
	// Not deployed.
	// done: true
}

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
