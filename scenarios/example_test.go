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
