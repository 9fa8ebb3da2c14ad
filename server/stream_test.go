package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// takeoverRecorder is a streamRecorder whose connection can be taken over: the server's
// end of a pipe. What the handler writes before it lets go is recorded as usual; what
// the stream writes after comes out of the pipe's client end, in chunks, and is read
// and timed as it arrives.
type takeoverRecorder struct {
	*streamRecorder
	server, client net.Conn
	hijacked       bool
	done           chan struct{} // closed when the server has closed the connection
	atEnd          func()        // when set, called as soon as the body's last chunk arrives

	mu     sync.Mutex
	writes []write // the raw chunked bytes, as each read brought them
}

func newTakeoverRecorder() *takeoverRecorder {
	server, client := net.Pipe()
	return &takeoverRecorder{streamRecorder: newRecorder(), server: server, client: client, done: make(chan struct{})}
}

func (r *takeoverRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	r.hijacked = true
	go r.read()
	return r.server, bufio.NewReadWriter(bufio.NewReader(r.server), bufio.NewWriter(r.server)), nil
}

func (r *takeoverRecorder) read() {
	defer close(r.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := r.client.Read(buf)
		if n > 0 && r.atEnd != nil && strings.HasSuffix(string(buf[:n]), "0\r\n\r\n") {
			r.atEnd()
		}
		if n > 0 {
			r.mu.Lock()
			r.writes = append(r.writes, write{at: time.Since(r.start), data: string(buf[:n])})
			r.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// taken returns what arrived through the pipe, timed, and its body with the chunks'
// framing removed.
func (r *takeoverRecorder) taken(t *testing.T) ([]write, string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	var raw strings.Builder
	for _, w := range r.writes {
		raw.WriteString(w.data)
	}
	body, err := io.ReadAll(httputil.NewChunkedReader(strings.NewReader(raw.String())))
	if err != nil {
		t.Fatalf("the taken-over body is not well chunked (%v):\n%q", err, raw.String())
	}
	return append([]write(nil), r.writes...), string(body)
}

// startStream posts a run whose stream the server can take over, and returns when the
// handler does.
func startStream(t *testing.T, s *Server, body string, header map[string]string) *takeoverRecorder {
	t.Helper()
	return startStreamAtEnd(t, s, body, header, nil)
}

// startStreamAtEnd is startStream with atEnd called as soon as the response's last
// chunk reaches the client.
func startStreamAtEnd(t *testing.T, s *Server, body string, header map[string]string, atEnd func()) *takeoverRecorder {
	t.Helper()
	req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/agui/chat", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := newTakeoverRecorder()
	rec.atEnd = atEnd
	s.Handler().ServeHTTP(rec, req)
	rec.Flush()
	if !rec.hijacked {
		t.Fatal("the stream was not taken over")
	}
	if got := rec.header.Get("Connection"); got != "close" {
		t.Errorf("a stream taken over must say Connection: close, got %q", got)
	}
	return rec
}

func TestATakenOverStreamFollowsTheScenarioTimeline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, timedScenario, nil)
		rec := startStream(t, s, `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"hi"}]}`, nil)
		if s.streams.Load() != 1 {
			t.Errorf("%d streams open, want the taken-over one", s.streams.Load())
		}
		synctest.Wait() // the handler's goroutine has ended: only timers hold the stream
		<-rec.done
		writes, body := rec.taken(t)
		want := []string{
			"100ms RUN_STARTED", "1.1s TEXT_MESSAGE_START", "1.1s TEXT_MESSAGE_CONTENT", "1.2s TEXT_MESSAGE_CONTENT", "1.2s TEXT_MESSAGE_END",
			"4.6s TEXT_MESSAGE_START", "4.6s TEXT_MESSAGE_CONTENT", "4.6s TEXT_MESSAGE_END", "4.8s RUN_FINISHED",
		}
		if got := eventTimes(&streamRecorder{writes: writes}); !reflect.DeepEqual(got, want) {
			t.Errorf("events arrived\n%v\nwant\n%v", got, want)
		}
		events, err := protocol.ReadEvents(strings.NewReader(rec.body()+body), 1<<20)
		if err != nil || len(events) != len(want) {
			t.Fatalf("%d events (%v) in\n%s%s", len(events), err, rec.body(), body)
		}
		if s.streams.Load() != 0 {
			t.Errorf("%d streams open after the end", s.streams.Load())
		}
		entries := s.tests.Journal.List("", func(JournalEntry) bool { return true })
		if len(entries) != 1 || entries[0].Outcome != protocol.OutcomeSuccess || entries[0].Events != len(want) || entries[0].Status != http.StatusOK {
			t.Errorf("journal: %+v", entries)
		}
		if entries[0].DurationMs != 4800 {
			t.Errorf("the journal says the run took %d ms, want the whole stream's 4800", entries[0].DurationMs)
		}
	})
}

