package recorder

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/agui-mock/agui-mock/internal/secret"
	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// Config configures a recorder.
type Config struct {
	Upstream *url.URL // the agent's base URL; a run posted to /p goes to Upstream + /p
	OutDir   string   // where scenario files are written
	Redact   []*regexp.Regexp
	// Dedupe makes a repeated first request update its fixture; without it every
	// session gets a file of its own.
	Dedupe   bool
	Client   *http.Client // nil: upstreamclient.New(); any client is used without redirects
	Logger   *slog.Logger
	Progress io.Writer // one line per recorded run
	MaxFrame int       // largest upstream event accepted, in bytes
	// MaxEvents and MaxBytes bound what the recording of one run keeps: its events, and
	// their JSON in bytes. A run that passes either is relayed to the client to its end,
	// but not recorded. Zero means the default: scenarios.MaxRunEvents, the most events a
	// replayed run may have, and DefaultMaxBytes.
	MaxEvents int
	MaxBytes  int64
}

// DefaultMaxBytes is how many bytes of event JSON the recording of one run keeps at most,
// unless Config.MaxBytes says otherwise.
const DefaultMaxBytes = 64 << 20

// Recorder records sessions. It is safe for concurrent use.
type Recorder struct {
	cfg      Config
	mu       sync.Mutex
	sessions map[string]*session // by thread id
}

// New returns a recorder; the built-in redactions are always added to cfg.Redact.
func New(cfg Config) (*Recorder, error) {
	if cfg.Upstream == nil || (cfg.Upstream.Scheme != "http" && cfg.Upstream.Scheme != "https") {
		return nil, fmt.Errorf("the upstream must be an http or https URL")
	}
	if cfg.OutDir == "" {
		return nil, fmt.Errorf("the output directory is required")
	}
	if cfg.MaxEvents < 0 || cfg.MaxEvents > scenarios.MaxRunEvents {
		return nil, fmt.Errorf("the most events a run's recording keeps must be between 1 and %d, the most a replay plays, got %d", scenarios.MaxRunEvents, cfg.MaxEvents)
	}
	if cfg.MaxBytes < 0 {
		return nil, fmt.Errorf("the most bytes a run's recording keeps must be positive, got %d", cfg.MaxBytes)
	}
	if cfg.MaxEvents == 0 {
		cfg.MaxEvents = scenarios.MaxRunEvents
	}
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	cfg.Client = withoutRedirects(cfg.Client)
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	if cfg.MaxFrame == 0 {
		cfg.MaxFrame = 16 << 20
	}
	cfg.Redact = append(secret.Patterns(), cfg.Redact...)
	return &Recorder{cfg: cfg, sessions: map[string]*session{}}, nil
}

// Has reports whether a thread is being recorded, so its next runs go upstream too.
func (r *Recorder) Has(threadID string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sessions[threadID] != nil
}

// Record proxies one run upstream, relays its events to w as they arrive, and writes
// the run into its session's fixture. Problems before the stream starts are returned as
// *ErrorAnswer for the caller to answer; once streaming, a broken or invalid upstream
// stream ends with RUN_ERROR and the recording is kept apart as incomplete.
func (r *Recorder) Record(w http.ResponseWriter, req *http.Request, route string, in *protocol.RunAgentInput, body []byte) error {
	started := time.Now()
	resp, err := r.forward(req.Context(), req, body)
	if err != nil {
		if req.Context().Err() != nil {
			return nil // the client went away
		}
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		detail, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return &ErrorAnswer{Status: resp.StatusCode, Code: "upstream_error",
			Message: fmt.Sprintf("the upstream agent answered %s: %s", resp.Status, strings.TrimSpace(string(detail)))}
	}
	ct := resp.Header.Get("Content-Type")
	if !strings.HasPrefix(ct, "text/event-stream") && !protocol.IsProtoContentType(ct) {
		return &ErrorAnswer{Status: http.StatusBadGateway, Code: "upstream_protocol_error",
			Message: fmt.Sprintf("the upstream agent answered with %q instead of an SSE event stream or AG-UI protobuf frames", ct)}
	}
	kept := &capture{maxEvents: r.cfg.MaxEvents, maxBytes: r.cfg.MaxBytes}
	if r.continuesUnrecorded(in) {
		kept.passed = "the run it continues was not recorded"
		r.cfg.Logger.Warn("not recording a run that continues a run that was not recorded; it is still relayed to the client",
			"thread", in.ThreadID, "run", in.RunID)
	}
	problem := r.relay(req.Context(), w, newUpstreamFrames(ct, resp.Body, r.cfg.MaxFrame), started, in, kept)
	r.warnBreaks(in, kept.breaks)
	if kept.passed != "" {
		r.unrecorded(in)
		return nil
	}
	events := kept.events
	switch {
	case problem != "":
	case req.Context().Err() != nil:
		problem = clientGone
	case cancelled(events):
		problem = "the run was cancelled before it ended"
	}
	file, redactions, err := r.save(route, in, events, problem)
	if err != nil {
		r.cfg.Logger.Error("writing a recording failed", "thread", in.ThreadID, "run", in.RunID, "err", err)
		return nil
	}
	outcome := "complete"
	switch {
	case problem == "":
	case !r.apart(file):
		outcome = "stopped by the client: it replays its events, then holds the stream open"
	default:
		outcome = "INCOMPLETE: " + problem
	}
	fmt.Fprintf(r.cfg.Progress, "recorded run %s of thread %s: %d events in %s, %s, %s%s → %s\n",
		in.RunID, in.ThreadID, len(events), time.Since(started).Round(time.Millisecond), outcome, redactedCount(redactions), breaksNote(kept.breaks), file)
	return nil
}

// redactedCount says how many secrets a recording redacted.
func redactedCount(n int) string {
	switch n {
	case 0:
		return "nothing redacted"
	case 1:
		return "1 secret redacted"
	}
	return fmt.Sprintf("%d secrets redacted", n)
}

// clientGone is why the recording of a run the client abandoned is incomplete.
const clientGone = "the client went away before the run ended"

// cancelled reports whether a run ended cancelled — a cancel request stopped it — and so
// is not the agent's answer to its request.
func cancelled(events []capturedEvent) bool {
	return len(events) > 0 && events[len(events)-1].event.Cancelled()
}
