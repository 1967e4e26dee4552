package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/lorekeep/lore/internal/numfmt"
	"github.com/lorekeep/lore/store"
)

// progress draws one line per phase of a long command on a terminal's
// stderr: a bar, done of total, the rate, the time spent and, once the
// rate is known, the time left. A finished phase leaves a line saying
// what it did and how long it took. It is safe for concurrent use.
type progress struct {
	w     io.Writer
	now   func() time.Time
	every time.Duration // least time between two redraws

	mu    sync.Mutex
	phase string
	unit  string
	done  int
	total int
	start time.Time
	drawn time.Time
	stop  chan struct{} // closes the ticker; nil when none runs
}

// rateAfter is how long a phase runs before a rate (and so a time left)
// is shown: the first moments of a phase say nothing true about its pace.
const rateAfter = 500 * time.Millisecond

func newProgress(w io.Writer, now func() time.Time) *progress {
	return &progress{w: w, now: now, every: 100 * time.Millisecond}
}

// withProgress returns ctx carrying p for the store's phases (ctx itself
// when p is nil).
func withProgress(ctx context.Context, p *progress) context.Context {
	if p == nil {
		return ctx
	}
	return store.WithProgress(ctx, func(phase string, done, total int) { p.update(phase, unitOf(phase), done, total) })
}

// progressLine is a progress on stderr, or nil where none is wanted.
func (a *app) progressLine() *progress {
	if a.quiet || a.streams.err != io.Writer(os.Stderr) || !isTerminal(os.Stderr) {
		return nil
	}
	p := newProgress(os.Stderr, time.Now)
	p.stop = make(chan struct{})
	go p.tick(250 * time.Millisecond)
	return p
}

// tick redraws the line every so often, so that a phase that reports
// nothing for a while (a commit, a large batch) still shows its time
// going by rather than a frozen line.
func (p *progress) tick(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			if p.phase != "" {
				now := p.now()
				p.drawn = now
				fmt.Fprintf(p.w, "\r\x1b[K%s", p.line(now))
			}
			p.mu.Unlock()
		}
	}
}

// close ends the current line and stops the ticker; nil does nothing.
func (p *progress) close() {
	if p == nil {
		return
	}
	p.end()
	if p.stop != nil {
		close(p.stop)
		p.stop = nil
	}
}

// unitOf names what a store phase counts.
func unitOf(phase string) string {
	switch phase {
	case "indexing":
		return "changes"
	case "linking":
		return "links"
	case "committing":
		return ""
	}
	return "records"
}

// update notes that phase has done of total units; a new phase ends the
// line of the one before.
func (p *progress) update(phase, unit string, done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if phase != p.phase {
		p.endLocked(now)
		p.phase, p.unit, p.start = phase, unit, now
		p.drawn = time.Time{}
	}
	p.done, p.total = done, total
	if now.Sub(p.drawn) < p.every && done < total {
		return
	}
	p.drawn = now
	fmt.Fprintf(p.w, "\r\x1b[K%s", p.line(now))
}

// end finishes the current phase's line; nil does nothing.
func (p *progress) end() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLocked(p.now())
	p.phase = ""
}

func (p *progress) endLocked(now time.Time) {
	if p.phase == "" {
		return
	}
	took := now.Sub(p.start)
	msg := fmt.Sprintf("%s: done in %s", p.phase, seconds(took))
	if p.unit != "" {
		msg = fmt.Sprintf("%s: %s in %s", p.phase, p.amount(p.done), seconds(took))
		if took >= rateAfter {
			msg += fmt.Sprintf(" (%s)", p.rate(p.done, took))
		}
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s\n", msg)
}

// line renders the current phase: "writing  [=====>     ]  48%  24,000/50,000 records  31,000 records/s  0.8s, 0.9s left".
func (p *progress) line(now time.Time) string {
	took := now.Sub(p.start)
	if p.unit == "" || p.total <= 0 {
		return fmt.Sprintf("%s... %s", p.phase, seconds(took))
	}
	const width = 24
	frac := min(float64(p.done)/float64(p.total), 1)
	fill := int(frac * width)
	bar := strings.Repeat("=", fill)
	if fill < width {
		bar += ">" + strings.Repeat(" ", width-fill-1)
	}
	s := fmt.Sprintf("%-15s [%s] %3d%%  %s/%s", p.phase, bar, int(frac*100), p.count(p.done), p.amount(p.total))
	if took < rateAfter || p.done == 0 {
		return s + "  " + seconds(took)
	}
	left := time.Duration(float64(took) * float64(p.total-p.done) / float64(p.done))
	return fmt.Sprintf("%s  %s  %s, %s left", s, p.rate(p.done, took), seconds(took), seconds(left))
}

// count is n in the phase's unit, without the unit name (bytes as MB).
func (p *progress) count(n int) string {
	if p.unit == "bytes" {
		return fmt.Sprintf("%.1f", float64(n)/1e6)
	}
	return numfmt.Thousands(n)
}

// amount is n with its unit: "50,000 records", "57.3 MB".
func (p *progress) amount(n int) string {
	if p.unit == "bytes" {
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return numfmt.Thousands(n) + " " + p.unit
}

func (p *progress) rate(done int, took time.Duration) string {
	per := float64(done) / took.Seconds()
	if p.unit == "bytes" {
		return fmt.Sprintf("%.1f MB/s", per/1e6)
	}
	return fmt.Sprintf("%s %s/s", numfmt.Thousands(int(per)), p.unit)
}

// seconds shows a duration to a tenth of a second ("0.4s", "12.0s", "2m05s").
func seconds(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// progressReader reports the bytes read through it as phase.
type progressReader struct {
	r       io.Reader
	p       *progress
	phase   string
	done    int
	total   int
	started bool
}

func (pr *progressReader) Read(b []byte) (int, error) {
	if !pr.started { // the phase starts before the first read, not after it
		pr.started = true
		pr.p.update(pr.phase, "bytes", 0, pr.total)
	}
	n, err := pr.r.Read(b)
	pr.done += n
	pr.p.update(pr.phase, "bytes", pr.done, pr.total)
	return n, err
}
