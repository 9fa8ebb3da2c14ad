package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The container itself is tested in the end-to-end suite (e2e/test/container.test.js),
// from the image `make image` builds offline out of this Dockerfile. What that image
// cannot show is the release recipe, which compiles in a Go image and runs on distroless:
// neither can be pulled where the tests run. Its defaults are checked here.
func TestDockerfileReleaseDefaults(t *testing.T) {
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	dockerfile := string(data)
	for _, want := range []string{
		"ARG RUNTIME_IMAGE=gcr.io/distroless/static-debian12:nonroot",
		"make static OUT=/out/agui-mock", // the target the offline image's binary is built with
	} {
		if !strings.Contains(dockerfile, want) {
			t.Errorf("the Dockerfile lacks %q", want)
		}
	}
	builder := regexp.MustCompile(`(?m)^ARG BUILDER_IMAGE=golang:(\S+)$`).FindStringSubmatch(dockerfile)
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(mod)
	if builder == nil || goVersion == nil {
		t.Fatal("no ARG BUILDER_IMAGE=golang:<version> in the Dockerfile, or no go line in go.mod")
	}
	if builder[1] != string(goVersion[1]) {
		t.Errorf("the release builds with golang:%s; go.mod asks for Go %s", builder[1], goVersion[1])
	}
}

// fakeDocker writes a docker CLI that records how it is called: with buildx it answers
// `buildx version` and builds through buildx; without, it is a Docker 23+ CLI lacking the
// plugin, which refuses BuildKit builds as the real one does. Its daemon runs amd64.
func fakeDocker(t *testing.T, buildx bool) (cli, log string) {
	t.Helper()
	dir := t.TempDir()
	cli, log = filepath.Join(dir, "docker"), filepath.Join(dir, "calls")
	script := `#!/bin/sh
log="` + log + `"
if [ "$1" = buildx ] && [ "$2" = version ]; then
  [ "` + fmt.Sprint(buildx) + `" = true ] && { echo "github.com/docker/buildx v0.20.0"; exit 0; }
  echo "docker: unknown command: docker buildx" >&2; exit 1
fi
if [ "$1" = version ]; then echo amd64; exit 0; fi # the daemon's architecture, asked as --format {{.Server.Arch}}
if [ "$1" = build ] && [ "${DOCKER_BUILDKIT:-1}" != 0 ]; then
  echo "ERROR: BuildKit is enabled but the buildx component is missing or broken." >&2; exit 1
fi
echo "DOCKER_BUILDKIT=${DOCKER_BUILDKIT:-} $*" >> "$log"
for last; do :; done
cat "$last/Dockerfile" >> "$log"
`
	if err := os.WriteFile(cli, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return cli, log
}

// TestMakeImageBuildsWithTheCLIAtHand runs `make image` with a docker CLI that has the
// buildx plugin and with one that lacks it (a Docker 23+ CLI refuses BuildKit builds
// then): both build, and what they build is the Dockerfile's final stage, offline.
func TestMakeImageBuildsWithTheCLIAtHand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the image's binary: not run with -short")
	}
	needMake(t)
	release, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	finalStage := string(release[strings.Index(string(release), "\nFROM ${RUNTIME_IMAGE}\n"):])
	for _, tc := range []struct {
		buildx bool
		want   string
	}{
		{buildx: true, want: "DOCKER_BUILDKIT= buildx build --load -t agui-mock:test "},
		{buildx: false, want: "DOCKER_BUILDKIT=0 build -t agui-mock:test "},
	} {
		t.Run(fmt.Sprintf("buildx=%v", tc.buildx), func(t *testing.T) {
			cli, log := fakeDocker(t, tc.buildx)
			context := filepath.Join(t.TempDir(), "image")
			cmd := exec.Command("make", "image", "DOCKER="+cli, "IMAGE=agui-mock:test", "IMAGE_CONTEXT="+context)
			cmd.Env = append(os.Environ(), "DOCKER_BUILDKIT=")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("make image: %v\n%s", err, out)
			}
			calls, err := os.ReadFile(log)
			if err != nil {
				t.Fatal(err)
			}
			got := string(calls)
			if !strings.HasPrefix(got, tc.want+context+"\n") {
				t.Fatalf("docker was called as\n%s\nwant %s%s", got, tc.want, context)
			}
			built := got[strings.Index(got, "\n")+1:]
			if !strings.HasPrefix(built, "FROM scratch\nCOPY rootfs/ /\n") {
				t.Errorf("the image is not built on the scratch base:\n%s", built)
			}
			for _, legacyCannot := range []string{"--from=", "--platform", "AS "} {
				if strings.Contains(built, legacyCannot) {
					t.Errorf("the offline Dockerfile has %q, which needs a multi-stage build:\n%s", legacyCannot, built)
				}
			}
			for _, line := range strings.Split(strings.TrimSpace(finalStage), "\n")[1:] {
				if line = strings.ReplaceAll(strings.ReplaceAll(line, "--from=build ", ""), " /out/", " out/"); !strings.Contains(built, line) {
					t.Errorf("the offline Dockerfile lacks the final stage's %q", line)
				}
			}
			for _, file := range []string{"out/agui-mock", "rootfs/etc/passwd", "rootfs/etc/ssl/certs/ca-certificates.crt"} {
				if _, err := os.Stat(filepath.Join(context, file)); err != nil {
					t.Errorf("the build context lacks %s: %v", file, err)
				}
			}
		})
	}
}

