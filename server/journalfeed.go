package server

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/internal/sse"
)

// The kinds of journal change GET /_mock/journal/stream sends, each as the event name
// of its frame.
const (
	changeStarted  = "started"  // a run began to stream: its entry so far, without seq
	changeProgress = "progress" // a streaming run's events so far, or the breakpoint it waits at
	changeEntry    = "entry"    // a request was answered: its journal entry, with seq
	changeReload   = "reload"   // the scenarios were loaded again, or a load was rejected: the load status
	changeResync   = "resync"   // changes were lost: read the journal and the status afresh
	changeReady    = "ready"    // the stream is subscribed: what the journal lists from now on comes as changes
)

// journalChange is one change of the journal or of the loaded scenarios.
type journalChange struct {
	kind string
	data any
}

// runProgress is how far a streaming run has come.
type runProgress struct {
	RequestID string `json:"requestId"`
	Events    int    `json:"events"`
	PausedAt  string `json:"pausedAt,omitempty"` // the breakpoint the run waits at
}

// journalFeedBuffer is how many changes a subscriber may be behind before it loses
// them and is told to resync.
const journalFeedBuffer = 1024

// journalFeedBatch is the most changes one write of the journal stream carries.
const journalFeedBatch = 256

// progressEvery is the most often a streaming run reports its progress.
const progressEvery = 100 * time.Millisecond

// publish offers a change to the subscribers of the journal stream; with none it costs
// an atomic load.
func (s *Server) publish(kind string, data any) {
	if s.feed.Active() {
		s.feed.Publish(journalChange{kind: kind, data: data})
	}
}

// noteStarted notes in the journal entry of a run that begins to stream its scenario,
// how it was chosen and its record, and announces the run to the journal stream. It is
// not inlined: its locals would stay on the stack of every open stream.
//
//go:noinline
func (s *Server) noteStarted(c echo.Context, st startedRun) {
	note(c, func(e *JournalEntry) {
		e.Scenario, e.Selection, e.record = st.plan.Scenario.ID, st.how, st.record
		if s.feed.Active() {
			started := *e
			started.body, started.record = nil, nil
			s.publish(changeStarted, started)
		}
	})
}

// streamJournal answers GET /_mock/journal/stream: a server-sent stream of journal
// changes, each an event named by its kind with its JSON as data. It starts with ready;
// a subscriber that falls journalFeedBuffer changes behind loses them and gets resync,
// so that a slow page never holds a run up. It ends when the client goes away or the
// server stops.
func (s *Server) streamJournal(c echo.Context) error {
	sub := s.feed.Subscribe(journalFeedBuffer)
	defer s.feed.Unsubscribe(sub)
	w := sse.NewWriter(c.Response(), s.cfg.WriteTimeout)
	w.Begin()
	var buf []byte
	send := func(kind string, data any) error {
		body, err := json.Marshal(data)
		if err != nil {
			return fmt.Errorf("journal stream: %w", err)
		}
		buf = append(append(append(append(buf[:0], "event: "...), kind...), "\ndata: "...), body...)
		buf = append(buf, "\n\n"...)
		_, err = w.Write(buf)
		return err
	}
	if err := send(changeReady, map[string]any{"journalEvents": s.runs.limit, "status": s.Status()}); err != nil {
		return err
	}
	keepAlive := s.cfg.KeepAlive
	if keepAlive <= 0 {
		keepAlive = 15 * time.Second
	}
	ticker := time.NewTicker(keepAlive)
	defer ticker.Stop()
	ctx := c.Request().Context()
	for {
		if err := w.Flush(); err != nil {
			return nil // the client went away
		}
		var err error
		select {
		case <-ctx.Done():
			return nil
		case <-s.stopping:
			return nil
		case <-ticker.C:
			_, err = w.Write([]byte(": keep-alive\n\n"))
		case <-sub.Lost():
			if sub.Resync() {
				err = send(changeResync, map[string]any{})
			}
		case ch := <-sub.Values():
			err = send(ch.kind, ch.data)
			// What else is waiting goes out in the same write: on a busy server one
			// flush carries many changes, not one system call each.
			for n := 0; err == nil && n < journalFeedBatch && len(sub.Values()) > 0; n++ {
				ch = <-sub.Values()
				err = send(ch.kind, ch.data)
			}
		}
		if err != nil {
			return nil
		}
	}
}
