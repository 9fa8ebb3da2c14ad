package loadtest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agui-mock/agui-mock/internal/testkit"
	"github.com/agui-mock/agui-mock/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestSummarize(t *testing.T) {
	var sample []time.Duration
	for i := 100; i >= 1; i-- {
		sample = append(sample, time.Duration(i)*time.Millisecond)
	}
	s := Summarize(sample)
	if s.Count != 100 || s.P50 != 50*time.Millisecond || s.P99 != 99*time.Millisecond || s.Max != 100*time.Millisecond {
		t.Errorf("summary %+v", s)
	}
	if sample[0] != 100*time.Millisecond {
		t.Error("Summarize sorted the caller's sample")
	}
	if (Summarize(nil) != Summary{}) {
		t.Error("an empty sample has a summary")
	}
	one := Summarize([]time.Duration{7})
	if one.P50 != 7 || one.P99 != 7 || one.Max != 7 {
		t.Errorf("one value %+v", one)
	}
}

func TestSummarizeByPosition(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	// the third run is shorter: its missing gaps count in no position
	got := SummarizeByPosition([][]time.Duration{ms(1, 10, 100), ms(3, 30, 300), ms(2)})
	want := []Summary{
		{Count: 3, P50: 2 * time.Millisecond, P99: 3 * time.Millisecond, Max: 3 * time.Millisecond},
		{Count: 2, P50: 10 * time.Millisecond, P99: 30 * time.Millisecond, Max: 30 * time.Millisecond},
		{Count: 2, P50: 100 * time.Millisecond, P99: 300 * time.Millisecond, Max: 300 * time.Millisecond},
	}
	if !slices.Equal(got, want) {
		t.Errorf("by position\n got %+v\nwant %+v", got, want)
	}
	if SummarizeByPosition(nil) != nil || SummarizeByPosition([][]time.Duration{{}, nil}) != nil {
		t.Error("samples without values have positions")
	}
}

