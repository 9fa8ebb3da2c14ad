package server

import (
	"container/list"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/threads"
)

// ReconnectConfig is how runs with cursor ids wait for a client that lost its stream.
// With cursor ids, every SSE event's id names its run and its place in it
// (`<token>.<n>`): a client that POSTs the same run input again with the id it read
// last in Last-Event-ID gets the rest of the run, from the next event on.
type ReconnectConfig struct {
	// Cursor writes cursor ids in place of Config.EventIDs' and keeps each run's events
	// for a client that reconnects.
	Cursor bool
	// Grace is how long a run plays on without a client before it counts as cancelled,
	// and how long a run that has ended keeps its events.
	Grace time.Duration
	// MaxRunBytes is the most bytes of frames one run keeps (each counted with
	// frameOverhead): past it, its oldest go.
	MaxRunBytes int64
	// MaxBytes is the most bytes of frames all runs keep together: past it, the runs
	// that have ended let go of theirs, the one that ended first first, and then the run
	// that writes lets go of its oldest.
	MaxBytes int64
}

// DefaultReconnectConfig is the configuration of reconnects, with cursor ids off.
func DefaultReconnectConfig() ReconnectConfig {
	return ReconnectConfig{Grace: 30 * time.Second, MaxRunBytes: 1 << 20, MaxBytes: 32 << 20}
}

// frameOverhead is what keeping a frame costs besides its bytes, counted against the
// bounds: its slice header and the rounding of its allocation.
const frameOverhead = 32

// errGraceOver is the cause of a run cancelled because no client came back for it
// within the grace period.
var errGraceOver = errors.New("the client went away and did not reconnect within the grace period")

// tokenLen is the length of a run's token: 16 random bytes, base64url without padding,
// so that no client can name another's run by guessing.
const tokenLen = 22

// cursor is a position in a run with cursor ids: the run's token and the number of the
// last event read (the first event is 1).
type cursor struct {
	token string
	seq   int
}

// parseCursor reads a Last-Event-ID written as a cursor id.
func parseCursor(id string) (cursor, bool) {
	token, n, ok := strings.Cut(strings.TrimSpace(id), ".")
	if !ok || len(token) != tokenLen {
		return cursor{}, false
	}
	if _, err := base64.RawURLEncoding.DecodeString(token); err != nil {
		return cursor{}, false
	}
	seq, err := strconv.Atoi(n)
	if err != nil || seq < 1 {
		return cursor{}, false
	}
	return cursor{token: token, seq: seq}, true
}

// reconnects are the runs whose events are kept for clients that reconnect, by token.
type reconnects struct {
	cfg  ReconnectConfig
	mu   sync.Mutex // guards runs and done; taken before a run's own lock
	runs map[string]*replayRun
	// used is the bytes of frames kept: a run adds its frames under its own lock alone,
	// and takes mu only when the total bound needs ended runs' room.
	used atomic.Int64
	done *list.List // of the *replayRun that have ended, the first to end first
}

// newReconnects returns the registry of runs with cursor ids, or nil without them; a
// bound left 0 takes its default.
func newReconnects(cfg ReconnectConfig) *reconnects {
	if !cfg.Cursor {
		return nil
	}
	def := DefaultReconnectConfig()
	if cfg.Grace <= 0 {
		cfg.Grace = def.Grace
	}
	if cfg.MaxRunBytes <= 0 {
		cfg.MaxRunBytes = def.MaxRunBytes
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = def.MaxBytes
	}
	return &reconnects{cfg: cfg, runs: map[string]*replayRun{}, done: list.New()}
}

// replayRun is one run's kept frames and who reads them: its first client, and the
// clients that reconnected to it. While nobody reads, the grace timer runs.
type replayRun struct {
	r      *reconnects
	token  string
	thread threads.Key
	runID  string
	cancel context.CancelCauseFunc // ends the run when the grace is over

	mu       sync.Mutex
	frames   [][]byte      // the frames from first on
	first    int           // the number of frames[0]
	next     int           // the number of the next frame
	bytes    int64         // of frames, each counted with frameOverhead
	ended    bool          // the run has ended: no frame follows
	changed  chan struct{} // closed when a frame comes or the run ends
	readers  int           // clients reading: the first until it leaves, and those reconnected
	left     bool          // the first client has left
	timer    *time.Timer   // the grace timer, while nobody reads
	gone     bool          // forgotten: its cursors are expired
	doneElem *list.Element // in r.done once ended
}

