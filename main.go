// Command agui-mock is a mock AG-UI agent: it answers AG-UI run requests with scripted,
// timed event streams from YAML scenario files. Its commands are in internal/cmd.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/agui-mock/agui-mock/internal/cmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(cmd.Run(ctx, os.Args[1:], os.Environ(), os.Stdout, os.Stderr))
}
