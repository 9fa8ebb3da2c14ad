package cmd

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/internal/testkit"
)

// BenchmarkWriteToServed measures how long a saved scenario takes to be served: from
// the atomic rename of the new file until a run answers with it, debounce included.
// Target: 300 ms.
func BenchmarkWriteToServed(b *testing.B) {
	dir := b.TempDir()
	file := filepath.Join(dir, "alpha.yaml")
	testkit.WriteFile(b, file, scenarioFile("start"))
	url := start(b, []string{"--addr", "127.0.0.1:0", "--no-builtin", "--scenarios", dir, "--poll-interval", "1h"}, nil)
	n := 0
	for b.Loop() {
		n++
		marker := fmt.Sprint("v", n)
		saveAtomically(b, file, scenarioFile(marker))
		for ask(b, url, "alpha") != "served-"+marker {
			time.Sleep(2 * time.Millisecond)
		}
	}
}
