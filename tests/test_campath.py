#!/usr/bin/env python3
"""test_campath.py - --camera-path through the command line (CPU backend, headless).

    test_campath.py NBODY ASSETS_PATH

1. Bad path files are refused test_cli-style: exit 2, "nbody: --camera-path
   FILE line N: ..." naming the line, a "hint:" line, and no output written.
2. A fly-through ends on the view of a static run placed at the last
   keyframe's camera (a path of that one keyframe): the two final PNGs are
   identical, and the status JSON's camera is the keyframe's; the first
   frame of the fly-through differs (so the comparison can tell views apart).
3. Headless without --frames the run lasts the path at --record-fps; with
   --frames it lasts those, the camera staying at the last keyframe.
4. F2 / F4 from a script write a path that loads back, and saving the
   loaded path gives the same file (the app's round trip).
5. The example path in assets/ flies a merger.
"""
import glob
import json
import math
import os
import subprocess
import sys
import tempfile

NBODY, EXAMPLE = sys.argv[1], sys.argv[2]
failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures += 1


def run(args, cwd):
    env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0")
    return subprocess.run([NBODY] + args, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)


def last_status(path):
    with open(path) as f:
        return json.loads(f.read().splitlines()[-1])


SMALL = ["--headless", "--backend", "cpu", "--n", "300", "--width", "96", "--height", "64"]

