package cmd

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/internal/spectest"
	"github.com/agui-mock/agui-mock/internal/testkit"
	"github.com/agui-mock/agui-mock/scenarios"
)

func TestValidateReportsEveryProblemWithItsPosition(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	stream := filepath.Join(dir, "stream.jsonl")
	array := filepath.Join(dir, "array.json")
	testkit.WriteFile(t, good, "steps: [{text: hi}]\n")
	testkit.WriteFile(t, bad, "steps:\n  - txt: hi\n  - pause: fast\n  - text: '{{ .mesage }}'\n")
	testkit.WriteFile(t, stream, `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`+"\n"+`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}`+"\n")
	testkit.WriteFile(t, filepath.Join(dir, "notes.txt"), "hello")
	scalar := filepath.Join(dir, "scalar.json")
	testkit.WriteFile(t, scalar, `"RUN_STARTED"`+"\n")
	testkit.WriteFile(t, array, "[\n  {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"},\n  {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"other\"}\n]\n")
	tests := []struct {
		name  string
		args  []string
		code  int
		lines []string
	}{
		{"valid files", []string{good}, 0, []string{"1 scenario(s), 0 stream(s): valid"}},
		{"a directory", []string{dir}, 1, []string{bad + ":2:5: unknown key \"txt\" in a step (hint: did you mean \"text\"?)"}},
		{"every problem of a file", []string{bad}, 1, []string{
			bad + `:2:5: unknown key "txt" in a step (hint: did you mean "text"?)`,
			bad + `:3:12: invalid duration "fast" (hint: write e.g. 250ms, 1.5s, or a number of milliseconds)`,
			bad + `:4:11: template error: .mesage is not request data`,
			"0 scenario(s), 0 stream(s): 3 problem(s), 0 warning(s)",
		}},
		{"a JSON-lines stream", []string{stream}, 1, []string{stream + ":2:1: event 1 (TEXT_MESSAGE_CONTENT): Cannot send 'TEXT_MESSAGE_CONTENT': No active text message found with ID 'm'"}},
		{"a JSON array stream", []string{array}, 1, []string{array + `:3:3: event 1 (RUN_FINISHED): RUN_STARTED and RUN_FINISHED must agree on their runId`}},
		{"a JSON file of neither array nor object", []string{scalar}, 1, []string{scalar + ":1:1: expected a JSON array of events"}},
		{"a missing file", []string{filepath.Join(dir, "nope.yaml")}, 1, []string{"no such file or directory"}},
		{"a foreign file", []string{filepath.Join(dir, "notes.txt")}, 1, []string{"notes.txt: not a scenario file (.yaml, .yml) or an event stream (.json, .jsonl)"}},
		{"no arguments", nil, 2, nil},
		{"bad format", []string{"--format", "xml", good}, 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut strings.Builder
			code := run(t.Context(), append([]string{"validate"}, tt.args...), env(nil), &out, &errOut)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, out.String(), errOut.String())
			}
			for _, line := range tt.lines {
				if !strings.Contains(out.String(), line) {
					t.Errorf("output lacks %q:\n%s", line, out.String())
				}
			}
		})
	}
}

func TestValidateJSONOutput(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "a.yaml"), "steps: [{pause: fast}]\n")
	for _, args := range [][]string{{"--format", "json", dir}, {dir, "--format", "json"}, {dir, "--format=json"}} {
		var out strings.Builder
		if code := run(t.Context(), append([]string{"validate"}, args...), env(nil), &out, io.Discard); code != 1 {
			t.Fatalf("%q: exit %d", args, code)
		}
		var rep report
		if err := json.Unmarshal([]byte(out.String()), &rep); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if rep.Valid || len(rep.Problems) != 1 || rep.Problems[0].Line != 1 || rep.Problems[0].Hint == "" {
			t.Errorf("%q: report %+v", args, rep)
		}
	}
}

func TestValidateTakesEverythingAfterDoubleDashAsPaths(t *testing.T) {
	t.Chdir(t.TempDir())
	testkit.WriteFile(t, "-dash.yaml", "match: {message: hi}\nsteps: [{text: hello}]\n")
	var out, stderr strings.Builder
	if code := run(t.Context(), []string{"validate", "--", "-dash.yaml"}, env(nil), &out, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), stderr.String())
	}
	if code := run(t.Context(), []string{"validate", "-dash.yaml"}, env(nil), io.Discard, io.Discard); code != 2 {
		t.Errorf("without --, a path that looks like a flag is a usage error; exit %d", code)
	}
}

