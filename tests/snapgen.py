#!/usr/bin/env python3
"""snapgen.py - an independent writer of test snapshots for snap/'s readers.

Writes tipsy and GADGET-2 binary files with Python's struct module (and,
with --hdf5, HDF5 files in the GADGET and SWIFT layouts with h5py): none of
snap/'s own code is involved, so a reader that agrees with its own writer but
not with the formats would fail here. Next to the files it writes
manifest.txt, the values it wrote, for test_snap to compare with what
snap_read_file returns:

    read <file> <format> <count> <time> <units_known> <length_cm> <mass_g>
         <velocity_cm_s> <comoving> <hubble> <type_counts x6>
    <count lines: x y z vx vy vz mass tag>
    fail <file> <text the error message must contain>

Every number is printed with repr(), which round-trips a double exactly;
values stored as 4-byte floats are first rounded to float here, so the
comparison is exact.

Usage: snapgen.py OUTDIR [--hdf5] [--check TEST_SNAP]
  --check runs TEST_SNAP --manifest OUTDIR/manifest.txt and exits with its
  status; with --hdf5 and no h5py it exits 77 (skipped).
"""
import os
import random
import struct
import subprocess
import sys

HALO, DISK, BULGE = 8, 0, 4  # our tags: component << 2, galaxy 0
GADGET_TAG = {0: DISK, 1: HALO, 2: DISK, 3: BULGE, 4: DISK, 5: HALO}


def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]


class Manifest:
    def __init__(self):
        self.lines = []

    def read(self, name, fmt, bodies, time, type_counts, units=None, comoving=False, hubble=1.0):
        u = units or (0, 0.0, 0.0, 0.0)
        head = ['read', name, fmt, str(len(bodies)), repr(time), str(int(u[0]))]
        head += [repr(float(v)) for v in u[1:]] + [str(int(comoving)), repr(hubble)]
        head += [str(c) for c in type_counts]
        self.lines.append(' '.join(head))
        for b in bodies:
            self.lines.append(' '.join(repr(float(v)) for v in b[:7]) + ' ' + str(b[7]))

    def fail(self, name, text):
        self.lines.append('fail %s %s' % (name, text))

    def write(self, path):
        with open(path, 'w') as f:
            f.write('\n'.join(self.lines) + '\n')


def make_bodies(rng, n, tag, single=True, mass=None):
    """n bodies [x, y, z, vx, vy, vz, m, tag]; floats rounded to float32 when single."""
    r = f32 if single else float
    out = []
    for _ in range(n):
        m = mass if mass is not None else r(rng.uniform(0.001, 0.1))
        out.append([r(rng.uniform(-50, 50)) for _ in range(3)] +
                   [r(rng.uniform(-2, 2)) for _ in range(3)] + [m, tag])
    return out


# --- tipsy -----------------------------------------------------------------------

def write_tipsy(path, gas, dark, star, time, endian='>', pad=True):
    e = endian
    n = len(gas) + len(dark) + len(star)
    data = struct.pack(e + 'd5i', time, n, 3, len(gas), len(dark), len(star))
    if pad:
        data += struct.pack(e + 'i', 0)
    for b in gas:  # mass, pos, vel, rho, temp, hsmooth, metals, phi
        data += struct.pack(e + '12f', b[6], *b[0:6], 1.5, 1e4, 0.1, 0.02, -3.0)
    for b in dark:  # mass, pos, vel, eps, phi
        data += struct.pack(e + '9f', b[6], *b[0:6], 0.05, -2.0)
    for b in star:  # mass, pos, vel, metals, tform, eps, phi
        data += struct.pack(e + '11f', b[6], *b[0:6], 0.02, 0.5, 0.05, -1.0)
    with open(path, 'wb') as f:
        f.write(data)
    return data


# --- GADGET-2 --------------------------------------------------------------------

