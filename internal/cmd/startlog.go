package cmd

import (
	"log/slog"
	"strings"

	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/server"
)

// logEndpoints logs the URLs the server answers at, and at debug level each scenario.
// Serving, those are the routes its scenarios run at; recording, every POST goes to the
// agent whatever its path, so the line names the agent instead of routes that only
// scenarios it does not play would answer, and no scenario is listed.
func logEndpoints(logger *slog.Logger, base string, set *scenarios.Set, o options) {
	inspector := base + server.AdminPrefix + "/ui"
	if o.recordAll {
		logger.Info("endpoints", "run", "POST "+base+"/<any path> → "+o.upstream,
			"inspector", inspector,
			"history", "POST "+base+server.HistoryPath+" → "+o.upstream,
			"cancel", "POST "+base+server.CancelPath+" → "+o.upstream)
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
func logRecording(logger *slog.Logger, o options, streams string) {
	logger.Info("ready", "recording", "every request is proxied to the agent and each session written as a scenario",
		"upstream", o.upstream, "recordDir", o.recordDir,
		"auth", o.authToken != "", "admin", adminGuard(o), "maxStreams", streams)
}
