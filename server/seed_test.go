package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// seededScenario is the seeded trip of testdata/seeded-trip.yaml, which the end-to-end
// suite plays too, and a clock: a run whose text and interrupt tell the time.
func seededScenario(t *testing.T) string {
	t.Helper()
	trip, err := os.ReadFile("../testdata/seeded-trip.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(trip) + clockScenario
}

// clockScenario tells the time: now and fromNow in its text, an interrupt that expires.
const clockScenario = `---
id: clock
match: {message: '(?i)^what time'}
timing: {jitter: 0}
steps:
  - text: 'It is {{ now }}; offer ends {{ fromNow "1h" }}.'
  - interrupt:
      - message: Remind you?
        expiresIn: 10m
        on:
          resolved: [{text: 'Reminder set, {{ Name }}.'}]
`

// conversation plays the trip conversation on a thread of its own, every id the client
// sends made from tag, and returns what the client got: each event with the offset from
// its run's start at which it arrived, without its timestamp, and with the client's
// ids masked.
func conversation(t *testing.T, s *Server, tag string, header map[string]string) string {
	t.Helper()
	thread, run1, run2, user := "thread-"+tag, "run-1-"+tag, "run-2-"+tag, "user-"+tag
	mask := strings.NewReplacer(thread, "THREAD", run1, "RUN-1", run2, "RUN-2", user, "USER")
	first := post(t.Context(), s, "/", `{"threadId":"`+thread+`","runId":"`+run1+`","messages":[{"id":"`+user+`","role":"user","content":"Plan a trip"}]}`, header)
	events := first.events(t)
	outcome, _ := events[len(events)-1].Get("outcome")
	interrupts, _ := outcome.(map[string]any)["interrupts"].([]any)
	if len(interrupts) != 1 {
		t.Fatalf("the first run did not end on one interrupt: %s", first.body())
	}
	interruptID := interrupts[0].(map[string]any)["id"].(string)
	second := post(t.Context(), s, "/", `{"threadId":"`+thread+`","runId":"`+run2+`","messages":[{"id":"`+user+`","role":"user","content":"Plan a trip"}],`+
		`"resume":[{"interruptId":"`+interruptID+`","status":"resolved","payload":{"name":"Ada"}}]}`, header)
	return mask.Replace(arrivals(t, first) + "---\n" + arrivals(t, second))
}

// arrivals lists a recorded stream's events as "offset event", timestamps left out.
func arrivals(t *testing.T, rec *streamRecorder) string {
	t.Helper()
	var b strings.Builder
	for _, w := range rec.writes {
		events, err := protocol.ReadEvents(strings.NewReader(w.data), 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range events {
			data, _ := json.Marshal(ev.Without("timestamp"))
			fmt.Fprintf(&b, "%s %s\n", w.at, data)
		}
	}
	return b.String()
}

func TestASeedReproducesAConversationWhateverIdsTheClientSends(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fresh := newServer(t, seededScenario(t), func(c *Config) { c.Seed = 42 })
		want := conversation(t, fresh, "a", nil)
		if !strings.Contains(want, `"outcome":{"interrupts":[{"id":"int-`) || !strings.Contains(want, `"delta":"Ada "`) {
			t.Fatalf("the conversation did not pause and continue:\n%s", want)
		}
		if got := conversation(t, fresh, "b", nil); got != want {
			t.Errorf("the same conversation on another thread of the same server:\n%s\nwant:\n%s", got, want)
		}

		// a server that has served other tests and threads first, some of the same scenario
		used := newServer(t, seededScenario(t), func(c *Config) { c.Seed = 42 })
		post(t.Context(), used, "/", `{"threadId":"other","runId":"o1","messages":[{"role":"user","content":"Plan a trip to Rome"}]}`, nil)
		post(t.Context(), used, "/", `{"messages":[{"role":"user","content":"Plan a trip"}]}`, map[string]string{TestIDHeader: "another-test"})
		if got := conversation(t, used, "c", map[string]string{TestIDHeader: "this-test"}); got != want {
			t.Errorf("the same conversation on a server that served others first:\n%s\nwant:\n%s", got, want)
		}

		// several at once, beside other threads
		var wg sync.WaitGroup
		got := make([]string, 4)
		for i := range got {
			wg.Go(func() { got[i] = conversation(t, used, fmt.Sprint("parallel-", i), nil) })
			wg.Go(func() {
				post(t.Context(), used, "/", fmt.Sprintf(`{"threadId":"busy-%d","runId":"r","messages":[{"role":"user","content":"Plan a trip, %d"}]}`, i, i), nil)
			})
		}
		wg.Wait()
		for i, g := range got {
			if g != want {
				t.Errorf("conversation %d of several at once:\n%s\nwant:\n%s", i, g, want)
			}
		}

		// what the user says decides the stream too
		firstRun, _, _ := strings.Cut(want, "---\n")
		other := arrivals(t, post(t.Context(), newServer(t, seededScenario(t), func(c *Config) { c.Seed = 42 }), "/",
			`{"threadId":"THREAD","runId":"RUN-1","messages":[{"id":"USER","role":"user","content":"Plan a trip to Oslo"}]}`, nil))
		if other == firstRun {
			t.Errorf("another user text played the same run:\n%s", other)
		}
	})
}