def write_gadget(path, fmt, endian, types, masstab, time=0.0, id64=False, double=False,
                 extra_block=False, num_files=1, npart_total=None, cosmology=(0.0, 0.0, 0.7)):
    """types: list of 6 body lists (PartType0..5). Bodies of types whose masstab
    entry is 0 go into the MASS block (absent when there are none)."""
    e = endian
    out = bytearray()

    def rec(payload):
        out.extend(struct.pack(e + 'I', len(payload)) + payload + struct.pack(e + 'I', len(payload)))

    def block(label, payload):
        if fmt == 2:
            rec(label.encode().ljust(4) + struct.pack(e + 'i', len(payload) + 8))
        rec(payload)

    npart = [len(t) for t in types]
    total = npart_total or npart
    om0, oml, h = cosmology
    header = struct.pack(e + '6i', *npart) + struct.pack(e + '6d', *masstab)
    header += struct.pack(e + 'dd', time, 0.0) + struct.pack(e + 'ii', 0, 0)
    header += struct.pack(e + '6I', *total) + struct.pack(e + 'ii', 0, num_files)
    header += struct.pack(e + '4d', 100.0, om0, oml, h) + struct.pack(e + 'ii', 0, 0)
    header += struct.pack(e + '6I', 0, 0, 0, 0, 0, 0)
    header += b'\0' * (256 - len(header))
    block('HEAD', bytes(header))
    allb = [b for t in types for b in t]
    real = 'd' if double else 'f'
    block('POS', b''.join(struct.pack(e + '3' + real, *b[0:3]) for b in allb))
    if extra_block and fmt == 2:  # a block the reader must skip: gas energies
        block('U', b''.join(struct.pack(e + 'f', 1.0) for _ in types[0]))
    block('VEL', b''.join(struct.pack(e + '3' + real, *b[3:6]) for b in allb))
    block('ID', b''.join(struct.pack(e + ('Q' if id64 else 'I'), i + 1) for i in range(len(allb))))
    masses = [b[6] for t, bl in enumerate(types) if masstab[t] == 0 for b in bl]
    if masses:
        block('MASS', b''.join(struct.pack(e + real, m) for m in masses))
    if extra_block and fmt == 1 and types[0]:  # trailing gas block, ignored
        block('U', b''.join(struct.pack(e + 'f', 1.0) for _ in types[0]))
    with open(path, 'wb') as f:
        f.write(out)
    return bytes(out)


def gadget_types(rng, counts, masstab, double=False):
    types = []
    for t, n in enumerate(counts):
        m = masstab[t] if masstab[t] > 0 else None
        types.append(make_bodies(rng, n, GADGET_TAG[t], single=not double, mass=m))
    return types


