package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/copilotkit"
	"github.com/agui-mock/agui-mock/internal/admission"
	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/threads"
)

// SpeedHeader overrides the server's speed factor for one request, e.g. 0 in tests.
const SpeedHeader = "X-Agui-Mock-Speed"

// ScenarioHeader forces the scenario of one request, whatever it matches.
const ScenarioHeader = "X-Agui-Mock-Scenario"

// TransportHeader chooses the transport of one run's events, whatever its Accept asks
// for: proto or sse.
const TransportHeader = "X-Agui-Mock-Transport"

// Transports of a run's events, as the journal and the log name them.
const (
	transportSSE   = "sse"
	transportProto = "proto"
)

// statusClientClosedRequest is the status a request gets in the journal and the log
// when its client went away before it was answered, as nginx has it.
const statusClientClosedRequest = 499

// errShutdown is the cause of runs stopped because the server is stopping.
var errShutdown = errors.New("server shutting down")

// runTarget is where a run request was posted: its route and, for a run of the
// CopilotKit runtime's routes, the agent it names and whether its thread keeps it.
type runTarget struct {
	route string
	agent string // "" unless posted to the runtime's routes
	// kept: the thread keeps the run's events, which the runtime's connect route replays
	// (a run of the runtime's; not a suggestion, which its runner never sees).
	kept bool
}

// runRequest is a run request read and checked, before anything is planned.
type runRequest struct {
	runTarget
	in        *protocol.RunAgentInput
	body      []byte // as sent, for the recorder
	speed     float64
	fault     *scenarios.Fault // asked for by the request
	enc       protocol.Encoder // the transport of its events
	transport string           // its name
	testID    string
	header    http.Header
}

// run answers one run request with a scenario's event stream. Reading, planning and
// reporting a run are separate functions, so that while a stream plays its goroutine
// holds only the small frames of playing: a goroutine grows its stack to the deepest
// call it has made and shrinks it only when less than a quarter is in use.
func (s *Server) run(c echo.Context, target runTarget) error {
	route := target.route
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
	if err := s.openStream(c.Response()); err != nil {
		return err
	}
	parked := false // the stream goes on after the handler returns, and ends itself
	defer func() {
		if !parked {
			s.streams.Add(-1)
		}
	}()

	// A run's context is the server's, not the request's: a stream taken over from
	// net/http outlives its request. Until then the client leaving cancels it, once
	// the run waits (requestLink).
	ctx, cancel := context.WithCancelCause(s.root)
	// A run the CopilotKit runtime keeps outlives its client, as the runtime's runner
	// runs it: its client leaving does not cancel it.
	link := &requestLink{req: c.Request().Context(), cancel: cancel, outlive: target.kept}
	defer func() {
		if !parked {
			link.unlink()
			cancel(nil)
		}
	}()
	sr, err := s.startRun(ctx, c.Request().Context(), rr, cancel)
	if err != nil && rr.kept && isError(err, "run_in_progress") {
		return runtimeBusy(c, err)
	}
	if err != nil && isNoScenario(err) && s.upstream.recordsMisses() {
		return s.upstream.record(c, rr) // nothing matches: ask the real agent, and keep its answer
	}
	if err != nil {
		return err
	}
	run, plan := sr.run, sr.plan
	replay := s.openReplay(rr, link, cancel)
	if hook.wait != nil || hook.write != nil { // a fault that acts on the whole stream strikes now
		sr.record.struck(rr.fault.Kind)
	}
	s.explainBuiltin(c, route, rr, sr)
	s.noteStarted(c, sr)
	finished := false
	defer func() {
		if !finished {
			run.Release() // the run panicked
			replay.end()
		}
	}()
	s.metrics.runStarted()
	waits := hasWaits(plan, rr.speed)
	rs := s.runStates.get(waits)
	w, p, st := &rs.w, &rs.p, &rs.st
	w.reset(c.Response(), rr.enc, s.cfg.WriteTimeout, waits, hook.write)
	w.outlive, w.replay = rr.kept || replay != nil, replay
	// The player keeps the ids, not the request: an open stream does not hold on to what
	// only planning needed.
	*p = player{server: s, w: w, peer: protocol.PeerFor(rr.in.ProtocolVersion), run: run, plan: plan, speed: rr.speed,
		threadID: rr.in.ThreadID, runID: rr.in.RunID, testID: rr.testID, fault: rr.fault,
		rec: sr.record, requestID: c.Response().Header().Get(echo.HeaderXRequestID), open: p.open, link: link, runtime: sr.runtime, replay: replay}
	*st = stream{server: s, p: p, ctx: ctx, cancel: cancel, route: route, transport: rr.transport, started: time.Now(), entry: entryOf(c)}
	var park func(time.Time) bool
	if canPark(c, plan, rr.speed) {
		c.Response().Header().Set("Connection", "close") // the stream will end by closing it
		park = func(due time.Time) bool { return st.park(c, due) }
	}
	if hook.wait != nil {
		admission.Begun(c.Request().Context()) // its answer waits on purpose
	}
	var outcome protocol.Outcome
	outcome, parked = p.play(ctx, park)
	finished = true
	if parked {
		return nil
	}
	st.finish(outcome)
	if p.disconnect {
		_ = w.flushPending()        // what came before the fault reaches the client
		panic(http.ErrAbortHandler) // drop the connection without ending the response
	}
	_ = w.drain() // a client gone by now has been told all it could be
	if !waits {
		s.runStates.put(rs) // the response holds what the writer gathered
	}
	return nil // net/http sends the last events with the end of the response, in one write
}

