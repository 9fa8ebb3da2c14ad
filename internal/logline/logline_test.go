package logline

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
)

// pieces of the strings records are made of: plain words, and every character slog
// quotes or escapes, or judges by its rune.
var pieces = []string{"", "run", "/agui/chat", "0.0.x", "a b", "k=v", `say "hi"`, `back\slash`, "tab\there", "new\nline",
	"cr\r", "\x00", "\x1f", "\x7f", "é", "日本", "\u2028", "\xff", "{}", "[1,2]", "-", "+", "#", "%s", "'"}

// ascii is how many of pieces, from the first, are ASCII.
const ascii = 14

func randomString(r *rand.Rand, simple bool) string {
	n := len(pieces)
	if simple {
		n = ascii
	}
	var s strings.Builder
	for range r.IntN(4) {
		s.WriteString(pieces[r.IntN(n)])
	}
	return s.String()
}

// randomAttr returns an attribute of any kind or, simple, one of a kind this package
// writes, with an ASCII key and value (which may still be empty).
func randomAttr(r *rand.Rand, simple bool) slog.Attr {
	key := randomString(r, simple)
	if r.IntN(3) > 0 {
		key = []string{"route", "thread", "a b", "k=v", "events", "ünï"}[r.IntN(5+map[bool]int{false: 1}[simple])]
	}
	kinds := 11
	if simple {
		kinds = 5
	}
	switch kind := r.IntN(kinds); kind {
	case 0:
		return slog.Int64(key, r.Int64()-math.MaxInt64/2)
	case 1:
		return slog.Uint64(key, r.Uint64())
	case 2:
		return slog.Bool(key, r.IntN(2) == 0)
	case 3:
		return slog.Duration(key, time.Duration(r.Int64N(int64(time.Hour)))-time.Minute)
	case 4:
		if simple {
			return slog.String(key, randomString(r, simple))
		}
		return slog.Float64(key, r.NormFloat64()*1e6)
	case 5:
		return slog.Time(key, time.Unix(r.Int64N(2e9), r.Int64N(1e9)))
	case 6:
		return slog.Group(key, slog.String("inner", randomString(r, simple)))
	case 7:
		return slog.Any(key, []int{1, 2})
	case 8:
		return slog.Attr{}
	default:
		return slog.String(key, randomString(r, simple))
	}
}

// randomRecord returns a record of any attributes or, one time in two, of attributes of
// the kinds this package writes.
func randomRecord(r *rand.Rand) slog.Record {
	simple := r.IntN(2) == 0
	var t time.Time
	switch r.IntN(5) {
	case 0: // no time
	case 1:
		t = time.Date(10000+r.IntN(5), 1, 1, 0, 0, 0, 0, time.UTC) // past RFC 3339's years
	default:
		loc := []*time.Location{time.UTC, time.FixedZone("", 3600+1800), time.Local}[r.IntN(3)]
		t = time.Unix(r.Int64N(4e9), r.Int64N(1e9)).In(loc)
		if r.IntN(3) == 0 {
			t = t.Truncate(time.Second)
		}
	}
	level := []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError, slog.LevelInfo + 2}[r.IntN(5)]
	rec := slog.NewRecord(t, level, randomString(r, simple), 0)
	for range r.IntN(14) {
		rec.AddAttrs(randomAttr(r, simple))
	}
	return rec
}

// TestWritesAsSlogDoes: for random records, of every kind of value, each handler writes
// what slog's handler with the same options writes, byte for byte.
func TestWritesAsSlogDoes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, json := range []bool{false, true} {
		for _, opts := range []*slog.HandlerOptions{nil, {Level: slog.LevelDebug}, {Level: slog.LevelWarn}} {
			var got, want bytes.Buffer
			ours, theirs := NewText(&got, opts), slog.Handler(slog.NewTextHandler(&want, opts))
			if json {
				ours, theirs = NewJSON(&got, opts), slog.NewJSONHandler(&want, opts)
			}
			fast := 0
			for i := range 20000 {
				rec := randomRecord(r)
				if _, ok := ours.(*Handler).appendRecord(nil, rec); ok {
					fast++
				}
				got.Reset()
				want.Reset()
				ctx := context.Background()
				if g, w := ours.Enabled(ctx, rec.Level), theirs.Enabled(ctx, rec.Level); g != w {
					t.Fatalf("json %v, %+v: Enabled(%v) = %v, slog's %v", json, opts, rec.Level, g, w)
				}
				gerr, werr := ours.Handle(ctx, rec.Clone()), theirs.Handle(ctx, rec.Clone())
				if got.String() != want.String() || (gerr == nil) != (werr == nil) {
					t.Fatalf("json %v, record %d:\n got %q (%v)\nwant %q (%v)", json, i, got.String(), gerr, want.String(), werr)
				}
			}
			if fast < 4000 {
				t.Errorf("json %v: %d records of 20000 were this package's to write; the test compares too few", json, fast)
			}
		}
	}
}

