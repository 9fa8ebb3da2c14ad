package scenarios

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

const stoppedRun = `id: story
stopped: the client stopped the run while it was recorded
match: {message: ^tell me a story$}
examples: [{message: tell me a story}]
events:
  - {delay: 5, type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
  - {delay: 40, type: TEXT_MESSAGE_START, messageId: '{{ id "m1" }}', role: assistant}
  - {delay: 30, type: TEXT_MESSAGE_CONTENT, messageId: '{{ id "m1" }}', delta: 'Once '}
`

func TestAStoppedRunPlaysItsEventsThenStalls(t *testing.T) {
	set, err := loadOne(t, stoppedRun)
	if err != nil {
		t.Fatalf("a stopped run does not load: %v", err)
	}
	sc := set.Scenarios()[0]
	if sc.Stopped != "the client stopped the run while it was recorded" {
		t.Errorf("Stopped = %q", sc.Stopped)
	}
	req, err := sc.Examples[0].request()
	if err != nil {
		t.Fatal(err)
	}
	plan, err := sc.Plan(context.Background(), req, Start{}, PlanOptions{Seed: 1, Timing: DefaultTiming(), Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, e := range plan.Events {
		if e.Fault != nil {
			types = append(types, "fault "+e.Fault.Kind)
			continue
		}
		types = append(types, e.Event.Type)
	}
	want := []string{protocol.RunStarted, protocol.TextMessageStart, protocol.TextMessageContent, "fault " + FaultStall}
	if strings.Join(types, " ") != strings.Join(want, " ") {
		t.Errorf("the run plans %v, want %v", types, want)
	}
	last := plan.Events[len(plan.Events)-1]
	if last.At != 75*time.Millisecond || plan.Events[2].At != 75*time.Millisecond {
		t.Errorf("the stall comes at %v after the last event at %v, want both at 75ms", last.At, plan.Events[2].At)
	}
	if plan.Next != nil {
		t.Error("a stopped run waits for a continuation")
	}
}

func TestAStoppedRunIsCheckedAsARunUnderWay(t *testing.T) {
	for name, tc := range map[string]struct{ yaml, want string }{
		"a terminal event": {stoppedRun + "  - {delay: 1, type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}\n",
			"a stopped scenario's run ends with RUN_FINISHED"},
		"a rule broken":  {strings.Replace(stoppedRun, "TEXT_MESSAGE_START", "TEXT_MESSAGE_END", 1), "breaks the AG-UI event rules"},
		"the steps form": {"stopped: cut\nsteps: [{text: hi}]\n", "stopped belongs to the explicit events form"},
		"a continuation": {stoppedRun + "next: [{when: {toolResults: [x]}, events: [{type: RUN_STARTED, threadId: t, runId: r}]}]\n",
			"a stopped scenario has no next"},
		"no reason": {strings.Replace(stoppedRun, "stopped: the client stopped the run while it was recorded", "stopped: ' '", 1),
			"stopped needs the reason"},
		"no stopped": {strings.Replace(stoppedRun, "stopped: the client stopped the run while it was recorded\n", "", 1), "ended without a terminal event"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := loadOne(t, tc.yaml)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("loading says %v, want %q", err, tc.want)
			}
		})
	}
}

const stoppedContinuation = `id: deploy
match: {message: ^deploy$}
examples: [{message: deploy}]
events:
  - {type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
  - {type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ .runId }}', outcome: {type: interrupt, interrupts: [{id: '{{ id "i1" }}', reason: confirmation}]}}
next:
  - when: {resume: [{status: resolved}]}
    stopped: the client stopped the run while it was recorded, after 3 events
    events:
      - {type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
      - {delay: 40, type: TEXT_MESSAGE_START, messageId: '{{ id "m1" }}', role: assistant}
      - {delay: 30, type: TEXT_MESSAGE_CONTENT, messageId: '{{ id "m1" }}', delta: 'Deploying '}
  - when: {resume: [{status: cancelled}]}
    events:
      - {type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
      - {type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
`

// A continuation the client stopped while it was recorded plays its events and then
// holds the stream open, as a stopped scenario does; verify leaves its branch alone.
func TestAStoppedContinuationPlaysItsEventsThenStalls(t *testing.T) {
	set, err := loadOne(t, stoppedContinuation)
	if err != nil {
		t.Fatalf("a stopped continuation does not load: %v", err)
	}
	sc := set.Scenarios()[0]
	req, err := sc.Examples[0].request()
	if err != nil {
		t.Fatal(err)
	}
	opts := PlanOptions{Seed: 1, Timing: DefaultTiming(), Now: time.Now()}
	first, err := sc.Plan(context.Background(), req, Start{}, opts)
	if err != nil || first.Next == nil || first.Stopped != "" {
		t.Fatalf("the first run: %+v, %v", first, err)
	}
	if branches := first.Next.Branches(); len(branches) != 1 || branches[0].Resume[0].Status != protocol.ResumeCancelled {
		t.Errorf("verify would take the branches %+v, want the cancelled one alone", branches)
	}
	resume := []protocol.ResumeEntry{{InterruptID: first.Next.Interrupts[0].ID, Status: protocol.ResumeResolved}}
	plan, err := sc.Plan(context.Background(), req, Start{Resume: first.Next, answers: resume}, opts)
	if err != nil {
		t.Fatal(err)
	}
	last := plan.Events[len(plan.Events)-1]
	if last.Fault == nil || last.Fault.Kind != FaultStall || len(plan.Events) != 4 || plan.Stopped != "the client stopped the run while it was recorded, after 3 events" {
		t.Errorf("the stopped continuation plans %+v (stopped %q)", plan.Events, plan.Stopped)
	}
	for name, tc := range map[string]struct{ yaml, want string }{
		"a terminal event": {strings.Replace(stoppedContinuation, "delta: 'Deploying '}", "delta: 'Deploying '}\n      - {type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}", 1),
			"a stopped scenario's run ends with RUN_FINISHED"},
		"a continuation of it": {strings.Replace(stoppedContinuation, "  - when: {resume: [{status: cancelled}]}", "    next: [{when: {toolResults: [x]}, events: [{type: RUN_STARTED, threadId: t, runId: r}]}]\n  - when: {resume: [{status: cancelled}]}", 1),
			"a stopped continuation has no next"},
		"no reason": {strings.Replace(stoppedContinuation, "stopped: the client stopped the run while it was recorded, after 3 events", "stopped: ''", 1),
			"stopped needs the reason"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := loadOne(t, tc.yaml)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("loading says %v, want %q", err, tc.want)
			}
		})
	}
}