// A client that has read the end of a taken-over stream finds its run in the journal at
// once, as it does for a stream net/http ends: an e2e test reads the journal right after
// its run.
func TestATakenOverStreamIsJournaledBeforeItsClientSeesTheEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, timedScenario, nil)
		journaled := -1
		rec := startStreamAtEnd(t, s, `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"hi"}]}`, nil, func() {
			journaled = len(s.tests.Journal.List("", func(JournalEntry) bool { return true }))
		})
		<-rec.done
		if journaled != 1 {
			t.Errorf("when the client read the end of the response the journal held %d entries, want the run's", journaled)
		}
	})
}

func TestATakenOverStreamSendsKeepAlivesDuringLongPauses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, "timing: {firstEvent: 0, firstToken: 0, stepGap: 0}\nsteps:\n  - pause: 40s\n  - text: done\n", func(c *Config) { c.KeepAlive = 15 * time.Second })
		rec := startStream(t, s, `{"messages":[{"role":"user","content":"hi"}]}`, nil)
		<-rec.done
		writes, _ := rec.taken(t)
		var keepAlives []time.Duration
		for _, w := range writes {
			if strings.Contains(w.data, protocol.KeepAlive) {
				keepAlives = append(keepAlives, w.at)
			}
		}
		if want := []time.Duration{15 * time.Second, 30 * time.Second}; !reflect.DeepEqual(keepAlives, want) {
			t.Errorf("keep-alives at %v, want %v", keepAlives, want)
		}
		if got := eventTimes(&streamRecorder{writes: writes}); len(got) == 0 || !strings.HasPrefix(got[0], "40s ") {
			t.Errorf("the text came at %v; keep-alives must not shift the timeline", got)
		}
	})
}

// A waiting stream has no goroutine to see its run cancelled, its client leave or the
// server stop: each must wake it at once.
func TestATakenOverStreamEndsAtOnceWhenItMust(t *testing.T) {
	const slow = "timing: {firstEvent: 0, firstToken: 0, stepGap: 0}\nsteps:\n  - text: first\n  - pause: 1h\n  - text: never\n"
	tests := []struct {
		name    string
		stop    func(s *Server, rec *takeoverRecorder)
		last    string // the last event type the client sees, if it is there to see it
		outcome protocol.Outcome
	}{
		{"cancelled", func(s *Server, _ *takeoverRecorder) {
			if rec := post(context.Background(), s, CancelPath, `{"threadId":"t"}`, nil); rec.status != http.StatusOK {
				t.Errorf("cancel: %d %s", rec.status, rec.body())
			}
		}, protocol.RunError, protocol.OutcomeCancelled}, // code cancelled, for a client without protocolVersion
		{"client gone", func(_ *Server, rec *takeoverRecorder) { rec.client.Close() }, "", protocol.OutcomeCancelled},
		{"server stopping", func(s *Server, _ *takeoverRecorder) {
			if err := s.Shutdown(context.Background()); err != nil {
				t.Errorf("shutdown: %v", err)
			}
		}, protocol.RunError, protocol.OutcomeError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newServer(t, slow, nil)
				rec := startStream(t, s, `{"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}]}`, nil)
				time.Sleep(time.Minute)
				synctest.Wait()
				start := time.Now()
				tt.stop(s, rec)
				<-rec.done
				synctest.Wait() // the stream has ended and published its journal entry
				if waited := time.Since(start); waited > 0 {
					t.Errorf("the stream ended %v after it had to", waited)
				}
				if tt.last != "" {
					_, body := rec.taken(t)
					events, _ := protocol.ReadEvents(strings.NewReader(rec.body()+body), 1<<20)
					if len(events) == 0 || events[len(events)-1].Type != tt.last {
						t.Errorf("the stream ended with %v, want %s", types(events), tt.last)
					}
				}
				entries := s.tests.Journal.List("", func(e JournalEntry) bool { return e.Path == "/agui/chat" })
				if len(entries) != 1 || entries[0].Outcome != tt.outcome {
					t.Errorf("journal: %+v, want outcome %s", entries, tt.outcome)
				}
				if s.streams.Load() != 0 {
					t.Errorf("%d streams open after the end", s.streams.Load())
				}
			})
		})
	}
}

