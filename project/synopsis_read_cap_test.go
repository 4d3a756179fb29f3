package project

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

func TestReadAllCapped(t *testing.T) {
	big := bytes.Repeat([]byte("abcdefgh"), 50_000) // 400 000 bytes: several growth steps
	tests := []struct {
		name string
		r    io.Reader
		max  int64
		want []byte
	}{
		{"empty", bytes.NewReader(nil), 10, []byte{}},
		{"shorter than max", bytes.NewReader(big[:5]), 10, big[:5]},
		{"exactly max", bytes.NewReader(big[:10]), 10, big[:10]},
		{"longer than max stops at max", bytes.NewReader(big), 10, big[:10]},
		{"large, byte by byte", iotest.OneByteReader(bytes.NewReader(big)), int64(len(big)) + 1, big},
		{"large, data and EOF together", iotest.DataErrReader(bytes.NewReader(big)), int64(len(big)) + 1, big},
		{"large, capped mid-way", bytes.NewReader(big), 300_001, big[:300_001]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAllCapped(tt.r, tt.max)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Fatalf("got %d bytes, want %d", len(got), len(tt.want))
			}
			if int64(cap(got)) > tt.max {
				t.Errorf("buffer capacity %d exceeds the cap %d", cap(got), tt.max)
			}
		})
	}
	boom := errors.New("disk on fire")
	if _, err := readAllCapped(iotest.ErrReader(boom), 10); !errors.Is(err, boom) {
		t.Errorf("read error: got %v, want %v", err, boom)
	}
}
