// Command lore is the command line of Lore, an embedded persistent context
// store with budgeted retrieval. Every command is a thin wrapper over the
// root package: parse flags, call the library, print.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// run executes one command line and returns its exit code.
func run(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRootCommand(&streams{in: os.Stdin, out: os.Stdout, err: os.Stderr})
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	return reportExit(root.ErrOrStderr(), err)
}
