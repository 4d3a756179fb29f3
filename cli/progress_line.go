package cli

import (
	"fmt"
	"io"
	"sync"
)

// progressLine shows the progress of a long step on one terminal line
// ("evaluating F_D on the lattice:  42%"), rewritten in place with a
// carriage return and ended with a newline at 100%. It writes only when the
// percentage changes, so a caller may report as often as it likes; it is
// safe for concurrent use. A nil *progressLine ignores every report, which
// is what commands use when standard error is not a terminal (logs and
// pipes get no carriage returns).
type progressLine struct {
	w     io.Writer
	label string

	mu   sync.Mutex
	last int // last percentage written, −1 before the first
	done bool
}

// newProgressLine returns a progress line on e.Stderr, or nil if standard
// error is not a terminal.
func newProgressLine(e *env, label string) *progressLine {
	if e.StderrTerminal == nil || !e.StderrTerminal() {
		return nil
	}
	return &progressLine{w: e.Stderr, label: label, last: -1}
}

// report has the signature of the progress callbacks of release.Prepare
// and release.Options.NoiseProgress. Calls with total ≤ 0 are
// ignored.
func (p *progressLine) report(done, total int) {
	if p == nil || total <= 0 {
		return
	}
	pct := int(int64(min(max(done, 0), total)) * 100 / int64(total))
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done || pct == p.last {
		return
	}
	p.last = pct
	fmt.Fprintf(p.w, "\r%s %3d%%", p.label, pct)
	if pct == 100 {
		fmt.Fprintln(p.w)
		p.done = true
	}
}

// callback returns report as a func, or nil for a nil line (so that the
// callee skips progress bookkeeping entirely).
func (p *progressLine) callback() func(done, total int) {
	if p == nil {
		return nil
	}
	return p.report
}

// finish ends an unfinished line (after an error or cancellation) so that
// the next message starts on a fresh line.
func (p *progressLine) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.done && p.last >= 0 {
		fmt.Fprintln(p.w)
	}
	p.done = true
}
