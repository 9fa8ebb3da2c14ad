package server

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

const timedScenario = `
timing: {firstEvent: 100ms, firstToken: 1s, stepGap: 200ms, tokensPerSecond: 10, jitter: 0}
steps:
  - text: one two
  - pause: 3s
  - text: three
`

// eventTimes lists when each event reached the client, as "offset TYPE".
func eventTimes(rec *streamRecorder) []string {
	var out []string
	for _, w := range rec.writes {
		for rest := w.data; ; {
			i := strings.Index(rest, `"type":"`)
			if i < 0 {
				break
			}
			rest = rest[i+8:]
			out = append(out, w.at.String()+" "+rest[:strings.IndexByte(rest, '"')])
		}
	}
	return out
}

func TestStreamFollowsTheScenarioTimeline(t *testing.T) {
	full := []string{
		"100ms RUN_STARTED", "1.1s TEXT_MESSAGE_START", "1.1s TEXT_MESSAGE_CONTENT", "1.2s TEXT_MESSAGE_CONTENT", "1.2s TEXT_MESSAGE_END",
		"4.6s TEXT_MESSAGE_START", "4.6s TEXT_MESSAGE_CONTENT", "4.6s TEXT_MESSAGE_END", "4.8s RUN_FINISHED",
	}
	scaled := func(factor float64) []string {
		out := make([]string, len(full))
		for i, line := range full {
			at, typ, _ := strings.Cut(line, " ")
			d, _ := time.ParseDuration(at)
			out[i] = time.Duration(float64(d)*factor).String() + " " + typ
		}
		return out
	}
	tests := []struct {
		name   string
		speed  float64
		header string
		want   []string
	}{
		{"as scripted", 1, "", full},
		{"twice as fast", 0.5, "", scaled(0.5)},
		{"without delays", 0, "", scaled(0)},
		{"header overrides the server speed", 1, "0", scaled(0)},
		{"header can slow down", 0, "2", scaled(2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newServer(t, timedScenario, func(c *Config) { c.Speed = tt.speed })
				header := map[string]string{}
				if tt.header != "" {
					header[SpeedHeader] = tt.header
				}
				rec := post(t.Context(), s, "/", `{"threadId":"t","runId":"r","messages":[]}`, header)
				if got := eventTimes(rec); !reflect.DeepEqual(got, tt.want) {
					t.Errorf("timeline\n got %q\nwant %q", got, tt.want)
				}
			})
		})
	}
}

func TestSpeedHeaderRefusesNonFiniteValues(t *testing.T) {
	for _, h := range []string{"Inf", "+Inf", "NaN", "-1", "1e400"} {
		s := newServer(t, timedScenario, nil)
		rec := post(t.Context(), s, "/", `{"messages":[]}`, map[string]string{SpeedHeader: h})
		if rec.status != 400 || !strings.Contains(rec.body(), `"invalid_header"`) || !strings.Contains(rec.body(), "finite number of 0 or more") {
			t.Errorf("%s: %s: %d %s", SpeedHeader, h, rec.status, rec.body())
		}
	}
}

func TestAHugeSpeedSlowsTheRunInsteadOfOverflowing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, timedScenario, nil)
		ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
		defer cancel()
		rec := post(ctx, s, "/", `{"messages":[]}`, map[string]string{SpeedHeader: "1e300"})
		if got := eventTimes(rec); len(got) != 0 {
			t.Errorf("events within an hour at speed 1e300 (100ms of delay takes ages): %q", got)
		}
	})
}

func TestEventsDueTogetherGoOutInOneWrite(t *testing.T) {
	for _, tt := range []struct {
		speed  float64
		writes int
	}{
		{1, 5}, // 100ms, 1.1s, 1.2s, 4.6s, 4.8s: see TestStreamFollowsTheScenarioTimeline
		{0, 1},
	} {
		synctest.Test(t, func(t *testing.T) {
			s := newServer(t, timedScenario, func(c *Config) { c.Speed = tt.speed })
			rec := post(t.Context(), s, "/", `{"threadId":"t","runId":"r","messages":[]}`, nil)
			if len(rec.writes) != tt.writes || len(eventTimes(rec)) != 9 {
				t.Errorf("speed %v: 9 events in %d writes, want %d: %q", tt.speed, len(rec.writes), tt.writes, eventTimes(rec))
			}
		})
	}
}