// TestValidateAgreesWithTheConformanceCorpus runs validate over every stream of the
// official AG-UI conformance corpus: the verdict must match the corpus's expected
// outcome. There are no exceptions: the fixtures that test a client's translations or
// warnings (era-*, producer-declares-*, unknown-*-dropped or -stripped) expect the run to
// complete, and validate accepts them, reporting what a 1.x client strips as warnings.
func TestValidateAgreesWithTheConformanceCorpus(t *testing.T) {
	base := spectest.Dir(t)
	files, _ := filepath.Glob(filepath.Join(base, "1.1", "conformance", "streams", "*.json"))
	draft, _ := filepath.Glob(filepath.Join(base, "draft", "conformance", "streams", "*.json"))
	files = append(files, draft...)
	if len(files) < 70 {
		t.Fatalf("only %d conformance streams", len(files))
	}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var fx struct {
			Expect struct{ Outcome string }
		}
		if err := json.Unmarshal(raw, &fx); err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(file), func(t *testing.T) {
			var out strings.Builder
			code := run(t.Context(), []string{"validate", file}, env(nil), &out, io.Discard)
			want := map[string]int{"completed": 0, "failed": 1}[fx.Expect.Outcome]
			if code != want {
				t.Errorf("validate exited %d, corpus expects %s:\n%s", code, fx.Expect.Outcome, out.String())
			}
		})
	}
}

func TestValidateReadsOnlyRegularFilesWithinTheSizeLimit(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "w.yaml"), "id: w\nsteps: [{text: x}]\n")
	pipe, streamPipe := filepath.Join(dir, "p.yaml"), filepath.Join(dir, "s.jsonl")
	mkfifo(t, pipe)
	mkfifo(t, streamPipe)
	other := t.TempDir()
	huge, hugeStream := filepath.Join(other, "huge.yaml"), filepath.Join(other, "huge.json")
	words := strings.Repeat("word ", scenarios.MaxFileBytes/5+1)
	testkit.WriteFile(t, huge, "id: huge\nsteps: [{text: "+words+"}]\n")
	testkit.WriteFile(t, hugeStream, "["+words+"]")
	tooLarge := ": the file is larger than the limit of 4 MiB"
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a directory", []string{dir}, pipe + ": a named pipe, not a regular file"},
		{"a scenario file", []string{pipe}, pipe + ": a named pipe, not a regular file"},
		{"a stream file", []string{streamPipe}, streamPipe + ": a named pipe, not a regular file"},
		{"a large scenario file", []string{huge}, huge + tooLarge},
		{"a large stream file", []string{hugeStream}, hugeStream + tooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			code := -1
			within(t, "validate", func() { code = run(t.Context(), append([]string{"validate"}, tt.args...), env(nil), &out, io.Discard) })
			if code != 1 || !strings.Contains(out.String(), tt.want+"\n") {
				t.Errorf("exit %d, output:\n%s\nwant exit 1 and %q", code, out.String(), tt.want)
			}
		})
	}
}

func TestValidateRefusesAFileWithoutScenarios(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"empty.yaml": "", "comments.yaml": "# a placeholder\n# steps: [{text: x}]\n", "separators.yml": "---\n---\n"} {
		file := filepath.Join(dir, name)
		testkit.WriteFile(t, file, content)
		want := file + ": the file holds no scenario (hint: it is empty, or holds only comments and empty documents; remove a file that is not needed)\n"
		for _, arg := range []string{file, dir} {
			var out strings.Builder
			if code := run(t.Context(), []string{"validate", arg}, env(nil), &out, io.Discard); code != 1 || !strings.Contains(out.String(), want) {
				t.Errorf("validate %s: exit %d, output:\n%s\nwant exit 1 and %q", arg, code, out.String(), want)
			}
		}
	}
}

func TestADuplicateKeyIsRefusedByValidateAndAtStart(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "dup.yaml")
	testkit.WriteFile(t, file, "id: e\nmatch:\n  message: hi\n  message: ho\nsteps:\n  - text: a\n    text: b\n  - state: {a: 1, a: 2}\nid: f\n")
	want := []string{
		file + `:4:3: duplicate key "message" (first at line 3)`,
		file + `:7:5: duplicate key "text" (first at line 6)`,
		file + `:8:19: duplicate key "a" (first at line 8)`,
		file + `:9:1: duplicate key "id" (first at line 1)`,
	}
	var out, stderr strings.Builder
	if code := run(t.Context(), []string{"validate", file}, env(nil), &out, io.Discard); code != 1 || !strings.Contains(out.String(), strings.Join(want, "\n")+"\n") {
		t.Errorf("validate: exit %d, output:\n%s\nwant exit 1 and\n%s", code, out.String(), strings.Join(want, "\n"))
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second) // a server that starts serves until then
	defer cancel()
	code := run(ctx, []string{"--addr", "127.0.0.1:0", "--no-builtin", "--scenarios", dir}, env(nil), io.Discard, &stderr)
	for _, line := range want {
		if code != 1 || !strings.Contains(stderr.String(), line) {
			t.Errorf("start: exit %d, stderr:\n%s\nwant exit 1 and %q", code, stderr.String(), line)
		}
	}
}

