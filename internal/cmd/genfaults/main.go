// Command genfaults writes what the Go code decides into the files that cannot import
// it: the `faultKind` definition of the scenario schema, from the table of fault kinds
// (scenarios/fault.go), and the types of the TypeScript admin client
// (clients/client/src/types.generated.ts): the fault kinds and their parameters, the
// journal entry (server/journal.go), the outcomes of a run (protocol/outcome.go) and the
// error codes the server answers (server/, scenarios/, recorder/). `go generate
// ./scenarios` runs it; a test fails while either file is out of date.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/agui-mock/agui-mock/scenarios"
)

// The files genfaults writes, relative to the repository's root.
const (
	schemaFile = "scenarios/scenario.schema.json"
	clientFile = "clients/client/src/types.generated.ts"
)

func main() {
	root := flag.String("root", ".", "the repository's root")
	flag.Parse()
	if err := run(*root); err != nil {
		fmt.Fprintln(os.Stderr, "genfaults:", err)
		os.Exit(1)
	}
}

func run(root string) error {
	files, err := generate(root, scenarios.FaultKindTable())
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

// generate returns the content each generated file should have, by its path relative
// to root, for a table of fault kinds.
func generate(root string, table []scenarios.FaultKind) (map[string][]byte, error) {
	schema, err := os.ReadFile(filepath.Join(root, schemaFile))
	if err != nil {
		return nil, err
	}
	if schema, err = rewriteSchema(schema, table); err != nil {
		return nil, fmt.Errorf("%s: %w", schemaFile, err)
	}
	api, err := readAPI(root)
	if err != nil {
		return nil, err
	}
	client, err := clientTypes(table, api)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", clientFile, err)
	}
	return map[string][]byte{schemaFile: schema, clientFile: client}, nil
}

// faultKindSchema is the schema's definition of a fault step's kind; its fields are in
// the order the schema file writes them.
type faultKindSchema struct {
	Title            string   `json:"title"`
	Description      string   `json:"description"`
	Enum             []string `json:"enum"`
	EnumDescriptions []string `json:"enumDescriptions"`
	ErrorMessage     string   `json:"errorMessage"`
}

// schemaDef finds the schema's faultKind definition: its opening line, up to its closing brace.
var schemaDef = regexp.MustCompile(`(?m)^( *)"faultKind": \{\n(?:.*\n)*?( *)\}`)

// rewriteSchema replaces the schema's faultKind definition by the table's step kinds.
func rewriteSchema(schema []byte, table []scenarios.FaultKind) ([]byte, error) {
	loc := schemaDef.FindSubmatchIndex(schema)
	if loc == nil {
		return nil, fmt.Errorf(`no "faultKind" definition`)
	}
	indent := string(schema[loc[2]:loc[3]])
	var steps, requests []string
	def := faultKindSchema{Title: "fault kind"}
	for _, k := range table {
		if k.RequestOnly() {
			requests = append(requests, k.Name)
			continue
		}
		steps = append(steps, k.Name)
		def.Enum = append(def.Enum, k.Name)
		def.EnumDescriptions = append(def.EnumDescriptions, k.Does)
	}
	def.Description = fmt.Sprintf("How the stream breaks: %s (each described in enumDescriptions). The request-wide faults %s are not scenario steps: ask for them per request with the X-Agui-Mock-Fault header or the admin API. Taken literally: no templates.",
		words(steps, "or"), words(requests, "and"))
	def.ErrorMessage = fmt.Sprintf("In a scenario a fault is %s. %s apply to a whole request: use the X-Agui-Mock-Fault header or the admin API.",
		words(steps, "or"), words(requests, "and"))
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent(indent, "  ")
	if err := enc.Encode(def); err != nil {
		return nil, err
	}
	block := indent + `"faultKind": ` + strings.TrimSuffix(out.String(), "\n")
	return concat(schema[:loc[0]], []byte(block), schema[loc[1]:]), nil
}

// words joins names as a sentence does: "a, b or c".
func words(names []string, and string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + and + " " + names[len(names)-1]
}

// concat concatenates byte slices into a new one.
func concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