func TestLongPausesSendKeepAlives(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, "timing: {firstEvent: 0, firstToken: 0, stepGap: 0}\nsteps:\n  - pause: 40s\n  - text: done\n", func(c *Config) { c.KeepAlive = 15 * time.Second })
		rec := post(t.Context(), s, "/", `{"messages":[]}`, nil)
		var keepAlives []time.Duration
		for _, w := range rec.writes {
			if strings.HasPrefix(w.data, ": keep-alive") {
				keepAlives = append(keepAlives, w.at)
			}
		}
		if want := []time.Duration{15 * time.Second, 30 * time.Second}; !reflect.DeepEqual(keepAlives, want) {
			t.Errorf("keep-alives at %v, want %v", keepAlives, want)
		}
		if got := eventTimes(rec); got[1] != "40s TEXT_MESSAGE_START" {
			t.Errorf("the text came at %v; keep-alives must not shift the timeline", got[1])
		}
	})
}

func TestClientAbortStopsTheRunAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, timedScenario, nil)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan *streamRecorder)
		go func() { done <- post(ctx, s, "/", `{"messages":[]}`, nil) }()
		time.Sleep(2 * time.Second)
		cancel()
		synctest.Wait() // the handler must have returned without waiting for the next event
		select {
		case rec := <-done:
			if got := eventTimes(rec); len(got) != 5 {
				t.Errorf("events after the abort: %q", got)
			}
		default:
			t.Fatal("the handler is still running after the client went away")
		}
	})
}

