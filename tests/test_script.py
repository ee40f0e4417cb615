#!/usr/bin/env python3
"""test_script.py - scripted key presses through the headless front-end.

    test_script.py NBODY CUDA_AVAILABLE cpu|cuda

Runs nbody --headless with a --script that presses K, P, Q, D, S, T and +,
one every two frames, and --status-json with --status-every 1, then checks
in the status line after each press that the knob moved as the key table
says. Then three short runs from the same seed, written with --dump:
  - one with no keys,
  - one that switches the kernel variant and back (K, Shift+K),
  - one that doubles the softening (S),
and checks that the variant switch leaves the bodies where they were (to
float tolerance: kernels differ only in rounding, ~1e-6 over 20 steps; on the
CPU backend, which has one kernel, exactly) while the softening change moves
them measurably (> 1e-4). Exit 77 for cuda without a device.
"""
import json
import os
import subprocess
import sys
import tempfile

nbody, cuda_available, backend = sys.argv[1], sys.argv[2], sys.argv[3]
if backend == "cuda" and subprocess.run([cuda_available], capture_output=True).returncode != 0:
    sys.exit(77)

failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    failures += 0 if ok else 1


def run(tmp, name, script, frames, extra=()):
    path = os.path.join(tmp, name + ".txt")
    with open(path, "w") as f:
        f.write(script)
    status = os.path.join(tmp, name + ".jsonl")
    dump = os.path.join(tmp, name + ".csv")
    cmd = [nbody, "--headless", "--backend", backend, "--n", "1024", "--seed", "5",
           "--frames", str(frames), "--width", "320", "--height", "200", "--script", path,
           "--status-json", status, "--status-every", "1", "--dump", dump, *extra]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        print(res.stdout, res.stderr)
    check(res.returncode == 0, f"{name}: nbody exited {res.returncode}")
    with open(status) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    with open(dump) as f:
        rows = [list(map(float, line.split(","))) for line in f.readlines()[1:]]
    return lines, rows


def at(lines, frame):
    """The status line written at the end of `frame`."""
    return next(s for s in lines if s["frame"] == frame)


with tempfile.TemporaryDirectory() as tmp:
    script = "".join(f"{2 * i + 1} {key}\n" for i, key in
                     enumerate(["K", "P", "Q", "D", "D", "S", "T", "+", "Shift+D", "Shift+D"]))
    lines, _ = run(tmp, "keys", script, 24, ["--p", "32", "--q", "2"])
    start = at(lines, 0)
    after = {key: at(lines, 2 * i + 1) for i, key in
             enumerate(["K", "P", "Q", "D", "D2", "S", "T", "+", "Shift+D", "Shift+D2"])}
    if backend == "cuda":
        check(start["variant"] == "best" and after["K"]["variant"] == "fp64",
              f"K: {start['variant']} -> {after['K']['variant']}")
    else:
        check(after["K"]["variant"] == start["variant"] == "cpu-reference",
              "K: the CPU backend keeps its reference kernel")
    check(after["P"]["p"] == 64 and after["P"]["q"] == 2, f"P: p {after['P']['p']}")
    check(after["Q"]["q"] == 4 and after["Q"]["p"] == 64, f"Q: q {after['Q']['q']}")
    check(abs(after["D"]["damping"] - 0.9999) < 1e-6, f"D: damping {after['D']['damping']}")
    check(abs(after["D2"]["damping"] - 0.9998) < 1e-6, f"D D: damping {after['D2']['damping']}")
    check(abs(after["S"]["softening"] - 2 * start["softening"]) < 1e-7,
          f"S: softening {start['softening']} -> {after['S']['softening']}")
    check(abs(after["T"]["dt"] - 2 * start["dt"]) < 1e-9, f"T: dt {after['T']['dt']}")
    check(after["+"]["n"] == 2 * start["n"] and after["+"]["scene"] == start["scene"],
          f"+: n {start['n']} -> {after['+']['n']}")
    check(after["+"]["steps"] <= 1, "+ re-seeds: the clock restarts")
    check(abs(after["Shift+D"]["damping"] - 0.9999) < 1e-6, "Shift+D: damping 0.9999")
    check(after["Shift+D2"]["damping"] == 1.0, "Shift+D again: damping exactly 1")
    check(all(s["energy"] is not None for s in lines), "energy is finite in every line")

    _, base = run(tmp, "base", "", 20)
    _, variants = run(tmp, "variants", "5 K\n12 Shift+K\n", 20)
    _, softer = run(tmp, "softer", "5 S\n", 20)
    worst_variant = max(abs(a - b) for ra, rb in zip(base, variants) for a, b in zip(ra, rb))
    worst_soft = max(abs(a - b) for ra, rb in zip(base, softer) for a, b in zip(ra, rb))
    print(f"largest difference: variant switch {worst_variant:.3g}, softening x2 {worst_soft:.3g}")
    check(len(base) == len(variants) == len(softer) == 1024, "three dumps of 1024 bodies")
    check(worst_variant < 1e-4, "switching kernels leaves the bodies where they were")
    check(worst_soft > 1e-4, "doubling the softening moves them")

print(f"test_script ({backend}): {failures} failure(s)")
sys.exit(1 if failures else 0)