func TestValidateReportsATemplateOfTheWrongTypeAtTheTemplate(t *testing.T) {
	file := filepath.Join(t.TempDir(), "typed.yaml")
	testkit.WriteFile(t, file, "examples: [{message: hi, state: {items: [a]}}]\nsteps:\n  - state: {items: '{{ .state.items }}'}\n  - stateDelta:\n      - op: add\n        path: '{{ .state.items }}'\n        value: '{{ .state.items }}'\n")
	want := file + ":6:15: a JSON Patch path must be a string, but this template renders a list (write {{ json … }} to send its JSON text)\n" +
		"1 scenario(s), 0 stream(s): 1 problem(s), 0 warning(s)\n"
	var out strings.Builder
	if code := run(t.Context(), []string{"validate", file}, env(nil), &out, io.Discard); code != 1 || out.String() != want {
		t.Errorf("validate: exit %d, output:\n%s\nwant exit 1 and\n%s", code, out.String(), want)
	}
}

func TestValidateRefusesATemplateThatNeverFinishes(t *testing.T) {
	file := filepath.Join(t.TempDir(), "loop.yaml")
	testkit.WriteFile(t, file, "steps:\n  - text: hi\n  - text: 'x{{ range 1000000000000000000 }}{{ end }}'\n")
	want := file + ":3:11: template " + file + ":3:11: the run's templates went past the limit of 500 iterations (-template-iterations)\n"
	var out strings.Builder
	if code := run(t.Context(), []string{"validate", "--template-iterations", "500", file}, env(nil), &out, io.Discard); code != 1 || !strings.HasPrefix(out.String(), want) {
		t.Errorf("validate: exit %d, output:\n%s\nwant exit 1 and\n%s", code, out.String(), want)
	}
}

// What the protobuf transport cannot carry is a warning: the file is valid.
func TestValidateWarnsOfWhatProtobufCannotCarry(t *testing.T) {
	file := filepath.Join(t.TempDir(), "custom.yaml")
	testkit.WriteFile(t, file, "events:\n  - {type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}\n  - {type: CUSTOM, name: n, value: 1, extra: x}\n  - {type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}\n")
	want := file + ":3:5: warning: over the protobuf transport this event loses CUSTOM.extra (hint: the AG-UI .proto has no place for it: send it in a form the .proto carries, or expect protobuf clients not to see it)\n" +
		"1 scenario(s), 0 stream(s): 0 problem(s), 1 warning(s)\n"
	var out strings.Builder
	if code := run(t.Context(), []string{"validate", file}, env(nil), &out, io.Discard); code != 0 || out.String() != want {
		t.Errorf("validate: exit %d, output:\n%s\nwant exit 0 and\n%s", code, out.String(), want)
	}
}

func TestValidateChecksBothDialects(t *testing.T) {
	dir := t.TempDir()
	mixed := filepath.Join(dir, "mixed.yaml")
	testkit.WriteFile(t, mixed, "id: lg\ndialect: langgraph\nsteps:\n  - interrupt: {message: Proceed, on: {resolved: [{text: Went.}]}}\n---\n"+
		"id: std\ndialect: agui\nsteps:\n  - interrupt: {message: Stop}\n")
	bad := filepath.Join(dir, "bad.yaml")
	testkit.WriteFile(t, bad, "dialect: langchain\nsteps:\n  - interrupt: [{message: a}, {message: b}]\n---\ndialect: langgraph\nsteps:\n  - interrupt: [{message: a}, {message: b}]\n")
	for _, tt := range []struct {
		path  string
		code  int
		lines []string
	}{
		{mixed, 0, []string{"2 scenario(s), 0 stream(s): valid"}},
		{bad, 1, []string{
			bad + `:1:10: unknown dialect "langchain" (one of agui, langgraph)`,
			bad + `:7:16: in the langgraph dialect a run answers one interrupt (forwardedProps.command.resume), so an interrupt step raises one`,
		}},
	} {
		var out, errOut strings.Builder
		if code := run(t.Context(), []string{"validate", tt.path}, env(nil), &out, &errOut); code != tt.code {
			t.Errorf("%s: exit %d, want %d\n%s%s", tt.path, code, tt.code, out.String(), errOut.String())
		}
		for _, line := range tt.lines {
			if !strings.Contains(out.String(), line) {
				t.Errorf("output lacks %q:\n%s", line, out.String())
			}
		}
	}
}

// validate and serve judge the same directory alike: a scenario of yours on a route a
// built-in scenario answers (a Dojo route) is valid to both, with the built-in scenarios
// or without, and serve plays it on that route.
func TestValidateAndServeAgreeOnAScenarioOnABuiltinRoute(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "chat.yaml"), "id: my-chat\nmatch: {route: /agentic_chat}\nexamples: [{route: /agentic_chat, message: hi}]\nsteps: [{text: served-mine}]\n")
	for _, args := range [][]string{{dir}, {"--no-builtin", dir}} {
		var out strings.Builder
		if code := run(t.Context(), append([]string{"validate"}, args...), env(nil), &out, &out); code != 0 || !strings.Contains(out.String(), "1 scenario(s), 0 stream(s): valid") {
			t.Errorf("validate %v: exit %d\n%s", args, code, out.String())
		}
	}
	url := start(t, []string{"--addr", "127.0.0.1:0", "--scenarios", dir, "--watch", "off"}, nil)
	if _, body := postRun(t, url, "/agentic_chat", "hi"); !strings.Contains(body, "served-mine") {
		t.Errorf("/agentic_chat played %s", body)
	}
}
