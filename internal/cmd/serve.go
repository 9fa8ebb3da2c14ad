package cmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agui-mock/agui-mock/copilotkit"
	"github.com/agui-mock/agui-mock/internal/gcpace"
	"github.com/agui-mock/agui-mock/recorder"
	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/server"
	"github.com/agui-mock/agui-mock/watcher"
)

// options are the serve command's settings.
type options struct {
	addr       string
	dirs       listFlag
	noBuiltin  bool
	seed       uint64
	fixedTime  string
	speed      float64
	strict     bool
	dialect    string
	runtime    string
	usage      bool
	ids        idOptions
	keepAlive  time.Duration
	maxBody    int64
	logFormat  string
	logLevel   slog.Level
	shutdownIn time.Duration
	authToken  tokenFlag
	adminToken tokenFlag
	cors       listFlag
	hosts      listFlag
	maxThreads int
	threadTTL  time.Duration
	watch      string
	pollEvery  time.Duration
	recordAll  bool
	recMissing bool
	upstream   string
	recordDir  string
	redact     listFlag
	dedupe     bool
	recMaxSize int64
	metrics    bool
	journal    int
	journalEvs int
	maxMsgs    int
	maxStreams streamLimit
	maxStart   int
	templates  scenarios.Limits
	memory     memoryLimits
}

// runServe is the serve command and, with recordAll, the record command.
func runServe(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer, recordAll bool) int {
	o := options{recordAll: recordAll}
	fs := serveFlags(&o, stderr)
	if _, code := parseFlags(fs, args, false, lookupEnv, stderr); code >= 0 {
		return code
	}
	if err := serve(ctx, o, stdout, stderr); err != nil {
		reportExit(o.logFormat, stderr, err)
		return 1
	}
	return 0
}

// reportExit writes why the server could not serve: in a JSON log (a container's) as one
// record like the others, so that log collectors and `docker logs` show the reason
// whole; otherwise as a line for people.
func reportExit(logFormat string, stderr io.Writer, err error) {
	if logFormat == "json" {
		slog.New(slog.NewJSONHandler(stderr, nil)).Error("exiting: " + err.Error())
		return
	}
	fmt.Fprintln(stderr, "agui-mock:", err)
}

