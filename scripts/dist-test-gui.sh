#!/usr/bin/env bash
# scripts/dist-test-gui.sh BIN — a curator's first release in the INSTALLED
# Linux app, driven like a person would under Xvfb (run by scripts/dist-test.sh
# with DISPLAY set to its 1280x800 Xvfb screen).
#
# With a fresh HOME (so no curator key exists) it opens an example CSV the way
# the desktop entry's "Open with" does (`bernstein FILE.csv`), sets the public
# bounds and unit (Bounds step), chooses the learner and its bandwidth (Learner
# step), sets k (Privacy step), gives a title (Release step), starts the
# release with Ctrl+R — which must ask to create the curator key (first
# export) — creates the key with a passphrase, continues past the public key,
# releases with the passphrase, and then checks the written synopsis with the
# installed CLI: `verify` against the allowed_signers line the app showed, and
# `eval`. It fails unless the key and the synopsis are written and verify.
#
# Screenshots of each step go to docs/screenshots/installed-*.png.
#
# Keyboard or mouse (docs/install.md, "The installed-app test"): text goes in
# with the keyboard, Ctrl+R starts the release, Tab moves between the three
# fields of the key dialog, and the release dialog's passphrase field has the
# focus when it opens. The rest is clicked at fixed coordinates of the
# 1280x800 window, because the keyboard could not do it reliably:
#   - the wizard's step list takes the focus with Tab in a fresh window, but
#     once a page's widgets had it, Shift+Tab did not lead back to the list;
#   - on the Bounds step, Tab did not land in the "from"/"to" fields in order
#     (typed bounds ended up in the wrong field);
#   - in the key, public-key and release dialogs no key reaches the buttons:
#     Tab stays in the last field, Return does nothing and Space is typed into
#     the field (so "Create key", "Continue" and "Release" are clicked).
# A layout change moves these points: the script then fails at the step that
# no longer happens, and the screenshots show where.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:?usage: dist-test-gui.sh INSTALLED-BINARY}
[ -n "${DISPLAY:-}" ] || { echo "dist-test-gui: DISPLAY is not set" >&2; exit 1; }
SHOTS=docs/screenshots
PASS="first export passphrase"

work=$(mktemp -d /tmp/bernstein-gui-test.XXXXXX)
gui=""
cleanup() {
	[ -z "$gui" ] || kill "$gui" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
# A first start: nothing in the configuration directory, no key.
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config LANG=en_US.UTF-8
unset BERNSTEIN_PASSPHRASE
mkdir -p "$HOME"
cfg=$XDG_CONFIG_HOME/bernstein
key=$cfg/curator_ed25519
out=$work/waits.synopsis

fail() {
	shot failed
	printf 'dist-test-gui: FAIL: %s (last screen: %s/installed-failed.png)\n' "$*" "$SHOTS" >&2
	[ ! -s "$work/gui.log" ] || tail -n 20 "$work/gui.log" >&2
	exit 1
}
# shot NAME: a screenshot, after 3 s: Mesa's software renderer on a loaded
# machine draws a change up to a few seconds after it happened.
shot() {
	sleep 3
	xwd -root -display "$DISPLAY" | xwdtopnm 2>/dev/null | pnmtopng >"$SHOTS/installed-$1.png"
}
# wait_for SECONDS TEST...: polls the test command every 0.2 s.
wait_for() {
	local n=$(($1 * 5))
	shift
	for _ in $(seq "$n"); do "$@" && return 0; sleep 0.2; done
	return 1
}
click() { xdotool mousemove "$1" "$2" click 1; sleep 0.4; }
# fill X Y TEXT: click into the entry at X,Y, replace its text.
fill() {
	click "$1" "$2"
	xdotool key ctrl+a
	xdotool type --delay 25 "$3"
	sleep 0.4
}
step() { click 70 "$1"; sleep 1.5; } # the wizard's step list on the left

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
# The window asks for 862 px of height; a 1280x800 screen has 800 (no window
# manager here to fit it): size it to the screen as a window manager would.
xdotool windowsize "$win" 1280 800
# The CSV is read in the background; when it is in, the title gets the
# unsaved-changes mark ("Untitled project * — Bernstein Release").
title_marked() { xdotool getwindowname "$win" | grep -q ' \* — '; }
wait_for 60 title_marked || fail "the CSV was not loaded in 60 s (title: $(xdotool getwindowname "$win"))"
sleep 2
shot 1-data

step 130 # 2. Bounds
fill 250 322 0
fill 440 322 60
fill 340 362 minutes
sleep 3
shot 2-bounds

step 169                          # 3. Learner
click 325 91                      # the learner menu
click 207 126                     # "Kernel density estimate"
fill 360 348 0.04                 # bandwidth, as a fraction of the range
step 208                          # 4. Privacy (ε stays 1)
click 137 671                     # k: Manual
fill 343 710 20
sleep 4 # the preview simulates 200 releases for the new k
shot 3-privacy

step 247 # 5. Release
fill 325 91 "Clinic waiting times"
fill 250 478 "$out" # the synopsis file
xdotool key ctrl+r
sleep 1.5
shot 4-key-dialog
[ ! -e "$key" ] || fail "a key exists before the first export"
# The key dialog: Tab reaches the name, the passphrase and its repetition.
xdotool key Tab ctrl+a
xdotool type --delay 25 "clinic@example.org"
xdotool key Tab
xdotool type --delay 25 "$PASS"
xdotool key Tab
xdotool type --delay 25 "$PASS"
sleep 0.5
shot 5-key-filled
click 870 655 # Create key
wait_for 15 test -s "$key.allowed_signers" || fail "first export did not create the curator key ($key)"
sleep 1
shot 6-key-created
click 914 618 # Continue
sleep 1.5
xdotool type --delay 25 "$PASS" # the passphrase field has the focus
sleep 0.5
shot 7-release-dialog
click 919 718 # Release
wait_for 60 test -s "$out" || fail "the release wrote no synopsis ($out)"
sleep 2
shot 8-released
kill "$gui" 2>/dev/null || true
gui=""

echo "first export from the installed app: key $(cut -d' ' -f1 "$key.allowed_signers"), synopsis $(stat -c %s "$out") bytes"
grep -q '^clinic@example.org ' "$key.allowed_signers" || fail "the key's principal is not the one typed"
"$BIN" verify "$out" --allowed-signers "$key.allowed_signers" || fail "the installed CLI does not verify the app's synopsis"
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
