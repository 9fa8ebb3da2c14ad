// Command attack plays the red team's attacks of resource exhaustion against a running
// agui-mock and measures, under each, the worst latency of its health check and the
// peak RSS of its process, started with the GOMEMLIMIT of the shipped deployment. It is
// a measurement, not a test: bench/attacks.sh builds the binary and runs it, and
// docs/security.md keeps the figures. Linux only (it reads and resets /proc/PID's peak
// RSS).
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	bin := flag.String("bin", "", "the agui-mock binary to attack")
	memLimit := flag.String("gomemlimit", "450MiB", "the GOMEMLIMIT the binary runs with")
	only := flag.String("only", "", "run only the attacks whose names contain this")
	keepLog := flag.String("log", "", "copy the mock's log here when done")
	fresh := flag.Bool("fresh", false, "a new process for each attack, rather than one process for them all, one after the other")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "usage: attack -bin path/to/agui-mock [-- serve flags]")
		os.Exit(2)
	}
	if err := run(*bin, *memLimit, *only, *keepLog, *fresh, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "attack:", err)
		os.Exit(1)
	}
}

// target is the agui-mock under attack.
type target struct {
	url     string
	pid     int
	dir     string // its scenario directory, watched
	logPath string
}

// attack is one attack: what it does, and what it found besides latency and memory.
type attack struct {
	name string
	play func(t *target) (string, error)
}

func run(bin, memLimit, only, keepLog string, fresh bool, serveArgs []string) error {
	mode := "one process, the attacks one after the other"
	if fresh {
		mode = "a new process for each attack"
	}
	fmt.Printf("agui-mock %s, GOMEMLIMIT=%s, %s\n\n", strings.Join(append([]string{bin}, serveArgs...), " "), memLimit, mode)
	fmt.Printf("| attack | worst /_mock/healthz | peak RSS | found |\n| --- | --- | --- | --- |\n")
	var t *target
	stop := func() {}
	defer func() { stop() }()
	for _, a := range attacks() {
		if only != "" && !strings.Contains(a.name, only) {
			continue
		}
		if t == nil || fresh {
			stop()
			var err error
			if t, stop, err = start(bin, memLimit, serveArgs, keepLog); err != nil {
				return err
			}
		}
		if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", t.pid), []byte("5"), 0); err != nil {
			return fmt.Errorf("resetting the peak RSS: %w", err)
		}
		probe := startProbe(t.url)
		found, err := a.play(t)
		worst := probe.stop()
		if err != nil {
			found = "error: " + err.Error()
		}
		fmt.Printf("| %s | %s | %s | %s |\n", a.name, worst.Round(time.Millisecond), mib(peakRSS(t.pid)), found)
	}
	return nil
}

// start runs the binary on a free port, its scenarios in a fresh directory that it
// watches, and waits until it says where it listens; stop stops it and, given keepLog,
// copies its log there.
func start(bin, memLimit string, serveArgs []string, keepLog string) (*target, func(), error) {
	dir, err := os.MkdirTemp("", "agui-mock-attack-")
	if err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "headers.yaml"), []byte(headerScenarios), 0o644); err != nil {
		return nil, nil, err
	}
	t := &target{dir: dir, logPath: filepath.Join(dir, "mock.log")}
	logFile, err := os.Create(t.logPath)
	if err != nil {
		return nil, nil, err
	}
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--scenarios", filepath.Join(dir, "s"), "--log-format", "json", "--speed", "0"}, serveArgs...)
	cmd := exec.Command(bin, args...)
	if err := os.Mkdir(filepath.Join(dir, "s"), 0o755); err != nil {
		return nil, nil, err
	}
	if err := os.Rename(filepath.Join(dir, "headers.yaml"), filepath.Join(dir, "s", "headers.yaml")); err != nil {
		return nil, nil, err
	}
	cmd.Env = append(os.Environ(), "GOMEMLIMIT="+memLimit)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.Stderr = logFile
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		logFile.Close()
		if keepLog != "" { // the last process's
			if log, err := os.ReadFile(t.logPath); err == nil {
				_ = os.WriteFile(keepLog, log, 0o644)
			}
		}
		os.RemoveAll(dir)
	}
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if i := strings.Index(lines.Text(), "http://"); i >= 0 {
			t.url, _, _ = strings.Cut(strings.Fields(lines.Text()[i:])[0], `"`)
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	if t.url == "" {
		stop()
		return nil, nil, errors.New("the mock did not say where it listens")
	}
	t.pid = cmd.Process.Pid
	return t, stop, nil
}

