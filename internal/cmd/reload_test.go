package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/internal/testkit"
)

// scenarioFile is a small scenario answering "alpha" with a marker word.
func scenarioFile(marker string) string {
	return "match: {message: alpha}\nsteps:\n  - text: served-" + marker + "\n"
}

// ask posts "alpha" and returns the text streamed back, or the HTTP status when the
// request fails.
func ask(t testing.TB, url, message string) string {
	t.Helper()
	status, body := postRun(t, url, "/agui/chat", message)
	if status != http.StatusOK {
		return strconv.Itoa(status) + " " + http.StatusText(status)
	}
	var text strings.Builder
	for _, line := range strings.Split(body, "\n") {
		if i := strings.Index(line, `"delta":"`); i >= 0 {
			text.WriteString(strings.TrimSuffix(line[i+9:], `"}`))
		}
	}
	return text.String()
}

// saveLikeVim writes the way vim does by default: the old file moves to a backup, the
// new content is written under the name, the backup is removed.
func saveLikeVim(t *testing.T, path, content string) {
	t.Helper()
	testkit.WriteFile(t, filepath.Join(filepath.Dir(path), "4913"), "")
	os.Remove(filepath.Join(filepath.Dir(path), "4913"))
	if _, err := os.Stat(path); err == nil {
		if err := os.Rename(path, path+"~"); err != nil {
			t.Fatal(err)
		}
	}
	testkit.WriteFile(t, path, content)
	os.Remove(path + "~")
}

