#!/usr/bin/env bash
# scripts/dist-test-gui.sh BIN — a curator's first release in the INSTALLED
# Linux app, driven like a person would under Xvfb (run by scripts/dist-test.sh
# with DISPLAY set to its 1280x800 Xvfb screen; any screen of at least
# 1000x640 works).
#
# With a fresh HOME (so no curator key exists) it opens an example CSV the way
# the desktop entry's "Open with" does (`bernstein FILE.csv`), waits until the
# CSV is loaded, sets the public bounds and unit (Bounds step), the bandwidth
# of the default learner, the kernel density estimate (Learner step), k
# (Privacy step) and a title (Release step), starts the
# release with Ctrl+R — which must ask to create the curator key (first
# export) — creates the key with a passphrase, continues past the public key,
# releases with the passphrase, and then checks the written synopsis with the
# installed CLI: `inspect --json` (the typed settings reached the right
# fields), `verify` against the allowed_signers line the app wrote, and `eval`.
# It fails unless the key and the synopsis are written and verify.
#
# Screenshots of the window at each step go to docs/screenshots/installed-*.png
# (installed-failed.png: the screen a failing run stopped at).
#
# Keyboard only (docs/install.md, "The installed-app test"): nothing is
# clicked. Ctrl+3 … Ctrl+6 go to the Bounds, Learner, Privacy and Release
# steps; after a step change the focus is on a widget of the page left, so
# the first Tab gives the focus to the first field of the new page and the
# fields are reached by counting Tabs in the page's order (the counts are
# in the comments below; a field added before them shifts them, and the
# inspect check then fails naming the setting that went astray). Ctrl+A
# selects a field's text before typing. Space selects the "Manual" k.
# The output file is not typed: the test keeps the suggested file
# (release.synopsis beside the CSV) and checks that the published note
# stayed empty (the Note field once kept Tab as text; see docs/install.md).
# Ctrl+R starts the release; each dialog focuses its first field when it
# opens (else its default button), Tab moves between its fields and Return
# runs its default action ("Create key", "Continue", "Release").
#
# The one use of coordinates is READING the screen, not clicking: "the CSV
# is loaded" is the feature column's checked box drawn in the theme's
# primary colour on the Data page. The keyboard cannot tell, the window
# title does not change when a CSV is loaded, and the app writes no file
# then; before the load the page area is empty (a CSV given on the command
# line shows no step until it is read), so the check cannot pass early. The
# region searched (x 118–480, y 150–360 of the 1000x640 window) was measured
# from installed-1-data.png; a layout change that moves the box out of it
# makes the test fail with "the CSV was not loaded", with the screenshot.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:?usage: dist-test-gui.sh INSTALLED-BINARY}
[ -n "${DISPLAY:-}" ] || { echo "dist-test-gui: DISPLAY is not set" >&2; exit 1; }
SHOTS=docs/screenshots
PASS="first export passphrase"
PRINCIPAL=clinic@example.org
TITLE="Clinic waiting times"

work=$(mktemp -d /tmp/bernstein-gui-test.XXXXXX)
gui=""
win=""
stop_gui() {
	[ -n "$gui" ] || return 0
	kill "$gui" 2>/dev/null || true
	wait "$gui" 2>/dev/null || true
	gui=""
}
cleanup() {
	stop_gui
	rm -rf "$work"
}
trap cleanup EXIT
# A first start: nothing in the configuration directory, no key.
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config LANG=en_US.UTF-8
unset BERNSTEIN_PASSPHRASE
mkdir -p "$HOME/.cache"
cfg=$XDG_CONFIG_HOME/bernstein
key=$cfg/curator_ed25519
# The output file the Release step suggests for a CSV opened without a
# project: release.synopsis beside it.
out=$work/release.synopsis