// serveFlags defines the flags of serve or, with o.recordAll, record, into o.
func serveFlags(o *options, stderr io.Writer) *flag.FlagSet {
	recordAll := o.recordAll
	name := "serve"
	if recordAll {
		name = "record"
	}
	fs := flag.NewFlagSet("agui-mock "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8000", "address to listen on")
	fs.Var(&o.dirs, "scenarios", "directory of scenario files (repeatable)")
	fs.BoolVar(&o.noBuiltin, "no-builtin", false, "do not serve the built-in scenarios")
	fs.Uint64Var(&o.seed, "seed", 0, "seed for generated ids, fake data and jitter: the same conversation plays the same on every thread (0: none, every thread differs)")
	fs.StringVar(&o.fixedTime, "fixed-time", "", "stamp events with this RFC 3339 time plus their offset in the run's script, instead of the time they are sent (with -seed and fixed request ids: byte-identical streams)")
	fs.Float64Var(&o.speed, "speed", 1, "multiplies every delay: 0.5 plays twice as fast, 0 without delays")
	fs.BoolVar(&o.strict, "strict", false, "reject run inputs that do not conform to AG-UI 1.1")
	fs.StringVar(&o.dialect, "dialect", string(scenarios.DialectAGUI), "how interrupts reach the client in scenarios that name no dialect: agui (RUN_FINISHED with an interrupt outcome, answered by resume) or langgraph (an on_interrupt custom event, answered by forwardedProps.command.resume)")
	fs.StringVar(&o.runtime, "copilotkit-path", copilotkit.DefaultBasePath, "where the CopilotKit runtime's routes are served, so that a CopilotKit app's runtimeUrl can point at the mock (e.g. /api/copilotkit); off serves none")
	fs.BoolVar(&o.usage, "usage", false, "report estimated token usage on RUN_FINISHED and RUN_ERROR of the scenarios of steps that say nothing of usage")
	idFlags(fs, &o.ids)
	fs.DurationVar(&o.keepAlive, "keepalive", 15*time.Second, "interval of keep-alive comments during long pauses (0 disables)")
	fs.Int64Var(&o.maxBody, "max-body", 10<<20, "largest request body in bytes")
	fs.StringVar(&o.logFormat, "log-format", "text", "log format: text or json")
	fs.TextVar(&o.logLevel, "log-level", slog.LevelInfo, "least level logged: debug (also one line per scenario loaded), info, warn or error")
	fs.DurationVar(&o.shutdownIn, "shutdown-timeout", 8*time.Second, "how long open streams get to end on SIGTERM")
	fs.Var(&o.authToken, "auth-token", "require Authorization: Bearer <token> on the AG-UI endpoints, and on the admin API without -admin-token")
	fs.Var(&o.adminToken, "admin-token", "require Authorization: Bearer <token> on the admin API (/_mock, health checks included) and /metrics")
	fs.Var(&o.cors, "cors-origins", "origins browsers may call from (repeatable; default *, \"none\" disables CORS); the admin API answers only pages of origins listed by name or pattern")
	fs.Var(&o.hosts, "allowed-hosts", "host names the server answers for besides IP addresses, localhost, *.localhost, single-label names and host.docker.internal (repeatable; *.example.com for the names under it, * for any)")
	fs.IntVar(&o.maxThreads, "max-threads", 10000, "threads kept in memory; the least recently used is forgotten past this")
	fs.DurationVar(&o.threadTTL, "thread-ttl", time.Hour, "a thread unused this long is forgotten")
	fs.StringVar(&o.watch, "watch", watcher.ModeAuto, "how scenario directories are watched: auto (file-system events), poll (for bind mounts and network file systems that deliver none) or off")
	fs.DurationVar(&o.pollEvery, "poll-interval", 2*time.Second, "rescan period with -watch=poll; with -watch=auto, the safety rescan")
	fs.StringVar(&o.upstream, "upstream", "", "the real AG-UI agent's base URL, to record from")
	fs.StringVar(&o.recordDir, "record-dir", "recorded", "where recordings are written; with -record-missing it is served and watched too")
	fs.BoolVar(&o.recMissing, "record-missing", false, "serve: proxy to -upstream and record what none of your scenarios answers (the built-in scenarios are left out)")
	fs.Var(&o.redact, "redact", "a regular expression scrubbed from recordings (repeatable; members named like secrets and common credentials always are)")
	fs.BoolVar(&o.metrics, "metrics", false, "serve Prometheus metrics at /metrics")
	fs.IntVar(&o.journal, "journal-size", 1000, "requests the admin journal keeps")
	fs.IntVar(&o.journalEvs, "journal-events", 200, "of how many of the latest runs the journal keeps every event, for the inspector at /_mock/ui (0: none)")
	fs.IntVar(&o.maxMsgs, "max-messages", 10000, "most messages a run input may carry (0: no limit)")
	fs.Var(&o.maxStreams, "max-streams", fmt.Sprintf("at most `n` streams open at once; more get 503 with Retry-After (0: no limit; default: what the descriptor limit, ulimit -n, leaves room for after 256 or a tenth of it for files and other connections, up to %d; the start log says which)", server.DefaultMaxStreams))
	fs.IntVar(&o.maxStart, "max-starting", 128, "most connections being accepted and answered at once, until their answers begin; more wait in the kernel's accept queue (0: no limit)")
	fs.BoolVar(&o.dedupe, "dedupe", true, "a repeated first request updates its recording instead of adding a file")
	fs.Int64Var(&o.recMaxSize, "record-max-bytes", recorder.DefaultMaxBytes, "most bytes of event JSON one run's recording keeps; a run past it (or past 100000 events) is relayed but not recorded")
	templateLimitFlags(fs, &o.templates)
	memoryLimitFlags(fs, &o.memory)
	fs.Usage = func() {
		if recordAll {
			fmt.Fprintf(stderr, "Usage: agui-mock record -upstream URL [flags]\n\nProxies every AG-UI request to the agent at -upstream, relays its events as they\narrive, and writes each session into -record-dir as a scenario file that replays it.\n\nFlags:\n")
		} else {
			// serve is the default command, so its help is the first one read: the
			// commands come before its long list of flags, where they are seen at once.
			fmt.Fprintf(stderr, "Usage: agui-mock [serve] [flags]\n\nServes AG-UI run endpoints from YAML scenarios, reloading scenario directories\nwhen their files change. Every flag can also be set through the environment\nvariable AGUI_MOCK_<NAME> (e.g. AGUI_MOCK_SPEED=0).\n\nCommands (run 'agui-mock COMMAND -h' for a command's flags):\n%s\nFlags of serve:\n", commandList())
		}
		fs.PrintDefaults()
	}
	return fs
}

func serve(ctx context.Context, o options, stdout, stderr io.Writer) error {
	logger, err := newLogger(o.logFormat, o.logLevel, stderr)
	if err != nil {
		return err
	}
	if err := checkServeFlags(o); err != nil {
		return err
	}
	if err := checkTemplateLimits(o.templates); err != nil {
		return err
	}
	if err := checkMemoryLimits(o.memory); err != nil {
		return err
	}
	if err := checkIDFlags(o.ids); err != nil {
		return err
	}
	redact, err := compileRedactions(o.redact)
	if err != nil {
		return err
	}
	fixedTime, err := parseFixedTime(o.fixedTime)
	if err != nil {
		return err
	}
	for _, dir := range o.dirs {
		if err := checkScenarioDir(dir); err != nil {
			return err
		}
	}
	rec, err := newRecorder(o, redact, logger, printer(stdout, o.logFormat))
	if err != nil {
		return err
	}
	dirs, err := servedDirs(o)
	if err != nil {
		return err
	}
	var own []scenarios.Source
	for _, dir := range dirs {
		own = append(own, scenarios.Source{FS: os.DirFS(dir), Root: ".", Label: dir})
	}
	builtin := !o.noBuiltin
	if builtin && o.recMissing && !o.recordAll {
		// they would answer what the agent is to be recorded answering
		builtin = false
		logger.Info("the built-in scenarios are left out, so that what your scenarios do not answer is recorded")
	}
	sources := setSources(own, builtin)
	memory := scenarios.NewMemory(scenarios.DefaultRefusals) // the reloads go on with what the first load read
	load := func() (*scenarios.Set, error) {
		return scenarios.LoadRemembering(ctx, o.templates, memory, nil, sources...)
	}
	var watch *watcher.Watcher
	if len(dirs) > 0 && o.watch != watcher.ModeOff {
		// started before the load, so no change between the two goes unnoticed
		wcfg := watcher.Config{Roots: dirs, Mode: o.watch, Debounce: 100 * time.Millisecond, PollInterval: o.pollEvery, Include: scenarios.IsScenarioFile, Logger: logger}
		if watch, err = watcher.New(wcfg); err != nil {
			return err
		}
		defer watch.Close() // if serving never starts
	}
	set, err := loadAtStart(load)
	if ctx.Err() != nil {
		return nil // stopped before serving
	}
	if err != nil {
		return err
	}
	if _, set := os.LookupEnv("GOGC"); !set { // a GOGC the user set is theirs
		defer gcpace.Start(gcFloor).Stop()
	}
	cfg := server.DefaultConfig()
	cfg.Seed = o.seed
	cfg.FixedTime = fixedTime
	cfg.Speed = o.speed
	cfg.Strict = o.strict
	o.ids.apply(&cfg)
	cfg.Dialect = scenarios.Dialect(o.dialect) // checked by checkServeFlags
	cfg.RuntimePath = runtimePath(o.runtime)
	cfg.Usage = o.usage
	cfg.KeepAlive = o.keepAlive
	cfg.MaxBodyBytes = o.maxBody
	cfg.Logger = logger
	cfg.AuthToken = string(o.authToken)
	cfg.AdminToken = string(o.adminToken)
	cfg.AllowedHosts = o.hosts
	switch {
	case len(o.cors) == 1 && o.cors[0] == "none":
		cfg.CORSOrigins = nil
	case len(o.cors) > 0:
		cfg.CORSOrigins = o.cors
	}
	cfg.Threads.MaxThreads = o.maxThreads
	cfg.Threads.IdleTTL = o.threadTTL
	cfg.Recorder = rec
	cfg.RecordAll = o.recordAll
	cfg.Metrics = o.metrics
	cfg.JournalSize = o.journal
	cfg.JournalEvents = o.journalEvs
	cfg.MaxMessages = o.maxMsgs
	limit, known := descriptorLimit()
	streams, streamsWhy := maxStreams(o.maxStreams, limit, known, o.recordAll || o.recMissing)
	cfg.MaxStreams = streams
	cfg.MaxStarting = o.maxStart
	cfg.Sources = sources
	cfg.TemplateLimits = o.templates
	cfg.Memory = memory
	o.memory.apply(&cfg)
	srv := server.New(cfg, set)

	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	base := "http://" + ln.Addr().String()
	announce(stdout, o.logFormat, base)
	logEndpoints(logger, base, set, o)
	watchCtx, stopWatching := context.WithCancel(ctx)
	watching := make(chan struct{})
	go func() {
		defer close(watching)
		if watch != nil {
			watch.Run(watchCtx, func(ctx context.Context) { _ = srv.Reload(ctx) })
		}
	}()
	defer func() {
		stopWatching()
		<-watching
	}()
	logStarted(logger, set.Scenarios(), sources, o, streamsWhy)
	return srv.Serve(ctx, ln, o.shutdownIn)
}

// setSources are the sources of a scenario set: the user's, then the built-in set
// unless it is left out. serve and validate build their sets from it, so that they
// judge the same directories alike; which scenario of the set comes first is the set's
// rule (the user's before the built-in ones).
func setSources(own []scenarios.Source, builtin bool) []scenarios.Source {
	if builtin {
		return append(slices.Clip(own), scenarios.Builtin())
	}
	return own
}

// checkScenarioDir checks that dir is a directory this process can list, before its
// watch and load report the same problem less plainly (a mounted directory readable only
// by its owner, for one).
func checkScenarioDir(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("scenario directory: %w", err)
	}
	if !info.IsDir() {
		return fmt.Errorf("scenario directory %s is not a directory", dir)
	}
	f, err := os.Open(dir)
	if err == nil {
		_, err = f.ReadDir(1)
		f.Close()
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("scenario directory %s cannot be read by uid %d: %w", dir, os.Geteuid(), err)
	}
	return nil
}

