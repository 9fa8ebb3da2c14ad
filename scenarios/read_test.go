package scenarios

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestReadFilesSkipsHiddenAndForeignFiles(t *testing.T) {
	fsys := fstest.MapFS{
		"d/a.yaml":                {Data: []byte("steps: [{text: a}]\n")},
		"d/sub/b.yml":             {Data: []byte("steps: [{text: b}]\n")},
		"d/.a.yaml.swp":           {Data: []byte("garbage")},
		"d/a.yaml~":               {Data: []byte("garbage")},
		"d/..2026_01/c.yaml":      {Data: []byte("garbage: [")},
		"d/notes.txt":             {Data: []byte("garbage")},
		"d/node_modules/p/ci.yml": {Data: []byte("garbage: [")},
		"d/multi.yaml":            {Data: []byte("id: one\nsteps: [{text: a}]\n---\nid: two\nsteps: [{text: b}]\n---\n")},
	}
	list, diags := ReadFiles(Source{FS: fsys, Root: "d", Label: "d"})
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	var ids []string
	for _, sc := range list {
		ids = append(ids, sc.ID)
	}
	if got := strings.Join(ids, ","); got != "a,one,two,b" {
		t.Errorf("loaded %s", got)
	}
}