// A run is linked to its request only from its first wait (requestLink): every kind of
// wait must see the client leave, in a run that has no other.
func TestClientAbortStopsARunWhereverItWaits(t *testing.T) {
	for _, tt := range []struct{ name, fault, breakpoint string }{
		{"before its first event (slowStart)", "slowStart; delay=1h", ""},
		{"stalled (stall)", "stall; after=2", ""},
		{"at a breakpoint", "", `{"event":2}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newServer(t, "steps: [{text: one two three}]", nil)
				header := map[string]string{SpeedHeader: "0", TestIDHeader: "abort"}
				if tt.fault != "" {
					header[FaultHeader] = tt.fault
				}
				if tt.breakpoint != "" {
					if status, body := call(t, s, "POST", AdminPrefix+"/breakpoints", tt.breakpoint, map[string]string{TestIDHeader: "abort"}); status != 201 {
						t.Fatal(status, body)
					}
				}
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan *streamRecorder)
				go func() { done <- post(ctx, s, "/", `{"messages":[]}`, header) }()
				time.Sleep(time.Minute)
				select {
				case <-done:
					t.Fatal("the run did not wait")
				default:
				}
				cancel()
				synctest.Wait()
				select {
				case <-done:
				default:
					t.Fatal("the handler is still running after the client went away")
				}
			})
		})
	}
}

func TestShutdownEndsOpenStreamsWithRunError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, timedScenario, nil)
		done := make(chan *streamRecorder)
		go func() { done <- post(t.Context(), s, "/", `{"messages":[]}`, map[string]string{}) }()
		time.Sleep(2 * time.Second)
		if err := s.Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		rec := <-done
		events := rec.events(t)
		last := events[len(events)-1]
		if last.Type != "RUN_ERROR" || last.Str("code") != "server_shutdown" {
			t.Errorf("last event %+v", last)
		}
		if rec.writes[len(rec.writes)-1].at != 2*time.Second {
			t.Errorf("RUN_ERROR came at %v, want at once", rec.writes[len(rec.writes)-1].at)
		}
	})
}

// slowFirstFlush is a streamRecorder whose first flush takes a while, as on a busy
// machine: the stream falls behind its timeline right after its first event.
type slowFirstFlush struct {
	*streamRecorder
	delay   time.Duration
	flushed bool
}

func (r *slowFirstFlush) Flush() {
	if !r.flushed {
		r.flushed = true
		time.Sleep(r.delay)
	}
	r.streamRecorder.Flush()
}

func TestALateStreamCatchesUpWithoutBunching(t *testing.T) {
	const gapScenario = `
events:
  - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
  - {delay: 50ms, type: TEXT_MESSAGE_START, messageId: m, role: assistant}
  - {delay: 50ms, type: TEXT_MESSAGE_CONTENT, messageId: m, delta: "a "}
  - {delay: 50ms, type: TEXT_MESSAGE_CONTENT, messageId: m, delta: "b "}
  - {delay: 50ms, type: TEXT_MESSAGE_END, messageId: m}
  - {delay: 50ms, type: RUN_FINISHED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
`
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, gapScenario, nil)
		req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/agui/chat", strings.NewReader(`{"messages":[{"role":"user","content":"hi"}]}`))
		req.Header.Set("Content-Type", "application/json")
		rec := &slowFirstFlush{streamRecorder: newRecorder(), delay: 130 * time.Millisecond}
		s.Handler().ServeHTTP(rec, req)
		rec.streamRecorder.Flush()
		// RUN_STARTED takes 130 ms to go out: the event due at 50 ms goes at once; the one
		// due at 100 ms would go half a gap (25 ms) later, but that is more than a gap
		// late: at 150 ms; the next ones half a gap apart until the timeline is met again.
		want := []string{"130ms RUN_STARTED", "130ms TEXT_MESSAGE_START", "150ms TEXT_MESSAGE_CONTENT", "175ms TEXT_MESSAGE_CONTENT", "200ms TEXT_MESSAGE_END", "250ms RUN_FINISHED"}
		if got := eventTimes(rec.streamRecorder); !reflect.DeepEqual(got, want) {
			t.Errorf("events arrived\n%v\nwant\n%v", got, want)
		}
	})
}

// slowWrites is a streamRecorder whose every write takes a while, as to a slow client.
type slowWrites struct {
	*streamRecorder
	delay time.Duration
}

func (r *slowWrites) Write(b []byte) (int, error) {
	time.Sleep(r.delay)
	return r.streamRecorder.Write(b)
}

// Events due at the same moment share one reading of the clock, but only until the
// next write: one that blocked makes the events after it carry the time they were sent.
func TestEventsDueTogetherShareTheClockUntilAWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		words := strings.Repeat("word ", 2000) // some 240 KB of frames: several writes
		s := newServer(t, "steps: [{text: "+strings.TrimSpace(words)+"}]", nil)
		req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/agui/chat", strings.NewReader(`{"messages":[]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(SpeedHeader, "0") // all due at once
		rec := &slowWrites{streamRecorder: newRecorder(), delay: time.Second}
		s.Handler().ServeHTTP(rec, req)
		rec.streamRecorder.Flush()
		events := rec.events(t)
		var stamps []int64
		for _, ev := range events {
			n, err := strconv.ParseInt(fmt.Sprint(ev.Fields[0].Value), 10, 64)
			if ev.Fields[0].Name != "timestamp" || err != nil {
				t.Fatalf("no timestamp first in %+v", ev)
			}
			stamps = append(stamps, n)
		}
		distinct := slices.Compact(slices.Clone(stamps))
		if !slices.IsSorted(stamps) || len(distinct) < 3 || len(distinct) > len(events)/100 {
			t.Errorf("%d events carry %d distinct times (%v … %v), want a few, one a write, never going back", len(events), len(distinct), stamps[0], stamps[len(stamps)-1])
		}
		if last, first := stamps[len(stamps)-1], stamps[0]; last-first < int64(len(distinct)-1)*1000 {
			t.Errorf("the times span %d ms over %d writes of a second each", last-first, len(distinct))
		}
	})
}