// servedDirs returns the directories whose scenarios are served and watched: the
// scenario directories and, with -record-missing, the record directory when none of
// them holds it already, so that a recording replays on the next identical request. The
// record directory exists by then (newRecorder creates it), to be watched from the start.
func servedDirs(o options) ([]string, error) {
	if !o.recMissing || o.recordAll {
		return o.dirs, nil
	}
	rec, err := resolvedPath(o.recordDir)
	if err != nil {
		return nil, fmt.Errorf("-record-dir: %w", err)
	}
	for _, dir := range o.dirs {
		scen, err := resolvedPath(dir)
		if err != nil {
			return nil, fmt.Errorf("scenario directory: %w", err)
		}
		if rel, err := filepath.Rel(scen, rec); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return o.dirs, nil // loaded and watched with the scenario directory
		}
	}
	return append(slices.Clone(o.dirs), o.recordDir), nil
}

// resolvedPath is a directory's absolute path with symbolic links resolved, to compare
// directories however they were named.
func resolvedPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// announce writes the line that says where the server listens, which tools starting it
// wait for: "agui-mock listening on URL", in a JSON log a record of its own (with the
// URL and the inspector's), so that every line a container prints is JSON.
func announce(stdout io.Writer, logFormat, base string) {
	line := "agui-mock listening on " + base
	if logFormat == "json" {
		slog.New(slog.NewJSONHandler(stdout, nil)).Info(line, "url", base, "inspector", base+server.AdminPrefix+"/ui")
		return
	}
	fmt.Fprintln(stdout, line)
}

