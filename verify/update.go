package verify

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/recorder"
	"github.com/agui-mock/agui-mock/scenarios"
)

// UpdateConfig says how drifted scenarios are re-recorded.
type UpdateConfig struct {
	Redact []*regexp.Regexp // scrubbed from the recordings, besides the recorder's own
	Logger *slog.Logger
}

// Update re-records each scenario the report found drifted from the agent, in place:
// every conversation of its first example is held again through the recorder, which
// writes the agent's runs in its format with secrets redacted, and the recording
// replaces the scenario in its file (see recorder.Recorder.Replace). Each result says
// what changed, or why it could not be updated; a scenario that could not be updated
// keeps its verdict and its file.
func Update(ctx context.Context, cfg Config, set *scenarios.Set, rep *Report, ucfg UpdateConfig) {
	cfg = cfg.withDefaults()
	var drifted []int
	for i, res := range rep.Results {
		if res.Status == Drift {
			drifted = append(drifted, i)
		}
	}
	// Later scenarios of a file first, so that replacing one leaves the lines of the
	// others to do where they were.
	slices.SortFunc(drifted, func(a, b int) int {
		ra, rb := rep.Results[a], rep.Results[b]
		return cmp.Or(cmp.Compare(ra.File, rb.File), cmp.Compare(rb.Line, ra.Line))
	})
	for _, i := range drifted {
		res := &rep.Results[i]
		sc := scenarioByID(set, res.Scenario)
		if err := rerecord(ctx, cfg, set, sc, ucfg); err != nil {
			res.NotUpdated = err.Error()
			continue
		}
		res.Updated = changes(*res)
	}
}

func scenarioByID(set *scenarios.Set, id string) *scenarios.Scenario {
	for _, sc := range set.Scenarios() {
		if sc.ID == id {
			return sc
		}
	}
	return nil
}

// changes lists the differences a scenario's turns found.
func changes(res Result) string {
	var list []string
	for _, t := range res.Turns {
		for _, d := range t.Differences {
			if line := t.Name() + ": " + d; !slices.Contains(list, line) {
				list = append(list, line)
			}
		}
	}
	return strings.Join(list, "; ")
}

// rerecord holds a scenario's first example's conversations with the agent through a
// recorder writing into a directory of its own, and puts the recording in place.
func rerecord(ctx context.Context, cfg Config, set *scenarios.Set, sc *scenarios.Scenario, ucfg UpdateConfig) error {
	dir, err := os.MkdirTemp("", "agui-mock-verify-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	logger := cmp.Or(ucfg.Logger, slog.New(slog.DiscardHandler))
	rec, err := recorder.New(recorder.Config{Upstream: cfg.Upstream, OutDir: dir, Dedupe: true, Redact: ucfg.Redact,
		Client: cfg.Client, Logger: logger, MaxFrame: cfg.MaxFrame})
	if err != nil {
		return err
	}
	ag := &recordingAgent{cfg: cfg, rec: rec}
	var failed error
	explore(ctx, cfg, set, sc, example{sc.Examples[0], 1}, ag, true, func(t Turn) {
		if t.Error != "" && failed == nil {
			failed = fmt.Errorf("%s: %s", t.Name(), t.Error)
		}
	})
	if failed != nil {
		return failed
	}
	return rec.Replace(ag.firstThread, sc.Source, sc.ID)
}

// recordingAgent runs requests on the agent through a recorder.
type recordingAgent struct {
	cfg         Config
	rec         *recorder.Recorder
	firstThread string // the thread of the first conversation, whose fixture holds them all
}

func (a *recordingAgent) run(ctx context.Context, route string, header map[string]string, body map[string]any) ([]protocol.Event, []time.Duration, error) {
	data, err := jsonBody(body)
	if err != nil {
		return nil, nil, err
	}
	in, err := protocol.DecodeRunAgentInput(data, protocol.DecodeOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("the request does not decode: %w", err)
	}
	if a.firstThread == "" {
		a.firstThread = in.ThreadID
	}
	ctx, cancel := context.WithTimeout(ctx, a.cfg.Timeout)
	defer cancel()
	// The recorder appends the request's path to the upstream's, as it does for a client.
	req, err := a.cfg.newRequest(ctx, cmp.Or(route, "/"), header, data)
	if err != nil {
		return nil, nil, err
	}
	var w streamBuffer
	if err := a.rec.Record(&w, req, cmp.Or(route, "/"), in, data); err != nil {
		var answer *recorder.ErrorAnswer
		if errors.As(err, &answer) {
			return nil, nil, fmt.Errorf("the agent could not be recorded (%s): %s", answer.Code, answer.Message)
		}
		return nil, nil, err
	}
	if ctx.Err() != nil {
		return nil, nil, a.cfg.failure(ctx, "recording the run", ctx.Err())
	}
	events, err := protocol.ReadEvents(&w.body, a.cfg.MaxFrame)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the recorded run: %w", err)
	}
	if n := len(events); n > 0 && events[n-1].Type == protocol.RunError && strings.HasPrefix(events[n-1].Str("code"), "upstream_") {
		return nil, nil, fmt.Errorf("the agent's run was not recorded: %s", events[n-1].Str("message"))
	}
	return events, nil, nil
}

// streamBuffer is the response writer the recorder relays a run into: it keeps the
// stream in memory.
type streamBuffer struct {
	header http.Header
	body   bytes.Buffer
}

func (b *streamBuffer) Header() http.Header {
	if b.header == nil {
		b.header = http.Header{}
	}
	return b.header
}
func (b *streamBuffer) Write(p []byte) (int, error) { return b.body.Write(p) }
func (b *streamBuffer) WriteHeader(int)             {}
func (b *streamBuffer) Flush()                      {}
