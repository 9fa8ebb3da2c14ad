package scenarios

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"
)

// loadWithin parses one file and builds a set of it within limits.
func loadWithin(ctx context.Context, limits Limits, yaml string) (*Set, error) {
	fsys := fstest.MapFS{"s/test.yaml": {Data: []byte(yaml)}}
	return LoadWith(ctx, limits, nil, Source{FS: fsys, Root: "s", Label: "dir"})
}

func TestATemplateThatNeverFinishesIsAProblemAtItsPosition(t *testing.T) {
	tests := []struct {
		name, text string
		limits     Limits
		mention    string
	}{
		{"a range over a huge number", `x{{ range 1000000000000000000 }}{{ end }}`, Limits{Time: time.Hour}, "the limit of 100000 iterations (-template-iterations)"},
		{"nested ranges", `{{ range 1000 }}{{ range 1000 }}{{ range 1000 }}{{ end }}{{ end }}{{ end }}`, Limits{Iterations: 5000, Time: time.Hour}, "the limit of 5000 iterations"},
		{"a range with a body", `{{ range $i := 1000000000000 }}{{ $i }}{{ end }}`, Limits{Iterations: 5000, Time: time.Hour}, "the limit of 5000 iterations"},
		{"a template that calls itself twice", `{{ define "t" }}{{ template "t" }}{{ template "t" }}{{ end }}{{ template "t" }}`, Limits{Iterations: 1000, Time: time.Hour}, "the limit of 1000 iterations"},
		{"slow work in a loop", `{{ range 1000000000000 }}{{ $p := Paragraph 50 }}{{ end }}`, Limits{Iterations: math.MaxInt, Time: 20 * time.Millisecond}, "the limit of 20ms (-template-time)"},
		{"a string that doubles", `{{ $s := "xxxxxxxx" }}{{ range 40 }}{{ $s = print $s $s }}{{ end }}{{ len $s }}`, Limits{}, "print would make a string of more than 1 MiB"},
		{"a string that doubles through printf", `{{ $s := "xxxxxxxx" }}{{ range 40 }}{{ $s = printf "%s%s" $s $s }}{{ end }}`, Limits{}, "printf would make a string of more than 1 MiB"},
		{"a huge width", `{{ printf "%999999d" 1 }}`, Limits{}, "printf takes a width or precision of at most 1000"},
		{"a huge width from an argument", `{{ printf "%*d" 999999 1 }}`, Limits{}, "printf takes a width or precision of at most 1000"},
		{"a huge precision", `{{ printf "%.999999f" 1.5 }}`, Limits{}, "printf takes a width or precision of at most 1000"},
		{"many wide verbs", `{{ printf "` + strings.Repeat("%1000d", 1100) + `" }}`, Limits{}, "printf would make a string of more than 1 MiB"},
	}
	// The cases that name the iteration limit have time enough never to meet the time
	// limit first, however slow the machine.
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			yaml := "id: loop\nsteps:\n  - text: '" + tt.text + "'\n"
			_, err := loadWithin(t.Context(), tt.limits, yaml)
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("loaded: %v", err)
			}
			d := le.Diagnostics[0]
			if len(le.Diagnostics) != 1 || d.File != "dir/test.yaml" || d.Line != 3 || d.Column != 11 || !strings.Contains(d.Message, tt.mention) {
				t.Errorf("got %+v, want one problem at dir/test.yaml:3:11 mentioning %q", le.Diagnostics, tt.mention)
			}
		})
	}
}

func TestJoinRefusesALongResult(t *testing.T) {
	if _, err := joinAny(strings.Repeat("x", 600<<10), []any{"a", "b"}); err == nil || !strings.Contains(err.Error(), "more than 1 MiB") {
		t.Errorf("join of a long separator: %v", err)
	}
	if got, err := joinAny(", ", []any{"a", 1}); got != "a, 1" || err != nil {
		t.Errorf("join: %q, %v", got, err)
	}
}

