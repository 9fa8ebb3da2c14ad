package recorder

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file the recorder cannot append to says why: the YAML's own error, which the caller
// can unwrap, or that the file holds no scenario.
func TestAFileThatIsNoFixtureSaysWhy(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ name, data, want string }{
		{"list.yaml", "[1, 2]\n", "holds no scenario"},
		{"empty.yaml", "", "holds no scenario"},
		{"broken.yaml", "a: [\n", "did not find expected"},
	} {
		file := filepath.Join(dir, tt.name)
		if err := os.WriteFile(file, []byte(tt.data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := (&Recorder{}).load(file)
		if err == nil || !strings.Contains(err.Error(), file+" is not a recorded fixture") || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "nil") {
			t.Errorf("%s: %v, want it to say %q", tt.name, err, tt.want)
		}
	}
	file := filepath.Join(dir, "broken.yaml")
	if _, err := (&Recorder{}).load(file); errors.Unwrap(err) == nil {
		t.Errorf("the YAML's error is not wrapped: %v", err)
	}
}
