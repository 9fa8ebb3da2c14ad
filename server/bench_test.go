package server

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/internal/logline"
	"github.com/agui-mock/agui-mock/scenarios"
)

// BenchmarkShortRun answers a five-event run end to end through the handler: the
// per-run cost of decoding, selecting, planning, streaming and keeping the thread.
// cpu-ns/op is the process's CPU time per run, every goroutine's.
func BenchmarkShortRun(b *testing.B) { benchShortRuns(b, false) }

// BenchmarkShortRunWithASubscriber is BenchmarkShortRun while a client reads the
// journal stream, as an open inspector does: its cpu-ns/op against BenchmarkShortRun's
// is what the subscriber costs a run, the work of the stream's goroutine included.
func BenchmarkShortRunWithASubscriber(b *testing.B) { benchShortRuns(b, true) }

func benchShortRuns(b *testing.B, subscribed bool) {
	s := newServer(b, "", func(c *Config) {
		c.Speed = 0
		c.Sources = []scenarios.Source{{FS: os.DirFS("../bench/scenarios"), Root: ".", Label: "bench"}}
	})
	if err := s.Reload(context.Background()); err != nil {
		b.Fatal(err)
	}
	if subscribed {
		ctx, cancel := context.WithCancel(b.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.Handler().ServeHTTP(discardStream{http.Header{}}, httptest.NewRequestWithContext(ctx, http.MethodGet, AdminPrefix+"/journal/stream", nil))
		}()
		for !s.feed.Active() {
			time.Sleep(time.Millisecond)
		}
		defer func() { cancel(); <-done }()
	}
	b.ReportAllocs()
	i := 0
	before := cpuTime()
	for b.Loop() {
		i++
		rec := post(b.Context(), s, "/agui/chat", fmt.Sprintf(`{"threadId":"t%d","runId":"r","messages":[{"id":"u","role":"user","content":"short"}]}`, i), nil)
		if rec.status != 200 {
			b.Fatal(rec.status)
		}
	}
	b.ReportMetric(float64(cpuTime()-before)/float64(i), "cpu-ns/op")
}

// discardStream is a flushable ResponseWriter that keeps nothing, as a client that
// reads and drops the stream.
type discardStream struct{ header http.Header }

func (d discardStream) Header() http.Header         { return d.header }
func (d discardStream) WriteHeader(int)             {}
func (d discardStream) Write(b []byte) (int, error) { return len(b), nil }
func (d discardStream) Flush()                      {}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var u syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// BenchmarkOpenStreams holds streams open, each waiting between two events, and reports
// the server's goroutines, stack and heap per open stream. A waiting stream is taken
// over from net/http and holds no goroutine: the benchmark fails when one stream in 20
// keeps one (a goroutine of its own would keep 8 KiB of stack, net/http's reader of its
// connection 2 to 4 more). The goroutines that hand a stream over end just after its
// first event, so they are waited for before anything is measured. The heap figure
// includes the client's end of each connection.
func BenchmarkOpenStreams(b *testing.B) {
	for _, transport := range []string{transportSSE, transportProto} {
		b.Run(transport, func(b *testing.B) { benchmarkOpenStreams(b, transport) })
	}
}

