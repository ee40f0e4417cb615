#!/usr/bin/env bash
# views.sh - docs/PERFORMANCE.md, "The views": whole frames (headless,
# 1280 x 720, HUD on) of the 1M-body merger and a 10M-body Plummer sphere on
# the tree, drawn as sprites, as the density view (stepping, and paused: the
# view alone), coloured by each quantity, and with a selection's panel.
#
#   docs/bench/views.sh BUILD_DIR > views.log
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "$0")/common.sh"
scripts=$(mktemp -d)
trap 'rm -rf "$scripts"' EXIT
printf '0 Space\n' > "$scripts/pause.txt"
printf '0 C\n0 C\n' > "$scripts/density.txt"
printf '0 C\n0 C\n0 C\n' > "$scripts/radial.txt"
printf '0 C\n0 C\n0 C\n0 C\n' > "$scripts/potential.txt"
printf '0 select 1 galaxy 1 component disk\n' > "$scripts/select.txt"
merger=("$nb" --headless --preset antennae-like --frames 300)
stage "1M-body merger (2 steps a frame)"
frames "sprites" "${merger[@]}"
frames "density view" "${merger[@]}" --view density
frames "density view, paused" "${merger[@]}" --view density --script "$scripts/pause.txt"
frames "colour: density" "${merger[@]}" --script "$scripts/density.txt"
frames "colour: radial velocity" "${merger[@]}" --script "$scripts/radial.txt"
frames "colour: potential" "${merger[@]}" --script "$scripts/potential.txt"
frames "selection: galaxy 1's disk, panel" "${merger[@]}" --script "$scripts/select.txt"
plummer=("$nb" --headless --n 10485760 --variant tree --frames 40)
stage "10M-body Plummer sphere (a step a frame)"
frames "sprites" "${plummer[@]}"
frames "density view" "${plummer[@]}" --view density
frames "density view, paused" "${plummer[@]}" --view density --script "$scripts/pause.txt"
frames "sprites, paused" "${plummer[@]}" --script "$scripts/pause.txt"
stage "done"
