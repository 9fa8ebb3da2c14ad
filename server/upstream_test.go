package server

import (
	"net/url"
	"testing"

	"github.com/agui-mock/agui-mock/recorder"
)

func TestTheUpstreamModeFollowsTheRecorderAndRecordAll(t *testing.T) {
	rec, err := recorder.New(recorder.Config{Upstream: &url.URL{Scheme: "http", Host: "agent.invalid"}, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                          string
		cfg                           Config
		anyPostRuns, proxies, records bool
	}{
		{"no recorder: simulate", Config{}, false, false, false},
		{"RecordAll alone does nothing", Config{RecordAll: true}, false, false, false},
		{"a recorder: record what is missing", Config{Recorder: rec}, true, false, true},
		{"a recorder and RecordAll: capture", Config{Recorder: rec, RecordAll: true}, true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := newUpstream(tt.cfg)
			// a thread the recorder has no session of is proxied only when capturing
			if u.anyPostRuns() != tt.anyPostRuns || u.proxies("unrecorded") != tt.proxies || u.recordsMisses() != tt.records {
				t.Errorf("anyPostRuns %v, proxies %v, recordsMisses %v; want %v %v %v",
					u.anyPostRuns(), u.proxies("unrecorded"), u.recordsMisses(), tt.anyPostRuns, tt.proxies, tt.records)
			}
		})
	}
}
