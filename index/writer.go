package index

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/blevesearch/bleve/v2"
	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lore/store"
)

// Writes of many records keep several batches in flight. Scorch builds
// each batch's segment on the calling goroutine after its analysis, so one
// batch at a time leaves every core but one idle while the segment is
// built (two thirds of an ingest's index time), and waits for each
// segment's fsync in turn. Batches in flight build their segments side by
// side, and the persister writes them out together.
//
// Inputs below parallelMinDocs records go in one batch with their internal
// keys, as before: a single put pays one persist wait, not two.
const parallelMinDocs = 256

// maxInFlight is how many batches a writer keeps in flight: one per core,
// at most 4 (analysis memory grows with it; see maxBatchBytes).
func maxInFlight() int { return min(4, runtime.GOMAXPROCS(0)) }

// writer fills bleve batches and sends each when it reaches its limits.
// Batches of a parallel writer are sent on their own goroutines; finish
// waits for them before it writes the internal keys in a batch of their
// own, so an index never holds a watermark past a change it lacks.
type writer struct {
	ix                *Index
	batch             *bleve.Batch
	docs, bytes       int
	maxDocs, maxBytes int

	// inFlight runs a parallel writer's batches, at most maxInFlight at
	// once, and keeps the first error; failed is done once one has
	// failed. Both are nil for a writer that sends in turn.
	inFlight *errgroup.Group
	failed   context.Context
}

// newWriter returns a writer for about n records and deletions (-1: a
// stream of unknown length). A parallel writer splits its input so that
// every batch in flight gets a share, within the sub-batch limits, and
// divides the byte limit among them so memory in flight stays as it was.
func (ix *Index) newWriter(n int) *writer {
	w := &writer{ix: ix, batch: ix.bi.NewBatch(), maxDocs: maxBatchDocs, maxBytes: maxBatchBytes}
	p := maxInFlight()
	if p < 2 || (n >= 0 && n < parallelMinDocs) {
		return w
	}
	w.inFlight, w.failed = errgroup.WithContext(context.Background())
	w.inFlight.SetLimit(p)
	w.maxBytes = maxBatchBytes / p
	if n >= 0 {
		w.maxDocs = min(maxBatchDocs, (n+p-1)/p)
	} else {
		w.maxDocs = maxBatchDocs / p
	}
	return w
}

func (w *writer) full() bool {
	return w.docs >= w.maxDocs || w.bytes >= w.maxBytes
}

func (w *writer) put(r *store.Record) error {
	if w.full() {
		if err := w.send(); err != nil {
			return err
		}
	}
	if err := w.batch.IndexAdvanced(w.ix.b.document(r)); err != nil {
		return fmt.Errorf("index %s: record %s/%s: %w", w.ix.dir, r.NS, r.ID, err)
	}
	w.docs++
	w.bytes += textBytes(r)
	return nil
}

func (w *writer) delete(k Key) error {
	if w.full() {
		if err := w.send(); err != nil {
			return err
		}
	}
	w.batch.Delete(docID(k.NS, k.ID))
	w.docs++
	return nil
}

// send writes the current batch (on its own goroutine when the writer is
// parallel) and starts a new one. It returns the error of any batch that
// has failed so far, so a failing write stops the input early.
func (w *writer) send() error {
	b := w.batch
	// A new batch, not Reset: scorch's Batch can return while its feeder
	// goroutine is still ranging over the old batch's map (a data race
	// under -race).
	w.batch = w.ix.bi.NewBatch()
	w.docs, w.bytes = 0, 0
	if w.inFlight == nil {
		return w.write(b)
	}
	if w.failed.Err() != nil {
		return w.wait()
	}
	w.inFlight.Go(func() error { return w.write(b) }) // waits for a free slot
	return nil
}

// write sends b to bleve. It recovers a panic itself, as the calls that
// read bleve do, because a parallel writer runs it on its own goroutine.
func (w *writer) write(b *bleve.Batch) (err error) {
	defer recoverCorrupt(w.ix.dir, &err, debug.SetPanicOnFault(true))
	if err := w.ix.bi.Batch(b); err != nil {
		return fmt.Errorf("index %s: write batch: %w", w.ix.dir, err)
	}
	return nil
}

// wait waits for the batches in flight and returns the first error.
func (w *writer) wait() error {
	if w.inFlight == nil {
		return nil
	}
	return w.inFlight.Wait()
}

// finish writes what is left, then the internal keys internal sets (nil:
// none). A writer that sends in turn puts them in its last batch; a
// parallel one writes them alone once every other batch has landed.
func (w *writer) finish(internal func(*bleve.Batch)) error {
	if w.inFlight == nil {
		if internal != nil {
			internal(w.batch)
		}
		return w.write(w.batch)
	}
	if w.docs > 0 {
		w.send() // its error, if any, is wait's too
	}
	if err := w.wait(); err != nil {
		return err
	}
	if internal == nil {
		return nil
	}
	b := w.ix.bi.NewBatch()
	internal(b)
	return w.write(b)
}
