// Package spectest gives tests access to the official AG-UI specification material
// (JSON Schema and conformance corpus), which lives beside the repository in
// ../shared/agui-spec and is never copied into it.
package spectest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Dir returns the agui-spec directory: $AGUI_SPEC_DIR, or ../shared/agui-spec next to the
// repository. A missing corpus fails the test rather than skipping it.
func Dir(t testing.TB) string {
	t.Helper()
	if dir := os.Getenv("AGUI_SPEC_DIR"); dir != "" {
		return dir
	}
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "agui-spec")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("AG-UI spec material not found at %s (set AGUI_SPEC_DIR): %v", dir, err)
	}
	return dir
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