# grab FILE.ppm: the window (the whole screen before it exists).
grab() {
	if [ -n "$win" ]; then
		xwd -silent -id "$win" -display "$DISPLAY"
	else
		xwd -silent -root -display "$DISPLAY"
	fi | xwdtopnm 2>/dev/null >"$1"
}
# shot NAME: a screenshot, after 3 s: Mesa's software renderer on a loaded
# machine draws a change up to a few seconds after it happened.
shot() {
	sleep 3
	grab "$work/shot.ppm"
	pnmtopng <"$work/shot.ppm" >"$SHOTS/installed-$1.png"
}
fail() {
	shot failed || true
	printf 'dist-test-gui: FAIL: %s (last screen: %s/installed-failed.png)\n' "$*" "$SHOTS" >&2
	[ ! -s "$work/gui.log" ] || tail -n 20 "$work/gui.log" >&2
	exit 1
}
# wait_for SECONDS TEST...: polls the test command every 0.2 s.
wait_for() {
	local n=$(($1 * 5))
	shift
	for _ in $(seq "$n"); do "$@" && return 0; sleep 0.2; done
	return 1
}
# key KEY...: key presses (xdotool names: Tab, Return, ctrl+3, space).
key() { xdotool key --delay 60 "$@"; }
# typein TEXT: replaces the focused field's text (Ctrl+A, then typing).
typein() {
	xdotool key ctrl+a
	xdotool type --delay 25 "$1"
}
# tabs N: N presses of Tab.
tabs() { for _ in $(seq "$1"); do key Tab; done; }
# to_step STEP: Ctrl+STEP (2 Data, 3 Bounds, 4 Learner, 5 Privacy, 6 Release).
to_step() { key "ctrl+$1"; sleep 1; }

# csv_loaded: the Data page shows a checked feature box (see the header):
# at least 60 pixels of the primary colour (41,111,246 in both themes) in
# the column list's region of the window.
csv_loaded() {
	grab "$work/poll.ppm" || return 1
	python3 - "$work/poll.ppm" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
magic, w, h, maxv, rest = data.split(maxsplit=4)
w, h = int(w), int(h)
assert magic == b"P6" and maxv == b"255", magic
px = rest
n = 0
for y in range(150, min(360, h)):
    row = 3 * y * w
    for x in range(118, min(480, w)):
        r, g, b = px[row + 3 * x], px[row + 3 * x + 1], px[row + 3 * x + 2]
        if b >= 200 and b - r >= 150 and b - g >= 100:
            n += 1
sys.exit(0 if n >= 60 else 1)
PY
}

# An example CSV that is not one of the bundled demos (those come with their
# settings): 3000 waiting times in minutes, two groups.
awk 'BEGIN { srand(7); print "wait_minutes"
	for (i = 0; i < 3000; i++) {
		v = rand() < 0.6 ? 8 + 6 * (rand() + rand() + rand() - 1.5) : 35 + 10 * (rand() + rand() - 1)
		printf "%.1f\n", v } }' >"$work/waits.csv"

mkdir -p "$SHOTS"
rm -f "$SHOTS/installed-failed.png"
(cd "$work" && exec "$BIN" "$work/waits.csv") >"$work/gui.log" 2>&1 &
gui=$!
win=$(timeout 120 xdotool search --sync --onlyvisible --name 'Bernstein Release' | head -n1) ||
	fail "the curator window did not appear"
# The window must fit the screen by itself (there is no window manager here
# to shrink it).
eval "$(xdotool getwindowgeometry --shell "$win")"
read -r sw sh < <(xdotool getdisplaygeometry)
echo "curator window: ${WIDTH}x${HEIGHT} on a ${sw}x${sh} screen"
if [ "$WIDTH" -gt "$sw" ] || [ "$HEIGHT" -gt "$sh" ]; then
	fail "the window (${WIDTH}x${HEIGHT}) does not fit the ${sw}x${sh} screen"
fi
# No window manager gives the new window the keyboard: give it the focus.
xdotool windowfocus --sync "$win"
wait_for 60 csv_loaded || fail "the CSV was not loaded in 60 s (no checked feature column on the Data page)"
shot 1-data

to_step 3 # Bounds: Tab 1 the lower bound, 2 the upper bound, 3 the unit
tabs 1
typein 0
tabs 1
typein 60
tabs 1
typein minutes
shot 2-bounds

to_step 4 # Learner: Tab 1 the learner (a new window's default: kernel density estimate), 2 the bandwidth
tabs 2
typein 0.04 # the bandwidth, as a fraction of the range
to_step 5 # Privacy (ε stays 1): Tab 1 the ε slider, 2 ε, 3 "Error I can accept" (its Find button is disabled while it is empty), 4 noise, 5 h, 6 k Automatic, 7 k Manual
tabs 7
key space # k: Manual, which enables the k field right after it
tabs 1
typein 20
sleep 4 # the preview simulates releases for the new k
shot 3-privacy

