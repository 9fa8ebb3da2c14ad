package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agui-mock/agui-mock/internal/testkit"
	"github.com/agui-mock/agui-mock/scenarios"
)

// TestMain checks that no test leaves a goroutine behind, and deletes the binary the
// tests that run the real process share. The parallel tests wait on timers, sockets and
// processes, so more of them run at once than there are CPUs.
func TestMain(m *testing.M) {
	testkit.WaitersInParallel(8)
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		testkit.RemoveBinary()
		os.Exit(code)
	}))
}

func env(vars map[string]string) environ { return testkit.Env(vars) }

// start runs the program until the test ends and returns its base URL.
func start(t testing.TB, args []string, vars map[string]string) string {
	t.Helper()
	return startLogged(t, args, vars, io.Discard)
}

// startLogged is start with the program's log written to stderr.
func startLogged(t testing.TB, args []string, vars map[string]string, stderr io.Writer) string {
	t.Helper()
	return testkit.Start(t, Run, args, vars, stderr)
}

// postRun posts a run with one user message to route on the server at url, at speed 0,
// and returns the status and the stream.
func postRun(t testing.TB, url, route, message string) (int, string) {
	t.Helper()
	in, _ := json.Marshal(map[string]any{"messages": []any{map[string]any{"role": "user", "content": message}}})
	req, _ := http.NewRequest(http.MethodPost, url+route, bytes.NewReader(in))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Agui-Mock-Speed", "0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// say posts a run with one user message to /agui/chat and returns the stream.
func say(t *testing.T, url, message string) string {
	t.Helper()
	_, body := postRun(t, url, "/agui/chat", message)
	return body
}

func TestServesScenarioDirectoriesConfiguredFromTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.yaml"), []byte("match: {message: hello}\nsteps: [{text: from the directory}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	url := start(t, []string{"--addr", "127.0.0.1:0"}, map[string]string{"AGUI_MOCK_SCENARIOS": dir, "AGUI_MOCK_SPEED": "0", "AGUI_MOCK_NO_BUILTIN": "true"})
	if body := say(t, url, "hello"); !strings.Contains(body, `"delta":"directory"`) {
		t.Errorf("stream:\n%s", body)
	}
	resp, err := http.Post(url+"/agui/chat", "application/json", strings.NewReader(`{"messages":[{"role":"user","content":"bye"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("without the built-in catch-all a miss is a 404, got %d", resp.StatusCode)
	}
}

func TestStartingWithoutScenariosSaysItIsNotReady(t *testing.T) {
	var log syncBuffer
	url := startLogged(t, []string{"--addr", "127.0.0.1:0", "--no-builtin", "--scenarios", t.TempDir()}, nil, &log)
	resp, err := http.Get(url + "/_mock/readyz") // answered once serving, after the start-up log
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("readyz without scenarios: %d", resp.StatusCode)
	}
	got := log.String()
	if !strings.Contains(got, `level=WARN msg="not ready: no scenario is loaded; /_mock/readyz answers 503 until one is`) || strings.Contains(got, "msg=ready") {
		t.Errorf("the log does not say the server is not ready:\n%s", got)
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader on other goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func TestMisspeltEnvironmentVariablesAreWarnedOf(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ok.yaml")
	if err := os.WriteFile(file, []byte("steps: [{text: hi}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{
		"AGUI_MOCK_SPEEED":   "0", // a typo
		"AGUI_MOCK_FORMATT":  "json",
		"AGUI_MOCK_UNHEARD":  "x", // close to nothing
		"AGUI_MOCK_SPEED":    "0", // serve's, not validate's: one environment serves several commands
		"AGUI_MOCK_URL":      "http://127.0.0.1:8000/agui/chat",
		"AGUI_MOCK_UPSTREAM": "http://127.0.0.1:9000",
		"OTHER_SPEEED":       "0", // not ours
	}
	var stderr strings.Builder
	if code := run(t.Context(), []string{"validate", file}, env(vars), io.Discard, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	want := []string{
		"agui-mock: warning: AGUI_MOCK_FORMATT sets no flag of any command and is ignored (did you mean AGUI_MOCK_FORMAT?)",
		"agui-mock: warning: AGUI_MOCK_SPEEED sets no flag of any command and is ignored (did you mean AGUI_MOCK_SPEED?)",
		"agui-mock: warning: AGUI_MOCK_UNHEARD sets no flag of any command and is ignored",
	}
	if got := strings.Split(strings.TrimSpace(stderr.String()), "\n"); !slices.Equal(got, want) {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), strings.Join(want, "\n"))
	}
}

func TestStartupFailuresExplainThemselves(t *testing.T) {
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "broken.yaml"), []byte("steps:\n  - txt: hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		vars map[string]string
		code int
		want string
	}{
		{"bad flag value", []string{"--speed", "fast"}, nil, 2, `invalid value "fast" for flag -speed`},
		{"bad environment value", nil, map[string]string{"AGUI_MOCK_SEED": "x"}, 2, `AGUI_MOCK_SEED="x"`},
		{"negative speed", []string{"--speed", "-1"}, nil, 1, "-speed must be a finite number of 0 or more, got -1"},
		{"infinite speed", []string{"--speed", "Inf"}, nil, 1, "-speed must be a finite number of 0 or more, got +Inf"},
		{"speed not a number", nil, map[string]string{"AGUI_MOCK_SPEED": "NaN"}, 1, "-speed must be a finite number of 0 or more, got NaN"},
		{"unknown dialect", nil, map[string]string{"AGUI_MOCK_DIALECT": "langchain"}, 1, `-dialect must be agui or langgraph, got "langchain"`},
		{"missing directory", []string{"--scenarios", filepath.Join(bad, "nope")}, nil, 1, "no such file or directory"},
		{"invalid scenario", []string{"--scenarios", bad}, nil, 1, filepath.Join(bad, "broken.yaml") + `:2:5: unknown key "txt" in a step (hint: did you mean "text"?)`},
		{"stray argument", []string{"serve", "extra"}, nil, 2, `unexpected argument "extra"`},
		{"stray argument after a flag", []string{"load", "--runs", "1", "extra"}, nil, 2, `agui-mock load: unexpected argument "extra"`},
		{"unknown command", []string{"bogus"}, nil, 2, `unknown command "bogus"`},
		{"bad watch mode", []string{"--watch", "inotify"}, nil, 1, "-watch must be auto, poll or off"},
		{"bad log format", []string{"--log-format", "xml"}, nil, 1, "-log-format must be text or json"},
		{"port in use", []string{"--addr", "127.0.0.1:-1"}, nil, 1, "listen"},
	}
	tests = append(tests, badFlagValues(t)...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr strings.Builder
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			code := run(ctx, tt.args, env(tt.vars), io.Discard, &stderr)
			if code != tt.code || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, stderr.String(), tt.code, tt.want)
			}
		})
	}
}

