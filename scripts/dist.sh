#!/usr/bin/env bash
# scripts/dist.sh — builds the release artifacts into dist/ (run by `make dist`).
#
#   dist/bernstein-VERSION-linux-amd64.tar.xz    fyne package tarball + MIME types
#   dist/bernstein-VERSION-windows-amd64.zip     bernstein.exe (GUI), bernstein-cli.exe (console), README.txt
#   dist/SHA256SUMS                              sha256sum of both
#   dist/SHA256SUMS.sig                          ssh-keygen -Y sign -n file, when RELEASE_KEY is set
#
# VERSION defaults to `git describe --tags --always --dirty`; it is stamped
# into main.version (-ldflags -X), which `bernstein version` and Help ▸ About
# show. Each binary is compiled exactly once. docs/install.md documents the
# artifacts; scripts/dist-test.sh tests them.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
MINGW_CC=${MINGW_CC:-x86_64-w64-mingw32-gcc}
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo unknown)}
APP_ID=io.github.bernsteinrelease.bernstein
# The version resources of both Windows executables (and the Linux package)
# carry FyneApp.toml's x.y.z; a release tag vX.Y.Z must agree with it.
APP_VERSION=$(sed -n 's/^Version *= *"\(.*\)"/\1/p' FyneApp.toml)
[[ $APP_VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "dist: FyneApp.toml Version '$APP_VERSION' is not x.y.z" >&2; exit 1; }
if [[ $VERSION =~ ^v([0-9]+\.[0-9]+\.[0-9]+)(-|$) ]] && [ "${BASH_REMATCH[1]}" != "$APP_VERSION" ]; then
	echo "dist: tag $VERSION but FyneApp.toml says Version = \"$APP_VERSION\": bump FyneApp.toml" >&2
	exit 1
fi
APP_BUILD=$(git rev-list --count HEAD 2>/dev/null || echo 1)
LINUX_NAME="bernstein-$VERSION-linux-amd64"
WIN_NAME="bernstein-$VERSION-windows-amd64"
TAGS=release,migrated_fynedo # the tags fyne package uses, so the cgo objects are shared
LDFLAGS="-s -w -X main.version=$VERSION"

rm -rf dist build
mkdir -p dist build/linux build/windows
# fyne package writes the build number back into FyneApp.toml; a release
# build must leave the checkout as it found it (else the next git describe
# says -dirty), so the file is restored on exit, as is any .syso left behind.
syso=bernstein_cli_windows_amd64.syso
cp FyneApp.toml build/FyneApp.toml.orig
trap 'cp build/FyneApp.toml.orig FyneApp.toml; rm -f "$syso"' EXIT
start=$(date +%s)

# The packaging tool, built once for this machine (go.mod pins fyne.io/tools).
GOFLAGS="" $GO build -o build/fyne fyne.io/tools/cmd/fyne
FYNE=$PWD/build/fyne

echo "== Linux x86-64 ($VERSION)"
CGO_ENABLED=1 GOOS=linux GOARCH=amd64 $GO build -trimpath -tags "$TAGS" -ldflags "$LDFLAGS" -o build/linux/bernstein .
"$FYNE" package --os linux --exe build/linux/bernstein --release \
	--app-version "$APP_VERSION" --app-build "$APP_BUILD" --app-id "$APP_ID"
stage=build/linux/stage
mkdir -p "$stage"
tar -xJf "Bernstein Release.tar.xz" -C "$stage"
rm -f "Bernstein Release.tar.xz"
python3 scripts/dist_linux_mime.py "$stage/bernstein" "$APP_ID"
tar --sort=name --owner=0 --group=0 --numeric-owner -C "$stage" -cJf "dist/$LINUX_NAME.tar.xz" bernstein

echo "== Windows x86-64 ($VERSION)"
# fyne package writes the icon, manifest and version resource (fyne.syso) and
# then builds; with --exe naming an existing file it builds exactly once, and
# it takes -ldflags from GOFLAGS. -H=windowsgui makes bernstein.exe a GUI program.
rm -f bernstein.exe "Bernstein Release.exe"
: >bernstein.exe
GOFLAGS="-ldflags=-X=main.version=$VERSION" GOARCH=amd64 CC="$MINGW_CC" \
	"$FYNE" package --os windows --exe bernstein.exe --name "Bernstein Release" --release \
	--app-version "$APP_VERSION" --app-build "$APP_BUILD" --app-id "$APP_ID"
mv "Bernstein Release.exe" build/windows/bernstein.exe
rm -f bernstein.exe
# bernstein-cli.exe: the same program as a console-subsystem executable, so the
# commands print to the console they are started from and the exit code
# reaches the shell (a GUI-subsystem program is detached from both). It gets
# the same icon, version resource and manifest as bernstein.exe from a .syso
# that scripts/winres writes with the libraries fyne package uses (pinned in
# go.mod); go build links a .syso of the main package's directory, and the
# _windows_amd64 suffix keeps it out of any other build should it be left behind.
$GO run ./scripts/winres syso -icon icons/icon.png -name "Bernstein Release" \
	-version "$APP_VERSION" -build "$APP_BUILD" -arch amd64 -o "$syso"
CGO_ENABLED=1 GOOS=windows GOARCH=amd64 CC="$MINGW_CC" \
	$GO build -trimpath -tags "$TAGS" -ldflags "$LDFLAGS" -o build/windows/bernstein-cli.exe .
rm -f "$syso"
$GO run ./scripts/winres check -version "$APP_VERSION" build/windows/bernstein.exe build/windows/bernstein-cli.exe
wdir="build/windows/$WIN_NAME"
mkdir -p "$wdir"
cp build/windows/bernstein.exe build/windows/bernstein-cli.exe "$wdir/"
sed -e "s/@VERSION@/$VERSION/g" scripts/README-windows.txt | sed 's/$/\r/' >"$wdir/README.txt"
sed 's/$/\r/' LICENSE >"$wdir/LICENSE.txt"
(cd build/windows && TZ=UTC zip -qrX "../../dist/$WIN_NAME.zip" "$WIN_NAME")

echo "== SHA256SUMS"
(cd dist && sha256sum -- *.tar.xz *.zip >SHA256SUMS)
if [ -n "${RELEASE_KEY:-}" ]; then
	scripts/dist-sign.sh "$RELEASE_KEY" dist/SHA256SUMS
fi
cat dist/SHA256SUMS
ls -l dist
echo "make dist: $(($(date +%s) - start)) s"