// TestDerivedHandlersWriteAsSlog: a handler derived with attributes or a group writes
// what slog's derived handler writes, through the same lock.
func TestDerivedHandlersWriteAsSlog(t *testing.T) {
	for _, json := range []bool{false, true} {
		var got, want bytes.Buffer
		ours, theirs := NewText(&got, nil), slog.Handler(slog.NewTextHandler(&want, nil))
		if json {
			ours, theirs = NewJSON(&got, nil), slog.NewJSONHandler(&want, nil)
		}
		at := time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC)
		for _, derive := range []func(slog.Handler) slog.Handler{
			func(h slog.Handler) slog.Handler {
				return h.WithAttrs([]slog.Attr{slog.String("component", "watcher")})
			},
			func(h slog.Handler) slog.Handler { return h.WithGroup("g").WithAttrs([]slog.Attr{slog.Int("n", 1)}) },
		} {
			rec := slog.NewRecord(at, slog.LevelInfo, "reloaded", 0)
			rec.AddAttrs(slog.String("file", "a.yaml"))
			_ = derive(ours).Handle(context.Background(), rec.Clone())
			_ = derive(theirs).Handle(context.Background(), rec.Clone())
		}
		if got.String() != want.String() {
			t.Fatalf("json %v:\n got %q\nwant %q", json, got.String(), want.String())
		}
	}
}

// TestOptionsSlogAppliesAreSlogs: with a source or a ReplaceAttr, the handler is slog's.
func TestOptionsSlogAppliesAreSlogs(t *testing.T) {
	for _, opts := range []*slog.HandlerOptions{{AddSource: true}, {ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr { return a }}} {
		if _, ok := NewText(nil, opts).(*slog.TextHandler); !ok {
			t.Errorf("%+v: not slog's text handler", opts)
		}
		if _, ok := NewJSON(nil, opts).(*slog.JSONHandler); !ok {
			t.Errorf("%+v: not slog's JSON handler", opts)
		}
	}
}

// lineWriter fails the test when a Write is not one whole line.
type lineWriter struct {
	t  *testing.T
	mu sync.Mutex
	n  int
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if bytes.Count(p, []byte("\n")) != 1 || p[len(p)-1] != '\n' {
		w.t.Errorf("a write of %q is not one line", p)
	}
	w.n++
	return len(p), nil
}

// TestEveryRecordIsOneWrite: records written at once by the handler and the handlers
// derived from it, fast or not, each go out in one Write of one line.
func TestEveryRecordIsOneWrite(t *testing.T) {
	w := &lineWriter{t: t}
	h := NewText(w, nil)
	derived := h.WithAttrs([]slog.Attr{slog.String("a", "b")})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 200 {
				rec := slog.NewRecord(time.Now(), slog.LevelInfo, "run", 0)
				rec.AddAttrs(slog.Int("n", j), slog.Any("any", fmt.Sprint(i)))
				if j%2 == 0 {
					_ = derived.Handle(context.Background(), rec)
				} else {
					_ = h.Handle(context.Background(), rec)
				}
			}
		})
	}
	wg.Wait()
	if w.n != 1600 {
		t.Errorf("%d writes, want 1600", w.n)
	}
}

// BenchmarkRunLine writes a run's line as the server writes it, through this package's
// handler and through slog's: the handler's work alone, the record made once.
func BenchmarkRunLine(b *testing.B) {
	line := slog.NewRecord(time.Now(), slog.LevelInfo, "run", 0)
	line.AddAttrs(slog.String("route", "/agui/chat"), slog.String("scenario", "short7"),
		slog.String("thread", "load-18ee35af22cbe6d2-0"), slog.String("run", "run-0"), slog.String("client", "0.0.x"), slog.String("transport", "sse"),
		slog.String("request_id", "06fa31aa2e56b8c86fe3e844a305f6d7"), slog.String("test", ""),
		slog.Int("events", 7), slog.String("outcome", "success"), slog.Int("awaiting", 0), slog.Duration("duration", 0))
	for _, h := range []struct {
		name string
		h    slog.Handler
	}{
		{"text", NewText(discard{}, nil)}, {"slog-text", slog.NewTextHandler(discard{}, nil)},
		{"json", NewJSON(discard{}, nil)}, {"slog-json", slog.NewJSONHandler(discard{}, nil)},
	} {
		b.Run(h.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = h.h.Handle(context.Background(), line)
			}
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
