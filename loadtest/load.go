package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// Config is one load run.
type Config struct {
	URL         string
	Body        []byte        // the RunAgentInput posted; "{{n}}" is replaced by the run's number
	Concurrency int           // runs in flight at once
	Runs        int           // runs in all
	Ramp        time.Duration // start the runs evenly over this long instead of all at once
	Hold        bool          // open Concurrency streams, wait until all are open, then end them
	ExpectGap   time.Duration // the script's gap between events, to measure timing error
	Header      http.Header
	Proto       bool          // ask for the protobuf transport instead of SSE
	PID         int           // the server's process, to read its memory and CPU time
	Timeout     time.Duration // longest a run may take
}

// Result is what a load run measured.
type Result struct {
	Runs         int           `json:"runs"`
	Failed       int           `json:"failed"`
	Events       int           `json:"events"`
	Wall         time.Duration `json:"wall"`
	RunsPerSec   float64       `json:"runsPerSec"`
	EventsPerSec float64       `json:"eventsPerSec"`
	FirstEvent   Summary       `json:"firstEvent"`
	GapError     Summary       `json:"gapError"` // |arrival gap − expected gap|
	// GapErrorByPosition summarizes each gap of the runs apart, the first gap (between
	// the first and second events) first: it shows whether timing goes wrong as runs
	// start or all through them.
	GapErrorByPosition []Summary `json:"gapErrorByPosition,omitempty"`
	Drift              Summary   `json:"drift"` // |last arrival − first − (n−1)·gap|
	RSSBefore          int64     `json:"rssBefore,omitempty"`
	RSSHeld            int64     `json:"rssHeld,omitempty"` // with every stream open (Hold)
	BytesPerOpen       int64     `json:"bytesPerOpenStream,omitempty"`
	// ServerCPU is the CPU time (user and system) the server's process spent from the
	// load's start to its end; CPUPerRun and CPUPerEvent divide it by the runs and by
	// the events read. All three need PID.
	ServerCPU     time.Duration `json:"serverCPU,omitempty"`
	CPUPerRun     time.Duration `json:"cpuPerRun,omitempty"`
	CPUPerEvent   time.Duration `json:"cpuPerEvent,omitempty"`
	FirstFailures []string      `json:"firstFailures,omitempty"`
}

// runResult is one run's measurements.
type runResult struct {
	events     int
	firstEvent time.Duration
	gaps       []time.Duration
	drift      time.Duration
	err        error
}