// open registers a run of thread that has begun, read by its first client; cancel ends
// it when nobody reads it for the grace period.
func (r *reconnects) open(thread threads.Key, runID string, cancel context.CancelCauseFunc) *replayRun {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	run := &replayRun{r: r, token: base64.RawURLEncoding.EncodeToString(b[:]), thread: thread, runID: runID,
		cancel: cancel, first: 1, next: 1, readers: 1, changed: make(chan struct{})}
	r.mu.Lock()
	r.runs[run.token] = run
	r.mu.Unlock()
	return run
}

// lookup returns the run a cursor names, or nil when none is kept.
func (r *reconnects) lookup(token string) *replayRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.runs[token]
}

// forget lets go of a run and its frames: its cursors are expired from now on.
func (r *reconnects) forget(run *replayRun) {
	r.mu.Lock()
	defer r.mu.Unlock()
	run.mu.Lock()
	defer run.mu.Unlock()
	r.forgetLocked(run)
}

// forgetLocked is forget with r.mu and run.mu held.
func (r *reconnects) forgetLocked(run *replayRun) {
	if run.gone {
		return
	}
	run.gone = true
	delete(r.runs, run.token)
	if run.doneElem != nil {
		r.done.Remove(run.doneElem)
		run.doneElem = nil
	}
	r.used.Add(-run.bytes)
	run.frames, run.bytes = nil, 0
	if run.timer != nil {
		run.timer.Stop()
	}
	close(run.changed) // readers waiting see that it is gone
	run.changed = make(chan struct{})
}

// add keeps frame, the next of the run's frames, within the bounds: past the run's, its
// oldest frames go; past the total, the frames of the runs that have ended go, then
// the run's oldest.
func (run *replayRun) add(frame []byte) {
	r := run.r
	size := int64(len(frame)) + frameOverhead
	if r.used.Load()+size > r.cfg.MaxBytes {
		r.reclaim(size) // before run.mu: mu comes first
	}
	kept := append([]byte(nil), frame...) // copied before the lock, which readers wait on
	run.mu.Lock()
	defer run.mu.Unlock()
	if run.gone {
		return
	}
	for len(run.frames) > 0 && (run.bytes+size > r.cfg.MaxRunBytes || r.used.Load()+size > r.cfg.MaxBytes) {
		r.used.Add(-int64(len(run.frames[0])) - frameOverhead)
		run.bytes -= int64(len(run.frames[0])) + frameOverhead
		run.frames[0] = nil
		run.frames = run.frames[1:]
		run.first++
	}
	run.next++
	if size > r.cfg.MaxRunBytes || r.used.Load()+size > r.cfg.MaxBytes {
		run.first = run.next // not even this one fits
	} else {
		run.frames = append(run.frames, kept)
		run.bytes += size
		r.used.Add(size)
	}
	run.broadcast()
}

// reclaim lets ended runs go, the first to end first, until size more bytes fit within
// the total bound or no ended run is left.
func (r *reconnects) reclaim(size int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.used.Load()+size > r.cfg.MaxBytes && r.done.Len() > 0 {
		ended := r.done.Front().Value.(*replayRun)
		ended.mu.Lock()
		r.forgetLocked(ended)
		ended.mu.Unlock()
	}
}

// broadcast wakes the readers waiting for a change, with run.mu held.
func (run *replayRun) broadcast() {
	close(run.changed)
	run.changed = make(chan struct{})
}

// nextID is the number the next frame's id carries.
func (run *replayRun) nextID() int {
	run.mu.Lock()
	defer run.mu.Unlock()
	return run.next
}

// end says that the run has ended (a nil run is not kept): its readers get what is left, and its frames are
// kept for the grace period after its readers leave, or until the total bound needs
// their room. The first client, whose response ends with the run, stops reading.
func (run *replayRun) end() {
	if run == nil {
		return
	}
	r := run.r
	r.mu.Lock()
	defer r.mu.Unlock()
	run.mu.Lock()
	defer run.mu.Unlock()
	if run.ended || run.gone {
		return
	}
	run.ended = true
	run.doneElem = r.done.PushBack(run)
	run.broadcast()
	run.leaveLocked()
}

