package cmd

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"

	"github.com/agui-mock/agui-mock/server"
)

// streamLimit is -max-streams: the number given (0: no limit), or, when none is given,
// the default maxStreams works out from the descriptor limit. Its String is empty until
// it is set, so that the help shows no default of its own: the usage says what it is.
type streamLimit struct {
	n     int
	given bool
}

// String returns the number given, or "" when none is.
func (l *streamLimit) String() string {
	if l == nil || !l.given {
		return ""
	}
	return strconv.Itoa(l.n)
}

// Set takes a number, as an int flag does: the flag's check judges its range.
func (l *streamLimit) Set(v string) error {
	n, err := strconv.ParseInt(v, 0, strconv.IntSize)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return errors.New("value out of range")
	case err != nil:
		return errors.New("parse error")
	}
	l.n, l.given = int(n), true
	return nil
}

// Descriptors kept from the streams' share of the descriptor limit, by the default of
// -max-streams: for the listener, standard input and output, the runtime's poller, the
// scenario files being read and watched, recordings being written, and the connections
// that are not streams, which are answered only while a descriptor is free to accept
// them: those being accepted (up to -max-starting, 128 by default), the admin API's and
// the inspector's, idle keep-alive connections, and the streams past the limit, which
// get their 503. A tenth of the limit past 2,560, so that the connections that are not
// streams may grow with the streams; and half of it at most, under 512, where a mock
// with fewer streams still serves.
const (
	keptDescriptors    = 256
	keptDescriptorsDiv = 10
)

// maxStreams returns how many streams the server allows at once, and why, for the start
// log: the number of -max-streams when it is given (0: no limit); else what the
// descriptor limit leaves room for, up to server.DefaultMaxStreams. limit is how many
// descriptors the process may open, known when the platform says (descriptorLimit);
// while recording, a stream holds a second descriptor, its connection to the agent.
func maxStreams(given streamLimit, limit uint64, known, recording bool) (int, string) {
	room := roomForStreams(limit, recording)
	switch {
	case given.given && given.n == 0:
		return 0, "no limit (-max-streams 0)"
	case given.given && known && uint64(given.n) > room:
		return given.n, fmt.Sprintf("%d (-max-streams; the descriptor limit %d leaves room for %d)", given.n, limit, room)
	case given.given:
		return given.n, fmt.Sprintf("%d (-max-streams)", given.n)
	case !known:
		return server.DefaultMaxStreams, fmt.Sprintf("%d (the default's cap; no descriptor limit known on %s)", server.DefaultMaxStreams, runtime.GOOS)
	case room >= server.DefaultMaxStreams:
		return server.DefaultMaxStreams, fmt.Sprintf("%d (the default's cap; descriptor limit %d)", server.DefaultMaxStreams, limit)
	}
	why := fmt.Sprintf("%d (from descriptor limit %d, less %d kept for listeners, files and other connections", room, limit, kept(limit))
	if recording {
		why += ", halved: a stream recorded holds its connection to the agent too"
	}
	return int(room), why + ")"
}

// roomForStreams is how many streams limit descriptors leave room for: limit less those
// kept, one a stream (two while recording), and one at least.
func roomForStreams(limit uint64, recording bool) uint64 {
	room := limit - kept(limit)
	if recording {
		room /= 2
	}
	return max(room, 1)
}

// kept is how many of limit descriptors are kept from the streams.
func kept(limit uint64) uint64 {
	return min(max(keptDescriptors, limit/keptDescriptorsDiv), limit/2)
}
