package docs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goName is a code span that reads as a Go identifier, alone or qualified
// (`RuleChecker`, `scenarios.Continue`, `threads.Run.Keep`, `Set.Recall()`): something
// the code must declare.
var goName = regexp.MustCompile(`^([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*)*)(?:\(\))?$`)

// foreignNames are names docs/architecture.md writes as code that are not this
// module's: the official clients', CopilotKit's, Node's, the AG-UI protocol's own.
var foreignNames = map[string]string{
	"HttpAgent":          "@ag-ui/client's agent class",
	"compactEvents":      "@ag-ui/client's compaction",
	"keepAliveTimeout":   "Node's http.Server setting",
	"RunAgentInput":      "the AG-UI request type (protocol.RunAgentInput is its Go form)",
	"onRunFinishedEvent": "CopilotKit's subscriber callback",
	"subagentRunId":      "an AG-UI event member",
	"responseSchema":     "an AG-UI interrupt member",
	"toolCallId":         "an AG-UI member",
	"runtimeUrl":         "CopilotKit's React prop",
	"forwardedProps":     "an AG-UI member and match key",
	"threadId":           "an AG-UI member",
	"runId":              "an AG-UI member",
	"nearMisses":         "a journal entry's member",
	"toolResult":         "a step kind of the scenario files",
	"toolResults":        "a key of a recorded branch's when",
	"stateDelta":         "a step kind of the scenario files",
	"activityDelta":      "a step kind of the scenario files",
	"slowStart":          "a fault kind of the scenario files",
	"recordMissing":      "the name of an upstream mode",
	"expiresAt":          "an AG-UI interrupt member",
	"BuiltInAgent":       "CopilotKit's agent of @copilotkit/runtime",
	"faultKind":          "the definition of scenario.schema.json that lists the fault kinds",
}

// declared is what the module's Go code declares: each package's top-level names, and
// each type's methods and fields, by the type's name.
type declared struct {
	packages map[string]map[string]bool // package name → its top-level names
	members  map[string]map[string]bool // type name → its methods and fields
	any      map[string]bool            // every name either declares
}

// readDeclared parses every Go file of the module (tests included: a recipe names tests).
func readDeclared(t *testing.T) declared {
	t.Helper()
	d := declared{packages: map[string]map[string]bool{}, members: map[string]map[string]bool{}, any: map[string]bool{}}
	add := func(m map[string]map[string]bool, key, name string) {
		if m[key] == nil {
			m[key] = map[string]bool{}
		}
		m[key][name] = true
		d.any[name] = true
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && (e.Name() == "node_modules" || strings.HasPrefix(e.Name(), ".") && path != ".") {
			return filepath.SkipDir
		}
		if e.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := strings.TrimSuffix(f.Name.Name, "_test")
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Recv == nil {
					add(d.packages, pkg, decl.Name.Name)
					continue
				}
				typ := decl.Recv.List[0].Type
				for {
					switch x := typ.(type) {
					case *ast.StarExpr:
						typ = x.X
						continue
					case *ast.IndexExpr:
						typ = x.X
						continue
					case *ast.IndexListExpr:
						typ = x.X
						continue
					}
					break
				}
				if id, ok := typ.(*ast.Ident); ok {
					add(d.members, id.Name, decl.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						add(d.packages, pkg, spec.Name.Name)
						if st, ok := spec.Type.(*ast.StructType); ok {
							for _, field := range st.Fields.List {
								for _, name := range field.Names {
									add(d.members, spec.Name.Name, name.Name)
								}
							}
						}
					case *ast.ValueSpec:
						for _, name := range spec.Names {
							add(d.packages, pkg, name.Name)
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading the module's Go files: %v", err)
	}
	return d
}

// resolves reports whether a qualified name (its parts) names something declared: a
// package's name, a type's member, or a package's type's member.
func (d declared) resolves(parts []string) bool {
	switch len(parts) {
	case 1:
		return d.any[parts[0]]
	case 2:
		return d.packages[parts[0]][parts[1]] || d.members[parts[0]][parts[1]]
	case 3:
		return d.packages[parts[0]][parts[1]] && d.members[parts[1]][parts[2]]
	}
	return false
}

// looksDeclared reports whether a code span is meant as a name of the code: qualified by
// a package or a type the code declares, or written in Go's mixed case. A lower-case word
// alone (`resume`, `stopped`) is as often a YAML key or a member as a Go name, and an
// upper-case one with underscores (`RUN_FINISHED`) is an event type.
func (d declared) looksDeclared(first, rest string) bool {
	if rest != "" {
		return d.packages[first] != nil || d.members[first] != nil
	}
	if strings.ToUpper(first) == first { // RUN_FINISHED, POST
		return false
	}
	return strings.ToLower(first) != first
}

// TestArchitectureNamesOnlyDeclaredIdentifiers checks that every Go name
// docs/architecture.md writes as code (`scenarios.Continue`, `Cursor.Branches`,
// `runState`) is declared by the module, so that a rename or a move that leaves the map
// behind fails here; names of other projects are listed, each with what it is.
func TestArchitectureNamesOnlyDeclaredIdentifiers(t *testing.T) {
	d := readDeclared(t)
	checked := 0
	for _, section := range architectureSections(t) {
		for _, m := range codeSpan.FindAllStringSubmatch(section.text, -1) {
			name := goName.FindStringSubmatch(m[1])
			if name == nil || bareFile.MatchString(m[1]) || foreignNames[name[1]+name[2]] != "" || !d.looksDeclared(name[1], name[2]) {
				continue
			}
			checked++
			parts := strings.Split(name[1]+name[2], ".")
			if !d.resolves(parts) {
				t.Errorf("%s (%s) names %s, which the code does not declare", architectureDoc, section.heading, m[1])
			}
		}
	}
	if checked < 100 {
		t.Fatalf("%s names %d Go identifiers: has the way it writes them changed?", architectureDoc, checked)
	}
}
