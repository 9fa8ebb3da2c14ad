package cmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/verify"
)

// verifyOptions are the verify command's settings.
type verifyOptions struct {
	upstream, format, junit, timing string
	transport                       string
	timeout                         time.Duration
	concurrency, attempts           int
	exactText, update, strict       bool
	headers, redact                 listFlag
}

// runVerify is the verify command: the examples of scenario files sent to the live
// agent, its streams compared with what the scenarios play.
func runVerify(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) int {
	var o verifyOptions
	fs := verifyFlags(&o, stderr)
	paths, code := parseFlags(fs, args, true, lookupEnv, stderr)
	if code >= 0 {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "agui-mock verify:", err)
		return 2
	}
	if err := checkFlags(
		flagCheck{"upstream", o.upstream, isHTTPURL(o.upstream), "the http:// or https:// URL of the agent's run endpoint"},
		flagCheck{"format", o.format, o.format == "text" || o.format == "json", "text or json"},
		flagCheck{"timeout", o.timeout, o.timeout > 0, "positive"},
		flagCheck{"concurrency", o.concurrency, o.concurrency >= 1, "1 or more"},
		flagCheck{"attempts", o.attempts, o.attempts >= 1, "1 or more"},
		flagCheck{"transport", o.transport, o.transport == "sse" || o.transport == "proto", "sse or proto"},
	); err != nil {
		return fail(err)
	}
	if len(paths) == 0 {
		fs.Usage()
		return 2
	}
	cfg := verify.Config{Timeout: o.timeout, Concurrency: o.concurrency, Compare: verify.Options{ExactText: o.exactText}, Proto: o.transport == "proto", Strict: o.strict, Attempts: o.attempts}
	cfg.Upstream, _ = url.Parse(o.upstream)
	var err error
	if cfg.Header, err = parseHeaders(o.headers); err != nil {
		return fail(err)
	}
	if o.timing != "" {
		if cfg.Compare.Timing, err = parseTolerance(o.timing); err != nil {
			return fail(err)
		}
	}
	redact, err := compileRedactions(o.redact)
	if err != nil {
		return fail(err)
	}
	set, diags := loadScenarios(ctx, paths)
	if len(diags) > 0 {
		for _, d := range diags {
			fmt.Fprintln(stderr, d.Error())
		}
		fmt.Fprintln(stderr, "agui-mock verify: the scenarios do not load (see agui-mock validate); nothing was verified")
		return 2
	}
	rep := verify.Run(ctx, cfg, set)
	if o.update {
		verify.Update(ctx, cfg, set, rep, verify.UpdateConfig{Redact: redact, Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	}
	if o.junit != "" {
		if err := writeReport(o.junit, rep.WriteJUnit); err != nil {
			return fail(fmt.Errorf("writing the JUnit report: %w", err))
		}
	}
	if o.format == "json" {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteText(stdout)
	}
	if err != nil {
		return fail(err)
	}
	return verifyExitCode(rep)
}

// verifyExitCode is 2 when an agent could not be asked, 1 when a scenario drifted (and
// was not re-recorded, with -update), else 0.
func verifyExitCode(rep *verify.Report) int {
	code := 0
	for _, res := range rep.Results {
		switch {
		case res.Status == verify.Error:
			return 2
		case res.Status == verify.Drift && res.Updated == "":
			code = 1
		}
	}
	return code
}

// verifyFlags defines the verify command's flags.
func verifyFlags(o *verifyOptions, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("agui-mock verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.upstream, "upstream", "", "the agent's run endpoint (required); an example's route is appended to its path")
	fs.Var(&o.headers, "header", "a header sent with every request to the agent, Name: value (repeatable); never written to reports or files")
	fs.DurationVar(&o.timeout, "timeout", time.Minute, "the longest one run of the agent may take")
	fs.IntVar(&o.concurrency, "concurrency", 4, "how many scenarios are verified at once")
	fs.IntVar(&o.attempts, "attempts", verify.DefaultAttempts, "how many times a conversation that drifts is held with the agent, each on a new thread, before it counts as drift: an agent's answers may differ from run to run")
	fs.StringVar(&o.transport, "transport", "sse", "the transport to ask the agent for: sse, or proto (AG-UI protobuf frames); either is read")
	fs.StringVar(&o.format, "format", "text", "report format on standard output: text or json")
	fs.StringVar(&o.junit, "junit", "", "also write a JUnit XML report to this file: a test case per run of each conversation")
	fs.BoolVar(&o.exactText, "exact-text", false, "compare the text of every message too, not only the structure")
	fs.StringVar(&o.timing, "timing", "", "compare the timing too, within a tolerance: a duration (250ms) or a share of the fixture's times (50%)")
	fs.BoolVar(&o.strict, "strict", false, "fail every break of an AG-UI producer rule (finished-run-id, ...), even one the scenario marks with breaks: (without it, a warning)")
	fs.BoolVar(&o.update, "update", false, "re-record each drifted scenario from the agent, in its file, and say what changed")
	fs.Var(&o.redact, "redact", "with -update, a regular expression scrubbed from the recordings (repeatable; members named like secrets and common credentials always are)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: agui-mock verify -upstream URL [flags] PATH...

Sends the request of every example of the scenarios under PATH (files and directories)
to the live agent at URL, every turn of each conversation, answering interrupts and
frontend tools as the scenario's branches do, and compares the structure of the agent's
stream with what the scenario plays: the event types in order (a run of content deltas
counts as one), the tools called and the shape of their arguments, the state paths
touched, the interrupts with their reasons and response schemas, and how the run ends.
Text, ids, timestamps and timing are ignored unless -exact-text or -timing says
otherwise; so are how many snapshots and RAW events the agent sends and where (what
counts is which of these kinds it sends, and its last MESSAGES_SNAPSHOT). A conversation that drifts is held
again on a new thread, up to -attempts times: an agent whose answers differ from run
to run passes when one matches, with a warning.

Each scenario passes, drifts (the first difference is printed with its file:line) or
fails with an error (the agent unreachable, or refusing). A producer rule the agent
breaks, as the scenario marks in breaks:, is a warning naming the rule; a break the
agent makes and the recording does not, or the other way round, is drift; -strict
makes every break drift. The exit status is 0 when every scenario passes (warnings
included), 1 when one drifted, 2 on errors and for usage errors.

Flags:
`)
		fs.PrintDefaults()
	}
	return fs
}

// parseHeaders reads -header values, Name: value. A wrong one is named by its position,
// never by its value, which may be a secret.
func parseHeaders(list []string) (http.Header, error) {
	h := http.Header{}
	for i, item := range list {
		name, value, ok := strings.Cut(item, ":")
		if name = strings.TrimSpace(name); !ok || name == "" {
			return nil, fmt.Errorf("-header number %d must be Name: value (its value is not shown, as it may be a secret)", i+1)
		}
		h.Add(name, strings.TrimSpace(value))
	}
	return h, nil
}

// parseTolerance reads -timing: a duration, or a percentage of the fixture's times.
func parseTolerance(s string) (*verify.Tolerance, error) {
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		if f, err := strconv.ParseFloat(pct, 64); err == nil && f > 0 {
			return &verify.Tolerance{Relative: f / 100}, nil
		}
	} else if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return &verify.Tolerance{Fixed: d}, nil
	}
	return nil, checkFlags(flagCheck{"timing", s, false, "a duration such as 250ms or a percentage such as 50%"})
}

// loadScenarios reads the scenarios under the paths as one set, as validate checks them
// but without the built-in scenarios, which stand for no agent of yours.
func loadScenarios(ctx context.Context, paths []string) (*scenarios.Set, []scenarios.Diagnostic) {
	var own []scenarios.Source
	var diags []scenarios.Diagnostic
	for _, p := range paths {
		info, err := os.Stat(p)
		switch {
		case err != nil:
			diags = append(diags, scenarios.Diagnostic{File: p, Message: err.Error()})
		case info.IsDir() || scenarios.IsScenarioFile(p):
			own = append(own, pathSource(p, info.IsDir()))
		default:
			diags = append(diags, scenarios.Diagnostic{File: p, Message: "not a scenario file (.yaml, .yml) or a directory"})
		}
	}
	found, d := scenarios.Gather(context.Background(), nil, setSources(own, false)...)
	diags = append(diags, d...)
	if len(diags) > 0 {
		return nil, diags
	}
	set, err := scenarios.NewSet(ctx, scenarios.Limits{}, found)
	var le *scenarios.LoadError
	if errors.As(err, &le) {
		return nil, le.Diagnostics
	}
	if err != nil {
		return nil, []scenarios.Diagnostic{{Message: err.Error()}}
	}
	return set, nil
}

// writeReport writes a report file whole, or not at all.
func writeReport(file string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), ".agui-mock-report-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}