// badFlagValues lists flag values that make no sense, each with the message that must
// name the flag, the value and what the flag takes.
func badFlagValues(t *testing.T) []struct {
	name string
	args []string
	vars map[string]string
	code int
	want string
} {
	file := filepath.Join(t.TempDir(), "some-file.yaml")
	if err := os.WriteFile(file, []byte("steps: [{text: hi}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const upstream = "http://127.0.0.1:9"
	return []struct {
		name string
		args []string
		vars map[string]string
		code int
		want string
	}{
		{"addr without a port", []string{"--addr", "localhost"}, nil, 1, `-addr must be host:port, e.g. 127.0.0.1:8000 or :8000, got "localhost"`},
		{"fixed-time not RFC 3339", []string{"--fixed-time", "yesterday"}, nil, 1, `-fixed-time must be an RFC 3339 time from 1970 on, such as 2026-01-01T09:00:00Z, got "yesterday"`},
		{"fixed-time without a zone", nil, map[string]string{"AGUI_MOCK_FIXED_TIME": "2026-01-01T09:00:00"}, 1, `-fixed-time must be an RFC 3339 time from 1970 on, such as 2026-01-01T09:00:00Z, got "2026-01-01T09:00:00"`},
		{"fixed-time before 1970", []string{"--fixed-time", "1969-12-31T23:59:59Z"}, nil, 1, `-fixed-time must be an RFC 3339 time from 1970 on, such as 2026-01-01T09:00:00Z, got "1969-12-31T23:59:59Z"`},
		{"zero max-body", []string{"--max-body", "0"}, nil, 1, "-max-body must be a positive number of bytes, got 0"},
		{"negative max-body", []string{"--max-body", "-1"}, nil, 1, "-max-body must be a positive number of bytes, got -1"},
		{"negative keepalive", []string{"--keepalive", "-1s"}, nil, 1, "-keepalive must be 0 (off) or more, got -1s"},
		{"negative shutdown-timeout", []string{"--shutdown-timeout", "-1s"}, nil, 1, "-shutdown-timeout must be 0 or more, got -1s"},
		{"negative journal-size", []string{"--journal-size", "-1"}, nil, 1, "-journal-size must be 1 or more, got -1"},
		{"negative journal-events", []string{"--journal-events", "-1"}, nil, 1, "-journal-events must be 0 or more, got -1"},
		{"zero max-threads", []string{"--max-threads", "0"}, nil, 1, "-max-threads must be 1 or more, got 0"},
		{"relative copilotkit path", []string{"--copilotkit-path", "copilotkit"}, nil, 1, `-copilotkit-path must be a path such as /copilotkit or /api/copilotkit, outside /_mock, or off, got "copilotkit"`},
		{"copilotkit path in the admin API", []string{"--copilotkit-path", "/_mock/copilotkit"}, nil, 1, `-copilotkit-path must be a path such as /copilotkit or /api/copilotkit, outside /_mock, or off, got "/_mock/copilotkit"`},
		{"copilotkit path of the run route", []string{"--copilotkit-path", "/agui/chat"}, nil, 1, `-copilotkit-path must be a path such as /copilotkit or /api/copilotkit, outside /_mock, or off, got "/agui/chat"`},
		{"zero thread-ttl", []string{"--thread-ttl", "0s"}, nil, 1, "-thread-ttl must be positive, got 0s"},
		{"zero poll-interval", []string{"--poll-interval", "0s"}, nil, 1, "-poll-interval must be positive, got 0s"},
		{"negative max-messages", []string{"--max-messages", "-1"}, nil, 1, "-max-messages must be 0 (no limit) or more, got -1"},
		{"negative max-streams", []string{"--max-streams", "-5"}, nil, 1, "-max-streams must be 0 (no limit) or more, got -5"},
		{"max-streams not a number", []string{"--max-streams", "many"}, nil, 2, `invalid value "many" for flag -max-streams: parse error`},
		{"max-streams from the environment past an int", nil, map[string]string{"AGUI_MOCK_MAX_STREAMS": "99999999999999999999"}, 2, `AGUI_MOCK_MAX_STREAMS="99999999999999999999": value out of range`},
		{"negative max-starting", []string{"--max-starting", "-1"}, nil, 1, "-max-starting must be 0 (no limit) or more, got -1"},
		{"zero record-max-bytes", []string{"--record-max-bytes", "0"}, nil, 1, "-record-max-bytes must be a positive number of bytes, got 0"},
		{"not an origin", []string{"--cors-origins", "not an origin"}, nil, 1, `-cors-origins must be "none" alone, "*", or origins such as http://localhost:3000`},
		{"an origin with a path", []string{"--cors-origins", "http://localhost:3000/"}, nil, 1, `got "http://localhost:3000/"`},
		{"none with an origin", nil, map[string]string{"AGUI_MOCK_CORS_ORIGINS": "none,http://localhost:3000"}, 1, `-cors-origins must be "none" alone`},
		{"empty scenarios", []string{"--scenarios", ""}, nil, 2, `invalid value "" for flag -scenarios: empty`},
		{"empty scenarios from the environment", nil, map[string]string{"AGUI_MOCK_SCENARIOS": " , "}, 2, `AGUI_MOCK_SCENARIOS=" , ": empty`},
		{"bad redact pattern in serve", []string{"serve", "--redact", "("}, nil, 1, `-redact must be a regular expression (Go RE2 syntax), got "(": missing closing )`},
		{"record dir that is a file", []string{"record", "--upstream", upstream, "--record-dir", file}, nil, 1, `-record-dir must be a directory, or a path where one can be created, got "` + file + `"`},
		{"record dir that is a file, record-missing", []string{"--record-missing", "--upstream", upstream, "--record-dir", file}, nil, 1, "-record-dir must be a directory"},
		{"upstream not an http URL", []string{"record", "--upstream", "localhost:9000"}, nil, 1, `-upstream must be the agent's base URL, http:// or https://, got "localhost:9000"`},
		{"load: url not an http URL", []string{"load", "--url", "127.0.0.1:8000/agui/chat"}, nil, 2, `agui-mock load: -url must be an http:// or https:// URL of a run endpoint, got "127.0.0.1:8000/agui/chat"`},
		{"load: zero runs", []string{"load", "--runs", "0"}, nil, 2, "agui-mock load: -runs must be 1 or more, got 0"},
		{"load: negative expect-gap", []string{"load", "--expect-gap", "-1ms"}, nil, 2, "-expect-gap must be 0 or more, got -1ms"},
		{"load: negative pid", []string{"load", "--pid", "-1"}, nil, 2, "-pid must be a process id, or 0 for none, got -1"},
		{"load: zero timeout", []string{"load", "--run-timeout", "0s"}, nil, 2, "-run-timeout must be positive, got 0s"},
		{"load-floor: negative gap", []string{"load-floor", "--gap", "-1s"}, nil, 2, "agui-mock load-floor: -gap must be 0 or more, got -1s"},
		{"load-floor: addr without a port", []string{"load-floor", "--addr", "nowhere"}, nil, 2, `-addr must be host:port, e.g. 127.0.0.1:8001 or :8001, got "nowhere"`},
		{"healthcheck: zero timeout", []string{"healthcheck", "--timeout", "0s"}, nil, 1, "agui-mock healthcheck: -timeout must be positive, got 0s"},
		{"healthcheck: unknown flag", []string{"healthcheck", "--bogus"}, nil, 1, "flag provided but not defined: -bogus"},
		{"addr from the environment without a port", nil, map[string]string{"AGUI_MOCK_ADDR": "localhost"}, 1, `-addr must be host:port`},
		{"empty admin token", []string{"--admin-token", ""}, nil, 2, `invalid value "" for flag -admin-token: empty: give a token, or leave the flag unset`},
		{"empty auth token from the environment", nil, map[string]string{"AGUI_MOCK_AUTH_TOKEN": " "}, 2, `AGUI_MOCK_AUTH_TOKEN=" ": empty: give a token`},
		{"healthcheck: empty admin token", []string{"healthcheck"}, map[string]string{"AGUI_MOCK_ADMIN_TOKEN": ""}, 1, `AGUI_MOCK_ADMIN_TOKEN="": empty`},
		{"allowed host with a scheme", []string{"--allowed-hosts", "http://mock.test"}, nil, 1,
			`-allowed-hosts must be host names such as mock.example.com or patterns such as *.svc.cluster.local (no scheme, port or path), or * for any, got "http://mock.test"`},
		{"allowed host with a port", nil, map[string]string{"AGUI_MOCK_ALLOWED_HOSTS": "mock.test,mock.test:8000"}, 1, `-allowed-hosts must be host names such as mock.example.com`},
		{"allowed host with a path", []string{"--allowed-hosts", "mock.test/x"}, nil, 1, `got "mock.test/x"`},
		{"empty allowed hosts", []string{"--allowed-hosts", ""}, nil, 2, `invalid value "" for flag -allowed-hosts: empty`},
		{"healthcheck: addr without a port", []string{"healthcheck", "--addr", "nope"}, nil, 1, `agui-mock healthcheck: -addr must be host:port, e.g. 127.0.0.1:8000 or :8000, got "nope"`},
		{"validate: bad format", []string{"validate", "--format", "xml", "x.yaml"}, nil, 2, `agui-mock validate: -format must be text or json, got "xml"`},
		{"zero template-iterations", []string{"--template-iterations", "0"}, nil, 1, "-template-iterations must be 1 or more, got 0"},
		{"zero template-time", nil, map[string]string{"AGUI_MOCK_TEMPLATE_TIME": "0s"}, 1, "-template-time must be positive, got 0s"},
		{"record: negative template-time", []string{"record", "--upstream", upstream, "--template-time", "-1s"}, nil, 1, "-template-time must be positive, got -1s"},
		{"validate: zero template-iterations", []string{"validate", "--template-iterations", "0", "x.yaml"}, nil, 2, "agui-mock validate: -template-iterations must be 1 or more, got 0"},
		{"verify: no upstream", []string{"verify", file}, nil, 2, `agui-mock verify: -upstream must be the http:// or https:// URL of the agent's run endpoint, got ""`},
		{"verify: zero concurrency", []string{"verify", "--upstream", upstream, "--concurrency", "0", file}, nil, 2, "agui-mock verify: -concurrency must be 1 or more, got 0"},
		{"verify: timing neither a duration nor a share", []string{"verify", "--upstream", upstream, "--timing", "soon", file}, nil, 2,
			`agui-mock verify: -timing must be a duration such as 250ms or a percentage such as 50%, got "soon"`},
		{"verify: a header without a colon, not shown", []string{"verify", "--upstream", upstream, "--header", "Bearer s3cret", file}, nil, 2,
			"agui-mock verify: -header number 1 must be Name: value (its value is not shown, as it may be a secret)"},
	}
}

func TestAFixedTimeFromTheFlagOrTheEnvironmentStampsEvents(t *testing.T) {
	const body = `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"showcase"}]}`
	threads := 0
	respond := func(url string) string {
		t.Helper()
		threads++
		req, _ := http.NewRequest(http.MethodPost, url+"/agui/chat", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Agui-Mock-Speed", "0")
		req.Header.Set("X-Test-Id", fmt.Sprint("fixed-time-", threads)) // thread t is new each time
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return string(out)
	}
	fromFlag := respond(start(t, []string{"--addr", "127.0.0.1:0", "--seed", "7", "--fixed-time", "2026-01-01T10:00:00+01:00"}, nil))
	// RUN_STARTED is due 50 ms into the run
	if want := "id: RUN_STARTED_1767258000050\ndata: {\"type\":\"RUN_STARTED\",\"timestamp\":1767258000050,"; !strings.HasPrefix(fromFlag, want) {
		t.Errorf("with --fixed-time the stream begins\n%.200s\nwant\n%s", fromFlag, want)
	}
	url := start(t, []string{"--addr", "127.0.0.1:0"}, map[string]string{"AGUI_MOCK_SEED": "7", "AGUI_MOCK_FIXED_TIME": "2026-01-01T09:00:00Z"})
	if fromEnv := respond(url); fromEnv != fromFlag {
		t.Errorf("AGUI_MOCK_FIXED_TIME and the same seed:\n%s\nwant, byte for byte, what --fixed-time gave:\n%s", fromEnv, fromFlag)
	}
	if again := respond(url); again != fromFlag {
		t.Errorf("the same request again, on a thread of its own:\n%s\nwant, byte for byte:\n%s", again, fromFlag)
	}
}

func TestListFlagsSplitOnCommasOnlyInTheEnvironment(t *testing.T) {
	parse := func(args []string, vars map[string]string) ([]string, int) {
		fs := newFlagSet("test", io.Discard)
		var list listFlag
		fs.Var(&list, "redact", "")
		_, code := parseFlags(fs, args, false, env(vars).lookup, io.Discard)
		return list, code
	}
	if got, code := parse([]string{"--redact", "x{1,3}", "--redact", "Accept: a, b"}, nil); code != -1 || !slices.Equal(got, []string{"x{1,3}", "Accept: a, b"}) {
		t.Errorf("command line: %q (code %d)", got, code)
	}
	if got, code := parse(nil, map[string]string{"AGUI_MOCK_REDACT": "a, b,,c "}); code != -1 || !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("environment: %q (code %d)", got, code)
	}
	if _, code := parse(nil, map[string]string{"AGUI_MOCK_REDACT": " , "}); code != 2 {
		t.Errorf("an empty list in the environment: code %d", code)
	}
}

func TestHelpListsEveryCommand(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"help"}} {
		var stdout, stderr strings.Builder
		if code := run(t.Context(), args, env(nil), &stdout, &stderr); code != 0 {
			t.Fatalf("%q: exit %d", args, code)
		}
		help := stdout.String() + stderr.String()
		for _, cmd := range []string{"[serve]", "record", "validate", "healthcheck", "load", "load-floor", "init", "version"} {
			if !strings.Contains(help, "agui-mock "+cmd+" ") {
				t.Errorf("%q: the help does not list %q:\n%s", args, cmd, help)
			}
		}
		if strings.Contains(help, "-sse-ids id") {
			t.Errorf("%q: a flag's usage names a value it does not take:\n%s", args, help)
		}
	}
}