func TestAnotherSeedOrNoSeedPlaysAnotherConversation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		want := conversation(t, newServer(t, seededScenario(t), func(c *Config) { c.Seed = 42 }), "a", nil)
		if got := conversation(t, newServer(t, seededScenario(t), func(c *Config) { c.Seed = 43 }), "a", nil); got == want {
			t.Error("another seed played the same conversation")
		}
		unseeded := newServer(t, seededScenario(t), func(c *Config) { c.Seed = 0 })
		if conversation(t, unseeded, "a", nil) == conversation(t, unseeded, "b", nil) {
			t.Error("without a seed, two threads played the same conversation")
		}
	})
}

func TestAFixedTimeMakesResponsesByteIdentical(t *testing.T) {
	fixed := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	configure := func(c *Config) { c.Seed, c.Speed, c.FixedTime = 42, 0, fixed }
	respond := func(s *Server, runID, body string) string {
		t.Helper()
		rec := post(t.Context(), s, "/", `{"threadId":"t","runId":"`+runID+`",`+body+`}`, map[string]string{TestIDHeader: "bytes"})
		if rec.status != 200 {
			t.Fatalf("status %d: %s", rec.status, rec.body())
		}
		return rec.body()
	}
	const ask = `"messages":[{"id":"u","role":"user","content":"What time is it?"}]`
	play := func(s *Server) string {
		first := respond(s, "r1", ask)
		at := strings.Index(first, `"interrupts":[{"expiresAt"`)
		if at < 0 {
			t.Fatalf("no interrupt:\n%s", first)
		}
		id := first[strings.Index(first, `"id":"int-`)+6:]
		id = id[:strings.IndexByte(id, '"')]
		// resolved although the fixed time lies in the past: expiry counts on the run's clock
		return first + respond(s, "r2", ask+`,"resume":[{"interruptId":"`+id+`","status":"resolved"}]`)
	}
	fresh := newServer(t, seededScenario(t), configure)
	want := play(fresh)

	used := newServer(t, seededScenario(t), configure)
	post(t.Context(), used, "/", `{"threadId":"t","runId":"o","messages":[{"role":"user","content":"Plan a trip"}]}`, nil)
	if got := play(used); got != want {
		t.Errorf("a server that served others first:\n%s\nwant, byte for byte:\n%s", got, want)
	}
	call(t, fresh, "POST", "/_mock/reset", "", map[string]string{TestIDHeader: "bytes"})
	if got := play(fresh); got != want {
		t.Errorf("the same requests after a reset:\n%s\nwant, byte for byte:\n%s", got, want)
	}

	// the timestamps, their id lines, now, fromNow and expiresAt follow the fixed time
	// and the scenario's schedule (default timing: RUN_STARTED at 50ms, the text at 450ms,
	// its six words 25ms apart, the interrupt and the run's end 120ms after each other)
	for _, part := range []string{
		"id: RUN_STARTED_1767258000050\ndata: {\"type\":\"RUN_STARTED\",\"timestamp\":1767258000050,",
		`"delta":"2026-01-01T09:00:00Z; "`, `"delta":"2026-01-01T10:00:00.45Z."`,
		`"expiresAt":"2026-01-01T09:10:00.695Z"`,
		"id: RUN_FINISHED_1767258000815\ndata: {\"type\":\"RUN_FINISHED\",\"timestamp\":1767258000815,",
	} {
		if !strings.Contains(want, part) {
			t.Errorf("the response lacks %q:\n%s", part, want)
		}
	}
}

// expiringScenarios raise interrupts that expire 10 minutes after they are sent: one
// with expiresIn, one, in the recorded form, with an expiresAt made by fromNow.
const expiringScenarios = `
id: steps
match: {message: ^steps$}
steps:
  - interrupt:
      - {id: i1, expiresIn: 10m, on: {resolved: [{text: done}]}}
---
id: recorded
match: {message: ^recorded$}
events:
  - {delay: 1, type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
  - {delay: 1, type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ .runId }}', outcome: {type: interrupt, interrupts: [{id: i1, reason: confirmation, expiresAt: '{{ fromNow "10m" }}'}]}}
next:
  - when: {resume: [{status: resolved}]}
    events:
      - {delay: 1, type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
      - {delay: 1, type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
`

func TestUnderAFixedTimeInterruptsExpireAsLongAfterTheyAreSent(t *testing.T) {
	for _, scenario := range []string{"steps", "recorded"} {
		t.Run(scenario, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// years before the wall clock: read as a wall-clock time, every answer would be late
				s := newServer(t, expiringScenarios, func(c *Config) { c.FixedTime = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC) })
				for _, thread := range []string{"early", "late"} {
					first := post(t.Context(), s, "/", `{"threadId":"`+thread+`","runId":"r1","messages":[{"role":"user","content":"`+scenario+`"}]}`, nil)
					if !strings.Contains(first.body(), `"expiresAt":"2020-01-01T00:10:00`) {
						t.Fatalf("the interrupt does not expire 10 minutes after the fixed time:\n%s", first.body())
					}
				}
				resume := func(thread string) *streamRecorder {
					return post(t.Context(), s, "/", `{"threadId":"`+thread+`","runId":"r2","messages":[],"resume":[{"interruptId":"i1","status":"resolved"}]}`, nil)
				}
				time.Sleep(9 * time.Minute)
				wantResumeAnswer(t, resume("early"), http.StatusOK, "", "")
				time.Sleep(2 * time.Minute)
				if rec := resume("late"); rec.status != http.StatusBadRequest || !strings.Contains(rec.body(), `"error":"interrupt_expired"`) {
					t.Errorf("an answer 11 minutes after the interrupt got %d %s, want interrupt_expired", rec.status, rec.body())
				}
			})
		})
	}
}