// TestDockerfileStopsTheLegacyBuilderWithAMessage: the legacy builder builds every stage
// in order, so the first stage, which BuildKit never builds, is where it must stop, with
// what to run instead; otherwise it fails on --platform=$BUILDPLATFORM, which it cannot read.
func TestDockerfileStopsTheLegacyBuilderWithAMessage(t *testing.T) {
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	first := regexp.MustCompile(`(?m)^FROM .*\n.*`).FindString(string(data))
	if !strings.HasPrefix(first, "FROM scratch AS needs-buildkit\nCOPY [\"this Dockerfile needs BuildKit: run docker buildx build .") {
		t.Errorf("the Dockerfile's first stage is\n%s\nwant the needs-buildkit stage", first)
	}
	if regexp.MustCompile(`(?m)^FROM .*needs-buildkit|--from=needs-buildkit`).MatchString(strings.Replace(string(data), "FROM scratch AS needs-buildkit", "", 1)) {
		t.Error("a stage uses needs-buildkit, so BuildKit would build it too")
	}
}

// elfHeader is the start of a 64-bit little-endian ELF executable for machine (0x3e amd64,
// 0xb7 arm64): its header and, if interp, one program header, PT_INTERP, which a
// dynamically linked binary has.
func elfHeader(machine uint16, interp bool) []byte {
	b := make([]byte, 64+56)
	copy(b, "\x7fELF\x02\x01\x01\x00")
	binary.LittleEndian.PutUint16(b[16:], 2) // ET_EXEC
	binary.LittleEndian.PutUint16(b[18:], machine)
	binary.LittleEndian.PutUint64(b[32:], 64) // program headers follow the header
	binary.LittleEndian.PutUint16(b[54:], 56)
	if interp {
		binary.LittleEndian.PutUint16(b[56:], 1)
		binary.LittleEndian.PutUint32(b[64:], 3) // PT_INTERP
	}
	return b
}