// TestHelpListsCommandsBeforeFlags keeps the commands where a first reader of --help
// sees them: before serve's long list of flags, not after it.
func TestHelpListsCommandsBeforeFlags(t *testing.T) {
	var stdout, stderr strings.Builder
	if code := run(t.Context(), []string{"--help"}, env(nil), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d", code)
	}
	help := stdout.String() + stderr.String()
	commands, flags := strings.Index(help, "agui-mock init "), strings.Index(help, "  -addr ")
	if commands < 0 || flags < 0 || commands > flags {
		t.Errorf("the commands (at %d) do not come before the flags (at %d):\n%s", commands, flags, help)
	}
}

func TestTheFirstLoadHoldsTheCollectorBackAndRestoresIt(t *testing.T) {
	for _, c := range []struct{ before, during int }{{100, 400}, {800, 800}, {-1, -1}} {
		debug.SetGCPercent(c.before)
		var during int
		_, err := loadAtStart(func() (*scenarios.Set, error) {
			during = debug.SetGCPercent(c.before) // reading it means setting it: put it back
			debug.SetGCPercent(during)
			return scenarios.Load(scenarios.Builtin())
		})
		if err != nil {
			t.Fatal(err)
		}
		if after := debug.SetGCPercent(100); during != c.during || after != c.before {
			t.Errorf("GOGC %d: %d during the load, %d after it; want %d, then %d", c.before, during, after, c.during, c.before)
		}
	}
}

