package scenarios

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"go.yaml.in/yaml/v3"
)

// fanOut is a scenario of n subagent steps of one word each: five events a step.
// 95,000 of them are 3.9 MiB.
func fanOut(n int) []byte {
	var b bytes.Buffer
	b.WriteString("id: fanout\nmatch: {message: fanout}\nsteps:\n")
	for range n {
		b.WriteString("  - subagent: {name: a, steps: [{text: x}]}\n")
	}
	return b.Bytes()
}

// allocated returns how many bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// decodeYAML decodes a one-document file as the parser does.
func decodeYAML(t testing.TB, data []byte) *yaml.Node {
	t.Helper()
	var root yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&root); err != nil {
		t.Fatal(err)
	}
	return root.Content[0]
}

const fanOutProblem = "the run would stream more than 100000 events, the limit of one run"

func TestAFanOutPastTheEventLimitIsRefusedBeforeItsStepsAreBuilt(t *testing.T) {
	data := fanOut(22_000) // past the limit by a tenth; bench/refusal.sh measures a file of 95,000 steps
	var list []*Scenario
	var diags []Diagnostic
	parsed := allocated(func() { list, diags = Parse("d/fanout.yaml", data) })
	want := []Diagnostic{{File: "d/fanout.yaml", Line: 20_004, Column: 5,
		Message: fanOutProblem + ": its 44000 steps, nested ones included, send at least 110002 events",
		Hint:    "split the scenario, or pause its run with an interrupt: the next run plays the steps after it"}}
	if list != nil || !reflect.DeepEqual(diags, want) {
		t.Errorf("got %d scenarios and %v\nwant the refusal %v", len(list), diags, want)
	}
	// Decoding the YAML is all that reading the file costs: building its steps, their
	// values and templates as well cost 2.6 times as much.
	decoded := allocated(func() { decodeYAML(t, data) })
	if parsed > decoded+decoded/10 {
		t.Errorf("parsing allocated %d MiB, %.2f times what decoding its YAML does (%d MiB)", parsed>>20, float64(parsed)/float64(decoded), decoded>>20)
	}
}

// scenarioOf reads a one-document file's scenario as the parser does, without counting
// its run first.
func scenarioOf(t *testing.T, file string, data []byte) *Scenario {
	t.Helper()
	l := &fileLoader{ctx: context.Background(), file: file, diag: &diagnostics{}}
	sc := l.scenario(decodeYAML(t, data), 1)
	if len(l.diag.list) > 0 {
		t.Fatal(l.diag.list)
	}
	return sc
}

func TestARunRefusedByItsStepsIsRefusedWhereItsDryRunWouldBe(t *testing.T) {
	// 20,000 steps of five events: after the last one the planner counts 100,000 events,
	// and RUN_FINISHED goes unchecked; 20,001 are refused at the last one's
	// SUBAGENT_STARTED, by the count and by the dry run alike.
	set, err := Load(Source{FS: fstest.MapFS{"d/fanout.yaml": {Data: fanOut(20_000)}}, Root: "d", Label: "d"})
	if err != nil {
		t.Fatal(err)
	}
	if got := set.Scenarios()[0].eventsHint; got != 100_002 {
		t.Errorf("the first run plans %d events, want 100002", got)
	}
	data := fanOut(20_001)
	_, diags := Parse("d/fanout.yaml", data)
	dryRun := scenarioOf(t, "d/fanout.yaml", data).dryRun(context.Background(), Limits{})
	if len(diags) != 1 || len(dryRun) != 1 || diags[0].Error() != "d/fanout.yaml:20004:5: "+fanOutProblem+
		": its 40002 steps, nested ones included, send at least 100007 events (hint: split the scenario, or pause its run with an interrupt: the next run plays the steps after it)" ||
		dryRun[0].Error() != "d/fanout.yaml:20004:5: "+fanOutProblem {
		t.Errorf("refused with %v\nthe dry run: %v", diags, dryRun)
	}

	var b strings.Builder
	b.WriteString("events:\n")
	for range MaxRunEvents + 1 {
		b.WriteString("  - {type: CUSTOM, name: a}\n")
	}
	_, diags = Parse("d/events.yaml", []byte(b.String()))
	if want := "d/events.yaml:100002:5: " + fanOutProblem + ": it lists 100001 events (hint: split the scenario, or go on in a continuation (next): each run has its own limit)"; len(diags) != 1 || diags[0].Error() != want {
		t.Errorf("the explicit form: %v\nwant %s", diags, want)
	}
}

