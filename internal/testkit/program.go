package testkit

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Program is the program's entry point as internal/cmd.Run is: its arguments, its
// environment (NAME=value), its output; it returns the exit code.
type Program func(ctx context.Context, args, env []string, stdout, stderr io.Writer) int

// Env is the environment of vars as os.Environ lists one, NAME=value, sorted.
func Env(vars map[string]string) []string {
	var e []string
	for k, v := range vars {
		e = append(e, k+"="+v)
	}
	slices.Sort(e)
	return e
}

// Start runs program with args and the environment vars until the test ends, its log
// written to stderr, and returns the base URL its start-up line announces. The test
// fails if the program exits other than with 0 once stopped.
func Start(t testing.TB, program Program, args []string, vars map[string]string, stderr io.Writer) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	outR, outW := io.Pipe()
	done := make(chan int)
	go func() {
		code := program(ctx, args, Env(vars), outW, stderr)
		outW.Close()
		done <- code
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("exit code %d after shutdown", code)
		}
	})
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("no start-up line: %v", err)
	}
	go io.Copy(io.Discard, outR)
	url, ok := ListeningURL(line)
	if !ok {
		t.Fatalf("start-up line %q", line)
	}
	return url
}

// ListeningURL reads the URL from the line a server announces itself with: "agui-mock
// (or floor) listening on URL", or its JSON record with a url member (-log-format json).
func ListeningURL(line string) (string, bool) {
	var record struct{ Msg, URL string }
	if json.Unmarshal([]byte(line), &record) == nil && strings.HasSuffix(record.Msg, " listening on "+record.URL) {
		return record.URL, record.URL != ""
	}
	_, url, ok := strings.Cut(strings.TrimSpace(line), " listening on ") // agui-mock, or the floor
	return url, ok
}

// WriteFile writes content to path, creating its directory, or fails the test.
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