// The built-in catch-all gives way to the user's scenarios: one that answers its
// example's message, or every message, starts the server and takes those requests.
func TestUserScenariosOverrideTheCatchAllAtStart(t *testing.T) {
	for name, yaml := range map[string]string{
		"a greeting":      "id: greet\nmatch:\n  message: (?i)hello\nsteps: [{text: from greet}]\n",
		"no match at all": "id: greet\nsteps: [{text: from greet}]\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "g.yaml"), []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			url := start(t, []string{"--addr", "127.0.0.1:0", "--speed", "0", "--scenarios", dir}, nil)
			if body := say(t, url, "Hello there"); !strings.Contains(body, `"delta":"greet"`) {
				t.Errorf("the user's scenario did not answer:\n%s", body)
			}
		})
	}
}

// get sends a GET with a Host and an Authorization header (when not empty) and returns the
// status.
func get(t *testing.T, url, host, auth string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Host = host
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestTheAdminTokenAndTheAllowedHostsComeFromFlagsOrTheEnvironment(t *testing.T) {
	for name, c := range map[string]struct {
		args []string
		vars map[string]string
	}{
		"flags":       {[]string{"--admin-token", "adm1n", "--auth-token", "s3cret", "--allowed-hosts", "mock.test", "--allowed-hosts", "*.svc.test"}, nil},
		"environment": {nil, map[string]string{"AGUI_MOCK_ADMIN_TOKEN": "adm1n", "AGUI_MOCK_AUTH_TOKEN": "s3cret", "AGUI_MOCK_ALLOWED_HOSTS": "mock.test,*.svc.test"}},
	} {
		t.Run(name, func(t *testing.T) {
			var log syncBuffer
			url := startLogged(t, append([]string{"--addr", "127.0.0.1:0"}, c.args...), c.vars, &log)
			for _, tt := range []struct {
				host, auth string
				want       int
			}{
				{"", "", 401},
				{"", "Bearer s3cret", 401},
				{"", "Bearer adm1n", 200},
				{"mock.test:8000", "Bearer adm1n", 200},
				{"agui-mock.svc.test", "Bearer adm1n", 200},
				{"other.test", "Bearer adm1n", 403},
			} {
				if got := get(t, url+"/_mock/healthz", tt.host, tt.auth); got != tt.want {
					t.Errorf("Host %q, Authorization %q: %d, want %d", tt.host, tt.auth, got, tt.want)
				}
			}
			if got := log.String(); !strings.Contains(got, `admin="token of -admin-token"`) || strings.Contains(got, "adm1n") || strings.Contains(got, "s3cret") {
				t.Errorf("the log does not say the admin API is guarded, or shows a token:\n%s", got)
			}
		})
	}
}

func TestTheHealthcheckSendsTheAdminTokenAsTheServerResolvesIt(t *testing.T) {
	tests := []struct {
		name       string
		serverVars map[string]string
		checkVars  map[string]string
		code       int
		stderr     string
	}{
		{"no token", nil, nil, 0, ""},
		{"the admin token", map[string]string{"AGUI_MOCK_ADMIN_TOKEN": "adm1n"}, map[string]string{"AGUI_MOCK_ADMIN_TOKEN": "adm1n"}, 0, ""},
		{"the AG-UI token standing for it", map[string]string{"AGUI_MOCK_AUTH_TOKEN": "s3cret"}, map[string]string{"AGUI_MOCK_AUTH_TOKEN": "s3cret"}, 0, ""},
		{"the admin token before the AG-UI one", map[string]string{"AGUI_MOCK_ADMIN_TOKEN": "adm1n", "AGUI_MOCK_AUTH_TOKEN": "s3cret"},
			map[string]string{"AGUI_MOCK_ADMIN_TOKEN": "adm1n", "AGUI_MOCK_AUTH_TOKEN": "s3cret"}, 0, ""},
		{"the AG-UI token where the admin one is wanted", map[string]string{"AGUI_MOCK_ADMIN_TOKEN": "adm1n", "AGUI_MOCK_AUTH_TOKEN": "s3cret"},
			map[string]string{"AGUI_MOCK_AUTH_TOKEN": "s3cret"}, 1, "401 Unauthorized (give the server's admin token: -admin-token or AGUI_MOCK_ADMIN_TOKEN"},
		{"no token where one is wanted", map[string]string{"AGUI_MOCK_ADMIN_TOKEN": "adm1n"}, nil, 1, "401 Unauthorized"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := start(t, []string{"--addr", "127.0.0.1:0"}, tt.serverVars)
			var stdout, stderr strings.Builder
			code := run(t.Context(), []string{"healthcheck", "--addr", strings.TrimPrefix(url, "http://")}, env(tt.checkVars), &stdout, &stderr)
			if code != tt.code || !strings.Contains(stderr.String(), tt.stderr) || strings.Contains(stderr.String(), "adm1n") {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, stdout.String(), stderr.String(), tt.code, tt.stderr)
			}
		})
	}
}
