package server

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/scenarios"
)

// BenchmarkShortRun answers a five-event run end to end through the handler: the
// per-run cost of decoding, selecting, planning, streaming and keeping the thread.
func BenchmarkShortRun(b *testing.B) {
	s := newServer(b, "", func(c *Config) {
		c.Speed = 0
		c.Sources = []scenarios.Source{{FS: os.DirFS("../bench/scenarios"), Root: ".", Label: "bench"}}
	})
	if err := s.Reload(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		rec := post(b.Context(), s, "/agui/chat", fmt.Sprintf(`{"threadId":"t%d","runId":"r","messages":[{"id":"u","role":"user","content":"short"}]}`, i), nil)
		if rec.status != 200 {
			b.Fatal(rec.status)
		}
	}
}

// BenchmarkOpenStreams holds streams open, each waiting between two events, and reports
// the server's stack per open stream: the goroutine that plays it and the one net/http
// reads its connection with. It fails when the player's goroutine keeps a stack larger
// than the 8 KiB a plain net/http handler's keeps. The heap figure includes the client's
// end of each connection.
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
	const streams = 200
	var stack, heap float64
	round := 0
	for b.Loop() {
		round++
		before := memAfterGC()
		conns := make([]net.Conn, streams)
		for i := range conns {
			conns[i] = openGapStream(b, addr, transport, fmt.Sprintf("s%d-%d", round, i))
		}
		held := memAfterGC()
		stack = float64(held.StackInuse-before.StackInuse) / streams
		heap = float64(held.HeapAlloc-before.HeapAlloc) / streams
		for _, c := range conns {
			c.Close()
		}
		for s.streams.Load() > 0 { // the server notices each client leaving
			time.Sleep(time.Millisecond)
		}
	}
	b.ReportMetric(stack, "stack-B/stream")
	b.ReportMetric(heap, "heap-B/stream")
	if limit := float64(14 << 10); stack > limit {
		b.Fatalf("%.0f bytes of stack per open stream, more than %.0f: the stack of some players grew to 16 KiB", stack, limit)
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