// printer is where lines for people go (the recorder's line per recording): stdout, or
// in a JSON log one JSON record per line on stdout.
func printer(stdout io.Writer, logFormat string) io.Writer {
	if logFormat == "json" {
		return jsonLines{slog.New(slog.NewJSONHandler(stdout, nil))}
	}
	return stdout
}

// jsonLines writes each line written to it as the message of a JSON record.
type jsonLines struct{ logger *slog.Logger }

// Write logs each line of p, which holds whole lines (one Fprintf each).
func (j jsonLines) Write(p []byte) (int, error) {
	for line := range strings.Lines(string(p)) {
		j.logger.Info(strings.TrimSuffix(line, "\n"))
	}
	return len(p), nil
}

// logStarted logs that the server serves, as /_mock/readyz sees it: ready with
// scenarios, and how many from where; not ready without any. streams says how many
// streams it allows at once, and why (maxStreams).
func logStarted(logger *slog.Logger, loaded []*scenarios.Scenario, sources []scenarios.Source, o options, streams string) {
	seed := "none: every thread differs"
	if o.seed != 0 {
		seed = strconv.FormatUint(o.seed, 10)
	}
	n := len(loaded)
	if o.recordAll && n > 0 {
		logRecording(logger, o, streams)
		return
	}
	attrs := []any{"scenarios", n, "from", scenarioOrigins(loaded, sources), "seed", seed, "speed", o.speed, "strict", o.strict, "auth", o.authToken != "", "admin", adminGuard(o), "maxStreams", streams}
	if o.fixedTime != "" {
		attrs = append(attrs, "fixedTime", o.fixedTime)
	}
	if n == 0 {
		logger.Warn("not ready: no scenario is loaded; /_mock/readyz answers 503 until one is (add a file to a -scenarios directory, or POST /_mock/scenarios)", attrs...)
		return
	}
	logger.Info("ready", attrs...)
}

