// Package testctl keeps what each test sets up on the mock through its admin API,
// scoped by the test's id (the X-Test-Id header): the scenarios forced on its next runs,
// the faults queued for them, its breakpoints, its journal entries and, through the
// thread store, its threads. Reset forgets one test's state, or everybody's.
package testctl

import "github.com/agui-mock/agui-mock/scenarios"

// Threads is the thread store as Reset needs it: the threads of the test testID
// (every thread with all) are forgotten, their streaming runs cancelled. The store keys
// each thread by its test id and thread id apart, so that no thread id reaches another
// test's threads.
type Threads interface {
	Reset(testID string, all bool)
}

// Control is every test's state. E is the type of the journal's entries.
type Control[E any] struct {
	// Forced holds the scenarios forced on each test's next runs.
	Forced Queue[string]
	// Faults holds the faults queued for each test's next run requests.
	Faults Queue[scenarios.Fault]
	// Speed holds the speed factor set for each test's runs.
	Speed Queue[float64]
	// RuntimeInfo holds how each test shapes the CopilotKit runtime's GET /info.
	RuntimeInfo Queue[RuntimeInfo]
	// InfoFaults, ConnectFaults and StopFaults hold the faults queued for each test's
	// next requests of the CopilotKit runtime's info, connect and stop routes.
	InfoFaults, ConnectFaults, StopFaults Queue[scenarios.Fault]
	// Breakpoints pause each test's streams.
	Breakpoints Breakpoints
	// Journal keeps the latest requests.
	Journal *Journal[E]

	threads Threads
}

// New returns the state of no test yet, over a journal and a thread store.
func New[E any](journal *Journal[E], threads Threads) *Control[E] {
	return &Control[E]{Journal: journal, threads: threads}
}

// Reset forgets a test's threads, journal entries, forced scenarios, faults, speed and
// breakpoints (testID "" names the requests without one), or everybody's with all.
// Streams of the test paused at a breakpoint go on; those of its threads are cancelled.
func (c *Control[E]) Reset(testID string, all bool) {
	c.threads.Reset(testID, all)
	c.Journal.Reset(testID, all)
	c.Forced.Reset(testID, all)
	c.Faults.Reset(testID, all)
	c.Speed.Reset(testID, all)
	c.RuntimeInfo.Reset(testID, all)
	c.InfoFaults.Reset(testID, all)
	c.ConnectFaults.Reset(testID, all)
	c.StopFaults.Reset(testID, all)
	c.Breakpoints.Reset(testID, all)
}
