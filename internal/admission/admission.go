// Package admission bounds how many connections a server is starting to answer at
// once, so that a crowd of clients that connect together waits in the kernel's accept
// queue, costing the server nothing, instead of in the server, where every connection
// net/http has accepted holds a goroutine and its read and write buffers until its
// answer begins.
//
// A connection counts as starting from its accept until its answer begins: the first
// flush of its response, the connection taken over (hijacked), the response complete
// (the connection goes idle) or closed, or an explicit Begun before a wait that comes
// ahead of the answer — or net/http closing the connection's writing side after its
// last answer, as it does after a 431. A keep-alive connection whose next request arrives counts again,
// without waiting: only new connections wait. Connections are admitted in the order the
// kernel queued them, so that they also start in that order.
//
// A connection that waits for its client costs the server nothing and holds no place,
// so that slow or silent clients cannot keep others — health checks among them — in
// the queue: a new connection whose request has not arrived within WaitForClient gives
// its place back, and a handler that reads a request's body calls Begun before and
// Resume after.
package admission

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"
)

// WaitForClient is how long a new connection holds its place before its request has
// arrived. A client that connects sends its request at once, and a crowd's requests
// are already in the kernel's buffers when their connections are accepted; one that
// takes longer waits for its client, not for the server, and makes no one wait behind
// it. It is still answered, in its time.
const WaitForClient = 100 * time.Millisecond

// Gate admits connections while fewer than its limit are starting. Its Listener,
// ConnState, ConnContext and Handler are wired into one http.Server.
type Gate struct {
	limit    int
	mu       sync.Mutex
	admitted sync.Cond // broadcast when a slot frees or the listener closes: Accept and Resume wait on it
	starting int
	reserved int // of starting, the places Accept holds while it waits for the kernel's next connection
	closed   bool
	tickets  map[net.Conn]*ticket
}

// ticket is one connection's slot, held while the connection is starting.
type ticket struct {
	gate   *Gate
	held   bool        // guarded by gate.mu
	gone   bool        // the connection was taken over or closed; guarded by gate.mu
	silent *time.Timer // gives the slot back if the first request does not arrive in time
}

// New returns a gate that lets up to limit connections start at once.
func New(limit int) *Gate {
	g := &Gate{limit: limit, tickets: map[net.Conn]*ticket{}}
	g.admitted.L = &g.mu
	return g
}

// Listener returns ln, whose Accept waits for a free slot before it takes the next
// connection from the kernel's queue.
func (g *Gate) Listener(ln net.Listener) net.Listener { return &listener{Listener: ln, gate: g} }

type listener struct {
	net.Listener
	gate *Gate
}

func (l *listener) Accept() (net.Conn, error) {
	g := l.gate
	g.mu.Lock()
	for g.starting >= g.limit && !g.closed {
		g.admitted.Wait()
	}
	g.starting++ // also when closed: the Accept below fails and gives it back
	g.reserved++
	g.mu.Unlock()
	c, err := l.Listener.Accept()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reserved--
	if err != nil {
		g.release()
		return nil, err
	}
	t := &ticket{gate: g, held: true}
	t.silent = time.AfterFunc(WaitForClient, func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if t.silent != nil { // ConnState has not yet seen the first request
			t.begun()
		}
	})
	g.tickets[c] = t
	return &conn{Conn: c, ticket: t}, nil
}

// unwrapped is the connection Accept accepted, under the conn it returned.
func unwrapped(c net.Conn) net.Conn {
	if ac, ok := c.(*conn); ok {
		return ac.Conn
	}
	return c
}

// conn is an accepted connection. net/http calls its CloseWrite once it has written
// its last answer on a connection it is about to close — a 431 for headers past
// http.Server.MaxHeaderBytes among them — before it waits half a second for the client
// to read that answer; the answer is written, so the connection gives its place back
// then, not after the wait.
type conn struct {
	net.Conn
	ticket *ticket
}

// CloseWrite gives the connection's place back and shuts down its writing side.
func (c *conn) CloseWrite() error {
	g := c.ticket.gate
	g.mu.Lock()
	c.ticket.begun()
	g.mu.Unlock()
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// SyscallConn is the accepted connection's, for those that watch its descriptor.
func (c *conn) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := c.Conn.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, errors.ErrUnsupported
}

