#!/usr/bin/env python3
"""test_script.py - scripted key presses through the headless front-end.

    test_script.py NBODY CUDA_AVAILABLE cpu|cuda

Runs nbody --headless with a --script that presses K, Shift+K, P, Q, D, S, T and +,
one every two frames, and --status-json with --status-every 1, then checks
in the status line after each press that the knob moved as the key table
says (P and Q on the CPU backend: p and q stay null, it has no block shape). K switches the force method: on CUDA to another kernel variant, on
the CPU between the CPU's two methods, "reference" and "tree".

Then short runs from the same seed, written with --dump:
  - paused: pause at frame 2, K at frame 4, K back at frame 6 (Shift+K on
    CUDA, where K walks a list of variants), and the same run without the
    K presses: the variant in the status lines must change and come back,
    and the bodies must stay where they were (paused, nothing steps: on the
    CPU exactly; on CUDA within 1e-6, room for a float -> double -> float
    round trip of the fp64 kernel's state but not for one step, which moves
    the median body by 4e-3 and the farthest by 1e-2 here, measured);
  - on CUDA only: running, a variant switch and back (K, Shift+K) against no
    keys: kernels differ only in rounding, ~1e-6 over 20 steps, so the bodies
    must agree within 1e-4. (On the CPU the other method is the tree, an
    approximation, so only the paused comparison says anything there.)
  - doubling the softening (S) against no keys: the bodies move measurably
    (> 1e-4), so the comparisons above can see a difference.
Exit 77 for cuda without a device.
"""
import json
import os
import subprocess
import sys
import tempfile

from checks import check, done

nbody, cuda_available, backend = sys.argv[1], sys.argv[2], sys.argv[3]
if backend == "cuda" and subprocess.run([cuda_available], capture_output=True).returncode != 0:
    sys.exit(77)




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
                     enumerate(["K", "Shift+K", "P", "Q", "D", "D", "S", "T", "+", "Shift+D",
                                "Shift+D"]))
    block = ["--p", "32", "--q", "2"] if backend == "cuda" else []  # --backend cpu refuses them
    lines, _ = run(tmp, "keys", script, 26, block)
    start = at(lines, 0)
    after = {key: at(lines, 2 * i + 1) for i, key in
             enumerate(["K", "Shift+K", "P", "Q", "D", "D2", "S", "T", "+", "Shift+D",
                        "Shift+D2"])}
    if backend == "cuda":
        check(start["variant"] == "best" and after["K"]["variant"] not in ("best", "", None),
              f"K: kernel {start['variant']} -> {after['K']['variant']}")
    else:
        check(start["variant"] == "reference" and after["K"]["variant"] == "tree",
              f"K: CPU method {start['variant']} -> {after['K']['variant']}")
    check(after["Shift+K"]["variant"] == start["variant"],
          f"Shift+K: back to {after['Shift+K']['variant']}")
    if backend == "cuda":
        check(after["P"]["p"] == 64 and after["P"]["q"] == 2, f"P: p {after['P']['p']}")
        check(after["Q"]["q"] == 4 and after["Q"]["p"] == 64, f"Q: q {after['Q']['q']}")
    else:  # no block shape on the CPU backend: P and Q say so, the status has null
        check(after["P"]["p"] is None and after["Q"]["q"] is None,
              f"P, Q on the CPU: p {after['P']['p']}, q {after['Q']['q']}")
    check(abs(after["D"]["damping"] - 0.9999) < 1e-6, f"D: damping {after['D']['damping']}")
    check(abs(after["D2"]["damping"] - 0.9998) < 1e-6, f"D D: damping {after['D2']['damping']}")
    check(abs(after["S"]["softening"] - 2 * start["softening"]) < 1e-7,
          f"S: softening {start['softening']} -> {after['S']['softening']}")
    check(abs(after["T"]["dt"] - 2 * start["dt"]) < 1e-9, f"T: dt {after['T']['dt']}")
    check(after["+"]["n"] == 2 * start["n"] and after["+"]["ic"] == start["ic"] and
          after["+"]["preset"] == start["preset"],
          f"+: n {start['n']} -> {after['+']['n']}")
    check(after["+"]["steps"] <= 1, "+ re-seeds: the clock restarts")
    check(abs(after["Shift+D"]["damping"] - 0.9999) < 1e-6, "Shift+D: damping 0.9999")
    check(after["Shift+D2"]["damping"] == 1.0, "Shift+D again: damping exactly 1")
    check(all(s["energy"] is not None for s in lines), "energy is finite in every line")

    back = "Shift+K" if backend == "cuda" else "K"
    ref_lines, ref = run(tmp, "paused_ref", "2 Space\n", 8)
    sw_lines, switched = run(tmp, "paused_switch", f"2 Space\n4 K\n6 {back}\n", 8)
    names = [at(sw_lines, f)["variant"] for f in (3, 4, 6)]
    check(names[0] == at(ref_lines, 3)["variant"] and names[1] != names[0] and names[2] == names[0],
          f"paused: K then {back}: variant {names[0]} -> {names[1]} -> {names[2]}")
    check(at(sw_lines, 8)["steps"] == at(ref_lines, 8)["steps"] and at(sw_lines, 8)["paused"],
          f"paused: steps {at(ref_lines, 8)['steps']} and {at(sw_lines, 8)['steps']}, still paused")
    worst_paused = max(abs(a - b) for ra, rb in zip(ref, switched) for a, b in zip(ra, rb))
    limit = 1e-6 if backend == "cuda" else 0.0
    check(len(ref) == len(switched) == 1024 and worst_paused <= limit,
          f"paused: switching the force method leaves the bodies in place "
          f"(largest difference {worst_paused:.3g}, allowed {limit:g})")

    _, base = run(tmp, "base", "", 20)
    _, softer = run(tmp, "softer", "5 S\n", 20)
    worst_soft = max(abs(a - b) for ra, rb in zip(base, softer) for a, b in zip(ra, rb))
    check(len(base) == len(softer) == 1024, "two dumps of 1024 bodies")
    check(worst_soft > 1e-4, f"doubling the softening moves them (largest difference "
                             f"{worst_soft:.3g})")
    if backend == "cuda":
        _, variants = run(tmp, "variants", "5 K\n12 Shift+K\n", 20)
        worst_variant = max(abs(a - b) for ra, rb in zip(base, variants) for a, b in zip(ra, rb))
        check(len(variants) == 1024 and worst_variant < 1e-4,
              f"running: switching kernels and back leaves the bodies where they were "
              f"(largest difference {worst_variant:.3g})")

done(f"test_script ({backend})")
