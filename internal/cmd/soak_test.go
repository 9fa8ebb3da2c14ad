package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/internal/testkit"
)

// soakTest skips a soak test under -short: go test -short runs none of them.
func soakTest(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("a soak test: not run with -short")
	}
}

// The soak tests run short by default; SOAK=long runs them at full size.
func soakSize(short, long int) int {
	if os.Getenv("SOAK") == "long" {
		return long
	}
	return short
}

// stream posts a run and reads its events until the end, or until stopAfter events,
// when it aborts. It returns the event types it saw.
func stream(ctx context.Context, url, body string, header map[string]string, stopAfter int) ([]string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
	}
	var types []string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, `"type":"`); strings.HasPrefix(line, "data: ") && i >= 0 {
			t := line[i+8:]
			types = append(types, t[:strings.IndexByte(t, '"')])
			if stopAfter > 0 && len(types) >= stopAfter {
				return types, nil // abort mid-stream
			}
		}
	}
	return types, sc.Err()
}

func terminals(types []string) int {
	n := 0
	for _, t := range types {
		if t == "RUN_FINISHED" || t == "RUN_ERROR" {
			n++
		}
	}
	return n
}

func metric(t *testing.T, url, name string) float64 {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(body), "\n") {
		if rest, ok := strings.CutPrefix(line, name+" "); ok {
			var v float64
			fmt.Sscan(rest, &v)
			return v
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestSoakAbortedRuns aborts runs at random points: no stream may stay open, no
// goroutine may leak (TestMain checks), and memory returns to where it was.
func TestSoakAbortedRuns(t *testing.T) {
	soakTest(t)
	url := start(t, []string{"--addr", "127.0.0.1:0", "--metrics", "--max-threads", "100", "--log-format", "json", "--speed", "0.05"}, nil)
	runs := soakSize(500, 10000)
	warm := func(n int) {
		var wg sync.WaitGroup
		sem := make(chan struct{}, 50)
		for i := range n {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				_, _ = stream(context.Background(), url+"/agui/chat", `{"messages":[{"role":"user","content":"showcase"}]}`, nil, 1+rand.IntN(40))
				_ = i
			})
		}
		wg.Wait()
	}
	warm(100)
	before := heapInUse()
	warm(runs)
	testkit.Eventually(t, "every aborted stream is closed", func() bool { return metric(t, url, "agui_mock_active_streams") == 0 })
	after := heapInUse()
	if after > before+16<<20 {
		t.Errorf("heap in use grew from %d to %d bytes over %d aborted runs", before, after, runs)
	}
	t.Logf("%d aborted runs: heap %d → %d bytes", runs, before, after)
}