// scenarioOrigins says how many of the loaded scenarios come from each source, e.g.
// "examples: 4, builtin: 17". A scenario's file is its source's label joined with its
// path below the source's root, so its source is the one with the longest label that
// prefixes it (a label "." prefixes every relative path).
func scenarioOrigins(loaded []*scenarios.Scenario, sources []scenarios.Source) string {
	counts := make([]int, len(sources))
	for _, sc := range loaded {
		best, bestLen := -1, -1
		for i, src := range sources {
			label := path.Clean(filepath.ToSlash(src.Label))
			prefixes := strings.HasPrefix(sc.Source.File, label+"/") || (label == "." && !path.IsAbs(sc.Source.File))
			if prefixes && len(label) > bestLen {
				best, bestLen = i, len(label)
			}
		}
		if best >= 0 {
			counts[best]++
		}
	}
	parts := make([]string, len(sources))
	for i, src := range sources {
		parts[i] = fmt.Sprintf("%s: %d", src.Label, counts[i])
	}
	return strings.Join(parts, ", ")
}

// adminGuard says, for the log, what guards the admin API: which token, or none.
func adminGuard(o options) string {
	switch {
	case o.adminToken != "":
		return "token of -admin-token"
	case o.authToken != "":
		return "token of -auth-token"
	}
	return "no token: open to clients that are no web page; pages only from origins -cors-origins lists"
}

