package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
)

// bodyGate bounds the bytes of the large request bodies the server handles at once. A
// body past maxJournaledBody — or of unknown length, counted as its limit — waits for
// room before it is read, and gives its room back once its request has been answered,
// or its stream handed over. Handling a body takes a few times its size (the bytes, the
// decoded input, the conversation written out again), so that without a bound a
// handful of clients sending large bodies at once could take the process's memory.
// Small bodies, nearly all of them, never wait.
type bodyGate struct {
	mu      sync.Mutex
	max     int64         // 0: no bound
	used    int64         // what the bodies being handled take
	changed chan struct{} // closed, and replaced, when room is given back
}

// DefaultBodiesMaxBytes is the default of Config.BodiesMaxBytes: 32 MiB, three bodies of
// the largest size --max-body allows by default, handled at once.
const DefaultBodiesMaxBytes = 32 << 20

// bodyWait is how long a large body waits for room before it is answered 503.
const bodyWait = 10 * time.Second

// bodyRoomKey holds, in a request's context, the room its body took.
const bodyRoomKey = "agui-mock.bodyRoom"

func newBodyGate(max int64) *bodyGate {
	return &bodyGate{max: max, changed: make(chan struct{})}
}

// errNoRoom says that a large body waited for room past its time.
var errNoRoom = errors.New("no room for the body")

// admit waits until a request's body, of at most limit bytes, has room, or until wait
// has passed (errNoRoom) or the request has ended. A small body, or any body without a
// bound, does not wait. A body larger than the bound waits until no other is handled.
func (g *bodyGate) admit(c echo.Context, limit int64, wait time.Duration) error {
	req := c.Request()
	size := req.ContentLength
	if size < 0 {
		size = limit
	}
	size = min(size, limit)
	if g.max <= 0 || size <= maxJournaledBody {
		return nil
	}
	ctx, cancel := context.WithTimeoutCause(req.Context(), wait, errNoRoom)
	defer cancel()
	for {
		g.mu.Lock()
		if g.used == 0 || g.used+size <= g.max {
			g.used += size
			g.mu.Unlock()
			c.Set(bodyRoomKey, size)
			return nil
		}
		changed := g.changed
		g.mu.Unlock()
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-changed:
		}
	}
}

// release gives back the room a request's body took, if it took any.
func (g *bodyGate) release(c echo.Context) {
	size, ok := c.Get(bodyRoomKey).(int64)
	if !ok {
		return
	}
	c.Set(bodyRoomKey, nil)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.used -= size
	close(g.changed)
	g.changed = make(chan struct{})
}

// noRoomError is the answer to a body that found no room in time.
func (s *Server) noRoomError(c echo.Context, waited time.Duration) *httpError {
	h := c.Response().Header()
	h.Set("Retry-After", "1")
	h.Set(echo.HeaderConnection, "close") // the body was not read
	return apiError(http.StatusServiceUnavailable, "too_many_bodies", fmt.Sprintf(
		"the server is handling %d bytes of large request bodies already (--bodies-max-bytes), and this one found no room within %v; try again", s.cfg.BodiesMaxBytes, waited))
}
