//go:build unix

package cmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/agui-mock/agui-mock/internal/testkit"
)

// startUnderLimit starts bin through sh after `ulimit <ulimit>`, with args, and returns
// its URL and its ready line, once it is ready.
func startUnderLimit(t *testing.T, bin, ulimit string, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"-c", `ulimit ` + ulimit + ` && exec "$0" "$@"`, bin, "--addr", "127.0.0.1:0", "--watch", "off"}, args...)...)
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	url, ok := testkit.ListeningURL(line)
	if !ok {
		rest, _ := io.ReadAll(stderr)
		t.Fatalf("no listening line: %q\n%s", line, rest)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	log := bufio.NewScanner(stderr)
	for log.Scan() {
		if strings.Contains(log.Text(), "msg=ready ") {
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			return url, log.Text()
		}
	}
	t.Fatal("the server exited before it was ready")
	return "", ""
}

// loggedLimit is the descriptor limit a ready line says the default came from.
var loggedLimit = regexp.MustCompile(`maxStreams="\d+ \((?:from descriptor limit|the default's cap; descriptor limit) (\d+)`)

// TestTheDefaultMaxStreamsFollowsTheDescriptorLimit runs the real binary under a
// descriptor limit of 512: it allows the 256 streams the limit leaves room for, says so
// in its start log, and answers the next one 503 too_many_streams, not a failure to
// accept. A lowered soft limit alone is raised by Go to the hard one, which the default
// then follows.
func TestTheDefaultMaxStreamsFollowsTheDescriptorLimit(t *testing.T) {
	t.Parallel()
	var own syscall.Rlimit // the test's: its hard limit is the server's before sh lowers it
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &own); err != nil {
		t.Fatal(err)
	}
	if own.Max < 1024 {
		t.Fatalf("the hard descriptor limit is %d: this test lowers it to 512 and needs the room to show a raise past it", own.Max)
	}
	bin := testkit.Binary(t)
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "hold.yaml"), "match: {message: hold}\ntiming: {firstEvent: 0, firstToken: 0}\nsteps:\n  - text: held\n  - pause: 1h\n")

	t.Run("soft and hard limit 512", func(t *testing.T) {
		url, ready := startUnderLimit(t, bin, "-n 512", "--no-builtin", "--scenarios", dir)
		if want := `maxStreams="256 (from descriptor limit 512, less 256 kept for listeners, files and other connections)"`; !strings.Contains(ready, want) {
			t.Fatalf("the ready line lacks %s:\n%s", want, ready)
		}
		var held sync.WaitGroup // the streams' readers, until cancel
		defer held.Wait()
		client := &http.Client{Transport: &http.Transport{}}
		defer client.CloseIdleConnections()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		hold := func(i int) *http.Response {
			body := fmt.Sprintf(`{"threadId":"t%d","messages":[{"role":"user","content":"hold"}]}`, i)
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/agui/chat", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("stream %d: %v", i, err)
			}
			return resp
		}
		for i := range 256 {
			resp := hold(i)
			if resp.StatusCode != http.StatusOK {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("stream %d of the 256 allowed: %s %s", i+1, resp.Status, b)
			}
			held.Go(func() { _, _ = io.Copy(io.Discard, resp.Body); resp.Body.Close() })
		}
		resp := hold(256)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), `"too_many_streams"`) || resp.Header.Get("Retry-After") != "1" {
			t.Errorf("the 257th stream: %s %s (Retry-After %q)", resp.Status, b, resp.Header.Get("Retry-After"))
		}
	})

	t.Run("a soft limit of 512 under a hard one Go raises it to", func(t *testing.T) {
		_, ready := startUnderLimit(t, bin, "-Sn 512", "--no-builtin", "--scenarios", dir)
		m := loggedLimit.FindStringSubmatch(ready)
		if m == nil {
			t.Fatalf("the ready line names no descriptor limit:\n%s", ready)
		}
		if limit, _ := strconv.ParseUint(m[1], 10, 64); limit <= 512 || limit > uint64(own.Max) {
			t.Errorf("the default followed the descriptor limit %d; want the hard limit %d, or just under it", limit, own.Max)
		}
	})

	t.Run("given: wins", func(t *testing.T) {
		_, ready := startUnderLimit(t, bin, "-n 512", "--no-builtin", "--scenarios", dir, "--max-streams", "1000")
		if want := `maxStreams="1000 (-max-streams; the descriptor limit 512 leaves room for 256)"`; !strings.Contains(ready, want) {
			t.Errorf("the ready line lacks %s:\n%s", want, ready)
		}
	})
}
