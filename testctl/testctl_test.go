package testctl

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"github.com/agui-mock/agui-mock/scenarios"
)

// threadStore records the resets a Control asks of its thread store.
type threadStore struct{ resets []string }

func (s *threadStore) Reset(testID string, all bool) {
	if all {
		testID = "all"
	}
	s.resets = append(s.resets, testID)
}

func TestResetForgetsEveryStoreOfTheTest(t *testing.T) {
	threads := &threadStore{}
	c := New(NewJournal(10, func(*entry, int64) {}), threads)
	for _, id := range []string{"t1", "t2"} {
		c.Forced.Push(id, "s", 0)
		c.Faults.Push(id, scenarios.Fault{Kind: scenarios.FaultTruncate}, 0)
		c.Speed.Replace(id, 0.5, 0)
		c.Breakpoints.Add(Breakpoint{TestID: id, Step: "x"})
		c.Journal.Add(id, entry{path: id})
	}
	c.Reset("t1", false)
	if _, ok := c.Forced.Take("t1"); ok {
		t.Error("t1's forced scenario survived")
	}
	if _, ok := c.Faults.Take("t1"); ok {
		t.Error("t1's fault survived")
	}
	if _, ok := c.Speed.Take("t1"); ok {
		t.Error("t1's speed survived")
	}
	if c.Breakpoints.Hit("t1", "s", "x", 0, "", "") != nil {
		t.Error("t1's breakpoint survived")
	}
	if got := paths(c.Journal.List("", all)); got != "t2" {
		t.Errorf("journal after resetting t1: %s", got)
	}
	if _, ok := c.Forced.Take("t2"); !ok {
		t.Error("resetting t1 forgot t2's forced scenario")
	}
	c.Reset("", true)
	if got := paths(c.Journal.List("", all)); got != "" || c.Breakpoints.Hit("t2", "s", "x", 0, "", "") != nil {
		t.Error("resetting all left state behind")
	}
	if len(threads.resets) != 2 || threads.resets[0] != "t1" || threads.resets[1] != "all" {
		t.Errorf("thread store resets %q", threads.resets)
	}
}

// TestResetForgetsEveryField checks that Control.Reset resets every field of Control:
// a store added to Control is forgotten by POST /_mock/reset too.
func TestResetForgetsEveryField(t *testing.T) {
	file, err := parser.ParseFile(token.NewFileSet(), "testctl.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var fields []string
	reset := map[string]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.TypeSpec:
			if st, ok := n.Type.(*ast.StructType); ok && n.Name.Name == "Control" {
				for _, f := range st.Fields.List {
					for _, name := range f.Names {
						fields = append(fields, name.Name)
					}
				}
			}
		case *ast.FuncDecl:
			if n.Name.Name != "Reset" || n.Recv == nil {
				return false
			}
			ast.Inspect(n.Body, func(n ast.Node) bool {
				// c.<field>.Reset(…)
				if call, ok := n.(*ast.SelectorExpr); ok && call.Sel.Name == "Reset" {
					if field, ok := call.X.(*ast.SelectorExpr); ok {
						reset[field.Sel.Name] = true
					}
				}
				return true
			})
		}
		return true
	})
	if len(fields) < 5 {
		t.Fatalf("Control has %d fields: has testctl.go changed its shape?", len(fields))
	}
	for _, f := range fields {
		if !reset[f] {
			t.Errorf("Control.Reset does not reset Control.%s", f)
		}
	}
}
