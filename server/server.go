package server

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/copilotkit"
	"github.com/agui-mock/agui-mock/internal/admission"
	"github.com/agui-mock/agui-mock/internal/feed"
	"github.com/agui-mock/agui-mock/internal/hangup"
	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/recorder"
	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/testctl"
	"github.com/agui-mock/agui-mock/threads"
)

// Config is the server's configuration.
type Config struct {
	Seed         uint64  // with each run's key, decides generated ids, fake data and jitter; 0: none, every thread differs
	Speed        float64 // multiplies every delay; 0 plays without delays
	Strict       bool    // reject run inputs that do not conform to AG-UI 1.1
	EventIDs     bool    // write an `id: <TYPE>_<timestamp>` line before each event
	KeepAlive    time.Duration
	MaxBodyBytes int64
	// BodiesMaxBytes bounds the bytes of large request bodies (past 64 KiB) handled at
	// once: one past it waits for room, up to 10 s, then gets 503 too_many_bodies. One
	// body larger than the bound is handled alone. 0: no bound.
	BodiesMaxBytes int64
	// MaxHeaderBytes is the most bytes a request's line and headers may take; a request
	// with more is answered 431 and its connection closed. AG-UI clients send a few
	// kilobytes; 0 leaves net/http's 1 MiB.
	MaxHeaderBytes int
	// BodyTimeout is the longest a request's body may take to arrive, from the end of
	// its headers; a body that takes longer is answered 408 and its connection closed.
	// 0: no limit.
	BodyTimeout  time.Duration
	WriteTimeout time.Duration // longest a single event may take to write (at least half of it)
	Timing       scenarios.Timing
	Threads      threads.Limits
	AuthToken    string   // when set, the AG-UI endpoints require Authorization: Bearer <token>
	AdminToken   string   // the token of the admin API and /metrics; when unset, AuthToken's
	CORSOrigins  []string // origins browsers may call from; "*" allows any, but not to the admin API
	// AllowedHosts are the names, besides those always allowed, that the Host header
	// may carry: a name, *.domain for the names under it, or "*" for any.
	AllowedHosts []string
	CancelWait   time.Duration
	// FixedTime, when set, stamps every event with this time plus the event's offset in
	// its run's plan instead of the time it is written, and is the clock of templates'
	// now and fromNow and of interrupts' expiresAt.
	FixedTime time.Time
	// Sources are where Reload reads scenarios from.
	Sources []scenarios.Source
	// TemplateLimits bound the work of each run's templates, and of each dry run of a
	// scenario when scenarios are loaded; a field left 0 takes its default (see
	// scenarios.DefaultLimits).
	TemplateLimits scenarios.Limits
	// Memory is what loading the set kept for the next load (scenarios.LoadRemembering):
	// reloads go on with it and read, parse and check again only what changed. Nil:
	// the first reload starts afresh.
	Memory *scenarios.Memory
	// RuntimePath is where the CopilotKit runtime's routes are served (runtime.go):
	// copilotkit.DefaultBasePath by default; empty serves none.
	RuntimePath string
	// Dialect is how interrupts reach the client in the scenarios that name none; empty:
	// agui.
	Dialect scenarios.Dialect
	// Usage reports estimated token usage on the runs of the scenarios of steps that say
	// nothing of usage (scenarios.PlanOptions.Usage).
	Usage bool
	// Recorder, when set, proxies to a real agent what no scenario answers (or, with
	// RecordAll, every request) and records it; RecordAll without it does nothing.
	Recorder  *recorder.Recorder
	RecordAll bool
	// Metrics serves Prometheus metrics at /metrics.
	Metrics bool
	// JournalSize is how many requests the journal keeps; JournalEvents of how many of
	// the latest runs it keeps the events, for the inspector (0: none).
	JournalSize   int
	JournalEvents int
	// JournalMaxBytes bounds what the run records of the journal keep together, as
	// protocol.Event.Footprint counts their events: past it the least recently used
	// record goes, and one run's record keeps its first events within a quarter of it.
	// 0: no bound.
	JournalMaxBytes int64
	// MaxMessages is the most messages a run input may carry; MaxStreams the most
	// streams open at once (more are refused with 503 and Retry-After). 0: no limit.
	MaxMessages int
	MaxStreams  int
	// MaxStarting is the most connections the server starts to answer at once (package
	// admission); 0: no limit.
	MaxStarting int
	// Reconnect, with Cursor set, writes cursor ids in place of EventIDs' and lets a
	// client that lost its stream continue it (reconnect.go).
	Reconnect ReconnectConfig
	Logger    *slog.Logger
}

