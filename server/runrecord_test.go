package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
)

// runDetailOf answers GET /_mock/journal/:seq, decoded.
func runDetailOf(t *testing.T, s *Server, seq string) (int, runDetailJSON) {
	t.Helper()
	status, body := call(t, s, http.MethodGet, AdminPrefix+"/journal/"+seq, "", nil)
	var d runDetailJSON
	if status == 200 {
		if err := json.Unmarshal([]byte(body), &d); err != nil {
			t.Fatal(err)
		}
	}
	return status, d
}

type runDetailJSON struct {
	Entry struct {
		Seq       int64
		Scenario  string
		Selection string
		Error     string
		Details   struct{ Candidates []struct{ ID string } }
	}
	Kept    bool
	Gone    string
	Clipped string
	Events  []struct {
		AtMs   float64
		Event  map[string]any
		Stream *struct{ Family, ID, Delta string }
	}
	Pauses []struct {
		AtMs, Ms   float64
		Breakpoint string
	}
	Fault  string
	Source string
	Match  []struct {
		Criterion, Want string
		Held            bool
	}
}

const greetYAML = "id: greet\nmatch: {message: ^hello, headers: {x-client: ^web$}}\n" +
	"timing: {firstEvent: 0, firstToken: 0, stepGap: 200ms, tokensPerSecond: 1000, jitter: 0}\nsteps:\n  - text: one\n  - text: two\n    id: second\n"

func TestARunKeepsItsEventsWithTheirOffsetsAndWhyItMatched(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, greetYAML, nil)
		call(t, s, http.MethodPost, AdminPrefix+"/breakpoints", `{"step":"second"}`, nil)
		done := make(chan *streamRecorder)
		go func() {
			done <- post(t.Context(), s, "/agui/chat", `{"messages":[{"role":"user","content":"hello"}]}`, map[string]string{"X-Client": "web"})
		}()
		synctest.Wait()
		call(t, s, http.MethodPost, AdminPrefix+"/breakpoints/bp-1/release", "", nil)
		events := (<-done).events(t)
		status, d := runDetailOf(t, s, "1")
		if status != 200 || !d.Kept || len(d.Events) != len(events) {
			t.Fatalf("%d kept %v, %d events, want %d", status, d.Kept, len(d.Events), len(events))
		}
		if d.Entry.Scenario != "greet" || d.Entry.Selection != "matched" || !strings.HasPrefix(d.Source, "d/test.yaml:") {
			t.Errorf("entry %+v, source %s", d.Entry, d.Source)
		}
		// the second text is due at 200 ms, after the pause at the breakpoint, which took no time here
		if last := d.Events[len(d.Events)-1]; last.Event["type"] != "RUN_FINISHED" || last.AtMs < 200 {
			t.Errorf("last event %v", last)
		}
		if len(d.Pauses) != 1 || d.Pauses[0].Breakpoint != "bp-1" {
			t.Errorf("pauses %+v", d.Pauses)
		}
		if len(d.Match) != 2 || d.Match[0].Criterion != "message" || !d.Match[0].Held || d.Match[1].Criterion != "headers" || !d.Match[1].Held {
			t.Errorf("match %+v", d.Match)
		}
	})
}

func TestANearMissKeepsItsCandidates(t *testing.T) {
	s := newServer(t, greetYAML, nil)
	post(t.Context(), s, "/agui/chat", `{"messages":[{"role":"user","content":"bye"}]}`, nil)
	status, d := runDetailOf(t, s, "1")
	if status != 200 || d.Kept || d.Entry.Error != "no_scenario" || len(d.Entry.Details.Candidates) != 1 || d.Entry.Details.Candidates[0].ID != "greet" {
		t.Errorf("%d %+v", status, d)
	}
}

func TestOnlyTheLatestRunsKeepTheirEvents(t *testing.T) {
	s := newServer(t, "steps: [{text: hi}]\n", func(c *Config) { c.JournalEvents = 1 })
	for range 2 {
		post(t.Context(), s, "/agui/chat", `{"messages":[]}`, map[string]string{SpeedHeader: "0"})
	}
	if _, d := runDetailOf(t, s, "1"); d.Kept || len(d.Events) != 0 || d.Entry.Seq != 1 {
		t.Errorf("the older run kept its events: %+v", d)
	}
	if _, d := runDetailOf(t, s, "2"); !d.Kept || len(d.Events) == 0 {
		t.Errorf("the latest run lost its events: %+v", d)
	}
	none := newServer(t, "steps: [{text: hi}]\n", func(c *Config) { c.JournalEvents = 0 })
	post(t.Context(), none, "/agui/chat", `{"messages":[]}`, map[string]string{SpeedHeader: "0"})
	if _, d := runDetailOf(t, none, "1"); d.Kept {
		t.Error("with -journal-events 0 a run kept its events")
	}
}

