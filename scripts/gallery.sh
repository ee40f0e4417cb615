#!/usr/bin/env bash
# gallery.sh - the README's pictures, headless, on a GPU machine:
#   docs/gallery/<scene>-<n>.png  every galaxy scene at three moments
#   docs/hud.png, docs/help.png   the HUD and the help overlay (16K Plummer)
# and each scene's frame rate at its preset N and steps per frame.
#
#   scripts/gallery.sh BUILD_DIR OUT_DIR
#
# GALLERY_N=512 GALLERY_DIV=100 make a quick dry run (fewer bodies, frames).
#
# The moments are frames of a run at 20 steps per frame (dt 0.025: half a
# time unit, 2.4 Myr, per frame); F12 is pressed by --script at each.
set -euo pipefail
nb=$(cd "$1" && pwd)/nbody
out=$(mkdir -p "$2" && cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# scene  frames-of-the-three-moments (time = frame / 2; see docs/GALAXIES.md)
scenes=(
  "disk 0 72 300"
  "antennae-like 60 200 560"
  "retrograde 60 200 560"
  "minor-merger 50 180 800"
  "milky-way-andromeda 60 220 700"
)
div=${GALLERY_DIV:-1}
nflag=()
[ -n "${GALLERY_N:-}" ] && nflag=(--n "$GALLERY_N")
for entry in "${scenes[@]}"; do
  read -r name f1 f2 f3 <<<"$entry"
  f1=$((f1 / div)) f2=$((f2 / div)) f3=$((f3 / div))
  printf '%s F12\n%s F12\n%s F12\n' "$f1" "$f2" "$f3" >keys.txt
  rm -f nbody-*.png
  "$nb" --headless --preset "$name" "${nflag[@]}" --no-hud --steps-per-frame 20 \
        --frames $((f3 + 1)) --script keys.txt >log.txt 2>&1 || { cat log.txt; exit 1; }
  k=1
  for f in "$f1" "$f2" "$f3"; do
    mv nbody-*-f"$(printf %06d "$f")".png "$out/$name-$k.png"
    k=$((k + 1))
  done
  # The interactive rate: the preset's own steps per frame, HUD on.
  fps=$("$nb" --headless --preset "$name" "${nflag[@]}" --frames $((300 / div + 2)) |
        grep -o '[0-9.]* frames/s' | head -n 1)
  n=$(grep -o '[0-9]* bodies' log.txt | head -n 1)
  echo "gallery: $name: 3 moments at frames $f1 $f2 $f3; interactive: $n, $fps"
done

printf '380 H\n' >help.txt
"$nb" --headless "${nflag[@]}" --frames 400 --screenshot "$out/hud.png" >/dev/null
"$nb" --headless "${nflag[@]}" --frames 400 --script help.txt --screenshot "$out/help.png" >/dev/null
echo "gallery: hud.png, help.png"
