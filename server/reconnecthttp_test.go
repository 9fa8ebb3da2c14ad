package server

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// slowScenario plays for about two seconds, one short text event at a time.
const slowScenario = `
id: slow
match:
  message: slow
timing:
  firstToken: 0s
  tokensPerSecond: 25
steps:
  - text: one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty twenty-one twenty-two twenty-three twenty-four twenty-five twenty-six twenty-seven twenty-eight twenty-nine thirty
`

// sseEvent is one frame of an SSE stream: its id and its event, without its timestamp.
type sseEvent struct {
	id, data string
}

// slowRunBody is the run input of a slow run on thread.
func slowRunBody(thread string) string {
	return `{"threadId":"` + thread + `","runId":"r1","messages":[{"id":"m1","role":"user","content":"slow"}]}`
}

// postSlowRun posts a run input to the server at addr with the given Last-Event-ID ("":
// none), and the headers of header.
func postSlowRun(t *testing.T, addr, body, lastID string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://"+addr+"/agui/chat", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if lastID != "" {
		req.Header.Set(lastEventIDHeader, lastID)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// readSSEEvents reads up to n events of a stream (n < 0: to its end), each with its
// timestamp and thread taken out, so that the events of two runs compare.
func readSSEEvents(t *testing.T, r *bufio.Reader, n int) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	for n < 0 || len(out) < n {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, "id: "):
			cur.id = line[4:]
		case strings.HasPrefix(line, "data: "):
			var ev map[string]any
			if err := json.Unmarshal([]byte(line[6:]), &ev); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			delete(ev, "timestamp")
			delete(ev, "threadId") // runs on two threads compare
			b, _ := json.Marshal(ev)
			cur.data = string(b)
		case line == "" && cur.data != "":
			out = append(out, cur)
			cur = sseEvent{}
		}
	}
	return out
}

func sseData(events []sseEvent) []string {
	out := make([]string, len(events))
	for i, ev := range events {
		out[i] = ev.data
	}
	return out
}

// cursorGrace is how long newCursorServer's runs wait for their client to come back.
const cursorGrace = 30 * time.Second

func newCursorServer(t *testing.T) string {
	t.Helper()
	s := newServer(t, slowScenario, func(c *Config) { c.Reconnect.Cursor = true; c.Reconnect.Grace = cursorGrace })
	addr, _ := serveOn(t, s)
	return addr
}

func TestAClientReconnectsWithLastEventIDAndGetsTheRest(t *testing.T) {
	t.Parallel()
	addr := newCursorServer(t)
	whole := postSlowRun(t, addr, slowRunBody("whole"), "", SpeedHeader, "0") // the same events, unpaced
	want := readSSEEvents(t, bufio.NewReader(whole.Body), -1)
	whole.Body.Close()
	if len(want) < 20 {
		t.Fatalf("the uninterrupted run has %d events", len(want))
	}

	first := postSlowRun(t, addr, slowRunBody("cut"), "")
	got := readSSEEvents(t, bufio.NewReader(first.Body), 5)
	first.Body.Close() // drops the connection in the middle of the run
	last := got[len(got)-1].id
	again := postSlowRun(t, addr, slowRunBody("cut"), last)
	if again.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(again.Body)
		t.Fatalf("reconnecting: %d %s", again.StatusCode, b)
	}
	got = append(got, readSSEEvents(t, bufio.NewReader(again.Body), -1)...)
	again.Body.Close()

	if !slices.Equal(sseData(got), sseData(want)) {
		t.Fatalf("the stream read in two parts differs from the uninterrupted one:\n%q\nwant\n%q", sseData(got), sseData(want))
	}
	token, _, _ := strings.Cut(got[0].id, ".")
	for i, ev := range got {
		if ev.id != token+"."+strconv.Itoa(i+1) {
			t.Fatalf("event %d has id %q, want %s.%d", i, ev.id, token, i+1)
		}
	}
}

func TestACursorThatCannotBeFollowedIsRefused(t *testing.T) {
	addr := newCursorServer(t)
	first := postSlowRun(t, addr, slowRunBody("mine"), "")
	events := readSSEEvents(t, bufio.NewReader(first.Body), 2)
	defer first.Body.Close()
	cursor := events[1].id
	token, _, _ := strings.Cut(cursor, ".")
	for _, c := range []struct {
		name, body, lastID string
		status             int
		code               string
	}{
		{"another thread's", slowRunBody("theirs"), cursor, http.StatusConflict, "reconnect_mismatch"},
		{"unknown", slowRunBody("mine"), strings.Repeat("Q", tokenLen) + ".2", http.StatusGone, "reconnect_expired"},
		{"not a cursor", slowRunBody("mine"), "RUN_STARTED_1795989888731", http.StatusBadRequest, "invalid_cursor"},
		{"ahead of the run", slowRunBody("mine"), token + ".100000", http.StatusBadRequest, "invalid_cursor"},
	} {
		resp := postSlowRun(t, addr, c.body, c.lastID)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(string(b), `"`+c.code+`"`) {
			t.Errorf("%s cursor: %d %s, want %d %s", c.name, resp.StatusCode, b, c.status, c.code)
		}
	}
}

func TestTheCancelRouteCancelsARunWaitingForItsClientAtOnce(t *testing.T) {
	addr := newCursorServer(t)
	first := postSlowRun(t, addr, slowRunBody("cancelled"), "")
	events := readSSEEvents(t, bufio.NewReader(first.Body), 3)
	first.Body.Close()
	started := time.Now()
	resp, err := http.Post("http://"+addr+CancelPath, "application/json", strings.NewReader(`{"threadId":"cancelled"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	// At once: not when the run's wait for its client would end.
	if took := time.Since(started); !strings.Contains(string(b), `"cancelled":true`) || took >= cursorGrace/2 {
		t.Fatalf("cancel answered %s after %v", b, took)
	}
	// The cancelled run's end is kept for a client that comes back.
	again := postSlowRun(t, addr, slowRunBody("cancelled"), events[2].id)
	rest := readSSEEvents(t, bufio.NewReader(again.Body), -1)
	again.Body.Close()
	if len(rest) == 0 || !strings.Contains(rest[len(rest)-1].data, "cancelled") {
		t.Errorf("after the cancel the reconnected client reads %q", sseData(rest))
	}
}

func TestWithoutCursorIDsLastEventIDIsIgnored(t *testing.T) {
	s := newServer(t, slowScenario, func(c *Config) { c.Speed = 0 })
	addr, _ := serveOn(t, s)
	resp := postSlowRun(t, addr, slowRunBody("plain"), "RUN_STARTED_1")
	events := readSSEEvents(t, bufio.NewReader(resp.Body), -1)
	resp.Body.Close()
	if len(events) == 0 || !strings.Contains(events[0].data, "RUN_STARTED") || !strings.HasPrefix(events[0].id, "RUN_STARTED_") {
		t.Errorf("a run with Last-Event-ID and seed-format ids starts %v", events[:min(len(events), 1)])
	}
}
