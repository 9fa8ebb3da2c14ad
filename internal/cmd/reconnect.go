package cmd

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/agui-mock/agui-mock/server"
)

// sseIDsFlag is -sse-ids: a boolean flag (ids in the seed format, id: <TYPE>_<timestamp>,
// or none) that also takes cursor. Given alone it means true, as a boolean flag does. It
// sets the server's EventIDs and Reconnect.Cursor, which it is read from.
type sseIDsFlag struct {
	ids, cursor *bool
}

// The values of -sse-ids besides the booleans'.
const sseIDsCursor = "cursor"

// String returns the flag's value: true, false or cursor.
func (f *sseIDsFlag) String() string {
	switch {
	case f == nil || f.ids == nil: // the zero value the help compares the default with
		return "false"
	case *f.cursor:
		return sseIDsCursor
	}
	return strconv.FormatBool(*f.ids)
}

// Set reads true or false (as strconv.ParseBool spells them), or cursor.
func (f *sseIDsFlag) Set(v string) error {
	if strings.EqualFold(strings.TrimSpace(v), sseIDsCursor) {
		*f.ids, *f.cursor = false, true
		return nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("want true, false or cursor, got %q", v)
	}
	*f.ids, *f.cursor = b, false
	return nil
}

// IsBoolFlag lets -sse-ids be given without a value, as true.
func (f *sseIDsFlag) IsBoolFlag() bool { return true }

// idFlags defines -sse-ids and the reconnect flags into cfg, each with the value cfg
// holds as its default: serve and record have them.
func idFlags(fs *flag.FlagSet, cfg *server.Config) {
	r := &cfg.Reconnect
	fs.Var(&sseIDsFlag{&cfg.EventIDs, &r.Cursor}, "sse-ids", "write an id line before each event: true (id: <TYPE>_<timestamp>), false (none), or cursor (ids that name the run and the event: a client that lost its stream POSTs the same run input with Last-Event-ID and gets the rest of the run; a cursor of a run no longer kept gets 410, of another thread or run 409, never a fresh run; see -reconnect-grace)")
	fs.DurationVar(&r.Grace, "reconnect-grace", r.Grace, "with -sse-ids=cursor: how long a run plays on, its events kept, after its client went away, before it counts as cancelled; and how long an ended run's events are kept. A cursor past it gets 410")
	fs.Int64Var(&r.MaxRunBytes, "reconnect-run-max-bytes", r.MaxRunBytes, "with -sse-ids=cursor: most bytes of frames one run keeps for a client that reconnects; past it its oldest go, and a cursor before them gets 410")
	fs.Int64Var(&r.MaxBytes, "reconnect-max-bytes", r.MaxBytes, "with -sse-ids=cursor: most bytes of frames all runs keep together; past it ended runs' frames go first (the first to end first), then the writing run's oldest")
}

// checkIDFlags checks the values of the reconnect flags idFlags defines.
func checkIDFlags(r server.ReconnectConfig) error {
	return checkFlags(
		flagCheck{"reconnect-grace", r.Grace, r.Grace > 0, "positive"},
		flagCheck{"reconnect-run-max-bytes", r.MaxRunBytes, r.MaxRunBytes >= 4096, "4096 or more bytes"},
		flagCheck{"reconnect-max-bytes", r.MaxBytes, r.MaxBytes >= r.MaxRunBytes, "at least -reconnect-run-max-bytes"},
	)
}
