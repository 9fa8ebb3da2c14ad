package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryExportedNameHasADocComment walks the module's Go files (tests and generated
// code aside) and names each exported function, method of an exported type, type,
// constant and variable that has no doc comment.
func TestEveryExportedNameHasADocComment(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, ".pb.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, name := range undocumented(f) {
			t.Errorf("%s: exported %s has no doc comment", fset.Position(name.Pos()), name.Name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// undocumented returns the exported names of a file's declarations without a doc comment.
func undocumented(f *ast.File) []*ast.Ident {
	var out []*ast.Ident
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() && d.Doc == nil && receiverExported(d) {
				out = append(out, d.Name)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() && d.Doc == nil && s.Doc == nil {
						out = append(out, s.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() && d.Doc == nil && s.Doc == nil && s.Comment == nil {
							out = append(out, n)
						}
					}
				}
			}
		}
	}
	return out
}

// receiverExported reports whether a function is no method or a method of an exported type.
func receiverExported(d *ast.FuncDecl) bool {
	if d.Recv == nil {
		return true
	}
	t := d.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	if idx, ok := t.(*ast.IndexExpr); ok { // a generic type's method
		t = idx.X
	}
	if idx, ok := t.(*ast.IndexListExpr); ok {
		t = idx.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}

func TestUndocumentedNamesAreFound(t *testing.T) {
	src := `package p
// Documented is.
func Documented() {}
func Bare() {}
type T int
func (T) M() {}
type hidden int
func (hidden) M() {}
const (
	// A is.
	A = 1
	B = 2 // B is, too.
	C = 3
)
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range undocumented(f) {
		got = append(got, n.Name)
	}
	if strings.Join(got, " ") != "Bare T M C" {
		t.Errorf("undocumented = %v, want [Bare T M C]", got)
	}
}