// DefaultConfig returns the configuration the command starts with: each field's
// default, which its flag shows in the command's help.
func DefaultConfig() Config {
	return Config{
		Speed:           1,
		EventIDs:        true,
		Reconnect:       DefaultReconnectConfig(),
		KeepAlive:       15 * time.Second,
		MaxBodyBytes:    10 << 20,
		MaxHeaderBytes:  DefaultMaxHeaderBytes,
		BodiesMaxBytes:  DefaultBodiesMaxBytes,
		BodyTimeout:     headerTimeout,
		WriteTimeout:    10 * time.Second,
		Timing:          scenarios.DefaultTiming(),
		Threads:         threads.DefaultLimits(),
		CORSOrigins:     []string{"*"},
		CancelWait:      5 * time.Second,
		RuntimePath:     copilotkit.DefaultBasePath,
		Dialect:         scenarios.DialectAGUI,
		TemplateLimits:  scenarios.DefaultLimits(),
		JournalSize:     1000,
		JournalEvents:   200,
		JournalMaxBytes: DefaultJournalMaxBytes,
		MaxMessages:     10000,
		MaxStreams:      DefaultMaxStreams,
		MaxStarting:     128,
		Logger:          slog.Default(),
	}
}

// DefaultMaxStreams is the default of Config.MaxStreams: 20,000 streams. The command
// takes it, or fewer when the process's descriptor limit leaves room for fewer.
const DefaultMaxStreams = 20000

// DefaultMaxHeaderBytes is the default of Config.MaxHeaderBytes: 64 KiB, sixteen times
// what a browser sends with its cookies, and a sixteenth of net/http's default.
const DefaultMaxHeaderBytes = 64 << 10

// headerSlack is what net/http reads past http.Server.MaxHeaderBytes before it refuses
// a request's headers (its bufio reader's size); the server asks for that much less, so
// that Config.MaxHeaderBytes is the limit clients meet.
const headerSlack = 4096

// netHTTPHeaderLimit is the http.Server.MaxHeaderBytes that refuses headers past limit
// bytes (at least headerSlack); 0, net/http's default, for a limit of 0.
func netHTTPHeaderLimit(limit int) int {
	if limit <= 0 {
		return 0
	}
	return max(limit-headerSlack, 1)
}

// headerTimeout is the longest a request's headers may take to arrive, and by default
// its body.
const headerTimeout = 10 * time.Second

// Server is the mock AG-UI agent.
type Server struct {
	cfg      Config
	set      atomic.Pointer[scenarios.Set]
	load     loadState
	threads  *threads.Store
	tests    *testctl.Control[JournalEntry] // what each test set up, and the journal
	runs     *runRecords                    // the events of the latest runs
	bodies   *bodyGate                      // room for the large bodies being handled
	feed     feed.Feed[journalChange]       // the journal's changes, to GET /_mock/journal/stream
	upstream upstream                       // plays, proxies or records each request
	metrics  metricSet
	streams  atomic.Int64 // open now
	echo     *echo.Echo
	stopping chan struct{}
	stopOnce sync.Once
	// root is the parent of every run's context, cancelled with errShutdown when the
	// server stops: it wakes the streams that wait without a goroutine (stream.go).
	root     context.Context
	stopRoot context.CancelCauseFunc
	hangups  hangup.Watcher // notices clients leaving streams that wait without a goroutine
	parked   sync.WaitGroup // streams taken over from net/http, until they end
	// runStates lends the state of streams that never wait.
	runStates runStates
	// dates is the Date header of the streams begun this second.
	dates httpDates

	// reconnects keeps the frames of runs with cursor ids; nil without them.
	reconnects *reconnects

	// seed is Config.Seed, or a random one when it is 0.
	seed  uint64
	idMu  sync.Mutex
	idRNG *rand.Rand
}