to_step 6 # Release: Tab 1 the title (the output file stays the one suggested, see the header)
tabs 1
typein "$TITLE"
sleep 1
[ ! -e "$key" ] || fail "a key exists before the first export"
key ctrl+r
shot 4-key-dialog
[ ! -e "$key" ] || fail "Ctrl+R wrote a key before it was asked for"
# "Create your curator key": the name field has the focus, Tab leads to
# the passphrase and its repetition, Return is "Create key".
typein "$PRINCIPAL"
key Tab
xdotool type --delay 25 "$PASS"
key Tab
xdotool type --delay 25 "$PASS"
shot 5-key-filled
key Return
wait_for 30 test -s "$key.allowed_signers" || fail "first export did not create the curator key ($key)"
shot 6-key-created
key Return # "Your curator key": Continue
# The release dialog: its passphrase field has the focus, Return releases.
xdotool type --delay 25 "$PASS"
shot 7-release-dialog
key Return
wait_for 60 test -s "$out" || fail "the release wrote no synopsis ($out; written: $(cd "$work" && echo ./*.synopsis))"
shot 8-released
key Escape # closes "Released"
stop_gui

echo "first export from the installed app: key $(cut -d' ' -f1 "$key.allowed_signers"), synopsis $(stat -c %s "$out") bytes"
grep -q "^$PRINCIPAL " "$key.allowed_signers" || fail "the key's principal is not the one typed"
"$BIN" verify "$out" --allowed-signers "$key.allowed_signers" || fail "the installed CLI does not verify the app's synopsis"
# The settings typed on each step are the ones released.
"$BIN" inspect "$out" --json --allowed-signers "$key.allowed_signers" >"$work/inspect.json" ||
	fail "the installed CLI does not inspect the app's synopsis"
python3 - "$work/inspect.json" "$TITLE" <<'PY' || fail "the synopsis does not hold the settings typed in the app"
import json, sys
d = json.load(open(sys.argv[1]))
f = d["domain"]["features"]
got = {
    "title": d["title"],
    "note": d["note"],
    "features": [x["name"] for x in f],
    "bounds": [(x["lo"], x["hi"]) for x in f],
    "unit": [x["unit"] for x in f],
    "learner": d["learner"]["kind"],
    "bandwidth": d["learner"]["params"].get("bandwidth"),
    "k": d["mechanism"]["k"],
    "epsilon": d["mechanism"]["epsilon"],
    "n": d["learner"]["n"],
}
want = {
    "title": sys.argv[2], "note": "", "features": ["wait_minutes"], "bounds": [(0, 60)], "unit": ["minutes"],
    "learner": "kde", "bandwidth": [0.04], "k": [20], "epsilon": 1, "n": 3000,
}
bad = ["%s: %r, typed %r" % (k, got[k], want[k]) for k in want if got[k] != want[k]]
print("synopsis settings:", got)
sys.exit("; ".join(bad) if bad else 0)
PY
printf 'wait_minutes\n0\n8\n20\n35\n60\n' >"$work/q.csv"
"$BIN" eval "$out" --points "$work/q.csv" --allowed-signers "$key.allowed_signers" --out "$work/eval.csv" ||
	fail "the installed CLI does not evaluate the app's synopsis"
cat "$work/eval.csv"
# A density on [0, 60] minutes: finite values, larger at the mode (8) than far from it (20).
python3 - "$work/eval.csv" <<'PY' || fail "implausible density from the app's synopsis"
import csv, math, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]
v = {float(r[0]): float(r[1]) for r in rows}  # wait_minutes,value,noise_std
assert len(v) == 5 and all(math.isfinite(x) for x in v.values()), v
assert v[8] > v[20], "density at 8 (%g) not above 20 (%g)" % (v[8], v[20])
PY
grep -c . "$cfg/ledger.jsonl" | xargs printf 'ledger lines: %s\n'
echo "dist-test-gui: passed (screenshots $SHOTS/installed-*.png)"
