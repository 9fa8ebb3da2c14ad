// Command genschema writes what the Go code decides into the files that cannot import
// it: parts of the scenario schema (scenarios/scenario.schema.json) and the types of
// the TypeScript admin client (clients/client/src/types.generated.ts).
//
// From the table of step kinds (scenarios/steps.go) it writes the schema's step
// members, one per kind with the kind's hint as its description, the step's oneOf
// branches and their "exactly one kind" messages; what each kind's member holds besides
// its description, and the options every step takes, stay as written. From the table
// of fault kinds (scenarios/fault.go) it writes the schema's faultKind definition and
// the client's fault kinds and parameters; from the Go source, the client's journal
// entry (server/journal.go), the outcomes of a run (protocol/outcome.go) and the error
// codes the server answers (server/, scenarios/, recorder/).
//
// `go generate ./scenarios` runs it; a test fails while either file is out of date.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agui-mock/agui-mock/scenarios"
)

// The files genschema writes, relative to the repository's root.
const (
	schemaFile = "scenarios/scenario.schema.json"
	clientFile = "clients/client/src/types.generated.ts"
)

func main() {
	root := flag.String("root", ".", "the repository's root")
	flag.Parse()
	if err := run(*root); err != nil {
		fmt.Fprintln(os.Stderr, "genschema:", err)
		os.Exit(1)
	}
}

func run(root string) error {
	files, err := generate(root, current())
	if err != nil {
		return err
	}
	for file, content := range files {
		path := filepath.Join(root, file)
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, content) {
			continue
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// tables are what the generated files are written from.
type tables struct {
	faults  []scenarios.FaultKind
	steps   []scenarios.StepKind
	options []string // the keys every step takes besides its kind
}

// current returns the tables of the scenarios package.
func current() tables {
	return tables{faults: scenarios.FaultKindTable(), steps: scenarios.StepKindTable(), options: scenarios.StepOptions()}
}

// generate returns the content each generated file should have, by its path relative
// to root, for the tables.
func generate(root string, t tables) (map[string][]byte, error) {
	schema, err := os.ReadFile(filepath.Join(root, schemaFile))
	if err != nil {
		return nil, err
	}
	if schema, err = rewriteSchema(schema, t); err != nil {
		return nil, fmt.Errorf("%s: %w", schemaFile, err)
	}
	api, err := readAPI(root)
	if err != nil {
		return nil, err
	}
	client, err := clientTypes(t.faults, api)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", clientFile, err)
	}
	return map[string][]byte{schemaFile: schema, clientFile: client}, nil
}

// rewriteSchema rewrites the generated parts of the schema: the fault kinds and the
// step kinds.
func rewriteSchema(schema []byte, t tables) ([]byte, error) {
	schema, err := rewriteFaultKinds(schema, t.faults)
	if err != nil {
		return nil, err
	}
	return rewriteSteps(schema, t.steps, t.options)
}

// words joins names as a sentence does: "a, b or c".
func words(names []string, and string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + and + " " + names[len(names)-1]
}
