package cli

import (
	"os"
	"strings"
	"testing"
)

// TestTinyBandwidthRefusalIsPublic (issue 13 item 5, adversarial review):
// `release --learner kde --k 4 --param bandwidth=1e-200` used to succeed on
// one file and fail with "oracle returned NaN" on a neighbour with a record
// at the lattice coordinate 0.5, revealing the record. Both neighbours now
// get the same public parameter refusal (exit 2, before any spend), and
// both release at the smallest accepted bandwidth, 1e-6.
func TestTinyBandwidthRefusalIsPublic(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.testKey(t)
	files := map[string]string{"off.csv": "x\n0.1\n0.3\n0.9\n", "on.csv": "x\n0.1\n0.5\n0.9\n"}
	for name, body := range files {
		if err := os.WriteFile(w.path(name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := func(data, bw, out string) []string {
		a := w.kdeRelease(w.path(out), "--ledger", w.path(data+".ledger"))
		a[indexOf(a, "--data")+1] = w.path(data)
		a[indexOf(a, "--param")+1] = "bandwidth=" + bw
		a[indexOf(a, "--k")+1] = "4"
		return a
	}
	var stderrs []string
	for _, data := range []string{"off.csv", "on.csv"} {
		r := te.run(args(data, "1e-200", data+".tiny.synopsis")...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "bandwidth") {
			t.Errorf("%s, bandwidth 1e-200: exit %d, stderr %q; want a bandwidth usage error", data, r.code, r.stderr)
		}
		stderrs = append(stderrs, strings.ReplaceAll(r.stderr, data, "DATA"))
		te.mustRun(t, args(data, "1e-6", data+".synopsis")...)
	}
	if stderrs[0] != stderrs[1] {
		t.Errorf("the refusals differ between neighbours:\n%s\n%s", stderrs[0], stderrs[1])
	}
}