// runState is what a run's stream needs while it plays, in one allocation: its writer,
// its player and the stream.
type runState struct {
	w  eventWriter
	p  player
	st stream
}

// runStates lends the state of streams that never wait: a short run's, or a burst's,
// serves one request only, and the next run takes it up with the memory its writer's
// buffer and its checker's sets grew. A stream that waits has a state of its own, which
// it keeps while it is open, parked or not.
type runStates struct{ pool sync.Pool } // of *runState

// get returns a state of the pool's for a stream that never waits, else a new one.
func (r *runStates) get(waits bool) *runState {
	if !waits {
		if rs, ok := r.pool.Get().(*runState); ok {
			return rs
		}
	}
	return &runState{}
}

// put gives a state back, emptied of the run that used it.
func (r *runStates) put(rs *runState) {
	buf, open := rs.w.buf, rs.p.open
	open.Reuse()
	*rs = runState{}
	rs.w.buf, rs.p.open = buf, open
	r.pool.Put(rs)
}

// readRun reads and checks a run request: its content type, speed, body and fault.
func (s *Server) readRun(c echo.Context, target runTarget) (*runRequest, error) {
	req := c.Request()
	if err := checkJSONContentType(req); err != nil {
		return nil, err
	}
	speed, err := s.speedFor(req)
	if err != nil {
		return nil, err
	}
	transport, enc, err := s.transportFor(req, target.agent != "")
	if err != nil {
		return nil, err
	}
	body, err := s.readBody(c, s.cfg.MaxBodyBytes)
	if err != nil {
		return nil, err
	}
	in, err := s.decodeInput(body, target.agent != "")
	if err != nil {
		return nil, err
	}
	// Taken only now, so that a request rejected for its body leaves a queued fault queued.
	fault, err := s.requestFault(c)
	if err != nil {
		return nil, err
	}
	note(c, func(e *JournalEntry) {
		e.ThreadID, e.RunID, e.Transport, e.bodyIsJSON = in.ThreadID, in.RunID, transport, true
	})
	return &runRequest{runTarget: target, in: in, body: body, speed: speed, fault: fault, enc: enc, transport: transport, testID: req.Header.Get(TestIDHeader), header: req.Header}, nil
}

// decodeInput decodes a run input. One of the CopilotKit runtime's routes (runtime)
// requires what its schema requires, and answers a body it refuses as the runtime does.
func (s *Server) decodeInput(body []byte, runtime bool) (*protocol.RunAgentInput, error) {
	if runtime {
		v, err := protocol.DecodeJSON(body)
		if err != nil {
			return nil, runtimeError(copilotkit.InvalidBody(err.Error()))
		}
		if e := copilotkit.CheckInput(v); e != nil {
			return nil, runtimeError(e)
		}
	}
	in, err := protocol.DecodeRunAgentInput(body, protocol.DecodeOptions{Strict: s.cfg.Strict, NewID: s.newID, MaxMessages: s.cfg.MaxMessages})
	switch {
	case err != nil && runtime:
		return nil, runtimeError(copilotkit.InvalidBody(err.Error()))
	case err != nil:
		return nil, inputError("RunAgentInput", err)
	}
	return in, nil
}

