package scenarios

import (
	"encoding/json"
	"strings"
	"testing"
)

// An example keeps what the client offered: tools named alone or defined in full, its
// context, state and forwardedProps, and its run input carries them as HttpAgent sends
// them.
func TestAnExampleRunsWithWhatTheClientOffered(t *testing.T) {
	set, err := loadOne(t, `id: offered
match: {tools: [confirm]}
examples:
  - message: book it
    tools:
      - name: confirm
        description: Ask the user to confirm
        parameters: {type: object, properties: {question: {type: string}}, required: [question]}
      - search
      - {name: pay, metadata: {ui: card}}
    context: [{description: locale, value: de-DE}]
    state: {cart: [1]}
    forwardedProps: {tenant: acme}
steps: [{text: ok}]
`)
	if err != nil {
		t.Fatal(err)
	}
	ex := set.Scenarios()[0].Examples[0]
	in := ex.RunInput(RunIDs{Thread: "t", Run: "r", Message: "m", ProtocolVersion: "1.0"})
	got, _ := json.Marshal(in)
	want := `{"context":[{"description":"locale","value":"de-DE"}],"forwardedProps":{"tenant":"acme"},` +
		`"messages":[{"content":"book it","id":"m","role":"user"}],"protocolVersion":"1.0","runId":"r","state":{"cart":[1]},"threadId":"t",` +
		`"tools":[{"description":"Ask the user to confirm","name":"confirm","parameters":{"properties":{"question":{"type":"string"}},"required":["question"],"type":"object"}},` +
		`{"description":"search","name":"search","parameters":{"properties":{},"type":"object"}},` +
		`{"description":"pay","metadata":{"ui":"card"},"name":"pay","parameters":{"properties":{},"type":"object"}}]}`
	if string(got) != want {
		t.Errorf("run input\n%s\nwant\n%s", got, want)
	}
	if ex.RunRoute() != DefaultRoute {
		t.Errorf("route %q", ex.RunRoute())
	}
}

func TestAnExampleToolMustBeANameOrADefinition(t *testing.T) {
	for yaml, want := range map[string]string{
		"examples: [{message: hi, tools: [{description: x}]}]\nsteps: [{text: ok}]\n":           "an example's tool needs a name",
		"examples: [{message: hi, tools: [{name: a, params: {}}]}]\nsteps: [{text: ok}]\n":      `unknown key "params"`,
		"examples: [{message: hi, tools: [{name: a, parameters: [1]}]}]\nsteps: [{text: ok}]\n": "an example's tool parameters must be a mapping",
		"examples: [{message: hi, tools: [[a]]}]\nsteps: [{text: ok}]\n":                        "an example's tool is a name or a mapping",
	} {
		if _, err := loadOne(t, yaml); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", yaml, err, want)
		}
	}
}
