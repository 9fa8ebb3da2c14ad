package scenarios

import (
	"errors"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agui-mock/agui-mock/protocol"
)

// ownRunID is a recorded run whose RUN_FINISHED carries the agent's own run id, as
// @ag-ui/langgraph sends it.
const ownRunID = "events:\n" +
	"  - {type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}\n" +
	"  - {type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ id `r1` }}'}\n"

// keptRules is a run that breaks no rule.
const keptRules = "events:\n" +
	"  - {type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}\n" +
	"  - {type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}\n"

// A scenario that breaks a named producer rule loads when it marks the rule in breaks;
// unmarked, the error names the rule and the mark that lets it.
func TestBreaksLetsAMarkedRuleBeBroken(t *testing.T) {
	set, err := loadOne(t, "breaks: [finished-run-id]\n"+ownRunID)
	if err != nil {
		t.Fatal(err)
	}
	if sc := set.Scenarios()[0]; len(sc.Breaks) != 1 || sc.Breaks[0] != protocol.RuleFinishedRunID {
		t.Errorf("breaks %v", sc.Breaks)
	}
	if w := set.Warnings(); len(w) != 0 {
		t.Errorf("warnings %v", w)
	}
	_, err = loadOne(t, ownRunID)
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("got %v, want a *LoadError", err)
	}
	for _, want := range []string{"dir/test.yaml:3:5: the scenario breaks the AG-UI event rules: event 1 (RUN_FINISHED): RUN_STARTED and RUN_FINISHED must agree on their runId", "(rule finished-run-id)", "add breaks: [finished-run-id]"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
	// another rule is still refused, naming its own mark
	_, err = loadOne(t, "breaks: [finished-run-id]\nevents:\n  - {type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}\n  - {type: RUN_FINISHED, threadId: other, runId: '{{ .runId }}'}\n")
	if err == nil || !strings.Contains(err.Error(), "add breaks: [finished-thread-id]") {
		t.Errorf("another rule: %v", err)
	}
}

// A marked rule no run breaks loads, with a warning: the agent may have been fixed.
func TestBreaksWarnsOfAMarkNoRunBreaks(t *testing.T) {
	set, err := loadOne(t, "breaks: [finished-run-id, unique-interrupt-ids]\n"+ownRunID)
	if err != nil {
		t.Fatal(err)
	}
	w := set.Warnings()
	if len(w) != 1 || !strings.Contains(w[0].Error(), "breaks lists unique-interrupt-ids, which no run of the scenario breaks") {
		t.Errorf("warnings %v", w)
	}
}

func TestBreaksParseErrors(t *testing.T) {
	for _, tt := range []struct{ name, yaml, want string }{
		{"unknown rule", "breaks: [finished-runid]\n" + keptRules, `dir/test.yaml:1:10: unknown rule "finished-runid": the rules are finished-run-id, finished-thread-id, one-thread, unique-interrupt-ids, open-end`},
		{"open end", "breaks: [open-end]\n" + keptRules, "dir/test.yaml:1:10: breaks cannot list open-end (hint: a run that stops without a terminal event is marked stopped: <reason>"},
		{"twice", "breaks: [one-thread, one-thread]\n" + keptRules, "dir/test.yaml:1:22: breaks lists one-thread twice"},
		{"empty", "breaks: []\n" + keptRules, "dir/test.yaml:1:9: breaks lists no rule"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadOne(t, tt.yaml)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}

// The recorded-scenario writer writes breaks after the description, and the parser reads
// it back; MarkBreaks adds to it.
func TestRecordedBreaksRoundTrip(t *testing.T) {
	rec := Recorded{ID: "r", Description: "d", Breaks: []protocol.Rule{protocol.RuleFinishedRunID},
		Events: []RecordedEvent{
			{Type: protocol.RunStarted, Fields: []protocol.Field{{Name: "threadId", Value: "{{ .threadId }}"}, {Name: "runId", Value: "{{ .runId }}"}}},
			{Type: protocol.RunFinished, Fields: []protocol.Field{{Name: "threadId", Value: "{{ .threadId }}"}, {Name: "runId", Value: "{{ id `r1` }}"}}},
		}}
	data, err := yaml.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "description: d\nbreaks: [finished-run-id]\nevents:") {
		t.Errorf("written:\n%s", data)
	}
	if _, err := loadOne(t, string(data)); err != nil {
		t.Errorf("read back: %v", err)
	}

	doc := Recorded{ID: "r", Description: "d", Events: rec.Events}.Recording()
	doc.MarkBreaks(nil)
	doc.MarkBreaks([]protocol.Rule{protocol.RuleFinishedRunID})
	doc.MarkBreaks([]protocol.Rule{protocol.RuleFinishedRunID, protocol.RuleOneThread})
	data, err = yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "description: d\nbreaks: [finished-run-id, one-thread]\nevents:") {
		t.Errorf("marked:\n%s", data)
	}
}
