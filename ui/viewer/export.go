package viewer

import (
	"bytes"
	"context"
	"io"
)

// viewerWriteCSV writes a batch result as CSV to w with project's writer,
// shared with `bernstein eval --out` ((*dataset.EvalResults).WriteCSV:
// header dataset.EvalHeader — the feature columns, value, noise_std and,
// for classifiers, class — then typed rows marshalled with gocsv, numbers in
// the shortest form that reads back exactly). It adds what the window needs:
// progress (rows written, reported on the calling goroutine at most about
// 100 times) and cancellation (ctx.Err(), leaving w partly written; callers
// write to a buffer or temporary file).
func viewerWriteCSV(ctx context.Context, w io.Writer, b *viewerBatch, progress func(done, total int)) error {
	pw := &viewerRowCounter{w: w, ctx: ctx, progress: progress, total: b.Len(), step: max(b.Len()/100, 1)}
	if err := b.WriteCSV(pw); err != nil {
		return err
	}
	if progress != nil {
		progress(b.Len(), b.Len())
	}
	return nil
}

// viewerRowCounter passes writes through, counting the rows written (line
// ends after the header; result rows hold numbers and class labels, which
// never contain a line break) for progress, and fails once ctx is done.
type viewerRowCounter struct {
	w        io.Writer
	ctx      context.Context
	progress func(done, total int)
	header   bool // the header's line end was seen
	rows     int
	total    int
	step     int
	next     int
}

func (c *viewerRowCounter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n := bytes.Count(p, []byte{'\n'})
	if n > 0 && !c.header {
		c.header = true
		n--
	}
	c.rows += n
	if c.progress != nil && c.rows >= c.next && c.rows < c.total {
		c.progress(c.rows, c.total)
		c.next = c.rows + c.step
	}
	return c.w.Write(p)
}