// Protobuf has no keep-alive: a taken-over protobuf stream waits its pause out quietly.
func TestATakenOverProtobufStreamWaitsWithoutKeepAlives(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, "timing: {firstEvent: 0, firstToken: 0, stepGap: 0}\nsteps:\n  - pause: 40s\n  - text: done\n", func(c *Config) { c.KeepAlive = 15 * time.Second })
		start := time.Now()
		rec := startStream(t, s, `{"messages":[{"role":"user","content":"hi"}]}`, map[string]string{TransportHeader: "proto"})
		<-rec.done
		if took := time.Since(start); took != 40*time.Second {
			t.Errorf("the stream ended after %v, want the pause's 40s", took)
		}
		writes, _ := rec.taken(t)
		if len(writes) != 1 {
			t.Errorf("%d writes after the take-over, want the rest of the run in one: %v", len(writes), writes)
		}
	})
}

// A stream taken over from net/http, which meets a breakpoint after its request's handler
// has returned, waits there for its release: the request's end does not cancel it.
func TestATakenOverStreamWaitsAtABreakpoint(t *testing.T) {
	s := newServer(t, "id: held\ntiming: {firstEvent: 0, firstToken: 100ms, stepGap: 50ms, tokensPerSecond: 100, jitter: 0}\nsteps:\n  - text: before\n  - text: after the breakpoint\n    id: answer\n", nil)
	addr, _ := serveOn(t, s) // as the binary serves: the stream is taken over at its first wait
	var bp struct{ ID string }
	status, body := call(t, s, "POST", AdminPrefix+"/breakpoints", `{"step":"answer"}`, nil)
	if status != http.StatusCreated || json.Unmarshal([]byte(body), &bp) != nil {
		t.Fatalf("breakpoint: %d %s", status, body)
	}
	done := make(chan string)
	go func() {
		resp, err := http.Post("http://"+addr+"/agui/chat", "application/json", strings.NewReader(`{"threadId":"t","runId":"r","messages":[]}`))
		if err != nil {
			t.Error(err)
			done <- ""
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		done <- string(body)
	}()
	if status, body := call(t, s, "GET", AdminPrefix+"/breakpoints/"+bp.ID+"?wait=10s", "", nil); status != http.StatusOK {
		t.Fatalf("not reached: %d %s", status, body)
	}
	call(t, s, "POST", AdminPrefix+"/breakpoints/"+bp.ID+"/release", "", nil)
	if stream := <-done; !strings.Contains(stream, `"type":"RUN_FINISHED"`) || !strings.Contains(stream, "breakpoint") {
		t.Errorf("the stream after its release:\n%s", stream)
	}
	if entries := s.tests.Journal.List("", JournalFilter{}.matches); len(entries) != 1 || entries[0].Outcome != protocol.OutcomeSuccess {
		t.Errorf("journal %+v", entries)
	}
}