// checkServeFlags checks the values of the serve and record flags that are not checked
// as they are used.
func checkServeFlags(o options) error {
	_, _, addrErr := net.SplitHostPort(o.addr)
	_, dialectErr := scenarios.ParseDialect(o.dialect)
	return checkFlags(
		flagCheck{"addr", o.addr, addrErr == nil, "host:port, e.g. 127.0.0.1:8000 or :8000"},
		flagCheck{"speed", o.speed, scenarios.ValidSpeed(o.speed), "a finite number of 0 or more"},
		flagCheck{"dialect", o.dialect, dialectErr == nil, "agui or langgraph"},
		flagCheck{"copilotkit-path", o.runtime, validRuntimePath(o.runtime), "a path such as /copilotkit or /api/copilotkit, outside /_mock, or off"},
		flagCheck{"keepalive", o.keepAlive, o.keepAlive >= 0, "0 (off) or more"},
		flagCheck{"max-body", o.maxBody, o.maxBody > 0, "a positive number of bytes"},
		flagCheck{"shutdown-timeout", o.shutdownIn, o.shutdownIn >= 0, "0 or more"},
		originsCheck(o.cors),
		hostsCheck(o.hosts),
		flagCheck{"max-threads", o.maxThreads, o.maxThreads >= 1, "1 or more"},
		flagCheck{"thread-ttl", o.threadTTL, o.threadTTL > 0, "positive"},
		flagCheck{"watch", o.watch, slices.Contains([]string{watcher.ModeAuto, watcher.ModePoll, watcher.ModeOff}, o.watch), "auto, poll or off"},
		flagCheck{"poll-interval", o.pollEvery, o.pollEvery > 0, "positive"},
		flagCheck{"journal-size", o.journal, o.journal >= 1, "1 or more"},
		flagCheck{"journal-events", o.journalEvs, o.journalEvs >= 0, "0 or more"},
		flagCheck{"max-messages", o.maxMsgs, o.maxMsgs >= 0, "0 (no limit) or more"},
		flagCheck{"max-streams", o.maxStreams.n, o.maxStreams.n >= 0, "0 (no limit) or more"},
		flagCheck{"max-starting", o.maxStart, o.maxStart >= 0, "0 (no limit) or more"},
		flagCheck{"record-max-bytes", o.recMaxSize, o.recMaxSize > 0, "a positive number of bytes"},
	)
}

// parseFixedTime reads -fixed-time: an RFC 3339 time from the Unix epoch on (event
// timestamps count milliseconds from it), or the zero time when the flag is not set.
func parseFixedTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err := checkFlags(flagCheck{"fixed-time", s, err == nil && t.Unix() >= 0, "an RFC 3339 time from 1970 on, such as 2026-01-01T09:00:00Z"}); err != nil {
		return time.Time{}, err
	}
	return t, nil
}

// originsCheck checks -cors-origins: "none" alone, or "*" and origins.
func originsCheck(origins []string) flagCheck {
	for _, origin := range origins {
		if origin != "*" && (origin != "none" || len(origins) > 1) && !isOrigin(origin) {
			return flagCheck{"cors-origins", origin, false, `"none" alone, "*", or origins such as http://localhost:3000 (scheme://host[:port], no path; * and ? match any characters)`}
		}
	}
	return flagCheck{ok: true}
}

// hostsCheck checks -allowed-hosts: host names or patterns, without scheme, port or path.
func hostsCheck(hosts []string) flagCheck {
	for _, host := range hosts {
		if !server.ValidHostPattern(host) {
			return flagCheck{"allowed-hosts", host, false, "host names such as mock.example.com or patterns such as *.svc.cluster.local (no scheme, port or path), or * for any"}
		}
	}
	return flagCheck{ok: true}
}

