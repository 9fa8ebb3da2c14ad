package cmd

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// A server that cannot start says why in one record of its log's format, so that a
// container's JSON log (and whatever collects it) shows the reason whole.
func TestServeFailureIsOneRecordOfTheLogFormat(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	want := "scenario directory: stat " + missing + ": no such file or directory"
	for _, format := range []string{"json", "text"} {
		var stderr strings.Builder
		code := run(t.Context(), []string{"serve", "--addr", "127.0.0.1:0", "--log-format", format, "--scenarios", missing}, env(nil), &strings.Builder{}, &stderr)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1", format, code)
		}
		lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
		if len(lines) != 1 {
			t.Fatalf("%s: %d lines, want 1:\n%s", format, len(lines), stderr.String())
		}
		if format == "text" {
			if lines[0] != "agui-mock: "+want {
				t.Errorf("text: %q", lines[0])
			}
			continue
		}
		var record struct{ Level, Msg string }
		if err := json.Unmarshal([]byte(lines[0]), &record); err != nil {
			t.Fatalf("json: %v: %s", err, lines[0])
		}
		if record.Level != "ERROR" || record.Msg != "exiting: "+want {
			t.Errorf("json: %+v", record)
		}
	}
}
