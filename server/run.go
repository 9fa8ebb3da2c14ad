package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/textproto"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/threads"
)

// statusClientClosedRequest is the status a request gets in the journal and the log
// when its client went away before it was answered, as nginx has it.
const statusClientClosedRequest = 499

// errShutdown is the cause of runs stopped because the server is stopping.
var errShutdown = errors.New("server shutting down")

// run answers one run request along the path of a run: the request is read and
// decoded (runrequest.go), proxied to the real agent when the upstream mode says so
// (upstream.go), or else selected and planned in its thread (startRun), then played
// (runLife.play, player.go, stream.go), and reported as it ends (reportRun). Reading,
// planning and reporting a run are separate functions, so that while a stream plays its
// goroutine holds only the small frames of playing: a goroutine grows its stack to the
// deepest call it has made and shrinks it only when less than a quarter is in use.
func (s *Server) run(c echo.Context, target runTarget) error {
	if id := c.Request().Header.Get(lastEventIDHeader); id != "" && s.reconnects != nil && target.agent == "" {
		return s.reconnect(c, id)
	}
	rr, err := s.readRun(c, target)
	if err != nil {
		return err
	}
	hook := hookOf(rr.fault)
	if hook.answer != nil {
		return hook.answer(c, *rr.fault)
	}
	if s.upstream.proxies(rr.in.ThreadID) {
		return s.upstream.record(c, rr)
	}
	var life runLife
	if err := life.open(s, c, target.kept); err != nil {
		return err
	}
	defer life.release()
	sr, err := s.startRun(life.ctx, c.Request().Context(), rr, life.cancel)
	if err != nil && rr.kept && isError(err, "run_in_progress") {
		return runtimeBusy(c, err)
	}
	if err != nil && isNoScenario(err) && s.upstream.recordsMisses() {
		return s.upstream.record(c, rr) // nothing matches: ask the real agent, and keep its answer
	}
	if err != nil {
		return err
	}
	return life.play(c, rr, sr, hook)
}

// startedRun is a run begun in its thread and planned.
type startedRun struct {
	run     *threads.Run
	plan    *scenarios.Plan
	how     selection
	missed  []scenarios.Candidate // when a built-in scenario answered: why the developer's own scenarios did not
	record  *runRecord            // nil when no run is kept (-journal-events 0)
	runtime *runtimeRun           // nil unless the thread keeps the run, as the CopilotKit runtime does
}

// startRun begins the run in its thread and plans it; planning stops when ctx is done,
// or client is (the request's context). On error the thread is left as it was.
func (s *Server) startRun(ctx, client context.Context, rr *runRequest, cancel context.CancelCauseFunc) (startedRun, error) {
	in := rr.in
	thread := threads.Key{Test: rr.testID, Thread: in.ThreadID}
	s.seedFromFiles(thread)
	run, cursor, err := s.beginRun(client, thread, in.RunID, cancel)
	if err != nil {
		return startedRun{}, err
	}
	started := false
	defer func() {
		if !started {
			run.Release() // planning failed, or panicked
		}
	}()
	sreq := &scenarios.Request{Route: rr.route, Agent: rr.agent, Input: in, Header: textproto.MIMEHeader(rr.header)}
	sreq.History = func() []map[string]any { return run.History(in) }
	opts := scenarios.PlanOptions{Seed: s.seedFor(thread), Turn: run.Turn(),
		Timing: s.cfg.Timing, Now: time.Now(), Speed: rr.speed, FixedTime: s.cfg.FixedTime, Limits: s.cfg.TemplateLimits, Dialect: s.cfg.Dialect, Usage: s.cfg.Usage,
		Client: client}
	plan, how, err := s.planRun(ctx, sreq, cursor, opts, s.forcedScenario(rr.header, rr.testID, run.Seeded()))
	if err = admitFault(err, rr.fault, plan); err != nil { // a fault the run cannot take: refused before any stream
		return startedRun{}, err
	}
	var missed []scenarios.Candidate
	if how == selectedByMatch && plan.Scenario.Default() {
		missed = s.set.Load().MissedOwn(sreq, plan.Scenario)
	}
	run.Start(plan.Scenario.ID)
	var rt *runtimeRun
	if rr.kept {
		rt = &runtimeRun{input: in.Raw, historic: run.Keep(rr.agent)}
	}
	run.AddInput(in)
	started = true
	return startedRun{run: run, plan: plan, how: how, missed: missed, record: s.runs.newRecord(plan.Scenario, sreq, len(plan.Events), hasWaits(plan, rr.speed)),
		runtime: rt}, nil
}

// forcedScenario is the scenario a request must play whatever it matches: its
// X-Agui-Mock-Scenario header's, or the one its thread was seeded to play next, or the
// one forced for its test through the admin API.
func (s *Server) forcedScenario(header http.Header, testID, seeded string) func() string {
	return func() string {
		if id := header.Get(ScenarioHeader); id != "" {
			return id
		}
		if seeded != "" {
			return seeded
		}
		id, _ := s.tests.Forced.Take(testID)
		return id
	}
}

