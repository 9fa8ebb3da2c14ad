package cmd

import (
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/agui-mock/agui-mock/internal/logline"
	"github.com/agui-mock/agui-mock/server"
)

// newLogger is the logger of -log-format and -log-level, writing to w.
func newLogger(format string, level slog.Leveler, w io.Writer) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{Level: level}
	switch format {
	case "text": // as slog's handlers write, and a run's line in a third of their time
		return slog.New(logline.NewText(w, opts)), nil
	case "json":
		return slog.New(logline.NewJSON(w, opts)), nil
	}
	return nil, checkFlags(flagCheck{"log-format", format, false, "text or json"})
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
