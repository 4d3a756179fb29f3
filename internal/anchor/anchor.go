package anchor

import (
	"bufio"
	"bytes"
	"fmt"
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