// planRun decides what a run plays: the continuation of the thread's paused scenario
// (kept by the thread, or recalled from the request's messages), or the scenario its
// request matches.
func (s *Server) planRun(ctx context.Context, sreq *scenarios.Request, cursor *scenarios.Cursor, opts scenarios.PlanOptions, forced func() string) (*scenarios.Plan, selection, error) {
	if cursor == nil && opts.Turn == 0 {
		// A thread this server has played nothing on may continue a conversation that
		// paused before a restart, or on another replica: its messages say where.
		cursor, _ = s.set.Load().Recall(ctx, sreq, sreq.Header.Get(ScenarioHeader), opts)
	}
	start, continues, err := scenarios.Continue(cursor, sreq.Input, time.Now())
	if err != nil {
		return nil, "", resumeError(err, "")
	}
	set := s.set.Load()
	if continues {
		plan, err := s.plan(ctx, cursor.Scenario, sreq, start, opts)
		var noBranch *scenarios.NoBranchError
		if errors.As(err, &noBranch) {
			// A recording keys a run by its conversation where it could not place it as a
			// branch (its recorder had not seen the run it continues): the same
			// conversation gets that run.
			if sel, _ := set.Select(sreq); sel != nil && len(sel.Scenario.Match.Conversation) > 0 {
				plan, err := s.plan(ctx, sel.Scenario, sreq, scenarios.Start{Captures: sel.Captures}, opts)
				return plan, selectedByMatch, err
			}
			err = resumeError(err, cursor.Scenario.ID)
		}
		return plan, selectedByResume, err
	}
	if id := forced(); id != "" {
		sel := set.Force(id, sreq)
		if sel == nil {
			return nil, "", apiError(http.StatusNotFound, "unknown_scenario", "the forced scenario "+strconv.Quote(id)+" does not exist")
		}
		plan, err := s.plan(ctx, sel.Scenario, sreq, scenarios.Start{Captures: sel.Captures}, opts)
		return plan, selectedByForce, err
	}
	sel, candidates := set.Select(sreq)
	if sel == nil {
		return nil, "", s.noScenario(ctx, sreq, candidates)
	}
	plan, err := s.plan(ctx, sel.Scenario, sreq, scenarios.Start{Captures: sel.Captures}, opts)
	return plan, selectedByMatch, err
}

// plan plans a run of a scenario. A run whose templates go past their limits is
// played as RUN_STARTED and a RUN_ERROR that names the limit, so that the client sees
// why it ends.
func (s *Server) plan(ctx context.Context, sc *scenarios.Scenario, sreq *scenarios.Request, start scenarios.Start, opts scenarios.PlanOptions) (*scenarios.Plan, error) {
	plan, err := sc.Plan(ctx, sreq, start, opts)
	var nb *scenarios.NoBranchError
	var le *scenarios.LimitError
	switch {
	case err != nil && opts.Stopped(ctx) != nil:
		return nil, apiError(statusClientClosedRequest, "run_stopped", "the run stopped while it was planned: "+opts.Stopped(ctx).Error())
	case errors.As(err, &le):
		in := sreq.Input
		return &scenarios.Plan{Scenario: sc, Events: []scenarios.Timed{
			{Event: protocol.PeerFor(in.ProtocolVersion).Declare(protocol.NewEvent(protocol.RunStarted, "threadId", in.ThreadID, "runId", in.RunID))},
			{Event: protocol.NewEvent(protocol.RunError, "message", err.Error(), "code", "template_limit")},
		}}, nil
	case errors.As(err, &nb):
		return nil, err // the caller may find the run elsewhere, or answer resumeError
	case err != nil:
		return nil, apiError(http.StatusInternalServerError, "scenario_failed", err.Error())
	}
	return plan, nil
}

// isNoScenario reports whether a run failed because no scenario matches it.
func isNoScenario(err error) bool { return isError(err, "no_scenario") }

// isError reports whether err is an error answer of the given code.
func isError(err error, code string) bool {
	var he *httpError
	return errors.As(err, &he) && he.body.Error == code
}

// runtimeBusy answers a run of the CopilotKit runtime's routes on a thread that has a run
// streaming as the runtime does, whose runner refuses it: with an empty event stream. The
// journal says why.
func runtimeBusy(c echo.Context, busy error) error {
	var he *httpError
	errors.As(busy, &he)
	noteError(c, he)
	c.Response().Header().Set(echo.HeaderContentType, protocol.SSEContentType)
	c.Response().Header().Set("Cache-Control", "no-cache")
	c.Response().WriteHeader(http.StatusOK)
	return nil
}

// reportRun counts, journals and logs a run that has ended: outcome as its stream said
// it, awaiting the interrupts it left waiting for an answer.
func (s *Server) reportRun(st *stream, outcome protocol.Outcome, awaiting int) {
	p, scenario := st.p, st.p.plan.Scenario.ID
	s.metrics.runEnded(scenario, outcome, awaiting, p.sent)
	if e := st.entry; e != nil {
		e.Scenario, e.Outcome, e.Awaiting, e.Events = scenario, outcome, awaiting, p.sent
		if p.replay != nil && (p.w.gone || p.link.left.Load()) {
			e.Reason = p.replay.whyLeft(st.ctx)
		} else if p.w.gone || p.link.left.Load() {
			e.Reason = "the client went away during the run, which played on without it, as the CopilotKit runtime's runner plays a run, for a client that connects again"
		}
	}
	log := s.cfg.Logger.Handler()
	if !log.Enabled(st.ctx, slog.LevelInfo) {
		return
	}
	// A record made here, without the caller's position that Logger.LogAttrs would walk
	// the stack for on every run: a run's line always comes from this function.
	now := time.Now()
	r := slog.NewRecord(now, slog.LevelInfo, "run", 0)
	r.AddAttrs(slog.String("route", st.route), slog.String("scenario", scenario),
		slog.String("thread", p.threadID), slog.String("run", p.runID), slog.String("client", p.peer.String()), slog.String("transport", st.transport),
		slog.String("request_id", p.requestID), slog.String("test", p.testID),
		slog.Int("events", p.sent), slog.String("outcome", string(outcome)), slog.Int("awaiting", awaiting), slog.Duration("duration", now.Sub(st.started).Round(time.Millisecond)))
	_ = log.Handle(st.ctx, r) // a log that cannot be written does not fail the run
}
