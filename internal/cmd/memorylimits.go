package cmd

import (
	"flag"

	"github.com/agui-mock/agui-mock/server"
)

// memoryLimitFlags defines the flags that bound what clients can make the server hold
// into cfg, each with the value cfg holds as its default: the headers of a request, the
// large bodies it handles at once, the threads it keeps, and the journal's run records.
// Their defaults (server.DefaultConfig) fit a 512 MiB container with room for the runs
// streaming. serve and record have them.
func memoryLimitFlags(fs *flag.FlagSet, cfg *server.Config) {
	fs.IntVar(&cfg.MaxHeaderBytes, "max-header-bytes", cfg.MaxHeaderBytes, "most bytes of a request's line and headers; more are answered 431")
	fs.Int64Var(&cfg.BodiesMaxBytes, "bodies-max-bytes", cfg.BodiesMaxBytes, "most bytes of large request bodies (past 64 KiB) handled at once; the next waits for room, up to 10 s, then gets 503")
	fs.Int64Var(&cfg.Threads.MaxBytes, "threads-max-bytes", cfg.Threads.MaxBytes, "most bytes all threads keep together (their messages and state, and the CopilotKit runtime's runs); the least recently used are forgotten past it")
	fs.Int64Var(&cfg.JournalMaxBytes, "journal-max-bytes", cfg.JournalMaxBytes, "most bytes the journal's run records keep together; the least recently used go past it, and one run's record keeps its first events within a quarter of it")
}

// checkMemoryLimits checks the values of the flags memoryLimitFlags defines.
func checkMemoryLimits(cfg server.Config) error {
	return checkFlags(
		flagCheck{"max-header-bytes", cfg.MaxHeaderBytes, cfg.MaxHeaderBytes >= 4096, "4096 or more bytes"},
		flagCheck{"bodies-max-bytes", cfg.BodiesMaxBytes, cfg.BodiesMaxBytes >= 1<<20, "1048576 (1 MiB) or more bytes"},
		flagCheck{"threads-max-bytes", cfg.Threads.MaxBytes, cfg.Threads.MaxBytes >= 1<<20, "1048576 (1 MiB) or more bytes"},
		flagCheck{"journal-max-bytes", cfg.JournalMaxBytes, cfg.JournalMaxBytes >= 1<<20, "1048576 (1 MiB) or more bytes"},
	)
}
