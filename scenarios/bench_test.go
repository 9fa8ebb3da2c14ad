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

// benchSet builds n scenarios with distinct message patterns, as a recorded suite has
// them: every other one anchored and case-insensitive, the others unanchored with a
// capture in the middle.
func benchSet(b testing.TB, n int) *Set {
	b.Helper()
	fsys := fstest.MapFS{}
	for i := range n {
		pattern := fmt.Sprintf(`(?i)^question %d (?P<topic>\w+)`, i)
		if i%2 == 1 {
			pattern = fmt.Sprintf(`(?i)tell me about (?P<topic>\w+) in item %d\b`, i)
		}
		fsys[fmt.Sprintf("d/s%04d.yaml", i)] = &fstest.MapFile{Data: []byte(fmt.Sprintf(
			"id: s%d\nmatch: {message: '%s', forwardedProps: {scenario_name: bench}}\nsteps: [{text: 'About {{ .captures.topic }}.'}]\n", i, pattern))}
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

// BenchmarkSelect matches a request against 10, 1,000 and 5,000 scenarios; the request
// matches the last one in precedence order, which a scan of every scenario would try
// last. Target: at 5,000 at most 1.5× the time at 10.
func BenchmarkSelect(b *testing.B) {
	for _, n := range []int{10, 1000, 5000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			set := benchSet(b, n)
			last := strings.TrimPrefix(set.Scenarios()[len(set.Scenarios())-1].ID, "s")
			message := "Tell me about rivers in item " + last + " please"
			if n%2 == 1 {
				message = "Question " + last + " rivers"
			}
			req := benchRequest(b, `{"messages":[{"role":"user","content":"`+message+`"}],"forwardedProps":{"scenario_name":"bench"}}`)
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