// saveAtomically writes a temporary file and renames it over the target.
func saveAtomically(t testing.TB, path, content string) {
	t.Helper()
	tmp := path + ".tmp-" + time.Now().Format("150405.000")
	testkit.WriteFile(t, tmp, content)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

type loadStatus struct {
	Scenarios int
	Reloads   int
	Failed    bool
	Errors    []struct {
		File         string
		Line, Column int
		Message      string
	}
}

func status(t *testing.T, url string) loadStatus {
	t.Helper()
	resp, err := http.Get(url + "/_mock/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var s loadStatus
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestHotReloadFollowsRealEdits(t *testing.T) {
	t.Parallel()
	// In auto mode the safety poll is set far out, so only file-system events can work.
	for mode, poll := range map[string]string{"auto": "1h", "poll": "100ms"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			file := filepath.Join(dir, "alpha.yaml")
			testkit.WriteFile(t, file, scenarioFile("v0"))
			url := start(t, []string{"--addr", "127.0.0.1:0", "--no-builtin", "--scenarios", dir, "--watch", mode, "--poll-interval", poll}, nil)
			served := func(want string) func() bool { return func() bool { return ask(t, url, "alpha") == want } }
			testkit.Eventually(t, "v0 is served", served("served-v0"))

			saveLikeVim(t, file, scenarioFile("v1"))
			testkit.Eventually(t, "a vim-style save is served", served("served-v1"))

			testkit.WriteFile(t, file, scenarioFile("v2")) // in place
			testkit.Eventually(t, "an in-place write is served", served("served-v2"))

			saveAtomically(t, file, "match: {message: alpha}\nsteps:\n  - txt: broken\n")
			testkit.Eventually(t, "the broken file is reported", func() bool { return status(t, url).Failed })
			st := status(t, url)
			if len(st.Errors) == 0 || st.Errors[0].File != file || st.Errors[0].Line != 3 || st.Errors[0].Column != 5 || !strings.Contains(st.Errors[0].Message, `unknown key "txt"`) {
				t.Errorf("status %+v", st)
			}
			if got := ask(t, url, "alpha"); got != "served-v2" {
				t.Errorf("while the file is broken the last good set must serve, got %q", got)
			}

			saveAtomically(t, file, scenarioFile("v3"))
			testkit.Eventually(t, "the fixed file is served", served("served-v3"))
			if st := status(t, url); st.Failed || len(st.Errors) != 0 {
				t.Errorf("status after the fix %+v", st)
			}

			testkit.WriteFile(t, filepath.Join(dir, "nested", "deeper", "beta.yaml"), "match: {message: beta}\nsteps: [{text: served-beta}]\n")
			testkit.Eventually(t, "a file in a new subdirectory is served", func() bool { return ask(t, url, "beta") == "served-beta" })

			if err := os.Remove(file); err != nil {
				t.Fatal(err)
			}
			testkit.Eventually(t, "a deleted scenario is gone", served("404 Not Found"))

			if err := os.RemoveAll(filepath.Join(dir, "nested")); err != nil {
				t.Fatal(err)
			}
			testkit.Eventually(t, "a removed directory's scenarios are gone", func() bool { return ask(t, url, "beta") == "404 Not Found" })
		})
	}
}

func TestHotReloadFollowsKubernetesConfigMapSwaps(t *testing.T) {
	dir := t.TempDir()
	version := func(name, marker string) {
		testkit.WriteFile(t, filepath.Join(dir, name, "alpha.yaml"), scenarioFile(marker))
	}
	version("..2026_v1", "v1")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink("..2026_v1", filepath.Join(dir, "..data")))
	must(os.Symlink(filepath.Join("..data", "alpha.yaml"), filepath.Join(dir, "alpha.yaml")))
	url := start(t, []string{"--addr", "127.0.0.1:0", "--no-builtin", "--scenarios", dir, "--poll-interval", "1h"}, nil)
	if got := ask(t, url, "alpha"); got != "served-v1" {
		t.Fatalf("got %q: the scenario must load once, through the visible link", got)
	}
	// the kubelet's swap: a new version directory, a temporary link renamed over ..data
	version("..2026_v2", "v2")
	must(os.Symlink("..2026_v2", filepath.Join(dir, "..data_tmp")))
	must(os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")))
	must(os.RemoveAll(filepath.Join(dir, "..2026_v1")))
	testkit.Eventually(t, "the swapped ConfigMap is served", func() bool { return ask(t, url, "alpha") == "served-v2" })
}

func TestAStreamFinishesWithTheScenarioItStartedWith(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "slow.yaml")
	testkit.WriteFile(t, file, "match: {message: slow}\ntiming: {firstEvent: 0, firstToken: 0, jitter: 0}\nsteps:\n  - text: original-start\n  - pause: 600ms\n  - text: original-end\n")
	url := start(t, []string{"--addr", "127.0.0.1:0", "--no-builtin", "--scenarios", dir, "--poll-interval", "1h"}, nil)
	resp, err := http.Post(url+"/agui/chat", "application/json", strings.NewReader(`{"messages":[{"role":"user","content":"slow"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 256)
	if _, err := resp.Body.Read(buf); err != nil { // the stream has begun
		t.Fatal(err)
	}
	testkit.WriteFile(t, file, "match: {message: slow}\nsteps:\n  - text: edited\n")
	testkit.Eventually(t, "the edit is served", func() bool { return strings.Contains(ask(t, url, "slow"), "edited") })
	rest, _ := io.ReadAll(resp.Body)
	body := string(buf) + string(rest)
	if !strings.Contains(body, "original-end") || strings.Contains(body, "edited") {
		t.Errorf("the running stream changed with the edit:\n%s", body)
	}
}

func TestAnIDRepeatedAcrossDirectoriesIsRefusedAtStartAndOnReload(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	alpha := "id: shared\nmatch: {message: alpha}\nsteps: [{text: served-a}]\n"
	testkit.WriteFile(t, filepath.Join(a, "alpha.yaml"), alpha)
	clash := filepath.Join(b, "beta.yaml")
	testkit.WriteFile(t, clash, "id: shared\nmatch: {message: beta}\nsteps: [{text: served-b}]\n")
	want := clash + `:1:1: scenario id "shared" is already used by ` + filepath.Join(a, "alpha.yaml") + `:1:1 (hint: give one of them an explicit id)`

	var stderr strings.Builder
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second) // a server that starts serves until then
	defer cancel()
	code := run(ctx, []string{"--addr", "127.0.0.1:0", "--scenarios", a, "--scenarios", b}, env(nil), io.Discard, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), want) {
		t.Errorf("start: exit %d, stderr:\n%s\nwant exit 1 and %q", code, stderr.String(), want)
	}
	var out strings.Builder
	if code := run(t.Context(), []string{"validate", a, b}, env(nil), &out, io.Discard); code != 1 || !strings.Contains(out.String(), want) {
		t.Errorf("validate: exit %d, output:\n%s", code, out.String())
	}

	testkit.WriteFile(t, clash, "id: beta\nmatch: {message: beta}\nsteps: [{text: served-b}]\n")
	url := start(t, []string{"--addr", "127.0.0.1:0", "--scenarios", a, "--scenarios", b, "--watch", "poll", "--poll-interval", "100ms"}, nil)
	if got := ask(t, url, "beta"); got != "served-b" {
		t.Fatalf("got %q", got)
	}
	saveAtomically(t, clash, "id: shared\nmatch: {message: beta}\nsteps: [{text: served-b2}]\n")
	testkit.Eventually(t, "the repeated id is reported", func() bool { return status(t, url).Failed })
	st := status(t, url)
	if len(st.Errors) != 1 || st.Errors[0].File != clash || st.Errors[0].Line != 1 || !strings.Contains(st.Errors[0].Message, `scenario id "shared" is already used by `+filepath.Join(a, "alpha.yaml")) {
		t.Errorf("status %+v", st)
	}
	if got := ask(t, url, "beta"); got != "served-b" {
		t.Errorf("the last good set must keep serving, got %q", got)
	}
	if got := ask(t, url, "alpha"); got != "served-a" {
		t.Errorf("got %q", got)
	}
}

// mkfifo makes a named pipe. Opening one for reading waits for a writer, so when the
// test ends the pipe gets one: whatever still waits there returns, and the test fails.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
			t.Errorf("%s was opened for reading", path)
		}
	})
}

// within runs f and fails the test if f has not returned after 10 s, as when it waits on
// a named pipe made by mkfifo.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s still waits after 10 s", what)
	}
}

func TestANamedPipeIsRefusedAtStartAndOnReload(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "alpha.yaml"), scenarioFile("v1"))
	pipe := filepath.Join(dir, "pipe.yaml")
	mkfifo(t, pipe)
	want := pipe + ": a named pipe, not a regular file"
	var stderr strings.Builder
	code := -1
	within(t, "the start", func() {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second) // a server that starts serves until then
		defer cancel()
		code = run(ctx, []string{"--addr", "127.0.0.1:0", "--no-builtin", "--scenarios", dir}, env(nil), io.Discard, &stderr)
	})
	if code != 1 || !strings.Contains(stderr.String(), want) {
		t.Errorf("start: exit %d, stderr:\n%s\nwant exit 1 and %q", code, stderr.String(), want)
	}

	if err := os.Remove(pipe); err != nil {
		t.Fatal(err)
	}
	url := start(t, []string{"--addr", "127.0.0.1:0", "--no-builtin", "--scenarios", dir, "--watch", "off"}, nil)
	mkfifo(t, pipe) // made after start, so that a reload waiting on it is released before the server stops
	within(t, "the reload", func() {
		resp, err := http.Post(url+"/_mock/reload", "application/json", nil)
		if err != nil {
			t.Error(err)
			return
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("reload: %s", resp.Status)
		}
	})
	if st := status(t, url); !st.Failed || len(st.Errors) != 1 || st.Errors[0].File != pipe || st.Errors[0].Message != "a named pipe, not a regular file" {
		t.Errorf("status %+v", st)
	}
	if got := ask(t, url, "alpha"); got != "served-v1" {
		t.Errorf("the last good set must keep serving, got %q", got)
	}
}

func TestEmptyingAFileIsARejectedReload(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "alpha.yaml")
	testkit.WriteFile(t, file, scenarioFile("v1"))
	url := start(t, []string{"--addr", "127.0.0.1:0", "--no-builtin", "--scenarios", dir, "--watch", "poll", "--poll-interval", "100ms"}, nil)
	testkit.WriteFile(t, file, "")
	testkit.Eventually(t, "the empty file is reported", func() bool { return status(t, url).Failed })
	if st := status(t, url); len(st.Errors) != 1 || st.Errors[0].File != file || st.Errors[0].Message != "the file holds no scenario" || st.Scenarios != 1 {
		t.Errorf("status %+v", st)
	}
	if got := ask(t, url, "alpha"); got != "served-v1" {
		t.Errorf("the last good set must keep serving, got %q", got)
	}
	resp, err := http.Get(url + "/_mock/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("readyz after the rejected reload: %s", resp.Status)
	}
}

// endlessScenario is a scenario whose dry run goes on for an hour within the limits
// startUnbounded gives its templates.
const endlessScenario = "steps:\n  - text: '{{ range 1000000000000000000 }}{{ end }}'\n"

// startUnbounded builds and starts the real binary with args, its templates' limits
// an hour and every iteration (and env added), and returns it with a scanner of its
// log (stderr) and the log itself; the process is killed when the test ends.
func startUnbounded(t *testing.T, env []string, args ...string) (*exec.Cmd, *bufio.Scanner, io.Reader) {
	t.Helper()
	bin := testkit.Binary(t)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), "AGUI_MOCK_TEMPLATE_TIME=1h", "AGUI_MOCK_TEMPLATE_ITERATIONS=9223372036854775807"), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd, bufio.NewScanner(stderr), stderr
}

// awaitExit waits for the process to exit cleanly after SIGTERM. guard bounds the wait
// against a hang only: it is far past any timeout the test gives the process, which
// exits at once or within that timeout. detail is added to a failure's message.
func awaitExit(t *testing.T, cmd *exec.Cmd, guard time.Duration, detail string) {
	t.Helper()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v%s", err, detail)
		}
	case <-time.After(guard):
		t.Fatalf("the process still runs %v after SIGTERM%s", guard, detail)
	}
}

// TestSigtermStopsALoadThatWouldNotEnd starts the real binary on a scenario whose dry
// run would go on for an hour within the limits it is given: SIGTERM stops the load, and
// the process exits at once.
func TestSigtermStopsALoadThatWouldNotEnd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "loop.yaml"), endlessScenario)
	// AGUI_MOCK_STARTED sets no flag: the warning about it shows that the program runs,
	// its signal handler installed, and is about to load.
	cmd, lines, stderr := startUnbounded(t, []string{"AGUI_MOCK_STARTED=1"}, "--addr", "127.0.0.1:0", "--scenarios", dir)
	for lines.Scan() {
		if strings.Contains(lines.Text(), "AGUI_MOCK_STARTED") {
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	stopped := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	awaitExit(t, cmd, time.Minute, "") // the load would go on for an hour
	t.Logf("stopped in %v", time.Since(stopped).Round(time.Millisecond))
}

// TestSigtermStopsAReloadUnderWay starts the real binary on a good scenario, saves a
// file whose dry run would go on for an hour, and sends SIGTERM while the reload it
// starts runs: the reload stops and the process exits cleanly, within its shutdown
// timeout rather than after the reload.
func TestSigtermStopsAReloadUnderWay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "alpha.yaml"), scenarioFile("one"))
	cmd, lines, _ := startUnbounded(t, nil, "--addr", "127.0.0.1:0", "--scenarios", dir, "--log-level", "debug", "--shutdown-timeout", "2s")
	until := func(text string) {
		t.Helper()
		for lines.Scan() {
			if strings.Contains(lines.Text(), text) {
				return
			}
		}
		t.Fatalf("the log ended before %q", text)
	}
	until("msg=ready")
	testkit.WriteFile(t, filepath.Join(dir, "loop.yaml"), endlessScenario)
	until("reloading scenarios")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var rest strings.Builder
	for lines.Scan() {
		rest.WriteString(lines.Text() + "\n")
	}
	awaitExit(t, cmd, time.Minute, "\n"+rest.String()) // far past the 2 s shutdown timeout
	if !strings.Contains(rest.String(), "scenario reload stopped") {
		t.Errorf("the log does not say the reload stopped:\n%s", rest.String())
	}
}
