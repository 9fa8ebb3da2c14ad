package main

import (
	"os"
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
		"ARG BINARY=build",
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
