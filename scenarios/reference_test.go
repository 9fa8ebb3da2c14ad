package scenarios

import (
	"os"
	"strings"
	"testing"
)

const referenceDoc = "../docs/scenarios.md"

// referenceSection returns the text of a section of the scenario reference, from its
// heading ("## Steps") to the next one of its level.
func referenceSection(t *testing.T, heading string) string {
	t.Helper()
	data, err := os.ReadFile(referenceDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, section, found := strings.Cut(string(data), "\n"+heading+"\n")
	if !found {
		t.Fatalf("%s has no section %q", referenceDoc, heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	return section
}

// TestTheReferenceDocumentsEveryKey checks that docs/scenarios.md has a row for every
// key the parser reads: the top-level keys, match criteria, timing keys, step kinds
// and the keys every step takes.
func TestTheReferenceDocumentsEveryKey(t *testing.T) {
	tests := []struct {
		section string
		keys    []string
		row     string // how a row starts: the key, then what follows it
	}{
		{"## Top-level keys", scenarioKeys, "` |"},
		{"## `match`", requestKeys, "` |"},
		{"## `timing`", timingKeys, "` |"},
		{"## Steps", commonKeys, "` |"},
		{"## Steps", stepKindNames(), ":"},
	}
	for _, tt := range tests {
		section := referenceSection(t, tt.section)
		for _, key := range tt.keys {
			if !strings.Contains(section, "\n| `"+key+tt.row) {
				t.Errorf("%s: the section %s has no row for %s", referenceDoc, tt.section, key)
			}
		}
	}
}

// TestEveryMatchKeyIsGivenByAnExampleAndTheSampleRequest checks, for each part of a
// request a match tests, that an example giving it selects its scenario (the example
// sends what it says) and that the request the load-time check makes up for a scenario
// without examples is one its match selects.
func TestEveryMatchKeyIsGivenByAnExampleAndTheSampleRequest(t *testing.T) {
	given := map[string]string{ // each key's value, in a match and in its example
		"route":          "/travel",
		"agent":          "researcher",
		"message":        "book",
		"system":         "travel",
		"forwardedProps": "{mode: fast}",
		"state":          "{city: Oslo}",
		"tools":          "[search]",
		"headers":        "{x-user: ann}",
		"context":        "[{description: locale, value: de}]",
		"conversation":   "[user: ^book$, assistant, tool: ^ok$, user]",
	}
	exampleGiven := map[string]string{ // where an example says it otherwise
		"conversation": "[{role: user, content: book}, {role: assistant, content: Booked.}, {role: tool, toolCallId: c1, content: ok}, {role: user, content: thanks}]",
	}
	for _, key := range requestKeys {
		value, ok := given[key]
		if !ok {
			t.Errorf("match key %s: give this test a value of it, which a match and an example both take", key)
			continue
		}
		exampleValue := value
		if v, ok := exampleGiven[key]; ok {
			exampleValue = v
		}
		set, err := loadOne(t, "id: with-example\nmatch: {"+key+": "+value+"}\nexamples: [{"+key+": "+exampleValue+"}]\nsteps: [{text: a}]\n"+
			"---\nid: sampled\nmatch: {"+key+": "+value+"}\nsteps: [{text: a}]\n")
		if err != nil {
			t.Errorf("match key %s: a scenario whose example gives it does not load: %v", key, err)
			continue
		}
		sc := set.Scenarios()[1]
		req, err := sc.sampleRequest()
		if err != nil {
			t.Fatal(err)
		}
		if _, reasons := sc.Match.test(req); len(reasons) > 0 {
			t.Errorf("match key %s: the sample request misses the match: %s", key, strings.Join(reasons, "; "))
		}
	}
}
