package mechanism

import (
	"context"
	"errors"
	"sync"
	"testing"
)

func TestSanitizeValuesContextProgress(t *testing.T) {
	p := Params{Epsilon: 1, Noise: NoiseLaplace, K: []int{40, 40}, H: 2}
	exact := make([]float64, 41*41) // 1681 values: 4 chunks of 512
	var mu sync.Mutex
	calls, maxDone := 0, 0
	syn, err := SanitizeValuesContext(context.Background(), exact, 0.01, p, func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		maxDone = max(maxDone, done)
		if total != len(exact) || done < 1 || done > total {
			t.Errorf("progress(%d, %d): want 1 ≤ done ≤ total = %d", done, total, len(exact))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 4 || maxDone != len(exact) {
		t.Errorf("progress: %d calls reaching %d; want 4 calls reaching %d", calls, maxDone, len(exact))
	}
	if syn.Scale <= 0 {
		t.Errorf("scale %g", syn.Scale)
	}
}

func TestSanitizeValuesContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := Params{Epsilon: 1, Noise: NoiseLaplace, K: []int{10}, H: 1}
	syn, err := SanitizeValuesContext(ctx, make([]float64, 11), 0.1, p, nil)
	if !errors.Is(err, context.Canceled) || syn != nil {
		t.Fatalf("cancelled: got %v, %v; want nil, context.Canceled", syn, err)
	}
}
