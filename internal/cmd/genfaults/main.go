// Command genfaults writes what the table of fault kinds (scenarios/fault.go) decides
// into the files that cannot import it: the `faultKind` definition of the scenario
// schema and the kind type of the Testcontainers client. `go generate ./scenarios` runs
// it; a test fails while either file is out of date.
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
	clientFile = "clients/testcontainers/src/index.ts"
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
	table := scenarios.FaultKindTable()
	for file, rewrite := range map[string]func([]byte, []scenarios.FaultKind) ([]byte, error){
		schemaFile: rewriteSchema,
		clientFile: rewriteClient,
	} {
		path := filepath.Join(root, file)
		old, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		updated, err := rewrite(old, table)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if !bytes.Equal(old, updated) {
			if err := os.WriteFile(path, updated, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
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

// clientKind finds the kind member of the client's Fault type, with the comment
// genfaults writes above it.
var clientKind = regexp.MustCompile(`(?s)(export interface Fault \{\n)(?:  /\*\*\n   \* The kind, generated.*?   \*/\n)?  kind: [^\n]*;\n`)

// rewriteClient replaces the kind member of the client's Fault type by the table's kinds.
func rewriteClient(client []byte, table []scenarios.FaultKind) ([]byte, error) {
	loc := clientKind.FindSubmatchIndex(client)
	if loc == nil {
		return nil, fmt.Errorf("no kind member in the Fault interface")
	}
	var member strings.Builder
	member.WriteString("  /**\n   * The kind, generated from the table of fault kinds in scenarios/fault.go:\n")
	names := make([]string, 0, len(table))
	for _, k := range table {
		fmt.Fprintf(&member, "   * - `%s`: %s\n", k.Name, k.Does)
		names = append(names, `"`+k.Name+`"`)
	}
	member.WriteString("   */\n  kind: " + strings.Join(names, " | ") + ";\n")
	return concat(client[:loc[3]], []byte(member.String()), client[loc[1]:]), nil
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
