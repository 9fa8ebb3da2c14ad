package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/internal/testkit"
	"github.com/agui-mock/agui-mock/loadtest"
)

// load runs the load command and returns its exit code, output and errors.
func load(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"load"}, args...), env(nil), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestLoadCommandMeasuresAgainstAnyEndpoint(t *testing.T) {
	t.Parallel()
	floor := start(t, []string{"load-floor", "--addr", "127.0.0.1:0", "--events", "6"}, nil)
	oneWrite := start(t, []string{"load-floor", "--addr", "127.0.0.1:0", "--events", "7", "--one-write"}, nil)
	mock := start(t, []string{"--addr", "127.0.0.1:0", "--no-builtin", "--scenarios", "../../bench/scenarios", "--watch", "off"}, nil)
	for _, tt := range []struct {
		url, message, transport string
		events                  int
	}{
		{floor + "/", "anything", "sse", 6},
		{oneWrite + "/", "anything", "sse", 7},
		{mock + "/agui/chat", "short", "sse", 5},
		{mock + "/agui/chat", "short", "proto", 5},
	} {
		code, out, errs := load(t, "--url", tt.url, "--message", tt.message, "--transport", tt.transport, "--runs", "8", "--concurrency", "3", "--format", "json", "--header", "X-Test-Id: load")
		var res loadtest.Result
		if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 {
			t.Fatalf("%s: exit %d, %v\n%s%s", tt.url, code, err, out, errs)
		}
		if res.Runs != 8 || res.Failed != 0 || res.Events != 8*tt.events || res.FirstEvent.Count != 8 {
			t.Errorf("%s over %s: %+v", tt.url, tt.transport, res)
		}
	}
	// the floor speaks SSE only: a load that asks it for protobuf fails every run
	code, out, _ := load(t, "--url", floor+"/", "--transport", "proto", "--runs", "2")
	if code != 1 || !strings.Contains(out, "2 runs (2 failed)") || !strings.Contains(out, `failure: the answer's Content-Type is "text/event-stream": not the transport asked for`) {
		t.Errorf("protobuf from an SSE server, exit %d:\n%s", code, out)
	}
	code, out, _ = load(t, "--url", mock+"/agui/chat", "--message", "gap", "--runs", "2", "--expect-gap", "50ms")
	if code != 0 || !strings.Contains(out, "2 runs (0 failed)") || !strings.Contains(out, "gap error") || !strings.Contains(out, "run drift") ||
		!strings.Contains(out, "gap error p99 by gap: 1:") || !strings.Contains(out, " 19:") || strings.Contains(out, " 20:") {
		t.Errorf("text report, exit %d:\n%s", code, out)
	}
	code, out, _ = load(t, "--url", mock+"/agui/chat", "--message", "nothing matches this", "--runs", "2")
	if code != 1 || !strings.Contains(out, "2 runs (2 failed)") || !strings.Contains(out, "failure: HTTP 404") {
		t.Errorf("failed runs, exit %d:\n%s", code, out)
	}
}

// -example posts a scenario's example as verify sends it: on its route, with its
// headers, and with the tools and context it offers, which the scenario here requires.
func TestLoadCommandPostsAScenariosExample(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "booking.yaml")
	testkit.WriteFile(t, file, `id: other
match: {message: ^other$}
examples: [{message: other}]
steps: [{text: other}]
---
id: booking
match: {route: /tenant/agent, tools: [confirm], headers: {X-Tenant: ^acme$}, message: ^book}
examples:
  - route: /tenant/agent
    message: book a table
    headers: {X-Tenant: acme}
    tools: [{name: confirm, description: Ask the user, parameters: {type: object, properties: {question: {type: string}}}}]
    context: [{description: locale, value: de-DE}]
steps: [{text: 'Booked ({{ (index .context 0).value }}).'}]
`)
	mock := start(t, []string{"--addr", "127.0.0.1:0", "--no-builtin", "--scenarios", dir, "--watch", "off", "--speed", "0"}, nil)
	code, out, errs := load(t, "--url", mock+"/agui/chat", "--example", file+"#booking", "--runs", "4", "--concurrency", "2", "--format", "json")
	var res loadtest.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || res.Runs != 4 || res.Failed != 0 {
		t.Fatalf("exit %d, %v: %+v\n%s%s", code, err, res, out, errs)
	}
	for spec, want := range map[string]string{
		file + "#nope":                  `has no scenario "nope"`,
		filepath.Join(dir, "none.yaml"): "no such file",
	} {
		if code, _, errs := load(t, "--url", mock+"/agui/chat", "--example", spec, "--runs", "1"); code != 2 || !strings.Contains(errs, want) {
			t.Errorf("-example %s: exit %d, %q; want %q", spec, code, errs, want)
		}
	}
}

func TestLoadCommandRejectsBadFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"load", "--header", "no colon"}, 2, `-header number 1 must be Name: value`},
		{[]string{"load", "--format", "xml"}, 2, `-format must be text or json, got "xml"`},
		{[]string{"load", "--transport", "grpc"}, 2, `-transport must be sse or proto, got "grpc"`},
		{[]string{"load", "--ramp", "-1s"}, 2, "-ramp must be 0 or more, got -1s"},
		{[]string{"load", "--concurrency", "0"}, 2, "-concurrency must be 1 or more, got 0"},
		{[]string{"load", "--runs", "many"}, 2, `invalid value "many"`},
		{[]string{"load-floor", "--events", "3"}, 2, "a run needs at least 4 events, got 3"},
		{[]string{"load-floor", "--one-write", "--gap", "1s"}, 2, "-gap must be 0 with -one-write, which writes the run at once, got 1s"},
		{[]string{"load", "--url", "http://127.0.0.1:1/", "--pid", "999999999"}, 1, "reading the CPU time of process 999999999"},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), tt.args, env(nil), &bytes.Buffer{}, &stderr); code != tt.code || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d, %q; want %d, %q", tt.args, code, stderr.String(), tt.code, tt.want)
		}
	}
}
