package cmd

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionIsPrintedByTheFlagAndTheCommand(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-version"}, {"version"}} {
		var stdout, stderr strings.Builder
		if code := run(t.Context(), args, env(nil), &stdout, &stderr); code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr.String())
		}
		if !strings.HasPrefix(stdout.String(), "agui-mock ") || !strings.Contains(stdout.String(), "go1.") {
			t.Errorf("%q printed %q", args, stdout.String())
		}
	}
	var stdout, stderr strings.Builder
	if code := run(t.Context(), []string{"version", "extra"}, env(nil), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), `unexpected argument "extra"`) {
		t.Errorf("version extra: exit %d, %q", code, stderr.String())
	}
}

func TestVersionComesFromTheStampElseTheBuildInfo(t *testing.T) {
	vcs := func(rev, modified string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}}
	}
	for _, c := range []struct {
		stamped string
		info    *debug.BuildInfo
		want    string
	}{
		{"1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "v9.9.9"}}, "1.2.3"},
		{"", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "v1.4.0"}, // go install …@v1.4.0
		{"", vcs("0123456789abcdef0123", "false"), "devel+0123456789ab"},
		{"", vcs("0123456789abcdef0123", "true"), "devel+0123456789ab-dirty"},
		{"", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"}, // -buildvcs=false
		{"", nil, "devel"},
	} {
		if got := versionOf(c.stamped, c.info); got != c.want {
			t.Errorf("versionOf(%q, %+v) = %q, want %q", c.stamped, c.info, got, c.want)
		}
	}
}
