package main

import (
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const modulePath = "github.com/bernsteinrelease/bernstein"

// allowedImports is the house plan of docs/architecture.md ("Rooms" and
// "Arrows"): for each package of ours, the packages of ours it may import.
// A package missing from this table fails the test, so a new room must be
// placed on the plan (and in docs/architecture.md) before it compiles in.
var allowedImports = map[string][]string{
	"":                         {"cli", "ui/curator", "ui/viewer", "project/ledger"},
	"cli":                      {"cli/figure", "cli/flagvalue", "project", "project/aggregate", "project/fileio", "project/keys", "project/synopsis", "project/dataset", "project/ledger", "project/release", "learners", "mechanism", "privacywords", "study"},
	"cli/figure":               {"project/dataset", "project/fileio", "learners", "mechanism", "plotting", "study"},
	"cli/flagvalue":            {"project/dataset"},
	"ui/curator":               {"project", "project/fileio", "project/keys", "project/synopsis", "project/dataset", "project/ledger", "project/release", "project/aggregate", "learners", "mechanism", "mechanism/peers", "plotting", "icons", "study", "privacywords", "ui/curator/preview", "ui/internal/widgets", "ui/internal/files", "ui/internal/trust"},
	"ui/viewer":                {"project", "project/fileio", "project/keys", "project/synopsis", "project/dataset", "project/ledger", "project/release", "learners", "mechanism", "mechanism/peers", "plotting", "icons", "study", "privacywords", "ui/internal/widgets", "ui/internal/files", "ui/internal/trust"},
	"ui/curator/preview":       {"project/release", "project/synopsis", "learners", "mechanism", "plotting", "study"},
	"ui/internal/widgets":      {"plotting"},
	"ui/internal/files":        {"project/release", "ui/internal/widgets"},
	"ui/internal/trust":        {"project/keys", "project/fileio", "ui/internal/files", "ui/internal/widgets"},
	"ui/internal/uitest":       {},
	"study":                    {"learners", "mechanism", "mechanism/peers", "internal/gemm"},
	"plotting":                 {},
	"project":                  {"project/ledger", "project/dataset", "project/synopsis", "project/fileio", "learners", "mechanism"},
	"project/internal/fsops":   {},
	"project/internal/golden":  {},
	"project/fileio":           {"project/internal/fsops"},
	"project/keys":             {"project/fileio"},
	"project/synopsis":         {"project/keys", "project/fileio", "learners", "mechanism", "mechanism/peers"},
	"project/dataset":          {"project/synopsis", "project/fileio", "learners"},
	"project/ledger":           {"project/dataset", "project/fileio", "project/internal/fsops"},
	"project/aggregate":        {"project/dataset", "project/fileio", "learners", "mechanism"},
	"project/aggregate/duckdb": {"project/aggregate", "project/dataset", "learners"},
	"project/release":          {"project/aggregate", "project/aggregate/duckdb", "project/ledger", "project/dataset", "project/synopsis", "project/keys", "project/fileio", "learners", "mechanism", "mechanism/peers"},
	"learners":                 {"mechanism", "internal/gemm", "internal/vexp"},
	"mechanism":                {"internal/gemm"},
	"privacywords":             {"mechanism"},
	"mechanism/peers":          {"mechanism", "internal/gemm"},
	"icons":                    {},
	"audit":                    {},
	"internal/memprobe":        {},
	"internal/gemm":            {},
	"internal/vexp":            {},
	"internal/anchor":          {},
	"scripts/winres":           {},
}

// TestImportDirection checks that every package of ours imports only what
// docs/architecture.md allows (production imports; tests may reach further).
func TestImportDirection(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	out, err := exec.Command("go", "list", "-tags", "migrated_fynedo",
		"-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := ours(fields[0])
		allowed, known := allowedImports[pkg]
		if !known {
			t.Errorf("package %q is not on the house plan (allowedImports, docs/architecture.md)", fields[0])
			continue
		}
		var bad []string
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, modulePath) {
				continue
			}
			if dep := ours(imp); !contains(allowed, dep) {
				bad = append(bad, dep)
			}
		}
		if len(bad) > 0 {
			sort.Strings(bad)
			t.Errorf("%q imports %v; the plan allows %v", pkg, bad, allowed)
		}
	}
}

// ours returns the path of a package of ours relative to the module ("" for
// the root).
func ours(importPath string) string {
	return strings.TrimPrefix(strings.TrimPrefix(importPath, modulePath), "/")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