// headerScenarios match on headers, so that runs that miss them are explained.
const headerScenarios = `
id: tenant
match: {message: nothing-else, headers: {x-tenant: '^acme$'}}
steps: [{text: tenant}]
---
id: staging
match: {message: nothing-else, headers: {authorization: '^Bearer test-'}}
steps: [{text: staging}]
---
id: keyed
match: {message: nothing-else, headers: {x-api-key: '^k-'}}
steps: [{text: keyed}]
`

// token is the credential the near-miss attack sends, to look for in the log.
const token = "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"

func attacks() []attack {
	return []attack{
		{"100 runs past 3 header scenarios, 3 × 20 KiB headers (a credential among them)", func(t *target) (string, error) {
			before := fileSize(t.logPath)
			pad := strings.Repeat("v", 20<<10)
			h := map[string]string{"Authorization": "Bearer " + token + pad, "X-Api-Key": "sk-" + pad, "X-Tenant": pad}
			statuses, err := runs(t, 100, 8, "/agui/chat", func(i int) string { return runBody(fmt.Sprintf("near-%d", i), "hello") }, h)
			log, _ := os.ReadFile(t.logPath)
			return fmt.Sprintf("%s; log +%s; credential in the log: %v", statuses, mib(fileSize(t.logPath)-before), bytes.Contains(log, []byte(token))), err
		}},
		{"100 runs with a 900 KiB header value", func(t *target) (string, error) {
			before := fileSize(t.logPath)
			pad := strings.Repeat("v", 900<<10)
			statuses, err := runs(t, 100, 8, "/agui/chat", func(i int) string { return runBody(fmt.Sprintf("huge-%d", i), "hello") }, map[string]string{"X-Tenant": pad})
			return fmt.Sprintf("%s; log +%s", statuses, mib(fileSize(t.logPath)-before)), err
		}},
		{"120 runs on new threads, an 8 MiB user message each", func(t *target) (string, error) {
			return runs(t, 120, 4, "/agui/chat", func(i int) string { return runBody(fmt.Sprintf("big-%d", i), strings.Repeat("x", 8<<20)) }, nil)
		}},
		{"120 runs of the CopilotKit runtime on new threads, 8 MiB each", func(t *target) (string, error) {
			return runs(t, 120, 4, "/copilotkit/agent/default/run", func(i int) string { return runBody(fmt.Sprintf("kept-%d", i), strings.Repeat("x", 8<<20)) }, nil)
		}},
		{"64 runs of 16 clients at once, an 8 MiB user message each", func(t *target) (string, error) {
			return runs(t, 64, 16, "/agui/chat", func(i int) string { return runBody(fmt.Sprintf("many-%d", i), strings.Repeat("x", 8<<20)) }, nil)
		}},
		{"15 showcase runs echoing an 8 MiB message", func(t *target) (string, error) {
			return runs(t, 15, 1, "/agui/chat", func(i int) string { return runBody(fmt.Sprintf("show-%d", i), "showcase "+strings.Repeat("x", 8<<20)) }, nil)
		}},
		{"300 connections sending 1 MiB of headers", func(t *target) (string, error) {
			return holdHeaders(t, 300, 1<<20)
		}},
		{"300 connections holding 60 KiB of unfinished headers for 3 s", func(t *target) (string, error) {
			return holdHeaders(t, 300, 60<<10)
		}},
		{"a 3.9 MiB scenario file of 95,000 subagent steps, then an unrelated save", func(t *target) (string, error) {
			return fanOut(t)
		}},
	}
}

// runBody is a run input with one user message, as strict as the CopilotKit runtime
// wants it.
func runBody(thread, message string) string {
	return `{"threadId":"` + thread + `","runId":"r","tools":[],"context":[],"state":{},"forwardedProps":{},"messages":[{"id":"u1","role":"user","content":"` + message + `"}]}`
}

