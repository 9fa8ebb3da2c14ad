package testkit

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestAgentStreamsWhatItsAnswerWrites(t *testing.T) {
	agent := Agent(t, func(s *Stream, run *Run) {
		var in struct{ RunID string }
		if err := run.Decode(&in); err != nil {
			s.Fail(http.StatusBadRequest, err.Error())
			return
		}
		s.Event(map[string]string{"type": "RUN_STARTED", "runId": in.RunID})
		s.Raw("data: {\"type\":\n\n")
	})
	post := func(body string) (int, string, string) {
		t.Helper()
		resp, err := http.Post(agent.String(), "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		got, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(got)
	}
	if status, ct, body := post(`{"runId":"r1"}`); status != 200 || ct != "text/event-stream" || body != "data: {\"runId\":\"r1\",\"type\":\"RUN_STARTED\"}\n\ndata: {\"type\":\n\n" {
		t.Errorf("a run: %d %s %q", status, ct, body)
	}
	if status, ct, body := post(`{not json`); status != http.StatusBadRequest || !strings.HasPrefix(ct, "text/plain") || !strings.Contains(body, "decoding the run input") {
		t.Errorf("a bad input: %d %s %q", status, ct, body)
	}
}

func TestListeningURLReadsTextAndJSONLines(t *testing.T) {
	for line, want := range map[string]string{
		"agui-mock listening on http://127.0.0.1:8000\n":                                        "http://127.0.0.1:8000",
		`{"msg":"agui-mock listening on http://127.0.0.1:9","url":"http://127.0.0.1:9"}` + "\n": "http://127.0.0.1:9",
		"something else\n": "",
	} {
		if got, ok := ListeningURL(line); got != want || ok != (want != "") {
			t.Errorf("ListeningURL(%q) = %q, %v", line, got, ok)
		}
	}
}

// failing records a test's failure instead of failing it.
type failing struct {
	testing.TB
	failed string
}

func (f *failing) Helper() {}
func (f *failing) Fatalf(format string, args ...any) {
	f.failed = format
	panic(f)
}

func TestEventuallyFailsWhatNeverHolds(t *testing.T) {
	f := &failing{TB: t}
	func() {
		defer func() {
			if r := recover(); r != nil && r != f {
				panic(r)
			}
		}()
		within(f, 50*time.Millisecond, "never", func() bool { return false })
	}()
	if f.failed == "" {
		t.Error("a check that never holds passed")
	}
	tries := 0
	Eventually(t, "the third try", func() bool { tries++; return tries == 3 })
}

func TestBinaryIsBuiltOnceAndRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary: not run with -short")
	}
	defer RemoveBinary()
	first := Binary(t)
	if again := Binary(t); again != first {
		t.Errorf("built twice: %s, then %s", first, again)
	}
	out, err := exec.Command(first, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "agui-mock") {
		t.Errorf("%s --version: %v\n%s", first, err, out)
	}
	RemoveBinary()
	if _, err := os.Stat(first); !os.IsNotExist(err) {
		t.Errorf("RemoveBinary left %s: %v", first, err)
	}
}
