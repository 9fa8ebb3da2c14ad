package cmd

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agui-mock/agui-mock/server"
)

// idOptions are the settings of SSE ids and of reconnecting with them.
type idOptions struct {
	ids        sseIDsFlag
	grace      time.Duration
	runBytes   int64
	totalBytes int64
}

// sseIDsFlag is -sse-ids: a boolean flag (ids in the seed format, id: <TYPE>_<timestamp>,
// or none) that also takes cursor. Given alone it means true, as a boolean flag does.
type sseIDsFlag string

// The values of -sse-ids besides the booleans'.
const sseIDsCursor = "cursor"

// String returns the flag's value: true, false or cursor.
func (f *sseIDsFlag) String() string {
	if f == nil || *f == "" {
		return "false"
	}
	return string(*f)
}

// Set reads true or false (as strconv.ParseBool spells them), or cursor.
func (f *sseIDsFlag) Set(v string) error {
	if strings.EqualFold(strings.TrimSpace(v), sseIDsCursor) {
		*f = sseIDsCursor
		return nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("want true, false or cursor, got %q", v)
	}
	*f = sseIDsFlag(strconv.FormatBool(b))
	return nil
}

// IsBoolFlag lets -sse-ids be given without a value, as true.
func (f *sseIDsFlag) IsBoolFlag() bool { return true }

// idFlags defines -sse-ids and the reconnect flags into o: serve and record have them.
func idFlags(fs *flag.FlagSet, o *idOptions) {
	def := server.DefaultReconnectConfig()
	o.ids = "true"
	fs.Var(&o.ids, "sse-ids", "write an id line before each event: true (id: <TYPE>_<timestamp>), false (none), or cursor (ids that name the run and the event: a client that lost its stream POSTs the same run input with Last-Event-ID and gets the rest of the run; a cursor of a run no longer kept gets 410, of another thread or run 409, never a fresh run; see -reconnect-grace)")
	fs.DurationVar(&o.grace, "reconnect-grace", def.Grace, "with -sse-ids=cursor: how long a run plays on, its events kept, after its client went away, before it counts as cancelled; and how long an ended run's events are kept. A cursor past it gets 410")
	fs.Int64Var(&o.runBytes, "reconnect-run-max-bytes", def.MaxRunBytes, "with -sse-ids=cursor: most bytes of frames one run keeps for a client that reconnects; past it its oldest go, and a cursor before them gets 410")
	fs.Int64Var(&o.totalBytes, "reconnect-max-bytes", def.MaxBytes, "with -sse-ids=cursor: most bytes of frames all runs keep together; past it ended runs' frames go first (the first to end first), then the writing run's oldest")
}

// checkIDFlags checks the values of the flags idFlags defines.
func checkIDFlags(o idOptions) error {
	return checkFlags(
		flagCheck{"reconnect-grace", o.grace, o.grace > 0, "positive"},
		flagCheck{"reconnect-run-max-bytes", o.runBytes, o.runBytes >= 4096, "4096 or more bytes"},
		flagCheck{"reconnect-max-bytes", o.totalBytes, o.totalBytes >= o.runBytes, "at least -reconnect-run-max-bytes"},
	)
}

// apply sets the ids and reconnects in a server's configuration.
func (o idOptions) apply(cfg *server.Config) {
	cfg.EventIDs = o.ids == "true"
	cfg.Reconnect = server.ReconnectConfig{Cursor: o.ids == sseIDsCursor, Grace: o.grace, MaxRunBytes: o.runBytes, MaxBytes: o.totalBytes}
}
