#!/usr/bin/env python3
"""test_roofline_view.py - the ladder chart's ceilings view (Shift+I),
headless on the CPU backend.

    test_roofline_view.py NBODY

--script presses I (the chart, bars) and then Shift+I (its ceilings view).
The view's plot box is drawn in a colour of its own (PLOT below,
app/ui/ui_roofline.c) and NVIDIA's DLI pass line in a green found nowhere
else: the plot must be in the bottom right, clear of the HUD's text at the
top left and above the message line; at N = 4,096 a dashed DLI line must
cross most of the plot's width on one row inside it, and at N = 4,000 there
must be none. With I alone (the bars) neither colour is drawn, so Shift+I
is what switches the view.
"""
import os
import subprocess
import sys
import tempfile

from checks import check, done
from test_density_view import read_png

W, H = 1280, 720
PLOT = (15, 18, 28)  # (0.06, 0.07, 0.11) in 8 bits
DLI = (26, 255, 51)  # (0.1, 1.0, 0.2); 0.1 x 255 = 25.5 rounds either way


def is_dli(p):
    """The DLI green within one step of rounding per channel (Mesa writes 26
    for 0.1, NVIDIA's GL 25)."""
    return all(abs(a - b) <= 1 for a, b in zip(p, DLI))


def shot(nbody, tmp, name, n, keys):
    script = os.path.join(tmp, name + ".txt")
    png = os.path.join(tmp, name + ".png")
    with open(script, "w") as f:
        f.write("".join(f"{i} {k}\n" for i, k in enumerate(keys)))
    # 4 frames: the chart times the CPU's two rungs, one per frame.
    r = subprocess.run([nbody, "--headless", "--backend", "cpu", "--n", str(n), "--frames", "4",
                        "--width", str(W), "--height", str(H), "--script", script,
                        "--screenshot", png], capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"{name}: nbody exits 0 ({r.returncode}: {r.stderr.strip()[-300:]})")
    return read_png(png) if r.returncode == 0 else None


def box(pic, colour):
    """The bounding box (x0, y0, x1, y1) of the pixels of colour; None if none."""
    _, _, rows = pic
    xs, ys = [], []
    for y, row in enumerate(rows):
        for x, p in enumerate(row):
            if p == colour:
                xs.append(x)
                ys.append(y)
    return (min(xs), min(ys), max(xs), max(ys)) if xs else None


def dli_rows(pic, plot):
    """Rows inside the plot box where the DLI green covers a third of its width
    (the line is dashed: half of it is drawn)."""
    _, _, rows = pic
    x0, y0, x1, y1 = plot
    return [y for y in range(y0, y1 + 1)
            if sum(1 for p in rows[y][x0:x1 + 1] if is_dli(p)) > (x1 - x0) / 3]


def main():
    nbody = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        bars = shot(nbody, tmp, "bars", 4096, ["I"])
        roof = shot(nbody, tmp, "roof", 4096, ["I", "Shift+I"])
        other = shot(nbody, tmp, "roof-4000", 4000, ["I", "Shift+I"])
        if bars:
            # The bars' panel blended over a star may hit PLOT's colour on a
            # few pixels; the plot covers more than a tenth of the picture.
            flat = [p for row in bars[2] for p in row]
            check(flat.count(PLOT) < 0.01 * W * H and not any(is_dli(p) for p in flat),
                  f"I alone draws the bars: no plot ({flat.count(PLOT)} pixels), no DLI line")
        plot = box(roof, PLOT) if roof else None
        if check(plot is not None, "I, Shift+I: the ceilings view's plot is drawn"):
            x0, y0, x1, y1 = plot
            check(x0 > 0.3 * W and x1 < W and y0 > 0.25 * H and y1 < H - 40,
                  f"the plot {plot} sits bottom right, above the message line")
            check(x1 - x0 > 0.4 * W and y1 - y0 > 0.25 * H, f"the plot {plot} is large")
            _, _, rows = roof
            hud = [p for row in rows[:int(0.2 * H)] for p in row[:int(0.3 * W)]]
            check(PLOT not in hud, "the HUD's corner is not covered")
            lines = dli_rows(roof, plot)
            check(len(lines) > 0, f"at N = 4096 the DLI pass line crosses the plot ({lines})")
        if other:
            plot = box(other, PLOT)
            check(plot is not None and not dli_rows(other, plot),
                  "at N = 4000 the plot has no DLI line")
    done("test_roofline_view")


if __name__ == "__main__":
    main()
