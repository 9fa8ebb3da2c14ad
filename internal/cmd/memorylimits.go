package cmd

import (
	"flag"

	"github.com/agui-mock/agui-mock/server"
	"github.com/agui-mock/agui-mock/threads"
)

// memoryLimits bound what clients can make the server hold: the headers of a request,
// the large bodies it handles at once, the threads it keeps, and the journal's run
// records. Their defaults fit a 512 MiB
// container with room for the runs streaming.
type memoryLimits struct {
	maxHeader    int
	bodyBytes    int64
	threadBytes  int64
	journalBytes int64
}

// memoryLimitFlags defines the flags of memoryLimits into m: serve and record have them.
func memoryLimitFlags(fs *flag.FlagSet, m *memoryLimits) {
	fs.IntVar(&m.maxHeader, "max-header-bytes", server.DefaultMaxHeaderBytes, "most bytes of a request's line and headers; more are answered 431")
	fs.Int64Var(&m.bodyBytes, "bodies-max-bytes", server.DefaultBodiesMaxBytes, "most bytes of large request bodies (past 64 KiB) handled at once; the next waits for room, up to 10 s, then gets 503")
	fs.Int64Var(&m.threadBytes, "threads-max-bytes", threads.DefaultMaxBytes, "most bytes all threads keep together (their messages and state, and the CopilotKit runtime's runs); the least recently used are forgotten past it")
	fs.Int64Var(&m.journalBytes, "journal-max-bytes", server.DefaultJournalMaxBytes, "most bytes the journal's run records keep together; the least recently used go past it, and one run's record keeps its first events within a quarter of it")
}

// checkMemoryLimits checks the values of the flags memoryLimitFlags defines.
func checkMemoryLimits(m memoryLimits) error {
	return checkFlags(
		flagCheck{"max-header-bytes", m.maxHeader, m.maxHeader >= 4096, "4096 or more bytes"},
		flagCheck{"bodies-max-bytes", m.bodyBytes, m.bodyBytes >= 1<<20, "1048576 (1 MiB) or more bytes"},
		flagCheck{"threads-max-bytes", m.threadBytes, m.threadBytes >= 1<<20, "1048576 (1 MiB) or more bytes"},
		flagCheck{"journal-max-bytes", m.journalBytes, m.journalBytes >= 1<<20, "1048576 (1 MiB) or more bytes"},
	)
}

// apply sets the limits in a server's configuration.
func (m memoryLimits) apply(cfg *server.Config) {
	cfg.MaxHeaderBytes = m.maxHeader
	cfg.BodiesMaxBytes = m.bodyBytes
	cfg.Threads.MaxBytes = m.threadBytes
	cfg.JournalMaxBytes = m.journalBytes
}