// leave says that the run's first client went away (a nil run has none); the run plays on for the grace
// period, unless a client reconnects.
func (run *replayRun) leave() {
	if run == nil {
		return
	}
	run.mu.Lock()
	defer run.mu.Unlock()
	run.leaveLocked()
}

// leaveLocked is leave with run.mu held: the first client stops reading, once.
func (run *replayRun) leaveLocked() {
	if run.left {
		return
	}
	run.left = true
	run.detachLocked()
}

// attach adds a reconnected reader, at the frame after seq. It returns nil and why not
// when the run is gone or its frames after seq are.
func (run *replayRun) attach(seq int) error {
	run.mu.Lock()
	defer run.mu.Unlock()
	switch {
	case run.gone:
		return errCursorExpired
	case seq >= run.next:
		return errCursorAhead
	case seq+1 < run.first:
		return errCursorDropped
	}
	run.readers++
	if run.timer != nil {
		run.timer.Stop()
	}
	return nil
}

// Why a cursor cannot be followed.
var (
	errCursorExpired = errors.New("the run is no longer kept: its client stayed away past the grace period, or it ended that long ago")
	errCursorAhead   = errors.New("the cursor is past the run's last event")
	errCursorDropped = errors.New("the run's events after the cursor were let go past the buffer's bound")
)

// detach removes a reader: with none left, the grace timer starts.
func (run *replayRun) detach() {
	run.mu.Lock()
	defer run.mu.Unlock()
	run.detachLocked()
}

// detachLocked is detach with run.mu held.
func (run *replayRun) detachLocked() {
	run.readers--
	if run.readers > 0 || run.gone {
		return
	}
	if run.timer == nil {
		run.timer = time.AfterFunc(run.r.cfg.Grace, run.graceOver)
		return
	}
	run.timer.Reset(run.r.cfg.Grace)
}

// graceOver ends a run nobody read for the grace period, and forgets it.
func (run *replayRun) graceOver() {
	run.mu.Lock()
	idle := run.readers == 0 && !run.gone
	ended := run.ended
	run.mu.Unlock()
	if !idle {
		return // a client came back as the timer fired
	}
	if !ended {
		run.cancel(errGraceOver)
	}
	run.r.forget(run)
}

// from returns the frames after seq that are kept, appended to dst, and the number of
// the last of them; ended reports whether no more will come, gone whether the run was
// forgotten, and changed is closed when anything changes.
func (run *replayRun) from(dst []byte, seq int) (out []byte, last int, ended, gone bool, changed <-chan struct{}) {
	run.mu.Lock()
	defer run.mu.Unlock()
	if run.gone {
		return dst, seq, true, true, run.changed
	}
	if seq+1 < run.first {
		return dst, seq, true, true, run.changed // dropped past the bound while it was read
	}
	for _, f := range run.frames[max(seq+1-run.first, 0):] {
		dst = append(dst, f...)
	}
	return dst, run.next - 1, run.ended, false, run.changed
}

// cursorEncoder writes SSE frames whose ids are cursors of its run, and keeps each
// frame in the run for clients that reconnect.
type cursorEncoder struct {
	protocol.SSEEncoder // without ids of its own
	run                 *replayRun
}

// AppendFrame appends the frame of ev with the next cursor id, and keeps it.
func (e cursorEncoder) AppendFrame(dst []byte, ev protocol.Event, timestamp int64) ([]byte, error) {
	n := len(dst)
	dst = append(dst, "id: "...)
	dst = append(dst, e.run.token...)
	dst = append(dst, '.')
	dst = strconv.AppendInt(dst, int64(e.run.nextID()), 10)
	dst = append(dst, '\n')
	body := len(dst)
	out, err := protocol.AppendFrame(dst, ev, timestamp, false)
	if err != nil {
		return dst[:n], err
	}
	if len(out) == body { // an event the transport cannot carry
		return out[:n], nil
	}
	e.run.add(out[n:])
	return out, nil
}