func TestALoopOnlyARequestTakesFailsThatRunNamingTheLimit(t *testing.T) {
	yaml := "id: boom\nsteps:\n  - text: '{{ if eq .message \"boom\" }}{{ range 1000000000000000000 }}{{ end }}{{ end }}fine'\n"
	set, err := loadWithin(t.Context(), Limits{Iterations: 1000, Time: time.Hour}, yaml)
	if err != nil {
		t.Fatal(err)
	}
	opts := PlanOptions{Timing: DefaultTiming(), Limits: Limits{Iterations: 1000, Time: time.Hour}}
	planFor(t, set, request(t, "/", `{"messages":[{"role":"user","content":"hello"}]}`), opts)

	req := request(t, "/", `{"messages":[{"role":"user","content":"boom"}]}`)
	_, err = set.Scenarios()[0].Plan(t.Context(), req, Start{}, opts)
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != "iterations" || !strings.Contains(err.Error(), "template dir/test.yaml:3:11: the run's templates went past the limit of 1000 iterations (-template-iterations)") {
		t.Errorf("got %v", err)
	}
}

// endingContext is a context that ends after its Err has been asked n times.
type endingContext struct {
	context.Context
	n atomic.Int64
}

func (c *endingContext) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

func TestTemplatesStopWhenTheRunEnds(t *testing.T) {
	yaml := "id: boom\nsteps:\n  - text: '{{ if eq .message \"boom\" }}{{ range 1000000000000000000 }}{{ end }}{{ end }}fine'\n"
	unlimited := Limits{Iterations: math.MaxInt, Time: time.Hour}
	set, err := loadWithin(t.Context(), unlimited, yaml)
	if err != nil {
		t.Fatal(err)
	}
	ctx := &endingContext{Context: t.Context()}
	ctx.n.Store(1000)
	req := request(t, "/", `{"messages":[{"role":"user","content":"boom"}]}`)
	_, err = set.Scenarios()[0].Plan(ctx, req, Start{}, PlanOptions{Timing: DefaultTiming(), Limits: unlimited})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "the run was stopped") {
		t.Errorf("got %v", err)
	}
	if left := ctx.n.Load(); left < -10 {
		t.Errorf("the templates went on for %d steps after the run ended", -left)
	}
}

func TestALoadStopsWhenItsContextEnds(t *testing.T) {
	yaml := "id: loop\nsteps:\n  - text: '{{ range 1000000000000000000 }}{{ end }}'\n"
	ctx, cancel := context.WithCancelCause(t.Context())
	stop := errors.New("stopping")
	cancel(stop)
	_, err := loadWithin(ctx, Limits{Iterations: math.MaxInt, Time: time.Hour}, yaml)
	if !errors.Is(err, stop) {
		t.Errorf("got %v, want the context's cause", err)
	}
}

func TestFormatSize(t *testing.T) {
	tests := []struct {
		format string
		args   []any
		size   int
		ok     bool
	}{
		{"plain", nil, 5, true},
		{"%d and %s", []any{1, "x"}, 9, true},
		{"%5d|%-7s|%.3f|%8.2f", []any{1, "x", 1.5, 2.5}, 19 + 5 + 7 + 3 + 8 + 2, true},
		{"%%%1000d", []any{1}, 8 + 1000, true},
		{"%1001d", []any{1}, 0, false},
		{"%*d", []any{40, 1}, 3 + 40, true},
		{"%*d", []any{-1001, 1}, 0, false},
		{"%.*f", []any{2000, 1.5}, 0, false},
		{"%[2]*[1]d", []any{1, 2000}, 0, false},
		{"%[2]*[1]d", []any{2000, 20}, 9 + 20, true},
		{"%[9]*d %[x]d", []any{1}, 12, true}, // fmt prints BADINDEX; nothing is taken
		{"%s%*d", []any{"a"}, 5, true},       // a missing width is fmt's BADWIDTH
		{"%99999999999999999999999d", nil, 0, false},
		{"%", nil, 1, true},
	}
	for _, tt := range tests {
		size, err := formatSize(tt.format, tt.args)
		if (err == nil) != tt.ok || (tt.ok && size != tt.size) {
			t.Errorf("formatSize(%q, %v) = %d, %v; want %d, ok %v", tt.format, tt.args, size, err, tt.size, tt.ok)
		}
	}
}
