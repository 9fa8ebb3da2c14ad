package cmd

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// version is the release's version, stamped by a release build with
// -ldflags "-X github.com/agui-mock/agui-mock/internal/cmd.version=1.2.3" (make static VERSION=1.2.3). The linker can only stamp
// a package variable, which is why this one exists; other builds leave it empty and
// report what their build info knows.
var version string

// runVersion prints the version of the binary: `agui-mock version` and `agui-mock --version`.
func runVersion(_ context.Context, in invocation) int {
	if len(in.args) > 0 {
		fmt.Fprintf(in.stderr, "agui-mock version: unexpected argument %q\n", in.args[0])
		return 2
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintf(in.stdout, "agui-mock %s (%s %s/%s)\n", versionOf(version, info), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return 0
}

// versionOf is the version a build reports: the stamped one, else the module's version
// (go install …@v1.2.3), else "devel" with the commit when the build recorded it.
func versionOf(stamped string, info *debug.BuildInfo) string {
	if stamped != "" {
		return stamped
	}
	if info == nil {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var revision, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if revision == "" {
		return "devel"
	}
	v := "devel+" + revision[:min(12, len(revision))]
	if modified == "true" {
		v += "-dirty"
	}
	return v
}
