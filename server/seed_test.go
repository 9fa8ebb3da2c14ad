package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/agui-mock/agui-mock/protocol"
)

// seededScenario is a two-run conversation full of what a seed decides: fake data,
// generated ids (of messages, tool calls and the interrupt) and jittered timing.
const seededScenario = `
id: trip
match: {message: '(?i)^plan a trip'}
timing: {tokensPerSecond: 20, jitter: 0.5}
steps:
  - text: '{{ Name }} from {{ City }} will be your guide ({{ id "guide" }}).'
  - tool: {name: book, args: {guide: '{{ id "guide" }}'}}
    id: booking
  - interrupt:
      - message: Book with {{ Company }}?
        toolCall: booking
        on:
          resolved:
            - toolResult: '{"ref":"{{ UUID }}"}'
            - text: Booked for {{ .answer.payload.name }} with {{ FirstName }}, seat {{ Number 1 99 }}.
          cancelled:
            - text: Not booked.
  - text: '{{ Sentence 6 }}'
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
	outcome, _ := first.events(t)[len(first.events(t))-1].Get("outcome")
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
		fresh := newServer(t, seededScenario, func(c *Config) { c.Seed = 42 })
		want := conversation(t, fresh, "a", nil)
		if !strings.Contains(want, `"outcome":{"interrupts":[{"id":"int-`) || !strings.Contains(want, `"delta":"Ada "`) {
			t.Fatalf("the conversation did not pause and continue:\n%s", want)
		}
		if got := conversation(t, fresh, "b", nil); got != want {
			t.Errorf("the same conversation on another thread of the same server:\n%s\nwant:\n%s", got, want)
		}

		// a server that has served other tests and threads first, some of the same scenario
		used := newServer(t, seededScenario, func(c *Config) { c.Seed = 42 })
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
		other := arrivals(t, post(t.Context(), newServer(t, seededScenario, func(c *Config) { c.Seed = 42 }), "/",
			`{"threadId":"THREAD","runId":"RUN-1","messages":[{"id":"USER","role":"user","content":"Plan a trip to Oslo"}]}`, nil))
		if other == firstRun {
			t.Errorf("another user text played the same run:\n%s", other)
		}
	})
}

func TestAnotherSeedOrNoSeedPlaysAnotherConversation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		want := conversation(t, newServer(t, seededScenario, func(c *Config) { c.Seed = 42 }), "a", nil)
		if got := conversation(t, newServer(t, seededScenario, func(c *Config) { c.Seed = 43 }), "a", nil); got == want {
			t.Error("another seed played the same conversation")
		}
		unseeded := newServer(t, seededScenario, func(c *Config) { c.Seed = 0 })
		if conversation(t, unseeded, "a", nil) == conversation(t, unseeded, "b", nil) {
			t.Error("without a seed, two threads played the same conversation")
		}
	})
}
