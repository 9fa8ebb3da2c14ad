package cmd

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agui-mock/agui-mock/loadtest"
	"github.com/agui-mock/agui-mock/scenarios"
)

// loadOptions are the load command's settings.
type loadOptions struct {
	url, message, body, format string
	example                    string
	transport                  string
	concurrency, runs, pid     int
	ramp, gap, timeout         time.Duration
	hold                       bool
	headers                    listFlag
}

// runLoad is the load command: many concurrent runs against any AG-UI endpoint.
func runLoad(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) int {
	var o loadOptions
	fs := loadFlags(&o, stderr)
	if _, code := parseFlags(fs, args, false, lookupEnv, stderr); code >= 0 {
		return code
	}
	if err := checkFlags(
		flagCheck{"url", o.url, isHTTPURL(o.url), "an http:// or https:// URL of a run endpoint"},
		flagCheck{"concurrency", o.concurrency, o.concurrency >= 1, "1 or more"},
		flagCheck{"runs", o.runs, o.runs >= 1, "1 or more"},
		flagCheck{"ramp", o.ramp, o.ramp >= 0, "0 or more"},
		flagCheck{"expect-gap", o.gap, o.gap >= 0, "0 or more"},
		flagCheck{"pid", o.pid, o.pid >= 0, "a process id, or 0 for none"},
		flagCheck{"run-timeout", o.timeout, o.timeout > 0, "positive"},
		flagCheck{"format", o.format, o.format == "text" || o.format == "json", "text or json"},
		flagCheck{"transport", o.transport, o.transport == "sse" || o.transport == "proto", "sse or proto"},
	); err != nil {
		fmt.Fprintln(stderr, "agui-mock load:", err)
		return 2
	}
	cfg := loadtest.Config{URL: o.url, Concurrency: o.concurrency, Runs: o.runs, Ramp: o.ramp, Hold: o.hold, ExpectGap: o.gap, PID: o.pid, Timeout: o.timeout, Proto: o.transport == "proto"}
	var err error
	if cfg.Header, err = parseHeaders(o.headers); err != nil {
		fmt.Fprintln(stderr, "agui-mock load:", err)
		return 2
	}
	cfg.Body = []byte(o.body)
	if o.body == "" {
		ex := scenarios.Example{Message: o.message}
		if o.example != "" {
			if ex, err = loadExample(o.example); err != nil {
				fmt.Fprintln(stderr, "agui-mock load: -example:", err)
				return 2
			}
			cfg.URL = withRoute(cfg.URL, ex)
			for name, value := range ex.Headers {
				if cfg.Header.Get(name) == "" {
					cfg.Header.Set(name, value)
				}
			}
		}
		// Every run is a new conversation, also across loads against the same server.
		ids := scenarios.RunIDs{Thread: fmt.Sprintf("load-%x-{{n}}", time.Now().UnixNano()), Run: "run-{{n}}", Message: "u-{{n}}"}
		cfg.Body, _ = json.Marshal(ex.RunInput(ids)) // JSON values read from YAML or a flag
	}
	res, err := loadtest.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "agui-mock load:", err)
		return 1
	}
	if o.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(res)
	} else {
		fmt.Fprintf(stdout, "%d runs (%d failed) in %v: %.0f runs/s, %.0f events/s\n", res.Runs, res.Failed, res.Wall.Round(time.Millisecond), res.RunsPerSec, res.EventsPerSec)
		fmt.Fprintf(stdout, "first event   p50 %v  p99 %v  max %v\n", res.FirstEvent.P50, res.FirstEvent.P99, res.FirstEvent.Max)
		if o.gap > 0 {
			fmt.Fprintf(stdout, "gap error     p50 %v  p99 %v  max %v\n", res.GapError.P50, res.GapError.P99, res.GapError.Max)
			fmt.Fprintf(stdout, "run drift     p50 %v  p99 %v  max %v\n", res.Drift.P50, res.Drift.P99, res.Drift.Max)
			fmt.Fprint(stdout, "gap error p99 by gap:")
			for i, s := range res.GapErrorByPosition {
				fmt.Fprintf(stdout, " %d:%v", i+1, s.P99.Round(100*time.Microsecond))
			}
			fmt.Fprintln(stdout)
		}
		if res.ServerCPU > 0 {
			fmt.Fprintf(stdout, "server CPU    %v per run, %v per event (%v in all)\n", res.CPUPerRun, res.CPUPerEvent, res.ServerCPU)
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

// loadExample reads the example -example names: the first example of the scenario of
// the file with the id after #, or of the file's first scenario. The file must load.
func loadExample(spec string) (scenarios.Example, error) {
	file, id, _ := strings.Cut(spec, "#")
	set, err := scenarios.Load(pathSource(file, false))
	if err != nil {
		return scenarios.Example{}, err
	}
	var chosen *scenarios.Scenario
	for _, sc := range set.Scenarios() {
		if (id == "" && (chosen == nil || sc.Source.Line < chosen.Source.Line)) || sc.ID == id {
			chosen = sc
		}
	}
	switch {
	case chosen == nil:
		return scenarios.Example{}, fmt.Errorf("%s has no scenario %q", file, id)
	case len(chosen.Examples) == 0:
		return scenarios.Example{}, fmt.Errorf("scenario %s of %s has no examples", chosen.ID, file)
	}
	return chosen.Examples[0], nil
}

// withRoute is the run endpoint of an example: -url with the example's route as its path,
// when the example names one.
func withRoute(endpoint string, ex scenarios.Example) string {
	u, err := url.Parse(endpoint)
	if err != nil || ex.Route == "" {
		return endpoint
	}
	u.Path = ex.Route
	return u.String()
}

// loadFlags defines the load command's flags into o.
func loadFlags(o *loadOptions, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("agui-mock load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.url, "url", "http://127.0.0.1:8000/agui/chat", "the run endpoint")
	fs.IntVar(&o.concurrency, "concurrency", 100, "runs in flight at once")
	fs.IntVar(&o.runs, "runs", 1000, "runs in all")
	fs.DurationVar(&o.ramp, "ramp", 0, "start the runs evenly over this long instead of all at once")
	fs.BoolVar(&o.hold, "hold", false, "open -concurrency streams, wait until all are open, then end them")
	fs.DurationVar(&o.gap, "expect-gap", 0, "the scripted gap between events, to measure timing error and drift")
	fs.StringVar(&o.message, "message", "hello", "the user message of each run")
	fs.StringVar(&o.body, "body", "", "the whole RunAgentInput to post instead ({{n}} is the run's number)")
	fs.StringVar(&o.example, "example", "", "post a scenario's first example instead of -message, as verify sends it: FILE (its first scenario) or FILE#ID; the example's route replaces -url's path")
	fs.IntVar(&o.pid, "pid", 0, "the server's process id, to measure its CPU time (user and system, per run and per event) and memory")
	fs.DurationVar(&o.timeout, "run-timeout", 2*time.Minute, "longest a run may take")
	fs.StringVar(&o.format, "format", "text", "output: text or json")
	fs.StringVar(&o.transport, "transport", "sse", "the transport to ask for: sse, or proto (AG-UI protobuf frames)")
	fs.Var(&o.headers, "header", "a request header, Name: value (repeatable)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: agui-mock load [flags]\n\nDrives concurrent AG-UI runs against -url and reports runs/s, events/s, time to\nfirst event, timing error against -expect-gap, failed runs, and with -pid the server's\nCPU time per run and per event and its memory.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	return fs
}

// runFloor is the floor command: the minimal SSE server the comparison measures against.
func runFloor(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) int {
	fs, addr, events, gap, oneWrite := floorFlags(stderr)
	if _, code := parseFlags(fs, args, false, lookupEnv, stderr); code >= 0 {
		return code
	}
	_, _, addrErr := net.SplitHostPort(*addr)
	if err := checkFlags(
		flagCheck{"addr", *addr, addrErr == nil, "host:port, e.g. 127.0.0.1:8001 or :8001"},
		flagCheck{"gap", *gap, *gap >= 0, "0 or more"},
		flagCheck{"gap", *gap, *gap == 0 || !*oneWrite, "0 with -one-write, which writes the run at once"},
	); err != nil {
		fmt.Fprintln(stderr, "agui-mock load-floor:", err)
		return 2
	}
	floor, err := loadtest.NewFloor(*events, *gap)
	if *oneWrite {
		floor, err = loadtest.NewOneWriteFloor(*events)
	}
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

// floorFlags defines the load-floor command's flags.
func floorFlags(stderr io.Writer) (fs *flag.FlagSet, addr *string, events *int, gap *time.Duration, oneWrite *bool) {
	fs = flag.NewFlagSet("agui-mock load-floor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr = fs.String("addr", "127.0.0.1:8001", "address to listen on")
	events = fs.Int("events", 20, "events per run, RUN_STARTED and RUN_FINISHED included (at least 4)")
	gap = fs.Duration("gap", 0, "the gap between events")
	oneWrite = fs.Bool("one-write", false, "write the whole run in one write as the handler returns, instead of flushing each event")
	return fs, addr, events, gap, oneWrite
}
