package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/agui-mock/agui-mock/loadtest"
)

// runLoad is the load command: many concurrent runs against any AG-UI endpoint.
func runLoad(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("agui-mock load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("url", "http://127.0.0.1:8000/agui/chat", "the run endpoint")
	concurrency := fs.Int("concurrency", 100, "runs in flight at once")
	runs := fs.Int("runs", 1000, "runs in all")
	ramp := fs.Duration("ramp", 0, "start the runs evenly over this long instead of all at once")
	hold := fs.Bool("hold", false, "open -concurrency streams, wait until all are open, then end them")
	gap := fs.Duration("expect-gap", 0, "the scripted gap between events, to measure timing error and drift")
	message := fs.String("message", "hello", "the user message of each run")
	body := fs.String("body", "", "the whole RunAgentInput to post instead ({{n}} is the run's number)")
	pid := fs.Int("pid", 0, "the server's process id, to measure its memory")
	timeout := fs.Duration("timeout", 2*time.Minute, "longest a run may take")
	format := fs.String("format", "text", "output: text or json")
	var headers listFlag
	fs.Var(&headers, "header", "a request header, Name: value (repeatable)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: agui-mock load [flags]\n\nDrives concurrent AG-UI runs against -url and reports runs/s, events/s, time to\nfirst event, timing error against -expect-gap, failed runs and server memory.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if _, code := parseFlags(fs, args, false, lookupEnv, stderr); code >= 0 {
		return code
	}
	if err := checkFlags(
		flagCheck{"url", *url, isHTTPURL(*url), "an http:// or https:// URL of a run endpoint"},
		flagCheck{"concurrency", *concurrency, *concurrency >= 1, "1 or more"},
		flagCheck{"runs", *runs, *runs >= 1, "1 or more"},
		flagCheck{"ramp", *ramp, *ramp >= 0, "0 or more"},
		flagCheck{"expect-gap", *gap, *gap >= 0, "0 or more"},
		flagCheck{"pid", *pid, *pid >= 0, "a process id, or 0 for none"},
		flagCheck{"timeout", *timeout, *timeout > 0, "positive"},
		flagCheck{"format", *format, *format == "text" || *format == "json", "text or json"},
	); err != nil {
		fmt.Fprintln(stderr, "agui-mock load:", err)
		return 2
	}
	cfg := loadtest.Config{URL: *url, Concurrency: *concurrency, Runs: *runs, Ramp: *ramp, Hold: *hold, ExpectGap: *gap, PID: *pid, Timeout: *timeout, Header: http.Header{}}
	cfg.Body = []byte(*body)
	if *body == "" {
		// Every run is a new conversation, also across loads against the same server.
		msg, _ := json.Marshal(*message)
		thread := fmt.Sprintf("load-%x-{{n}}", time.Now().UnixNano())
		cfg.Body = []byte(`{"threadId":"` + thread + `","runId":"run-{{n}}","messages":[{"id":"u-{{n}}","role":"user","content":` + string(msg) + `}]}`)
	}
	for _, h := range headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			fmt.Fprintf(stderr, "agui-mock load: -header %q is not Name: value\n", h)
			return 2
		}
		cfg.Header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	res, err := loadtest.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "agui-mock load:", err)
		return 1
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(res)
	} else {
		fmt.Fprintf(stdout, "%d runs (%d failed) in %v: %.0f runs/s, %.0f events/s\n", res.Runs, res.Failed, res.Wall.Round(time.Millisecond), res.RunsPerSec, res.EventsPerSec)
		fmt.Fprintf(stdout, "first event   p50 %v  p99 %v  max %v\n", res.FirstEvent.P50, res.FirstEvent.P99, res.FirstEvent.Max)
		if *gap > 0 {
			fmt.Fprintf(stdout, "gap error     p50 %v  p99 %v  max %v\n", res.GapError.P50, res.GapError.P99, res.GapError.Max)
			fmt.Fprintf(stdout, "run drift     p50 %v  p99 %v  max %v\n", res.Drift.P50, res.Drift.P99, res.Drift.Max)
			fmt.Fprint(stdout, "gap error p99 by gap:")
			for i, s := range res.GapErrorByPosition {
				fmt.Fprintf(stdout, " %d:%v", i+1, s.P99.Round(100*time.Microsecond))
			}
			fmt.Fprintln(stdout)
		}
		if res.BytesPerOpen > 0 {
			fmt.Fprintf(stdout, "memory        %d bytes per open stream (RSS %d → %d)\n", res.BytesPerOpen, res.RSSBefore, res.RSSHeld)
		}
		for _, f := range res.FirstFailures {
			fmt.Fprintln(stdout, "failure:", f)
		}
	}
	if res.Failed > 0 {
		return 1
	}
	return 0
}

// runFloor is the floor command: the minimal SSE server the comparison measures against.
func runFloor(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("agui-mock load-floor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8001", "address to listen on")
	events := fs.Int("events", 20, "events per run, RUN_STARTED and RUN_FINISHED included (at least 4)")
	gap := fs.Duration("gap", 0, "the gap between events")
	if _, code := parseFlags(fs, args, false, lookupEnv, stderr); code >= 0 {
		return code
	}
	_, _, addrErr := net.SplitHostPort(*addr)
	if err := checkFlags(
		flagCheck{"addr", *addr, addrErr == nil, "host:port, e.g. 127.0.0.1:8001 or :8001"},
		flagCheck{"gap", *gap, *gap >= 0, "0 or more"},
	); err != nil {
		fmt.Fprintln(stderr, "agui-mock load-floor:", err)
		return 2
	}
	floor, err := loadtest.NewFloor(*events, *gap)
	if err != nil {
		fmt.Fprintln(stderr, "agui-mock load-floor: -events:", err)
		return 2
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(stderr, "agui-mock load-floor:", err)
		return 1
	}
	fmt.Fprintf(stdout, "floor listening on http://%s\n", ln.Addr())
	srv := &http.Server{Handler: floor, ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); _ = srv.Close() }()
	if err := srv.Serve(ln); err != nil && ctx.Err() == nil {
		fmt.Fprintln(stderr, "agui-mock load-floor:", err)
		return 1
	}
	return 0
}
