#!/usr/bin/env python3
"""test_hud_cli.py - the HUD's items of issue 25 through the command line.

    test_hud_cli.py NBODY

Headless, CPU backend, small N. What is checked:
  - a series plays (--load DIR): the status says "mode": "playback", with
    null ms_per_step, interactions_per_s and dE_over_E0 and t the file's
    own; +, R, 3 and F9 change nothing (same N, same file, nothing steps)
    and say they are refused and how to leave (Enter); F5 saves the snapshot
    on screen (its bodies and time); Enter leaves the playback: "mode":
    "simulation", the steps go on and t continues from the snapshot's time;
  - --load of a foreign tipsy file (2,000 bodies, time 1.25): the first
    stdout line names 2,000 bodies (not the 1,024-body placeholder), t goes
    on from 1.25 in the status and in a --dump at exit;
  - one body: "1 body", never "1 bodies", in the load and dump lines;
  - --snapshot-every K --dump run_%03d.tipsy: one file at the start and one
    every K frames, times growing by K steps of dt; --load 'run_*.tipsy'
    plays them back with those times; bad patterns (no number, an unpadded
    or second number, %s, a CSV, too few digits for the run, no --dump) exit
    2 with one line and a hint, writing nothing;
  - --profile on the CPU says who drew the sprites (GL) and names the GL
    renderer, and claims no CUDA;
  - F5 on a full disk (a tmpfs, root only; skipped elsewhere) says why on
    the message line: "No space left on device".
"""
import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

from checks import check, done

nbody = os.path.abspath(sys.argv[1])
CPU = ["--headless", "--backend", "cpu", "--width", "160", "--height", "100"]



