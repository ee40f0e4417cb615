#!/usr/bin/env python3
"""test_density_view.py - the density view's picture, headless on the CPU
backend: the colour-mapped map against the palette.

    test_density_view.py NBODY

A Plummer sphere at the origin (the camera's target) with --view density
and no HUD: with the auto range the 99.9th percentile of the lit pixels is
the palette's top, so the brightest pixels of the picture are the top colour
and lie about the centre, and the sky far from the sphere is the palette's bottom
colour (map 0). --density-stretch asinh keeps that. --density-max 100 (far
above the sphere's central density, about 1 in these units) puts the
centre about half-way up: no pixel reaches the top colour.

The colour bar (white text on a dark panel, bottom right) is drawn where it
stays out of the middle of the picture, where the subject is: at 1280x720
it is (white pixels), at 640x400 with the HUD's text size it would cover the
sphere's lower right, so it is not (no white pixel: the palette's top colour
has blue 0.64, far from white).
"""
import os
import subprocess
import sys
import tempfile

from checks import check, done, png_decode

TOP = (0.988362, 0.998364, 0.644924)  # NBODY_INFERNO_8 (shaders/nbody_shared.h)
BOTTOM = (0.001462, 0.000466, 0.013866)  # NBODY_INFERNO_0


def read_png(path):
    """RGB(A) 8-bit PNG -> (w, h, rows of (r, g, b) tuples), top row first."""
    w, h, bpp, rows = png_decode(path)
    return w, h, [[tuple(r[x * bpp:x * bpp + 3]) for x in range(w)] for r in rows]


def near(px, rgb, tol=3):
    """px is the colour rgb (0..1) within tol of 255 (8-bit rounding)."""
    return all(abs(px[k] - rgb[k] * 255) <= tol for k in range(3))


def run(nbody, tmp, name, *args, size=(640, 400)):
    png = os.path.join(tmp, name + ".png")
    r = subprocess.run([nbody, "--headless", "--backend", "cpu", "--ic", "plummer", "--n", "3000",
                        "--view", "density", "--no-hud", "--frames", "1", "--width", str(size[0]),
                        "--height", str(size[1]), "--screenshot", png, *args],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"{name}: nbody exits 0 ({r.returncode}: {r.stderr.strip()[-300:]})")
    return read_png(png) if r.returncode == 0 else None


def main():
    nbody = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in (("log", ()), ("asinh", ("--density-stretch", "asinh"))):
            pic = run(nbody, tmp, name, *args)
            if not pic:
                continue
            w, h, rows = pic
            # Above where a colour bar would be (bottom right): the top 3/5.
            bx, by = max(((x, y) for y in range(h * 3 // 5) for x in range(w)),
                         key=lambda p: sum(rows[p[1]][p[0]]))
            check(near(rows[by][bx], TOP), f"{name}: the brightest pixel {rows[by][bx]} is the "
                  f"palette's top {tuple(round(c * 255) for c in TOP)}")
            # The pixels at the top (the top 0.1 % of the lit ones, and ties
            # with them): their centre. 3000 bodies: the sample's peak wanders
            # inside the flat core (a tenth of the picture's height and
            # more), not outside it.
            tops = [(x, y) for y in range(h) for x in range(w) if near(rows[y][x], TOP)]
            bx = sum(p[0] for p in tops) / max(len(tops), 1)
            by = sum(p[1] for p in tops) / max(len(tops), 1)
            d = ((bx - (w - 1) / 2) ** 2 + (by - (h - 1) / 2) ** 2) ** 0.5
            check(d < 40, f"{name}: the {len(tops)} top pixels centre at ({bx:.0f}, {by:.0f}), "
                  f"{d:.1f} px from the centre (< 40)")
            # The top-left corner: far outside the sphere (the colour bar is bottom right).
            corner = [rows[y][x] for y in range(4) for x in range(4)]
            check(all(near(p, BOTTOM) for p in corner),
                  f"{name}: the empty corner is the palette's bottom ({corner[0]})")
        pic = run(nbody, tmp, "max", "--density-max", "100")
        if pic:
            w, h, rows = pic
            top = sum(1 for row in rows[:h * 2 // 3] for p in row if near(p, TOP, 40))
            check(top == 0, f"--density-max 100: no pixel near the top colour ({top})")
            c = rows[h // 2][w // 2]
            check(not near(c, BOTTOM, 10), f"--density-max 100: the centre is not the bottom ({c})")
        for size, shown in (((1280, 720), True), ((640, 400), False)):
            pic = run(nbody, tmp, "bar%dx%d" % size, size=size)
            if pic:
                white = sum(1 for row in pic[2] for p in row if min(p) >= 230)
                check((white > 0) == shown, "%dx%d: the colour bar %s (%d white pixels)"
                      % (*size, "drawn" if shown else "not drawn over the middle", white))
    return done("test_density_view")


if __name__ == "__main__":
    sys.exit(main())