def binary_files(out, man, rng):
    # tipsy: big-endian with the 32- and the 28-byte header, native little-endian
    for name, endian, pad in (('tipsy_be32.std', '>', True), ('tipsy_be28.std', '>', False),
                              ('tipsy_le32.bin', '<', True)):
        gas = make_bodies(rng, 7, DISK)
        dark = make_bodies(rng, 13, HALO)
        star = make_bodies(rng, 5, DISK)
        time = f32(rng.uniform(0, 10))
        write_tipsy(os.path.join(out, name), gas, dark, star, time, endian, pad)
        man.read(name, 'tipsy', gas + dark + star, time, [7, 13, 5, 0, 0, 0])

    # GADGET-2: both formats, both byte orders, with and without a MASS block
    variants = [
        # name, fmt, endian, counts, masstab, id64, double, extra
        ('g1_le_mass', 1, '<', [0, 40, 30, 10, 0, 0], [f32(0.01), 0, 0, 0, 0, 0], False, False,
         False),
        ('g1_be_nomass', 1, '>', [0, 20, 11, 0, 0, 0], [0, f32(0.02), f32(0.003), 0, 0, 0], True,
         False, False),
        ('g2_le_gas', 2, '<', [9, 17, 0, 0, 6, 1], [0, f32(0.05), 0, 0, 0, 0], True, False,
         True),
        ('g2_be_mass', 2, '>', [0, 25, 12, 8, 0, 0], [0, 0, 0, f32(0.007), 0, 0], False, False,
         True),
        ('g1_le_double', 1, '<', [3, 5, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], True, True, True),
    ]
    for name, fmt, endian, counts, masstab, id64, double, extra in variants:
        types = gadget_types(rng, counts, masstab, double)
        time = rng.uniform(0, 3) if double else f32(rng.uniform(0, 3))
        write_gadget(os.path.join(out, name), fmt, endian, types, masstab, time, id64, double,
                     extra)
        man.read(name, 'gadget2', [b for t in types for b in t], time, counts)

    # A snapshot in two files, <base>.0 and <base>.1; loading either reads both.
    masstab = [0, f32(0.01), 0, 0, 0, 0]
    parts = [gadget_types(rng, [0, 6, 4, 0, 0, 0], masstab),
             gadget_types(rng, [0, 3, 2, 0, 0, 0], masstab)]
    for i, types in enumerate(parts):
        write_gadget(os.path.join(out, 'multi.%d' % i), 2, '<', types, masstab, 0.5,
                     num_files=2, npart_total=[0, 9, 6, 0, 0, 0])
    bodies = [b for types in parts for t in types for b in t]
    man.read('multi.1', 'gadget2', bodies, 0.5, [0, 9, 6, 0, 0, 0])

    # Damaged files the reader must refuse with a message that says what is wrong.
    good = write_gadget(os.path.join(out, 'g1_tmp'), 1, '<',
                        gadget_types(rng, [0, 10, 0, 0, 0, 0], [0] * 6), [0] * 6)
    os.remove(os.path.join(out, 'g1_tmp'))
    bad = {
        'bad_truncated': (good[:len(good) - 30], 'truncated GADGET file'),
        'bad_endmarker': (good[:260] + struct.pack('<I', 255) + good[264:], 'record markers differ'),
        'bad_count': (good[:4] + struct.pack('<i', 11) + good[8:], 'POS block has 120 bytes'),
        'bad_huge': (good[:4] + struct.pack('<6i', 0, 2**31 - 1, 5, 0, 0, 0) + good[28:],
                     'more than 2147483647'),
    }
    for name, (data, text) in bad.items():
        with open(os.path.join(out, name), 'wb') as f:
            f.write(data)
        man.fail(name, text)
    write_gadget(os.path.join(out, 'multi_noname'), 1, '<',
                 gadget_types(rng, [0, 2, 0, 0, 0, 0], [0] * 6), [0] * 6, num_files=3)
    man.fail('multi_noname', 'is one file of a 3-file GADGET snapshot')


# --- HDF5 ------------------------------------------------------------------------