def run(args, cwd, timeout=120):
    return subprocess.run([nbody, *CPU, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def status_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def write_tipsy(path, time, n):
    """A foreign tipsy file (no sidecar): n dark bodies on a ring."""
    with open(path, "wb") as f:
        f.write(struct.pack(">diiiiii", time, n, 3, 0, n, 0, 0))
        for i in range(n):
            x, y = (i % 37) / 37.0 - 0.5, (i % 41) / 41.0 - 0.5
            f.write(struct.pack(">9f", (1 + i % 3) / (2.0 * n), x, y, 0.1 * x * y, -y, x, 0,
                                0.01, 0))


def script(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def read_csv(path):
    with open(path) as f:
        return [list(map(float, line.split(","))) for line in f.readlines()[1:]]


def section(title, fn, *args):
    try:
        fn(*args)
    except (OSError, KeyError, IndexError, TypeError, ValueError, StopIteration,
            subprocess.TimeoutExpired) as e:
        check(False, f"{title}: {e!r}")


def playback(tmp):
    series = os.path.join(tmp, "series")
    os.mkdir(series)
    for i, n in enumerate([40, 60, 50]):
        write_tipsy(os.path.join(series, f"run_{i:03d}.tipsy"), 0.5 * i, n)
    # Paused on the second file, then keys that change the simulation, F5,
    # and Enter.
    keys = script(tmp, "play.txt", "0 Space\n1 .\n3 +\n3 R\n4 3\n4 F9\n5 F5\n6 Enter\n")
    st = os.path.join(tmp, "play.jsonl")
    r = run(["--load", series, "--frames", "9", "--script", keys, "--status-json", st,
             "--status-every", "1"], tmp)
    check(r.returncode == 0, f"playback run: exit {r.returncode} {r.stderr.strip()}")
    lines = status_lines(st)
    by = {s["frame"]: s for s in lines}
    during = [by[f] for f in range(0, 6)]
    check(all(s["mode"] == "playback" and s["ms_per_step"] is None and
              s["interactions_per_s"] is None and s["dE_over_E0"] is None for s in during),
          "during playback the status says so, without step figures: " +
          str([(s["mode"], s["ms_per_step"]) for s in during]))
    check(all(s["n"] == 60 and s["playback"]["index"] == 1 and s["t"] == 0.5 and s["steps"] == 0
              for s in during[2:]),
          "+, R, 3 and F9 changed nothing: " +
          str([(s["n"], s["playback"]["index"], s["t"]) for s in during[2:]]))
    for label in ["+", "R", "3", "F9"]:
        check(f"nbody: {label} changes the simulation: refused while a snapshot series plays "
              "(Enter leaves" in r.stdout, f"{label} says it is refused and how to leave")
    saves = glob.glob(os.path.join(tmp, "nbody-*-f000005.tipsy"))
    check(len(saves) == 1 and "saved snapshot 2/3 (run_001.tipsy)" in r.stdout,
          f"F5 saves the snapshot on screen: {saves}")
    if saves:
        st5 = os.path.join(tmp, "f5.jsonl")
        r5 = run(["--load", saves[0], "--frames", "1", "--script", script(tmp, "p.txt", "0 Space\n"),
                  "--status-json", st5], tmp)
        s5 = status_lines(st5)[-1] if r5.returncode == 0 else {}
        check(s5.get("n") == 60 and s5.get("t") == 0.5, f"... its 60 bodies at t = 0.5: {s5}")
    after = [by[f] for f in range(6, 10)]
    check(all(s["mode"] == "simulation" and s["playback"] is None for s in after),
          "Enter leaves the playback")
    check("left the playback: simulating from run_001.tipsy" in r.stdout, "Enter says so")
    steps = [s["steps"] for s in after]
    dt = after[-1]["dt"]
    check(steps == sorted(steps) and steps[-1] > 0 and
          abs(after[-1]["t"] - (0.5 + steps[-1] * dt)) < 1e-6,
          f"the simulation runs on from t = 0.5: t {[s['t'] for s in after]}, steps {steps}")


def foreign_load(tmp):
    path = os.path.join(tmp, "big.tipsy")
    write_tipsy(path, 1.25, 2000)
    st = os.path.join(tmp, "big.jsonl")
    r = run(["--load", path, "--frames", "2", "--status-json", st, "--dump", "big_end.tipsy"], tmp)
    check(r.returncode == 0, f"--load big.tipsy: exit {r.returncode} {r.stderr.strip()}")
    first = r.stdout.splitlines()[0] if r.stdout else ""
    check("2000 bodies" in first, f"the first line names the file's N: {first!r}")
    s = status_lines(st)[-1]
    want = 1.25 + s["steps"] * s["dt"]
    check(s["steps"] > 0 and abs(s["t"] - want) < 1e-6 and abs(s["snapshot"]["time"] - want) < 1e-6,
          f"t goes on from the file's 1.25: t {s['t']}, steps {s['steps']}, dt {s['dt']}")
    with open(os.path.join(tmp, "big_end.tipsy"), "rb") as f:
        saved = struct.unpack(">d", f.read(8))[0]
    check(abs(saved - want) < 1e-6, f"the dump at exit holds that time: {saved}")


def one_body(tmp):
    path = os.path.join(tmp, "one.tipsy")
    write_tipsy(path, 0.0, 1)
    r = run(["--load", path, "--frames", "1", "--dump", "one_end.tipsy"], tmp)
    check(r.returncode == 0 and "(tipsy, 1 body, t = 0)" in r.stdout and
          "wrote one_end.tipsy (tipsy, 1 body)" in r.stdout and "1 bodies" not in r.stdout,
          f"one body, singular: {r.stdout!r}")


def snapshot_every(tmp):
    out = os.path.join(tmp, "every")
    os.mkdir(out)
    r = run(["--n", "64", "--frames", "10", "--steps-per-frame", "1", "--snapshot-every", "3", "--dump",
             os.path.join(out, "run_%03d.tipsy"), "--dt", "0.01"], tmp)
    files = sorted(f for f in os.listdir(out) if f.endswith(".tipsy"))
    check(r.returncode == 0 and files == [f"run_{i:03d}.tipsy" for i in range(4)],
          f"10 frames every 3: files 0 to 3 (frames 0, 3, 6, 9): {files} {r.stderr.strip()}")
    check("plays them" in r.stdout and "run_*.tipsy" in r.stdout, "the exit line says how to play")
    times = []
    for name in files:
        with open(os.path.join(out, name), "rb") as f:
            times.append(struct.unpack(">d", f.read(8))[0])
    # 1e-6: dt is a float32 (0.01 is 0.0099999998), summed step by step
    check(len(times) == 4 and all(abs(t - 0.03 * i) < 1e-6 for i, t in enumerate(times)),
          f"their times: 3 steps of 0.01 apart from 0: {times}")
    st = os.path.join(tmp, "every.jsonl")
    r = run(["--load", os.path.join(out, "run_*.tipsy"), "--frames", "4", "--play-speed", "30",
             "--status-json", st,
             "--status-every", "1"], tmp)
    lines = status_lines(st)
    got = [(s["playback"]["index"], s["t"]) for s in lines[:4]]
    check(r.returncode == 0 and [g[0] for g in got] == [0, 1, 2, 3] and
          all(abs(t - times[i]) < 1e-8 for i, (_, t) in enumerate(got)),
          f"played back as a series, with their times: {got}")
    # Bad patterns: one line, a hint, exit 2, nothing written.
    bad = [["--dump", "plain.tipsy"], ["--dump", "run_%d.tipsy"], ["--dump", "run_%03d_%03d.tipsy"],
           ["--dump", "run_%s.tipsy"], ["--dump", "run_%03d.csv"], ["--dump", "run_%-3d.tipsy"],
           ["--dump", "run_%01d.tipsy", "--frames", "100"], []]
    for args in bad:
        d = tempfile.mkdtemp(dir=tmp)
        r = run(["--n", "8", "--frames", "5", "--snapshot-every", "5", *args], d)
        err = r.stderr.strip().splitlines()
        check(r.returncode == 2 and len(err) == 2 and err[0].startswith("nbody: ") and
              err[1].startswith("hint: ") and os.listdir(d) == [],
              f"--snapshot-every 5 {' '.join(args)}: exit {r.returncode}, {err}, left "
              f"{os.listdir(d)}")


def profile(tmp):
    r = run(["--n", "64", "--frames", "4", "--profile"], tmp)
    renderer = r.stdout.split("headless on ", 1)[1].split(" (OpenGL")[0] if "headless on " in \
        r.stdout else "?"
    check(r.returncode == 0 and "sprites drawn by GL in every frame" in r.stdout,
          f"--profile says GL drew the sprites:\n{r.stdout}")
    check("GL's drawing" in r.stdout and f"on {renderer})" in r.stdout and
          "CUDA events" not in r.stdout and "on the GPU" not in r.stdout,
          f"... and names the GL renderer ({renderer}), no GPU claimed")


def f5_full_disk(tmp):
    if os.geteuid() != 0 or not shutil.which("unshare"):
        print("skip F5 on a full disk: needs root and unshare -m")
        return
    d = os.path.join(tmp, "full")
    os.mkdir(d)
    keys = script(tmp, "f5.txt", "1 F5\n")
    sh = ('mount -t tmpfs -o size=64k tmpfs "$1" || exit 99; '
          'dd if=/dev/zero of="$1/fill" bs=4096 >/dev/null 2>&1; shift; cd "$0" && exec "$@"')
    r = subprocess.run(["unshare", "-m", "sh", "-c", sh, d, d, nbody, *CPU, "--n", "300",
                        "--frames", "3", "--script", keys], capture_output=True, text=True,
                       timeout=120)
    if r.returncode == 99:
        print("skip F5 on a full disk: mount failed")
        return
    line = next((l for l in r.stdout.splitlines() if l.startswith("nbody: F5:")), "")
    check("not written: No space left on device" in line, f"F5's failure says why: {line!r}")


with tempfile.TemporaryDirectory() as tmp:
    section("playback", playback, tmp)
    section("a foreign file's time", foreign_load, tmp)
    section("one body", one_body, tmp)
    section("--snapshot-every", snapshot_every, tmp)
    section("--profile", profile, tmp)
    section("F5 on a full disk", f5_full_disk, tmp)

done("test_hud_cli")