// TestRunRecordsStayWithinTheirByteBudget: runs that echo a large message make the run
// records evict the least recently used past --journal-max-bytes, and a run that alone
// passes a quarter of it keeps its first events; the journal says which and why.
func TestRunRecordsStayWithinTheirByteBudget(t *testing.T) {
	const budget = 4 << 20
	s := newServer(t, "match: {message: '(?s)^echo'}\nsteps: [{text: '{{ .message }}'}]\n", func(c *Config) { c.JournalMaxBytes = budget })
	echo := func(size int) {
		body := `{"messages":[{"role":"user","content":"echo ` + strings.Repeat("x", size) + `"}]}`
		if rec := post(t.Context(), s, "/agui/chat", body, map[string]string{SpeedHeader: "0"}); rec.status != http.StatusOK {
			t.Fatalf("%d %s", rec.status, rec.body())
		}
	}
	echo(2 << 20) // 1: past a quarter of the budget
	_, d := runDetailOf(t, s, "1")
	if !d.Kept || !strings.Contains(d.Clipped, "--journal-max-bytes") || len(d.Events) == 0 || strings.Contains(d.Clipped, "of the run's 0 events") {
		t.Fatalf("a run past its share keeps its first events and says so: kept %v, %d events, clipped %q", d.Kept, len(d.Events), d.Clipped)
	}
	for range 6 { // 2–7
		echo(900 << 10)
	}
	if _, d := runDetailOf(t, s, "2"); d.Kept || !strings.Contains(d.Gone, "--journal-max-bytes") {
		t.Errorf("an old run's record is kept past the budget, or its entry does not say why it went: kept %v, gone %q", d.Kept, d.Gone)
	}
	oldest := 3 // the oldest run still kept, which reading makes the most recently used
	for ; oldest <= 7; oldest++ {
		if _, d := runDetailOf(t, s, strconv.Itoa(oldest)); d.Kept {
			break
		}
	}
	if oldest >= 6 {
		t.Fatalf("the records of runs 5 to 7, within the budget together, are not all kept: the oldest kept is %d", oldest)
	}
	echo(900 << 10) // 8: evicts the run after the oldest, the least recently used now
	if _, d := runDetailOf(t, s, strconv.Itoa(oldest)); !d.Kept || d.Clipped != "" {
		t.Errorf("the run read last was evicted before one not read, or lost events: kept %v, clipped %q", d.Kept, d.Clipped)
	}
	if _, d := runDetailOf(t, s, strconv.Itoa(oldest+1)); d.Kept {
		t.Error("the least recently used run was not evicted")
	}
	if used := s.runs.bytes; used > budget {
		t.Errorf("the run records keep %d bytes, budget %d", used, budget)
	}
}

func TestAnUnknownOrMalformedEntryNumberIsNamed(t *testing.T) {
	s := newServer(t, "", nil)
	if status, body := call(t, s, http.MethodGet, AdminPrefix+"/journal/7", "", nil); status != 404 || !strings.Contains(body, "unknown_entry") {
		t.Errorf("%d %s", status, body)
	}
	if status, body := call(t, s, http.MethodGet, AdminPrefix+"/journal/x", "", nil); status != 400 || !strings.Contains(body, `"field":"seq"`) {
		t.Errorf("%d %s", status, body)
	}
}

func TestSpeedPerTest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, "timing: {firstEvent: 0, firstToken: 0, stepGap: 1s, tokensPerSecond: 1000, jitter: 0}\nsteps: [{text: a}, {text: b}]\n", nil)
		if status, body := call(t, s, http.MethodPost, AdminPrefix+"/speed", `{"speed":0}`, map[string]string{TestIDHeader: "fast"}); status != 200 {
			t.Fatal(status, body)
		}
		took := func(testID string) string {
			got := eventTimes(post(t.Context(), s, "/agui/chat", `{"messages":[]}`, map[string]string{TestIDHeader: testID}))
			return got[len(got)-1]
		}
		if got := took("fast"); got != "0s RUN_FINISHED" {
			t.Errorf("the fast test's run: %s", got)
		}
		if got := took("other"); got == "0s RUN_FINISHED" {
			t.Error("another test's run played at the fast test's speed")
		}
		call(t, s, http.MethodDelete, AdminPrefix+"/speed", "", map[string]string{TestIDHeader: "fast"})
		if got := took("fast"); got == "0s RUN_FINISHED" {
			t.Error("the speed survived its DELETE")
		}
		for body, want := range map[string]string{`{}`: "speed is required", `{"speed":-1}`: "finite number of 0 or more", `{"speed":"x"}`: "speed must be a number"} {
			if status, got := call(t, s, http.MethodPost, AdminPrefix+"/speed", body, nil); status != 400 || !strings.Contains(got, want) {
				t.Errorf("%s: %d %s", body, status, got)
			}
		}
	})
}

