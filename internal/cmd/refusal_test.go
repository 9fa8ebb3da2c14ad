package cmd

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/internal/testkit"
)

// fanOutFile is a scenario of n subagent steps of one word each, five events a step:
// 95,000 of them are 3.9 MiB, and a run of them would stream 475,002 events.
func fanOutFile(n int) string {
	var b strings.Builder
	b.WriteString("id: fanout\nmatch: {message: fanout}\nsteps:\n")
	for range n {
		b.WriteString("  - subagent: {name: a, steps: [{text: x}]}\n")
	}
	return b.String()
}

// failure is what /_mock/status says of the latest load that failed.
type failure struct {
	Failed   bool
	FailedAt time.Time
	Errors   []struct {
		File         string
		Line, Column int
		Message      string
	}
}

func failed(t *testing.T, url string) failure {
	t.Helper()
	resp, err := http.Get(url + "/_mock/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var f failure
	if err := json.NewDecoder(resp.Body).Decode(&f); err != nil {
		t.Fatal(err)
	}
	return f
}

// allocatedBy returns how many bytes the process allocates while f runs.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestAFanOutPastTheEventLimitIsRefusedOnReloadAndRememberedUntilItGoes(t *testing.T) {
	dir := t.TempDir()
	alpha, fanout := filepath.Join(dir, "alpha.yaml"), filepath.Join(dir, "fanout.yaml")
	testkit.WriteFile(t, alpha, scenarioFile("v0"))
	url := start(t, []string{"--addr", "127.0.0.1:0", "--no-builtin", "--scenarios", dir, "--poll-interval", "1h"}, nil)
	// Past the limit by a tenth, so that the race detector's slower parse still
	// refuses it well within Eventually's time on a loaded machine; the red team's 3.9
	// MiB file of 95,000 steps is measured by bench/refusal.sh.
	content := fanOutFile(22_000)
	reloadedAfter := func(what string, since time.Time, save func()) (failure, uint64) {
		t.Helper()
		var f failure
		size := allocatedBy(func() {
			save()
			testkit.Eventually(t, what, func() bool { f = failed(t, url); return f.Failed && f.FailedAt.After(since) })
		})
		return f, size
	}

	first, parsed := reloadedAfter("the fan-out is refused", time.Time{}, func() { saveAtomically(t, fanout, content) })
	if len(first.Errors) != 1 || first.Errors[0].File != fanout || first.Errors[0].Line != 20_004 || first.Errors[0].Column != 5 ||
		!strings.HasPrefix(first.Errors[0].Message, "the run would stream more than 100000 events, the limit of one run: its 44000 steps") {
		t.Fatalf("status %+v", first)
	}
	if got := ask(t, url, "alpha"); got != "served-v0" {
		t.Errorf("the last good set must serve, got %q", got)
	}

	// Another file is saved: the reload reads the fan-out, and refuses it from memory.
	again, remembered := reloadedAfter("the save is reloaded", first.FailedAt, func() { saveAtomically(t, alpha, scenarioFile("v1")) })
	if !reflect.DeepEqual(again.Errors, first.Errors) {
		t.Errorf("refused again with %+v, want %+v", again.Errors, first.Errors)
	}
	if remembered > 10*uint64(len(content)) || parsed < 20*uint64(len(content)) {
		t.Errorf("the reload that parsed the file allocated %d MiB, the one that remembered it %d MiB, for a file of %d MiB",
			parsed>>20, remembered>>20, len(content)>>20)
	}

	// Gone, it is forgotten: written again, it is parsed again.
	if err := os.Remove(fanout); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the set without it loads", func() bool { return ask(t, url, "alpha") == "served-v1" })
	third, reparsed := reloadedAfter("the fan-out is refused again", again.FailedAt, func() { saveAtomically(t, fanout, content) })
	if !reflect.DeepEqual(third.Errors, first.Errors) || reparsed < 20*uint64(len(content)) {
		t.Errorf("written again, the file was refused with %+v, the reload allocating %d MiB", third.Errors, reparsed>>20)
	}
}
