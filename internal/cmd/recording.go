package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/agui-mock/agui-mock/recorder"
)

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

// newRecorder builds the recorder the settings ask for, or none. It creates the record
// directory, so that a path that cannot be one fails now rather than at the first
// recording.
func newRecorder(c *serveConfig, redact []*regexp.Regexp, logger *slog.Logger, progress io.Writer) (*recorder.Recorder, error) {
	if !c.server.RecordAll && !c.recMissing {
		if c.upstream != "" {
			return nil, fmt.Errorf("-upstream is for recording: use agui-mock record, or serve -record-missing")
		}
		return nil, nil
	}
	if c.upstream == "" {
		return nil, fmt.Errorf("recording needs -upstream, the URL of the real agent")
	}
	if err := checkFlags(flagCheck{"upstream", c.upstream, isHTTPURL(c.upstream), "the agent's base URL, http:// or https://"}); err != nil {
		return nil, err
	}
	u, _ := url.Parse(c.upstream) // checked just above
	if err := os.MkdirAll(c.recordDir, 0o755); err != nil {
		return nil, fmt.Errorf("-record-dir must be a directory, or a path where one can be created, got %q: %w", c.recordDir, err)
	}
	// a directory that takes no files (a read-only mount) fails now, not at the first recording
	probe, err := os.CreateTemp(c.recordDir, ".agui-mock-write-probe-*")
	if err != nil {
		var pathErr *fs.PathError
		if errors.As(err, &pathErr) {
			err = pathErr.Err // the probe's name says nothing
		}
		return nil, fmt.Errorf("-record-dir %q must be writable by uid %d: %w", c.recordDir, os.Geteuid(), err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return recorder.New(recorder.Config{Upstream: u, OutDir: c.recordDir, Redact: redact, Dedupe: c.dedupe, Logger: logger, Progress: progress, MaxBytes: c.recMaxSize})
}

// servedDirs returns the directories whose scenarios are served and watched: the
// scenario directories and, with -record-missing, the record directory when none of
// them holds it already, so that a recording replays on the next identical request. The
// record directory exists by then (newRecorder creates it), to be watched from the start.
func servedDirs(c *serveConfig) ([]string, error) {
	if !c.recMissing || c.server.RecordAll {
		return c.dirs, nil
	}
	rec, err := resolvedPath(c.recordDir)
	if err != nil {
		return nil, fmt.Errorf("-record-dir: %w", err)
	}
	for _, dir := range c.dirs {
		scen, err := resolvedPath(dir)
		if err != nil {
			return nil, fmt.Errorf("scenario directory: %w", err)
		}
		if rel, err := filepath.Rel(scen, rec); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return c.dirs, nil // loaded and watched with the scenario directory
		}
	}
	return append(slices.Clone(c.dirs), c.recordDir), nil
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