func benchmarkOpenStreams(b *testing.B, transport string) {
	s := newServer(b, "", func(c *Config) {
		c.Sources = []scenarios.Source{{FS: os.DirFS("../bench/scenarios"), Root: ".", Label: "bench"}}
	})
	if err := s.Reload(context.Background()); err != nil {
		b.Fatal(err)
	}
	addr := startHTTP(b, s).Listener.Addr().String()
	// The first stream starts what the server keeps for all of them (its hang-up
	// watch): not a stream's share.
	openGapStream(b, addr, transport, "warm-up").Close()
	const streams = 200
	var goroutines, stack, heap float64
	round := 0
	for b.Loop() {
		round++
		before, goroutinesBefore := memAfterGC(), runtime.NumGoroutine()
		conns := make([]net.Conn, streams)
		for i := range conns {
			conns[i] = openGapStream(b, addr, transport, fmt.Sprintf("s%d-%d", round, i))
		}
		// The hand-overs end within moments; a goroutine a stream keeps never does.
		for deadline := time.Now().Add(2 * time.Second); runtime.NumGoroutine() > goroutinesBefore && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		held := memAfterGC()
		goroutines = float64(runtime.NumGoroutine()-goroutinesBefore) / streams
		stack = float64(int64(held.StackInuse)-int64(before.StackInuse)) / streams
		heap = float64(int64(held.HeapAlloc)-int64(before.HeapAlloc)) / streams
		for _, c := range conns {
			c.Close()
		}
		for s.streams.Load() > 0 { // the server notices each client leaving
			time.Sleep(time.Millisecond)
		}
	}
	b.ReportMetric(goroutines, "goroutines/stream")
	b.ReportMetric(stack, "stack-B/stream")
	b.ReportMetric(heap, "heap-B/stream")
	if limit := 0.05; goroutines > limit {
		b.Fatalf("%.2f goroutines per open stream, more than %.2f: waiting streams hold goroutines", goroutines, limit)
	}
}

func memAfterGC() runtime.MemStats {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m
}

// openGapStream starts a run of bench/scenarios/gap.yaml in a transport, slowed so that
// it stays open, and returns once its first event has arrived. It speaks HTTP on a bare
// connection, so that the client adds no goroutines to what is measured.
func openGapStream(b *testing.B, addr, transport, threadID string) net.Conn {
	b.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	body := `{"threadId":"` + threadID + `","runId":"r","messages":[{"id":"u","role":"user","content":"gap"}]}`
	fmt.Fprintf(conn, "POST /agui/chat HTTP/1.1\r\nHost: mock\r\nContent-Type: application/json\r\n%s: 100\r\n%s: %s\r\nContent-Length: %d\r\n\r\n%s",
		SpeedHeader, TransportHeader, transport, len(body), body)
	r := bufio.NewReader(conn)
	inBody := false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			b.Fatalf("reading the stream: %v", err)
		}
		switch {
		case transport == transportSSE && strings.HasPrefix(line, "data: "):
			return conn
		case inBody: // the size line of the first chunk of frames: the first event is here
			return conn
		case line == "\r\n": // the end of the headers
			inBody = transport == transportProto
		}
	}
}

// BenchmarkShortRunOverHTTP answers five-event runs as the server serves them: on
// loopback through net/http (Serve, admission included), on keep-alive connections
// from clients that write each request and read its answer with no allocation of their
// own, so that allocs/op are the server's. cpu-ns/op is the process's CPU per run, the
// clients' small share included.
func BenchmarkShortRunOverHTTP(b *testing.B) { benchRunsOverHTTP(b, "short") }

// BenchmarkBurstOverHTTP is BenchmarkShortRunOverHTTP with 500-event runs: the cost of
// an event.
func BenchmarkBurstOverHTTP(b *testing.B) { benchRunsOverHTTP(b, "burst") }

// BenchmarkShortRunAtDefaults is BenchmarkShortRunOverHTTP as `agui-mock serve
// --scenarios bench/scenarios` plays bench/shortrun.sh's runs: seven events, the
// built-in scenarios loaded after the bench's, no seed, and each run's line of the text
// log written to a file.
func BenchmarkShortRunAtDefaults(b *testing.B) {
	log, err := os.Create(filepath.Join(b.TempDir(), "log"))
	if err != nil {
		b.Fatal(err)
	}
	defer log.Close()
	benchRunsOverHTTP(b, "short7", func(c *Config) {
		c.Speed, c.Seed = 1, 0
		c.Sources = append(c.Sources, scenarios.Builtin())
		c.Logger = slog.New(logline.NewText(log, nil))
	})
}

