#!/usr/bin/env python3
"""test_snapshot.py - snapshots through the app: --load, --dump FILE.tipsy /
.hdf5, F5 / F9, unit conversion, playback of a series, and bad input.

    test_snapshot.py NBODY

Everything runs headless on the CPU backend at small N. What is checked:
  - round trip: --dump a.tipsy, then --load a.tipsy paused for one frame and
    --dump b.tipsy: a.tipsy and b.tipsy (and their .nbody sidecars) are the
    same bytes, and the status shows the save's scene, dt, softening,
    damping and theta (all set away from their defaults);
  - flags with --load of our save: --n, --ic, --seed, an orbit's flag and a
    --preset other than the save's scene exit 2 with one line and a hint;
    --dt over the save's is said (stdout and the status's note) instead of
    "continues exactly", which an equal --dt keeps; Enter from a series of
    our saves simulates with --dt, not the save's;
  - continuation: a run of 5 frames against 3 frames, --dump a.tipsy, then
    --load a.tipsy for 2 frames: the same bodies to the last printed digit
    and the same time - a save continues exactly;
  - F5 and F9 in a --script: F9 before any save says so; F5 writes one
    nbody-<date>-<time>-f000002.tipsy (+ .nbody) in the current folder, the
    status shows its absolute path; F9 after more steps, then paused, and a
    --dump at exit equals the F5 file byte for byte;
  - a tipsy file written here with struct (an independent writer: 5 dark and
    7 star particles off centre): loaded, the bodies are the file's floats
    less the centre of mass and the mean velocity, and the units are said to
    be taken as G = 1, with the Plummer scene's dt and softening (--preset
    and --dt on top);
  - the GADGET-2 (format 1 and 2, both byte orders) and little-endian tipsy
    files of tests/snapgen.py (snap/'s independent writer, with its
    manifest of the values written) load as stored, recentred;
  - HDF5 (when this nbody has it; else --dump x.hdf5 must be refused with
    exit 2 and a hint): --dump a.hdf5 then --load it gives back the bodies;
    HDF5 files with GADGET units (Mpc, 10^10 Msun, km/s), a plain run and a
    cosmological one (lengths and masses per h, h = 0.7; time the scale
    factor), written with h5py (the running Python's, else Debian's
    python3-h5py; skipped without either), are converted to the galaxy
    units and run with the galaxy scenes' dt and softening;
  - playback of a folder of 4 snapshots of different N (one truncated) plus
    a text file, 100 bytes of junk named .tipsy and a FIFO that are not part
    of the series: one line names the two files left out; paused at frame
    0, then . . , ] [ move the status's playback index 0 1 1 0 3 0 (the
    truncated one stops the playback before it, with a message) and N
    follows the files; nothing steps; the same files by a glob at
    --play-speed 30 play one per frame to the end and stop, and the summary
    says no steps were taken; a folder of our save with its sidecar and a
    sidecar alone: only the lone sidecar is said;
  - bad input: a truncated tipsy, text, an empty file, NaN positions, an
    empty folder, a FIFO (must not hang), a missing file and a pattern that
    matches nothing each give exit 2, one "nbody: --load ..." line and one
    "hint:" line, and no --dump file; so does a --dump FILE.tipsy whose
    sidecar's name is a folder, before any frame.
"""
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

from checks import check, done

nbody = os.path.abspath(sys.argv[1])
COMMON = ["--headless", "--backend", "cpu", "--width", "160", "--height", "100"]



def run(args, cwd, timeout=60):
    res = subprocess.run([nbody, *COMMON, *args], cwd=cwd, capture_output=True, text=True,
                         timeout=timeout)
    return res


def guard(title, section):
    """Runs one part; a missing file or field there is that part's failure."""
    try:
        section()
    except (OSError, KeyError, IndexError, StopIteration, TypeError, ValueError) as e:
        check(False, f"{title}: {e!r}")


