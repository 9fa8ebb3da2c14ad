package scenarios

import (
	"context"
	"fmt"
	"net/textproto"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// benchSet builds n scenarios with distinct message patterns.
func benchSet(b *testing.B, n int) *Set {
	b.Helper()
	fsys := fstest.MapFS{}
	for i := range n {
		fsys[fmt.Sprintf("d/s%04d.yaml", i)] = &fstest.MapFile{Data: []byte(fmt.Sprintf(
			"id: s%d\nmatch: {message: '(?i)^question %d (?P<topic>\\w+)', forwardedProps: {scenario_name: bench}}\nsteps: [{text: 'About {{ .captures.topic }}.'}]\n", i, i))}
	}
	set, err := Load(Source{FS: fsys, Root: "d", Label: "d"})
	if err != nil {
		b.Fatal(err)
	}
	return set
}

func benchRequest(b *testing.B, body string) *Request {
	b.Helper()
	in, err := protocol.DecodeRunAgentInput([]byte(body), protocol.DecodeOptions{NewID: func(string) string { return "x" }})
	if err != nil {
		b.Fatal(err)
	}
	return &Request{Route: "/agui/chat", Input: in, Header: textproto.MIMEHeader{}}
}

// BenchmarkSelect matches a request against 10 and 1,000 scenarios; the request
// matches the last one tried, the worst case. Target: 50 µs at 1,000.
func BenchmarkSelect(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			set := benchSet(b, n)
			last := set.Scenarios()[len(set.Scenarios())-1].ID
			req := benchRequest(b, `{"messages":[{"role":"user","content":"Question `+strings.TrimPrefix(last, "s")+` rivers"}],"forwardedProps":{"scenario_name":"bench"}}`)
			b.ReportAllocs()
			for b.Loop() {
				if sel, _ := set.Select(req); sel == nil {
					b.Fatal("no match")
				}
			}
		})
	}
}

// BenchmarkPlan renders a run of the showcase scenario: templates with fake data,
// streaming, JSON Patch and ids.
func BenchmarkPlan(b *testing.B) {
	set, err := Load(Builtin())
	if err != nil {
		b.Fatal(err)
	}
	req := benchRequest(b, `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"showcase"}]}`)
	sel, _ := set.Select(req)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sel.Scenario.Plan(context.Background(), req, Start{Captures: sel.Captures}, PlanOptions{Timing: DefaultTiming(), Now: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderTemplate plans a one-step run whose text is a template: a plain field
// reference and a plain id render without text/template; fake data and a pipeline need
// it, and the run clones the scenario's template set once.
func BenchmarkRenderTemplate(b *testing.B) {
	for _, tt := range []struct{ name, template string }{
		{"plain field", "{{ .threadId }}"},
		{"plain id", "{{ id `m` }}"},
		{"text/template", "{{ Name }} asks about {{ .message | upper }}"},
	} {
		b.Run(tt.name, func(b *testing.B) {
			set, err := Load(Source{FS: fstest.MapFS{"d/s.yaml": {Data: []byte("match: {message: weather}\nsteps:\n  - text: '" + tt.template + "'\n    chunk: none\n")}}, Root: "d", Label: "d"})
			if err != nil {
				b.Fatal(err)
			}
			req := benchRequest(b, `{"threadId":"t","runId":"r","messages":[{"role":"user","content":"weather"}]}`)
			sel, _ := set.Select(req)
			if sel == nil {
				b.Fatal("no match")
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := sel.Scenario.Plan(context.Background(), req, Start{Captures: sel.Captures}, PlanOptions{Timing: DefaultTiming()}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