def hdf5_files(out, man, rng):
    import h5py
    import numpy as np

    def arrays(bodies, dtype):
        pos = np.array([b[0:3] for b in bodies], dtype=dtype)
        vel = np.array([b[3:6] for b in bodies], dtype=dtype)
        return pos, vel

    # GADGET/AREPO layout: /Header, units in /Parameters, PartType1 mass from MassTable.
    kpc, msun10, kms = 3.085678e21, 1.989e43, 1e5
    masstab = [0, f32(0.01), 0, 0, 0, 0]
    counts = [0, 12, 9, 4, 0, 0]
    types = [make_bodies(rng, n, GADGET_TAG[t], single=(t != 3),
                         mass=masstab[t] if masstab[t] else None)
             for t, n in enumerate(counts)]
    with h5py.File(os.path.join(out, 'gadget_layout.hdf5'), 'w') as f:
        h = f.create_group('Header')
        h.attrs['NumPart_ThisFile'] = np.array(counts, dtype=np.int32)
        h.attrs['NumPart_Total'] = np.array(counts, dtype=np.uint32)
        h.attrs['NumPart_Total_HighWord'] = np.zeros(6, dtype=np.uint32)
        h.attrs['MassTable'] = np.array(masstab, dtype=np.float64)
        h.attrs['Time'] = 1.25
        h.attrs['Redshift'] = 0.0
        h.attrs['NumFilesPerSnapshot'] = np.int32(1)
        h.attrs['HubbleParam'] = 0.7
        p = f.create_group('Parameters')
        p.attrs['UnitLength_in_cm'] = kpc
        p.attrs['UnitMass_in_g'] = msun10
        p.attrs['UnitVelocity_in_cm_per_s'] = kms
        p.attrs['ComovingIntegrationOn'] = np.int32(0)
        for t, bl in enumerate(types):
            if not bl:
                continue
            g = f.create_group('PartType%d' % t)
            pos, vel = arrays(bl, np.float32 if t != 3 else np.float64)
            g['Coordinates'] = pos
            g['Velocities'] = vel
            g['ParticleIDs'] = np.arange(len(bl), dtype=np.uint64)
            if masstab[t] == 0:
                g['Masses'] = np.array([b[6] for b in bl],
                                       dtype=np.float32 if t != 3 else np.float64)
    man.read('gadget_layout.hdf5', 'hdf5', [b for t in types for b in t], 1.25, counts,
             units=(1, kpc, msun10, kms), comoving=False, hubble=1.0)

    # SWIFT layout: 7 particle types, 1-element attribute arrays, /Units in cgs.
    counts7 = [0, 10, 0, 0, 6, 0, 0]
    types = [make_bodies(rng, n, GADGET_TAG.get(t, HALO), single=False) for t, n in
             enumerate(counts7)]
    ul, um, ut = 3.08567758e24, 1.98841e43, 3.08567758e19
    with h5py.File(os.path.join(out, 'swift_layout.hdf5'), 'w') as f:
        h = f.create_group('Header')
        h.attrs['NumPart_ThisFile'] = np.array(counts7, dtype=np.int64)
        h.attrs['NumPart_Total'] = np.array(counts7, dtype=np.uint64)
        h.attrs['MassTable'] = np.zeros(7)
        h.attrs['Time'] = np.array([0.75])
        h.attrs['Scale-factor'] = np.array([1.0])
        h.attrs['NumFilesPerSnapshot'] = np.array([1], dtype=np.int32)
        u = f.create_group('Units')
        u.attrs['Unit length in cgs (U_L)'] = np.array([ul])
        u.attrs['Unit mass in cgs (U_M)'] = np.array([um])
        u.attrs['Unit time in cgs (U_t)'] = np.array([ut])
        u.attrs['Unit current in cgs (U_I)'] = np.array([1.0])
        u.attrs['Unit temperature in cgs (U_T)'] = np.array([1.0])
        f.create_group('Cosmology').attrs['Cosmological run'] = np.array([0])
        for t, bl in enumerate(types):
            if not bl:
                continue
            g = f.create_group('PartType%d' % t)
            pos, vel = arrays(bl, np.float64)
            g['Coordinates'] = pos
            g['Velocities'] = vel
            g['Masses'] = np.array([b[6] for b in bl], dtype=np.float64)
    man.read('swift_layout.hdf5', 'hdf5', [b for t in types for b in t], 0.75, counts7[:6],
             units=(1, ul, um, ul / ut), comoving=False, hubble=1.0)

    # A snapshot in two files, <base>.0.hdf5 and <base>.1.hdf5; loading either reads both.
    parts = []
    for i, counts in enumerate(([0, 5, 3, 0, 0, 0], [0, 2, 4, 0, 0, 0])):
        types = [make_bodies(rng, n, GADGET_TAG[t]) for t, n in enumerate(counts)]
        parts.append(types)
        with h5py.File(os.path.join(out, 'multi.%d.hdf5' % i), 'w') as f:
            h = f.create_group('Header')
            h.attrs['NumPart_ThisFile'] = np.array(counts, dtype=np.int32)
            h.attrs['NumPart_Total'] = np.array([0, 7, 7, 0, 0, 0], dtype=np.uint32)
            h.attrs['MassTable'] = np.zeros(6)
            h.attrs['Time'] = 2.0
            h.attrs['NumFilesPerSnapshot'] = np.int32(2)
            for t, bl in enumerate(types):
                if bl:
                    g = f.create_group('PartType%d' % t)
                    pos, vel = arrays(bl, np.float32)
                    g['Coordinates'] = pos
                    g['Velocities'] = vel
                    g['Masses'] = np.array([b[6] for b in bl], dtype=np.float32)
    man.read('multi.0.hdf5', 'hdf5', [b for types in parts for t in types for b in t], 2.0,
             [0, 7, 7, 0, 0, 0])

    # A save of nbody's own from before its HDF5 writer put disk and bulge in
    # PartType4 (PartType1 halo, 2 disk, 3 bulge, a per-type NbodyTag, no
    # units): read back exactly, tags and body order from NbodyTag and
    # ParticleIDs.
    tags = [HALO, DISK, BULGE, HALO | 1, DISK | 1, BULGE | 2, DISK | 3]
    old = [make_bodies(rng, 1, tags[i % len(tags)], single=False)[0] for i in range(23)]
    with h5py.File(os.path.join(out, 'nbody_v1.hdf5'), 'w') as f:
        by_type = {t: [i for i, b in enumerate(old) if GADGET_TAG[t] == (b[7] & 12)]
                   for t in (1, 2, 3)}
        h = f.create_group('Header')
        npart = [0] + [len(by_type[t]) for t in (1, 2, 3)] + [0, 0]
        h.attrs['NumPart_ThisFile'] = np.array(npart, dtype=np.int32)
        h.attrs['NumPart_Total'] = np.array(npart, dtype=np.uint32)
        h.attrs['NumPart_Total_HighWord'] = np.zeros(6, dtype=np.uint32)
        h.attrs['MassTable'] = np.zeros(6)
        h.attrs['Time'] = 3.5
        h.attrs['Redshift'] = 0.0
        h.attrs['BoxSize'] = 0.0
        h.attrs['NumFilesPerSnapshot'] = np.int32(1)
        h.attrs['Omega0'] = 0.0
        h.attrs['OmegaLambda'] = 0.0
        h.attrs['HubbleParam'] = 1.0
        for t, rows in by_type.items():
            g = f.create_group('PartType%d' % t)
            g['Coordinates'] = np.array([old[i][0:3] for i in rows])
            g['Velocities'] = np.array([old[i][3:6] for i in rows])
            g['Masses'] = np.array([old[i][6] for i in rows])
            g['ParticleIDs'] = np.array(rows, dtype=np.uint64)
            g['NbodyTag'] = np.array([old[i][7] for i in rows], dtype=np.uint8)
        nb = f.create_group('Nbody')
        nb.attrs['Scene'] = np.bytes_('antennae-like'.ljust(63, '\0'))
        for k, v in (('Dt', 0.025), ('Softening', 0.15), ('Damping', 1.0), ('Theta', 0.6),
                     ('Steps', 140.0)):
            nb.attrs[k] = v
    man.read('nbody_v1.hdf5', 'hdf5', old, 3.5, npart)

    # HDF5 files without what a snapshot needs.
    def bad(name, text, build):
        with h5py.File(os.path.join(out, name), 'w') as f:
            build(f)
        man.fail(name, text)

    def part(f, n=4, cols=3, masses=True, nan=False):
        g = f.create_group('PartType1')
        pos = np.ones((n, cols))
        if nan:
            pos[2, 1] = np.nan
        g['Coordinates'] = pos
        g['Velocities'] = np.zeros((n, cols))
        if masses:
            g['Masses'] = np.ones(n)

    def header(f, n=4, mass=0.0):
        h = f.create_group('Header')
        h.attrs['NumPart_ThisFile'] = np.array([0, n, 0, 0, 0, 0], dtype=np.int32)
        h.attrs['MassTable'] = np.array([0, mass, 0, 0, 0, 0])
        h.attrs['Time'] = 0.0

    bad('h5_noheader.hdf5', 'no /Header group', lambda f: part(f))
    bad('h5_noparts.hdf5', 'no particles', lambda f: header(f, 0))
    bad('h5_shape.hdf5', 'Coordinates', lambda f: (header(f), part(f, cols=2)))
    bad('h5_count.hdf5', 'NumPart_ThisFile', lambda f: (header(f, 5), part(f)))
    bad('h5_nomass.hdf5', 'Masses', lambda f: (header(f), part(f, masses=False)))
    bad('h5_nan.hdf5', 'body 2 of 4', lambda f: (header(f), part(f, nan=True)))
    bad('h5_group.hdf5', 'Coordinates', lambda f: (header(f), f.create_group('PartType1')))

    def huge(f):  # 10^8 rows claimed, none written: refused before allocating
        header(f, 10**8, 1.0)
        g = f.create_group('PartType1')
        g.create_dataset('Coordinates', shape=(10**8, 3), dtype='f8')
        g.create_dataset('Velocities', shape=(10**8, 3), dtype='f8')
    def cosmo_h(h):  # a cosmological run (lengths per h) whose h cannot be divided out
        def build(f):
            header(f)
            f['Header'].attrs['Omega0'] = 0.3
            f['Header'].attrs['HubbleParam'] = h
            for k, v in (('UnitLength_in_cm', 3.085678e24), ('UnitMass_in_g', 1.989e43),
                         ('UnitVelocity_in_cm_per_s', 1e5)):
                f['Header'].attrs[k] = v
            part(f)
        return build
    bad('h5_hubble_nan.hdf5', 'HubbleParam is nan', cosmo_h(float('nan')))
    bad('h5_hubble_zero.hdf5', 'HubbleParam is 0', cosmo_h(0.0))
    bad('h5_unit_inf.hdf5', 'UnitMass_in_g is inf',
        lambda f: (header(f), f['Header'].attrs.create('UnitLength_in_cm', 1.0),
                   f['Header'].attrs.create('UnitMass_in_g', float('inf')),
                   f['Header'].attrs.create('UnitVelocity_in_cm_per_s', 1.0), part(f)))

    bad('h5_huge.hdf5', 'claims 100000000 x 3 values but stores only 0 bytes', huge)

    def of_three(f):  # file 0 of 3, whose siblings do not exist
        header(f)
        f['Header'].attrs['NumFilesPerSnapshot'] = np.int32(3)
        part(f)
    bad('lost.0.hdf5', 'lost.1.hdf5: cannot open: No such file', of_three)


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    out = args[0]
    want_hdf5 = '--hdf5' in args
    check = args[args.index('--check') + 1] if '--check' in args else None
    os.makedirs(out, exist_ok=True)
    man = Manifest()
    rng = random.Random(12)
    if want_hdf5:
        try:
            import h5py  # noqa: F401
        except ImportError:
            # Debian's python3-h5py is for the system Python; CMake may have
            # found another one (pyenv, a venv) first.
            system = '/usr/bin/python3'
            if (os.path.exists(system) and not os.environ.get('SNAPGEN_SYSTEM_PYTHON') and
                    os.path.realpath(sys.executable) != os.path.realpath(system)):
                os.environ['SNAPGEN_SYSTEM_PYTHON'] = '1'
                return subprocess.call([system, os.path.abspath(__file__)] + args)
            print('snapgen: h5py is missing (Debian: python3-h5py); skipped')
            return 77
        hdf5_files(out, man, rng)
    else:
        binary_files(out, man, rng)
    man.write(os.path.join(out, 'manifest.txt'))
    if check:
        return subprocess.call([check, '--manifest', os.path.join(out, 'manifest.txt')])
    return 0


if __name__ == '__main__':
    sys.exit(main())