// New returns a server that plays the given scenario set.
func New(cfg Config, set *scenarios.Set) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	seed := cfg.Seed
	if seed == 0 {
		seed = rand.Uint64()
	}
	s := &Server{
		cfg:      cfg,
		seed:     seed,
		stopping: make(chan struct{}),
		threads:  threads.NewStore(cfg.Threads, time.Now),
		upstream: newUpstream(cfg),
		runs:     newRunRecords(cfg.JournalEvents, cfg.JournalMaxBytes, cfg.JournalSize),
		bodies:   newBodyGate(cfg.BodiesMaxBytes),
		idRNG:    rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d)),
	}
	s.root, s.stopRoot = context.WithCancelCause(context.Background())
	s.reconnects = newReconnects(cfg.Reconnect)
	s.tests = testctl.New(testctl.NewJournal(cfg.JournalSize, func(e *JournalEntry, seq int64) { e.Seq = seq }), s.threads)
	s.set.Store(set)
	s.load.memory = cfg.Memory
	if s.load.memory == nil {
		s.load.memory = scenarios.NewMemory(scenarios.DefaultRefusals)
	}
	s.load.status = LoadStatus{Scenarios: len(set.Scenarios()), LoadedAt: time.Now(), Errors: []scenarios.Diagnostic{}}
	s.logWarnings(set)
	s.echo = s.routes()
	return s
}

// logWarnings logs what the load-time check of a set warns of.
func (s *Server) logWarnings(set *scenarios.Set) {
	for _, d := range set.Warnings() {
		s.cfg.Logger.Warn("scenario warning", "problem", d.Error())
	}
}

// Scenarios returns the set being served.
func (s *Server) Scenarios() *scenarios.Set { return s.set.Load() }

// Handler returns the HTTP handler.
func (s *Server) Handler() http.Handler { return s.echo }

// Shutdown makes open streams end with RUN_ERROR, then closes the server gracefully:
// it returns when every stream has ended, or when ctx is done.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopOnce.Do(func() {
		close(s.stopping)
		s.stopRoot(errShutdown)
	})
	if err := s.echo.Shutdown(ctx); err != nil {
		return err
	}
	// Streams taken over from net/http are not its connections: wait for them here.
	ended := make(chan struct{})
	go func() {
		s.parked.Wait()
		close(ended)
	}()
	select {
	case <-ended:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%d streams still open: %w", s.streams.Load(), ctx.Err())
	}
}

// Serve accepts connections on ln until ctx is done, then shuts down within grace.
func (s *Server) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	srv := &http.Server{
		Handler:           s.echo,
		ReadHeaderTimeout: headerTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    netHTTPHeaderLimit(s.cfg.MaxHeaderBytes),
		// No WriteTimeout: it would cut long streams; each event has its own deadline.
	}
	if s.cfg.MaxStarting > 0 {
		gate := admission.New(s.cfg.MaxStarting)
		ln, srv.Handler, srv.ConnState, srv.ConnContext = gate.Listener(ln), gate.Handler(srv.Handler), gate.ConnState, gate.ConnContext
	}
	s.echo.Server = srv
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := s.Shutdown(sctx)
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// seedFor is the seed of a run's key on a thread: the configured seed, so that the
// same conversation plays the same on any thread, or without one a seed of the
// thread's own, so that every conversation differs.
func (s *Server) seedFor(thread threads.Key) uint64 {
	if s.cfg.Seed != 0 {
		return s.cfg.Seed
	}
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], s.seed)
	h.Write(b[:])
	for _, part := range []string{thread.Test, thread.Thread} { // each with its length, so the parts never run together
		binary.LittleEndian.PutUint64(b[:], uint64(len(part)))
		h.Write(b[:])
		h.Write([]byte(part))
	}
	return h.Sum64()
}

// newID mints an id for a request that lacks one.
func (s *Server) newID(kind string) string {
	s.idMu.Lock()
	defer s.idMu.Unlock()
	return protocol.NewID(kind, s.idRNG.Uint64())
}
