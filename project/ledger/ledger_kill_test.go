package ledger

import (
	"bufio"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/bernsteinrelease/bernstein/project/fileio"
)

// TestLedgerHelperProcess is not a test: TestLedgerKilledBeforeSynopsis runs
// the test binary with BERNSTEIN_LEDGER_HELPER set to act as a release that
// is killed after Reserve and before it writes its synopsis.
func TestLedgerHelperProcess(t *testing.T) {
	path := os.Getenv("BERNSTEIN_LEDGER_HELPER")
	if path == "" {
		return
	}
	l, err := Open(path)
	if err != nil {
		os.Exit(2)
	}
	out := filepath.Join(filepath.Dir(path), "synopsis.json")
	if _, err := l.Reserve(Entry{DatasetHash: hashA, Epsilon: 0.5, Output: out}, false); err != nil {
		os.Exit(3)
	}
	os.Stdout.WriteString("reserved\n")
	time.Sleep(time.Minute) // "computing the release"; killed here
	_ = fileio.WriteAtomic(out, []byte("{}"), 0o644, false)
	os.Exit(0)
}

// TestLedgerKilledBeforeSynopsis kills (SIGKILL on Unix) a process between
// its ledger write and its synopsis write: the spend stays recorded.
func TestLedgerKilledBeforeSynopsis(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.jsonl")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLedgerHelperProcess$")
	cmd.Env = append(os.Environ(), "BERNSTEIN_LEDGER_HELPER="+path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "reserved\n" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("helper said %q, %v", line, err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if _, err := os.Stat(filepath.Join(dir, "synopsis.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("synopsis exists (%v): the helper was not killed in time", err)
	}
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if eps, _ := l.Spent(hashA); math.Abs(eps-0.5) > tol || l.Torn() != nil {
		t.Errorf("after the kill: Spent = %v, torn %v; want 0.5, nil", eps, l.Torn())
	}
}
