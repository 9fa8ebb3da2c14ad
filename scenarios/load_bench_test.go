package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkLoad1000Files loads a directory of 1,000 scenario files, each with a match,
// templates and several steps, as the server does at start and on every reload.
// Target: 200 ms.
func BenchmarkLoad1000Files(b *testing.B) {
	dir := b.TempDir()
	for i := range 1000 {
		body := fmt.Sprintf(`id: scenario-%d
match:
  message: (?i)^question %d (?P<topic>\w+)
  forwardedProps: {scenario_name: bench}
timing: {tokensPerSecond: 50}
steps:
  - reasoning: Thinking about {{ .captures.topic }}.
  - text: Here is an answer about {{ .captures.topic }} for {{ Name }}.
  - tool: {name: lookup, args: {topic: "{{ .captures.topic }}"}, result: {found: true}}
  - state: {count: %d}
  - stateDelta: [{op: replace, path: /count, value: %d}]
`, i, i, i, i+1)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%04d.yaml", i)), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	src := Source{FS: os.DirFS(dir), Root: ".", Label: dir}
	for b.Loop() {
		set, err := Load(src)
		if err != nil {
			b.Fatal(err)
		}
		if len(set.Scenarios()) != 1000 {
			b.Fatal(len(set.Scenarios()))
		}
	}
}
