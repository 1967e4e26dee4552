package index

import (
	"cmp"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/blevesearch/bleve/v2"

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

	slots chan struct{} // one token per batch in flight; nil: batches are sent in turn
	wg    sync.WaitGroup
	mu    sync.Mutex
	err   error // the first failed batch's
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
	w.slots = make(chan struct{}, p)
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
	if w.slots == nil {
		return w.write(b)
	}
	w.slots <- struct{}{}
	if err := w.failed(); err != nil {
		<-w.slots
		return err
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer func() { <-w.slots }()
		if err := w.write(b); err != nil {
			w.mu.Lock()
			w.err = cmp.Or(w.err, err)
			w.mu.Unlock()
		}
	}()
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

func (w *writer) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// wait waits for the batches in flight and returns the first error.
func (w *writer) wait() error {
	w.wg.Wait()
	return w.failed()
}

// finish writes what is left, then the internal keys internal sets (nil:
// none). A writer that sends in turn puts them in its last batch; a
// parallel one writes them alone once every other batch has landed.
func (w *writer) finish(internal func(*bleve.Batch)) error {
	if w.slots == nil {
		if internal != nil {
			internal(w.batch)
		}
		return w.write(w.batch)
	}
	if w.docs > 0 {
		if err := w.send(); err != nil {
			w.wait()
			return err
		}
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
