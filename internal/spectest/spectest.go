// Package spectest gives tests access to the official AG-UI specification material
// (JSON Schema and conformance corpus), which lives beside the repository in
// ../shared/agui-spec and is never copied into it.
package spectest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Dir returns the agui-spec directory: $AGUI_SPEC_DIR, or ../shared/agui-spec next to the
// repository. A fresh clone has neither, so where the material is missing the test is
// skipped with a line that says so — or fails when CI is set, where it must be present.
func Dir(t testing.TB) string {
	t.Helper()
	dir, err := find(os.Getenv("AGUI_SPEC_DIR"))
	if err != nil {
		absent(t, os.Getenv("CI") != "", err)
	}
	return dir
}

// find locates the spec material: the directory env names, else the default beside the
// repository.
func find(env string) (string, error) {
	dir := env
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "agui-spec")
	}
	if _, err := os.Stat(filepath.Join(dir, "1.1", "schema.json")); err != nil {
		return "", fmt.Errorf("AG-UI spec material (schema and conformance corpus) not found at %s: "+
			"set AGUI_SPEC_DIR to a copy of agui-spec: %w", dir, err)
	}
	return dir, nil
}

// absent ends a test whose spec material is missing: a failure in CI, a skip elsewhere.
func absent(t testing.TB, ci bool, err error) {
	t.Helper()
	if ci {
		t.Fatalf("%v (CI is set, so this fails rather than skips)", err)
		return
	}
	t.Skipf("SKIPPED: %v", err)
}

// EventSchema compiles the AG-UI 1.1 JSON Schema, whose root validates one event.
func EventSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	path := filepath.Join(Dir(t), "1.1", "schema.json")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("https://ag-ui.com/spec/1.1/schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("https://ag-ui.com/spec/1.1/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// DeltaEvents reads the event types of the AG-UI 1.1 JSON Schema whose members carry a
// delta: a string member named delta (a piece of a streamed text) or a JSON Patch. It
// maps each type to the name of that member.
func DeltaEvents(t testing.TB) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(Dir(t), "1.1", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	type property struct {
		Type  string `json:"type"`
		Const string `json:"const"`
		Ref   string `json:"$ref"`
	}
	var schema struct {
		Defs map[string]struct {
			OneOf []struct {
				Ref string `json:"$ref"`
			} `json:"oneOf"`
			Properties map[string]property `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	events := schema.Defs["Event"].OneOf
	if len(events) < 30 {
		t.Fatalf("the schema's Event lists only %d event types", len(events))
	}
	found := map[string]string{}
	for _, ref := range events {
		def := schema.Defs[strings.TrimPrefix(ref.Ref, "#/$defs/")]
		typ := def.Properties["type"].Const
		if typ == "" {
			t.Fatalf("the schema's %s has no constant type", ref.Ref)
		}
		for name, p := range def.Properties {
			if (name == "delta" && p.Type == "string") || p.Ref == "#/$defs/JsonPatch" {
				found[typ] = name
			}
		}
	}
	return found
}

// AttributableEvents reads the event types of the AG-UI 1.1 JSON Schema that compose
// Attributable: those that can carry a subagentRunId attributing them to a subagent.
func AttributableEvents(t testing.TB) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(Dir(t), "1.1", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	type ref struct {
		Ref string `json:"$ref"`
	}
	var schema struct {
		Defs map[string]struct {
			OneOf      []ref `json:"oneOf"`
			AllOf      []ref `json:"allOf"`
			Properties map[string]struct {
				Const string `json:"const"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, r := range schema.Defs["Event"].OneOf {
		def := schema.Defs[strings.TrimPrefix(r.Ref, "#/$defs/")]
		for _, part := range def.AllOf {
			if part.Ref == "#/$defs/Attributable" {
				found = append(found, def.Properties["type"].Const)
			}
		}
	}
	if len(found) < 20 {
		t.Fatalf("the schema's Event lists only %d attributable event types", len(found))
	}
	return found
}
