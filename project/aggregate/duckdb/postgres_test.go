//go:build linux && cgo

package duckdb

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/aggregate"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// pgServer is a private PostgreSQL server started by a test: its own
// cluster in a temporary folder, listening only on a Unix socket in that
// folder, stopped when the test ends.
type pgServer struct {
	bin    string // folder of initdb, pg_ctl, psql
	dir    string // base folder (cluster, socket, files)
	runAs  []string
	socket string
}

// pgBinaries finds initdb, pg_ctl and psql on PATH or in Debian's
// /usr/lib/postgresql/<version>/bin.
func pgBinaries() (string, bool) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := exec.LookPath("pg_ctl"); err == nil {
			return filepath.Dir(p), true
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i], true
		}
	}
	return "", false
}

// startPostgres starts a private server. PostgreSQL refuses to run as
// root: as root the server and psql run as the user "postgres" (Debian's
// package creates it) or "nobody", through runuser. It skips the test,
// visibly, only where the PostgreSQL binaries are absent, and never in CI
// (CI set: .ci/run installs them through make test, so their absence there
// fails the test instead of hiding it).
func startPostgres(t *testing.T) *pgServer {
	t.Helper()
	skip := t.Skip
	if os.Getenv("CI") != "" {
		skip = t.Fatal
	}
	bin, ok := pgBinaries()
	if !ok {
		skip("SKIPPED: PostgreSQL binaries (initdb, pg_ctl) not found on PATH or in /usr/lib/postgresql/*/bin; install the Debian package postgresql (make test does)")
	}
	if _, err := exec.LookPath("psql"); err != nil {
		if _, err := os.Stat(filepath.Join(bin, "psql")); err != nil {
			skip("SKIPPED: psql not found; install the Debian package postgresql-client")
		}
	}
	dir, err := os.MkdirTemp("", "bernstein-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &pgServer{bin: bin, dir: dir, socket: filepath.Join(dir, "sock")}
	if err := os.Mkdir(s.socket, 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		name := "postgres"
		u, err := user.Lookup(name)
		if err != nil {
			name = "nobody"
			if u, err = user.Lookup(name); err != nil {
				t.Fatalf("running as root and neither user postgres nor nobody exists: %v", err)
			}
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		for _, p := range []string{dir, s.socket} {
			if err := os.Chown(p, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
		s.runAs = []string{"runuser", "-u", name, "--"}
	}
	s.run(t, "initdb", "-D", filepath.Join(dir, "data"), "-U", "bernstein", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync")
	s.run(t, "pg_ctl", "-D", filepath.Join(dir, "data"), "-l", filepath.Join(dir, "log"), "-w", "-t", "60",
		"-o", "-k "+s.socket+" -c listen_addresses= -c fsync=off -p 5432", "start")
	t.Cleanup(func() {
		cmd := s.command("pg_ctl", "-D", filepath.Join(dir, "data"), "-m", "immediate", "-w", "stop")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("pg_ctl stop: %v\n%s", err, out)
		}
	})
	return s
}

func (s *pgServer) command(name string, args ...string) *exec.Cmd {
	path := filepath.Join(s.bin, name)
	if _, err := os.Stat(path); err != nil {
		path = name
	}
	argv := append(append([]string(nil), s.runAs...), path)
	argv = append(argv, args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "PGTZ=UTC")
	return cmd
}

func (s *pgServer) run(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := s.command(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
			t.Fatalf("%s %s: %v\n%s\n%s\nserver log:\n%s", name, strings.Join(args, " "), err, out.String(), errb.String(), log)
		}
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("%s: no answer in 2 minutes", name)
	}
	return out.Bytes()
}

// psql runs the SQL file holding text and returns its standard output.
func (s *pgServer) psql(t *testing.T, text string) []byte {
	t.Helper()
	f := filepath.Join(s.dir, fmt.Sprintf("q%d.sql", time.Now().UnixNano()))
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return s.run(t, "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", s.socket, "-p", "5432", "-U", "bernstein", "-d", "postgres", "-f", f)
}

// loadTable creates the table records with the spec's columns as text and
// copies the CSV file into it.
func (s *pgServer) loadTable(t *testing.T, spec aggregate.Spec, csvPath string) {
	t.Helper()
	data, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(s.dir, "data.csv")
	if err := os.WriteFile(local, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, f := range spec.Features {
		cols = append(cols, aggregate.QuoteIdent(aggregate.Postgres, f.Name)+" text")
	}
	if spec.Label != nil {
		cols = append(cols, aggregate.QuoteIdent(aggregate.Postgres, spec.Label.Name)+" text")
	}
	s.psql(t, "DROP TABLE IF EXISTS records;\nCREATE TABLE records ("+strings.Join(cols, ", ")+");\n"+
		`\copy records FROM '`+local+`' WITH (FORMAT csv, HEADER true)`+"\n")
}

// aggregate runs spec's postgres query on records and reads its table.
func (s *pgServer) aggregate(t *testing.T, spec aggregate.Spec) *aggregate.Result {
	t.Helper()
	q, err := aggregate.Query(spec, aggregate.Postgres, aggregate.Table("records"))
	if err != nil {
		t.Fatal(err)
	}
	body := strings.TrimSuffix(strings.TrimSpace(q), ";")
	out := s.psql(t, "COPY (\n"+body+"\n) TO STDOUT WITH (FORMAT csv, HEADER true);\n")
	p := filepath.Join(t.TempDir(), "pg-result.csv")
	if err := os.WriteFile(p, out, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := aggregate.ReadResultCSV(p, spec, aggregate.Postgres)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return r
}

// pgJunk is junk without values beyond the double range, which
// PostgreSQL's cast refuses (docs/aggregates.md; TestPostgresRefusesOutOfRange).
var pgJunk = []string{"", "NaN", "abc", "1_0", "inf", "-Infinity", "0x10", "1,5", "--1", "."}

// TestPostgresMatchesDuckDB runs the postgres-dialect query on a private
// PostgreSQL server and the duckdb-dialect query on the embedded DuckDB over
// the same records (generated with junk values, hostile column names): the
// KDE and naive Bayes counts are equal, the ridge sums agree to 1e-9
// relative, and the fitted functions (hence the release lattices) agree.
func TestPostgresMatchesDuckDB(t *testing.T) {
	s := startPostgres(t)
	saved := junk
	junk = pgJunk
	defer func() { junk = saved }()
	ctx := context.Background()
	dir := t.TempDir()
	nb := kdeSpec("a", "b")
	nb.Learner = learners.KindNaiveBayes
	nb.Label = &aggregate.Label{Name: "label", Classes: &dataset.Classes{Negative: "no", Positive: "1"}, FillClass: 1}
	specs := map[string]aggregate.Spec{
		"kde":         kdeSpec(`x"; DROP TABLE records; --`, "it's /* c`d"),
		"naive-bayes": nb,
		"ridge":       ridgeSpec(),
	}
	for name, spec := range specs {
		t.Run(name, func(t *testing.T) {
			spec.N = 1500
			path := filepath.Join(dir, name+".csv")
			writeData(t, path, spec, spec.N, 8, true)
			s.loadTable(t, spec, path)
			pg := s.aggregate(t, spec)
			src, _ := Open(path)
			duck, err := Run(ctx, spec, src, Options{})
			if err != nil {
				t.Fatal(err)
			}
			switch spec.Learner {
			case learners.KindKDE:
				if got, want := resultCells(pg), resultCells(duck); !maps.Equal(got, want) {
					t.Errorf("PostgreSQL and DuckDB counts differ: %v", diff(got, want))
				}
			case learners.KindNaiveBayes:
				key := func(r *aggregate.Result) map[string]int64 {
					m := map[string]int64{}
					for i, c := range r.Counts {
						m[fmt.Sprintf("%d %d %d", r.Class[i], r.Axis[i], r.Cells[i])] = c
					}
					return m
				}
				if got, want := key(pg), key(duck); !maps.Equal(got, want) {
					t.Errorf("PostgreSQL and DuckDB counts differ: %v", diff(got, want))
				}
			case learners.KindRidge:
				if pg.Records != duck.Records {
					t.Errorf("records: PostgreSQL %d, DuckDB %d", pg.Records, duck.Records)
				}
				for _, pair := range [][2][]float64{{pg.SumX, duck.SumX}, {pg.SumXX, duck.SumXX}, {pg.SumXY, duck.SumXY}, {{pg.SumY}, {duck.SumY}}} {
					for i := range pair[0] {
						if a, b := pair[0][i], pair[1][i]; math.Abs(a-b) > 1e-9*math.Max(1, math.Abs(b)) {
							t.Errorf("sum: PostgreSQL %v, DuckDB %v", a, b)
						}
					}
				}
			}
			vals := learners.Values{"bandwidth": {0.05}}
			if spec.Learner == learners.KindRidge {
				vals = learners.Values{"C": {3}}
			}
			fp, err := pg.Fit(ctx, vals)
			if err != nil {
				t.Fatal(err)
			}
			fd, err := duck.Fit(ctx, vals)
			if err != nil {
				t.Fatal(err)
			}
			if fp.Sensitivity != fd.Sensitivity {
				t.Errorf("S: PostgreSQL %v, DuckDB %v", fp.Sensitivity, fd.Sensitivity)
			}
			dim := len(spec.Features)
			y := make([]float64, dim)
			for i := range 200 {
				for j := range y {
					y[j] = float64((i*7+j*3)%11) / 10
				}
				if a, b := fp.Oracle.Eval(y), fd.Oracle.Eval(y); math.Abs(a-b) > 1e-9*fd.OutputRange[1] {
					t.Fatalf("F(%v): PostgreSQL %v, DuckDB %v", y, a, b)
				}
			}
		})
	}
}

// TestPostgresRefusesOutOfRange pins the documented difference: a value
// in the number syntax beyond the double range fails PostgreSQL's query
// (nothing is released), where DuckDB fills it.
func TestPostgresRefusesOutOfRange(t *testing.T) {
	s := startPostgres(t)
	spec := kdeSpec("age")
	path := filepath.Join(t.TempDir(), "big.csv")
	if err := os.WriteFile(path, []byte("age\n1\n1e999\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.loadTable(t, spec, path)
	q, err := aggregate.Query(spec, aggregate.Postgres, aggregate.Table("records"))
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(s.dir, "big.sql")
	if err := os.WriteFile(f, []byte(q), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := s.command("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", s.socket, "-p", "5432", "-U", "bernstein", "-d", "postgres", "-f", f).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "out of range") {
		t.Errorf("PostgreSQL on 1e999: %v\n%s", err, out)
	}
	src, _ := Open(path)
	res, err := Run(context.Background(), spec, src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Counts) != 2 { // 1 and the fill 50
		t.Errorf("DuckDB: %d cells, want 2 (1e999 filled)", len(res.Counts))
	}
}