// floorsByLine counts the first run of every scenario document of a file, by the line
// and column where the document's scenario starts.
func floorsByLine(t *testing.T, file string, data []byte) map[pos]int {
	t.Helper()
	floors := map[pos]int{}
	l := &fileLoader{ctx: context.Background(), file: file, diag: &diagnostics{}}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var root yaml.Node
		if err := dec.Decode(&root); err != nil {
			break
		}
		if len(root.Content) == 0 || !l.resolveAliases(root.Content[0]) {
			continue
		}
		if f, _, ok := firstRun(root.Content[0]); ok {
			floors[l.pos(root.Content[0])] = f.events
		}
	}
	return floors
}

// firstRunEvents plans a scenario's first run for its sample request.
func firstRunEvents(t *testing.T, sc *Scenario) int {
	t.Helper()
	req, err := sc.sampleRequest()
	if err != nil {
		t.Fatal(err)
	}
	captures, _ := sc.Match.test(req)
	plan, err := sc.Plan(context.Background(), req, Start{Captures: captures}, PlanOptions{Seed: 1, Timing: DefaultTiming(), Now: time.Now()})
	if err != nil {
		t.Fatalf("%s: %v", sc.ID, err)
	}
	return len(plan.Events)
}

func TestTheCountOfARunsStepsNeverExceedsWhatItPlans(t *testing.T) {
	for _, tt := range []struct {
		name, steps string
		floor       int
	}{
		{"texts written out send a delta at least", "[{text: hi there}, {reasoning: hmm}]", 1 + 3 + 5 + 1},
		{"a template may render empty", "[{text: '{{ .message }}'}, {text: {content: '', role: user}}]", 1 + 2 + 2 + 1},
		{"spans and subagents", "[{step: {name: s, steps: [{custom: {name: c}}]}}, {subagent: {name: a, steps: [{state: {}}]}}]", 1 + 3 + 3 + 1},
		{"a pause sends nothing", "[{pause: 10ms}, {stateDelta: []}, {tool: {name: t, result: ok}}]", 1 + 1 + 3 + 1},
		{"a frontend tool may pause the run", "[{tool: {name: ask}}, {text: after}]", 1 + 2},
		{"an interrupt pauses it", "[{raw: {event: {}}}, {interrupt: [{message: go on}]}, {text: after}]", 1 + 1},
		{"an error ends it", "[{event: {type: CUSTOM, name: c}}, {error: boom}]", 1 + 1 + 1},
		{"an error event ends it", "[{event: {type: RUN_ERROR, message: boom}}]", 1 + 1},
		{"an error ends a subagent, and is not counted past", "[{subagent: {name: a, steps: [{error: boom}]}}, {custom: {name: c}}]", 1 + 1 + 1},
		{"a fault ends the stream", "[{messages: []}, {fault: {kind: disconnect}}]", 1 + 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte("id: s\nmatch: {message: go}\nbroken: to count what it plays\nsteps: " + tt.steps + "\n")
			sc := scenarioOf(t, "d/s.yaml", data)
			floor, _, _ := firstRun(decodeYAML(t, data))
			if planned := firstRunEvents(t, sc); floor.events != tt.floor || floor.events > planned {
				t.Errorf("counted %d events, want %d; the run plans %d", floor.events, tt.floor, planned)
			}
		})
	}

	e2e, _ := filepath.Glob("../docs/e2e/scenarios/*.yaml")
	for _, file := range append(shippedScenarioFiles(t), e2e...) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		list, diags := Parse(file, data)
		if len(diags) > 0 {
			t.Fatal(diags)
		}
		floors := floorsByLine(t, file, data)
		for _, sc := range list {
			if sc.Thread != nil {
				continue
			}
			if floor, planned := floors[sc.Source], firstRunEvents(t, sc); floor == 0 || floor > planned {
				t.Errorf("%s: counted %d events, the run plans %d", sc.Source, floor, planned)
			}
		}
	}
}