// benchRunsOverHTTP plays the runs of bench/scenarios whose message is message, on a
// server at speed 0 that configure, if not nil, configures further.
func benchRunsOverHTTP(b *testing.B, message string, configure ...func(*Config)) {
	s := newServer(b, "", func(c *Config) {
		c.Speed = 0
		c.AllowedHosts = nil
		c.Sources = []scenarios.Source{{FS: os.DirFS("../bench/scenarios"), Root: ".", Label: "bench"}}
		for _, f := range configure {
			f(c)
		}
	})
	if err := s.Reload(context.Background()); err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln, time.Second) }()
	defer func() {
		stop()
		if err := <-served; err != nil {
			b.Error(err)
		}
	}()
	const clients = 4
	conns := make([]*shortRunClient, clients)
	for i := range conns {
		if conns[i], err = dialShortRuns(ln.Addr().String(), i, message); err != nil {
			b.Fatal(err)
		}
		defer conns[i].conn.Close()
	}
	b.ReportAllocs()
	runs := make(chan struct{})
	failed := make(chan error, clients)
	before := cpuTime()
	go func() {
		defer close(runs)
		for b.Loop() {
			runs <- struct{}{}
		}
	}()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			for range runs {
				if err := c.run(); err != nil {
					failed <- err
					for range runs {
					}
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(cpuTime()-before)/float64(b.N), "cpu-ns/op")
	select {
	case err := <-failed:
		b.Fatal(err)
	default:
	}
}

// shortRunClient plays runs on one keep-alive connection.
type shortRunClient struct {
	conn    net.Conn
	r       *bufio.Reader
	req     []byte
	body    []byte
	n       int
	message string
}

func dialShortRuns(addr string, i int, message string) (*shortRunClient, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &shortRunClient{conn: conn, r: bufio.NewReaderSize(conn, 16<<10), n: i << 32, message: message}, nil
}

// run posts one run on a thread of its own and reads its answer: headers, then a body
// of Content-Length bytes, or chunks up to the last.
func (c *shortRunClient) run() error {
	c.n++
	c.body = append(strconv.AppendInt(append(c.body[:0], `{"threadId":"t`...), int64(c.n), 10), `","runId":"r","messages":[{"id":"u","role":"user","content":"`...)
	c.body = append(c.body, c.message+`"}]}`...)
	c.req = append(c.req[:0], "POST /agui/chat HTTP/1.1\r\nHost: mock\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: "...)
	c.req = strconv.AppendInt(c.req, int64(len(c.body)), 10)
	c.req = append(append(c.req, "\r\n\r\n"...), c.body...)
	if _, err := c.conn.Write(c.req); err != nil {
		return err
	}
	length, chunked, first := -1, false, true
	for {
		line, err := c.r.ReadSlice('\n')
		if err != nil {
			return fmt.Errorf("reading the headers: %w", err)
		}
		switch {
		case first:
			first = false
			if !bytes.HasPrefix(line, []byte("HTTP/1.1 200")) {
				return fmt.Errorf("answer %q", line)
			}
		case bytes.HasPrefix(line, []byte("Content-Length: ")):
			length = atoi(line[len("Content-Length: "):], 10)
		case bytes.Equal(line, []byte("Transfer-Encoding: chunked\r\n")):
			chunked = true
		case bytes.Equal(line, []byte("\r\n")):
			if !chunked {
				_, err := c.r.Discard(length)
				return err
			}
			for {
				size, err := c.r.ReadSlice('\n')
				if err != nil {
					return fmt.Errorf("reading a chunk: %w", err)
				}
				n := atoi(size, 16)
				if n < 0 {
					return fmt.Errorf("chunk size %q", size)
				}
				if _, err := c.r.Discard(n + 2); err != nil || n == 0 {
					return err
				}
			}
		}
	}
}

// atoi reads the number in base (10 or 16) that b begins with, up to its line's end;
// -1 if there is none.
func atoi(b []byte, base int) int {
	n, digits := 0, 0
	for _, c := range bytes.TrimRight(b, "\r\n") {
		d := strings.IndexByte("0123456789abcdef", c|0x20)
		if d < 0 || d >= base {
			return -1
		}
		n, digits = n*base+d, digits+1
	}
	if digits == 0 {
		return -1
	}
	return n
}
