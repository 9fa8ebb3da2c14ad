package protocol

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/internal/spectest"
)

type conformanceFixture struct {
	Name   string `json:"name"`
	Stream []json.RawMessage
	Expect struct {
		Outcome       string `json:"outcome"`
		ErrorContains string `json:"errorContains"`
	} `json:"expect"`
}

// TestRuleCheckerAgreesWithConformanceCorpus replays every stream of the official corpus
// through the RuleChecker and compares the verdict with the corpus's expected outcome.
func TestRuleCheckerAgreesWithConformanceCorpus(t *testing.T) {
	base := spectest.Dir(t)
	files, _ := filepath.Glob(filepath.Join(base, "1.1", "conformance", "streams", "*.json"))
	draft, _ := filepath.Glob(filepath.Join(base, "draft", "conformance", "streams", "*.json"))
	files = append(files, draft...)
	if len(files) < 70 {
		t.Fatalf("found only %d conformance streams under %s", len(files), base)
	}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var fx conformanceFixture
		if err := json.Unmarshal(raw, &fx); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		t.Run(fx.Name, func(t *testing.T) {
			events := make([]Event, 0, len(fx.Stream))
			for _, r := range fx.Stream {
				v, err := DecodeJSON(r)
				if err != nil {
					t.Fatal(err)
				}
				events = append(events, EventFromMap(v.(map[string]any)))
			}
			_, err := CheckStream(events, "")
			got := "completed"
			if err != nil {
				got = "failed"
			}
			if got != fx.Expect.Outcome {
				t.Fatalf("verdict %s, corpus expects %s (error: %v)", got, fx.Expect.Outcome, err)
			}
			// The client quotes zod messages as JSON, so its wording carries \" escapes.
			want := strings.ReplaceAll(fx.Expect.ErrorContains, `\"`, `"`)
			if err != nil && !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not contain the client's wording %q", err, want)
			}
		})
	}
}
