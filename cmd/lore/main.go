// Command lore is the command line of Lore, an embedded persistent context
// store with budgeted retrieval. Every command is a thin wrapper over the
// root package: parse flags, call the library, print.
package main

import (
	"cmp"
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// interruptGrace bounds how long a command may take to stop after SIGINT
// or SIGTERM cancelled its context (a read blocked on a pipe, say) before
// run gives up on it. Every write is one bbolt transaction, so leaving
// then is as safe as a crash: the write is all there or not at all.
const interruptGrace = time.Second

// run executes one command line and returns its exit code. SIGINT and
// SIGTERM cancel the command's context with an *interrupted cause; the
// exit code is then 130 or 143. A second signal ends the process at once.
func run(args []string) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	s := &streams{in: os.Stdin, out: os.Stdout, err: os.Stderr}
	done := make(chan int, 1)
	go func() {
		root := newRootCommand(s)
		root.SetArgs(args)
		err := root.ExecuteContext(ctx)
		done <- reporter(args)(root.ErrOrStderr(), withCause(ctx, err))
	}()
	select {
	case code := <-done:
		return code
	case sig := <-sigs:
		signal.Stop(sigs) // the next one kills
		in := &interrupted{sig: sig.(syscall.Signal)}
		cancel(in)
		select {
		case code := <-done:
			return code
		case <-time.After(cmp.Or(time.Duration(s.grace.Load()), interruptGrace)):
			return reporter(args)(s.err, &exitStatus{code: in.code(), err: in.stopped()})
		}
	}
}
