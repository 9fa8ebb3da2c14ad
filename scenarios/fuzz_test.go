package scenarios

import (
	"context"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// FuzzLoad: any YAML either loads or is rejected with positioned problems — never a
// panic — and whatever loads plans a run for its own sample request.
func FuzzLoad(f *testing.F) {
	files, _ := filepath.Glob("builtin/*.yaml")
	bad, _ := filepath.Glob("testdata/schema-invalid/*.yaml")
	for _, file := range append(files, bad...) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("steps: [{text: '{{ .message }}'}]"))
	f.Add([]byte("a: &a [*a]"))
	f.Add([]byte("events: [{type: RUN_STARTED}]\nnext: [{events: []}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		set, err := Load(Source{FS: fstest.MapFS{"d/f.yaml": {Data: data}}, Root: "d", Label: "d"})
		if err != nil {
			if !strings.Contains(err.Error(), "d/f.yaml") {
				t.Fatalf("a problem without its file: %v", err)
			}
			return
		}
		for _, sc := range set.Scenarios() {
			req, err := sc.sampleRequest()
			if err != nil {
				continue
			}
			captures, _ := sc.Match.test(req)
			if _, err := sc.Plan(context.Background(), req, Start{Captures: captures}, PlanOptions{Timing: DefaultTiming(), Now: time.Now()}); err != nil {
				t.Fatalf("a scenario that loaded fails to plan its own sample: %v", err)
			}
		}
	})
}

// FuzzTemplates: any template string in a scenario, rendered with any message as text
// and as a JSON value, either fails to load or renders — never a panic, never unbounded
// output.
func FuzzTemplates(f *testing.F) {
	for _, seed := range []string{
		"{{ .message }}", "{{ Name }} {{ Sentence 500 }}", "{{ range .parts }}{{ .type }}{{ end }}",
		"{{ json .state }}", "{{ index .captures \"1\" }}", "{{ default \"x\" .forwardedProps.a }}", "{{ Number 9 1 }}",
		"{{ range $i, $m := .messages }}{{ $m.id }}{{ end }}", "{{ template \"x\" }}", "{{ Paragraph 50 }}",
		"{{ int .captures.all }}", "{{ fromJson .message }}", "{{- float (trim .message) -}}", "{{ bool .message | not }}",
	} {
		f.Add(seed, "hello world")
	}
	f.Fuzz(func(t *testing.T, tmpl, message string) {
		yaml := "match: {message: (?s)(?P<all>.*)}\nsteps:\n  - text: " + quoteYAML(tmpl) + "\n  - custom: {name: c, value: " + quoteYAML(tmpl) + "}\n"
		set, err := Load(Source{FS: fstest.MapFS{"d/f.yaml": {Data: []byte(yaml)}}, Root: "d", Label: "d"})
		if err != nil {
			return
		}
		body, _ := protocol.AppendValue(nil, message)
		in, err := protocol.DecodeRunAgentInput([]byte(`{"messages":[{"role":"user","content":`+string(body)+`}]}`), protocol.DecodeOptions{NewID: func(string) string { return "x" }})
		if err != nil {
			return // not valid UTF-8 text for JSON
		}
		req := &Request{Route: "/", Input: in, Header: textproto.MIMEHeader{}}
		sel, _ := set.Select(req)
		if sel == nil {
			return
		}
		plan, err := sel.Scenario.Plan(context.Background(), req, Start{Captures: sel.Captures}, PlanOptions{Timing: DefaultTiming()})
		if err != nil {
			return // a render error is reported, not a crash
		}
		size := 0
		for _, ev := range plan.Events {
			size += len(ev.Event.Str("delta"))
		}
		if size > 2*maxRenderBytes {
			t.Fatalf("a template rendered %d bytes", size)
		}
	})
}

// quoteYAML writes s as a double-quoted YAML scalar.
func quoteYAML(s string) string {
	b, _ := protocol.AppendValue(nil, s)
	return string(b)
}
