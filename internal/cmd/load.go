package cmd

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/agui-mock/agui-mock/loadtest"
	"github.com/agui-mock/agui-mock/scenarios"
)

// loadConfig is what load runs with: the loadtest package's configuration, which its
// flags set field by field, and the settings of the command around it, in the spelling
// of the command line.
type loadConfig struct {
	run                   loadtest.Config
	message, body, format string
	example, transport    string
	headers               listFlag
}

// newLoadConfig returns the settings load starts with: runs of the default route of a
// server that serve started with its defaults.
func newLoadConfig() *loadConfig {
	return &loadConfig{
		run:       loadtest.Config{URL: "http://" + defaultAddr + scenarios.DefaultRoute, Concurrency: 100, Runs: 1000, Timeout: 2 * time.Minute},
		message:   "hello",
		format:    "text",
		transport: "sse",
	}
}

// loadFlagSet is the flag set of load, for the command table.
func loadFlagSet() *flag.FlagSet { return loadFlags(newLoadConfig(), io.Discard) }

// runLoad is the load command: many concurrent runs against any AG-UI endpoint.
func runLoad(ctx context.Context, in invocation) int {
	stdout, stderr := in.stdout, in.stderr
	c := newLoadConfig()
	fs := loadFlags(c, stderr)
	if _, code := parseFlags(fs, in.args, false, in.lookupEnv, stderr); code >= 0 {
		return code
	}
	cfg := &c.run
	if err := checkFlags(
		flagCheck{"url", cfg.URL, isHTTPURL(cfg.URL), "an http:// or https:// URL of a run endpoint"},
		flagCheck{"concurrency", cfg.Concurrency, cfg.Concurrency >= 1, "1 or more"},
		flagCheck{"runs", cfg.Runs, cfg.Runs >= 1, "1 or more"},
		flagCheck{"ramp", cfg.Ramp, cfg.Ramp >= 0, "0 or more"},
		flagCheck{"expect-gap", cfg.ExpectGap, cfg.ExpectGap >= 0, "0 or more"},
		flagCheck{"pid", cfg.PID, cfg.PID >= 0, "a process id, or 0 for none"},
		flagCheck{"run-timeout", cfg.Timeout, cfg.Timeout > 0, "positive"},
		flagCheck{"format", c.format, c.format == "text" || c.format == "json", "text or json"},
		flagCheck{"transport", c.transport, c.transport == "sse" || c.transport == "proto", "sse or proto"},
	); err != nil {
		fmt.Fprintln(stderr, "agui-mock load:", err)
		return 2
	}
	cfg.Proto = c.transport == "proto"
	var err error
	if cfg.Header, err = parseHeaders(c.headers); err != nil {
		fmt.Fprintln(stderr, "agui-mock load:", err)
		return 2
	}
	cfg.Body = []byte(c.body)
	if c.body == "" {
		ex := scenarios.Example{Message: c.message}
		if c.example != "" {
			if ex, err = loadExample(c.example); err != nil {
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
	res, err := loadtest.Run(ctx, *cfg)
	if err != nil {
		fmt.Fprintln(stderr, "agui-mock load:", err)
		return 1
	}
	if c.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(res)
	} else {
		fmt.Fprintf(stdout, "%d runs (%d failed) in %v: %.0f runs/s, %.0f events/s\n", res.Runs, res.Failed, res.Wall.Round(time.Millisecond), res.RunsPerSec, res.EventsPerSec)
		fmt.Fprintf(stdout, "first event   p50 %v  p99 %v  max %v\n", res.FirstEvent.P50, res.FirstEvent.P99, res.FirstEvent.Max)
		if cfg.ExpectGap > 0 {
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

// loadFlags defines the load command's flags into c, each with the value c holds as its
// default.
func loadFlags(c *loadConfig, stderr io.Writer) *flag.FlagSet {
	cfg := &c.run
	fs := newFlagSet("load", stderr)
	fs.StringVar(&cfg.URL, "url", cfg.URL, "the run endpoint")
	fs.IntVar(&cfg.Concurrency, "concurrency", cfg.Concurrency, "runs in flight at once")
	fs.IntVar(&cfg.Runs, "runs", cfg.Runs, "runs in all")
	fs.DurationVar(&cfg.Ramp, "ramp", cfg.Ramp, "start the runs evenly over this long instead of all at once")
	fs.BoolVar(&cfg.Hold, "hold", cfg.Hold, "open -concurrency streams, wait until all are open, then end them")
	fs.DurationVar(&cfg.ExpectGap, "expect-gap", cfg.ExpectGap, "the scripted gap between events, to measure timing error and drift")
	fs.StringVar(&c.message, "message", c.message, "the user message of each run")
	fs.StringVar(&c.body, "body", c.body, "the whole RunAgentInput to post instead ({{n}} is the run's number)")
	fs.StringVar(&c.example, "example", c.example, "post a scenario's first example instead of -message, as verify sends it: FILE (its first scenario) or FILE#ID; the example's route replaces -url's path")
	fs.IntVar(&cfg.PID, "pid", cfg.PID, "the server's process id, to measure its CPU time (user and system, per run and per event) and memory")
	fs.DurationVar(&cfg.Timeout, "run-timeout", cfg.Timeout, "longest a run may take")
	fs.StringVar(&c.format, "format", c.format, "output: text or json")
	fs.StringVar(&c.transport, "transport", c.transport, "the transport to ask for: sse, or proto (AG-UI protobuf frames)")
	fs.Var(&c.headers, "header", "a request header, Name: value (repeatable)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: agui-mock load [flags]\n\nDrives concurrent AG-UI runs against -url and reports runs/s, events/s, time to\nfirst event, timing error against -expect-gap, failed runs, and with -pid the server's\nCPU time per run and per event and its memory.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	return fs
}
