package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/scenarios"
)

const root = "../../.."

// TestTheGeneratedFilesAreCurrent fails while the schema or the client says of the step
// kinds, the fault kinds or the admin API something other than the Go code: run
// `go generate ./scenarios`.
func TestTheGeneratedFilesAreCurrent(t *testing.T) {
	files, err := generate(root, current())
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range files {
		data, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want, data) {
			t.Errorf("%s is out of date: run go generate ./scenarios", file)
		}
	}
}

// TestANewKindReachesBothFiles adds a kind to the table and checks that the schema's
// enum and the client's type take it, and that a second rewrite changes nothing.
func TestANewKindReachesBothFiles(t *testing.T) {
	kinds := scenarios.FaultKindTable()
	last := kinds[len(kinds)-1].Name
	table := append(kinds,
		scenarios.FaultKind{Name: "reorder", Scope: scenarios.FaultScopeStep, Does: "Swap two events."},
		scenarios.FaultKind{Name: "gzip", Scope: scenarios.FaultScopeStream, Does: "Compress the stream."})

	schema := readSchema(t)
	got, err := rewriteFaultKinds(schema, table)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs map[string]faultKindSchema `json:"$defs"`
	}
	if err := json.Unmarshal(got, &doc); err != nil {
		t.Fatalf("the rewritten schema is not JSON: %v", err)
	}
	def := doc.Defs["faultKind"]
	if !slices.Contains(def.Enum, "reorder") || slices.Contains(def.Enum, "gzip") {
		t.Errorf("enum = %v, want the step kind reorder and not the stream kind gzip", def.Enum)
	}
	if i := slices.Index(def.Enum, "reorder"); i < 0 || def.EnumDescriptions[i] != "Swap two events." {
		t.Errorf("enumDescriptions = %v", def.EnumDescriptions)
	}
	if !strings.Contains(def.ErrorMessage, "split and gzip apply to a whole request") {
		t.Errorf("errorMessage = %q", def.ErrorMessage)
	}
	if again, _ := rewriteFaultKinds(got, table); !bytes.Equal(again, got) {
		t.Error("a second rewrite of the schema changed it")
	}

	api, err := readAPI(root)
	if err != nil {
		t.Fatal(err)
	}
	client, err := clientTypes(table, api)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`| "` + last + `" | "reorder" | "gzip";`, " * - `gzip`: Compress the stream.\n", "  /** Swap two events. */\n  reorder: {};\n"} {
		if !strings.Contains(string(client), want) {
			t.Errorf("the client's types lack %q:\n%s", want, client)
		}
	}
}

// stepSchema is what the schema says of steps that the table of step kinds decides.
type stepSchema struct {
	Description string `json:"description"`
	Properties  map[string]struct {
		Description string `json:"description"`
		Type        string `json:"type"`
	} `json:"properties"`
	OneOf []stepBranch `json:"oneOf"`
}

