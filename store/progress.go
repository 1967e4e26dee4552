package store

import "context"

// Progress is told how far a long operation has come: phase names the
// step ("counting tokens", "writing", "linking", "committing",
// "indexing" in changes of the log, "reindexing" in records), done of
// total items.
// It may be called from several goroutines at once, and often: it should
// only note the numbers (a renderer throttles its own output).
type Progress func(phase string, done, total int)

type progressKey struct{}

// WithProgress returns a context that carries p to the writes and index
// updates made with it (PutManyContext, RestoreContext, and the facade's
// import and reindex).
func WithProgress(ctx context.Context, p Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// ProgressFrom returns the Progress ctx carries, or one that does nothing.
func ProgressFrom(ctx context.Context) Progress {
	if p, ok := ctx.Value(progressKey{}).(Progress); ok && p != nil {
		return p
	}
	return func(string, int, int) {}
}
