package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/threads"
)

// threadRequest is the body of the history and cancel endpoints.
type threadRequest struct {
	ThreadID string
	body     []byte
}

// decodeThreadRequest reads {threadId, forwardedProps}; forwardedProps is accepted and
// not needed, since thread ids are unique across scenarios.
func (s *Server) decodeThreadRequest(c echo.Context) (threadRequest, error) {
	if err := checkJSONContentType(c.Request()); err != nil {
		return threadRequest{}, err
	}
	body, err := s.readBody(c, s.cfg.MaxBodyBytes)
	if err != nil {
		return threadRequest{}, err
	}
	v, err := protocol.DecodeJSON(body)
	if err != nil {
		return threadRequest{}, inputError("request", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return threadRequest{}, &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input", Message: "the body must be a JSON object with a threadId"}}
	}
	id, ok := obj["threadId"].(string)
	if !ok || id == "" {
		return threadRequest{}, &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input", Message: "threadId is required and must be a non-empty string", Field: "threadId"}}
	}
	note(c, func(e *JournalEntry) { e.ThreadID = id })
	return threadRequest{ThreadID: id, body: body}, nil
}

func unknownThread(id string) error {
	return &httpError{status: http.StatusNotFound, body: errorBody{Error: "unknown_thread", Message: "no thread " + id + " on this server (threads are kept in memory: idle ones expire, and the least recently used are forgotten past --max-threads or --threads-max-bytes)"}}
}

// history answers with a thread's messages, state, pending interrupts and runs.
func (s *Server) history(c echo.Context) error {
	tr, err := s.decodeThreadRequest(c)
	if err != nil {
		return err
	}
	if s.upstream.proxies(tr.ThreadID) {
		return s.upstream.proxy(c, tr.body)
	}
	key := threads.Key{Test: c.Request().Header.Get(TestIDHeader), Thread: tr.ThreadID}
	s.seedFromFiles(key)
	h, ok := s.threads.History(key)
	if !ok {
		return unknownThread(tr.ThreadID)
	}
	h.ThreadID = tr.ThreadID
	return c.JSON(http.StatusOK, h)
}

// cancelAnswer is what the cancel endpoint says it did.
type cancelAnswer struct {
	ThreadID  string `json:"threadId"`
	Cancelled bool   `json:"cancelled"`
	RunID     string `json:"runId,omitempty"`
	Scenario  string `json:"scenario,omitempty"`
	Message   string `json:"message"`
}

// cancel stops the run streaming on a thread; its stream ends with a cancelled outcome
// (RUN_ERROR code cancelled for 0.0.x clients), and the answer says which it got.
func (s *Server) cancel(c echo.Context) error {
	tr, err := s.decodeThreadRequest(c)
	if err != nil {
		return err
	}
	if s.upstream.proxies(tr.ThreadID) {
		return s.upstream.proxy(c, tr.body)
	}
	res := s.threads.Cancel(threads.Key{Test: c.Request().Header.Get(TestIDHeader), Thread: tr.ThreadID}, threads.ErrCancelled, "", s.cfg.CancelWait)
	if !res.Known {
		return unknownThread(tr.ThreadID)
	}
	if res.RunID == "" {
		return c.JSON(http.StatusOK, cancelAnswer{ThreadID: tr.ThreadID, Message: "no run is streaming on this thread; nothing was cancelled"})
	}
	msg := "the run was cancelled; its stream had not ended within " + s.cfg.CancelWait.String()
	if res.Ending != "" {
		msg = "the run was cancelled; its stream ended with " + res.Ending
	}
	return c.JSON(http.StatusOK, cancelAnswer{ThreadID: tr.ThreadID, Cancelled: true, RunID: res.RunID, Scenario: res.Scenario, Message: msg})
}