// Close closes the listener and wakes an Accept that waits for a slot.
func (l *listener) Close() error {
	g := l.gate
	g.mu.Lock()
	g.closed = true
	g.admitted.Broadcast()
	g.mu.Unlock()
	return l.Listener.Close()
}

// release frees one slot; g.mu is held.
func (g *Gate) release() {
	g.starting--
	g.admitted.Broadcast()
}

// ConnState is the http.Server's ConnState hook: a connection whose next request
// arrives starts again; one that goes idle, is taken over or closes has begun.
func (g *Gate) ConnState(c net.Conn, state http.ConnState) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c = unwrapped(c)
	t := g.tickets[c]
	if t == nil {
		return
	}
	if t.silent != nil && state != http.StateNew { // the first request arrived, or the connection went
		t.silent.Stop()
		t.silent = nil
	}
	switch state {
	case http.StateActive:
		if !t.held {
			t.held = true
			g.starting++
		}
	case http.StateIdle, http.StateHijacked, http.StateClosed:
		t.begun()
		if state != http.StateIdle {
			t.gone = true
			delete(g.tickets, c)
		}
	}
}

// begun frees the ticket's slot if it holds one; gate.mu is held.
func (t *ticket) begun() {
	if t.held {
		t.held = false
		t.gate.release()
	}
}

type ticketKey struct{}

// ConnContext is the http.Server's ConnContext hook: it lets the requests of c find its
// ticket (Begun).
func (g *Gate) ConnContext(ctx context.Context, c net.Conn) context.Context {
	g.mu.Lock()
	t := g.tickets[unwrapped(c)]
	g.mu.Unlock()
	if t == nil {
		return ctx
	}
	return context.WithValue(ctx, ticketKey{}, t)
}

// Begun says that the answer to the request whose context is ctx has begun, or is about
// to wait for something other than the server (an upstream's answer, a delay asked for):
// its connection no longer counts as starting. It does nothing for a request that did
// not come through a gate.
func Begun(ctx context.Context) {
	t, ok := ctx.Value(ticketKey{}).(*ticket)
	if !ok {
		return
	}
	t.gate.mu.Lock()
	t.begun()
	t.gate.mu.Unlock()
}

// Resume says that the request whose context is ctx, which called Begun to wait for its
// client (its body), goes on working towards its answer: its connection counts as
// starting again, once there is a place for it. It returns ctx's cause if ctx is done
// first, and nil at once for a request that did not come through a gate or whose
// connection holds its place.
func Resume(ctx context.Context) error {
	t, ok := ctx.Value(ticketKey{}).(*ticket)
	if !ok {
		return nil
	}
	g := t.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	// The place an Accept holds for a connection that has not come is not taken from it.
	full := func() bool { return !t.held && !t.gone && !g.closed && g.starting-g.reserved >= g.limit }
	if full() {
		stop := context.AfterFunc(ctx, func() {
			g.mu.Lock()
			g.admitted.Broadcast()
			g.mu.Unlock()
		})
		defer stop()
		for full() {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			g.admitted.Wait()
		}
	}
	if !t.held && !t.gone {
		t.held = true
		g.starting++
	}
	return nil
}

// Handler returns h, whose responses count as begun at their first flush.
func (g *Gate) Handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&beginWriter{ResponseWriter: w, ctx: r.Context()}, r)
	})
}

// beginWriter calls Begun at the first flush of the response it writes.
type beginWriter struct {
	http.ResponseWriter
	ctx     context.Context
	flushed bool
}

// FlushError flushes the response, which has then begun.
func (w *beginWriter) FlushError() error {
	if !w.flushed {
		w.flushed = true
		Begun(w.ctx)
	}
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Flush flushes the response, for callers that look for an http.Flusher.
func (w *beginWriter) Flush() { _ = w.FlushError() }

// Hijack takes the connection over, for callers that look for an http.Hijacker; the
// ConnState hook sees it begun.
func (w *beginWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// Unwrap returns the ResponseWriter underneath, for http.ResponseController.
func (w *beginWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