// Run drives the load and measures it.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Hold {
		cfg.Runs = cfg.Concurrency
	}
	if cfg.Concurrency < 1 || cfg.Runs < 1 {
		return Result{}, fmt.Errorf("concurrency and runs must be at least 1")
	}
	transport := &http.Transport{
		MaxIdleConnsPerHost: cfg.Concurrency,
		MaxConnsPerHost:     0,
		DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		DisableCompression:  true,
	}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport}
	var res Result
	res.RSSBefore = rss(cfg.PID)
	var cpuBefore time.Duration
	if cfg.PID > 0 {
		var err error
		if cpuBefore, err = CPUTime(cfg.PID); err != nil {
			return Result{}, err
		}
	}

	results := make([]runResult, cfg.Runs)
	jobs := make(chan int)
	var wg sync.WaitGroup
	holdCtx, release := context.WithCancel(ctx)
	defer release()
	var opened sync.WaitGroup
	opened.Add(cfg.Runs)
	start := time.Now()
	for range cfg.Concurrency {
		wg.Go(func() {
			for i := range jobs {
				results[i] = runOnce(ctx, holdCtx, client, cfg, i, &opened)
			}
		})
	}
	go func() {
		defer close(jobs)
		for i := range cfg.Runs {
			if cfg.Ramp > 0 {
				due := start.Add(cfg.Ramp * time.Duration(i) / time.Duration(cfg.Runs))
				if !sleepUntil(ctx, due) {
					return
				}
			}
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	if cfg.Hold {
		waitAll(ctx, &opened)
		res.RSSHeld = rss(cfg.PID)
		release()
	}
	wg.Wait()
	res.Wall = time.Since(start)
	if cfg.PID > 0 {
		if cpuAfter, err := CPUTime(cfg.PID); err == nil {
			res.ServerCPU = cpuAfter - cpuBefore
		}
	}

	var firsts, gaps, drifts []time.Duration
	var gapsByRun [][]time.Duration
	for _, r := range results {
		res.Runs++
		if r.err != nil {
			res.Failed++
			if len(res.FirstFailures) < 5 {
				res.FirstFailures = append(res.FirstFailures, r.err.Error())
			}
			continue
		}
		res.Events += r.events
		firsts = append(firsts, r.firstEvent)
		gaps = append(gaps, r.gaps...)
		gapsByRun = append(gapsByRun, r.gaps)
		if cfg.ExpectGap > 0 {
			drifts = append(drifts, r.drift)
		}
	}
	res.RunsPerSec = float64(res.Runs-res.Failed) / res.Wall.Seconds()
	res.EventsPerSec = float64(res.Events) / res.Wall.Seconds()
	res.FirstEvent, res.GapError, res.Drift = Summarize(firsts), Summarize(gaps), Summarize(drifts)
	res.GapErrorByPosition = SummarizeByPosition(gapsByRun)
	if res.ServerCPU > 0 {
		res.CPUPerRun = res.ServerCPU / time.Duration(res.Runs)
		if res.Events > 0 {
			res.CPUPerEvent = res.ServerCPU / time.Duration(res.Events)
		}
	}
	if cfg.Hold && res.RSSHeld > 0 && cfg.Concurrency > 0 {
		res.BytesPerOpen = (res.RSSHeld - res.RSSBefore) / int64(cfg.Concurrency)
	}
	return res, ctx.Err()
}

// sleepUntil waits until due, or reports false if ctx ends first.
func sleepUntil(ctx context.Context, due time.Time) bool {
	t := time.NewTimer(time.Until(due))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func waitAll(ctx context.Context, wg *sync.WaitGroup) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// runOnce plays one run. When holding, it keeps the stream open after its first event
// until hold ends.
func runOnce(ctx, hold context.Context, client *http.Client, cfg Config, n int, opened *sync.WaitGroup) (r runResult) {
	signalled := false
	signal := func() {
		if !signalled {
			signalled = true
			opened.Done()
		}
	}
	defer signal()
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
	}
	body := bytes.ReplaceAll(cfg.Body, []byte("{{n}}"), []byte(strconv.Itoa(n)))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cfg.URL, bytes.NewReader(body))
	if err != nil {
		r.err = err
		return r
	}
	req.Header = cfg.Header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if cfg.Proto {
		req.Header.Set("Accept", protocol.ProtoContentType)
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		r.err = err
		return r
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		detail, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		r.err = fmt.Errorf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(detail)))
		return r
	}
	next, err := eventTypes(resp, cfg.Proto)
	if err != nil {
		r.err = err
		return r
	}
	var first, last time.Time
	terminal := false
	for {
		typ, err := next()
		if errors.Is(err, io.EOF) {
			break
		}
		now := time.Now()
		if err != nil {
			r.err = err
			return r
		}
		if r.events == 0 {
			first = now
			r.firstEvent = now.Sub(start)
			if cfg.Hold {
				signal()
				<-hold.Done()
				return r
			}
		} else if cfg.ExpectGap > 0 {
			r.gaps = append(r.gaps, abs(now.Sub(last)-cfg.ExpectGap))
		}
		last = now
		r.events++
		terminal = typ == protocol.RunFinished || typ == protocol.RunError
	}
	if !terminal {
		r.err = fmt.Errorf("the stream ended without a terminal event after %d events", r.events)
	}
	if cfg.ExpectGap > 0 && r.events > 1 {
		r.drift = abs(last.Sub(first) - time.Duration(r.events-1)*cfg.ExpectGap)
	}
	return r
}

// eventTypes reads the events of a response in the transport asked for, and returns
// each one's type; io.EOF at the end. It decodes no more than the type, so that the
// client leaves the cores to the server it measures.
func eventTypes(resp *http.Response, proto bool) (func() (string, error), error) {
	const maxFrame = 16 << 20
	ct := resp.Header.Get("Content-Type")
	if proto != protocol.IsProtoContentType(ct) {
		return nil, fmt.Errorf("the answer's Content-Type is %q: not the transport asked for", ct)
	}
	if proto {
		frames := protocol.NewProtoFrameReader(resp.Body, maxFrame)
		return func() (string, error) {
			b, err := frames.Next()
			if err != nil {
				return "", err
			}
			return protocol.ProtoEventType(b)
		}, nil
	}
	frames := protocol.NewFrameReader(resp.Body, maxFrame)
	return func() (string, error) {
		f, err := frames.Next()
		if err != nil {
			return "", err
		}
		return eventType(f.Data)
	}, nil
}

// eventType checks that a frame carries a JSON event and returns its type.
func eventType(data string) (string, error) {
	var ev struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal([]byte(data), &ev); err != nil {
		return "", fmt.Errorf("a frame is not a JSON event: %w", err)
	}
	if ev.Type == "" {
		return "", errors.New("an event has no type")
	}
	return ev.Type, nil
}

// rss reads a process's resident memory in bytes from /proc, or 0.
func rss(pid int) int64 {
	if pid <= 0 {
		return 0
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}