// TestMakeImageAroundAPrebuiltBinary runs `make image BINARY=path`: with no Go toolchain
// (a go that fails stands first on PATH) it builds the same image around the given file,
// once that is a static Linux executable for the daemon's architecture; anything else
// stops it before docker is called, saying what the file is and which one to use.
func TestMakeImageAroundAPrebuiltBinary(t *testing.T) {
	needMake(t)
	noGo := t.TempDir()
	if err := os.WriteFile(filepath.Join(noGo, "go"), []byte("#!/bin/sh\necho 'make image ran go' >&2; exit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		binary  []byte
		arch    string // IMAGE_ARCH; unset, the fake daemon's amd64
		wantErr string // what make prints; none, it builds
	}{
		{name: "static linux-amd64", binary: elfHeader(0x3e, false)},
		{name: "static linux-arm64 for an arm64 daemon", binary: elfHeader(0xb7, false), arch: "arm64"},
		{name: "linux-arm64 for an amd64 daemon", binary: elfHeader(0xb7, false),
			wantErr: "is an ELF binary for arm64, but the daemon builds linux/amd64 images: use the binary of @agui-mock/cli-linux-x64 (docs/docker.md#building-the-image)"},
		{name: "dynamically linked", binary: elfHeader(0x3e, true),
			wantErr: "is dynamically linked, and the image has no libc: build it with CGO_ENABLED=0, as make static does, or use the binary of @agui-mock/cli-linux-x64"},
		{name: "macOS", binary: []byte("\xcf\xfa\xed\xfe\x0c\x00\x00\x01"),
			wantErr: "is a macOS binary, but the image runs Linux: use the binary of @agui-mock/cli-linux-x64"},
		{name: "Windows", binary: []byte("MZ\x90\x00"), wantErr: "is a Windows binary, but the image runs Linux"},
		{name: "text", binary: []byte("#!/bin/sh\n"), wantErr: "is not an executable: use the binary of @agui-mock/cli-linux-x64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cli, log := fakeDocker(t, false)
			dir := t.TempDir()
			bin, context := filepath.Join(dir, "agui-mock"), filepath.Join(dir, "image")
			if err := os.WriteFile(bin, tc.binary, 0o755); err != nil {
				t.Fatal(err)
			}
			args := []string{"--no-print-directory", "image", "BINARY=" + bin, "DOCKER=" + cli, "IMAGE=agui-mock:test", "IMAGE_CONTEXT=" + context}
			if tc.arch != "" {
				args = append(args, "IMAGE_ARCH="+tc.arch)
			}
			cmd := exec.Command("make", args...)
			cmd.Env = append(os.Environ(), "DOCKER_BUILDKIT=", "PATH="+noGo+string(os.PathListSeparator)+os.Getenv("PATH"))
			out, err := cmd.CombinedOutput()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(string(out), "make image: BINARY="+bin+" "+tc.wantErr) {
					t.Fatalf("make image: %v\n%s\nwant the error %q", err, out, tc.wantErr)
				}
				if _, err := os.Stat(log); err == nil {
					t.Error("docker built an image all the same")
				}
				return
			}
			if err != nil {
				t.Fatalf("make image: %v\n%s", err, out)
			}
			if copied, err := os.ReadFile(filepath.Join(context, "out", "agui-mock")); err != nil || !bytes.Equal(copied, tc.binary) {
				t.Errorf("the build context's binary is not the given one (%v)", err)
			}
			calls, err := os.ReadFile(log)
			if err != nil {
				t.Fatal(err)
			}
			if want := "DOCKER_BUILDKIT=0 build -t agui-mock:test " + context + "\nFROM scratch\nCOPY rootfs/ /\n"; !strings.HasPrefix(string(calls), want) {
				t.Errorf("docker was called as\n%s\nwant it to start\n%s", calls, want)
			}
			for _, file := range []string{"rootfs/etc/passwd", "rootfs/etc/ssl/certs/ca-certificates.crt", "out/scenarios"} {
				if _, err := os.Stat(filepath.Join(context, file)); err != nil {
					t.Errorf("the build context lacks %s: %v", file, err)
				}
			}
		})
	}
}

// needMake skips a test of a make target, loudly, where make is not installed; in CI,
// which installs it, its absence fails the test.
func needMake(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("make is not installed")
		}
		t.Skip("SKIPPED: make is not installed")
	}
}