// TestSoakEditsWhileStreaming edits scenario files, broken versions included, while
// streams run: no stream fails, and no reload serves a partial set.
func TestSoakEditsWhileStreaming(t *testing.T) {
	soakTest(t)
	dir := t.TempDir()
	const files = 20
	for i := range files {
		testkit.WriteFile(t, filepath.Join(dir, fmt.Sprintf("s%02d.yaml", i)), fmt.Sprintf("id: s%02d\nmatch: {message: '^s%02d$'}\ntiming: {tokensPerSecond: 200}\nsteps: [{text: 'version zero of a scenario that streams a few words'}]\n", i, i))
	}
	url := start(t, []string{"--addr", "127.0.0.1:0", "--no-builtin", "--scenarios", dir, "--log-format", "json"}, nil)
	edits, streams := soakSize(100, 1000), soakSize(100, 1000)
	var failed, partial atomic.Int64
	stop := make(chan struct{})
	var watchers sync.WaitGroup
	watchers.Go(func() { // never fewer scenarios than files: a partial set would show
		for {
			select {
			case <-stop:
				return
			default:
			}
			resp, err := http.Get(url + "/_mock/status")
			if err != nil {
				continue
			}
			var s loadStatus
			_ = json.NewDecoder(resp.Body).Decode(&s)
			resp.Body.Close()
			if s.Scenarios != files {
				partial.Add(1)
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
	var clients sync.WaitGroup
	for i := range streams {
		clients.Go(func() {
			types, err := stream(context.Background(), url+"/agui/chat", fmt.Sprintf(`{"messages":[{"role":"user","content":"s%02d"}]}`, i%files), nil, 0)
			if err != nil || terminals(types) != 1 {
				failed.Add(1)
			}
		})
	}
	for e := range edits {
		f := filepath.Join(dir, fmt.Sprintf("s%02d.yaml", e%files))
		content := fmt.Sprintf("id: s%02d\nmatch: {message: '^s%02d$'}\nsteps: [{text: 'version %d'}]\n", e%files, e%files, e)
		if e%7 == 3 {
			content = fmt.Sprintf("id: s%02d\nsteps:\n  - txt: broken %d\n", e%files, e)
		}
		if e%2 == 0 {
			saveAtomically(t, f, content)
		} else {
			testkit.WriteFile(t, f, content)
		}
		time.Sleep(2 * time.Millisecond)
	}
	for i := 1; i < files; i++ { // mend what the last edits broke
		saveAtomically(t, filepath.Join(dir, fmt.Sprintf("s%02d.yaml", i)), fmt.Sprintf("id: s%02d\nmatch: {message: '^s%02d$'}\nsteps: [{text: mended}]\n", i, i))
	}
	saveAtomically(t, filepath.Join(dir, "s00.yaml"), "id: s00\nmatch: {message: '^s00$'}\nsteps: [{text: final}]\n")
	clients.Wait()
	testkit.Eventually(t, "the final edit is served", func() bool { return ask(t, url, "s00") == "final" })
	close(stop)
	watchers.Wait()
	if failed.Load() != 0 || partial.Load() != 0 {
		t.Errorf("%d of %d streams failed, %d partial sets seen during %d edits", failed.Load(), streams, partial.Load(), edits)
	}
}

// TestSoakCancelAndResumeRace races resumes and cancels on one thread: every stream
// ends with exactly one terminal event, and the history stays consistent.
func TestSoakCancelAndResumeRace(t *testing.T) {
	soakTest(t)
	url := start(t, []string{"--addr", "127.0.0.1:0", "--log-format", "json", "--speed", "0.2"}, nil)
	rounds := soakSize(20, 200)
	first := `{"threadId":"race-%d","runId":"r1","messages":[{"id":"u1","role":"user","content":"Search for ocean wave videos and trim the first 10 seconds"}],"forwardedProps":{"scenario_name":"media_management"}}`
	resume := `{"threadId":"race-%d","runId":"r2","messages":[],"resume":[{"interruptId":"interruptId-001","status":"resolved"},{"interruptId":"interruptId-002","status":"cancelled"}]}`
	var bad atomic.Int64
	var wg sync.WaitGroup
	for i := range rounds {
		wg.Go(func() {
			types, err := stream(context.Background(), url+"/agui/chat", fmt.Sprintf(first, i), nil, 0)
			if err != nil || terminals(types) != 1 {
				bad.Add(1)
				return
			}
			var inner sync.WaitGroup
			inner.Go(func() {
				types, err := stream(context.Background(), url+"/agui/chat", fmt.Sprintf(resume, i), nil, 0)
				if err == nil && terminals(types) != 1 {
					bad.Add(1) // a refused resume (409) is fine; a stream must end exactly once
				}
			})
			time.Sleep(time.Duration(rand.IntN(30)) * time.Millisecond)
			req, _ := http.NewRequest("POST", url+"/agui/cancel", strings.NewReader(fmt.Sprintf(`{"threadId":"race-%d"}`, i)))
			req.Header.Set("Content-Type", "application/json")
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
			inner.Wait()
			req, _ = http.NewRequest("POST", url+"/agui/history", strings.NewReader(fmt.Sprintf(`{"threadId":"race-%d"}`, i)))
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				bad.Add(1)
				return
			}
			var h struct {
				Running any
				Runs    []struct{ Outcome string }
			}
			_ = json.NewDecoder(resp.Body).Decode(&h)
			resp.Body.Close()
			if h.Running != nil || len(h.Runs) < 1 || len(h.Runs) > 2 {
				bad.Add(1)
			}
			for _, r := range h.Runs {
				if r.Outcome == "running" {
					bad.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if bad.Load() != 0 {
		t.Errorf("%d of %d races broke a stream or the history", bad.Load(), rounds)
	}
}

// TestSoakSigtermUnderLoad stops the real binary while many streams are open: every
// stream ends with RUN_ERROR and the process exits at once, not when its streams or its
// shutdown timeout would end (both an hour away), so well within Docker's 10 s.
func TestSoakSigtermUnderLoad(t *testing.T) {
	soakTest(t)
	t.Parallel()
	bin := testkit.Binary(t)
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "slow.yaml"), "match: {message: slow}\ntiming: {firstEvent: 0, firstToken: 0}\nsteps:\n  - text: started\n  - pause: 1h\n  - text: never\n")
	cmd := exec.Command(bin, "--addr", "127.0.0.1:0", "--scenarios", dir, "--log-format", "json", "--shutdown-timeout", "1h")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	url, _ := testkit.ListeningURL(line)
	n := soakSize(200, 1000)
	results := make(chan []string, n)
	var opened sync.WaitGroup
	for range n {
		opened.Add(1)
		go func() {
			req, _ := http.NewRequest("POST", url+"/agui/chat", strings.NewReader(`{"messages":[{"role":"user","content":"slow"}]}`))
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				opened.Done()
				results <- nil
				return
			}
			defer resp.Body.Close()
			var types []string
			sc := bufio.NewScanner(resp.Body)
			signalled := false
			for sc.Scan() {
				if i := strings.Index(sc.Text(), `"type":"`); i >= 0 {
					t := sc.Text()[i+8:]
					types = append(types, t[:strings.IndexByte(t, '"')])
					if !signalled && strings.HasPrefix(t, "TEXT_MESSAGE_END") {
						signalled = true
						opened.Done()
					}
				}
			}
			if !signalled {
				opened.Done()
			}
			results <- types
		}()
	}
	opened.Wait()
	stopped := time.Now()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	awaitExit(t, cmd, 5*time.Minute, "") // the streams pause for an hour
	took := time.Since(stopped)
	ended := 0
	for range n {
		types := <-results
		if len(types) > 0 && types[len(types)-1] == "RUN_ERROR" && terminals(types) == 1 {
			ended++
		}
	}
	if ended != n {
		t.Errorf("%d of %d streams ended with RUN_ERROR", ended, n)
	}
	t.Logf("%d open streams, stopped in %v", n, took.Round(time.Millisecond))
}
