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
	if got := ex.request().Input.Context; len(got) != 1 || got[0].Description != "locale" || got[0].Value != "de-DE" {
		t.Errorf("the example's request carries context %+v", got)
	}
}