// openStream counts a stream in, or refuses it when -max-streams are open.
func (s *Server) openStream(res *echo.Response) error {
	if open := s.streams.Add(1); s.cfg.MaxStreams > 0 && open > int64(s.cfg.MaxStreams) {
		s.streams.Add(-1)
		res.Header().Set("Retry-After", "1")
		return apiError(http.StatusServiceUnavailable, "too_many_streams", fmt.Sprintf("%d streams are open, the limit (-max-streams); retry in a moment", s.cfg.MaxStreams))
	}
	return nil
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

// readBody reads a request body up to limit bytes, and keeps what it read for the
// request's journal entry. Every body the journal shows is read here.
func (s *Server) readBody(c echo.Context, limit int64) ([]byte, error) {
	req := c.Request()
	if err := s.bodies.admit(c, limit, bodyWait); err != nil {
		if errors.Is(err, errNoRoom) {
			return nil, s.noRoomError(c, bodyWait)
		}
		return nil, apiError(statusClientClosedRequest, "request_stopped", "the request stopped while its body waited for room: "+err.Error())
	}
	if c.Get(bodyRoomKey) != nil && s.cfg.BodyTimeout > 0 { // its time to arrive starts now
		_ = http.NewResponseController(c.Response()).SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout))
	}
	// The announced length is trusted up to the size of a large RunAgentInput: a client
	// that announces more has to send it before more is allocated.
	body, err := readAll(http.MaxBytesReader(c.Response(), req.Body, limit), min(req.ContentLength, maxJournaledBody), min(req.ContentLength, limit))
	// Closed, the body tells net/http that nothing is left to drain before it answers.
	_ = req.Body.Close()
	note(c, func(e *JournalEntry) {
		e.body, e.bodyCut = body, len(body) > maxJournaledBody
		if e.bodyCut { // keep no more than the entry shows
			e.body = bytes.Clone(body[:maxJournaledBody])
		}
	})
	if err != nil {
		var tooLarge *http.MaxBytesError
		var netErr net.Error
		switch {
		case errors.As(err, &tooLarge):
			return nil, apiError(http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("the body exceeds the limit of %d bytes", limit))
		case errors.As(err, &netErr) && netErr.Timeout():
			c.Response().Header().Set(echo.HeaderConnection, "close") // what is left of the body is not a request
			return nil, apiError(http.StatusRequestTimeout, "body_timeout", fmt.Sprintf("the body did not arrive within %v of the request's headers", s.cfg.BodyTimeout))
		}
		return nil, apiError(http.StatusBadRequest, "unreadable_body", "reading the body: "+err.Error())
	}
	// The body is in: the connection's reads have no deadline (a stream's client may stay
	// silent as long as it likes), and the request goes on as one the server works on.
	_ = http.NewResponseController(c.Response()).SetReadDeadline(time.Time{})
	if err := admission.Resume(req.Context()); err != nil {
		return nil, apiError(statusClientClosedRequest, "request_stopped", "the request stopped while it waited to be answered: "+err.Error())
	}
	return body, nil
}

// readAll reads r to its end like io.ReadAll, into one allocation when size, the length
// the client announced, is right (-1: unknown). The buffer grows by doubling, but never
// past announced+1 bytes while what arrives fits (announced -1: unknown), so that a large
// body that arrives as announced ends in a buffer of its size, not up to twice that.
func readAll(r io.Reader, size, announced int64) ([]byte, error) {
	b := make([]byte, 0, max(size, 0)+1) // the extra byte lets the read that finds the end need no growth
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			grown := 2 * cap(b)
			if int64(len(b)) < announced {
				grown = min(grown, int(announced)+1)
			}
			b = append(make([]byte, 0, grown), b...)
		}
	}
}

// inputError turns a decoding problem into a 400 answer naming the field.
func inputError(what string, err error) error {
	var ie *protocol.InputError
	if errors.As(err, &ie) {
		return &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input", Message: "invalid " + what + ": " + ie.Error(), Field: ie.Field}}
	}
	return err
}

func checkJSONContentType(req *http.Request) error {
	ct := req.Header.Get("Content-Type")
	if ct == "application/json" { // what clients send, without parameters to parse
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || !jsonMediaType(mt) {
		if ct == "" {
			ct = "none"
		}
		return apiError(http.StatusUnsupportedMediaType, "unsupported_media_type", "the body must be JSON: send Content-Type: application/json (got "+ct+")")
	}
	return nil
}

// jsonMediaType reports whether a media type is JSON's: application/json, or a type
// with the +json suffix.
func jsonMediaType(mt string) bool { return mt == "application/json" || strings.HasSuffix(mt, "+json") }

// transportFor chooses the transport of a run's events: its TransportHeader's, else
// protobuf when its Accept lists it, as AG-UI agents negotiate, else SSE. A run of the
// CopilotKit runtime's routes (runtime) writes SSE frames without ids, as the runtime's
// encoder does.
func (s *Server) transportFor(req *http.Request, runtime bool) (string, protocol.Encoder, error) {
	name := req.Header.Get(TransportHeader)
	if name == "" {
		name = transportSSE
		if protocol.AcceptsProto(req.Header.Get("Accept")) {
			name = transportProto
		}
	}
	switch name {
	case transportSSE:
		return name, protocol.SSEEncoder{WithIDs: s.cfg.EventIDs && !runtime}, nil
	case transportProto:
		return name, protocol.ProtoEncoder{}, nil
	}
	return "", nil, apiError(http.StatusBadRequest, "invalid_header", TransportHeader+" must be proto or sse, got "+strconv.Quote(name))
}

// speedFor is a run's speed factor: its X-Agui-Mock-Speed header's, or the one set for
// its test through the admin API, or the server's.
func (s *Server) speedFor(req *http.Request) (float64, error) {
	h := req.Header.Get(SpeedHeader)
	if h == "" {
		if speed, ok := s.tests.Speed.Take(req.Header.Get(TestIDHeader)); ok {
			return speed, nil
		}
		return s.cfg.Speed, nil
	}
	f, err := strconv.ParseFloat(h, 64)
	if err != nil || !scenarios.ValidSpeed(f) {
		return 0, apiError(http.StatusBadRequest, "invalid_header", SpeedHeader+" must be a finite number of 0 or more, got "+strconv.Quote(h))
	}
	return f, nil
}