// A run keeps the fault that struck it: at an event, or one that acts on the whole
// stream.
func TestARunKeepsTheFaultThatStruck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, "steps: [{text: one}, {text: two}]\n", nil)
		for i, fault := range []string{"truncate; after=2", "slowStart; delay=1s", ""} {
			header := map[string]string{SpeedHeader: "0"}
			if fault != "" {
				header[FaultHeader] = fault
			}
			post(t.Context(), s, "/agui/chat", `{"messages":[]}`, header)
			want := []string{"truncate", "slowStart", ""}[i]
			if _, d := runDetailOf(t, s, strconv.Itoa(i+1)); d.Fault != want {
				t.Errorf("%q: fault %q, want %q", fault, d.Fault, want)
			}
		}
	})
}

// TestARunsEventsSayTheStreamOfTheirDeltas plays chunks of which only the first names
// its message: the run's page is told that each belongs to that message's text, and
// which member holds its delta; other events belong to no stream.
func TestARunsEventsSayTheStreamOfTheirDeltas(t *testing.T) {
	s := newServer(t, `
events:
  - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
  - {type: TEXT_MESSAGE_CHUNK, messageId: m1, delta: "Streamed "}
  - {type: TEXT_MESSAGE_CHUNK, delta: "in chunks."}
  - {type: RUN_FINISHED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
`, nil)
	post(t.Context(), s, "/agui/chat", `{"messages":[]}`, map[string]string{SpeedHeader: "0"})
	_, d := runDetailOf(t, s, "1")
	if len(d.Events) != 4 {
		t.Fatalf("events %+v", d.Events)
	}
	for i, e := range d.Events {
		chunk := i == 1 || i == 2
		if got := e.Stream; chunk != (got != nil) || (chunk && (got.Family != "text" || got.ID != "m1" || got.Delta != "delta")) {
			t.Errorf("event %d (%v): stream %+v", i, e.Event["type"], got)
		}
	}
}

// TestWhatTheBudgetsKeepIsAllThatStaysAlive: runs that echo a large message into
// reasoning and text, past the journal's and the threads' budgets, leave the heap no
// larger than the budgets allow: a record that keeps a run's first deltas keeps neither
// the rest of the text they were cut from nor the deltas it left out.
func TestWhatTheBudgetsKeepIsAllThatStaysAlive(t *testing.T) {
	const records, threads = 2 << 20, 1 << 20
	s := newServer(t, "match: {message: '(?s)^echo'}\nsteps:\n  - reasoning: 'Let me think about {{ .message }}'\n  - text: 'You said {{ .message }}'\n",
		func(c *Config) { c.Speed = 0; c.JournalMaxBytes = records; c.Threads.MaxBytes = threads })
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	runs := 8 // of 4 MiB each, 32 MiB in all
	if testing.Short() {
		runs = 4 // 16 MiB, still well past what the budgets allow to grow
	}
	for i := range runs {
		body := fmt.Sprintf(`{"threadId":"t%d","messages":[{"role":"user","content":"echo %s"}]}`, i, strings.Repeat(strings.Repeat("w", 64<<10)+" ", 64))
		if rec := post(t.Context(), s, "/agui/chat", body, map[string]string{SpeedHeader: "0"}); rec.status != http.StatusOK {
			t.Fatalf("%d %s", rec.status, rec.body())
		}
	}
	runtime.GC()
	runtime.GC() // and what pools kept until the last collection
	runtime.ReadMemStats(&after)
	grown, most := int64(after.HeapAlloc)-int64(before.HeapAlloc), int64(3*(records+threads))
	t.Logf("the heap grew by %d KiB", grown>>10)
	if grown > most {
		t.Errorf("the heap grew by %d MiB, past the %d MiB that budgets of %d MiB together allow", grown>>20, most>>20, (records+threads)>>20)
	}
	runtime.KeepAlive(s)
}
