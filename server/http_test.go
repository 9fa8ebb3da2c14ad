package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/labstack/echo/v4"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agui-mock/agui-mock/internal/spectest"
	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// startHTTP serves s on a real socket for the test's duration.
func startHTTP(t testing.TB, s *Server) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return ts
}

func TestNoMatchNamesTheNearestScenarios(t *testing.T) {
	s := newServer(t, "id: greet\nmatch: {message: ^hello$, forwardedProps: {scenario_name: demo}}\nsteps: [{text: hi}]\n", nil)
	ts := startHTTP(t, s)
	resp, err := http.Post(ts.URL+"/agui/chat", "application/json", strings.NewReader(`{"messages":[{"role":"user","content":"hello"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Error   string
		Details struct {
			Candidates []struct {
				ID      string
				Reasons []string
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 404 || body.Error != "no_scenario" || len(body.Details.Candidates) != 1 ||
		body.Details.Candidates[0].ID != "greet" || body.Details.Candidates[0].Reasons[0] != `forwardedProps.scenario_name is absent, not "demo"` {
		t.Errorf("got %d %+v", resp.StatusCode, body)
	}
}

// runHTTP posts a run at speed 0 and decodes its events.
func runHTTP(t *testing.T, url, body string) []protocol.Event {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(SpeedHeader, "0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	events, err := protocol.ReadEvents(resp.Body, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// exampleRun is the route and body of a run that sends a scenario's example on thread,
// as a client of the given protocol version sends it ("": a 0.0.x client, which sends none).
func exampleRun(ex scenarios.Example, thread, version string) (route, body string) {
	in := ex.RunInput(scenarios.RunIDs{Thread: thread, Run: "run-1", Message: "u1", ProtocolVersion: version})
	b, _ := json.Marshal(in)
	return ex.RunRoute(), string(b)
}

// TestBuiltinStreamsConformToTheSpec plays every example of every built-in scenario,
// for a 1.1 client and for a 0.0.x client, and checks each stream against the event
// rules and each 1.1 event against the official JSON Schema.
func TestBuiltinStreamsConformToTheSpec(t *testing.T) {
	schema := spectest.EventSchema(t)
	s := newServer(t, "", nil)
	ts := startHTTP(t, s)
	for _, sc := range s.Scenarios().Scenarios() {
		for i, ex := range sc.Examples {
			for _, version := range []string{"1.1", "1.0", ""} {
				thread := fmt.Sprintf("thread-%s-%d-%s", sc.ID, i, version)
				route, body := exampleRun(ex, thread, version)
				events := runHTTP(t, ts.URL+route, body)
				name := sc.ID + "/example " + string(rune('0'+i)) + "/client " + version
				if _, err := protocol.CheckStream(events, thread); err != nil {
					t.Errorf("%s: %v", name, err)
				}
				if events[0].Str("runId") != "run-1" {
					t.Errorf("%s: RUN_STARTED %+v", name, events[0])
				}
				_, declared := events[0].Get("protocolVersion")
				if declared != (version != "") {
					t.Errorf("%s: protocolVersion declared %v for client %q", name, declared, version)
				}
				if version != "1.1" {
					continue
				}
				for j, ev := range events {
					raw, _ := json.Marshal(ev)
					doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
					if err := schema.Validate(doc); err != nil {
						t.Errorf("%s: event %d %s fails the 1.1 schema: %v", name, j, raw, err)
					}
				}
			}
		}
	}
}

func TestEventIDLinesCanBeSwitchedOff(t *testing.T) {
	for _, withIDs := range []bool{true, false} {
		s := newServer(t, "", func(c *Config) { c.EventIDs = withIDs; c.Speed = 0 })
		rec := post(t.Context(), s, "/agui/chat", `{"messages":[{"role":"user","content":"hi"}]}`, nil)
		if got := strings.Contains(rec.body(), "\nid: ") || strings.HasPrefix(rec.body(), "id: "); got != withIDs {
			t.Errorf("EventIDs %v: id lines present %v", withIDs, got)
		}
		if strings.Contains(rec.body(), "\r") {
			t.Error("CR in the stream: framing must be LF only")
		}
	}
}

func TestRunsCarryARequestID(t *testing.T) {
	s := newServer(t, "", func(c *Config) { c.Speed = 0 })
	body := `{"messages":[{"role":"user","content":"hi"}]}`
	first := post(t.Context(), s, "/agui/chat", body, nil).Header().Get(echo.HeaderXRequestID)
	second := post(t.Context(), s, "/agui/chat", body, nil).Header().Get(echo.HeaderXRequestID)
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(first) || first == second {
		t.Errorf("request ids %q and %q: want two different sets of 32 hex digits", first, second)
	}
	// a caller's own id is kept, so that it can follow its request through the logs
	if got := post(t.Context(), s, "/agui/chat", body, map[string]string{echo.HeaderXRequestID: "e2e-42"}).Header().Get(echo.HeaderXRequestID); got != "e2e-42" {
		t.Errorf("the caller's request id came back as %q", got)
	}
}

// TestALargeBodyEndsInABufferOfItsSize: a body announced larger than what is trusted up
// front grows by doubling, and ends in a buffer of its announced size, not twice it.
func TestALargeBodyEndsInABufferOfItsSize(t *testing.T) {
	body := strings.Repeat("x", 3<<20+12345)
	got, err := readAll(iotest.HalfReader(strings.NewReader(body)), 64<<10, int64(len(body)))
	if err != nil || string(got) != body {
		t.Fatalf("%d bytes, %v", len(got), err)
	}
	if cap(got) != len(body)+1 {
		t.Errorf("a body of %d bytes ends in a buffer of %d", len(body), cap(got))
	}
}

func TestReadAllReadsWhatIsSentWhateverTheAnnouncedLength(t *testing.T) {
	body := strings.Repeat("0123456789", 100)
	for _, size := range []int64{-1, 0, 10, 999, 1000, 1001, 5000} {
		got, err := readAll(strings.NewReader(body), size, size)
		if err != nil || string(got) != body {
			t.Errorf("announced %d: %d bytes, %v", size, len(got), err)
		}
		if size == int64(len(body)) && cap(got) != len(body)+1 {
			t.Errorf("the announced length, when right, is read into one allocation of it: cap %d", cap(got))
		}
	}
	failing := io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(errors.New("boom")))
	if got, err := readAll(failing, 3, 3); string(got) != "abc" || err == nil || err.Error() != "boom" {
		t.Errorf("a failing read: %q, %v", got, err)
	}
}

func TestTheReadmeListsEveryErrorCode(t *testing.T) {
	doc, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(doc), "Errors are JSON")
	table, _, _ = strings.Cut(table, "\n## ")
	codes := regexp.MustCompile(`(?:apiError\([^,]+,|Error:|Code:)\s*"([a-z_]+)"`)
	for _, pattern := range []string{"*.go", "../recorder/*.go", "../scenarios/*.go"} {
		files, err := filepath.Glob(pattern)
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v", pattern, err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range codes.FindAllSubmatch(src, -1) {
				if !strings.Contains(table, "`"+string(m[1])+"`") {
					t.Errorf("%s answers error %q, which the README's error table does not list", file, m[1])
				}
			}
		}
	}
}

func TestEveryRouteAnswersAWrongMethodWith405(t *testing.T) {
	s := newServer(t, "", func(c *Config) { c.Metrics = true })
	ts := startHTTP(t, s)
	// what each path takes, as registered: the router's routes and the run routes
	takes := map[string][]string{}
	for _, r := range s.echo.Routes() {
		if r.Path != catchAll {
			takes[r.Path] = append(takes[r.Path], r.Method)
		}
	}
	for _, route := range s.set.Load().Routes() {
		takes[route] = append(takes[route], http.MethodPost)
	}
	if len(takes) < 15 {
		t.Fatalf("only %d paths found: %v", len(takes), takes)
	}
	param := regexp.MustCompile(`:[a-z]+`)
	for pattern, allow := range takes {
		slices.Sort(allow)
		path := param.ReplaceAllString(pattern, "x")
		for _, method := range []string{"GET", "POST", "PUT", "PATCH", "DELETE", "BREW"} {
			if slices.Contains(allow, method) {
				continue
			}
			t.Run(method+" "+pattern, func(t *testing.T) {
				req, _ := http.NewRequest(method, ts.URL+path, nil)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var answer struct {
					errorBody
					Details struct{ Allow []string } `json:"details"`
				}
				if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
					t.Fatal(err)
				}
				if resp.StatusCode != 405 || resp.Header.Get("Allow") != strings.Join(allow, ", ") || answer.Error != "method_not_allowed" ||
					!strings.Contains(answer.Message, strings.Join(allow, " or ")) || !slices.Equal(answer.Details.Allow, allow) {
					t.Errorf("got %d, Allow %q, %+v; want 405 allowing %v", resp.StatusCode, resp.Header.Get("Allow"), answer, allow)
				}
			})
		}
	}
	for _, method := range []string{"GET", "POST", "BREW"} {
		req, _ := http.NewRequest(method, ts.URL+AdminPrefix+"/nope", strings.NewReader("{}"))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 || resp.Header.Get("Allow") != "" {
			t.Errorf("%s on an unknown path: %d, Allow %q", method, resp.StatusCode, resp.Header.Get("Allow"))
		}
	}
}
