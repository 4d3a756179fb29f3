package anchor

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// Python returns a Python 3 interpreter that can import numpy, or "".
func Python() string {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if err := exec.Command(py, "-c", "import numpy").Run(); err == nil {
			return py
		}
	}
	return ""
}

// Run runs python script args… and returns the figures of the lines
// "name value" of its standard output (other lines are ignored). A failed
// run or an unparsable value is an error quoting the script's stderr.
func Run(python, script string, args ...string) (map[string]float64, error) {
	cmd := exec.Command(python, append([]string{script}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %s: %v: %s", python, script, err, strings.TrimSpace(stderr.String()))
	}
	figures := map[string]float64{}
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			continue
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: line %q: %v", script, sc.Text(), err)
		}
		figures[f[0]] = v
	}
	return figures, sc.Err()
}

// WriteFloats writes v to path as little-endian float64 values (numpy's
// dtype "<f8"), the format the anchor scripts read.
func WriteFloats(path string, v []float64) error {
	buf := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(buf[8*i:], math.Float64bits(x))
	}
	return os.WriteFile(path, buf, 0o600)
}

// ReadFloats reads want little-endian float64 values written by an anchor
// script; a file of another length is an error.
func ReadFloats(path string, want int) ([]float64, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(raw) != 8*want {
		return nil, fmt.Errorf("%s: %d bytes, want %d float64 values", path, len(raw), want)
	}
	v := make([]float64, want)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	return v, nil
}
