#!/usr/bin/env python3
"""test_lecture_view.py - the lecture mode played headless, as a class sees it.

    test_lecture_view.py NBODY CUDA_AVAILABLE cpu|cuda

nbody --lecture (1920x1080, a projector's picture; on the CPU backend 512
bodies, on a GPU 8,192) with a --script that presses Page Down, then
Space, and F12 on the frames between: the status JSON says the rung after
each press (on the CPU the reference, the tree, then the summary step
with the tree running; on a GPU naive, soa, rsqrt), and each screenshot
is checked where the layout (the status's "lecture.layout", from
ui_lecture_place) puts the panels:

  the chart: its bars inside the chart's box, the running rung's bar in
  the running colour (ui_chart.c's CURRENT) and another in the bar
  colour, next to none of either colour outside the box; at the summary
  its ceilings view, read back by tesseract;
  the bodies: the light's centre in the subject's box (the lens), no
  panel over it;
  the text, read back by tesseract from the box's own pixels: the rung's
  name in the caption, "PgDn next rung" in the HUD, and in the left
  column the code panel headed by the rung's name (at the tree's step the
  tree's frontier).

Exit 77 where tesseract cannot be run (apt-get install tesseract-ocr), and
for cuda without a device.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from checks import check, done, png_decode

CURRENT = (0.8, 0.5, 0.08)  # ui_chart.c: the running rung's bar
BAR = (0.2, 0.4, 0.64)  # ... and the others'


def colour_count(pic, box, rgb, tol=4):
    """Pixels of colour rgb (0..1, within tol of 8-bit) inside box, and outside
    it, among every other pixel of every other row (a bar is tens of pixels
    on each side: a quarter of its pixels are plenty, in a quarter of the time)."""
    w, h, bpp, rows = pic
    want = [round(c * 255) for c in rgb]
    x0, y0, x1, y1 = int(box[0]), int(box[1]), int(box[0] + box[2]), int(box[1] + box[3])
    inside = outside = 0
    for y in range(0, h, 2):
        r = rows[y]
        for x in range(0, w, 2):
            i = x * bpp
            if abs(r[i] - want[0]) <= tol and abs(r[i + 1] - want[1]) <= tol and \
                    abs(r[i + 2] - want[2]) <= tol:
                if x0 <= x < x1 and y0 <= y < y1:
                    inside += 1
                else:
                    outside += 1
    return inside, outside


def light_centre(pic, box):
    """The centre of the light (sum of r, g, b as weights) inside box, the
    radius holding half of it, and its total."""
    w, h, bpp, rows = pic
    lit = []
    for y in range(int(box[1]), int(box[1] + box[3])):
        r = rows[y]
        for x in range(int(box[0]), int(box[0] + box[2])):
            v = r[x * bpp] + r[x * bpp + 1] + r[x * bpp + 2]
            if v:
                lit.append((x, y, v))
    total = sum(v for _, _, v in lit)
    if not total:
        return 0, 0, 0, 0
    cx = sum(x * v for x, _, v in lit) / total
    cy = sum(y * v for _, y, v in lit) / total
    half = 0
    for d, v in sorted((((x - cx) ** 2 + (y - cy) ** 2) ** 0.5, v) for x, y, v in lit):
        half += v
        if half >= total / 2:
            return cx, cy, d, total
    return cx, cy, 0, total


def ocr(pic, box, tmp, name):
    """tesseract's words in box: its pixels' brightness, inverted (dark text
    on light, as tesseract reads best), twice the size."""
    w, h, bpp, rows = pic
    x0, y0 = max(0, int(box[0])), max(0, int(box[1]))
    x1, y1 = min(w, int(box[0] + box[2])), min(h, int(box[1] + box[3]))
    out = bytearray()
    for y in range(y0, y1):
        r = rows[y]
        line = bytearray()
        for x in range(x0, x1):
            g = 255 - max(r[x * bpp], r[x * bpp + 1], r[x * bpp + 2])
            line += bytes((g, g))
        out += line + line
    path = os.path.join(tmp, name + ".pgm")
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (2 * (x1 - x0), 2 * (y1 - y0)) + bytes(out))
    res = subprocess.run(["tesseract", path, "stdout", "--psm", "6"], capture_output=True,
                         text=True)
    return " ".join(res.stdout.split())


def main():
    nbody, cuda_available, backend = sys.argv[1], sys.argv[2], sys.argv[3]
    if backend == "cuda" and subprocess.run([cuda_available]).returncode != 0:
        sys.exit(77)
    if not shutil.which("tesseract"):
        print("skip: tesseract is not installed (apt-get install tesseract-ocr)")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "lecture.txt")
        # Frame 2: the first rung; 3: PgDn; 5: the second; 6: Space; 8: the third step.
        with open(script, "w") as f:
            f.write("2 F12\n3 PageDown\n5 F12\n6 Space\n8 F12\n")
        status = os.path.join(tmp, "status.jsonl")
        n = "512" if backend == "cpu" else "8192"
        res = subprocess.run([nbody, "--headless", "--backend", backend, "--lecture", "--n", n,
                              "--width", "1920", "--height", "1080", "--frames", "10", "--script",
                              script, "--status-json", status, "--status-every", "1"],
                             cwd=tmp, capture_output=True, text=True, timeout=300)
        check(res.returncode == 0, f"nbody --lecture runs: {res.stderr.strip()[-300:]}")
        if res.returncode != 0:
            done("test_lecture_view")
        lines = {d["frame"]: d for d in map(json.loads, open(status).read().splitlines())}
        rungs = ["reference", "tree", "tree"] if backend == "cpu" else ["naive", "soa", "rsqrt"]
        last = backend == "cpu"  # the third step is the CPU's summary
        want = {0: (0, rungs[0], False), 2: (0, rungs[0], False), 3: (1, rungs[1], False),
                5: (1, rungs[1], False), 6: (2, rungs[2], last), 9: (2, rungs[2], last)}
        for frame, (step, rung, summary) in want.items():
            lec = lines.get(frame, {}).get("lecture") or {}
            got = (lec.get("step"), lec.get("rung"), lec.get("summary"))
            check(got == (step, rung, summary) and lines[frame]["variant"] == rung,
                  f"frame {frame}: step, rung, summary {got}, want {(step, rung, summary)}")
        check(all(not d["paused"] for d in lines.values()), "Space does not pause the lecture")
        layout = lines[9]["lecture"]["layout"]
        check(layout["width"] == 1920 and layout["height"] == 1080,
              f"the layout is the picture's: {layout['width']}x{layout['height']}")
        shots = sorted(x for x in os.listdir(tmp) if x.startswith("nbody-") and x.endswith(".png"))
        check(len(shots) == 3, f"three screenshots: {shots}")
        if len(shots) != 3:
            done("test_lecture_view")
        steps = [(rungs[0], rungs[0]), (rungs[1], rungs[1]),
                 ("whole ladder" if last else rungs[2], rungs[2])]
        for shot, frame, (caption, running) in zip(shots, (2, 5, 8), steps):
            pic = png_decode(os.path.join(tmp, shot))
            chart = layout["chart"]
            if caption == "whole ladder":  # the summary: the ladder on its ceilings
                text = ocr(pic, chart, tmp, shot + "-chart")
                check("ceilings" in text, f"{shot}: the chart reads {text[:60]!r}, wants its "
                      "ceilings view")
            else:
                inside, outside = colour_count(pic, chart, CURRENT)
                # A bar is a solid box a row high (tens of pixels) and at
                # least 2 wide (the slowest rung, on the log scale's floor):
                # 10 of the pixels sampled at the least. The bodies' sprites
                # are small gradients: only a few of their pixels land on
                # this colour.
                check(inside >= 10 and outside < max(4, inside / 20),
                      f"{shot}: the running rung's bar ({running}) in the chart's box: {inside} "
                      f"pixels of its colour inside, {outside} outside")
                inside, outside = colour_count(pic, chart, BAR)
                check(inside >= 10 and outside < max(4, inside / 20),
                      f"{shot}: another rung's bar too: {inside} inside, {outside} outside")
            s = layout["subject"]
            # Between the two columns, top to bottom: the light's centre in
            # the subject's middle third (the lens centres the sphere there).
            band = [layout["code"][0] + layout["code"][2], s[1], chart[0] -
                    (layout["code"][0] + layout["code"][2]), s[3]]
            cx, cy, radius, total = light_centre(pic, band)
            check(total > 0 and abs(cx - (s[0] + s[2] / 2)) < s[2] / 6 and
                  abs(cy - (s[1] + s[3] / 2)) < s[3] / 6,
                  f"{shot}: the bodies' light centred in the subject: ({cx:.0f}, {cy:.0f}) in "
                  f"{s}")
            # ... and scaled into it: the lens fits the camera's square (the
            # picture's height) into the subject's, about half of it here,
            # so the radius holding half the light is under a quarter of
            # the subject's width; without the lens it is over that.
            check(0 < radius < s[2] / 4,
                  f"{shot}: half the light within {radius:.0f} px of its centre, want under "
                  f"{s[2] / 4:.0f}")
            text = ocr(pic, layout["caption"], tmp, shot + "-caption")
            check(caption in text, f"{shot}: the caption reads {text[:90]!r}, wants {caption!r}")
            # ... whole: its last word is on screen (a long why is set
            # smaller rather than cut off).
            last_word = "".join(c for c in lines[frame]["lecture"]["caption"].split()[-1]
                                if c.isalnum())
            check(last_word in text, f"{shot}: the caption ends {text[-60:]!r}, wants its last "
                  f"word {last_word!r}")
            # The left column: the tree's frontier at the tree, else the
            # code panel headed by the rung's name.
            text = ocr(pic, layout["code"], tmp, shot + "-code")
            if caption == "tree":
                check("frontier" in text.lower(),
                      f"{shot}: the left column reads {text[:60]!r}, wants the tree's frontier")
            elif caption == running:
                check(text.startswith(running),
                      f"{shot}: the left column reads {text[:60]!r}, wants {running}'s code")
            text = ocr(pic, layout["hud"], tmp, shot + "-hud")
            want_hud = "PgUp back" if last and shot == shots[-1] else "PgDn next rung"
            check(want_hud in text and running in text,
                  f"{shot}: the HUD reads {text[:90]!r}, wants {want_hud!r} and {running!r}")
    done("test_lecture_view")


main()
