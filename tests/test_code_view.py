#!/usr/bin/env python3
"""test_code_view.py - the code panel (') in nbody's own screenshot, headless
on the CPU backend at 1920x1080, the HUD and the chart shown.

    test_code_view.py NBODY SOURCE_DIR

A --script presses ' (the panel), I (the chart) and then K (the CPU tree
after the reference). The panel's marks (opaque bars of one colour, left of
each line new against the method before) are found in the picture: they
must sit at the left edge, below the HUD, and mark exactly the rows this
test's own diff says, computed here from the marked regions of the sources
(sim/sim_code.list) with a longest common subsequence of trimmed lines: for
the tree against the reference every row but the "..." where its regions
join (test_code_panel checks the first method's panel, with no marks). Where
tesseract can be had, the panel is read back: the method's name and one of
its key lines must be in it (else that part exits 77, the rest having run).
"""
import os
import shutil
import subprocess
import sys
import tempfile

from checks import check, done, failed
from test_density_view import read_png

W, H = 1920, 1080
MARK = (255, 158, 31)  # CODE_MARK in app/ui/ui_code.c, opaque: exact to a step


def regions(src, backend, method):
    """The method's key lines as the build cuts them (sim/sim_code.cmake)."""
    for row in open(os.path.join(src, "sim", "sim_code.list")):
        f = row.split()
        if not f or f[0].startswith("#") or f[0] != backend or f[1] != method:
            continue
        text = open(os.path.join(src, f[2])).read().split("\n")
        parts = []
        for name in f[3:]:
            b = [i for i, l in enumerate(text) if l.strip() == f"/* lecture: begin {name} */"][0]
            e = [i for i, l in enumerate(text) if l.strip() == f"/* lecture: end {name} */"][0]
            body = text[b + 1:e]
            code = [l for l in body if l.strip() and not l.startswith("#")]
            ind = min(len(l) - len(l.lstrip(" ")) for l in code)
            parts.append([l[ind:] if len(l) - len(l.lstrip(" ")) >= ind else l for l in body])
        lines = []
        for k, p in enumerate(parts):
            lines += (["..."] if k else []) + p
        return lines
    return None


def marked(prev, cur):
    """Which of cur's lines are outside the LCS of the trimmed lines."""
    a, b = [l.strip() for l in prev], [l.strip() for l in cur]
    n, m = len(a), len(b)
    t = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            t[i][j] = t[i + 1][j + 1] + 1 if a[i] == b[j] else max(t[i + 1][j], t[i][j + 1])
    out, i, j = [False] * m, 0, 0
    while j < m:
        if i < n and a[i] == b[j]:
            i, j = i + 1, j + 1
        elif i < n and t[i + 1][j] >= t[i][j + 1]:
            i += 1
        else:
            out[j] = b[j] != "..."
            j += 1
    return out


def shoot(nbody, tmp, keys, name):
    script, png = os.path.join(tmp, name + ".txt"), os.path.join(tmp, name + ".png")
    with open(script, "w") as f:
        f.write("".join(f"{frame} {key}\n" for frame, key in keys))
    r = subprocess.run([nbody, "--headless", "--backend", "cpu", "--ic", "plummer", "--n", "1000",
                        "--frames", "3", "--width", str(W), "--height", str(H),
                        "--script", script, "--screenshot", png],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"{name}: nbody exits 0 ({r.returncode}: {r.stderr.strip()[-300:]})")
    return (png, read_png(png)) if r.returncode == 0 else (None, None)


def marks(pic):
    """The marks' column and the rows of pixels (top, bottom) of each mark."""
    w, h, rows = pic
    hits = [(x, y) for y in range(h) for x in range(w // 2) if rows[y][x] == MARK]
    if not hits:
        return None, []
    xs = sorted({x for x, _ in hits})
    x = xs[len(xs) // 2]  # the middle of the bars' width
    runs, y = [], 0
    while y < h:
        if rows[y][x] == MARK:
            y0 = y
            while y < h and rows[y][x] == MARK:
                y += 1
            runs.append((y0, y))
        y += 1
    return x, runs


def ocr(pic, box, tmp):
    """tesseract's reading of box (x0, y0, x1, y1) of the picture, or None without tesseract."""
    tess = shutil.which("tesseract")
    if not tess:
        return None
    w, h, rows = pic
    x0, y0, x1, y1 = box
    ppm = os.path.join(tmp, "panel.ppm")
    with open(ppm, "wb") as f:
        f.write(b"P6 %d %d 255\n" % (x1 - x0, y1 - y0))
        f.write(bytes(c for r in rows[y0:y1] for p in r[x0:x1] for c in p))
    # One block of text (--psm 6), one thread: a few seconds, not ten.
    r = subprocess.run([tess, ppm, "stdout", "--psm", "6"], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ, OMP_THREAD_LIMIT="1"))
    check(r.returncode == 0, f"tesseract read the panel (exit {r.returncode}): {r.stderr[:300]}")
    return r.stdout


def main():
    nbody, src = sys.argv[1], sys.argv[2]
    ref, tree = regions(src, "cpu", "reference"), regions(src, "cpu", "tree")
    check(ref and tree, "sim/sim_code.list names the CPU reference's and the tree's regions")
    if not (ref and tree):
        return done("test_code_view")
    want = marked(ref, tree)
    check(any(want) and not all(want), f"the tree's diff marks some rows, not all: {want}")
    with tempfile.TemporaryDirectory() as tmp:
        _, pic = shoot(nbody, tmp, [(0, "'"), (0, "I"), (1, "K")], "tree")
        if not pic:
            return done("test_code_view")
        x, runs = marks(pic)
        check(runs, "tree: marks in the picture")
        if not runs:
            return done("test_code_view")
        # Rows are a line apart; the closest two marks are neighbours (the
        # diff marks rows 0 and 1), so their distance is the pitch.
        pitch = min(b[0] - a[0] for a, b in zip(runs, runs[1:]))
        first_row = want.index(True)
        got = [False] * len(want)
        for y0, _ in runs:
            k = first_row + round((y0 - runs[0][0]) / pitch)
            check(0 <= k < len(want), f"a mark at y {y0} is row {k}, past the {len(want)} rows")
            if 0 <= k < len(want):
                got[k] = True
        check(got == want, f"the marked rows are the diff's: {got} vs {want}")
        check(pitch >= 1.2 * 18, f"rows {pitch} px apart: a font of at least 18 px")
        check(x < 0.05 * W, f"the marks at the left edge (x {x})")
        check(runs[0][0] > 0.2 * H, f"below the HUD (first mark at y {runs[0][0]})")
        # Read the panel back: from above its title (two lines of why, the
        # title) to below its last row, the left half.
        box = (0, max(0, runs[0][0] - 6 * pitch), W // 2, min(H, runs[-1][1] + pitch))
        text = ocr(pic, box, tmp)
        if text is None:
            print("test_code_view: no tesseract (apt-get install tesseract-ocr): text not read")
            if failed():
                return done("test_code_view")
            print("test_code_view: skipped after the picture's checks passed")
            return 77
        flat = " ".join(text.split())
        check("tree" in flat, f"the method's name in the panel: {flat[:300]}")
        check("radial" in flat and "quadrupole" in flat,
              f"a key line (radial) and the reason (quadrupole) in the panel: {flat[:400]}")
    return done("test_code_view")


if __name__ == "__main__":
    sys.exit(main())
