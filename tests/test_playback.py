#!/usr/bin/env python3
"""test_playback.py - a snapshot series played smoothly through the app
(app/app_playback.c), headless on the CPU backend.

Usage: test_playback.py NBODY

  - a series the app writes itself (--snapshot-every, tipsy + sidecar)
    played at --play-speed 3: headless, the play position moves 3 / 30 of a
    file a frame, and the status's time is the files' times interpolated
    at that position (Hermite, the default), with nothing stepped;
  - a truncated file in the series stops the playback there with its
    message on the message line; the run ends normally (exit 0);
  - HDF5 files written by h5py with ParticleIDs, shuffled in the second
    file, one body missing from it and one new: the bodies at the midpoint
    (--dump CSV) are matched by ID (straight-line motion, which Hermite
    reproduces exactly), and h5py reads the ParticleIDs of the HDF5 we
    write. Skipped (the rest still runs) without h5py or HDF5 in nbody.
"""
import csv
import json
import os
import struct
import subprocess
import sys
import tempfile

from checks import check, done

COMMON = ["--headless", "--backend", "cpu", "--width", "160", "--height", "100"]


def run(nbody, args, cwd):
    return subprocess.run([nbody] + COMMON + args, cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def status_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def tipsy_time(path):
    with open(path, "rb") as f:
        return struct.unpack(">d", f.read(8))[0]


def own_series(nbody, tmp):
    out = os.path.join(tmp, "own")
    os.mkdir(out)
    r = run(nbody, ["--n", "300", "--frames", "31", "--snapshot-every", "10", "--dump",
                    os.path.join(out, "run_%03d.tipsy")], tmp)
    files = sorted(f for f in os.listdir(out) if f.endswith(".tipsy"))
    check(r.returncode == 0 and len(files) == 4, f"the app writes a series of 4: {files}")
    times = [tipsy_time(os.path.join(out, f)) for f in files]
    st = os.path.join(tmp, "own.jsonl")
    r = run(nbody, ["--load", os.path.join(out, "run_*.tipsy"), "--play-speed", "3",
                    "--frames", "31", "--status-json", st, "--status-every", "1"], tmp)
    check(r.returncode == 0, f"--load the series: exit {r.returncode} {r.stderr.strip()}")
    lines = status_lines(st)
    bad = []
    for s in lines:
        pos = min(s["frame"] * 0.1, 3.0)  # 3 snapshots/s at 30 frames/s
        i = min(int(pos + 1e-9), 2)
        want = times[i] + (pos - i) * (times[i + 1] - times[i])
        pb = s["playback"] or {}
        # 1e-9: the position is a sum of 0.1s (rounded to a file near one)
        if abs(pb.get("position", -1) - pos) > 1e-9 or abs(s["t"] - want) > 1e-9 * (1 + want):
            bad.append((s["frame"], pb.get("position"), s["t"], want))
    check(len(lines) >= 31 and not bad,
          f"the play time is the files' times interpolated at the position: {bad[:4]}")
    mid = [s for s in lines if s["frame"] == 5]
    check(mid and mid[0]["playback"]["interpolation"] == "Hermite" and
          mid[0]["playback"]["mode"] == "Hermite",
          f"Hermite between files by default: {mid[0]['playback'] if mid else None}")
    check(all(s["steps"] == 0 for s in lines), "a playback steps nothing")
    check(not lines[-1]["playback"]["playing"] and lines[-1]["playback"]["index"] == 3,
          "it stops at the last file")
    # Backslash: linear, then none (the file at or before the position).
    keys = os.path.join(tmp, "keys.txt")
    with open(keys, "w") as f:
        f.write("2 \\\n4 Backslash\n")
    st2 = os.path.join(tmp, "keys.jsonl")
    r = run(nbody, ["--load", os.path.join(out, "run_*.tipsy"), "--play-speed", "3",
                    "--frames", "8", "--script", keys, "--status-json", st2,
                    "--status-every", "1"], tmp)
    modes = [(s["frame"], s["playback"]["interpolation"], s["t"]) for s in status_lines(st2)]
    check(r.returncode == 0 and modes[1][1] == "Hermite" and modes[3][1] == "linear" and modes[5][1] == "none" and
          modes[5][2] == times[0],
          f"Backslash cycles Hermite, linear, none (none: the file's own time): {modes}")

    # A truncated file: the playback stops when it reaches it (it is read
    # ahead earlier: that says nothing yet), with the message.
    with open(os.path.join(out, "run_002.tipsy"), "r+b") as f:
        f.truncate(32 + 36 * 10)
    st3 = os.path.join(tmp, "trunc.jsonl")
    r = run(nbody, ["--load", os.path.join(out, "run_*.tipsy"), "--play-speed", "3",
                    "--frames", "31", "--status-json", st3, "--status-every", "1"], tmp)
    last = status_lines(st3)[-1]
    check(r.returncode == 0 and "playback stopped: run_002.tipsy" in r.stdout and
          not last["playback"]["playing"] and 1 <= last["playback"]["position"] < 2,
          f"a file that fails to read stops the playback with its message: exit "
          f"{r.returncode}, position {last['playback']['position']}")


GEN = r'''
import sys, h5py, numpy as np
out = sys.argv[1]
n = 20  # 10 pairs moving apart in straight lines: centre of mass and momentum 0
rng = np.random.default_rng(3)
half = rng.normal(size=(n // 2, 3))
vhalf = rng.normal(size=(n // 2, 3))
x0 = np.concatenate([half, -half, np.zeros((1, 3))])
v = np.concatenate([vhalf, -vhalf, np.zeros((1, 3))])
ids = np.arange(1000, 1000 + n + 1, dtype=np.uint64)  # the last: at rest at the centre
np.save(out + "/x0.npy", x0); np.save(out + "/v.npy", v); np.save(out + "/ids.npy", ids)
def write(name, t, x, vel, pid):
    with h5py.File(out + "/" + name, "w") as f:
        hd = f.create_group("Header")
        hd.attrs["NumPart_ThisFile"] = np.array([0, len(x), 0, 0, 0, 0], dtype=np.int32)
        hd.attrs["MassTable"] = np.zeros(6)
        hd.attrs["Time"] = t
        g = f.create_group("PartType1")
        g["Coordinates"], g["Velocities"] = x, vel
        g["Masses"] = np.full(len(x), 0.01)
        g["ParticleIDs"] = pid
write("s_000.hdf5", 0.0, x0, v, ids)
# The second: shuffled, the body at rest gone and a new one (ID 5) at rest there.
perm = rng.permutation(n)
x1 = np.concatenate([(x0 + v)[perm], np.zeros((1, 3))])
v1 = np.concatenate([v[perm], np.zeros((1, 3))])
write("s_001.hdf5", 1.0, x1, v1, np.concatenate([ids[perm], np.array([5], dtype=np.uint64)]))
'''

READ = r'''
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    print(" ".join(str(int(i)) for i in f["PartType1/ParticleIDs"][:]))
'''


def python_with_h5py():
    for py in (sys.executable, "/usr/bin/python3"):
        if os.path.exists(py) and subprocess.run([py, "-c", "import h5py, numpy"],
                                                 capture_output=True).returncode == 0:
            return py
    return None


def foreign_ids(nbody, tmp):
    py = python_with_h5py()
    help_text = subprocess.run([nbody, "--help"], capture_output=True, text=True).stdout
    if not py:
        print("skipped: no h5py (Debian: python3-h5py)")
        return
    out = os.path.join(tmp, "h5")
    os.mkdir(out)
    g = subprocess.run([py, "-c", GEN, out], capture_output=True, text=True)
    if g.returncode != 0:
        check(False, f"h5py writes the series: {g.stderr.strip()}")
        return
    dump = os.path.join(tmp, "mid.csv")
    st = os.path.join(tmp, "h5.jsonl")
    # 6 frames at 3 snapshots/s and 30 frames/s: the last at position 0.5.
    r = run(nbody, ["--load", os.path.join(out, "s_*.hdf5"), "--play-speed", "3", "--frames", "6",
                    "--dump", dump, "--status-json", st], tmp)
    if "without HDF5" in r.stderr or "HDF5 support is missing" in r.stderr:
        print("skipped: this nbody has no HDF5")
        return
    check(r.returncode == 0, f"--load the h5py series: exit {r.returncode} {r.stderr.strip()}")
    s = status_lines(st)[-1]
    pb = s["playback"] or {}
    check(pb.get("matched_by_id") is True and abs(pb.get("position", 0) - 0.5) < 1e-9 and
          abs(s["t"] - 0.5) < 1e-9,
          f"matched by the ParticleIDs h5py wrote, at t = 0.5: {pb}")
    with open(dump) as f:
        rows = [r for r in csv.reader(f) if r and not r[0].startswith(("#", "x"))]
    import_ok = subprocess.run([py, "-c", "import numpy"], capture_output=True).returncode == 0
    if not import_ok:
        return
    # The CSV's first 21 rows are the first file's bodies in its order; then
    # the new one. Straight lines: x0 + v * 0.5 exactly (to the CSV's digits).
    check(len(rows) == 22, f"21 bodies of the first file and 1 new: {len(rows)} rows")
    cmp = subprocess.run([py, "-c", r'''
import sys, csv, numpy as np
out, dump = sys.argv[1], sys.argv[2]
x0, v = np.load(out + "/x0.npy"), np.load(out + "/v.npy")
rows = [r for r in csv.reader(open(dump)) if r and not r[0].startswith(("#", "x"))]
got = np.array([[float(c) for c in r[:3]] for r in rows[:21]])
print(float(np.abs(got - (x0 + 0.5 * v)).max()))
''', out, dump], capture_output=True, text=True)
    worst = float(cmp.stdout.strip() or "inf")
    # 1e-6: the CSV's digits and the single-precision copy nothing here needs
    check(worst < 1e-6, f"every body matched by ID is at x0 + v t at the midpoint: worst {worst:.3g}")
    # h5py reads the ParticleIDs of the HDF5 we write.
    saved = os.path.join(tmp, "ours.hdf5")
    r = run(nbody, ["--load", os.path.join(out, "s_000.hdf5"), "--frames", "1", "--dump", saved],
            tmp)
    ids = subprocess.run([py, "-c", READ, saved], capture_output=True, text=True)
    got = ids.stdout.split()
    check(r.returncode == 0 and got == [str(i) for i in range(21)],
          f"h5py reads our ParticleIDs (the bodies' indices): {got[:5]}... {ids.stderr.strip()}")
    del help_text


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    nbody = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        own_series(nbody, tmp)
        foreign_ids(nbody, tmp)
    done("test_playback")


if __name__ == "__main__":
    sys.exit(main())
