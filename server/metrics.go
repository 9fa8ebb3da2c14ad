package server

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/threads"
)

// metricsPath is where the metrics are served, with Config.Metrics.
const metricsPath = "/metrics"

// metricSet is a handful of Prometheus metrics, written in the text exposition format
// by hand: a client library would cost more binary size than the whole feature.
type metricSet struct {
	mu      sync.Mutex
	runs    map[[2]string]int64 // scenario, outcome
	waiting map[string]int64    // scenario: runs that left interrupts waiting for an answer
	active  int64
	events  int64
	reloads map[string]int64 // ok, rejected
}

func (m *metricSet) runStarted() {
	m.mu.Lock()
	m.active++
	m.mu.Unlock()
}

// runEnded counts a run that has ended with outcome, leaving awaiting interrupts
// waiting for an answer.
func (m *metricSet) runEnded(scenario string, outcome protocol.Outcome, awaiting, events int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.active--
	if m.runs == nil {
		m.runs, m.waiting = map[[2]string]int64{}, map[string]int64{}
	}
	m.runs[[2]string{scenario, string(outcome)}]++
	if awaiting > 0 {
		m.waiting[scenario]++
	}
	m.events += int64(events)
}

func (m *metricSet) reloaded(ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.reloads == nil {
		m.reloads = map[string]int64{}
	}
	result := "ok"
	if !ok {
		result = "rejected"
	}
	m.reloads[result]++
}

// serve writes the metrics, with what the threads keep (held).
func (m *metricSet) serve(c echo.Context, held threads.Usage) error {
	m.mu.Lock()
	var b strings.Builder
	b.WriteString("# HELP agui_mock_runs_total Runs played, by scenario and outcome.\n# TYPE agui_mock_runs_total counter\n")
	keys := make([][2]string, 0, len(m.runs))
	for k := range m.runs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+keys[i][1] < keys[j][0]+keys[j][1] })
	for _, k := range keys {
		fmt.Fprintf(&b, "agui_mock_runs_total{scenario=%q,outcome=%q} %d\n", k[0], k[1], m.runs[k])
	}
	b.WriteString("# HELP agui_mock_runs_awaiting_total Runs that ended leaving interrupts waiting for an answer, whatever their outcome, by scenario.\n# TYPE agui_mock_runs_awaiting_total counter\n")
	for _, scenario := range slices.Sorted(maps.Keys(m.waiting)) {
		fmt.Fprintf(&b, "agui_mock_runs_awaiting_total{scenario=%q} %d\n", scenario, m.waiting[scenario])
	}
	fmt.Fprintf(&b, "# HELP agui_mock_active_streams Streams open now.\n# TYPE agui_mock_active_streams gauge\nagui_mock_active_streams %d\n", m.active)
	fmt.Fprintf(&b, "# HELP agui_mock_events_total Events sent.\n# TYPE agui_mock_events_total counter\nagui_mock_events_total %d\n", m.events)
	b.WriteString("# HELP agui_mock_reloads_total Scenario reloads, by result.\n# TYPE agui_mock_reloads_total counter\n")
	for _, r := range []string{"ok", "rejected"} {
		fmt.Fprintf(&b, "agui_mock_reloads_total{result=%q} %d\n", r, m.reloads[r])
	}
	m.mu.Unlock()
	fmt.Fprintf(&b, "# HELP agui_mock_threads Threads kept.\n# TYPE agui_mock_threads gauge\nagui_mock_threads %d\n", held.Threads)
	fmt.Fprintf(&b, "# HELP agui_mock_thread_bytes Bytes the threads keep together, as of their runs' ends (--threads-max-bytes).\n# TYPE agui_mock_thread_bytes gauge\nagui_mock_thread_bytes %d\n", held.Bytes)
	fmt.Fprintf(&b, "# HELP agui_mock_threads_shed_total Threads forgotten to stay within --threads-max-bytes.\n# TYPE agui_mock_threads_shed_total counter\nagui_mock_threads_shed_total %d\n", held.Shed)
	return c.Blob(http.StatusOK, "text/plain; version=0.0.4; charset=utf-8", []byte(b.String()))
}