with tempfile.TemporaryDirectory() as tmp:
    # 1. refusals, each with the line it names
    bad = [
        ("", 1, "empty"),
        ("nbody-campath 1\n# nothing\n", 2, "no keyframes"),
        ("nbody-campath 7\n0 world 0 0 0 1 0 0 45\n", 1, "version '7'"),
        ("# c\n0 world 0 0 0 1 0 0 45\n", 2, "version line"),
        ("nbody-campath 1\n0 world 0 0 0 1 0 0 45\n1 world 0 0 0 1 0 0\n", 3, "8 fields"),
        ("nbody-campath 1\n\n0 moon 0 0 0 1 0 0 45\n", 3, "anchor 'moon'"),
        ("nbody-campath 1\n0 world 0 0 0 -5 0 0 45\n", 2, "distance '-5'"),
        ("nbody-campath 1\n0 world 0 0 0 1 0 89 45\n", 2, "pitch '89'"),
        ("nbody-campath 1\n0 world 0 0 0 1 0 0 0.5\n", 2, "fov '0.5'"),
        ("nbody-campath 1\n0 world 0 0 1x 1 0 0 45\n", 2, "z '1x'"),
        ("nbody-campath 1\n0 world 0 0 0 1 0 0 45\n2 world 0 0 0 1 0 0 45\n2 world 0 0 0 1 0 0 45\n",
         4, "time 2 is not after"),
    ]
    outs = ["--frames", "1", "--screenshot", "out.png", "--status-json", "s.json"]
    for i, (text, line, words) in enumerate(bad):
        name = os.path.join(tmp, "bad%d.campath" % i)
        with open(name, "w") as f:
            f.write(text)
        r = run(SMALL + outs + ["--camera-path", name], tmp)
        lines = r.stderr.splitlines()
        head = "nbody: --camera-path %s line %d: " % (name, line)
        check(r.returncode == 2 and lines and lines[0].startswith(head) and words in lines[0]
              and len(lines) > 1 and lines[1].startswith("hint: ")
              and not os.path.exists(os.path.join(tmp, "out.png"))
              and not os.path.exists(os.path.join(tmp, "s.json")),
              "refused, line %d (%s): exit %d: %s" % (line, words, r.returncode,
                                                     lines[0] if lines else ""))
    for what, arg in (("missing", os.path.join(tmp, "none.campath")), ("a folder", tmp)):
        r = run(SMALL + outs + ["--camera-path", arg], tmp)
        check(r.returncode == 2 and r.stderr.startswith("nbody: ") and "\nhint: " in r.stderr,
              "--camera-path %s: exit %d" % (what, r.returncode))
    r = run(["--benchmark", "--backend", "cpu", "--n", "8", "--steps", "1",
             "--camera-path", EXAMPLE], tmp)
    check(r.returncode == 2 and "--camera-path does not apply to --benchmark" in r.stderr,
          "--camera-path with --benchmark refused")

    # 2. the fly-through's last frame is the static view of its last keyframe
    last = "7 world 0.2 -0.1 0.05 2.8 250 -25 60"
    fly = os.path.join(tmp, "fly.campath")
    with open(fly, "w") as f:
        f.write("nbody-campath 1\n0 world 0 0 0 5 30 40 45\n3 com 0.5 0 0 3 120 10 35\n"
                "5.5 world -0.3 0.4 0 4 200 -10 50\n" + last + "\n")
    still = os.path.join(tmp, "still.campath")
    with open(still, "w") as f:
        f.write("nbody-campath 1\n" + last + "\n")
    pause = os.path.join(tmp, "pause.txt")
    with open(pause, "w") as f:
        f.write("0 Space\n")  # the bodies stay as created: the picture is the camera's alone
    frames = 7 * 4 + 5  # the path at 4 frames/s, and 5 frames at its end
    common = SMALL + ["--no-hud", "--script", pause, "--record-fps", "4", "--frames", str(frames)]
    r1 = run(common + ["--camera-path", fly, "--screenshot", "fly.png", "--status-json",
                       "fly.json"], tmp)
    r2 = run(common + ["--camera-path", still, "--screenshot", "still.png", "--status-json",
                       "still.json"], tmp)
    r3 = run(SMALL + ["--no-hud", "--script", pause, "--frames", "1", "--camera-path", fly,
                      "--screenshot", "first.png"], tmp)
    check(r1.returncode == 0 and r2.returncode == 0 and r3.returncode == 0,
          "fly-through, static and first-frame runs: exit %d %d %d %s" %
          (r1.returncode, r2.returncode, r3.returncode, r1.stderr + r2.stderr + r3.stderr))
    if r1.returncode == 0 and r2.returncode == 0 and r3.returncode == 0:
        def read(name):
            with open(os.path.join(tmp, name), "rb") as f:
                return f.read()
        check(read("fly.png") == read("still.png"),
              "the fly-through's last frame is the static view of its last keyframe")
        check(read("first.png") != read("still.png"),
              "its first frame is another view (the comparison tells views apart)")
        cam = last_status(os.path.join(tmp, "fly.json"))["camera"]
        want = {"target": [0.2, -0.1, 0.05], "distance": 2.8, "yaw": math.radians(250),
                "pitch": math.radians(-25), "fov_y": math.radians(60)}
        # The camera is float: 1e-6 relative is a few of its ulps.
        close = all(abs(a - b) <= 1e-6 * max(1, abs(b)) for a, b in zip(cam["target"],
                                                                         want["target"]))
        for k in ("distance", "yaw", "pitch", "fov_y"):
            close = close and abs(cam[k] - want[k]) <= 1e-6 * max(1, abs(want[k]))
        check(close, "the status JSON's camera is the last keyframe's: %s" % cam)
        check(last_status(os.path.join(tmp, "still.json"))["camera"] == cam,
              "and the static run's")

    # 3. how long a headless path runs
    r = run(SMALL + ["--camera-path", fly, "--record-fps", "4", "--status-json", "len.json"], tmp)
    st = last_status(os.path.join(tmp, "len.json")) if r.returncode == 0 else {}
    check(st.get("frame") == 7 * 4 + 1 and st.get("camera_path", {}).get("playing") is False,
          "without --frames: the path's 7 s at 4 frames/s and its first frame, 29 frames: %s"
          % st.get("frame"))
    r = run(SMALL + ["--camera-path", fly, "--frames", "9", "--status-json", "nine.json"], tmp)
    st = last_status(os.path.join(tmp, "nine.json")) if r.returncode == 0 else {}
    check(st.get("frame") == 9 and st.get("camera_path", {}).get("playing") is True
          and abs(st["camera_path"]["t"] - 8 / 30) < 1e-9,
          "--frames 9: 9 frames, at 8/30 s (the default 30 frames/s), still playing")

    # 4. F2 and F4 from a script, and the file loaded and saved again
    d1, d2 = os.path.join(tmp, "a"), os.path.join(tmp, "b")
    os.mkdir(d1)
    os.mkdir(d2)
    keys = os.path.join(tmp, "keys.txt")
    with open(keys, "w") as f:
        f.write("0 F2\n1 Left\n1 PageUp\n1 F2\n2 F2\n2 Shift+F2\n3 Up\n3 F2\n4 F4\n")
    r = run(SMALL + ["--frames", "6", "--script", keys], d1)
    saved = glob.glob(os.path.join(d1, "nbody-*.campath"))
    check(r.returncode == 0 and len(saved) == 1, "F4 wrote one nbody-<time>.campath: %s" % saved)
    if saved:
        with open(saved[0]) as f:
            text = f.read()
        rows = [l for l in text.splitlines() if l and not l.startswith("#")]
        check(rows[0] == "nbody-campath 1" and len(rows) == 4,
              "version line and 3 keyframes:\n" + text)
        again = os.path.join(tmp, "again.txt")
        with open(again, "w") as f:
            f.write("0 F4\n")
        r = run(SMALL + ["--frames", "1", "--script", again, "--camera-path", saved[0]], d2)
        back = glob.glob(os.path.join(d2, "nbody-*.campath"))
        same = False
        if back:
            with open(back[0]) as f:
                same = f.read() == text
        check(r.returncode == 0 and same, "loaded and saved again: the same file")

    # 5. the example path flies the merger
    r = run(SMALL + ["--preset", "antennae-like", "--camera-path", EXAMPLE, "--record-fps", "1",
                     "--status-json", "ex.json"], tmp)
    st = last_status(os.path.join(tmp, "ex.json")) if r.returncode == 0 else {}
    check(r.returncode == 0 and st.get("frame") == 21 and st["camera"]["distance"] == 100,
          "the example path flies antennae-like: 21 frames, ending 100 away: %s" %
          (st.get("camera") or r.stderr))

print("test_campath: %d failure(s)" % failures)
sys.exit(1 if failures else 0)
