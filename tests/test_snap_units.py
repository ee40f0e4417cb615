#!/usr/bin/env python3
"""test_snap_units.py - snapshots whose units or values nbody cannot
simulate are refused at --load, before anything runs.

    test_snap_units.py NBODY

Writes, with h5py (the running Python's, else Debian's python3-h5py; exits
77 without either, or when this nbody has no HDF5), GADGET-layout HDF5 files
of 64 bodies whose unit attributes or values are bad in one way each, and
one tipsy file, and checks that --load of each exits 2 with one line
"nbody: --load FILE: ..." naming what is wrong, one "hint:" line, and no
--dump file:
  - unit attributes that are not finite or not positive (UnitLength_in_cm
    NaN or 0, UnitVelocity_in_cm_per_s inf, SWIFT's U_t 0);
  - a cosmological run (Omega0 > 0, lengths and masses per h) whose
    HubbleParam is NaN, 0 or negative;
  - conversions to the galaxy units that overflow or underflow: a length
    unit of 1e300 cm (positions near 1e278 kpc), a velocity unit of 1e300
    cm/s, velocities near 1e235 km/s, a mass unit of 1e300 g, a mass unit of
    1e-300 g (the unit itself becomes 0 galaxy units), a mass unit of 1e-270
    g (masses of 5e-316, which float arithmetic loses), a velocity unit of
    1e-305 cm/s (the time unit L / V overflows);
  - a tipsy file (no units: taken as G = 1 model units) with velocities of
    1e30, beyond what the float kernels can square.
The same file with sane units loads (exit 0), so a refusal is the values'.
"""
import os
import subprocess
import sys
import tempfile

from checks import check, failed

GEN = r'''
import sys, h5py, numpy as np

kind, path = sys.argv[1], sys.argv[2]
n = 64
rng = np.random.default_rng(7)
pos, vel, mass = rng.normal(size=(n, 3)), 100 * rng.normal(size=(n, 3)), np.full(n, 0.01)
L, M, V, h, cosmo, swift_t = 3.085678e21, 1.989e43, 1e5, None, False, None
nan, inf = float("nan"), float("inf")
if kind == "unit-length-1e300": L = 1e300
elif kind == "unit-velocity-1e300": V = 1e300
elif kind == "velocity-1e235": vel = 1e235 * (1 + rng.random(size=(n, 3)))
elif kind == "unit-mass-1e300": M = 1e300
elif kind == "unit-mass-1e-300": M = 1e-300
elif kind == "unit-mass-1e-270": M = 1e-270
elif kind == "unit-velocity-1e-305": V = 1e-305
elif kind == "hubble-nan": h, cosmo = nan, True
elif kind == "hubble-zero": h, cosmo = 0.0, True
elif kind == "hubble-negative": h, cosmo = -0.7, True
elif kind == "unit-length-nan": L = nan
elif kind == "unit-length-zero": L = 0.0
elif kind == "unit-velocity-inf": V = inf
elif kind == "swift-time-zero": swift_t = 0.0
elif kind == "good-cosmo": h, cosmo = 0.7, True
with h5py.File(path, "w") as f:
    hd = f.create_group("Header")
    hd.attrs["NumPart_ThisFile"] = np.array([0, n, 0, 0, 0, 0], dtype=np.int32)
    hd.attrs["MassTable"] = np.zeros(6)
    hd.attrs["Time"] = 0.5
    if cosmo:
        hd.attrs["Omega0"] = 0.3
        hd.attrs["OmegaLambda"] = 0.7
        hd.attrs["HubbleParam"] = h
    if swift_t is None:
        hd.attrs["UnitLength_in_cm"] = L
        hd.attrs["UnitMass_in_g"] = M
        hd.attrs["UnitVelocity_in_cm_per_s"] = V
    else:
        u = f.create_group("Units")
        u.attrs["Unit length in cgs (U_L)"] = [L]
        u.attrs["Unit mass in cgs (U_M)"] = [M]
        u.attrs["Unit time in cgs (U_t)"] = [swift_t]
    g = f.create_group("PartType1")
    g["Coordinates"], g["Velocities"], g["Masses"] = pos, vel, mass
    g["ParticleIDs"] = np.arange(n, dtype=np.uint64)
'''

