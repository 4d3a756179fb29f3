#!/usr/bin/env bash
# scripts/dist-test.sh — tests the artifacts of `make dist` like a user would
# (run by `make dist-test`; docs/install.md describes what it checks).
#
#  1. dist/SHA256SUMS matches; tarball and zip are at most 40 MB each; a copy
#     signed with a throwaway key (scripts/dist-sign.sh) passes the user's
#     ssh-keygen -Y verify, a changed copy does not (RELEASE_SIGNERS=FILE
#     also verifies a real dist/SHA256SUMS.sig).
#  2. Linux: unpacks the tarball, runs its Makefile's `install` into a
#     temporary prefix, checks the desktop entry with desktop-file-validate and
#     the MIME registration, runs the installed binary through version,
#     demo-data, keygen, release, verify, eval; opens the curator under Xvfb,
#     times the cold start to a mapped window and takes a screenshot
#     (docs/screenshots/install-linux.png); makes a first release in the
#     installed app, creating the curator key on first export
#     (scripts/dist-test-gui.sh, docs/screenshots/installed-*.png); runs `uninstall`.
#  3. Windows: unzips, checks that both executables carry the same icon and
#     a version resource matching FyneApp.toml (scripts/winres), runs
#     bernstein-cli.exe under Wine (own WINEPREFIX with the test-only
#     ProcessPrng shim, scripts/wine-shim) through the same round trip,
#     compares its eval output with the Linux binary's to 1e-12, and tries a screenshot of bernstein.exe's window
#     (docs/screenshots/install-windows-wine.png); a window that does not
#     appear is reported, not a failure (docs/install.md says why).
# Everything runs in a temporary HOME; nothing outside it and docs/screenshots/ is touched
# (the Go caches are used before HOME changes, to build scripts/winres).
set -euo pipefail
cd "$(dirname "$0")/.."
MINGW_CC=${MINGW_CC:-x86_64-w64-mingw32-gcc}
GO=${GO:-go}
MAX_BYTES=$((40 * 1024 * 1024))
TOL=1e-12

say() { printf '== %s\n' "$*"; }
fail() { printf 'dist-test: FAIL: %s\n' "$*" >&2; exit 1; }

