#!/usr/bin/env python3
"""test_tour.py - captions of a --script tour, and the lecture tour itself.

    test_tour.py NBODY CUDA_AVAILABLE cpu|cuda

cpu: a script's "FRAME caption TEXT" lines reach the status JSON's
"caption" from their frame on (the text to the end of the line, trimmed; an
empty one clears it; keys of the same frame apply too); a caption longer
than the limit is refused with its line number, exit 2.
Both: assets/tours/lecture-ladder.txt played headless with --lecture (on
the CPU at 256 bodies with its frames divided by 100; on a GPU at 8,192
bodies as written): its Page Down presses climb every rung of the backend
in order (naive ... fp64, tree on a GPU; the reference and the tree on the
CPU) and reach the summary step, and the lecture's caption on screen names
the rung running in that frame ("tree (rung 11 of 11): ..." while the tree
runs). Exit 77 for cuda without a device.
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
tour = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets", "tours",
                    "lecture-ladder.txt")



def play(tmp, script, frames, every, extra):
    status = os.path.join(tmp, "s.jsonl")
    cmd = [nbody, "--headless", "--backend", backend, "--frames", str(frames), "--width", "320",
           "--height", "200", "--script", script, "--status-json", status, "--status-every",
           str(every), *extra]
    res = subprocess.run(cmd, capture_output=True, text=True)
    lines = []
    if res.returncode == 0:
        lines = [json.loads(x) for x in open(status).read().splitlines()]
    return res, lines


with tempfile.TemporaryDirectory() as tmp:
    if backend == "cpu":
        script = os.path.join(tmp, "captions.txt")
        with open(script, "w") as f:
            f.write("0 caption  first words: here  \n2 Space\n2 caption second\n5 caption\n")
        res, lines = play(tmp, script, 8, 1, ["--n", "256"])
        check(res.returncode == 0, f"a script with captions runs: {res.stderr.strip()[-200:]}")
        by_frame = {d["frame"]: d for d in lines}
        want = {0: "first words: here", 1: "first words: here", 2: "second", 4: "second", 5: "",
                7: ""}
        for frame, text in want.items():
            got = by_frame.get(frame, {}).get("caption")
            check(got == text, f"frame {frame}: caption {got!r}, want {text!r}")
        check(by_frame.get(3, {}).get("paused") is True, "a key on a caption's frame applies too")
        with open(script, "w") as f:
            f.write("0 K\n1 caption " + "x" * 300 + "\n")
        res, _ = play(tmp, script, 2, 1, ["--n", "256"])
        check(res.returncode == 2 and "line 2" in res.stderr and "caption" in res.stderr,
              f"an overlong caption: exit {res.returncode}, {res.stderr.strip()[:120]!r}")
    # The lecture tour, with --lecture.
    keys = [x.split() for x in open(tour) if x.strip() and x[0] != "#"]
    check(keys and all(len(k) == 2 and k[1] == "PageDown" for k in keys),
          f"the tour presses Page Down only: {len(keys)} lines")
    scale = 100 if backend == "cpu" else 1
    script = os.path.join(tmp, "tour.txt")
    with open(script, "w") as f:
        f.writelines(f"{int(frame) // scale} {key}\n" for frame, key in keys)
    last = max(int(frame) for frame, _ in keys) // scale
    every = 1 if backend == "cpu" else 10
    n = "256" if backend == "cpu" else "8192"
    res, lines = play(tmp, script, last + 3 * every, every, ["--n", n, "--lecture"])
    check(res.returncode == 0, f"the tour runs: {res.stderr.strip()[-200:]}")
    seen = []
    for d in lines:
        lec = d["lecture"]
        rung = "summary" if lec["summary"] else lec["rung"]
        if rung not in seen:
            seen.append(rung)
        if not lec["summary"] and lec["caption"].split(" (")[0] != d["variant"]:
            check(False, f"frame {d['frame']}: caption {lec['caption'][:40]!r} while "
                         f"{d['variant']} runs")
    want = ["naive", "soa", "rsqrt", "tiled", "unrolled", "noif", "fma", "fast", "best",
            "fp64", "tree", "summary"] if backend == "cuda" else ["reference", "tree", "summary"]
    check(seen == want, f"the steps, in order: {seen}")

done("test_tour")
