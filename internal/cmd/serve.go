package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime/debug"
	"slices"
	"time"

	"github.com/agui-mock/agui-mock/internal/gcpace"
	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/server"
	"github.com/agui-mock/agui-mock/watcher"
)

// runServe is the serve command: AG-UI run endpoints played from scenarios.
func runServe(ctx context.Context, in invocation) int {
	return runServer(ctx, in, newServeConfig(false))
}

// runRecord is the record command: the server with every request proxied to the agent
// and recorded.
func runRecord(ctx context.Context, in invocation) int {
	return runServer(ctx, in, newServeConfig(true))
}

// runServer reads the flags of serve or record into c and serves.
func runServer(ctx context.Context, in invocation, c *serveConfig) int {
	fs := serveFlags(c, in.stderr)
	if _, code := parseFlags(fs, in.args, false, in.lookupEnv, in.stderr); code >= 0 {
		return code
	}
	if err := serve(ctx, c, in.stdout, in.stderr); err != nil {
		reportExit(c.logFormat, in.stderr, err)
		return 1
	}
	return 0
}

// serve serves until ctx is done, as c says, or returns why it cannot.
func serve(ctx context.Context, c *serveConfig, stdout, stderr io.Writer) error {
	cfg := &c.server
	logger, err := newLogger(c.logFormat, c.logLevel, stderr)
	if err != nil {
		return err
	}
	if err := checkServeFlags(c); err != nil {
		return err
	}
	if err := checkTemplateLimits(cfg.TemplateLimits); err != nil {
		return err
	}
	if err := checkMemoryLimits(*cfg); err != nil {
		return err
	}
	if err := checkIDFlags(cfg.Reconnect); err != nil {
		return err
	}
	redact, err := compileRedactions(c.redact)
	if err != nil {
		return err
	}
	fixedTime, err := parseFixedTime(c.fixedTime)
	if err != nil {
		return err
	}
	for _, dir := range c.dirs {
		if err := checkScenarioDir(dir); err != nil {
			return err
		}
	}
	rec, err := newRecorder(c, redact, logger, printer(stdout, c.logFormat))
	if err != nil {
		return err
	}
	dirs, err := servedDirs(c)
	if err != nil {
		return err
	}
	var own []scenarios.Source
	for _, dir := range dirs {
		own = append(own, scenarios.Source{FS: os.DirFS(dir), Root: ".", Label: dir})
	}
	builtin := !c.noBuiltin
	if builtin && c.recMissing && !cfg.RecordAll {
		// they would answer what the agent is to be recorded answering
		builtin = false
		logger.Info("the built-in scenarios are left out, so that what your scenarios do not answer is recorded")
	}
	sources := setSources(own, builtin)
	memory := scenarios.NewMemory(scenarios.DefaultRefusals) // the reloads go on with what the first load read
	load := func() (*scenarios.Set, error) {
		return scenarios.LoadRemembering(ctx, cfg.TemplateLimits, memory, nil, sources...)
	}
	var watch *watcher.Watcher
	if len(dirs) > 0 && c.watch != watcher.ModeOff {
		// started before the load, so no change between the two goes unnoticed
		wcfg := watcher.Config{Roots: dirs, Mode: c.watch, Debounce: 100 * time.Millisecond, PollInterval: c.pollEvery, Include: scenarios.IsScenarioFile, Logger: logger}
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
	// what the flags give as the command line spells it, as the server takes it
	cfg.FixedTime = fixedTime
	cfg.RuntimePath = runtimePath(cfg.RuntimePath) // checked by checkServeFlags
	cfg.CORSOrigins = corsOrigins(c.cors, cfg.CORSOrigins)
	// and what serving makes
	cfg.Logger = logger
	cfg.Recorder = rec
	cfg.Sources = sources
	cfg.Memory = memory
	limit, known := descriptorLimit()
	var streamsWhy string
	cfg.MaxStreams, streamsWhy = maxStreams(c.maxStreams, limit, known, cfg.RecordAll || c.recMissing)
	srv := server.New(*cfg, set)

	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	base := "http://" + ln.Addr().String()
	announce(stdout, c.logFormat, base)
	logEndpoints(logger, base, set, c)
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
	logStarted(logger, set.Scenarios(), sources, c, streamsWhy)
	return srv.Serve(ctx, ln, c.shutdownIn)
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
