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

// TestTheGeneratedFilesAreCurrent fails while the schema or the client says of the fault
// kinds something other than the table: run `go generate ./scenarios`.
func TestTheGeneratedFilesAreCurrent(t *testing.T) {
	files, err := generate(root, scenarios.FaultKindTable())
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

	schema, err := os.ReadFile(filepath.Join(root, schemaFile))
	if err != nil {
		t.Fatal(err)
	}
	got, err := rewriteSchema(schema, table)
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
	if again, _ := rewriteSchema(got, table); !bytes.Equal(again, got) {
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
	if _, err := rewriteSchema([]byte(`{"$defs": {}}`), nil); err == nil {
		t.Error("a schema without faultKind was rewritten")
	}
	bad := []scenarios.FaultKind{{Name: "odd", Params: []string{"nonsense"}, Scope: scenarios.FaultScopeStep}}
	if _, err := clientTypes(bad, api{constants: map[string][]string{"protocol.Outcome": {"x"}}, errorCodes: []string{"x"}}); err == nil {
		t.Error("a kind with an unknown parameter was written")
	}
}
