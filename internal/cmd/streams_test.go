package cmd

import (
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/server"
)

func TestMaxStreamsFollowsTheDescriptorLimitUnlessGiven(t *testing.T) {
	unset := streamLimit{}
	given := func(n int) streamLimit { return streamLimit{n: n, given: true} }
	for _, c := range []struct {
		name      string
		given     streamLimit
		limit     uint64
		known     bool
		recording bool
		want      int
		why       string
	}{
		{"a container's limit: the cap", unset, 1 << 20, true, false, server.DefaultMaxStreams, "20000 (the default's cap; descriptor limit 1048576)"},
		{"just past the cap's room", unset, 22223, true, false, server.DefaultMaxStreams, "20000 (the default's cap; descriptor limit 22223)"},
		{"a tenth kept past 2,560", unset, 20000, true, false, 18000, "18000 (from descriptor limit 20000, less 2000 kept for listeners, files and other connections)"},
		{"a tenth kept", unset, 4096, true, false, 3687, "3687 (from descriptor limit 4096, less 409 kept"},
		{"256 kept", unset, 1024, true, false, 768, "768 (from descriptor limit 1024, less 256 kept"},
		{"256 kept of 512", unset, 512, true, false, 256, "256 (from descriptor limit 512, less 256 kept"},
		{"half kept under 512", unset, 300, true, false, 150, "150 (from descriptor limit 300, less 150 kept"},
		{"one stream at least", unset, 1, true, false, 1, "1 (from descriptor limit 1, less 0 kept"},
		{"recording: two descriptors a stream", unset, 1024, true, true, 384, "384 (from descriptor limit 1024, less 256 kept for listeners, files and other connections, halved: a stream recorded holds its connection to the agent too)"},
		{"recording under a large limit: the cap", unset, 1 << 20, true, true, server.DefaultMaxStreams, "20000 (the default's cap; descriptor limit 1048576)"},
		{"an unlimited limit: the cap", unset, ^uint64(0), true, false, server.DefaultMaxStreams, "20000 (the default's cap; descriptor limit 18446744073709551615)"},
		{"no limit known", unset, 0, false, false, server.DefaultMaxStreams, "20000 (the default's cap; no descriptor limit known on " + runtime.GOOS + ")"},
		{"given: wins", given(500), 1 << 20, true, false, 500, "500 (-max-streams)"},
		{"given past the cap", given(50000), 1 << 20, true, false, 50000, "50000 (-max-streams)"},
		{"given past what the limit leaves room for: said", given(20000), 1024, true, false, 20000, "20000 (-max-streams; the descriptor limit 1024 leaves room for 768)"},
		{"given with no limit known", given(700), 0, false, false, 700, "700 (-max-streams)"},
		{"given 0: no limit", given(0), 512, true, false, 0, "no limit (-max-streams 0)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, why := maxStreams(c.given, c.limit, c.known, c.recording)
			if got != c.want || !strings.HasPrefix(why, c.why) {
				t.Errorf("maxStreams = %d, %q; want %d, %q…", got, why, c.want, c.why)
			}
		})
	}
}

// TestMaxStreamsIsGivenOnlyWhenSet: -max-streams is given by the flag or its variable,
// whatever the value; unset, the help shows no default of its own but says what it is.
func TestMaxStreamsIsGivenOnlyWhenSet(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		vars map[string]string
		want streamLimit
	}{
		{"unset", nil, nil, streamLimit{}},
		{"the flag", []string{"--max-streams", "300"}, nil, streamLimit{n: 300, given: true}},
		{"the flag, 0", []string{"--max-streams=0"}, nil, streamLimit{n: 0, given: true}},
		{"the variable", nil, map[string]string{"AGUI_MOCK_MAX_STREAMS": "20000"}, streamLimit{n: 20000, given: true}},
		{"the flag before the variable", []string{"--max-streams", "7"}, map[string]string{"AGUI_MOCK_MAX_STREAMS": "9"}, streamLimit{n: 7, given: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := newServeConfig(false)
			fs := serveFlags(o, io.Discard)
			if _, code := parseFlags(fs, c.args, false, env(c.vars).lookup, io.Discard); code >= 0 {
				t.Fatalf("parse: exit %d", code)
			}
			if o.maxStreams != c.want {
				t.Errorf("%+v, want %+v", o.maxStreams, c.want)
			}
		})
	}
	var help strings.Builder
	serveFlags(newServeConfig(false), &help).Usage()
	i := strings.Index(help.String(), "-max-streams n\n")
	if i < 0 {
		t.Fatalf("no -max-streams in the help:\n%s", help.String())
	}
	line := help.String()[i:]
	line = line[:strings.Index(line, "\n  -")]
	if strings.Contains(line, "(default ") || !strings.Contains(line, "default: what the descriptor limit, ulimit -n, leaves room for") || !strings.Contains(line, "up to 20000") {
		t.Errorf("the help of -max-streams:\n%s", line)
	}
}