def status_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def at(lines, frame):
    return next(s for s in lines if s["frame"] == frame)


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def close(x, y):
    """The status prints "t" with 9 digits, the snapshot's time with 17."""
    return abs(x - y) <= 1e-8 * max(abs(x), abs(y))


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [list(map(float, line.split(","))) for line in f.readlines()[1:]]


def script(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def write_tipsy(path, time, dark, star):
    """Standard tipsy: big-endian, 32-byte header (time, n, ndim, nsph, ndark,
    nstar, pad), then dark (m, x, y, z, vx, vy, vz, eps, phi) and star
    (m, x, y, z, vx, vy, vz, metals, tform, eps, phi) particles as floats."""
    with open(path, "wb") as f:
        f.write(struct.pack(">diiiiii", time, len(dark) + len(star), 3, 0, len(dark), len(star), 0))
        for m, p, v in dark:
            f.write(struct.pack(">9f", m, *p, *v, 0.01, 0.0))
        for m, p, v in star:
            f.write(struct.pack(">11f", m, *p, *v, 0.0, 0.0, 0.01, 0.0))


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def bodies(n, offset, seed):
    """n bodies with unequal masses around offset, deterministic."""
    out = []
    for i in range(n):
        a = seed + 0.37 * i
        p = [offset[k] + math.sin(a * (k + 1.3)) for k in range(3)]
        v = [0.5 + 0.2 * math.cos(a * (k + 2.1)) for k in range(3)]
        out.append((0.01 * (1 + i % 3), p, v))
    return out


# Writes an HDF5 snapshot in GADGET's layout with h5py, and its values as text.
GEN_H5 = """import sys, h5py, numpy as np
n = 40
i = np.arange(n)
pos = np.stack([10 + np.sin(i), -4 + np.cos(1.3 * i), 2 + np.sin(0.7 * i)], 1)
vel = np.stack([100 + 30 * np.cos(i), -50 + 20 * np.sin(i), 10 * np.cos(2.0 * i)], 1)
mass = 0.001 * (1 + i % 4)
cosmo = sys.argv[2] == "cosmo"
with h5py.File(sys.argv[1], "w") as f:
    h = f.create_group("Header")
    h.attrs["NumPart_ThisFile"] = np.array([0, n, 0, 0, 0, 0], dtype=np.uint32)
    h.attrs["NumPart_Total"] = np.array([0, n, 0, 0, 0, 0], dtype=np.uint32)
    h.attrs["NumPart_Total_HighWord"] = np.zeros(6, dtype=np.uint32)
    h.attrs["MassTable"] = np.zeros(6)
    h.attrs["Time"] = 0.5
    h.attrs["Redshift"] = 1.0 if cosmo else 0.0
    h.attrs["NumFilesPerSnapshot"] = 1
    h.attrs["Omega0"] = 0.3 if cosmo else 0.0
    h.attrs["OmegaLambda"] = 0.7 if cosmo else 0.0
    h.attrs["HubbleParam"] = 0.7
    h.attrs["UnitLength_in_cm"] = 3.085678e24
    h.attrs["UnitMass_in_g"] = 1.989e43
    h.attrs["UnitVelocity_in_cm_per_s"] = 1e5
    g = f.create_group("PartType1")
    g["Coordinates"] = pos
    g["Velocities"] = vel
    g["Masses"] = mass
    g["ParticleIDs"] = np.arange(n, dtype=np.uint64)
np.savetxt(sys.argv[1] + ".txt", np.column_stack([pos, vel, mass]))
"""


with tempfile.TemporaryDirectory() as tmp:
    knobs = ["--preset", "shell", "--n", "300", "--seed", "3", "--dt", "0.01", "--softening",
             "0.07", "--damping", "0.999", "--theta", "0.5"]
    pause = script(tmp, "pause.txt", "0 Space\n")

    # --- round trip through the CLI -----------------------------------------
    def section_0():
        a_status = os.path.join(tmp, "a.jsonl")
        r = run([*knobs, "--frames", "3", "--dump", "a.tipsy", "--status-json", a_status], tmp)
        check(r.returncode == 0, f"--dump a.tipsy: exit {r.returncode} {r.stderr.strip()}")
        check(os.path.exists(os.path.join(tmp, "a.tipsy.nbody")), "--dump a.tipsy writes its sidecar")
        b_status = os.path.join(tmp, "b.jsonl")
        r = run(["--load", "a.tipsy", "--frames", "1", "--dump", "b.tipsy", "--script", pause,
                 "--status-json", b_status], tmp)
        check(r.returncode == 0, f"--load a.tipsy --dump b.tipsy: exit {r.returncode} {r.stderr}")
        same = read_bytes(os.path.join(tmp, "a.tipsy")) == read_bytes(os.path.join(tmp, "b.tipsy"))
        check(same, "a.tipsy and b.tipsy are the same bytes (bodies, masses, time)")
        same = (read_bytes(os.path.join(tmp, "a.tipsy.nbody")) ==
                read_bytes(os.path.join(tmp, "b.tipsy.nbody")))
        check(same, "their sidecars are the same bytes (exact doubles, tags, knobs)")
        sa, sb = status_lines(a_status)[-1], status_lines(b_status)[-1]
        for k in ["preset", "dt", "softening", "damping", "theta", "n"]:
            check(sa[k] == sb[k], f"loaded knob {k}: {sb[k]} (saved {sa[k]})")
        check(close(sb["snapshot"]["time"], sa["t"]), f"loaded time {sb['snapshot']['time']} = {sa['t']}")
        check(sb["steps"] == sa["steps"], "paused at frame 0: nothing stepped (the steps go on "
                                          "from the save's)")

    guard('round trip through the CLI', section_0)

    # --- flags with --load ------------------------------------------------------
    def section_flags():
        # The file gives the bodies: the flags that make them are refused, and
        # --preset with our own save unless it names the save's scene (shell).
        for flags in [["--n", "500"], ["--ic", "disk"], ["--seed", "4"], ["--preset", "disk"],
                      ["--preset", "antennae-like", "--pericenter", "5"]]:
            r = run(["--load", "a.tipsy", *flags, "--frames", "1", "--dump", "flags.csv"], tmp)
            err = r.stderr.strip().splitlines()
            check(r.returncode == 2 and len(err) == 2 and err[0].startswith(f"nbody: {flags[-2]}")
                  and err[1].startswith("hint: ") and not r.stdout and
                  not os.path.exists(os.path.join(tmp, "flags.csv")),
                  f"--load a.tipsy {' '.join(flags)}: refused, exit {r.returncode}, {err}")
        r = run(["--load", "a.tipsy", "--preset", "shell", "--frames", "1"], tmp)
        check(r.returncode == 0, f"--preset naming the save's own scene runs: {r.returncode}")
        # --dt on top of the save's knobs: said, and no exact continuation claimed.
        o_status = os.path.join(tmp, "o.jsonl")
        r = run(["--load", "a.tipsy", "--dt", "0.02", "--frames", "1", "--status-json", o_status],
                tmp)
        note = status_lines(o_status)[-1]["snapshot"]["units"] if r.returncode == 0 else ""
        check(r.returncode == 0 and "continues exactly" not in r.stdout and
              "--dt 0.02 (it had 0.01)" in r.stdout and "not continue it exactly" in note,
              f"--dt over the save's: said on stdout and in the status: {note!r}")
        r = run(["--load", "a.tipsy", "--dt", "0.01", "--frames", "1"], tmp)
        check(r.returncode == 0 and "continues exactly" in r.stdout,
              "--dt equal to the save's: it still continues exactly")
        # A series of our saves: Enter simulates with the save's knobs, --dt on top.
        os.mkdir(os.path.join(tmp, "own_series"))
        r = run(["--n", "100", "--frames", "4", "--snapshot-every", "2", "--dump",
                 "own_series/run_%04d.tipsy"], tmp)
        enter = script(tmp, "enter.txt", "1 Enter\n")
        r = run(["--load", "own_series/run_*.tipsy", "--dt", "0.02", "--frames", "3", "--script",
                 enter, "--status-json", o_status], tmp)
        last = status_lines(o_status)[-1] if r.returncode == 0 else {}
        check(last.get("mode") == "simulation" and last.get("dt") == 0.02,
              f"Enter from a series of saves keeps --dt: dt {last.get('dt')}, exit {r.returncode}")

    guard('flags with --load', section_flags)

    # --- continuation ---------------------------------------------------------
    def section_1():
        c_status = os.path.join(tmp, "c.jsonl")
        r = run([*knobs, "--frames", "5", "--dump", "c.csv", "--status-json", c_status], tmp)
        d_status = os.path.join(tmp, "d.jsonl")
        r2 = run(["--load", "a.tipsy", "--frames", "2", "--dump", "d.csv", "--status-json", d_status],
                 tmp)
        check(r.returncode == 0 and r2.returncode == 0, "5 frames, and 3 + load + 2 frames ran")
        c, d = read_csv(os.path.join(tmp, "c.csv")), read_csv(os.path.join(tmp, "d.csv"))
        check(len(c) == 300 and c == d, "3 frames, save, load, 2 frames = 5 frames, every body")
        sc, sd = status_lines(c_status)[-1], status_lines(d_status)[-1]
        check(close(sd["snapshot"]["time"], sc["t"]) and sd["snapshot"]["steps"] == sc["steps"],
              f"time {sd['snapshot']['time']} and steps {sd['snapshot']['steps']} continue "
              f"({sc['t']}, {sc['steps']})")

    guard('continuation', section_1)

    # --- F5 and F9 ------------------------------------------------------------
    def section_2():
        keys = os.path.join(tmp, "keys")
        os.mkdir(keys)
        k_status = os.path.join(tmp, "k.jsonl")
        s = script(tmp, "keys.txt", "0 F9\n2 F5\n6 F9\n6 Space\n")
        r = run([*knobs, "--frames", "10", "--script", s, "--status-json", k_status, "--status-every",
                 "1", "--dump", "end.tipsy"], keys)
        check(r.returncode == 0, f"F5 / F9 run: exit {r.returncode} {r.stderr.strip()}")
        check("none yet" in r.stdout, "F9 before any save says there is none")
        saves = sorted(f for f in os.listdir(keys) if f.startswith("nbody-") and f.endswith(".tipsy"))
        check(len(saves) == 1 and saves[0].endswith("-f000002.tipsy") and
              os.path.exists(os.path.join(keys, saves[0] + ".nbody")),
              f"F5 at frame 2 wrote nbody-<date>-<time>-f000002.tipsy and its sidecar: {saves}")
        lines = status_lines(k_status)
        if saves:
            saved = os.path.join(os.path.realpath(keys), saves[0])
            check(at(lines, 2)["snapshot"]["last_save"] == saved,
                  f"the status shows the save's absolute path {at(lines, 2)['snapshot']['last_save']}")
            check(read_bytes(os.path.join(keys, "end.tipsy")) == read_bytes(saved) and
                  read_bytes(os.path.join(keys, "end.tipsy.nbody")) == read_bytes(saved + ".nbody"),
                  "F9 then paused: the dump at exit equals the F5 file byte for byte")
        check(at(lines, 5)["t"] > at(lines, 1)["t"], "the run moved on between F5 and F9")
        check(close(at(lines, 6)["snapshot"]["time"], at(lines, 1)["t"]),
              "after F9 the time is the saved one again")

    guard('F5 and F9', section_2)

    # --- a tipsy file from an independent writer ------------------------------
    def section_3():
        dark, star = bodies(5, [5.0, -3.0, 2.0], 0.3), bodies(7, [4.0, -2.0, 1.0], 1.1)
        write_tipsy(os.path.join(tmp, "ext.tipsy"), 1.25, dark, star)
        e_status = os.path.join(tmp, "e.jsonl")
        r = run(["--load", "ext.tipsy", "--frames", "1", "--script", pause, "--dump", "e.csv",
                 "--status-json", e_status], tmp)
        check(r.returncode == 0, f"--load ext.tipsy: exit {r.returncode} {r.stderr.strip()}")
        want = [(f32(m), [f32(x) for x in p], [f32(x) for x in v]) for m, p, v in dark + star]
        mass = sum(m for m, _, _ in want)
        com = [sum(m * p[k] for m, p, _ in want) / mass for k in range(3)]
        vel = [sum(m * v[k] for m, _, v in want) / mass for k in range(3)]
        got = read_csv(os.path.join(tmp, "e.csv"))
        worst = max((abs(g[k] - (w[1][k] - com[k])) + abs(g[3 + k] - (w[2][k] - vel[k])) +
                     abs(g[6] - w[0]) for g, w in zip(got, want) for k in range(3)), default=1)
        check(len(got) == 12 and worst < 1e-7,
              f"the file's bodies, recentred (worst difference {worst:.2e})")
        note = status_lines(e_status)[-1]["snapshot"]
        check(note["format"] == "tipsy" and "G = 1" in note["units"] and note["time"] == 1.25,
              f"no units: taken as G = 1, time as stored: {note}")
        last = status_lines(e_status)[-1]
        check(last["preset"] == "plummer" and last["dt"] == 0.0078125,
              f"G = 1 units run as the Plummer scene: {last['preset']}, dt {last['dt']}")
        r = run(["--load", "ext.tipsy", "--preset", "antennae-like", "--dt", "0.03", "--frames",
                 "1", "--status-json", e_status], tmp)
        last = status_lines(e_status)[-1]
        check(r.returncode == 0 and last["preset"] == "antennae-like" and
              abs(last["dt"] - 0.03) < 1e-7 and abs(last["softening"] - 0.15) < 1e-7,
              f"--preset and --dt apply to a foreign file: {last['preset']}, dt {last['dt']}, "
              f"softening {last['softening']}")

    guard('a tipsy file from an independent writer', section_3)

    # --- files from snap/'s independent writer (tests/snapgen.py) ----------------
    def section_snapgen():
        gen_dir = os.path.join(tmp, "snapgen")
        snapgen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "snapgen.py")
        subprocess.run([sys.executable, snapgen, gen_dir], check=True, capture_output=True)
        manifest = open(os.path.join(gen_dir, "manifest.txt")).read().splitlines()
        files, i = {}, 0
        while i < len(manifest):
            head = manifest[i].split()
            i += 1
            if head[0] != "read":
                continue
            count = int(head[3])
            files[head[1]] = (head[2], [list(map(float, l.split()[:7]))
                                        for l in manifest[i:i + count]])
            i += count
        # GADGET-2 format 1 and 2, both byte orders, and tipsy: no units, so
        # as stored, recentred.
        for name in ["g1_le_mass", "g1_be_nomass", "g2_le_gas", "g2_be_mass", "tipsy_le32.bin"]:
            fmt, want = files[name]
            mass = sum(w[6] for w in want)
            com = [sum(w[6] * w[k] for w in want) / mass for k in range(6)]
            g_status = os.path.join(tmp, "sg.jsonl")
            r = run(["--load", os.path.join(gen_dir, name), "--frames", "1", "--script", pause,
                     "--dump", "sg.csv", "--status-json", g_status], tmp)
            got = read_csv(os.path.join(tmp, "sg.csv")) if r.returncode == 0 else []
            worst = max((abs(g[k] - (w[k] - com[k])) for g, w in zip(got, want) for k in range(6)),
                        default=1)
            worst = max([worst] + [abs(g[6] - w[6]) for g, w in zip(got, want)])
            note = status_lines(g_status)[-1]["snapshot"] if r.returncode == 0 else {}
            check(r.returncode == 0 and len(got) == len(want) and worst < 1e-6 and
                  note["format"] == fmt and "G = 1" in note["units"],
                  f"{name} ({fmt}, {len(want)} bodies): loaded as stored, recentred (worst "
                  f"{worst:.2e}), exit {r.returncode} {r.stderr.strip()}")

    guard("snapgen.py's files", section_snapgen)

    # --- HDF5 -----------------------------------------------------------------
    def section_4():
        r = run([*knobs, "--frames", "3", "--dump", "a.hdf5"], tmp)
        if r.returncode == 2 and "without HDF5" in r.stderr:
            lines_err = r.stderr.strip().splitlines()
            check(len(lines_err) == 2 and lines_err[1].startswith("hint:"),
                  "no HDF5 in this build: --dump x.hdf5 refused at start-up with a hint")
        else:
            check(r.returncode == 0, f"--dump a.hdf5: exit {r.returncode} {r.stderr.strip()}")
            r = run([*knobs, "--frames", "3", "--dump", "a3.csv"], tmp)
            h_status = os.path.join(tmp, "h.jsonl")
            r2 = run(["--load", "a.hdf5", "--frames", "1", "--script", pause, "--dump", "h.csv",
                      "--status-json", h_status], tmp)
            check(r2.returncode == 0, f"--load a.hdf5: exit {r2.returncode} {r2.stderr.strip()}")
            ref, got = read_csv(os.path.join(tmp, "a3.csv")), read_csv(os.path.join(tmp, "h.csv"))
            worst = max((abs(g[k] - w[k]) for g, w in zip(ref, got) for k in range(7)), default=1)
            check(len(got) == 300 and worst < 1e-6, f"--dump .hdf5 then --load: the bodies "
                                                     f"(worst difference {worst:.2e})")

            # GADGET units (Mpc, 10^10 Msun, km/s) in a plain run, where h is
            # not applied, and in a cosmological one (Omega0 > 0), where lengths
            # and masses are per h and the time is the scale factor.
            gen = os.path.join(tmp, "gen_h5.py")
            with open(gen, "w") as f:
                f.write(GEN_H5)
            kpc, msun, grav = 3.0856775814913673e21, 1.98841e33, 6.6743e-8
            v_unit = math.sqrt(grav * 1e10 * msun / kpc)  # 207.4 km/s in cm/s
            t_unit = kpc / v_unit  # 4.71 Myr in s
            for kind, h in [("plain", 1.0), ("cosmo", 0.7)]:
                path = os.path.join(tmp, f"units-{kind}.hdf5")
                # The first Python with h5py makes the file; with h5py there,
                # the generator failing is a failure, not a skip.
                pys = [py for py in [sys.executable, "/usr/bin/python3"] if os.path.exists(py)
                       and subprocess.run([py, "-c", "import h5py"],
                                          capture_output=True).returncode == 0]
                if not pys:
                    print("skip HDF5 unit conversion: no h5py (pip install h5py, or apt "
                          "python3-h5py)")
                    break
                g = subprocess.run([pys[0], gen, path, kind], capture_output=True, text=True)
                if not check(g.returncode == 0,
                             f"the {kind} HDF5 units file is made: {g.stderr.strip()[-300:]}"):
                    break
                u_status = os.path.join(tmp, f"u-{kind}.jsonl")
                r = run(["--load", path, "--frames", "1", "--script", pause, "--dump", "u.csv",
                         "--status-json", u_status], tmp)
                check(r.returncode == 0, f"--load {kind} HDF5: exit {r.returncode} "
                                         f"{r.stderr.strip()}")
                src = [list(map(float, l.split())) for l in open(path + ".txt")]
                ls, ms, vs = 3.085678e24 / h / kpc, 1.989e43 / h / (1e10 * msun), 1e5 / v_unit
                want = [[row[k] * ls for k in range(3)] + [row[3 + k] * vs for k in range(3)] +
                        [row[6] * ms] for row in src]
                mass = sum(w[6] for w in want)
                for k in range(6):
                    mean = sum(w[6] * w[k] for w in want) / mass
                    for w in want:
                        w[k] -= mean
                got = read_csv(os.path.join(tmp, "u.csv"))
                worst = max((abs(g[k] - w[k]) / max(abs(w[k]), 1e-3 * (1 + abs(w[k])))
                             for g, w in zip(got, want) for k in range(7)), default=1)
                check(len(got) == 40 and worst < 1e-3,
                      f"{kind}: Mpc, 1e10 Msun, km/s (h = {h}) -> kpc, 1e10 Msun, 207.4 km/s, "
                      f"recentred (worst relative difference {worst:.2e})")
                last = status_lines(u_status)[-1]
                t_want = 0.5 if kind == "cosmo" else 0.5 * (3.085678e24 / 1e5) / t_unit
                check("galaxy units" in last["snapshot"]["units"] and
                      abs(last["snapshot"]["time"] - t_want) < 1e-6 * t_want,
                      f"{kind}: the note and the time ({t_want:.6g}): "
                      f"{last['snapshot']['units']}, t = {last['snapshot']['time']}")
                check(abs(last["softening"] - 0.15) < 1e-6 and abs(last["dt"] - 0.025) < 1e-6,
                      f"{kind}: galaxy units run with the galaxy scenes' dt and softening")

    guard('HDF5', section_4)

    # --- playback ---------------------------------------------------------------
    def section_5():
        series = os.path.join(tmp, "series")
        os.mkdir(series)
        sizes = {"run_000.tipsy": 50, "run_001.tipsy": 80, "run_002.tipsy": 60, "run_003.tipsy": 120}
        for i, (name, n) in enumerate(sizes.items()):
            write_tipsy(os.path.join(series, name), 0.5 * i, bodies(n, [0, 0, 0], i), [])
        bad = os.path.join(series, "run_002.tipsy")
        with open(bad, "r+b") as f:
            f.truncate(32 + 36 * 10)  # the header stays, 50 of 60 bodies are cut off
        with open(os.path.join(series, "notes.txt"), "w") as f:
            f.write("not a snapshot\n")
        with open(os.path.join(series, "run_001b.tipsy"), "wb") as f:
            f.write(bytes((i * 37 + 11) % 256 for i in range(100)))
        os.mkfifo(os.path.join(series, "pipe"))
        p_status = os.path.join(tmp, "p.jsonl")
        s = script(tmp, "play.txt", "0 Space\n2 .\n4 .\n6 ,\n8 ]\n10 [\n")
        try:
            r = run(["--load", series, "--frames", "12", "--script", s, "--status-json", p_status,
                     "--status-every", "1"], tmp, timeout=60)
            check(r.returncode == 0, f"--load DIR: exit {r.returncode} {r.stderr.strip()}")
            lines = status_lines(p_status)
            # 4: . to the truncated file stops there (position 1 stays)
            want_index = {0: 0, 2: 1, 4: 1, 6: 0, 8: 3, 10: 0}
            ns = [50, 80, 60, 120]
            for frame, index in want_index.items():
                pb = at(lines, frame)["playback"] or {}
                check(pb.get("index") == index and pb.get("count") == 4 and
                      at(lines, frame)["n"] == ns[index] and pb.get("time") == 0.5 * index,
                      f"frame {frame}: playback {pb.get('index')}/{pb.get('count')}, N "
                      f"{at(lines, frame)['n']}, t {pb.get('time')} (want {index}, {ns[index]})")
            check(all(l["steps"] == 0 for l in lines), "playback steps nothing")
            check("playback stopped: run_002.tipsy" in r.stdout,
                  "the truncated file stops the playback with a message")
            check("nbody: skipped 2 files that are not snapshots nbody can read: notes.txt, "
                  "run_001b.tipsy\n" in r.stdout,
                  "the files left out of the series are said in one line")
        except subprocess.TimeoutExpired:
            check(False, "--load DIR with a FIFO in it hung")
        g_status = os.path.join(tmp, "g.jsonl")
        r = run(["--load", os.path.join(series, "run_00[013].tipsy"), "--frames", "5",
                 "--play-speed", "30",
                 "--status-json", g_status, "--status-every", "1"], tmp)
        check(r.returncode == 0, f"--load 'GLOB': exit {r.returncode} {r.stderr.strip()}")
        lines = status_lines(g_status)
        idx = [l["playback"]["index"] for l in lines[:5]]
        check(idx == [0, 1, 2, 2, 2] and not lines[4]["playback"]["playing"],
              f"a glob plays (at 30 snapshots/s headless: a file a frame) and stops at the end: "
              f"{idx}")
        check("skipped" not in r.stdout and "(a series played, no steps taken); timed: the last 4"
              in r.stdout and "ms/step" not in r.stdout,
              "the summary of a playback says no steps were taken")
        # Our own saves with their sidecars: the sidecars are no files left out;
        # a sidecar alone is.
        own = os.path.join(tmp, "own")
        os.mkdir(own)
        for name in ["a.tipsy", "a.tipsy.nbody"]:
            with open(os.path.join(own, name), "wb") as f:
                f.write(read_bytes(os.path.join(tmp, name)))
        with open(os.path.join(own, "lost.tipsy.nbody"), "wb") as f:
            f.write(read_bytes(os.path.join(tmp, "a.tipsy.nbody")))
        r = run(["--load", own, "--frames", "1"], tmp)
        check(r.returncode == 0 and "nbody: skipped 1 file that is not a snapshot nbody can read: "
              "lost.tipsy.nbody\n" in r.stdout,
              f"a sidecar beside its tipsy file is not said, one alone is: {r.stdout.strip()}")

    guard('playback', section_5)

    # --- bad input ----------------------------------------------------------------
    def section_6():
        with open(os.path.join(tmp, "short.tipsy"), "wb") as f:
            f.write(struct.pack(">diiiiii", 0.0, 1000, 3, 0, 1000, 0, 0) + b"\0" * 100)
        with open(os.path.join(tmp, "text.dat"), "w") as f:
            f.write("hello, this is not a snapshot at all\n" * 4)
        open(os.path.join(tmp, "empty.dat"), "w").close()
        write_tipsy(os.path.join(tmp, "nan.tipsy"), 0.0, [(1.0, [float("nan"), 0, 0], [0, 0, 0])], [])
        os.mkdir(os.path.join(tmp, "emptydir"))
        os.mkfifo(os.path.join(tmp, "fifo"))
        cases = ["short.tipsy", "text.dat", "empty.dat", "nan.tipsy", "emptydir", "fifo",
                 "missing.tipsy", "nothing_*.hdf5"]
        for case in cases:
            out = os.path.join(tmp, "bad-" + case.replace("*", "x") + ".csv")
            try:
                r = run(["--load", case, "--frames", "1", "--dump", out], tmp, timeout=30)
            except subprocess.TimeoutExpired:
                check(False, f"--load {case}: hung")
                continue
            err = r.stderr.strip().splitlines()
            check(r.returncode == 2 and len(err) == 2 and err[0].startswith(f"nbody: --load {case}")
                  and err[1].startswith("hint: ") and not os.path.exists(out),
                  f"--load {case}: exit {r.returncode}, {err}")

        # A tipsy dump's sidecar path is checked before the run, as the dump's own.
        os.mkdir(os.path.join(tmp, "side.tipsy.nbody"))
        r = run(["--n", "300", "--frames", "400", "--dump", "side.tipsy"], tmp)
        err = r.stderr.strip().splitlines()
        check(r.returncode == 2 and len(err) == 2 and "side.tipsy.nbody" in err[0] and
              err[1].startswith("hint: ") and "frames of" not in r.stdout and
              not os.path.exists(os.path.join(tmp, "side.tipsy")),
              f"--dump side.tipsy with a folder side.tipsy.nbody: refused at start-up, exit "
              f"{r.returncode}, {err}")

    guard('bad input', section_6)

done("test_snapshot")
