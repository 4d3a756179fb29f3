package viewer

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// viewerBatch is a batch of queries with the release's answers, in the
// form project shares with `bernstein eval`: row i is X[i*ℓ:(i+1)*ℓ] (data
// units), Value[i], NoiseStd[i] and, for classifiers, Class[i].
type viewerBatch = dataset.EvalResults

// viewerBatchChunk is the number of rows a worker evaluates between checks of the
// context and progress updates.
const viewerBatchChunk = 4096

// viewerMaxListed is how many offending rows an error lists.
const viewerMaxListed = 5

// viewerCheckBounds checks that every query lies within the public bounds of
// every feature before anything is evaluated. The error lists the first few
// offending data rows (1-based, counting from the first row after the
// header), with feature, value and bounds, and how many rows are affected.
func viewerCheckBounds(features []viewerFeature, x []float64) error {
	dim := len(features)
	if dim == 0 || len(x)%dim != 0 {
		panic(fmt.Sprintf("ui: viewerCheckBounds: %d values for %d features", len(x), dim)) // programmer misuse
	}
	var listed []string
	bad := 0
	for i := 0; i < len(x)/dim; i++ {
		for j, f := range features {
			v := x[i*dim+j]
			if v >= f.Lo && v <= f.Hi { // false for NaN
				continue
			}
			bad++
			if len(listed) < viewerMaxListed {
				listed = append(listed, fmt.Sprintf("row %d: %s = %s not in [%s, %s]",
					i+1, f.Name, viewerNum(v), viewerNum(f.Lo), viewerNum(f.Hi)))
			}
			break
		}
	}
	if bad == 0 {
		return nil
	}
	more := ""
	if bad > len(listed) {
		more = fmt.Sprintf("; … %d more", bad-len(listed))
	}
	return fmt.Errorf("%d query rows lie outside the public bounds, where the release says nothing (%s%s)",
		bad, strings.Join(listed, "; "), more)
}

// viewerEvalBatch evaluates the release at every row of x (row-major, data
// units, ℓ = r.dim() values per row) on all cores. It first checks every row
// against the public bounds (viewerCheckBounds), so it either evaluates all
// rows or none. progress, if not nil, is called from worker goroutines with
// the number of rows done, at most about 100 times, and finally with
// (total, total). It returns ctx.Err() when cancelled.
func viewerEvalBatch(ctx context.Context, r *viewerRelease, x []float64, progress func(done, total int)) (*viewerBatch, error) {
	dim := r.dim()
	if err := viewerCheckBounds(r.Features, x); err != nil {
		return nil, err
	}
	n := len(x) / dim
	res := &viewerBatch{X: x, Value: make([]float64, n), NoiseStd: make([]float64, n)}
	for _, f := range r.Features {
		res.Features = append(res.Features, f.Name)
	}
	if r.classifier() {
		res.Class = make([]string, n)
	}
	if n == 0 {
		if progress != nil {
			progress(0, 0)
		}
		return res, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var (
		next     atomic.Int64 // next chunk start
		done     atomic.Int64 // rows finished
		reported atomic.Int64 // last progress value reported
		errOnce  sync.Once
		firstErr error
		wg       sync.WaitGroup
	)
	step := int64(max(n/100, 1))
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err; cancel() })
	}
	workers := min(runtime.GOMAXPROCS(0), (n+viewerBatchChunk-1)/viewerBatchChunk)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				if ctx.Err() != nil {
					return
				}
				lo := int(next.Add(viewerBatchChunk)) - viewerBatchChunk
				if lo >= n {
					return
				}
				hi := min(lo+viewerBatchChunk, n)
				for i := lo; i < hi; i++ {
					v, s, err := r.eval.EvalData(x[i*dim : (i+1)*dim])
					if err != nil {
						fail(fmt.Errorf("row %d: %w", i+1, err))
						return
					}
					res.Value[i], res.NoiseStd[i] = v, s
					if res.Class != nil {
						res.Class[i], _ = r.eval.Class(v)
					}
				}
				d := done.Add(int64(hi - lo))
				if progress != nil {
					if last := reported.Load(); d-last >= step && d < int64(n) && reported.CompareAndSwap(last, d) {
						progress(int(d), n)
					}
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if progress != nil {
		progress(n, n)
	}
	return res, nil
}
