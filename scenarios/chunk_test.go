package scenarios

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplitText(t *testing.T) {
	tests := []struct {
		text, mode string
		want       []string
	}{
		{"", "word", nil},
		{"Hello, world!", "word", []string{"Hello, ", "world!"}},
		{"  lead  two\nlines ", "word", []string{"  lead  ", "two\n", "lines "}},
		{"One. Two? Three", "sentence", []string{"One. ", "Two? ", "Three"}},
		{"all at once", "none", []string{"all at once"}},
	}
	for _, tt := range tests {
		if got := splitText(tt.text, tt.mode); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("splitText(%q, %s) = %q, want %q", tt.text, tt.mode, got, tt.want)
		}
	}
	if got := splitArgs(`{"query":"ocean waves"}`, "word"); strings.Join(got, "") != `{"query":"ocean waves"}` || len(got) != 3 {
		t.Errorf("splitArgs = %q", got)
	}
}
