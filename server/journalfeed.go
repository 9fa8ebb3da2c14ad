package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/internal/sse"
	"github.com/agui-mock/agui-mock/protocol"
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

// journalChange is one change of the journal or of the loaded scenarios. It holds its
// data by value, of whichever kind it is: publishing one copies it into each
// subscriber's buffer and allocates nothing.
type journalChange struct {
	kind     string
	entry    JournalEntry // of started and entry
	progress runProgress
	status   LoadStatus // of reload
}

// requestID names the request a change of a run is about.
func (ch *journalChange) requestID() string {
	if ch.kind == changeProgress {
		return ch.progress.RequestID
	}
	return ch.entry.RequestID
}

// data is what a change's frame carries.
func (ch *journalChange) data() any {
	switch ch.kind {
	case changeProgress:
		return &ch.progress
	case changeReload:
		return &ch.status
	}
	return &ch.entry
}

// runProgress is how far a streaming run has come.
type runProgress struct {
	RequestID string `json:"requestId"`
	Events    int    `json:"events"`
	PausedAt  string `json:"pausedAt,omitempty"` // the breakpoint the run waits at
}

// journalFeedBuffer is how many changes a subscriber may be behind before it loses
// them and is told to resync: room for the changes of journalFeedDelay at well over
// 10,000 runs a second.
const journalFeedBuffer = 2048

// journalFeedDelay is how long the journal stream gathers changes before it writes
// them: a page sees a change this much later, and a busy server writes a batch at a time.
const journalFeedDelay = 25 * time.Millisecond

// progressEvery is the most often a streaming run reports its progress.
const progressEvery = 100 * time.Millisecond

// publish offers a change to the subscribers of the journal stream; with none it costs
// an atomic load.
func (s *Server) publish(ch journalChange) {
	if s.feed.Active() {
		s.feed.Publish(ch)
	}
}

// publishEntry announces a journal entry, without its request and details: the list
// needs neither, and GET /_mock/journal/:seq has them.
func (s *Server) publishEntry(e JournalEntry) {
	if s.feed.Active() {
		e.Request, e.Details = nil, nil
		s.publish(journalChange{kind: changeEntry, entry: e})
	}
}

// publishProgress tells how far a streaming run has come.
func (s *Server) publishProgress(p runProgress) {
	if s.feed.Active() {
		s.publish(journalChange{kind: changeProgress, progress: p})
	}
}

// noteStarted notes in the journal entry of a run that begins to stream its scenario,
// how it was chosen and its record, and announces the run to the journal stream. It is
// not inlined: its locals would stay on the stack of every open stream.
//
//go:noinline
func (s *Server) noteStarted(c echo.Context, st startedRun) {
	note(c, func(e *JournalEntry) {
		e.Scenario, e.Selection, e.NearMisses, e.record = st.plan.Scenario.ID, st.how, st.missed, st.record
		if s.feed.Active() {
			ch := journalChange{kind: changeStarted, entry: *e}
			ch.entry.body, ch.entry.record = nil, nil
			s.publish(ch)
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
	w.Begin(protocol.SSEContentType)
	var frame bytes.Buffer
	enc := json.NewEncoder(&frame) // one buffer for every frame; Encode ends the data line
	send := func(kind string, data any) error {
		frame.Reset()
		frame.WriteString("event: ")
		frame.WriteString(kind)
		frame.WriteString("\ndata: ")
		if err := enc.Encode(data); err != nil {
			return fmt.Errorf("journal stream: %w", err)
		}
		frame.WriteByte('\n')
		_, err := w.Write(frame.Bytes())
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
	var batch []journalChange
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
			// The changes of the next moments go out with this one, in one write: on a
			// busy server the stream wakes and writes once per batch, not once per
			// change, and a short run's start and entry arrive together, as its entry.
			select {
			case <-ctx.Done():
				return nil
			case <-s.stopping:
				return nil
			case <-time.After(journalFeedDelay):
			}
			batch = append(batch[:0], ch)
			for len(batch) < journalFeedBuffer && len(sub.Values()) > 0 {
				batch = append(batch, <-sub.Values())
			}
			err = sendBatch(batch, send)
		}
		if err != nil {
			return nil
		}
	}
}

// sendBatch sends a batch of changes, leaving out the start and progress of a run whose
// entry is in the same batch: it says all they would.
func sendBatch(batch []journalChange, send func(kind string, data any) error) error {
	var ended map[string]bool
	for i := range batch {
		if ch := &batch[i]; ch.kind == changeEntry && ch.requestID() != "" {
			if ended == nil {
				ended = map[string]bool{}
			}
			ended[ch.requestID()] = true
		}
	}
	for i := range batch {
		ch := &batch[i]
		if (ch.kind == changeStarted || ch.kind == changeProgress) && ended[ch.requestID()] {
			continue
		}
		if err := send(ch.kind, ch.data()); err != nil {
			return err
		}
	}
	return nil
}
