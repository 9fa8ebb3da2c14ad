package admission

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// queue is a listener whose connections the test queues, as the kernel's accept queue
// holds them.
type queue struct {
	conns     chan net.Conn
	closeOnce sync.Once
	closed    chan struct{}
}

func newQueue() *queue { return &queue{conns: make(chan net.Conn, 16), closed: make(chan struct{})} }

func (q *queue) Accept() (net.Conn, error) {
	select {
	case c := <-q.conns:
		return c, nil
	case <-q.closed:
		return nil, net.ErrClosed
	}
}

func (q *queue) Close() error   { q.closeOnce.Do(func() { close(q.closed) }); return nil }
func (q *queue) Addr() net.Addr { return &net.TCPAddr{} }

// connect queues a new connection and returns the server's end.
func (q *queue) connect(t *testing.T) net.Conn {
	server, client := net.Pipe()
	t.Cleanup(func() { server.Close(); client.Close() })
	q.conns <- server
	return server
}

// accepting calls Accept in the background; the channel gives its connection.
func accepting(t *testing.T, ln net.Listener) <-chan net.Conn {
	got := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			t.Errorf("accept: %v", err)
		}
		got <- c
	}()
	return got
}

// accepted reports whether the Accept in the background has returned, once every
// goroutine of the test waits.
func accepted(got <-chan net.Conn) (net.Conn, bool) {
	synctest.Wait()
	select {
	case c := <-got:
		return c, true
	default:
		return nil, false
	}
}

// oneAdmitted returns a gate of one place, its listener and queue, and the connection
// that holds the place.
func oneAdmitted(t *testing.T) (*Gate, net.Listener, *queue, net.Conn) {
	t.Helper()
	q := newQueue()
	g := New(1)
	ln := g.Listener(q)
	first := q.connect(t)
	if _, ok := accepted(accepting(t, ln)); !ok {
		t.Fatal("the first connection waits")
	}
	return g, ln, q, first
}

func TestAcceptWaitsUntilAStartingConnectionBegins(t *testing.T) {
	for _, begins := range []http.ConnState{http.StateIdle, http.StateHijacked, http.StateClosed} {
		t.Run(begins.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := newQueue()
				g := New(2)
				ln := g.Listener(q)
				first := q.connect(t)
				q.connect(t)
				third := q.connect(t)
				for range 2 {
					if _, ok := accepted(accepting(t, ln)); !ok {
						t.Fatal("a connection within the limit waits")
					}
				}
				waiting := accepting(t, ln)
				if _, ok := accepted(waiting); ok {
					t.Fatal("a third connection was accepted while two were starting")
				}
				g.ConnState(first, begins)
				if c, ok := accepted(waiting); !ok || unwrapped(c) != third {
					t.Fatalf("the third connection was not accepted, in turn, once the first became %s", begins)
				}
			})
		})
	}
}

func TestAKeepAliveConnectionStartsAgainWithoutWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, ln, q, keepAlive := oneAdmitted(t)
		g.ConnState(keepAlive, http.StateIdle) // its first answer is complete
		other := q.connect(t)
		if _, ok := accepted(accepting(t, ln)); !ok {
			t.Fatal("a connection waits while the only other one is idle")
		}
		g.ConnState(keepAlive, http.StateActive) // its next request: over the limit, at once
		q.connect(t)
		waiting := accepting(t, ln)
		g.ConnState(other, http.StateHijacked)
		if _, ok := accepted(waiting); ok {
			t.Fatal("accepted while the keep-alive connection's next request was starting")
		}
		g.ConnState(keepAlive, http.StateIdle)
		if _, ok := accepted(waiting); !ok {
			t.Fatal("not accepted once both had begun")
		}
	})
}

func TestAFlushOrBegunFreesTheSlot(t *testing.T) {
	for _, how := range []string{"flush", "begun"} {
		t.Run(how, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g, ln, q, c := oneAdmitted(t)
				q.connect(t)
				waiting := accepting(t, ln)
				req := httptest.NewRequest("GET", "/", nil).WithContext(g.ConnContext(context.Background(), c))
				begin, release := make(chan struct{}), make(chan struct{})
				go g.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Write([]byte("data: x\n\n"))
					<-begin
					if how == "flush" {
						if err := http.NewResponseController(w).Flush(); err != nil {
							t.Error(err)
						}
					} else {
						Begun(r.Context())
					}
					<-release // the answer goes on
				})).ServeHTTP(httptest.NewRecorder(), req)
				if _, ok := accepted(waiting); ok {
					t.Fatal("accepted before the answer began")
				}
				close(begin)
				if _, ok := accepted(waiting); !ok {
					t.Errorf("not accepted once the answer had begun (%s)", how)
				}
				close(release)
			})
		})
	}
}

func TestClosingTheListenerWakesAWaitingAccept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, ln, _, _ := oneAdmitted(t)
		errc := make(chan error, 1)
		go func() {
			_, err := ln.Accept()
			errc <- err
		}()
		synctest.Wait()
		ln.Close()
		if err := <-errc; !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Accept after Close: %v", err)
		}
	})
}

func TestBegunWithoutAGateDoesNothing(t *testing.T) {
	Begun(context.Background()) // must not panic
}

func TestASilentConnectionGivesItsPlaceBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, ln, q, first := oneAdmitted(t) // it sends nothing
		g.ConnState(first, http.StateNew) // as net/http reports it once accepted
		q.connect(t)
		waiting := accepting(t, ln)
		if _, ok := accepted(waiting); ok {
			t.Fatal("accepted while the first connection had just been accepted")
		}
		time.Sleep(WaitForClient - time.Millisecond)
		if _, ok := accepted(waiting); ok {
			t.Fatal("accepted before the first connection had waited WaitForClient for its client")
		}
		time.Sleep(time.Millisecond)
		if _, ok := accepted(waiting); !ok {
			t.Fatal("a silent connection kept its place past WaitForClient")
		}
	})
}

func TestAConnectionWhoseRequestArrivesKeepsItsPlace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, ln, q, first := oneAdmitted(t)
		g.ConnState(first, http.StateActive) // its request arrived: the server works on it
		q.connect(t)
		waiting := accepting(t, ln)
		time.Sleep(10 * WaitForClient)
		if _, ok := accepted(waiting); ok {
			t.Fatal("a connection the server works on gave its place back")
		}
		g.ConnState(first, http.StateIdle)
		if _, ok := accepted(waiting); !ok {
			t.Fatal("not accepted once the first had begun")
		}
	})
}

func TestResumeWaitsForAPlace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, ln, q, first := oneAdmitted(t)
		g.ConnState(first, http.StateActive)
		ctx := g.ConnContext(context.Background(), first)
		Begun(ctx) // it waits for its body
		second := q.connect(t)
		if _, ok := accepted(accepting(t, ln)); !ok {
			t.Fatal("a connection waits while the only other one waits for its client")
		}
		g.ConnState(second, http.StateActive)
		resumed := make(chan error, 1)
		go func() { resumed <- Resume(ctx) }()
		synctest.Wait()
		select {
		case <-resumed:
			t.Fatal("Resume returned while the only place was held")
		default:
		}
		g.ConnState(second, http.StateIdle)
		synctest.Wait()
		select {
		case err := <-resumed:
			if err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatal("Resume still waits once the place is free")
		}
		q.connect(t)
		waiting := accepting(t, ln)
		if _, ok := accepted(waiting); ok {
			t.Fatal("accepted while the resumed connection holds the place")
		}
		g.ConnState(first, http.StateIdle)
		if _, ok := accepted(waiting); !ok {
			t.Fatal("not accepted once the resumed connection had begun")
		}
	})
}

func TestResumeStopsWhenTheRequestIsDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, ln, q, first := oneAdmitted(t)
		g.ConnState(first, http.StateActive)
		base := g.ConnContext(context.Background(), first)
		Begun(base)
		q.connect(t)
		if _, ok := accepted(accepting(t, ln)); !ok {
			t.Fatal("a connection waits while the only other one waits for its client")
		}
		ctx, cancel := context.WithCancelCause(base)
		resumed := make(chan error, 1)
		go func() { resumed <- Resume(ctx) }()
		synctest.Wait()
		cause := errors.New("the client left")
		cancel(cause)
		if err := <-resumed; !errors.Is(err, cause) {
			t.Fatalf("Resume: %v, want the context's cause", err)
		}
	})
}

func TestResumeDoesNotWaitForAConnectionThatHasNotCome(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, ln, q, first := oneAdmitted(t)
		g.ConnState(first, http.StateActive)
		ctx := g.ConnContext(context.Background(), first)
		Begun(ctx)
		waiting := accepting(t, ln) // holds the free place while the kernel's queue is empty
		synctest.Wait()
		resumed := make(chan error, 1)
		go func() { resumed <- Resume(ctx) }()
		synctest.Wait()
		select {
		case err := <-resumed:
			if err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatal("Resume waits for the place an Accept holds for a connection that has not come")
		}
		q.connect(t)
		if _, ok := accepted(waiting); !ok {
			t.Fatal("the connection that came was not accepted")
		}
	})
}

// TestAConnectionWhoseWritingSideClosesHasBegun: net/http closes the writing side of a
// connection once its last answer is written — after a 431 for headers too large, then
// waits half a second for the client to read it — and the place is free from then on.
func TestAConnectionWhoseWritingSideClosesHasBegun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue()
		g := New(1)
		ln := g.Listener(q)
		q.connect(t)
		first, ok := accepted(accepting(t, ln))
		if !ok {
			t.Fatal("the first connection waits")
		}
		g.ConnState(first, http.StateActive) // its request is being read
		q.connect(t)
		waiting := accepting(t, ln)
		if _, ok := accepted(waiting); ok {
			t.Fatal("a second connection was accepted while the first was starting")
		}
		if err := first.(interface{ CloseWrite() error }).CloseWrite(); err != nil {
			t.Fatal(err)
		}
		if _, ok := accepted(waiting); !ok {
			t.Fatal("the next connection waits while the first has written its last answer")
		}
		g.ConnState(first, http.StateClosed) // after net/http's wait: nothing more to give back
		if g.starting != 1 {
			t.Errorf("%d connections starting, want 1", g.starting)
		}
	})
}
