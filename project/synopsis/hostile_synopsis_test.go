package synopsis

// Hostile synopsis files (issue 8, point 4): absurd dimensions, deep
// nesting, huge numbers of fields, and valid signatures over malformed
// content. Every file here carries a VALID signature by a trusted key, so
// the parser — not the signature check — must reject it, and must do so
// without large allocations.
//
// Memory cap. Read streams the file (issue 14 item 9), so the cap
// does not grow with the file's size nor with what the file claims:
// hostileHeadroom = 16 MiB, i.e.
// 16 × MaxMetadataSize — room for encoding/json to decode at most
// 1 MiB of metadata into Go values and re-encode it for the canonical-form
// check (the worst measured case, 10⁵ axes in 0.9 MB of metadata, takes
// 13.8 MB). A reader that trusted a declared lattice of 9·10⁶ values would
// allocate 72 MB on top of a 1.8 kB file. Error messages must stay short
// (≤ hostileMaxMessage bytes): they are shown in the viewer. Allocation is measured
// as the growth of runtime.MemStats.TotalAlloc over one call (the tests are
// not parallel; other goroutines can only make the figure larger, so a pass
// is conservative) and, for the count of allocations, with
// testing.AllocsPerRun.

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
)

const (
	hostileHeadroom   = 16 << 20
	hostileMaxMessage = 1024
)

// hostileBase is a valid ℓ = 3, k = (1,1,1) density payload (8 values),
// without its signature.
func hostileBase(t testing.TB) string {
	t.Helper()
	good := encodeSyn(t, buildSynFile(t, synSpec{kind: learners.OutputDensity, k: []int{1, 1, 1}}), "alice")
	return string(good[:synSigIndex(good)])
}

// allocatedBytes returns the bytes allocated while f runs.
func allocatedBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// mustReplace is strings.Replace of the first old, failing the test when old
// is absent (an edit that does not apply tests nothing).
func mustReplace(t testing.TB, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("edit target %.60q not in the payload", old)
	}
	return strings.Replace(s, old, new, 1)
}

const hostileK = "\"k\": [\n      1,\n      1,\n      1\n    ],"

func TestHostileSynopsisFiles(t *testing.T) {
	base := hostileBase(t)
	trust := synTrust(t, "alice")
	deep := func(depth int) string { return strings.Repeat("[", depth) + strings.Repeat("]", depth) }
	manyKeys := func(n int, val string) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, "      \"p%07d\": %s", i, val)
		}
		return b.String()
	}
	manyOnes := strings.TrimSuffix(strings.Repeat("      1,\n", 100_000), ",\n")
	cases := []struct {
		name     string
		edit     func(string) string
		class    error
		contains string // in the message
	}{
		// Absurd dimensions.
		{"lattice of 9·10⁶ values declared, 8 present", func(s string) string {
			s = mustReplace(t, s, hostileK, "\"k\": [\n      1000,\n      1000,\n      8\n    ],")
			s = mustReplace(t, s, `"count": 8,`, `"count": 9018009,`)
			return mustReplace(t, s, `"scale": 1,`, `"scale": 1127251.125,`)
		}, ErrMalformed, "9018009 values are declared"},
		{"lattice of 10⁹ values", func(s string) string {
			return mustReplace(t, s, hostileK, "\"k\": [\n      1000,\n      1000,\n      1000\n    ],")
		}, ErrTooLarge, "exceeds"},
		{"k overflows int64", func(s string) string {
			return mustReplace(t, s, hostileK, "\"k\": [\n      99999999999999999999999,\n      1,\n      1\n    ],")
		}, ErrMalformed, ""},
		{"k product overflows", func(s string) string {
			return mustReplace(t, s, hostileK, "\"k\": [\n      1000,\n      1000,\n      1000,\n      1000,\n      1000,\n      1000\n    ],")
		}, ErrTooLarge, ""},
		{"ℓ = 10⁵ axes", func(s string) string {
			return mustReplace(t, s, hostileK, "\"k\": [\n"+manyOnes+"\n    ],")
		}, ErrTooLarge, "axes"},
		{"negative count", func(s string) string { return mustReplace(t, s, `"count": 8,`, `"count": -8,`) }, ErrMalformed, "lattice.count"},
		// Deep nesting.
		{"params nested 10⁵ deep", func(s string) string {
			return mustReplace(t, s, "\"params\": {", "\"params\": "+deep(100_000)+", \"x\": {")
		}, ErrMalformed, ""},
		{"title nested 9000 deep", func(s string) string {
			return mustReplace(t, s, `"title": "Test release <density>",`, `"title": `+deep(9000)+`,`)
		}, ErrMalformed, ""},
		{"nesting beyond the metadata cap", func(s string) string {
			return mustReplace(t, s, `"title": "Test release <density>",`, `"title": `+deep(600_000)+`,`)
		}, ErrTooLarge, "metadata is larger"},
		// Huge numbers of fields.
		{"4·10⁴ unknown fields", func(s string) string {
			return mustReplace(t, s, "  \"title\":", manyKeys(40_000, "0")[4:]+",\n  \"title\":")
		}, ErrMalformed, "unknown field"},
		{"2·10⁴ learner parameters (canonical)", func(s string) string {
			return mustReplace(t, s, "\"params\": {\n      \"bandwidth\": [\n        0.1\n      ]\n    },",
				"\"params\": {\n"+manyKeys(20_000, "[\n        0.1\n      ]")+"\n    },")
		}, ErrTooLarge, "20000 parameters"},
		{"8000 feature bounds", func(s string) string {
			f := "      {\n        \"name\": \"x\",\n        \"unit\": \"\",\n        \"lo\": 0,\n        \"hi\": 1,\n        \"from_data\": false\n      }"
			return mustReplace(t, s, "\"features\": [\n", "\"features\": [\n"+strings.Repeat(f+",\n", 8000))
		}, ErrMalformed, ""},
		{"unknown field with a 500 kB name", func(s string) string {
			return mustReplace(t, s, "  \"title\":", "  \""+strings.Repeat("a", 500_000)+"\": 0,\n  \"title\":")
		}, ErrMalformed, "unknown field"},
		// Valid signatures over malformed content.
		{"metadata of 2 MiB", func(s string) string {
			return mustReplace(t, s, `"note": "`, `"note": "`+strings.Repeat(" ", 2<<20))
		}, ErrTooLarge, "metadata is larger"},
		{"value line of 16 MiB", func(s string) string {
			return mustReplace(t, s, "\n}\n", "\n}\n"+strings.Repeat("9", 16<<20)+"\n")
		}, ErrMalformed, "values[0]"},
		{"10⁶ extra value lines", func(s string) string { return s + strings.Repeat("0\n", 1_000_000) }, ErrMalformed, "after the 8 declared values"},
		{"binary after the magic line", func(s string) string {
			return mustReplace(t, s, "{\n", "\x00\xff\xfe{\n")
		}, ErrMalformed, ""},
		{"NUL bytes for values", func(s string) string {
			i := strings.Index(s, "\n}\n") + 3
			return s[:i] + strings.Repeat("\x00\n", 8)
		}, ErrMalformed, "values[0]"},
		{"values as JSON", func(s string) string {
			i := strings.Index(s, "\n}\n") + 3
			return s[:i] + "[" + deep(4096) + "]\n" + strings.Repeat("0\n", 7)
		}, ErrMalformed, "values[0]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			payload := c.edit(base)
			data := resignSyn(t, []byte(payload), "alice")
			var err error
			got := allocatedBytes(func() {
				_, err = Read(bytes.NewReader(data), int64(len(data)), trust)
			})
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, c.class) {
				t.Fatalf("error %v is not %v", err, c.class)
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FormatError", err)
			}
			if errors.Is(err, ErrBadSignature) {
				t.Fatalf("rejected by the signature check, not the parser: %v", err)
			}
			if c.contains != "" && !strings.Contains(err.Error(), c.contains) {
				t.Errorf("error %q does not mention %q", err, c.contains)
			}
			limit := uint64(hostileHeadroom)
			msg := len(err.Error())
			t.Logf("%d-byte file: %d bytes allocated (cap %d), %d-byte message: %.160s", len(data), got, limit, msg, err)
			switch {
			case got > limit:
				t.Errorf("allocated %d bytes for a %d-byte file; cap is %d whatever the file's size", got, len(data), hostileHeadroom)
			case msg > hostileMaxMessage:
				t.Errorf("error message of %d bytes; cap %d", msg, hostileMaxMessage)
			}
		})
	}
}

