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

// verifyConfig is what verify runs with: the verify package's configuration, which its
// flags set field by field, and the settings of the command around it, in the spelling
// of the command line.
type verifyConfig struct {
	run                             verify.Config
	upstream, format, junit, timing string
	transport                       string
	update                          bool
	headers, redact                 listFlag
}

// newVerifyConfig returns the settings verify starts with.
func newVerifyConfig() *verifyConfig {
	return &verifyConfig{
		run:       verify.Config{Timeout: time.Minute, Concurrency: 4, Attempts: verify.DefaultAttempts},
		format:    "text",
		transport: "sse",
	}
}

// verifyFlagSet is the flag set of verify, for the command table.
func verifyFlagSet() *flag.FlagSet { return verifyFlags(newVerifyConfig(), io.Discard) }

// runVerify is the verify command: the examples of scenario files sent to the live
// agent, its streams compared with what the scenarios play.
func runVerify(ctx context.Context, in invocation) int {
	stdout, stderr := in.stdout, in.stderr
	c := newVerifyConfig()
	fs := verifyFlags(c, stderr)
	paths, code := parseFlags(fs, in.args, true, in.lookupEnv, stderr)
	if code >= 0 {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "agui-mock verify:", err)
		return 2
	}
	if err := checkFlags(
		flagCheck{"upstream", c.upstream, isHTTPURL(c.upstream), "the http:// or https:// URL of the agent's run endpoint"},
		flagCheck{"format", c.format, c.format == "text" || c.format == "json", "text or json"},
		flagCheck{"timeout", c.run.Timeout, c.run.Timeout > 0, "positive"},
		flagCheck{"concurrency", c.run.Concurrency, c.run.Concurrency >= 1, "1 or more"},
		flagCheck{"attempts", c.run.Attempts, c.run.Attempts >= 1, "1 or more"},
		flagCheck{"transport", c.transport, c.transport == "sse" || c.transport == "proto", "sse or proto"},
	); err != nil {
		return fail(err)
	}
	if len(paths) == 0 {
		fs.Usage()
		return 2
	}
	cfg := c.run
	cfg.Proto = c.transport == "proto"
	cfg.Upstream, _ = url.Parse(c.upstream)
	var err error
	if cfg.Header, err = parseHeaders(c.headers); err != nil {
		return fail(err)
	}
	if c.timing != "" {
		if cfg.Compare.Timing, err = parseTolerance(c.timing); err != nil {
			return fail(err)
		}
	}
	redact, err := compileRedactions(c.redact)
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
	if c.update {
		verify.Update(ctx, cfg, set, rep, verify.UpdateConfig{Redact: redact, Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	}
	if c.junit != "" {
		if err := writeReport(c.junit, rep.WriteJUnit); err != nil {
			return fail(fmt.Errorf("writing the JUnit report: %w", err))
		}
	}
	if c.format == "json" {
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

// verifyFlags defines the verify command's flags into c, each with the value c holds as
// its default.
func verifyFlags(c *verifyConfig, stderr io.Writer) *flag.FlagSet {
	fs := newFlagSet("verify", stderr)
	fs.StringVar(&c.upstream, "upstream", c.upstream, "the agent's run endpoint (required); an example's route is appended to its path")
	fs.Var(&c.headers, "header", "a header sent with every request to the agent, Name: value (repeatable); never written to reports or files")
	fs.DurationVar(&c.run.Timeout, "timeout", c.run.Timeout, "the longest one run of the agent may take")
	fs.IntVar(&c.run.Concurrency, "concurrency", c.run.Concurrency, "how many scenarios are verified at once")
	fs.IntVar(&c.run.Attempts, "attempts", c.run.Attempts, "how many times a conversation that drifts is held with the agent, each on a new thread, before it counts as drift: an agent's answers may differ from run to run")
	fs.StringVar(&c.transport, "transport", c.transport, "the transport to ask the agent for: sse, or proto (AG-UI protobuf frames); either is read")
	fs.StringVar(&c.format, "format", c.format, "report format on standard output: text or json")
	fs.StringVar(&c.junit, "junit", c.junit, "also write a JUnit XML report to this file: a test case per run of each conversation")
	fs.BoolVar(&c.run.Compare.ExactText, "exact-text", c.run.Compare.ExactText, "compare the text of every message too, not only the structure")
	fs.StringVar(&c.timing, "timing", c.timing, "compare the timing too, within a tolerance: a duration (250ms) or a share of the fixture's times (50%)")
	fs.BoolVar(&c.run.Strict, "strict", c.run.Strict, "fail every break of an AG-UI producer rule (finished-run-id, ...), even one the scenario marks with breaks: (without it, a warning)")
	fs.BoolVar(&c.update, "update", c.update, "re-record each drifted scenario from the agent, in its file, and say what changed")
	fs.Var(&c.redact, "redact", "with -update, a regular expression scrubbed from the recordings (repeatable; members named like secrets and common credentials always are)")
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
