package recorder

import (
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// The recorder takes a stand on every part of a request a match or an example may give
// (the schema's match members, which are the parser's): what a recording's match and its
// example keep of a first turn and of a later one that carry every part. A part added to
// scenarios fails here until the recorder offers it, or this test says why it does not.
func TestTheRecorderOffersEachRequestPartOrSaysWhyNot(t *testing.T) {
	type offer struct{ match, example bool }
	offers := map[string]offer{
		"route":          {true, true}, // a route other than a default one
		"agent":          {},           // the recorder relays AG-UI routes, which name no agent
		"message":        {true, true},
		"system":         {false, true}, // a first turn's, repeated by the example alone
		"forwardedProps": {true, true},  // the match keeps scenario_name alone
		"state":          {false, true},
		"tools":          {false, true},
		"context":        {false, true},
		"headers":        {},           // they may hold credentials
		"conversation":   {true, true}, // a later turn's
	}
	first := `{"threadId":"t","runId":"r1","messages":[{"id":"s","role":"system","content":"answer briefly"},{"id":"u1","role":"user","content":"book a trip"}],
		"tools":[{"name":"confirm","description":"Ask the user","parameters":{"type":"object"}}],
		"context":[{"description":"locale","value":"de-DE"}],
		"state":{"cart":["tea"]},
		"forwardedProps":{"scenario_name":"trip","theme":"dark"}}`
	later := `{"threadId":"t","runId":"r2","messages":[{"id":"u1","role":"user","content":"book a trip"},{"id":"a1","role":"assistant","content":"Booked."},{"id":"u2","role":"user","content":"another"}]}`
	got := map[string]offer{}
	r := &Recorder{cfg: Config{Upstream: &url.URL{Scheme: "http", Host: "agent.test"}}}
	for _, body := range []string{first, later} {
		in, err := protocol.DecodeRunAgentInput([]byte(body), protocol.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s := &session{id: "rec"}
		data, err := yaml.Marshal(r.newScenario(s, "/travel", in, "", r.redactor()))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Match    map[string]any   `yaml:"match"`
			Examples []map[string]any `yaml:"examples"`
		}
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		for key := range doc.Match {
			o := got[key]
			o.match = true
			got[key] = o
		}
		for key := range doc.Examples[0] {
			o := got[key]
			o.example = true
			got[key] = o
		}
	}
	var schema struct {
		Properties struct {
			Match struct {
				Properties map[string]any `json:"properties"`
			} `json:"match"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(scenarios.Schema(), &schema); err != nil {
		t.Fatal(err)
	}
	keys := slices.Sorted(maps.Keys(schema.Properties.Match.Properties))
	if len(keys) == 0 {
		t.Fatal("the schema names no match member")
	}
	for _, key := range keys {
		want, ok := offers[key]
		if !ok {
			t.Errorf("part %s: say whether the recorder offers it, in a match and in an example, and why not", key)
			continue
		}
		if got[key] != want {
			t.Errorf("part %s: the recorder offers it in a match: %v, in an example: %v; want %v, %v", key, got[key].match, got[key].example, want.match, want.example)
		}
	}
}
