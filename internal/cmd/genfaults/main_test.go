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
	table := scenarios.FaultKindTable()
	for file, rewrite := range map[string]func([]byte, []scenarios.FaultKind) ([]byte, error){
		schemaFile: rewriteSchema, clientFile: rewriteClient,
	} {
		data, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		got, err := rewrite(data, table)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s is out of date: run go generate ./scenarios", file)
		}
	}
}

// TestANewKindReachesBothFiles adds a kind to the table and checks that the schema's
// enum and the client's type take it, and that a second rewrite changes nothing.
func TestANewKindReachesBothFiles(t *testing.T) {
	table := append(scenarios.FaultKindTable(),
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

	client, err := os.ReadFile(filepath.Join(root, clientFile))
	if err != nil {
		t.Fatal(err)
	}
	gotClient, err := rewriteClient(client, table)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(gotClient, []byte(`| "truncate" | "reorder" | "gzip";`)) || !bytes.Contains(gotClient, []byte("   * - `gzip`: Compress the stream.\n")) {
		t.Errorf("the client's kind type lacks the new kinds:\n%s", gotClient)
	}
	if again, _ := rewriteClient(gotClient, table); !bytes.Equal(again, gotClient) {
		t.Error("a second rewrite of the client changed it")
	}
}

func TestFilesWithoutTheirPlaceAreRefused(t *testing.T) {
	if _, err := rewriteSchema([]byte(`{"$defs": {}}`), nil); err == nil {
		t.Error("a schema without faultKind was rewritten")
	}
	if _, err := rewriteClient([]byte("export interface Other {}\n"), nil); err == nil {
		t.Error("a client without the Fault type was rewritten")
	}
}