# name, what the message must say
BAD = [
    ("unit-length-nan", "UnitLength_in_cm is nan"),
    ("unit-length-zero", "UnitLength_in_cm is 0"),
    ("unit-velocity-inf", "UnitVelocity_in_cm_per_s is inf"),
    ("swift-time-zero", "Unit time in cgs (U_t) is 0"),
    ("hubble-nan", "HubbleParam is nan"),
    ("hubble-zero", "HubbleParam is 0"),
    ("hubble-negative", "HubbleParam is -0.7"),
    ("unit-length-1e300", "position"),
    ("unit-velocity-1e300", "velocity"),
    ("velocity-1e235", "velocity"),
    ("unit-mass-1e300", "mass"),
    ("unit-mass-1e-300", "mass unit"),
    ("unit-mass-1e-270", "lost in float arithmetic"),
    ("unit-velocity-1e-305", "time unit"),
]
GOOD = ["good", "good-cosmo"]

COMMON = ["--headless", "--backend", "cpu", "--width", "160", "--height", "100"]



def python_with_h5py():
    for py in (sys.executable, "/usr/bin/python3"):
        if os.path.exists(py) and subprocess.run([py, "-c", "import h5py"],
                                                 capture_output=True).returncode == 0:
            return py
    return None


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    nbody = os.path.abspath(sys.argv[1])
    py = python_with_h5py()
    if not py:
        print("test_snap_units: no h5py (Debian: python3-h5py); skipped")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        probe = subprocess.run([nbody, *COMMON, "--n", "64", "--frames", "1", "--dump",
                                os.path.join(tmp, "probe.hdf5")], capture_output=True, text=True)
        if probe.returncode == 2 and "without HDF5" in probe.stderr:
            print("test_snap_units: this nbody has no HDF5; skipped")
            return 77
        gen = os.path.join(tmp, "gen.py")
        with open(gen, "w") as f:
            f.write(GEN)
        for kind in [k for k, _ in BAD] + GOOD:
            r = subprocess.run([py, gen, kind, os.path.join(tmp, kind + ".hdf5")],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(r.stderr)
                return 1
        # Tipsy: big-endian, 32-byte header, 3 dark particles (m, x, y, z, vx, vy, vz, eps, phi).
        import struct
        with open(os.path.join(tmp, "velocity-1e30.tipsy"), "wb") as f:
            f.write(struct.pack(">diiiiii", 0.0, 3, 3, 0, 3, 0, 0))
            for i in range(3):
                f.write(struct.pack(">9f", 0.1, i, 0, 0, 1e30 if i == 1 else 0.5, 0, 0, 0.01, 0))
        cases = [(k + ".hdf5", want) for k, want in BAD] + [("velocity-1e30.tipsy", "velocity")]
        for name, want in cases:
            out = os.path.join(tmp, name + ".csv")
            try:
                r = subprocess.run([nbody, *COMMON, "--load", name, "--frames", "2", "--dump", out],
                                   cwd=tmp, capture_output=True, text=True, timeout=60)
            except subprocess.TimeoutExpired:
                check(False, f"--load {name}: hung")
                continue
            err = r.stderr.strip().splitlines()
            check(r.returncode == 2 and len(err) == 2 and
                  err[0].startswith(f"nbody: --load {name}: ") and want in err[0] and
                  err[1].startswith("hint: ") and not os.path.exists(out),
                  f"--load {name}: exit {r.returncode} (want 2), says {want!r}: {err}")
        for kind in GOOD:
            name = kind + ".hdf5"
            r = subprocess.run([nbody, *COMMON, "--load", name, "--frames", "2"], cwd=tmp,
                               capture_output=True, text=True, timeout=60)
            check(r.returncode == 0, f"--load {name} (sane units): exit {r.returncode} "
                                     f"{r.stderr.strip()}")
    return 1 if failed() else 0


if __name__ == "__main__":
    sys.exit(main())