// isOrigin reports whether s is an origin as browsers send it, scheme://host[:port],
// possibly with wildcards.
func isOrigin(s string) bool {
	scheme, host, ok := strings.Cut(s, "://")
	return ok && scheme != "" && host != "" && !strings.ContainsAny(scheme, "/:*? ") && !strings.ContainsAny(host, "/#@ \t")
}

// compileRedactions compiles the -redact patterns, whether or not anything is recorded.
func compileRedactions(patterns []string) ([]*regexp.Regexp, error) {
	var redact []*regexp.Regexp
	for _, pattern := range patterns {
		re, err := regexp.Compile(pattern)
		if err != nil {
			return nil, fmt.Errorf("-redact must be a regular expression (Go RE2 syntax), got %q: %s", pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
		redact = append(redact, re)
	}
	return redact, nil
}

// newRecorder builds the recorder the options ask for, or none. It creates the record
// directory, so that a path that cannot be one fails now rather than at the first
// recording.
func newRecorder(o options, redact []*regexp.Regexp, logger *slog.Logger, progress io.Writer) (*recorder.Recorder, error) {
	if !o.recordAll && !o.recMissing {
		if o.upstream != "" {
			return nil, fmt.Errorf("-upstream is for recording: use agui-mock record, or serve -record-missing")
		}
		return nil, nil
	}
	if o.upstream == "" {
		return nil, fmt.Errorf("recording needs -upstream, the URL of the real agent")
	}
	if err := checkFlags(flagCheck{"upstream", o.upstream, isHTTPURL(o.upstream), "the agent's base URL, http:// or https://"}); err != nil {
		return nil, err
	}
	u, _ := url.Parse(o.upstream) // checked just above
	if err := os.MkdirAll(o.recordDir, 0o755); err != nil {
		return nil, fmt.Errorf("-record-dir must be a directory, or a path where one can be created, got %q: %w", o.recordDir, err)
	}
	// a directory that takes no files (a read-only mount) fails now, not at the first recording
	probe, err := os.CreateTemp(o.recordDir, ".agui-mock-write-probe-*")
	if err != nil {
		var pathErr *fs.PathError
		if errors.As(err, &pathErr) {
			err = pathErr.Err // the probe's name says nothing
		}
		return nil, fmt.Errorf("-record-dir %q must be writable by uid %d: %w", o.recordDir, os.Geteuid(), err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return recorder.New(recorder.Config{Upstream: u, OutDir: o.recordDir, Redact: redact, Dedupe: o.dedupe, Logger: logger, Progress: progress, MaxBytes: o.recMaxSize})
}

func prefixAll(base string, routes []string) []string {
	out := make([]string, len(routes))
	for i, r := range routes {
		out[i] = "POST " + base + r
	}
	return out
}

// gcFloor is how far above the live heap the collector's goal is kept at least. A
// short run leaves a few KiB of garbage, and with the mock's live heap of a few MiB Go
// would collect every few hundred runs; the floor makes that several times rarer, and
// never adds more than itself to the memory the server takes.
const gcFloor = 32 << 20

// loadAtStart makes the first load with the garbage collector held back. A load is a
// burst of short-lived garbage (every scenario is dry-run against the AG-UI rules), and
// collecting a quarter as often starts a server with 1,000 files about a third sooner.
// A GOGC the user set higher, or off, is left alone.
func loadAtStart(load func() (*scenarios.Set, error)) (*scenarios.Set, error) {
	const loadGCPercent = 400
	if before := debug.SetGCPercent(loadGCPercent); before < 0 || before > loadGCPercent {
		debug.SetGCPercent(before)
	} else {
		defer debug.SetGCPercent(before)
	}
	return load()
}
