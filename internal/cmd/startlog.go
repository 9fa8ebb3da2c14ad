package cmd

import (
	"fmt"
	"log/slog"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/server"
)

// logEndpoints logs the URLs the server answers at, and at debug level each scenario.
// Serving, those are the routes its scenarios run at; recording, every POST goes to the
// agent whatever its path, so the line names the agent instead of routes that only
// scenarios it does not play would answer, and no scenario is listed.
func logEndpoints(logger *slog.Logger, base string, set *scenarios.Set, c *serveConfig) {
	inspector := base + server.AdminPrefix + "/ui"
	if c.server.RecordAll {
		logger.Info("endpoints", "run", "POST "+base+"/<any path> → "+c.upstream,
			"inspector", inspector,
			"history", "POST "+base+server.HistoryPath+" → "+c.upstream,
			"cancel", "POST "+base+server.CancelPath+" → "+c.upstream)
		return
	}
	logger.Info("endpoints", "run", strings.Join(prefixAll(base, set.Routes()), " "),
		"inspector", inspector,
		"history", "POST "+base+server.HistoryPath, "cancel", "POST "+base+server.CancelPath,
		"scenarios", "GET "+base+server.AdminPrefix+"/scenarios")
	for _, sc := range set.Scenarios() {
		logger.Debug("scenario", "id", sc.ID, "source", sc.Source.String(), "priority", sc.Priority)
	}
}

// logRecording is the ready line of record: what it proxies to and where it writes.
// It names no scenarios, seed or speed, which the runs it relays do not use: every run
// is the agent's.
func logRecording(logger *slog.Logger, c *serveConfig, streams string) {
	logger.Info("ready", "recording", "every request is proxied to the agent and each session written as a scenario",
		"upstream", c.upstream, "recordDir", c.recordDir,
		"auth", c.server.AuthToken != "", "admin", adminGuard(c.server), "maxStreams", streams)
}

// logStarted logs that the server serves, as /_mock/readyz sees it: ready with
// scenarios, and how many from where; not ready without any. streams says how many
// streams it allows at once, and why (maxStreams).
func logStarted(logger *slog.Logger, loaded []*scenarios.Scenario, sources []scenarios.Source, c *serveConfig, streams string) {
	seed := "none: every thread differs"
	if c.server.Seed != 0 {
		seed = strconv.FormatUint(c.server.Seed, 10)
	}
	n := len(loaded)
	if c.server.RecordAll && n > 0 {
		logRecording(logger, c, streams)
		return
	}
	attrs := []any{"scenarios", n, "from", scenarioOrigins(loaded, sources), "seed", seed, "speed", c.server.Speed, "strict", c.server.Strict, "auth", c.server.AuthToken != "", "admin", adminGuard(c.server), "maxStreams", streams}
	if c.fixedTime != "" {
		attrs = append(attrs, "fixedTime", c.fixedTime)
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
func adminGuard(cfg server.Config) string {
	switch {
	case cfg.AdminToken != "":
		return "token of -admin-token"
	case cfg.AuthToken != "":
		return "token of -auth-token"
	}
	return "no token: open to clients that are no web page; pages only from origins -cors-origins lists"
}

// prefixAll is each of routes below base, as the log names a run endpoint.
func prefixAll(base string, routes []string) []string {
	out := make([]string, len(routes))
	for i, r := range routes {
		out[i] = "POST " + base + r
	}
	return out
}
