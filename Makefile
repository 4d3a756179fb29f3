# Bernstein Release — build, run and test.
#
#   make run    install missing system packages (Debian/Ubuntu), build, open the app on the demo data
#   make test   same set-up, then gofmt check, go vet (also GOOS=windows and darwin), staticcheck, go test -race ./...
#   make dist        release artifacts into dist/ (Linux tarball, Windows zip, SHA256SUMS; docs/install.md)
#   make dist-test   installs and runs them like a user would: Linux under Xvfb, Windows under Wine
#
# Everything else here is a helper of those two.

GO          ?= go
TAGS        := migrated_fynedo
BIN         := bernstein
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.7.0
GOBIN       := $(shell $(GO) env GOPATH)/bin
DEMO_DIR    ?= $(HOME)/.cache/bernstein-demo

# System packages Fyne needs to build on Debian/Ubuntu (cgo, OpenGL, X11, Wayland),
# plus openssh-client (a test verifies synopsis signatures with the real ssh-keygen)
# and python3-numpy (a test runs the documented numpy evaluator, docs/python.md).
# g++ brings libstdc++ for the embedded DuckDB's C++ library (project/aggregate/duckdb).
DEB_PACKAGES := gcc g++ pkg-config libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev \
	libxinerama-dev libxi-dev libxxf86vm-dev libwayland-dev libxkbcommon-dev openssh-client python3-numpy

# make test also starts a private PostgreSQL server (project/aggregate/duckdb's
# postgres test: initdb and pg_ctl on a socket in a temporary folder).
TEST_DEB_PACKAGES := postgresql

# make dist also needs the Windows cross compiler, xz, zip and python3 (scripts/dist.sh);
# make dist-test runs the packages under Xvfb and Wine (scripts/dist-test.sh).
DIST_DEB_PACKAGES := gcc-mingw-w64-x86-64 xz-utils zip python3 git
DIST_TEST_DEB_PACKAGES := wine64 libgl1-mesa-dri xvfb xauth x11-utils x11-apps netpbm xdotool desktop-file-utils unzip \
	shared-mime-info make

.PHONY: run test setup deps test-deps dist-deps dist-test-deps dist dist-test vet-cross build check fmt-check vet staticcheck gotest fuzz bench clean

run: setup build
	./$(BIN) demo-data --out $(DEMO_DIR) --force >/dev/null
	./$(BIN) --open $(DEMO_DIR)/kde-mixture.csv

test: setup test-deps fmt-check vet vet-cross staticcheck gotest

# setup installs the missing Debian packages when apt-get is available (as root
# or through sudo) and downloads the pinned Go modules.
setup: deps
	$(GO) mod download

# apt_install installs the missing Debian packages of its argument when
# apt-get is available (as root or through sudo).
define apt_install
	@missing=""; \
	if command -v dpkg-query >/dev/null 2>&1; then \
	  for p in $(1); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	  done; \
	fi; \
	if [ -n "$$missing" ]; then \
	  if command -v apt-get >/dev/null 2>&1; then \
	    SUDO=""; [ "$$(id -u)" = 0 ] || SUDO="sudo"; \
	    echo "Installing system packages:$$missing"; \
	    $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	  else \
	    echo "Missing system packages:$$missing (install them with your package manager)"; exit 1; \
	  fi; \
	fi
endef

deps:
	$(call apt_install,$(DEB_PACKAGES))

test-deps:
	$(call apt_install,$(DEB_PACKAGES) $(TEST_DEB_PACKAGES))

dist-deps:
	$(call apt_install,$(DEB_PACKAGES) $(DIST_DEB_PACKAGES))

dist-test-deps:
	$(call apt_install,$(DEB_PACKAGES) $(DIST_DEB_PACKAGES) $(DIST_TEST_DEB_PACKAGES))

# dist builds the release artifacts (scripts/dist.sh; RELEASE_KEY=path signs SHA256SUMS).
dist: setup dist-deps
	RELEASE_KEY="$(RELEASE_KEY)" GO="$(GO)" scripts/dist.sh

# dist-test tests the artifacts of make dist like a user would (scripts/dist-test.sh;
# RELEASE_SIGNERS=file also checks dist/SHA256SUMS.sig against a published allowed_signers line).
dist-test: dist-test-deps
	RELEASE_SIGNERS="$(RELEASE_SIGNERS)" GO="$(GO)" scripts/dist-test.sh

build:
	$(GO) build -tags $(TAGS) -o $(BIN) .

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet -tags $(TAGS) ./...

