package server

import "sync"

// ScenarioHeader forces the scenario of one request, whatever it matches.
const ScenarioHeader = "X-Agui-Mock-Scenario"

// forcing holds the scenarios forced per test id through the admin API.
type forcing struct {
	mu     sync.Mutex
	byTest map[string]*forced
}

// forced is a scenario the next runs play: Times of them, or all while Times is 0.
type forced struct {
	Scenario string `json:"scenario"`
	Times    int    `json:"times"`
}

func (f *forcing) set(testID string, fc forced) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.byTest == nil {
		f.byTest = map[string]*forced{}
	}
	f.byTest[testID] = &fc
}

// take returns the scenario forced for a test's next run, counting the run.
func (f *forcing) take(testID string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	fc := f.byTest[testID]
	if fc == nil {
		return ""
	}
	if fc.Times > 0 {
		if fc.Times--; fc.Times == 0 {
			delete(f.byTest, testID)
		}
	}
	return fc.Scenario
}

func (f *forcing) clear(testID string, all bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if all {
		f.byTest = nil
		return
	}
	delete(f.byTest, testID)
}
