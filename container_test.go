package main

import (
	"bufio"
	"context"
	"debug/elf"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// There is no container engine where the tests run, so the image is tested by its parts:
// the Dockerfile builds with the same make target this test builds with, and the binary
// is run the way the image runs it — static, as the non-root user, configured by
// environment variables, probed by its own healthcheck, stopped with SIGTERM.

const nonRoot = 65532 // the distroless nonroot user

func TestDockerfileBuildsWhatTheTestsTest(t *testing.T) {
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"RUN make static OUT=/out/agui-mock",
		"FROM gcr.io/distroless/static-debian12:nonroot",
		"USER 65532:65532",
		`CMD ["/usr/local/bin/agui-mock", "healthcheck"]`,
		"AGUI_MOCK_ADDR=0.0.0.0:8000",
		"AGUI_MOCK_SCENARIOS=/scenarios",
		"STOPSIGNAL SIGTERM",
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the Dockerfile lacks %q", want)
		}
	}
}

func TestTheStaticBinaryRunsAsTheContainerDoes(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "agui-mock")
	if out, err := exec.Command("make", "static", "OUT="+bin).CombinedOutput(); err != nil {
		t.Fatalf("make static: %v\n%s", err, out)
	}
	info, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() > 15<<20 {
		t.Errorf("the binary is %d bytes; the image's must stay under 15 MB", info.Size())
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary is dynamically linked; distroless/static needs a static one")
		}
	}
	f.Close()

	scenarios := filepath.Join(dir, "scenarios")
	writeFile(t, filepath.Join(scenarios, "slow.yaml"), "match: {message: slow}\ntiming: {firstEvent: 0, firstToken: 0}\nsteps:\n  - text: started\n  - pause: 1m\n  - text: never\n")
	for _, p := range []string{filepath.Dir(dir), dir, scenarios, filepath.Join(scenarios, "slow.yaml")} {
		_ = os.Chmod(p, 0o755) // readable by the non-root user, like a mounted volume
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	env := append(os.Environ(), "AGUI_MOCK_ADDR="+addr, "AGUI_MOCK_SCENARIOS="+scenarios, "AGUI_MOCK_LOG_FORMAT=json")
	command := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		if os.Geteuid() == 0 { // as the image's USER; a non-root runner already is one
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nonRoot, Gid: nonRoot}}
		}
		return cmd
	}
	healthcheck := func() int {
		err := command("healthcheck").Run()
		if exit, ok := err.(*exec.ExitError); ok {
			return exit.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	}

	if code := healthcheck(); code != 1 {
		t.Errorf("healthcheck before the server runs exited %d, want 1", code)
	}
	srv := command("serve")
	stdout, _ := srv.StdoutPipe()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Process.Kill()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || !strings.Contains(line, addr) {
		t.Fatalf("start-up line %q, %v", line, err)
	}
	if code := healthcheck(); code != 0 {
		t.Errorf("healthcheck of a serving server exited %d, want 0", code)
	}

	// an open stream when SIGTERM comes
	resp, err := http.Post("http://"+addr+"/agui/chat", "application/json", strings.NewReader(`{"messages":[{"role":"user","content":"slow"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body := bufio.NewReader(resp.Body)
	for {
		line, err := body.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(line, "TEXT_MESSAGE_END") {
			break // the stream is in its long pause
		}
	}
	stopped := time.Now()
	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var rest strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() { <-ctx.Done(); resp.Body.Close() }()
	for {
		line, err := body.ReadString('\n')
		rest.WriteString(line)
		if err != nil {
			break
		}
	}
	if !strings.Contains(rest.String(), `"type":"RUN_ERROR"`) || !strings.Contains(rest.String(), "server_shutdown") {
		t.Errorf("the open stream did not end with RUN_ERROR:\n%s", rest.String())
	}
	if err := srv.Wait(); err != nil {
		t.Errorf("the server exited with %v after SIGTERM", err)
	}
	if took := time.Since(stopped); took > 10*time.Second {
		t.Errorf("stopping took %v; Docker kills after 10 s", took)
	}
	if code := healthcheck(); code != 1 {
		t.Errorf("healthcheck after the server stopped exited %d, want 1", code)
	}
	t.Logf("binary %s bytes, stopped in %v", strconv.FormatInt(info.Size(), 10), time.Since(stopped).Round(time.Millisecond))
}
