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
	var v protocol.Verifier
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