// TestHostileDeclaredSizes: a size larger than the cap, or a lattice count
// larger than the bytes present, is refused before anything that size is
// allocated. AllocsPerRun bounds the number of allocations and
// allocatedBytes their total.
func TestHostileDeclaredSizes(t *testing.T) {
	t.Run("stated size 1 TiB", func(t *testing.T) {
		r := strings.NewReader("bernstein-synopsis format 1\n")
		var err error
		allocs := testing.AllocsPerRun(10, func() {
			r.Reset("bernstein-synopsis format 1\n")
			_, err = Read(r, 1<<40, nil)
		})
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("got %v, want ErrTooLarge", err)
		}
		if allocs > 10 {
			t.Errorf("%.0f allocations to refuse a stated size of 1 TiB; want ≤ 10", allocs)
		}
	})
	t.Run("lattice of 9·10⁶ values declared", func(t *testing.T) {
		s := hostileBase(t)
		s = mustReplace(t, s, hostileK, "\"k\": [\n      1000,\n      1000,\n      8\n    ],")
		s = mustReplace(t, s, `"count": 8,`, `"count": 9018009,`)
		s = mustReplace(t, s, `"scale": 1,`, `"scale": 1127251.125,`)
		data := resignSyn(t, []byte(s), "alice")
		trust := synTrust(t, "alice")
		var err error
		allocs := testing.AllocsPerRun(5, func() {
			_, err = Read(bytes.NewReader(data), int64(len(data)), trust)
		})
		if !errors.Is(err, ErrMalformed) {
			t.Fatalf("got %v, want ErrMalformed", err)
		}
		got := allocatedBytes(func() { _, _ = Read(bytes.NewReader(data), int64(len(data)), trust) })
		t.Logf("%.0f allocations, %d bytes for a %d-byte file", allocs, got, len(data))
		// A reader that allocated the declared values would need 72 MB.
		if limit := uint64(len(data)) + 1<<20; got > limit {
			t.Errorf("allocated %d bytes; cap %d (the declared values alone would be %d)", got, limit, 9018009*8)
		}
		if allocs > 2000 {
			t.Errorf("%.0f allocations; want ≤ 2000", allocs)
		}
	})
}
