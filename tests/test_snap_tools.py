#!/usr/bin/env python3
"""test_snap_tools.py - the field's own Python tools read nbody's snapshots
with the right units and particle families, value for value.

    test_snap_tools.py NBODY VENV

Installs pynbody, swiftsimio and astropy from PyPI into the virtual
environment VENV (under the build folder; reused while it imports them) and
exits 77 (skipped) where that cannot be done: offline, no venv module, no
wheel for this Python. Then, for three scenes - one disk galaxy (disk, bulge
and halo; galaxy units), two galaxies (antennae-like) and the Plummer sphere
(Henon units) - two frames are run on the CPU backend three times with the
same seed and written as FILE.hdf5, FILE.tipsy and FILE.csv (the CSV with
9 significant digits, from a writer that shares nothing with the other two),
and checked:
  - the unit attributes against astropy's constants (an independent
    computation): the length unit is 1 kpc, the mass unit 1e10 solar masses,
    the velocity unit sqrt(G M / L) and the time unit L / V, in /Header
    (GADGET's names) and /Units (SWIFT's); /Nbody/UnitSystem says whether
    they are the scene's own (galaxy units) or one scale of G = 1 model units;
  - the layout: the halo in PartType1, disk and bulge in PartType4 with
    NbodyComponent (0 disk, 1 bulge; 2 halo) and NbodyGalaxy beside them; the
    one disk galaxy has the documented shares (sim.h: disk 0.5, bulge 0.1 of
    the bodies, the halo the rest);
  - pynbody reads the HDF5 file: dark matter = the halo, stars = disk and
    bulge, positions, velocities and masses in cm, cm/s and g equal to the CSV
    times the units above, its time equal to the run's;
  - swiftsimio reads it: dark_matter and stars, the values as stored equal to
    the CSV, in cgs equal to the CSV times the units to swiftsimio's own
    rounding of units (5 significant figures), the components, the time;
  - pynbody reads the tipsy file: dm = the halo, star = disk and bulge (each in
    body order), the values in its default tipsy units (G = 1, kpc, 1e10 Msol:
    ours) equal to the CSV rounded to float, and those units equal ours;
  - nbody reads its own HDF5 back: --load, paused, --dump gives the same CSV.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

from checks import check, failed

PACKAGES = ["pynbody==2.8.0", "swiftsimio==12.4.0", "astropy"]  # the versions this was written with

COMMON = ["--headless", "--backend", "cpu", "--width", "160", "--height", "100"]
SCENES = [("disk", 700), ("antennae-like", 800), ("plummer", 500)]


def skip(why):
    print(f"test_snap_tools: {why}; skipped")
    sys.exit(77)


def venv_python(venv):
    """The venv's Python with the tools importable; installs them once."""
    py = os.path.join(venv, "bin", "python")
    probe = [py, "-c", "import pynbody, swiftsimio, astropy, h5py"]
    if os.path.exists(py) and subprocess.run(probe, capture_output=True).returncode == 0:
        return py
    r = subprocess.run([sys.executable, "-m", "venv", "--clear", venv], capture_output=True,
                       text=True)
    if r.returncode != 0:
        skip(f"cannot make a venv in {venv}: {(r.stderr.strip().splitlines() or ['?'])[-1]}")
    try:
        r = subprocess.run([py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                            "--timeout", "15", "--retries", "1", *PACKAGES],
                           capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        skip("pip install took over 10 minutes")
    if r.returncode != 0 or subprocess.run(probe, capture_output=True).returncode != 0:
        last = (r.stderr.strip().splitlines() or ["?"])[-1]
        skip(f"cannot install {' '.join(PACKAGES)} from PyPI ({last})")
    return py





def guard(title, section):
    """Runs one tool's checks; a tool that cannot read the file at all fails
    there, and the other tools are still tried."""
    try:
        section()
    except Exception as e:  # whatever the tool raises
        check(False, f"{title}: {type(e).__name__}: {e}")


def worst_rel(got, want):
    """The largest |got - want| / |want| over two equal-shaped arrays (0 where
    both are 0); inf when the shapes differ."""
    import numpy as np
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        return math.inf
    diff = np.abs(got - want)
    scale = np.abs(want)
    rel = np.where(scale > 0, diff / np.where(scale > 0, scale, 1), np.where(diff > 0, np.inf, 0))
    return float(rel.max()) if rel.size else 0.0


def inner(nbody, tmp):
    import astropy.constants as const
    import astropy.units as au
    import h5py
    import numpy as np
    import pynbody
    import swiftsimio
    import warnings
    warnings.simplefilter("ignore")  # pynbody warns that a tipsy file has no .param file

    # The galaxy units from astropy's constants (CODATA 2018 G, IAU 2015
    # nominal solar mass, IAU 2012 au for the parsec).
    L = au.kpc.to(au.cm)
    M = 1e10 * const.M_sun.cgs.value
    V = math.sqrt(const.G.cgs.value * M / L)
    T = L / V
    # nbody's solar mass is the nominal one rounded to 6 digits (1.98841e33 g
    # against 1.988409871e33: 6.5e-8 relative); the velocity and time units
    # take half of that through the square root. 2e-7 leaves room for those and
    # for the CSV's 9 significant digits (5e-9).
    RTOL = 2e-7
    # The tipsy file holds each double rounded to float; the CSV's 9 digits
    # rounded to float here can land one float away from that: 2^-23 = 1.2e-7.
    RTOL_TIPSY = 3e-7
    # pynbody's own solar mass is 1.98842e33 g (5e-6 above the nominal one):
    # its default tipsy mass and velocity units differ from ours by that much.
    RTOL_PYNBODY_MSOL = 1e-5
    # swiftsimio rounds each unit of a file to 5 significant figures of the
    # nearest named unit (its find_nearest_base_unit: 1.98841e43 g becomes
    # 1e10 Msun), so its cgs values are good to 5e-5 per unit, a velocity
    # (length / time) to 1e-4.
    RTOL_SWIFTSIMIO = 1e-4

    pause = os.path.join(tmp, "pause.txt")
    with open(pause, "w") as f:
        f.write("0 Space\n")

    for scene, n in SCENES:
        base = os.path.join(tmp, scene)
        galaxy = scene != "plummer"
        for ext in ("hdf5", "tipsy", "csv"):
            extra = ["--status-json", base + ".json"] if ext == "csv" else []
            r = subprocess.run([nbody, *COMMON, "--preset", scene, "--n", str(n), "--seed", "5",
                                "--frames", "2", "--dump", f"{base}.{ext}", *extra],
                               capture_output=True, text=True, timeout=120)
            if not check(r.returncode == 0, f"{scene}: --dump {ext}: exit {r.returncode} "
                                            f"{r.stderr.strip()}"):
                return
        with open(base + ".csv") as f:
            csv = np.array([list(map(float, line.split(",")))[:7] for line in f.readlines()[1:]])
        with open(base + ".json") as f:
            status = json.loads(f.read().strip().splitlines()[-1])
        time = status["snapshot"]["time"]  # 17 digits ("t" has 9)
        check(len(csv) == n and time > 0, f"{scene}: {len(csv)} bodies at t = {time}")

        # --- the file as written (h5py) -------------------------------------------
        with h5py.File(base + ".hdf5", "r") as f:
            head = f["Header"].attrs
            units = f["Units"].attrs if "Units" in f else {}
            nb = f["Nbody"].attrs
            system = nb["UnitSystem"].decode() if "UnitSystem" in nb else ""
            for name, got, want in [
                    ("Header UnitLength_in_cm", head.get("UnitLength_in_cm", 0), L),
                    ("Header UnitMass_in_g", head.get("UnitMass_in_g", 0), M),
                    ("Header UnitVelocity_in_cm_per_s", head.get("UnitVelocity_in_cm_per_s", 0), V),
                    ("Units U_L", units.get("Unit length in cgs (U_L)", [0])[0], L),
                    ("Units U_M", units.get("Unit mass in cgs (U_M)", [0])[0], M),
                    ("Units U_t", units.get("Unit time in cgs (U_t)", [0])[0], T)]:
                check(worst_rel([got], [want]) < RTOL,
                      f"{scene}: {name} = {float(got):.10g}, astropy says {want:.10g}")
            check(("galaxy units" in system) == galaxy and ("G = 1" in system),
                  f"{scene}: /Nbody/UnitSystem says which units: {system!r}")
            groups = sorted(k for k in f.keys() if k.startswith("PartType"))
            counts = list(head["NumPart_ThisFile"])
            # The halo is PartType1; every other type is taken as stars here, so
            # that the tools' checks below still run on a file of the old layout.
            ids = {1: np.zeros(0, dtype=np.int64), 4: np.zeros(0, dtype=np.int64)}
            comp = {1: np.zeros(0), 4: np.zeros(0)}
            gal = {1: np.zeros(0), 4: np.zeros(0)}
            for group in groups:
                g, t = f[group], 1 if group == "PartType1" else 4
                ids[t] = np.concatenate([ids[t], g["ParticleIDs"][:].astype(np.int64)])
                if "NbodyComponent" in g:
                    comp[t] = np.concatenate([comp[t], g["NbodyComponent"][:]])
                    gal[t] = np.concatenate([gal[t], g["NbodyGalaxy"][:]])
        check(set(groups) <= {"PartType1", "PartType4"} and counts[2] == counts[3] == 0,
              f"{scene}: only PartType1 (halo) and PartType4 (stars): {groups}, {counts}")
        check(len(comp[1]) == len(ids[1]) and len(comp[4]) == len(ids[4]) and
              np.all(comp[1] == 2) and np.all((comp[4] == 0) | (comp[4] == 1)),
              f"{scene}: PartType1 holds the halo (NbodyComponent 2), PartType4 disk (0) and "
              "bulge (1)")
        check(sorted(np.concatenate([ids[1], ids[4]]).tolist()) == list(range(n)),
              f"{scene}: ParticleIDs are the body indices 0..{n - 1}")
        halo = np.sort(ids[1])
        stars = np.sort(ids[4])
        if scene == "disk":
            shares = (int(np.sum(comp[4] == 0)), int(np.sum(comp[4] == 1)), len(halo))
            check(shares == (350, 70, 280), f"disk: disk, bulge, halo = {shares}, sim.h's "
                                            "shares say (350, 70, 280)")
        if scene == "antennae-like":
            check(sorted(set(np.concatenate([gal[1], gal[4]]).tolist())) == [0, 1],
                  "antennae-like: NbodyGalaxy names both galaxies")

        # --- pynbody, HDF5 -------------------------------------------------------
        def section():
            s = pynbody.load(base + ".hdf5")
            fams = sorted(f.name for f in s.families())
            want_fams = sorted((["dm"] if len(halo) else []) + (["star"] if len(stars) else []))
            check(fams == want_fams and len(s.dm) == len(halo) and len(s.star) == len(stars),
                  f"{scene}: pynbody's families {fams}: {len(s.dm)} dm, {len(s.star)} star "
                  f"(want {len(halo)}, {len(stars)})")
            for fam, rows in (("dm", halo), ("star", stars)):
                if not len(rows):
                    continue
                sub = getattr(s, fam)
                order = np.argsort(np.asarray(sub["iord"]))
                check(np.array_equal(np.asarray(sub["iord"])[order], rows),
                      f"{scene}: pynbody {fam} iord are the {fam} bodies' indices")
                for name, unit, cols, scale in (("pos", "cm", slice(0, 3), L),
                                                ("vel", "cm s**-1", slice(3, 6), V),
                                                ("mass", "g", 6, M)):
                    got = np.asarray(sub[name].in_units(unit))[order]
                    err = worst_rel(got, csv[rows][:, cols] * scale)
                    check(err < RTOL, f"{scene}: pynbody {fam} {name} in {unit} = CSV x unit "
                                      f"(worst relative difference {err:.1e})")
            t_pyn = float(s.properties["time"].in_units("s"))
            check(worst_rel([t_pyn], [time * T]) < RTOL,
                  f"{scene}: pynbody's time {t_pyn:.6g} s = t x {T:.6g} s")

        guard(f"{scene}: pynbody, HDF5", section)

        # --- swiftsimio ------------------------------------------------------------
        def section():
            d = swiftsimio.load(base + ".hdf5")
            check(worst_rel([d.metadata.units.length.to("cm").value], [L]) < RTOL_SWIFTSIMIO and
                  worst_rel([d.metadata.units.mass.to("g").value], [M]) < RTOL_SWIFTSIMIO and
                  worst_rel([d.metadata.units.time.to("s").value], [T]) < RTOL_SWIFTSIMIO,
                  f"{scene}: swiftsimio's unit system: {d.metadata.units.length}, "
                  f"{d.metadata.units.mass}")
            for part, rows, kind in (("dark_matter", halo, 1), ("stars", stars, 4)):
                if not len(rows):
                    check(part not in d.metadata.present_group_names,
                          f"{scene}: no {part} group in swiftsimio")
                    continue
                sub = getattr(d, part)
                order = np.argsort(sub.particle_ids.value)
                check(np.array_equal(sub.particle_ids.value[order], rows),
                      f"{scene}: swiftsimio {part} particle_ids are those bodies' indices")
                for name, unit, cols, scale in (("coordinates", "cm", slice(0, 3), L),
                                                ("velocities", "cm/s", slice(3, 6), V),
                                                ("masses", "g", 6, M)):
                    field = getattr(sub, name)
                    err = worst_rel(field.value[order], csv[rows][:, cols])
                    check(err < RTOL, f"{scene}: swiftsimio {part} {name} as stored = CSV "
                                      f"(worst relative difference {err:.1e})")
                    err = worst_rel(field.to(unit).value[order], csv[rows][:, cols] * scale)
                    check(err < RTOL_SWIFTSIMIO, f"{scene}: swiftsimio {part} {name} in {unit} = "
                                                 f"CSV x unit (worst relative difference {err:.1e})")
                want_comp = comp[kind][np.argsort(ids[kind])]
                check(np.array_equal(sub.nbody_component.value[order], want_comp),
                      f"{scene}: swiftsimio {part} nbody_component")
            t_sw = d.metadata.time.to("s").value
            check(worst_rel([t_sw], [time * T]) < RTOL_SWIFTSIMIO,
                  f"{scene}: swiftsimio's time {t_sw:.6g} s = t x {T:.6g} s")

        guard(f"{scene}: swiftsimio", section)

        # --- pynbody, tipsy --------------------------------------------------------
        def section():
            s = pynbody.load(base + ".tipsy")
            check(len(s.dm) == len(halo) and len(s.star) == len(stars) and len(s.gas) == 0,
                  f"{scene}: pynbody reads the tipsy file: {len(s.dm)} dm, {len(s.star)} star")
            check(worst_rel([s["pos"].units.in_units("cm")], [L]) < 1e-12 and
                  worst_rel([s["mass"].units.in_units("g")], [M]) < RTOL_PYNBODY_MSOL and
                  worst_rel([s["vel"].units.in_units("cm s**-1")], [V]) < RTOL_PYNBODY_MSOL,
                  f"{scene}: pynbody's tipsy units are ours: {s['pos'].units}, {s['vel'].units}, "
                  f"{s['mass'].units}")
            f32 = csv.astype(np.float32).astype(np.float64)
            for fam, rows in (("dm", halo), ("star", stars)):
                if not len(rows):
                    continue
                sub = getattr(s, fam)
                for name, cols in (("pos", slice(0, 3)), ("vel", slice(3, 6)), ("mass", 6)):
                    err = worst_rel(np.asarray(sub[name]), f32[rows][:, cols])
                    check(err < RTOL_TIPSY, f"{scene}: pynbody tipsy {fam} {name} = CSV "
                                            f"(worst relative difference {err:.1e})")

        guard(f"{scene}: pynbody, tipsy", section)

        # --- nbody reads its own file back -----------------------------------------
        def section():
            back = os.path.join(tmp, scene + "-back.csv")
            r = subprocess.run([nbody, *COMMON, "--load", base + ".hdf5", "--frames", "1",
                                "--script", pause, "--dump", back], capture_output=True, text=True,
                               timeout=120)
            same = False
            if r.returncode == 0:
                with open(back) as f, open(base + ".csv") as g:
                    cut = lambda lines: [",".join(l.split(",")[:7]) for l in lines]
                    same = cut(f.readlines()) == cut(g.readlines())
            check(same, f"{scene}: --load {scene}.hdf5 gives the same bodies to the last digit "
                        f"(exit {r.returncode} {r.stderr.strip()})")

        guard(f"{scene}: nbody --load", section)



def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "--inner":
        with tempfile.TemporaryDirectory() as tmp:
            try:
                inner(os.path.abspath(sys.argv[2]), tmp)
            except Exception as e:  # a tool that cannot read the file at all
                import traceback
                traceback.print_exc()
                check(False, f"{type(e).__name__}: {e}")
        return 1 if failed() else 0
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    nbody, venv = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with tempfile.TemporaryDirectory() as tmp:
        probe = subprocess.run([nbody, *COMMON, "--n", "64", "--frames", "1", "--dump",
                                os.path.join(tmp, "probe.hdf5")], capture_output=True, text=True)
    if probe.returncode == 2 and "without HDF5" in probe.stderr:
        skip("this nbody has no HDF5")
    py = venv_python(venv)
    return subprocess.call([py, os.path.abspath(__file__), "--inner", nbody, venv])


if __name__ == "__main__":
    sys.exit(main())
