package cmd

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/server"
)

func TestSSEIDsIsABooleanFlagThatAlsoTakesCursor(t *testing.T) {
	for _, c := range []struct {
		name          string
		args          []string
		vars          map[string]string
		ids, cursor   bool
		grace         time.Duration
		runBytes, all int64
	}{
		{"unset", nil, nil, true, false, 30 * time.Second, 1 << 20, 32 << 20},
		{"alone", []string{"--sse-ids"}, nil, true, false, 30 * time.Second, 1 << 20, 32 << 20},
		{"off", []string{"--sse-ids=false"}, nil, false, false, 30 * time.Second, 1 << 20, 32 << 20},
		{"cursor", []string{"--sse-ids=cursor", "--reconnect-grace", "5s"}, nil, false, true, 5 * time.Second, 1 << 20, 32 << 20},
		{"the variables", nil, map[string]string{"AGUI_MOCK_SSE_IDS": "cursor", "AGUI_MOCK_RECONNECT_GRACE": "1m", "AGUI_MOCK_RECONNECT_RUN_MAX_BYTES": "8192", "AGUI_MOCK_RECONNECT_MAX_BYTES": "65536"}, false, true, time.Minute, 8192, 65536},
		{"the flag before the variable", []string{"--sse-ids=false"}, map[string]string{"AGUI_MOCK_SSE_IDS": "cursor"}, false, false, 30 * time.Second, 1 << 20, 32 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := newServeConfig(false)
			fs := serveFlags(o, io.Discard)
			if _, code := parseFlags(fs, c.args, false, env(c.vars).lookup, io.Discard); code >= 0 {
				t.Fatalf("parse: exit %d", code)
			}
			if err := checkIDFlags(o.server.Reconnect); err != nil {
				t.Fatal(err)
			}
			cfg := o.server
			want := server.ReconnectConfig{Cursor: c.cursor, Grace: c.grace, MaxRunBytes: c.runBytes, MaxBytes: c.all}
			if cfg.EventIDs != c.ids || cfg.Reconnect != want {
				t.Errorf("ids %v, reconnect %+v; want %v, %+v", cfg.EventIDs, cfg.Reconnect, c.ids, want)
			}
		})
	}
}

func TestBadSSEIDsAndReconnectValuesAreRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sse-ids=uuid"}, "want true, false or cursor"},
		{[]string{"--reconnect-grace", "0s"}, "-reconnect-grace must be positive"},
		{[]string{"--reconnect-run-max-bytes", "100"}, "-reconnect-run-max-bytes must be 4096 or more bytes"},
		{[]string{"--reconnect-max-bytes", "8192"}, "-reconnect-max-bytes must be at least -reconnect-run-max-bytes"},
	} {
		o := newServeConfig(false)
		var stderr strings.Builder
		fs := serveFlags(o, &stderr)
		_, code := parseFlags(fs, c.args, false, env(nil).lookup, &stderr)
		var err error
		if code < 0 {
			err = checkIDFlags(o.server.Reconnect)
		}
		got := stderr.String()
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%q: %q, want it to say %q", c.args, got, c.want)
		}
	}
}
