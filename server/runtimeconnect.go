package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/copilotkit"
	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/threads"
)

// runtimeConnect answers the runtime's connect route, which a CopilotKit client calls
// when it opens a thread (on every page load): it replays the thread as the runtime's
// runner does, the events of its kept runs compacted, and then, while a run of the
// runtime streams on it, that run's events from its start, live, to its end. An unknown
// thread gets an empty stream, as from the runtime.
func (s *Server) runtimeConnect(c echo.Context, route copilotkit.Route) error {
	if e := s.unknownAgent(c, route.AgentID); e != nil {
		return runtimeError(e)
	}
	req := c.Request()
	if err := checkJSONContentType(req); err != nil {
		return err
	}
	body, err := s.readBody(c, s.cfg.MaxBodyBytes)
	if err != nil {
		return err
	}
	in, err := s.decodeInput(body, true)
	if err != nil {
		return err
	}
	note(c, func(e *JournalEntry) { e.ThreadID, e.bodyIsJSON = in.ThreadID, true })
	if done, err := s.handshakeFault(c, &s.tests.ConnectFaults); done {
		return err
	}
	key := runtimeKey(c, in.ThreadID)
	s.seedFromFiles(key)
	replay, _ := s.threads.Replay(key)
	if err := s.openStream(c.Response()); err != nil {
		return err
	}
	defer s.streams.Add(-1)
	var w eventWriter
	w.reset(c.Response(), protocol.SSEEncoder{}, s.cfg.WriteTimeout, true, nil)
	w.begin(nil)
	peer := protocol.PeerFor(in.ProtocolVersion)
	sent := 0
	defer func() { note(c, func(e *JournalEntry) { e.Events = sent }) }()
	write := func(ev protocol.Event) error {
		adapted, ok := peer.Adapt(ev)
		if !ok {
			return nil
		}
		sent++
		return w.event(adapted, -1)
	}
	emitted := map[string]bool{}
	for _, ev := range replay.Events {
		if id := ev.Str("messageId"); id != "" {
			emitted[id] = true
		}
		if err := write(ev); err != nil {
			return nil // the client has gone
		}
	}
	if replay.Live != nil {
		s.followLive(req.Context(), replay.Live, emitted, write, &w)
	}
	_ = w.flushPending()
	return nil
}

// followLive writes the events of the run streaming on a thread, from its start, as they
// come, until it ends, the client goes or the server stops; an event of a message the
// replay has shown already is left out, as the runtime leaves it out. Keep-alives fill
// long silences.
func (s *Server) followLive(ctx context.Context, live *threads.Live, emitted map[string]bool, write func(protocol.Event) error, w *eventWriter) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.root, cancel)()
	for from := 0; ; {
		if err := w.flushPending(); err != nil {
			return
		}
		wait, stop := ctx, func() {}
		if s.cfg.KeepAlive > 0 {
			wait, stop = context.WithTimeout(ctx, s.cfg.KeepAlive)
		}
		events, ended, err := live.Next(wait, from)
		stop()
		if err != nil {
			if ctx.Err() != nil || w.keepAlive() != nil {
				return
			}
			continue
		}
		from += len(events)
		for _, ev := range events {
			if id := ev.Str("messageId"); id != "" && emitted[id] {
				continue
			}
			if write(ev) != nil {
				return
			}
		}
		if ended {
			return
		}
	}
}

// runtimeStop answers the runtime's stop route: it stops the run streaming on the
// thread (the one of the body's runId, when it names one), whose stream ends as the
// runtime ends a stopped run's, and says whether it stopped one.
func (s *Server) runtimeStop(c echo.Context, route copilotkit.Route) error {
	body, err := s.readBody(c, s.cfg.MaxBodyBytes)
	if err != nil {
		return err
	}
	runID, rerr := stopScope(body)
	if rerr != nil {
		return runtimeError(rerr)
	}
	note(c, func(e *JournalEntry) { e.ThreadID = route.ThreadID }) // the run's own entry has its runId
	if done, err := s.handshakeFault(c, &s.tests.StopFaults); done {
		return err
	}
	if e := s.unknownAgent(c, route.AgentID); e != nil {
		return runtimeError(e)
	}
	res := s.threads.Cancel(runtimeKey(c, route.ThreadID), threads.ErrStopped, runID, s.cfg.CancelWait)
	return c.JSON(http.StatusOK, copilotkit.StopAnswer(res.RunID != "", route.ThreadID, runID))
}

// stopScope reads a stop's body as the runtime does: nothing, {} or {runId}.
func stopScope(body []byte) (string, *copilotkit.Error) {
	if strings.TrimSpace(string(body)) == "" {
		return "", nil
	}
	var scope map[string]any
	if err := json.Unmarshal(body, &scope); err != nil || scope == nil {
		return "", copilotkit.InvalidStop(false)
	}
	for key := range scope {
		if key != "runId" {
			return "", copilotkit.InvalidStop(false)
		}
	}
	v, ok := scope["runId"]
	if !ok {
		return "", nil
	}
	runID, _ := v.(string)
	if strings.TrimSpace(runID) == "" {
		return "", copilotkit.InvalidStop(true)
	}
	return runID, nil
}

// runtimeThreadList answers GET /threads: the test's threads that keep runs of the
// runtime, of the agent agentId names (any without it), the latest first.
func (s *Server) runtimeThreadList(c echo.Context) error {
	testID := c.Request().Header.Get(TestIDHeader)
	s.seedAllFromFiles(testID)
	list := s.threads.List(testID, c.QueryParam("agentId"))
	records := make([]copilotkit.ThreadRecord, len(list))
	for i, t := range list {
		records[i] = copilotkit.NewThreadRecord(t.ID, t.Agent, t.Created, t.Updated)
	}
	return c.JSON(http.StatusOK, map[string]any{"threads": records, "nextCursor": nil})
}

// runtimeThread answers GET /threads/:id/messages, /events and /state: what the thread
// keeps, or, for a thread the runtime does not know, no messages, no events and a null
// state, as the runtime answers.
func (s *Server) runtimeThread(c echo.Context, route copilotkit.Route) error {
	key := runtimeKey(c, route.ThreadID)
	s.seedFromFiles(key)
	kept, _ := s.threads.Kept(key)
	note(c, func(e *JournalEntry) { e.ThreadID = route.ThreadID })
	switch route.Method {
	case copilotkit.MethodThreadMessages:
		return c.JSON(http.StatusOK, map[string]any{"messages": copilotkit.ThreadMessages(kept.Messages)})
	case copilotkit.MethodThreadEvents:
		events := kept.Events
		if events == nil {
			events = []protocol.Event{}
		}
		return c.JSON(http.StatusOK, map[string]any{"events": events})
	}
	return c.JSON(http.StatusOK, map[string]any{"state": copilotkit.ThreadState(kept.Events)})
}
