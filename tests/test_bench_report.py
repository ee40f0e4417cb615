#!/usr/bin/env python3
"""test_bench_report.py - the benchmark's JSON and chart, checked from outside.

    test_bench_report.py TEST_BENCH_REPORT NBODY FONT.ttf

1. Runs test_bench_report (the C side: 1024 rows with the longest values and
   a 255-character device name of quotes, backslashes and control
   characters) and checks that its JSON parses, holds all 1024 rows in order
   with their fields, the device name survives exactly, and what JSON cannot
   hold (inf, NaN) or does not apply (interactions/s of a tree row) is null.
2. Runs `nbody --benchmark --backend cpu --n 64,96 --steps 2 --json --plot`
   and checks the PNG: the size the chart has for 2 rows (1200 x 170), and
   not blank (a bar's blue and dark text among its pixels).
3. Runs `nbody --benchmark --backend cpu --variant tree --theta 0.4,0.9`:
   one row per theta with build and walk time, interactions per body and a
   force error over all 300 bodies, no interactions/s and no lanes (the
   CPU's tree has none: '-' and null); theta 0.9 evaluates
   fewer interactions and errs more than 0.4 (what an opening angle means).
4. More configurations than the table's 1024 rows are refused with a hint.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

from checks import png_decode

gen, nbody, font = sys.argv[1:4]
failed = []


def check(ok, what):
    if not ok:
        failed.append(what)
        print("FAIL:", what)


def png_rgba(path):
    """Decodes an 8-bit RGBA, non-interlaced PNG (what stb_image_write makes)."""
    w, h, bpp, rows = png_decode(path)
    assert bpp == 4, "not 8-bit RGBA"
    return w, h, rows


with tempfile.TemporaryDirectory() as tmp:
    js, png = os.path.join(tmp, "rows.json"), os.path.join(tmp, "rows.png")
    r = subprocess.run([gen, js, png, font], capture_output=True, text=True)
    print(r.stdout, r.stderr, end="")
    check(r.returncode == 0, "test_bench_report exited %d" % r.returncode)
    doc = json.load(open(js))
    rows = doc["rows"]
    check(len(rows) == 1024, "%d rows in the JSON, expected 1024" % len(rows))
    want_name = "".join('a"\\\t\nZ'[i % 6] for i in range(255))
    check(doc["device"]["name"] == want_name, "the device name did not survive")
    for i, row in enumerate(rows):
        tree = i % 7 == 3
        n = 2147483647 if i % 2 else i + 1
        if row["n"] != n or row["p"] != 2147483647 - i or row["q"] != -2147483648 + i:
            check(False, "row %d: n, p, q are %s %s %s" % (i, row["n"], row["p"], row["q"]))
            break
        if row["method"] != ("tree" if tree else "all-pairs"):
            check(False, "row %d: method %s" % (i, row["method"]))
            break
        ms = [1e-300, 1e300, 123456.789, 0.001, None, None][i % 6]
        got = row["ms_per_step"]
        if (ms is None) != (got is None) or (ms and not math.isclose(got, ms, rel_tol=1e-5)):
            check(False, "row %d: ms_per_step %s, expected %s" % (i, got, ms))
            break
        if tree and (row["interactions_per_s"] is not None or row["gflops_equivalent"] is not None):
            check(False, "row %d: a tree row has interactions/s" % i)
            break
        if tree and (row["interactions_per_body"] is not None or "force_error_p99" not in row):
            check(False, "row %d: tree fields wrong: %s" % (i, row))
            break
        gpus = 16 if i % 4 == 1 else 1  # SIM_MAX_GPUS; a row's 0 GPUs reads as 1
        if row["gpus"] != gpus:
            check(False, "row %d: gpus %s, expected %d" % (i, row["gpus"], gpus))
            break
        if gpus > 1:
            forces = row["forces_ms_per_gpu"]
            want = [1e30 if k % 2 == 0 else None for k in range(gpus)] if i % 8 == 1 else [None] * gpus
            same = len(forces) == gpus and all(
                (w is None) == (g is None) and (w is None or math.isclose(g, w, rel_tol=1e-5))
                for g, w in zip(forces, want))
            if not same or row["split"] != (i % 3 != 0) or row["parallel_efficiency"] is not None \
                    or row["sum_ms"] is not None or row["one_gpu_ms_per_step"] != 1e300:
                check(False, "row %d: GPU fields wrong: %s" % (i, row))
                break
    print("JSON: %d rows checked" % len(rows))

    out = os.path.join(tmp, "bench.png")
    r = subprocess.run([nbody, "--benchmark", "--backend", "cpu", "--n", "64,96", "--steps", "2",
                        "--json", os.path.join(tmp, "bench.json"), "--plot", out],
                       capture_output=True, text=True, cwd=tmp)
    print(r.stdout, r.stderr, end="")
    check(r.returncode == 0, "nbody --benchmark --plot exited %d" % r.returncode)
    cpu_rows = json.load(open(os.path.join(tmp, "bench.json")))["rows"]
    check(len(cpu_rows) == 2, "2 rows expected")
    check(all(x["p"] is None and x["q"] is None for x in cpu_rows),
          "the CPU's rows have no block shape: p and q null (%s)"
          % [(x["p"], x["q"]) for x in cpu_rows])
    w, h, px = png_rgba(out)
    check((w, h) == (1200, 170), "chart is %d x %d, expected 1200 x 170" % (w, h))
    flat = b"".join(px)
    pixels = [flat[i:i + 3] for i in range(0, len(flat), 4)]
    blue = sum(1 for p in pixels if p == bytes((52, 101, 164)))
    dark = sum(1 for p in pixels if max(p) < 80)
    print("chart: %d x %d, %d blue, %d dark pixels" % (w, h, blue, dark))
    check(blue > 1000 and dark > 500, "the chart looks blank")
    # The progress lines on stderr give the block shape as the table does:
    # none for the CPU's reference.
    progress = [ln.split() for ln in r.stderr.splitlines() if ln.startswith("  reference N=")]
    check(len(progress) == 2 and all(ln[2] == "-" for ln in progress),
          "the CPU reference's progress lines have no p x q: %s" % progress)

    # The tree on the CPU backend: one row per theta, its own figures, no N^2 ones.
    tj = os.path.join(tmp, "tree.json")
    r = subprocess.run([nbody, "--benchmark", "--backend", "cpu", "--variant", "tree", "--n", "300",
                        "--theta", "0.4,0.9", "--steps", "1", "--json", tj],
                       capture_output=True, text=True, cwd=tmp)
    print(r.stdout, r.stderr, end="")
    check(r.returncode == 0, "nbody --benchmark --variant tree exited %d" % r.returncode)
    rows = json.load(open(tj))["rows"] if r.returncode == 0 else []
    check([round(x.get("theta") or 0, 3) for x in rows] == [0.4, 0.9], "tree rows: one per theta")
    for x in rows:
        ok = (x["method"] == "tree" and x["interactions_per_s"] is None
              and x["gflops_equivalent"] is None and x["ceiling_fraction"] is None
              and x["build_ms"] is not None and x["walk_ms"] is not None
              and 0 < (x["interactions_per_body"] or 0) and x["force_error_samples"] == 300
              and 0 < x["force_error_median"] <= x["force_error_p99"] < 1
              and x["lane_use"] is None)  # the CPU's tree walks no lanes
        check(ok, "tree row: %s" % x)
    lines = [ln.split() for ln in r.stdout.splitlines() if ln.startswith("tree ")]
    check(len(lines) == 2 and all(ln[10] == "-" for ln in lines),
          "the lanes column of the CPU's tree rows is '-': %s" % lines)
    if len(rows) == 2:  # a wider opening angle is coarser: fewer interactions, larger error
        check(rows[1]["interactions_per_body"] < rows[0]["interactions_per_body"]
              and rows[1]["force_error_median"] > rows[0]["force_error_median"],
              "theta 0.9 is not coarser than 0.4")

    # More configurations than the table holds: refused up front, one line and a hint.
    # (The backend the machine has: --backend cpu refuses --p and --q.)
    many = ",".join(str(32 * k) for k in range(1, 17))
    r = subprocess.run([nbody, "--benchmark", "--variant", "best", "--n", many, "--p", many,
                        "--q", "1,2,3,4,5"], capture_output=True, text=True, cwd=tmp)
    check(r.returncode != 0 and "1280 configurations" in r.stderr and "hint:" in r.stderr,
          "1280 configurations not refused: rc %d, %s" % (r.returncode, r.stderr))

print("test_bench_report: %s" % ("FAIL" if failed else "ok"))
sys.exit(1 if failed else 0)
