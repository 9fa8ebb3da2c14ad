package scenarios

import (
	"strings"
	"testing"
)

func TestBrokenScenariosSkipTheSequenceRules(t *testing.T) {
	yaml := "broken: tests the frontend's error handling\nevents:\n  - {type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}\n  - {type: TEXT_MESSAGE_START, messageId: m}\n"
	if _, err := loadOne(t, yaml); err != nil {
		t.Fatal(err)
	}
}

func TestAnExampleSuppliesTheContextTemplatesRead(t *testing.T) {
	const steps = "steps:\n  - text: 'Locale {{ (index .context 0).value }}'\n"
	if _, err := loadOne(t, "id: ctx\n"+steps); err == nil || !strings.Contains(err.Error(),
		"dir/test.yaml:3:5: template dir/test.yaml:3:11: {{ index .context 0 }}: index was given an index past the end of the list") {
		t.Errorf("without an example's context: %v", err)
	}
	set, err := loadOne(t, "id: ctx\nexamples:\n  - message: hi\n    context: [{description: locale, value: de-DE}]\n"+steps)
	if err != nil {
		t.Fatal(err)
	}
	ex := set.Scenarios()[0].Examples[0]
	req, _ := ex.request()
	if got := req.Input.Context; len(got) != 1 || got[0].Description != "locale" || got[0].Value != "de-DE" {
		t.Errorf("the example's request carries context %+v", got)
	}
}

// What the protobuf transport cannot carry is a warning at the step that sends it, and
// the set still loads; the built-in set carries everything.
func TestTheCheckWarnsOfWhatProtobufCannotCarry(t *testing.T) {
	yaml := "broken: the custom member is for the frontend's fallback path\nevents:\n" +
		"  - {type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}\n" +
		"  - {type: THINKING_START}\n" +
		"  - {type: CUSTOM, name: n, value: 1, extra: x}\n" +
		"  - {type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}\n"
	set, err := loadOne(t, yaml)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range set.Warnings() {
		got = append(got, d.Error())
	}
	want := []string{
		"dir/test.yaml:4:5: warning: over the protobuf transport this event loses the event type THINKING_START (the .proto has no message for it) (hint: the AG-UI .proto has no place for it: send it in a form the .proto carries, or expect protobuf clients not to see it)",
		"dir/test.yaml:5:5: warning: over the protobuf transport this event loses CUSTOM.extra (hint: the AG-UI .proto has no place for it: send it in a form the .proto carries, or expect protobuf clients not to see it)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	builtin, err := Load(Builtin())
	if err != nil {
		t.Fatal(err)
	}
	if w := builtin.Warnings(); len(w) != 0 {
		t.Errorf("the built-in set warns: %v", w)
	}
}