shopt -s nullglob
tarballs=(dist/bernstein-*-linux-amd64.tar.xz)
zipfiles=(dist/bernstein-*-windows-amd64.zip)
shopt -u nullglob
if [ ${#tarballs[@]} -ne 1 ] || [ ${#zipfiles[@]} -ne 1 ]; then
	fail "want one tarball and one zip in dist/ (run make dist): ${tarballs[*]} ${zipfiles[*]}"
fi
tarball=${tarballs[0]}
zipfile=${zipfiles[0]}
version=${tarball#dist/bernstein-}
version=${version%-linux-amd64.tar.xz}

TMP=$(mktemp -d /tmp/bernstein-dist-test.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	if [ -n "${WINE_SERVER:-}" ]; then WINEPREFIX=$TMP/wineprefix "$WINE_SERVER" -k 2>/dev/null || true; fi
	rm -rf "$TMP"
}
trap cleanup EXIT
# Tools of this test, built while HOME still points at the Go caches.
"$GO" build -o "$TMP/winres" ./scripts/winres
export HOME=$TMP/home XDG_CONFIG_HOME=$TMP/home/.config XDG_DATA_HOME=$TMP/home/.local/share
mkdir -p "$HOME/.cache" "$TMP/run"
chmod 700 "$TMP/run"
export XDG_RUNTIME_DIR=$TMP/run
export BERNSTEIN_PASSPHRASE="dist-test passphrase"

say "checksums and sizes ($version)"
(cd dist && sha256sum -c SHA256SUMS)
for f in "$tarball" "$zipfile"; do
	size=$(stat -c %s "$f")
	awk -v f="$f" -v s="$size" 'BEGIN { printf "%s: %.1f MB\n", f, s / 1048576 }'
	[ "$size" -le "$MAX_BYTES" ] || fail "$f is larger than 40 MB"
done

say "release signature (the check docs/install.md tells users to run), with a throwaway key"
# No real release key exists in the repository or on this machine; the
# signing and verifying path is tested with a key made here and thrown away.
ssh-keygen -q -t ed25519 -N '' -C "dist-test throwaway release key" -f "$TMP/release_key"
mkdir -p "$TMP/sign"
cp dist/SHA256SUMS "$TMP/sign/SHA256SUMS"
scripts/dist-sign.sh "$TMP/release_key" "$TMP/sign/SHA256SUMS"
# The line the project publishes (docs/install.md): principal, namespace, key.
printf 'release@bernsteinrelease namespaces="file" %s\n' "$(cut -d' ' -f1,2 "$TMP/release_key.pub")" >"$TMP/sign/release_signers"
verify_sums() { # verify_sums SUMS SIG: the user's command
	ssh-keygen -Y verify -f "$TMP/sign/release_signers" -I release@bernsteinrelease -n file -s "$2" <"$1"
}
verify_sums "$TMP/sign/SHA256SUMS" "$TMP/sign/SHA256SUMS.sig" || fail "the signed SHA256SUMS does not verify"
sed '1s/  /  evil-/' "$TMP/sign/SHA256SUMS" >"$TMP/sign/tampered"
if verify_sums "$TMP/sign/tampered" "$TMP/sign/SHA256SUMS.sig" >/dev/null 2>&1; then
	fail "a changed SHA256SUMS verified"
fi
echo "a changed SHA256SUMS is refused"
# A signature for another namespace (a curator's synopsis signature) is not a release signature.
ssh-keygen -q -Y sign -f "$TMP/release_key" -n bernstein-synopsis "$TMP/sign/tampered"
if verify_sums "$TMP/sign/tampered" "$TMP/sign/tampered.sig" >/dev/null 2>&1; then
	fail "a signature in the namespace bernstein-synopsis verified as a release signature"
fi
echo "a signature made for another namespace is refused"
if [ -e dist/SHA256SUMS.sig ]; then
	if [ -n "${RELEASE_SIGNERS:-}" ]; then
		ssh-keygen -Y verify -f "$RELEASE_SIGNERS" -I "${RELEASE_PRINCIPAL:-release@bernsteinrelease}" -n file \
			-s dist/SHA256SUMS.sig <dist/SHA256SUMS || fail "dist/SHA256SUMS.sig does not verify with $RELEASE_SIGNERS"
	else
		echo "NOTE: dist/SHA256SUMS.sig not checked: give RELEASE_SIGNERS=FILE (the published allowed_signers line)"
	fi
fi

say "Linux: install into a temporary prefix"
mkdir -p "$TMP/unpack" "$TMP/root"
tar -xJf "$tarball" -C "$TMP/unpack"
export XDG_DATA_DIRS="$TMP/root/usr/share:${XDG_DATA_DIRS:-/usr/local/share:/usr/share}"
make -s -C "$TMP/unpack/bernstein" install DESTDIR="$TMP/root" PREFIX=/usr
share=$TMP/root/usr/share
BIN=$TMP/root/usr/bin/bernstein
desktop=$share/applications/io.github.bernsteinrelease.bernstein.desktop
for f in "$BIN" "$desktop" "$share/pixmaps/io.github.bernsteinrelease.bernstein.png" \
	"$share/mime/packages/io.github.bernsteinrelease.bernstein.xml"; do
	[ -e "$f" ] || fail "not installed: $f"
done
desktop-file-validate "$desktop"
grep -qx 'Exec=bernstein %f' "$desktop" || fail "desktop entry Exec is not 'bernstein %f'"
grep -q '^MimeType=.*application/x-bernstein-synopsis;' "$desktop" || fail "desktop entry lacks the synopsis MIME type"
grep -q '^MimeType=.*text/csv;' "$desktop" || fail "desktop entry lacks text/csv"
[ -e "$share/mime/application/x-bernstein-synopsis.xml" ] || fail "update-mime-database did not register application/x-bernstein-synopsis"
grep -q '^application/x-bernstein-synopsis=io.github.bernsteinrelease.bernstein.desktop' "$share/applications/mimeinfo.cache" ||
	fail "update-desktop-database did not associate .synopsis with the app"

# roundtrip BIN DIR: the CLI round trip a curator and an analyst do, in DIR.
roundtrip() {
	local bin=$1 dir=$2
	mkdir -p "$dir"
	(
		cd "$dir"
		$bin version | tee version.txt
		grep -q "bernstein $version" version.txt || fail "$bin version does not print $version"
		$bin demo-data --out demo
		$bin keygen --principal dist-test@example.org --trust
		$bin release --data demo/kde-mixture.csv --features x --bounds x=0:1 \
			--learner kde --param bandwidth=0.05 --epsilon 0.5 --k 20 --h 3 \
			--title "dist-test" --out mixture.synopsis
		$bin verify mixture.synopsis
		printf 'x\n0\n0.1\n0.25\n0.5\n0.75\n0.9\n1\n' >q.csv
		$bin eval mixture.synopsis --points q.csv --out eval.csv
		cat eval.csv
	)
}

say "Linux: CLI round trip with the installed binary"
roundtrip "$BIN" "$TMP/linux"

# compare A B: the same CSV up to a relative difference of TOL in every number.
compare() {
	python3 - "$1" "$2" "$TOL" <<'PY'
import sys
a, b, tol = open(sys.argv[1]).read().split(), open(sys.argv[2]).read().split(), float(sys.argv[3])
assert len(a) == len(b) and a[0] == b[0], "different shape or header:\n%s\n%s" % (a, b)
worst = 0.0
for ra, rb in zip(a[1:], b[1:]):
    for x, y in zip(ra.split(","), rb.split(",")):
        x, y = float(x), float(y)
        d = abs(x - y) / max(1.0, abs(x))
        worst = max(worst, d)
        assert d <= tol, "%r vs %r differ by %g > %g" % (x, y, d, tol)
print("eval outputs agree: %d rows, largest relative difference %g (tolerance %g)" % (len(a) - 1, worst, tol))
PY
}

say "Linux: curator under Xvfb"
# -displayfd: Xvfb picks a free display number and writes it to fd 3.
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$TMP/display" >"$TMP/xvfb.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -s "$TMP/display" ] && break; sleep 0.2; done
[ -s "$TMP/display" ] || fail "Xvfb did not start: $(cat "$TMP/xvfb.log")"
display=:$(head -n1 "$TMP/display")
xdpyinfo -display "$display" >/dev/null 2>&1 || fail "Xvfb on $display does not answer: $(cat "$TMP/xvfb.log")"
export DISPLAY=$display LIBGL_ALWAYS_SOFTWARE=1
mkdir -p docs/screenshots
t0=$(date +%s.%N)
"$BIN" >"$TMP/gui.log" 2>&1 &
gui=$!
pids+=("$gui")
timeout 120 xdotool search --sync --onlyvisible --name 'Bernstein Release' >/dev/null ||
	fail "the curator window did not appear in 120 s: $(cat "$TMP/gui.log")"
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "cold start to a mapped window: %.2f s (target 2 s)\n", b - a }'
sleep 3 # let it draw the start page
xwd -root -display "$display" | xwdtopnm 2>/dev/null | pnmtopng >docs/screenshots/install-linux.png
kill "$gui" 2>/dev/null || true
echo "screenshot: docs/screenshots/install-linux.png"

say "Linux: first release in the installed app (key created on first export)"
scripts/dist-test-gui.sh "$BIN"

say "Windows: bernstein-cli.exe under Wine"
WINE=$(dpkg -L wine64 | grep -E '/wine64$' | head -n1)
WINE_SERVER=$(dpkg -L wine64 | grep -E '/wineserver64$|/wineserver$' | head -n1)
[ -x "$WINE" ] || fail "wine64 not found (dpkg -L wine64)"
export WINEPREFIX=$TMP/wineprefix WINEDEBUG=-all WINEDLLOVERRIDES="bcryptprimitives=n,b;mscoree,mshtml="
mkdir -p "$TMP/win"
unzip -q "$zipfile" -d "$TMP/win"
wdir=$(ls -d "$TMP"/win/bernstein-*-windows-amd64)
[ -e "$wdir/bcryptprimitives.dll" ] && fail "the zip must not contain the test shim"
for f in bernstein.exe bernstein-cli.exe README.txt LICENSE.txt; do [ -e "$wdir/$f" ] || fail "zip lacks $f"; done
# (objdump's output is kept in a variable: grep -q in a pipe would end it early under pipefail)
gui_headers=$(x86_64-w64-mingw32-objdump -p "$wdir/bernstein.exe")
cli_headers=$(x86_64-w64-mingw32-objdump -p "$wdir/bernstein-cli.exe")
grep -q '^Subsystem.*(Windows GUI)' <<<"$gui_headers" || fail "bernstein.exe is not a GUI-subsystem program"
grep -q '^Subsystem.*(Windows CUI)' <<<"$cli_headers" || fail "bernstein-cli.exe is not a console program"
# Both executables carry an icon (the same one), a manifest and a version
# resource whose x.y.z is FyneApp.toml's (scripts/winres reads them with debug/pe).
app_version=$(sed -n 's/^Version *= *"\(.*\)"/\1/p' FyneApp.toml)
"$TMP/winres" check -version "$app_version" "$wdir/bernstein.exe" "$wdir/bernstein-cli.exe" ||
	fail "the Windows executables lack their icon or version resource, or they differ"
"$MINGW_CC" -shared -O2 -o "$TMP/bcryptprimitives.dll" scripts/wine-shim/bcryptprimitives.c -ladvapi32
"$WINE" wineboot -i >/dev/null 2>&1 || true
cp "$TMP/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
roundtrip "$WINE $wdir/bernstein-cli.exe" "$TMP/windows"
# The same synopsis evaluated by both binaries, each trusting both keys.
win_signers=("$WINEPREFIX"/drive_c/users/*/AppData/Roaming/bernstein/allowed_signers)
[ -e "${win_signers[0]}" ] || fail "bernstein-cli.exe keygen wrote no allowed_signers in the Wine prefix"
cat "$XDG_CONFIG_HOME/bernstein/allowed_signers" "${win_signers[0]}" >"$TMP/signers"
for d in linux windows; do cp "$TMP/signers" "$TMP/$d/signers"; done
cp "$TMP/linux/mixture.synopsis" "$TMP/windows/from-linux.synopsis"
cp "$TMP/windows/mixture.synopsis" "$TMP/linux/from-windows.synopsis"
(cd "$TMP/linux" && "$BIN" eval from-windows.synopsis --points q.csv --allowed-signers signers --out from-windows.csv)
(cd "$TMP/windows" && $WINE "$wdir/bernstein-cli.exe" eval from-linux.synopsis --points q.csv --allowed-signers signers --out from-linux.csv)
compare "$TMP/linux/eval.csv" "$TMP/windows/from-linux.csv"
compare "$TMP/windows/eval.csv" "$TMP/linux/from-windows.csv"

say "Windows: bernstein.exe window under Wine (Xvfb)"
(cd "$TMP/windows" && exec "$WINE" "$wdir/bernstein.exe") >"$TMP/wine-gui.log" 2>&1 &
wgui=$!
pids+=("$wgui")
if timeout 90 xdotool search --sync --onlyvisible --name 'Bernstein Release' >/dev/null; then
	sleep 5
	xwd -root -display "$display" | xwdtopnm 2>/dev/null | pnmtopng >docs/screenshots/install-windows-wine.png
	echo "screenshot: docs/screenshots/install-windows-wine.png"
else
	echo "NOTE: no window from bernstein.exe under Wine within 90 s (Wine's OpenGL under Xvfb); the CLI round trip passed"
	tail -n 5 "$TMP/wine-gui.log" || true
fi
kill "$wgui" 2>/dev/null || true
"$WINE_SERVER" -k 2>/dev/null || true

say "Linux: uninstall"
make -s -C "$TMP/unpack/bernstein" uninstall DESTDIR="$TMP/root" PREFIX=/usr
for f in "$BIN" "$desktop" "$share/mime/packages/io.github.bernsteinrelease.bernstein.xml"; do
	[ ! -e "$f" ] || fail "uninstall left $f"
done
say "dist-test passed ($version) in $SECONDS s"