func TestRunMeasuresAStreamAgainstItsScript(t *testing.T) {
	floor := httptest.NewServer(newFloor(t, 5, 20*time.Millisecond))
	defer floor.Close()
	res, err := Run(context.Background(), Config{URL: floor.URL, Body: []byte(`{"n":{{n}}}`), Concurrency: 4, Runs: 8, ExpectGap: 20 * time.Millisecond, PID: os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Runs != 8 || res.Failed != 0 || res.Events != 40 || res.GapError.Count != 32 || res.Drift.Count != 8 {
		t.Errorf("result %+v", res)
	}
	if len(res.GapErrorByPosition) != 4 {
		t.Errorf("5-event runs have 4 gaps, got %d positions", len(res.GapErrorByPosition))
	}
	for i, s := range res.GapErrorByPosition {
		if s.Count != 8 {
			t.Errorf("gap %d was measured in %d runs, not 8", i+1, s.Count)
		}
	}
	// How little a run drifts is the machine's to say (a busy one drifts more), so this
	// checks only what holds on any: every run follows its 80 ms script, and no run can
	// drift by more than the whole load took.
	if res.Wall < 80*time.Millisecond || res.Drift.Max > res.Wall {
		t.Errorf("5-event runs with 20 ms gaps take at least 80 ms and drift less than the load took: %+v", res)
	}
	if res.RSSBefore == 0 {
		t.Error("the memory of this process was not read")
	}
}

func TestRunRampsUp(t *testing.T) {
	floor := httptest.NewServer(newFloor(t, 4, 0))
	defer floor.Close()
	res, err := Run(context.Background(), Config{URL: floor.URL, Body: []byte(`{}`), Concurrency: 4, Runs: 4, Ramp: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// the last run starts 3/4 of the ramp in: the load cannot end sooner
	if res.Failed != 0 || res.Wall < 150*time.Millisecond {
		t.Errorf("4 runs over a 200 ms ramp: %+v", res)
	}
}

func TestRunHoldsStreamsOpen(t *testing.T) {
	floor := httptest.NewServer(newFloor(t, 4, time.Hour))
	defer floor.Close()
	res, err := Run(context.Background(), Config{URL: floor.URL, Body: []byte(`{}`), Concurrency: 20, Hold: true, PID: os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Runs != 20 || res.Failed != 0 || res.RSSHeld == 0 {
		t.Errorf("held %+v", res)
	}
}

func TestRunCountsFailures(t *testing.T) {
	broken := testkit.Agent(t, func(w *testkit.Stream, run *testkit.Run) {
		if run.Request.URL.Query().Get("cut") != "" {
			w.Raw("data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n")
			return
		}
		if run.Request.URL.Query().Get("malformed") != "" {
			w.Raw("data: {\"type\":\n\n")
			return
		}
		w.Fail(http.StatusTeapot, `{"error":"no"}`)
	}).String()
	for _, url := range []string{broken, broken + "?cut=1", broken + "?malformed=1"} {
		res, err := Run(context.Background(), Config{URL: url, Body: []byte(`{}`), Concurrency: 2, Runs: 3})
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed != 3 || len(res.FirstFailures) == 0 {
			t.Errorf("%s: %+v", url, res)
		}
	}
	if _, err := Run(context.Background(), Config{URL: broken}); err == nil {
		t.Error("zero runs and concurrency were accepted")
	}
}

func newFloor(t *testing.T, events int, gap time.Duration) *Floor {
	t.Helper()
	f, err := NewFloor(events, gap)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestFloorStreamsOneValidTextMessage(t *testing.T) {
	rec := httptest.NewRecorder()
	newFloor(t, 6, 0).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}")))
	events, err := protocol.ReadEvents(rec.Body, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	var v protocol.RuleChecker
	var types []string
	for _, ev := range events {
		if err := v.Check(ev); err != nil {
			t.Errorf("%s: %v", ev.Type, err)
		}
		types = append(types, ev.Type)
	}
	want := []string{protocol.RunStarted, protocol.TextMessageStart, protocol.TextMessageContent, protocol.TextMessageContent, protocol.TextMessageEnd, protocol.RunFinished}
	if !slices.Equal(types, want) {
		t.Errorf("types %v, want %v", types, want)
	}
	if _, err := NewFloor(3, 0); err == nil || !strings.Contains(err.Error(), "at least 4") {
		t.Errorf("3 events: %v", err)
	}
}

func TestParseStat(t *testing.T) {
	// the command name may hold spaces and parentheses: fields count from its last ')'
	line := []byte("4242 (node (a) b) S 1 4242 4242 0 -1 4194304 1234 0 0 0 250 37 0 0 20 0 11 0 99 1 2\n")
	got, err := parseStat(line)
	if err != nil || got != 2870*time.Millisecond {
		t.Errorf("utime 250 + stime 37 ticks: %v, %v; want 2.87s", got, err)
	}
	for _, bad := range []string{"4242 node S 1", "4242 (x) S 1 2 3", "4242 (x) S 1 4242 4242 0 -1 4194304 1234 0 0 0 many 37 0"} {
		if _, err := parseStat([]byte(bad)); err == nil {
			t.Errorf("%q was read", bad)
		}
	}
	if _, err := CPUTime(os.Getpid()); err != nil {
		t.Errorf("this process: %v", err)
	}
}

func TestRunMeasuresTheServersCPU(t *testing.T) {
	floor := newFloor(t, 5, 0)
	// every run spends at least 20 ms of this process's CPU before it answers
	busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		from, err := CPUTime(os.Getpid())
		for now := from; err == nil && now < from+20*time.Millisecond; now, err = CPUTime(os.Getpid()) {
		}
		if err != nil {
			t.Error(err)
		}
		floor.ServeHTTP(w, r)
	}))
	defer busy.Close()
	res, err := Run(context.Background(), Config{URL: busy.URL, Body: []byte(`{}`), Concurrency: 1, Runs: 3, PID: os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 0 || res.ServerCPU < 60*time.Millisecond || res.CPUPerRun != res.ServerCPU/3 || res.CPUPerEvent != res.ServerCPU/15 {
		t.Errorf("3 runs of 5 events and at least 20 ms of CPU each: %+v", res)
	}
	if _, err := Run(context.Background(), Config{URL: busy.URL, Body: []byte(`{}`), Concurrency: 1, Runs: 1, PID: 1 << 30}); err == nil || !strings.Contains(err.Error(), "CPU time of process") {
		t.Errorf("a process that is not there: %v", err)
	}
}

func TestOneWriteFloorWritesTheRunAtOnce(t *testing.T) {
	f, err := NewOneWriteFloor(6)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(f)
	defer srv.Close()
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// written at once as the handler returned, the run has a length and no chunks
	if resp.ContentLength <= 0 || len(resp.TransferEncoding) != 0 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("length %d, transfer encoding %v, headers %v", resp.ContentLength, resp.TransferEncoding, resp.Header)
	}
	events, err := protocol.ReadEvents(resp.Body, 1<<10)
	if err != nil || len(events) != 6 || events[5].Type != protocol.RunFinished {
		t.Errorf("%d events, %v", len(events), err)
	}
	if _, err := NewOneWriteFloor(3); err == nil {
		t.Error("a one-write run of 3 events was built")
	}
}
