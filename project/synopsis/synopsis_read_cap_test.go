package synopsis

// Memory of the synopsis reader on huge and hostile files (issue 14 items 9
// and 12). The goal: peak heap ≤ 64 MB + 2× the coefficient array for any
// input file, valid or not. Read streams the file, so the tests
// also hold it to a tighter bound that a reader holding the file would
// break: what it allocates in all (memprobe's Allocated, an upper bound of
// the peak heap it adds) must stay within 2× the coefficient array plus
// streamSlack, while the files are several times larger than streamSlack.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hiddeco/sshsig"

	"github.com/bernsteinrelease/bernstein/internal/memprobe"
	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/keys"
)

const (
	// memGoalBase is the 64 MB of the goal "64 MB + 2× the coefficient array".
	memGoalBase = 64 << 20
	// streamSlack covers what the streaming reader needs besides the values:
	// the read buffer, the metadata and its decoding, the signature block,
	// the release's own structures (measured: under 1 MB).
	streamSlack = 8 << 20
)

// hostileStream is a synopsis-looking stream: head, then fill repeated
// until n bytes in all have been produced (then EOF). It counts what was
// read, and never holds more than one read's worth.
type hostileStream struct {
	head, fill []byte
	size, n    int64
}

func (h *hostileStream) Read(p []byte) (int, error) {
	if h.n >= h.size {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), h.size-h.n)]
	for i := range p {
		k := h.n + int64(i)
		if k < int64(len(h.head)) {
			p[i] = h.head[k]
		} else {
			p[i] = h.fill[(k-int64(len(h.head)))%int64(len(h.fill))]
		}
	}
	h.n += int64(len(p))
	return len(p), nil
}

// TestReadSynopsisSignatureBlockCap reproduces issue 14 item 9: a 501 MB
// file whose signature block is everything after a small payload made
// verify reach 2.69 GB RSS. The block is refused by its size alone
// (ErrTooLarge, field "signature") after reading at most the cap past its
// BEGIN line, with next to nothing allocated.
func TestReadSynopsisSignatureBlockCap(t *testing.T) {
	good := encodeSyn(t, smallSynFile(t), "alice")
	sig := synSigIndex(good)
	payload := good[:sig]
	head := append(bytes.Clone(payload), signatureBegin...)
	b64 := []byte(strings.Repeat("A", 64) + "\n")
	trust := synTrust(t, "alice")

	tests := []struct {
		name  string
		size  int64 // stated size; -1: unknown
		total int64 // bytes the stream has
		class error
	}{
		{"501 MB block, size stated", 501 << 20, 501 << 20, ErrTooLarge},
		{"501 MB block, size unknown", -1, 501 << 20, ErrTooLarge},
		{"one byte over the cap", -1, int64(len(payload)) + MaxSignatureBlockSize + 1, ErrTooLarge},
		{"at the cap: decoded, then refused as a signature", -1, int64(len(payload)) + MaxSignatureBlockSize, ErrBadSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &hostileStream{head: head, fill: b64, size: tt.total}
			var err error
			mem := memprobe.Measure(func() { _, err = Read(r, tt.size, trust) })
			if !errors.Is(err, tt.class) {
				t.Fatalf("got %v, want %v", err, tt.class)
			}
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Field != "signature" {
				t.Fatalf("error %v does not name the signature", err)
			}
			t.Logf("%v: read %d of %d bytes, allocated %d bytes, peak heap +%d", err, r.n, tt.total, mem.Allocated, mem.PeakHeap)
			if limit := int64(len(payload)) + MaxSignatureBlockSize + 2*synReadBuffer; r.n > limit {
				t.Errorf("read %d bytes; a block over the cap must be refused after at most %d", r.n, limit)
			}
			if mem.Allocated > 2<<20 {
				t.Errorf("allocated %d bytes to refuse the block; want ≤ 2 MiB", mem.Allocated)
			}
		})
	}
}

// largeSynFile writes a valid ℓ = 3, k = (90,90,90) density synopsis
// (753 571 values, 6 MB as float64) signed by the test key "alice" into
// dir, every value line 24 bytes long (the longest canonical form), so the
// file (18 MB) is three times its coefficient array and more than twice
// streamSlack.
func largeSynFile(t testing.TB, dir string, h int) (path string, f *File) {
	t.Helper()
	k := []int{90, 90, 90}
	rng := rand.New(rand.NewPCG(14, 9))
	vals := make([]float64, 91*91*91)
	for i := range vals {
		vals[i] = -(1 + rng.Float64()) * 1e-300 // "-1.2345678901234567e-300"
	}
	f = buildSynFile(t, synSpec{kind: learners.OutputDensity, k: k, h: h, values: vals})
	data := encodeSyn(t, f, "alice")
	path = filepath.Join(dir, fmt.Sprintf("large-h%d", h)+Ext)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, f
}