// TestANewStepKindReachesTheSchema adds a step kind to the table and takes one away, and
// checks that the step's members, its branches and their messages follow, that the
// rest of a kind's member stays as written, and that a second rewrite changes nothing.
func TestANewStepKindReachesTheSchema(t *testing.T) {
	kinds := slices.DeleteFunc(scenarios.StepKindTable(), func(k scenarios.StepKind) bool { return k.Name == "raw" })
	kinds = append(kinds, scenarios.StepKind{Name: "image", Title: "image step", Hint: "Sends an image."})
	kinds[0].Hint = "Streams a text."
	got, err := rewriteSteps(readSchema(t), kinds, scenarios.StepOptions())
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs struct {
			Step stepSchema `json:"step"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(got, &doc); err != nil {
		t.Fatalf("the rewritten schema is not JSON: %v", err)
	}
	step := doc.Defs.Step
	if p, ok := step.Properties["image"]; !ok || p.Description != "Sends an image." {
		t.Errorf("the new kind's member is %+v", p)
	}
	if _, ok := step.Properties["raw"]; ok {
		t.Error("the kind taken away kept its member")
	}
	if p := step.Properties["text"]; p.Description != "Streams a text." {
		t.Errorf("text's member says %q, not its hint", p.Description)
	}
	if p := step.Properties["custom"]; p.Type != "object" {
		t.Errorf("custom's member lost what was written by hand: %+v", p)
	}
	if p := step.Properties["chunk"]; p.Description == "" {
		t.Error("an option's member was lost")
	}
	last := step.OneOf[len(step.OneOf)-1]
	if len(step.OneOf) != len(kinds) || last.Title != "image step" || !slices.Equal(last.Required, []string{"image"}) {
		t.Errorf("the branches end with %+v, of %d", last, len(step.OneOf))
	}
	for _, b := range step.OneOf {
		if !strings.HasSuffix(b.ErrorMessage, ", fault, image.") || strings.Contains(b.ErrorMessage, "raw") {
			t.Errorf("the %s branch says %q", b.Title, b.ErrorMessage)
		}
	}
	if !strings.Contains(step.Description, "fault, image), plus the optional keys id, delay, tokensPerSecond, chunk and metadata.") {
		t.Errorf("the step's description is %q", step.Description)
	}
	if again, _ := rewriteSteps(got, kinds, scenarios.StepOptions()); !bytes.Equal(again, got) {
		t.Error("a second rewrite of the schema changed it")
	}
}

// TestTheClientTypesFollowTheGoSource checks that what the client's types say of the
// journal entry, the outcomes and the error codes is read from the Go source.
func TestTheClientTypesFollowTheGoSource(t *testing.T) {
	api, err := readAPI(root)
	if err != nil {
		t.Fatal(err)
	}
	client, err := clientTypes(scenarios.FaultKindTable(), api)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  /** an error answer's code, e.g. unauthorized */\n  error?: ErrorCode;\n", // a field's comment and its type
		"  seq: number;\n", "  durationMs: number;\n", // not omitempty: never missing
		`selection?: "matched" | "forced" | "continued";`, // an unexported type's constants
		`export type Outcome = "running" | "success" | "interrupt" | "cancelled" | "error" | "fault";`,
		`  | "no_scenario"` + "\n", `  | "unknown_step"` + "\n", `  | "invalid_payload"` + "\n", `  | "upstream_unreachable"` + "\n", // apiError, errorBody, AnswerError, ErrorAnswer
		`runError: { after?: number; message?: string; code?: string };`,
		`status: { status?: number; body?: unknown; retryAfter?: number };`,
		"  nearMisses?: { id: string; source: string; reasons: string[] }[];\n", // a list of a struct of another package
	} {
		if !strings.Contains(string(client), want) {
			t.Errorf("the client's types lack %q", want)
		}
	}
	if _, err := tsType("chan int", api); err == nil {
		t.Error("a Go type without a TypeScript type was accepted")
	}
}

func TestFilesWithoutTheirPlaceAreRefused(t *testing.T) {
	if _, err := rewriteFaultKinds([]byte(`{"$defs": {}}`), nil); err == nil {
		t.Error("a schema without faultKind was rewritten")
	}
	options := scenarios.StepOptions()
	for _, schema := range []string{
		`{"$defs": {}}`,
		`{"$defs": {"step": {"description": "", "properties": [], "oneOf": []}}}`,
		`{"$defs": {"step": {"description": "", "properties": {"text": {}}, "oneOf": []}}}`, // a kind's member without a description
		`{"$defs": {"step": {"description": "", "properties": {}, "oneOf": []}}}`,           // no member for the options
	} {
		if _, err := rewriteSteps([]byte(schema), scenarios.StepKindTable()[:1], options); err == nil {
			t.Errorf("the schema %s was rewritten", schema)
		}
	}
	bad := []scenarios.FaultKind{{Name: "odd", Params: []string{"nonsense"}, Scope: scenarios.FaultScopeStep}}
	if _, err := clientTypes(bad, api{constants: map[string][]string{"protocol.Outcome": {"x"}}, errorCodes: []string{"x"}}); err == nil {
		t.Error("a kind with an unknown parameter was written")
	}
}

func readSchema(t *testing.T) []byte {
	t.Helper()
	schema, err := os.ReadFile(filepath.Join(root, schemaFile))
	if err != nil {
		t.Fatal(err)
	}
	return schema
}