# vet-cross keeps the OS splits honest (the ledger lock has a non-unix
# variant): go vet for GOOS=windows and GOOS=darwin. Without cgo the packages
# that import Fyne's OpenGL driver (ui, the root command) cannot be checked for
# other systems, so they are left out. VET_CROSS_CGO=1 (with the mingw cross
# compiler of make dist-deps) vets GOOS=windows in full with cgo; it is not
# the default because it compiles Fyne's C code for Windows (over 10 minutes
# on 2 shared cores).
# On darwin, Fyne's widgets themselves need cgo (fyne.io/fyne/v2/internal/widget
# has cgo-only parts), so the packages that use them (ui/...) are left out there
# too: VET_CROSS_PKGS' second argument excludes packages depending on it.
VET_CROSS_PKGS = $$(GOOS=$(1) CGO_ENABLED=0 $(GO) list -e -tags $(TAGS) -f '{{if and (not .Error) (not .DepsErrors)}}{{.ImportPath}} {{join .Deps " "}}{{end}}' ./... | grep -Ev '$(2)' | cut -d' ' -f1)
vet-cross:
	GOOS=windows CGO_ENABLED=0 $(GO) vet -tags $(TAGS) $(call VET_CROSS_PKGS,windows,^$$)
	GOOS=darwin CGO_ENABLED=0 $(GO) vet -tags $(TAGS) $(call VET_CROSS_PKGS,darwin, fyne\.io/fyne/v2/internal/widget( |$$))
	@if [ -n "$(VET_CROSS_CGO)" ]; then \
	  echo "GOOS=windows CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc $(GO) vet -tags $(TAGS) ./..."; \
	  GOOS=windows CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc $(GO) vet -tags $(TAGS) ./...; \
	fi

staticcheck:
	@test -x $(GOBIN)/staticcheck || $(GO) install $(STATICCHECK)
	$(GOBIN)/staticcheck -tags $(TAGS) ./...

gotest:
	$(GO) test -tags $(TAGS) -race -timeout 30m ./...

# fuzz runs every fuzz target (every `func Fuzz…` in a *_test.go file, found
# anew each time) for FUZZTIME each, then prints a summary with each target's
# execution count, taken from the last "fuzz: elapsed: …, execs: N" line of
# `go test -fuzz -v`. FUZZTIME is an execution count (FUZZEXECS, "300000x"),
# not a duration: with a duration, Go 1.26's fuzzing coordinator can report
# the end of -fuzztime itself as a failure ("context deadline exceeded", no
# crasher written; golang/go#75804, fixed in Go 1.27), which failed CI once.
# A count has no deadline to race. 300000 executions take 15-60 s per target on
# a 2-core machine (FuzzLedgerRepair is the slowest). -fuzzminimizetime is
# kept short: with the default (60s) the time went on minimising inputs and
# targets ran a few dozen executions. A target that fails, or runs fewer than
# FUZZMINEXECS executions, fails the step; below FUZZWANTEXECS it prints a
# warning.
FUZZEXECS        ?= 300000
FUZZTIME         ?= $(FUZZEXECS)x
FUZZMINIMIZETIME ?= 1s
FUZZMINEXECS     ?= 10000
FUZZWANTEXECS    ?= 100000
fuzz:
	@log=$$(mktemp); summary=$$(mktemp); status=0; \
	for f in $$(grep -rl --include='*_test.go' '^func Fuzz' . | sort); do \
	  pkg=$$(dirname $$f); \
	  for t in $$(grep -o '^func Fuzz[A-Za-z0-9_]*' $$f | sed 's/func //'); do \
	    echo "fuzz $$pkg $$t ($(FUZZTIME))"; \
	    if $(GO) test -tags $(TAGS) -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) \
	        -fuzzminimizetime $(FUZZMINIMIZETIME) -v $$pkg >$$log 2>&1; then res=ok; else res=FAIL; status=1; cat $$log; fi; \
	    execs=$$(grep -o 'fuzz: elapsed: [^,]*, execs: [0-9]*' $$log | tail -n 1 | sed 's/.*execs: //'); \
	    execs=$${execs:-0}; \
	    if [ $$res = ok ] && [ $$execs -lt $(FUZZMINEXECS) ]; then res="FAIL (fewer than $(FUZZMINEXECS) executions)"; status=1; cat $$log; \
	    elif [ $$res = ok ] && [ $$execs -lt $(FUZZWANTEXECS) ]; then res="ok, WARNING: fewer than $(FUZZWANTEXECS) executions"; fi; \
	    printf '%-40s %12s executions  %s\n' "$$pkg $$t" $$execs "$$res" | tee -a $$summary; \
	  done; \
	done; \
	echo "fuzz summary ($(FUZZTIME) per target):"; cat $$summary; rm -f $$log $$summary; exit $$status

bench:
	$(GO) test -tags $(TAGS) -run '^$$' -bench . -benchtime 3x ./...

clean:
	rm -rf $(BIN) dist build