// TestReadSynopsisLargeFileMemory: an 18 MB valid file, and the same file
// damaged (one value changed: the signature fails after the whole payload
// was hashed and parsed), are read within 2× the coefficient array plus
// streamSlack in all — not the file's size — and so within the goal.
func TestReadSynopsisLargeFileMemory(t *testing.T) {
	for _, h := range []int{1, 3} {
		t.Run(fmt.Sprintf("h=%d", h), func(t *testing.T) { checkLargeFileMemory(t, h) })
	}
}

// checkLargeFileMemory is TestReadSynopsisLargeFileMemory at order h: the
// reader holds the values once, and with h ≥ 2 the synopsis holds the
// transformed coefficients too (mechanism.RestoreSynopsis keeps the values
// and transforms one copy in place), so 2× the coefficient array in all.
func checkLargeFileMemory(t *testing.T, h int) {
	dir := t.TempDir()
	path, want := largeSynFile(t, dir, h)
	coeff := uint64(len(want.Values)) * 8
	trust := synTrust(t, "alice")

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	damaged := filepath.Join(dir, "damaged"+Ext)
	i := bytes.LastIndex(data[:synSigIndex(data)], []byte("e-300\n")) - 1
	data[i] ^= 1 // another digit: still canonical, no longer signed
	if err := os.WriteFile(damaged, data, 0o644); err != nil {
		t.Fatal(err)
	}
	size := uint64(len(data))
	data = nil

	for _, c := range []struct {
		name, path string
		class      error
	}{{"valid", path, nil}, {"damaged", damaged, ErrBadSignature}} {
		t.Run(c.name, func(t *testing.T) {
			var v *Verified
			var err error
			mem := memprobe.Measure(func() { v, err = Open(c.path, trust) })
			if c.class == nil && err != nil {
				t.Fatal(err)
			}
			if c.class != nil && !errors.Is(err, c.class) {
				t.Fatalf("got %v, want %v", err, c.class)
			}
			t.Logf("%d-byte file, coefficient array %d bytes: allocated %d, peak heap +%d", size, coeff, mem.Allocated, mem.PeakHeap)
			if limit := 2*coeff + streamSlack; mem.Allocated > limit {
				t.Errorf("allocated %d bytes; want ≤ 2×%d + %d (the file is %d bytes and must not be held)", mem.Allocated, coeff, streamSlack, size)
			}
			if goal := memGoalBase + 2*coeff; mem.PeakHeap > goal {
				t.Errorf("peak heap +%d bytes; goal ≤ %d", mem.PeakHeap, goal)
			}
			if v != nil && (v.File.Values[0] != want.Values[0] || v.File.Values[len(want.Values)-1] != want.Values[len(want.Values)-1] || !v.Trusted) {
				t.Error("the values read differ from those written")
			}
		})
	}
}

// TestReadSynopsisHashAlgorithms: the streaming reader hashes the payload
// before it knows the signature's hash, so it keeps both SSHSIG hashes; a
// signature made with sha256 (ssh-keygen -Y sign -O hashalg=sha256) verifies
// as it did when the whole file was read first, and a sha256 signature over
// another payload does not.
func TestReadSynopsisHashAlgorithms(t *testing.T) {
	good := encodeSyn(t, smallSynFile(t), "alice")
	payload := good[:synSigIndex(good)]
	trust := synTrust(t, "alice")
	for _, h := range []sshsig.HashAlgorithm{sshsig.HashSHA256, sshsig.HashSHA512} {
		sig, err := sshsig.Sign(bytes.NewReader(payload), synSigner(t, "alice"), h, keys.Namespace)
		if err != nil {
			t.Fatal(err)
		}
		data := append(bytes.Clone(payload), sshsig.Armor(sig)...)
		if _, err := Read(bytes.NewReader(data), int64(len(data)), trust); err != nil {
			t.Errorf("%s: %v", h, err)
		}
		other := bytes.Replace(bytes.Clone(data), []byte("Test release"), []byte("Test relea5e"), 1)
		if _, err := Read(bytes.NewReader(other), int64(len(other)), trust); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s over changed content: %v, want ErrBadSignature", h, err)
		}
	}
}
