package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// api is what the TypeScript client's types take from the Go source: read from the
// syntax, since the journal entry's comments and the error codes exist nowhere else.
type api struct {
	journal    []field             // server.JournalEntry's JSON members, in order
	structs    map[string][]field  // the JSON members of every struct, by package.Name
	constants  map[string][]string // the string constants of each named type, by type name
	errorCodes []string            // the codes of the server's error answers, sorted
}

// field is one JSON member of a struct.
type field struct {
	name     string // as JSON spells it
	optional bool   // omitempty
	goType   string // the Go type as written, e.g. int64, time.Time, protocol.Outcome
	doc      string // the field's comment
}

// readAPI parses the packages the client's types come from.
func readAPI(root string) (api, error) {
	a := api{constants: map[string][]string{}, structs: map[string][]field{}}
	for _, dir := range []string{"server", "protocol", "scenarios", "recorder"} {
		files, err := parseDir(filepath.Join(root, dir))
		if err != nil {
			return a, err
		}
		for _, f := range files {
			collectConstants(f, dir, a.constants)
			collectStructs(f, dir, a.structs)
			a.errorCodes = append(a.errorCodes, errorCodes(f)...)
			if dir == "server" {
				if fields := structFields(f, "JournalEntry"); fields != nil {
					a.journal = fields
				}
			}
		}
	}
	if a.journal == nil {
		return a, fmt.Errorf("no JournalEntry struct in server/")
	}
	slices.Sort(a.errorCodes)
	a.errorCodes = slices.Compact(a.errorCodes)
	return a, nil
}

// parseDir parses a package's files, its tests aside.
func parseDir(dir string) ([]*ast.File, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// collectConstants adds each string constant declared with a named type to its type's
// list, under the name the type has outside its package (protocol.Outcome) or inside
// it (selection).
func collectConstants(f *ast.File, pkg string, into map[string][]string) {
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			typ, ok := vs.Type.(*ast.Ident)
			if !ok {
				continue
			}
			for _, v := range vs.Values {
				if s, ok := stringLit(v); ok {
					name := typ.Name
					if ast.IsExported(name) {
						name = pkg + "." + name
					}
					into[name] = append(into[name], s)
				}
			}
		}
	}
}

// errorCodes finds the codes of error answers: the code argument of apiError, the
// Error member of an errorBody, and the Code member of an AnswerError (a resumed run's
// answers) and of a recorder's ErrorAnswer (the upstream's failures).
func errorCodes(f *ast.File) []string {
	var codes []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "apiError" && len(n.Args) == 3 {
				if s, ok := stringLit(n.Args[1]); ok {
					codes = append(codes, s)
				}
			}
		case *ast.CompositeLit:
			member := map[string]string{"errorBody": "Error", "AnswerError": "Code", "ErrorAnswer": "Code"}[typeName(n.Type)]
			for _, elt := range n.Elts {
				if kv, ok := elt.(*ast.KeyValueExpr); ok && member != "" && isIdent(kv.Key, member) {
					if s, ok := stringLit(kv.Value); ok {
						codes = append(codes, s)
					}
				}
			}
		}
		return true
	})
	return codes
}

// structFields lists the JSON members of a struct type declared in f, or nil.
func structFields(f *ast.File, name string) []field {
	var fields []field
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != name {
			return true
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			return false
		}
		fields = []field{}
		for _, fl := range st.Fields.List {
			if len(fl.Names) == 0 || !fl.Names[0].IsExported() || fl.Tag == nil {
				continue
			}
			tag, _ := strconv.Unquote(fl.Tag.Value)
			jsonTag, ok := lookupTag(tag, "json")
			if !ok || jsonTag == "-" {
				continue
			}
			jsonName, opts, _ := strings.Cut(jsonTag, ",")
			doc := strings.TrimSpace(fl.Comment.Text() + fl.Doc.Text())
			fields = append(fields, field{name: jsonName, optional: strings.Contains(opts, "omitempty"), goType: exprString(fl.Type), doc: doc})
		}
		return false
	})
	return fields
}

// collectStructs adds the JSON members of each struct type of a file, under the name
// other packages write it by (pkg.Name), for fields of those types.
func collectStructs(f *ast.File, pkg string, into map[string][]field) {
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			if ts, ok := spec.(*ast.TypeSpec); ok && ts.Name.IsExported() {
				if _, isStruct := ts.Type.(*ast.StructType); isStruct {
					into[pkg+"."+ts.Name.Name] = structFields(f, ts.Name.Name)
				}
			}
		}
	}
}

// lookupTag is reflect.StructTag.Lookup for a tag read from the source.
func lookupTag(tag, key string) (string, bool) {
	for _, part := range strings.Fields(tag) {
		if k, v, ok := strings.Cut(part, ":"); ok && k == key {
			s, err := strconv.Unquote(v)
			return s, err == nil
		}
	}
	return "", false
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// typeName is the name of a composite literal's type, its package and pointer aside.
func typeName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.SelectorExpr:
		return t.Sel.Name
	}
	return ""
}

// exprString writes a field's type as the source does, for the simple types structs use.
func exprString(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.SelectorExpr:
		return exprString(t.X) + "." + t.Sel.Name
	case *ast.StarExpr:
		return "*" + exprString(t.X)
	case *ast.ArrayType:
		return "[]" + exprString(t.Elt)
	case *ast.InterfaceType:
		return "any"
	}
	return fmt.Sprintf("%T", e)
}