// runs posts n runs, parallel at a time, reading each stream to its end, and counts the
// answers by status.
func runs(t *target, n, parallel int, path string, body func(i int) string, header map[string]string) (string, error) {
	var mu sync.Mutex
	counts := map[int]int{}
	var firstErr error
	next := make(chan int)
	var wg sync.WaitGroup
	for range parallel {
		wg.Go(func() {
			for i := range next {
				status, err := post(t.url+path, body(i), header)
				mu.Lock()
				counts[status]++
				if err != nil && firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	var parts []string
	for status, count := range counts {
		parts = append(parts, fmt.Sprintf("%d × %d", count, status))
	}
	return strings.Join(parts, ", "), firstErr
}

func post(url, body string, header map[string]string) (int, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}

// holdHeaders opens n connections that each send size bytes of headers without ending
// them, holds them 3 s, and counts how the server answered.
func holdHeaders(t *target, n, size int) (string, error) {
	host := strings.TrimPrefix(t.url, "http://")
	request := []byte("GET /_mock/healthz HTTP/1.1\r\nHost: localhost\r\nX-Filler: " + strings.Repeat("f", size))
	var wg sync.WaitGroup
	var mu sync.Mutex
	answers := map[string]int{}
	for range n {
		wg.Go(func() {
			conn, err := net.Dial("tcp", host)
			if err != nil {
				mu.Lock()
				answers["dial error"]++
				mu.Unlock()
				return
			}
			defer conn.Close()
			_, _ = conn.Write(request)
			_ = conn.SetReadDeadline(time.Now().Add(3 * time.Second))
			line, err := bufio.NewReader(conn).ReadString('\n')
			answer := strings.TrimSpace(line)
			if err != nil && answer == "" {
				answer = "held, no answer"
			}
			mu.Lock()
			answers[answer]++
			mu.Unlock()
		})
	}
	wg.Wait()
	var parts []string
	for a, count := range answers {
		parts = append(parts, fmt.Sprintf("%d × %s", count, a))
	}
	return strings.Join(parts, ", "), nil
}

// fanOut writes a scenario file of 95,000 subagent steps into the watched directory and
// times its refusal, then saves an unrelated file and times the reload that follows.
func fanOut(t *target) (string, error) {
	var b strings.Builder
	b.WriteString("id: fan-out\nmatch: {message: fan-out}\nsteps:\n")
	for range 95000 {
		b.WriteString("  - subagent: {name: s, steps: [{text: x}]}\n")
	}
	refused, err := waitForLog(t, func() error {
		return os.WriteFile(filepath.Join(t.dir, "s", "fan-out.yaml"), []byte(b.String()), 0o644)
	}, "reload rejected", 120*time.Second)
	if err != nil {
		return "", err
	}
	again, err := waitForLog(t, func() error {
		return os.WriteFile(filepath.Join(t.dir, "s", "other.yaml"), []byte("id: other\nmatch: {message: other}\nsteps: [{text: other}]\n"), 0o644)
	}, "reload rejected", 120*time.Second)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%.1f MiB file refused %s after the write; the next save's reload %s after it", float64(b.Len())/(1<<20), refused.Round(time.Millisecond), again.Round(time.Millisecond)), nil
}

// waitForLog does something and waits until the log gains a line containing want.
func waitForLog(t *target, do func() error, want string, limit time.Duration) (time.Duration, error) {
	from := fileSize(t.logPath)
	began := time.Now()
	if err := do(); err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	for ctx.Err() == nil {
		f, err := os.Open(t.logPath)
		if err != nil {
			return 0, err
		}
		_, _ = f.Seek(from, io.SeekStart)
		tail, _ := io.ReadAll(f)
		f.Close()
		if bytes.Contains(tail, []byte(want)) {
			return time.Since(began), nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return 0, fmt.Errorf("no %q in the log within %s", want, limit)
}

// probe checks /_mock/healthz every 20 ms on a new connection, as a Kubernetes probe
// does, and keeps the worst latency.
type probe struct {
	done  chan struct{}
	ended chan time.Duration
}

func startProbe(url string) *probe {
	p := &probe{done: make(chan struct{}), ended: make(chan time.Duration)}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	go func() {
		worst := time.Duration(0)
		for {
			select {
			case <-p.done:
				p.ended <- worst
				return
			case <-time.After(20 * time.Millisecond):
			}
			began := time.Now()
			resp, err := client.Get(url + "/_mock/healthz")
			took := time.Since(began)
			if err == nil {
				resp.Body.Close()
			} else {
				took = client.Timeout
			}
			worst = max(worst, took)
		}
	}()
	return p
}

func (p *probe) stop() time.Duration {
	close(p.done)
	return <-p.ended
}

// peakRSS reads the process's peak resident set since its last reset, in bytes.
func peakRSS(pid int) int64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return -1
}

func fileSize(path string) int64 {
	info, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return info.Size()
}

func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }
