package scenarios

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// schemaFile is the JSON Schema editors use to check scenario files.
const schemaFile = "scenario.schema.json"

// compileSchema compiles the scenario schema, asserting formats so that regular
// expressions are checked with Go's regexp package, as the loader does.
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", schemaFile, err)
	}
	obj, _ := doc.(map[string]any)
	id, _ := obj["$id"].(string)
	if id == "" {
		t.Fatalf("%s has no $id", schemaFile)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatalf("compiling %s: %v", schemaFile, err)
	}
	return sch
}

// yamlDocuments decodes every non-empty document of a YAML file into JSON-like values,
// as an editor's YAML language server sees them.
func yamlDocuments(data []byte) ([]any, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []any
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if v == nil {
			continue // an empty document, which the loader skips too
		}
		docs = append(docs, jsonValue(v))
	}
}

// jsonValue turns decoded YAML into values the validator understands: string map keys,
// and text for the scalars JSON has no type for.
func jsonValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonValue(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = jsonValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e)
		}
		return out
	case []byte:
		return string(x)
	case time.Time:
		return x.Format(time.RFC3339Nano)
	}
	return v // nil, bool, string and Go's integer and float types
}

// shippedScenarioFiles lists the scenario files the project ships: the built-in set,
// the scenarios `agui-mock init` writes and, when present, the examples directory.
func shippedScenarioFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, root := range []string{"builtin", filepath.Join("..", "internal", "starter", "files"), filepath.Join("..", "examples")} {
		if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) && root != "builtin" {
			continue
		}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != root && SkipsDir(d.Name()) {
					return filepath.SkipDir
				}
				return nil
			}
			if IsScenarioFile(p) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) == 0 {
		t.Fatal("found no shipped scenario files")
	}
	return files
}

func TestSchemaAcceptsShippedScenarios(t *testing.T) {
	sch := compileSchema(t)
	total := 0
	for _, file := range shippedScenarioFiles(t) {
		t.Run(filepath.ToSlash(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			list, diags := Parse(file, data)
			for _, d := range diags {
				t.Errorf("parser: %v", d)
			}
			docs, err := yamlDocuments(data)
			if err != nil {
				t.Fatalf("decoding YAML: %v", err)
			}
			if len(diags) == 0 && len(docs) != len(list) {
				t.Errorf("%d YAML documents, but the parser read %d scenarios", len(docs), len(list))
			}
			for i, doc := range docs {
				if err := sch.Validate(doc); err != nil {
					t.Errorf("document %d: %v", i+1, err)
				}
				total++
			}
		})
	}
	t.Logf("validated %d scenario documents", total)
}

// invalidCase is a known-bad scenario file of testdata/schema-invalid. Its header comments
// say where the schema must report the mistake and what the parser must say about it:
//
//	# schema: #/steps/0
//	# parser: a step needs exactly one kind
type invalidCase struct {
	file      string
	data      []byte
	schemaAt  string // the instance location the schema must flag, as a URI fragment: #/steps/0
	parserMsg string // text one of the parser's diagnostics must contain
}

func readInvalidCases(t *testing.T) []invalidCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "schema-invalid", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []invalidCase
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		c := invalidCase{file: file, data: data}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "# schema:"); ok {
				c.schemaAt = strings.TrimSpace(v)
			}
			if v, ok := strings.CutPrefix(line, "# parser:"); ok {
				c.parserMsg = strings.TrimSpace(v)
			}
		}
		if c.schemaAt == "" || c.parserMsg == "" {
			t.Fatalf("%s: needs a '# schema: #<JSON Pointer>' and a '# parser: <message>' comment", file)
		}
		cases = append(cases, c)
	}
	return cases
}

// instanceLocations collects every place a validation error names, as URI fragments.
func instanceLocations(err *jsonschema.ValidationError, into map[string]bool) {
	loc := "#"
	for _, tok := range err.InstanceLocation {
		loc += "/" + strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
	}
	into[loc] = true
	for _, c := range err.Causes {
		instanceLocations(c, into)
	}
}

func TestSchemaRejectsInvalidScenarios(t *testing.T) {
	sch := compileSchema(t)
	cases := readInvalidCases(t)
	if len(cases) < 12 {
		t.Fatalf("want at least 12 invalid scenario files, found %d", len(cases))
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			docs, err := yamlDocuments(c.data)
			if err != nil {
				t.Fatalf("decoding YAML: %v", err)
			}
			if len(docs) != 1 {
				t.Fatalf("want exactly one document, got %d", len(docs))
			}
			err = sch.Validate(docs[0])
			var ve *jsonschema.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("the schema accepts the document (err %v)", err)
			}
			at := map[string]bool{}
			instanceLocations(ve, at)
			if !at[c.schemaAt] {
				t.Errorf("the schema reports no error at %s; it reports:\n%v", c.schemaAt, err)
			}

			_, diags := Parse(c.file, c.data)
			if len(diags) == 0 {
				t.Fatal("the parser accepts the file")
			}
			if !slices.ContainsFunc(diags, func(d Diagnostic) bool { return strings.Contains(d.Message, c.parserMsg) }) {
				t.Errorf("no parser diagnostic contains %q; got %v", c.parserMsg, diags)
			}
		})
	}
	t.Logf("rejected %d invalid scenario documents", len(cases))
}

func TestSchemaFileIsWellFormed(t *testing.T) {
	data, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s is not valid JSON: %v", schemaFile, err)
	}
	if dec.More() {
		t.Fatalf("%s has data after the schema", schemaFile)
	}
	for key, want := range map[string]string{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$id":     "https://agui-mock.dev/scenario.schema.json",
	} {
		if doc[key] != want {
			t.Errorf("%s is %v, want %s", key, doc[key], want)
		}
	}
	for _, key := range []string{"title", "description"} {
		if s, _ := doc[key].(string); s == "" {
			t.Errorf("the schema has no %s", key)
		}
	}

	// Every property and every definition describes itself, for editors' hovers.
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, group := range []string{"properties", "$defs"} {
				members, _ := x[group].(map[string]any)
				for name, sub := range members {
					if obj, ok := sub.(map[string]any); ok {
						if s, _ := obj["description"].(string); strings.TrimSpace(s) == "" {
							t.Errorf("%s/%s/%s has no description", path, group, name)
						}
					}
				}
			}
			for k, sub := range x {
				walk(path+"/"+k, sub)
			}
		case []any:
			for i, sub := range x {
				walk(fmt.Sprintf("%s/%d", path, i), sub)
			}
		}
	}
	walk("#", doc)
}
