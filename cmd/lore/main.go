// Command lore is the command line of Lore, an embedded persistent context
// store with budgeted retrieval. Every command is a thin wrapper over the
// root package: parse flags, call the library, print.
package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	// The etcd engine, for --store etcd://host:port,.../prefix (package
	// lore links none: it registers itself with package store).
	_ "github.com/lorekeep/lore/store/etcdstore"
)

func main() {
	log.SetFlags(0)
	log.SetOutput(&libraryLog{w: os.Stderr})
	os.Exit(run(os.Args[1:]))
}

// libraryLog takes what the libraries under Lore write to the standard
// logger (bleve logs a damaged index snapshot it skips, once per snapshot
// and open) and writes each message once, as one of Lore's warnings,
// with the repair where Lore knows it.
type libraryLog struct {
	mu   sync.Mutex
	w    io.Writer
	seen map[string]bool
}

func (l *libraryLog) Write(p []byte) (int, error) {
	msg := strings.TrimSpace(string(p))
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen[msg] {
		return len(p), nil
	}
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	l.seen[msg] = true
	hint := ""
	if strings.Contains(msg, "unable to load snapshot") {
		hint = " (the index is damaged; it is derived from the store: `lore reindex` rebuilds it)"
	}
	if _, err := fmt.Fprintf(l.w, "warning: index: %s%s\n", msg, hint); err != nil {
		return 0, err
	}
	return len(p), nil
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
		for {
			select {
			case code := <-done:
				return code
			case <-time.After(cmp.Or(time.Duration(s.grace.Load()), interruptGrace)):
				if !s.write.stop() {
					// A write in flight ends soon, committed or
					// rolled back: wait for it, to say which. One
					// committed: the command is saying so (exit 0),
					// and is not to be called stopped.
					continue
				}
				return reporter(args)(s.err, &exitStatus{code: in.code(), err: in.stopped()})
			}
		}
	}
}
