package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/copilotkit"
	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/threads"
)

// Seeded conversations: threads a test starts from, as if their runs had been played
// (protocol.SeededThread), which a CopilotKit app restores through the runtime's connect
// route. A test seeds one with POST /_mock/threads, under its X-Test-Id; a thread
// document in the scenario directories seeds one that every test starts from, made the
// test's own the first time a request of the test names it.

// seedAnswer is what POST /_mock/threads says of the thread it seeded.
type seedAnswer struct {
	ThreadID string `json:"threadId"`
	Agent    string `json:"agent"`
	Runs     int    `json:"runs"`
	// Awaiting says what the thread's next run must answer: interrupt ids or tool call ids.
	Awaiting awaiting `json:"awaiting"`
	// Scenario answers the thread's next run: it continues its pause, or starts afresh.
	Scenario string `json:"scenario,omitempty"`
}

type awaiting struct {
	Interrupts []string `json:"interrupts"`
	ToolCalls  []string `json:"toolCalls"`
}

// seedThread answers POST /_mock/threads: the body, a seeded thread, becomes the
// caller's test's thread of its id, in place of what it was.
func (s *Server) seedThread(c echo.Context) error {
	if err := checkJSONContentType(c.Request()); err != nil {
		return err
	}
	body, err := s.readBody(c, s.cfg.MaxBodyBytes)
	if err != nil {
		return err
	}
	v, err := protocol.DecodeJSON(body)
	if err != nil {
		return inputError("seeded thread", err)
	}
	thread, err := protocol.DecodeSeededThread(v, s.newID)
	if err != nil {
		return inputError("seeded thread", err)
	}
	key := runtimeKey(c, thread.ThreadID)
	answer, err := s.seedInto(c.Request().Context(), key, thread)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, answer)
}

// seedInto makes a seeded thread the thread of key.
func (s *Server) seedInto(ctx context.Context, key threads.Key, thread *protocol.SeededThread) (seedAnswer, error) {
	agent := thread.Agent
	if agent == "" {
		agent = copilotkit.DefaultAgent
	}
	events, err := thread.Events()
	if err != nil {
		return seedAnswer{}, inputError("seeded thread", err)
	}
	now := time.Now()
	cursor := scenarios.SeededPause(thread)
	next := ""
	if thread.Scenario != "" {
		opts := scenarios.PlanOptions{Seed: s.seedFor(key), Turn: len(thread.Runs) - 1, Timing: s.cfg.Timing, Now: now,
			FixedTime: s.cfg.FixedTime, Limits: s.cfg.TemplateLimits, Dialect: s.cfg.Dialect, Usage: s.cfg.Usage, Client: ctx}
		if cursor, err = s.set.Load().SeedCursor(ctx, thread, copilotkit.RunPath(s.runtimeBase(), agent), opts); err != nil {
			return seedAnswer{}, &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input", Message: "invalid seeded thread: " + err.Error(), Field: "scenario"}}
		}
		if cursor == nil {
			next = thread.Scenario // it waits for nothing: the scenario plays its next run from its start
		}
	}
	ids := make([]string, len(thread.Runs))
	for i, r := range thread.Runs {
		ids[i] = r.RunID
	}
	if err := s.threads.Seed(key, threads.Seed{Agent: agent, Runs: events, RunIDs: ids, Cursor: cursor, Next: next}); err != nil {
		var busy *threads.SeedError
		var tooLarge *threads.TooLargeError
		switch {
		case errors.As(err, &busy):
			return seedAnswer{}, &httpError{status: http.StatusConflict, body: errorBody{Error: "run_in_progress", Message: busy.Error(), Details: map[string]any{"runId": busy.RunID}}}
		case errors.As(err, &tooLarge):
			return seedAnswer{}, apiError(http.StatusRequestEntityTooLarge, "thread_too_large", tooLarge.Error())
		}
		return seedAnswer{}, err
	}
	answer := seedAnswer{ThreadID: thread.ThreadID, Agent: agent, Runs: len(thread.Runs), Scenario: thread.Scenario,
		Awaiting: awaiting{Interrupts: []string{}, ToolCalls: []string{}}}
	if cursor != nil {
		for _, pi := range cursor.Interrupts {
			answer.Awaiting.Interrupts = append(answer.Awaiting.Interrupts, pi.ID)
		}
		for _, tc := range cursor.ToolCalls {
			answer.Awaiting.ToolCalls = append(answer.Awaiting.ToolCalls, tc.ID)
		}
	}
	return answer, nil
}

// runtimeBase is the base path of the runtime's routes, or its default when they are
// not served: the route a seeded thread's scenario is played for.
func (s *Server) runtimeBase() string {
	if s.cfg.RuntimePath == "" {
		return copilotkit.DefaultBasePath
	}
	return s.cfg.RuntimePath
}

// seedFromFiles makes the thread of the scenario directories' thread document of key's
// thread id the test's own, when the test has no thread of that id yet.
func (s *Server) seedFromFiles(key threads.Key) {
	thread := s.set.Load().Thread(key.Thread)
	if thread == nil || s.threads.Has(key) {
		return
	}
	s.seedFile(key, thread)
}

// seedAllFromFiles makes every thread of the scenario directories' thread documents the
// test's own, where it has none of that id yet: what its thread list shows.
func (s *Server) seedAllFromFiles(testID string) {
	for _, thread := range s.set.Load().Threads() {
		if key := (threads.Key{Test: testID, Thread: thread.ThreadID}); !s.threads.Has(key) {
			s.seedFile(key, thread)
		}
	}
}

// seedFile seeds a thread of a thread document; the set's load has checked it, so a
// failure here is the server's.
func (s *Server) seedFile(key threads.Key, thread *protocol.SeededThread) {
	if _, err := s.seedInto(context.Background(), key, thread); err != nil {
		s.cfg.Logger.Error("seeding a thread of the scenario directories", "thread", thread.ThreadID, "test", key.Test, "err", err)
	}
}
