package cmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/internal/testkit"
)

// aliasBombFile is a scenario file of ten levels of ten aliases, a few hundred bytes
// that name 10¹⁰ nodes once resolved; past the budget at line 9, where x4 names x3 ten times.
func aliasBombFile() string {
	var b strings.Builder
	b.WriteString("id: bomb\nmatch: {message: bomb}\nsteps:\n  - text: a\nx0: &x0 [a, a, a, a, a, a, a, a, a, a]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "x%d: &x%d [*x%d, *x%[3]d, *x%[3]d, *x%[3]d, *x%[3]d, *x%[3]d, *x%[3]d, *x%[3]d, *x%[3]d, *x%[3]d]\n", i, i, i-1)
	}
	return b.String()
}

const aliasBombProblem = "the aliases of this file add more than 100000 nodes"

// bombBudget is more than refusing the bomb allocates anywhere, and less than what
// resolving the 100,000 nodes the budget allows would (some 13 MiB of YAML nodes): the
// bomb is refused at its alias, not once resolved. Bytes allocated, unlike time taken,
// do not grow with the machine's load.
const bombBudget = 8 << 20

func TestAnAliasBombIsRefusedQuicklyEverywhere(t *testing.T) {
	dir := t.TempDir()
	bomb := filepath.Join(t.TempDir(), "bomb.yaml")
	testkit.WriteFile(t, bomb, aliasBombFile())
	quickly := func(what string, allocated uint64) {
		t.Helper()
		t.Logf("%s allocated %d KiB", what, allocated>>10)
		if allocated > bombBudget {
			t.Errorf("%s allocated %d KiB, more than %d KiB", what, allocated>>10, bombBudget>>10)
		}
	}

	var out strings.Builder
	var code int
	allocated := allocatedBy(func() { code = run(t.Context(), []string{"validate", bomb}, env(nil), &out, io.Discard) })
	if code != 1 || !strings.Contains(out.String(), bomb+":9:45: ") || !strings.Contains(out.String(), aliasBombProblem) {
		t.Errorf("validate: exit %d, output:\n%s", code, out.String())
	}
	quickly("validate", allocated)

	testkit.WriteFile(t, filepath.Join(dir, "alpha.yaml"), scenarioFile("v0"))
	ctx, stop := context.WithCancel(t.Context())
	outR, outW := io.Pipe()
	exited := make(chan int, 1)
	go func() {
		code := run(ctx, []string{"--addr", "127.0.0.1:0", "--no-builtin", "--scenarios", dir, "--watch", "poll", "--poll-interval", "50ms"}, env(nil), outW, io.Discard)
		outW.Close()
		exited <- code
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		stop()
		t.Fatalf("no start-up line: %v", err)
	}
	go io.Copy(io.Discard, outR)
	_, url, _ := strings.Cut(strings.TrimSpace(line), " listening on ")

	// Hot reload: the bomb is refused at its alias, and the last good set serves on.
	allocated = allocatedBy(func() {
		testkit.WriteFile(t, filepath.Join(dir, "bomb.yaml"), aliasBombFile())
		testkit.Eventually(t, "the bomb is reported", func() bool { return status(t, url).Failed })
	})
	quickly("the reload", allocated)
	if st := status(t, url); len(st.Errors) != 1 || st.Errors[0].File != filepath.Join(dir, "bomb.yaml") || st.Errors[0].Line != 9 ||
		!strings.Contains(st.Errors[0].Message, aliasBombProblem) {
		t.Errorf("status %+v", st)
	}
	if got := ask(t, url, "alpha"); got != "served-v0" {
		t.Errorf("the last good set must serve, got %q", got)
	}

	// The admin API refuses it as quickly.
	var resp *http.Response
	var body []byte
	allocated = allocatedBy(func() {
		var err error
		if resp, err = http.Post(url+"/_mock/scenarios", "application/yaml", strings.NewReader(aliasBombFile())); err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
	})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(body), aliasBombProblem) || !strings.Contains(string(body), `"line":9`) {
		t.Errorf("POST /_mock/scenarios: %s %s", resp.Status, body)
	}
	quickly("POST /_mock/scenarios", allocated)

	// The bomb is saved again and again; the server stops at once all the same.
	for i := range 5 {
		testkit.WriteFile(t, filepath.Join(dir, "bomb.yaml"), aliasBombFile()+fmt.Sprintf("# save %d\n", i))
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	select {
	case code := <-exited:
		if code != 0 {
			t.Errorf("exit code %d", code)
		}
	case <-time.After(time.Minute): // a guard against a hang: resolving a bomb would never end
		t.Fatal("the server did not stop within a minute")
	}
}
