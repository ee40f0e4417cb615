#!/usr/bin/env python3
"""test_colour_view.py - the sprites coloured by a quantity, headless on the
CPU backend: the picture's colours follow the quantity.

    test_colour_view.py NBODY

A Plummer sphere at the origin (the camera's target), no HUD, C pressed to
reach a quantity's mode (--script). The quantity's modes draw with the speed
palette: the hot end (1, 0.55, 0.2) is red over blue five to one, the cold
end (0.25, 0.45, 1) blue over red four to one, the middle white. Local
density is highest in the middle of the picture and lowest in the outskirts,
so the middle must be red over blue and the outskirts blue over red; the
potential is lowest (most negative) in the middle, so the other way round:
the same sphere giving opposite colours in the two modes is what shows the
colours follow the quantity. The margin, 1.8 to 1 in the middle, is above
what the speed mode of the same sphere gives there (about 1.5 to 1 red over
blue: the fastest bodies are in the middle too, mixed with slow ones),
which is the picture the old C cycle drew after four presses.
"""
import os
import subprocess
import sys
import tempfile

from checks import check, done
from test_density_view import read_png

PRESSES = {"density": 4, "potential": 6}  # C's order from speed (README)


def run(nbody, tmp, mode):
    png = os.path.join(tmp, mode + ".png")
    script = os.path.join(tmp, mode + ".txt")
    with open(script, "w") as f:
        f.write("0 C\n" * PRESSES[mode])
    r = subprocess.run([nbody, "--headless", "--backend", "cpu", "--ic", "plummer", "--n", "3000",
                        "--no-hud", "--frames", "1", "--width", "640", "--height", "400",
                        "--script", script, "--screenshot", png],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"{mode}: nbody exits 0 ({r.returncode}: {r.stderr.strip()[-300:]})")
    return read_png(png) if r.returncode == 0 else None


def sums(pic, r0, r1):
    """Red, green, blue summed over the pixels r0 <= r < r1 from the centre."""
    w, h, rows = pic
    cx, cy, s = (w - 1) / 2, (h - 1) / 2, [0, 0, 0]
    for y in range(h):
        for x in range(w):
            if r0 <= ((x - cx) ** 2 + (y - cy) ** 2) ** 0.5 < r1:
                for k in range(3):
                    s[k] += rows[y][x][k]
    return s


def main():
    nbody = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        pics = {m: run(nbody, tmp, m) for m in PRESSES}
        # The middle: 8 px about the centre, inside the sphere's core; the
        # outskirts: 100 to 200 px, where the bodies are sparse.
        mid = {m: sums(p, 0, 8) for m, p in pics.items() if p}
        out = {m: sums(p, 100, 200) for m, p in pics.items() if p}
        if "density" in mid:
            r, _, b = mid["density"]
            check(r > 1.8 * b, f"density: the middle is the hot end (red {r} > 1.8 x blue {b})")
            r, _, b = out["density"]
            check(b > r, f"density: the outskirts are the cold end (blue {b} > red {r})")
        if "potential" in mid:
            r, _, b = mid["potential"]
            check(b > 1.8 * r, f"potential: the middle is the cold end (blue {b} > 1.8 x red {r})")
            r, _, b = out["potential"]
            check(r > b, f"potential: the outskirts are the hot end (red {r} > blue {b})")
    return done("test_colour_view")


if __name__ == "__main__":
    sys.exit(main())
