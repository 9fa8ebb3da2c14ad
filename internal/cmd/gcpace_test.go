package cmd

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/internal/testkit"
)

// gcTraceLine is a collection as GODEBUG=gctrace=1 reports it: the heap at its start,
// at its end and left live, and the goal it was started at, in MiB.
var gcTraceLine = regexp.MustCompile(`^gc \d+ .* (\d+)->(\d+)->(\d+) MB, (\d+) MB goal`)

// TestServeKeepsTheCollectorsGoalAboveTheFloor runs the real binary with Go's trace of
// collections on, plays short runs until it has collected a few times, and reads each
// collection's goal against what the one before left live: with no GOGC in the
// environment the goal is gcFloor above it; with GOGC=100 it is Go's own pace, twice a
// heap of a few MiB, far under the floor.
func TestServeKeepsTheCollectorsGoalAboveTheFloor(t *testing.T) {
	if testing.Short() {
		t.Skip("GC pacing of the real process: not run with -short")
	}
	t.Parallel()
	bin := testkit.Binary(t)
	const floorMiB = gcFloor >> 20
	for _, c := range []struct {
		gogc   string // "" for none in the environment
		paced  bool
		reason string
	}{
		{gogc: "", paced: true, reason: "no GOGC set: paced"},
		{gogc: "100", paced: false, reason: "a GOGC the user set is left alone"},
	} {
		t.Run(c.reason, func(t *testing.T) {
			headroom := headroomsAfterCollections(t, bin, c.gogc, 3)
			for i, h := range headroom {
				if c.paced && h < floorMiB-2 || !c.paced && h >= floorMiB-2 {
					t.Errorf("collection %d of the last: goal %d MiB above the live heap; want paced=%v against a floor of %d MiB (all: %v)", i+1, h, c.paced, floorMiB, headroom)
				}
			}
		})
	}
}

// headroomsAfterCollections starts bin, plays short runs on it until it has collected
// n+3 times, and returns, for each of the last n collections, how far its goal was
// above the live heap the one before left, in MiB.
func headroomsAfterCollections(t *testing.T, bin, gogc string, n int) []int {
	t.Helper()
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "short.yaml"), "match: {message: short}\ntiming: {firstEvent: 0, firstToken: 0}\nsteps:\n  - text: a short answer\n")
	cmd := exec.Command(bin, "--addr", "127.0.0.1:0", "--no-builtin", "--scenarios", dir, "--log-level", "warn", "--watch", "off")
	cmd.Env = []string{"GODEBUG=gctrace=1", "PATH=" + os.Getenv("PATH")}
	if gogc != "" {
		cmd.Env = append(cmd.Env, "GOGC="+gogc)
	}
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	url, ok := testkit.ListeningURL(line)
	if !ok {
		t.Fatalf("no listening line: %q", line)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()

	type collection struct{ live, goal int }
	collections := make(chan collection, 64)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := gcTraceLine.FindStringSubmatch(sc.Text()); m != nil {
				live, _ := strconv.Atoi(m[3])
				goal, _ := strconv.Atoi(m[4])
				collections <- collection{live: live, goal: goal}
			}
		}
		close(collections)
	}()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer client.CloseIdleConnections()
	stop := make(chan struct{})
	var players sync.WaitGroup
	for player := range 8 {
		players.Add(1)
		go func() {
			defer players.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				body := fmt.Sprintf(`{"threadId":"t-%d-%d","messages":[{"role":"user","content":"short"}]}`, player, i)
				req, _ := http.NewRequest(http.MethodPost, url+"/agui/chat", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-Agui-Mock-Speed", "0")
				resp, err := client.Do(req)
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	defer func() { close(stop); players.Wait() }()

	var seen []collection
	deadline := time.After(2 * time.Minute)
	// Up to two collections may come before the pacer is armed, while the server
	// starts: the first it sets a percent after is the third at the latest.
	for len(seen) < n+3 {
		select {
		case c, ok := <-collections:
			if !ok {
				t.Fatalf("the server stopped after %d collections", len(seen))
			}
			seen = append(seen, c)
		case <-deadline:
			t.Fatalf("only %d collections in 2 minutes of short runs", len(seen))
		}
	}
	var headroom []int
	for i := 3; i < len(seen); i++ {
		headroom = append(headroom, seen[i].goal-seen[i-1].live)
	}
	return headroom
}
