package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/store"
	"github.com/spf13/cobra"
)

// streams are the command's standard files; tests replace them.
type streams struct {
	in       io.Reader
	out, err io.Writer
	// grace is how long run waits, in nanoseconds, for the command to
	// stop after a signal; 0 means interruptGrace. A server sets it.
	grace atomic.Int64
	// write is where the command's write to the store stands: after a
	// signal, run gives up on the command (exit 130 or 143, "stopped")
	// only if write.stop allows it (a second signal still ends the
	// process at once).
	write writeState
}

// writeState tells run, once a signal's grace is over, whether it may
// give up on the command and say that its write was not made: not while
// a write is in flight (it ends soon, committed or rolled back: run waits
// to say which), nor once one has committed (the command is saying so
// itself, closing the store and printing what it wrote: exit 0), and
// once run has given up, no write may begin.
type writeState struct {
	mu        sync.Mutex
	inFlight  int
	committed bool
	stopped   bool
}

// begin marks a write as begun; false when run has given up on the
// command, which must then write nothing.
func (w *writeState) begin() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return false
	}
	w.inFlight++
	return true
}

// end marks a write begun as ended: committed, or not made at all.
func (w *writeState) end(committed bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.inFlight--
	w.committed = w.committed || committed
}

// stop is run's question after the grace: true, and no write may begin
// from now on, when no write is in flight and none has committed.
func (w *writeState) stop() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.inFlight > 0 || w.committed {
		return false
	}
	w.stopped = true
	return true
}

// app holds the global flags and what every command needs from them. A
// fresh one is made for each command tree: no package state.
type app struct {
	streams     *streams
	storeFlag   string
	jsonOut     bool
	quiet       bool
	lockTimeout time.Duration
}

// newRootCommand builds the whole command tree.
func newRootCommand(s *streams) *cobra.Command {
	a := &app{streams: s}
	root := &cobra.Command{
		Use:   "lore",
		Short: "An embedded context store with budgeted retrieval",
		Long: `Lore keeps records (canon facts, memories, scenes, files) linked into a
graph, and builds Context Packets: the records that matter for one decision,
ranked, fitted into a token budget, with a note for everything left out.

The store is found as git finds .git: --store DIR, else $LORE_STORE, else
the nearest .lore/ folder walking up from the working directory.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError(c, err)
	})
	pf := root.PersistentFlags()
	pf.StringVar(&a.storeFlag, "store", "", "store directory (default: $LORE_STORE, else the nearest .lore/)")
	pf.BoolVar(&a.jsonOut, "json", false, "machine-readable JSON output")
	pf.BoolVarP(&a.quiet, "quiet", "q", false, "print nothing but results and errors")
	pf.DurationVar(&a.lockTimeout, "lock-timeout", 2*time.Second, "how long to wait for another process's write lock (0: do not wait)")

	root.AddCommand(
		newInitCommand(a),
		newPutCommand(a),
		newGetCommand(a),
		newRmCommand(a),
		newLsCommand(a),
		newLinkCommand(a),
		newUnlinkCommand(a),
		newNeighborsCommand(a),
		newImportCommand(a),
		newExportCommand(a),
		newStatsCommand(a),
		newVersionCommand(a),
		newCompletionCommand(a),
		newSearchCommand(a),
		newReindexCommand(a),
		newCheckCommand(a),
		newBackupCommand(a),
		newCountCommand(a),
		newPacketCommand(a),
		newWhyCommand(a),
		newDiffCommand(a),
		newPackCommand(a),
		newDemoCommand(a),
		newServeCommand(a),
	)
	registerCompletions(a, root)
	return root
}

// refuseEmpty is a usage error for the first of the named flags given
// with an empty value (`--budget ""`): leaving a flag out means its
// default, and an empty value is more likely a shell variable that was
// never set than a wish for that default.
func refuseEmpty(c *cobra.Command, names ...string) error {
	for _, n := range names {
		if f := c.Flags().Lookup(n); f != nil && f.Changed && f.Value.String() == "" {
			return usageError(c, fmt.Errorf("--%s was given empty: give a value (%s) or leave the flag out", n, f.Usage))
		}
	}
	return nil
}

// usageError marks a command-line mistake, with the usage line as a hint.
func usageError(c *cobra.Command, err error) error {
	return &exitStatus{code: exitError, err: err, usage: c.UseLine()}
}

// open opens the discovered store. Read-only opens share the lock with
// other readers; writable ones wait up to --lock-timeout.
func (a *app) open(readOnly bool) (*lore.Lore, error) {
	dir, err := a.storeDir()
	if err != nil {
		return nil, err
	}
	if a.lockTimeout < 0 {
		return nil, fmt.Errorf("--lock-timeout %s is negative: want 0 (do not wait) or a wait such as 2s", a.lockTimeout)
	}
	var up upgradeNote
	l, err := lore.Open(dir, &lore.Options{ReadOnly: readOnly, LockTimeout: a.lockWait(), Progress: up.progress(a)})
	up.bar.close()
	return l, err
}

// upgradeNote tells the user of the one-time upgrades a writable open of
// an older store runs (its secondary keys, then its index of an older
// format): on stderr what each does and for how many records, then, on a
// terminal, a progress line.
type upgradeNote struct {
	bar   *progress
	phase string // the phase last told
}

func (u *upgradeNote) progress(a *app) store.Progress {
	return func(phase string, done, total int) {
		if phase != u.phase {
			u.phase = phase
			what := "writing the secondary keys of " + plural(total, "record") + ", once"
			if phase == "reindexing" {
				what = "rebuilding the search index from " + plural(total, "record")
			}
			a.note("%s: %s\n", phase, what)
			if u.bar == nil {
				u.bar = a.progressLine()
			}
		}
		if u.bar != nil {
			u.bar.update(phase, "records", done, total)
		}
	}
}

// lockWait is --lock-timeout as the store takes it: 0 means "do not
// wait", which the store (like bbolt, which reads 0 as for ever) would
// take for its default, so it becomes the shortest wait there is.
func (a *app) lockWait() time.Duration {
	if a.lockTimeout == 0 {
		return time.Nanosecond
	}
	return a.lockTimeout
}

// storeDirIfAny is the store the command line points at, or "" when there
// is none (commands that work without a store).
func (a *app) storeDirIfAny() string {
	dir, err := a.storeDir()
	if err != nil {
		return ""
	}
	return dir
}

// storeDir finds the store as git finds .git: --store, else LORE_STORE,
// else the nearest .lore/ from the working directory up.
func (a *app) storeDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return lore.Discover(a.storeFlag, wd)
}

// printJSON writes v as indented JSON with a trailing newline.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.streams.out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// printf writes human output to stdout.
func (a *app) printf(format string, args ...any) {
	fmt.Fprintf(a.streams.out, format, args...)
}

// note writes a human remark to stderr unless --quiet.
func (a *app) note(format string, args ...any) {
	if !a.quiet {
		fmt.Fprintf(a.streams.err, format, args...)
	}
}
