/* snap.h - public API of the snapshot module: reading and writing N-body
 * snapshots in the formats astronomers already use.
 *
 * Formats (recognised from the file's content, never from its name):
 *   tipsy    read and write; standard big-endian XDR with the 28- or 32-byte
 *            header (told apart by the file size), also native little-endian
 *            tipsy (told apart by the header's counts).
 *   gadget2  read; GADGET-2 binary SnapFormat 1 and 2, either endianness,
 *            every record marker checked, masses from the header table or the
 *            MASS block, 32- or 64-bit IDs, float or double positions.
 *   hdf5     read and write, in the GADGET/AREPO/SWIFT layout, when this build
 *            found libhdf5 (snap_hdf5_available()).
 *
 * Our own save format is tipsy plus a sidecar "<file>.nbody". Why tipsy and
 * not HDF5: HDF5 is optional at build time, so a save written by one build
 * must load in every other; tipsy is read by every tool in the field (pynbody,
 * yt, glnemo2, tipsy itself), so a save is useful outside this program. Tipsy
 * holds floats and has no room for our tags or knobs, so the sidecar carries
 * the exact doubles, the per-body galaxy/component tags and the knobs (dt,
 * softening, damping, theta, steps, scene): with it, save and load round-trip
 * every body bit for bit; without it, the tipsy file alone still loads (floats,
 * tags from the particle kinds).
 *
 * Module rules: plain C11, no GL, no CUDA, no dependency on sim/ or app/ (it
 * has its own body type, whose tag has the same layout as sim.h's SIM_TAG).
 * Writers produce bytes in memory; the caller writes them to disk (atomically).
 * Library code: it never exits or aborts; every failure returns false with a
 * message naming the file and what is wrong, and a hint. The readers never
 * read past the end of their input and never allocate from a count that the
 * input's size has not confirmed.
 */
#ifndef NBODY_SNAP_H
#define NBODY_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nbody_shared.h" /* the tag layout, shared with sim/ and the shaders */

#ifdef __cplusplus
extern "C" {
#endif

typedef enum snap_format {
    SNAP_FORMAT_UNKNOWN = 0,
    SNAP_FORMAT_TIPSY,   /* standard big-endian tipsy (also native little-endian), 28/32-byte header
                          */
    SNAP_FORMAT_GADGET2, /* GADGET-2 binary, SnapFormat 1 or 2, either endianness */
    SNAP_FORMAT_HDF5,    /* GADGET/AREPO/SWIFT HDF5 layout */
    SNAP_FORMAT_COUNT
} snap_format;

/* Component numbers inside a tag and the tag's layout, as sim.h's
 * (shaders/nbody_shared.h holds both). */
#define SNAP_COMPONENT_DISK NBODY_COMPONENT_DISK
#define SNAP_COMPONENT_BULGE NBODY_COMPONENT_BULGE
#define SNAP_COMPONENT_HALO NBODY_COMPONENT_HALO
#define SNAP_TAG(galaxy, component)                                                                \
    ((uint8_t)((galaxy) | ((component) << NBODY_TAG_COMPONENT_SHIFT)))
#define SNAP_TAG_GALAXY(tag) ((tag)&NBODY_TAG_GALAXY_MASK)
#define SNAP_TAG_COMPONENT(tag) (((tag) >> NBODY_TAG_COMPONENT_SHIFT) & NBODY_TAG_COMPONENT_MASK)

typedef struct snap_body {
    double pos[3], vel[3];
    double mass;
    uint8_t tag; /* same layout as sim.h SIM_TAG: galaxy in bits 0-1, component in bits 2-3
                    (component 0 disk, 1 bulge, 2 halo) */
} snap_body;

/* Units of a file, where the file says (GADGET-2 binary: not stored -> known=false;
 * HDF5: UnitLength_in_cm etc. from /Header, /Parameters or SWIFT's /Units). The readers
 * refuse unit attributes that are not finite and positive, and a cosmological run's
 * HubbleParam that is not. snap_write_hdf5 writes them and needs known = true. */
typedef struct snap_units {
    bool known;
    double length_cm, mass_g, velocity_cm_s;
    double hubble;    /* h when lengths/masses are in /h units (GADGET convention), else 1 */
    bool comoving;    /* cosmological run: time is the scale factor a */
    char system[160]; /* what the units are, in words (our HDF5's /Nbody/UnitSystem);
                         NUL-terminated, empty where the file does not say */
} snap_units;

/* The knobs our own saves carry (the sidecar), so a save continues exactly. */
typedef struct snap_knobs {
    bool valid;     /* false for foreign files */
    char scene[64]; /* app scene name, e.g. "plummer", "antennae-like"; NUL-terminated */
    double dt, softening, damping, theta;
    int64_t steps;
} snap_knobs;

typedef struct snap_data {
    int count;
    snap_body *bodies; /* malloc'd; snap_free releases */
    double time;       /* as stored (model units for ours) */
    snap_format format;
    snap_units units;
    snap_knobs knobs;
    int type_counts[6]; /* bodies per file particle type as read (tipsy: gas, dark, star in 0..2;
                           GADGET/HDF5: PartType0..5; SWIFT's PartType6 is read but not
                           counted here), for the HUD/messages */
    /* Each body's particle ID, ids[i] for bodies[i], or NULL where the file
     * has none: then a body's identity is its index (file order). Read from
     * GADGET-2's ID block (4- or 8-byte), HDF5's ParticleIDs (any integer
     * type, as unsigned 64-bit) and our sidecar (version 2); tipsy has no IDs
     * (file order; with its sidecar, the save's body order). IDs need not be
     * unique or sorted: whoever matches bodies by them checks. A snapshot
     * split into files has IDs only when every file has them. The writers
     * write them when non-NULL (HDF5's ParticleIDs, the sidecar); NULL
     * writes the index. malloc'd; snap_free releases. */
    uint64_t *ids;
} snap_data;

typedef struct snap_error {
    char message[512]; /* every module's error has these sizes: one fits another */
    char hint[256];
} snap_error;

/* Limits: a file claiming more than SNAP_MAX_BODIES (2^31-1) bodies, or more than its size
 * can hold, is refused before any allocation proportional to the claim. */
#define SNAP_MAX_BODIES 2147483647

/* The sidecar of a tipsy save is "<tipsy path>" SNAP_SIDECAR_SUFFIX. */
#define SNAP_SIDECAR_SUFFIX ".nbody"

const char *snap_format_name(snap_format f); /* "tipsy", "gadget2", "hdf5"; "unknown" otherwise */
bool snap_hdf5_available(void);

/* Content sniffing: tipsy header, GADGET-2 block markers, HDF5 signature. Never by name.
 * data may be the whole file or only its first bytes (4096 are enough). */
snap_format snap_detect_memory(const uint8_t *data, size_t len);
/* From a path: refuses directories, FIFOs and devices (message + hint), reads the first bytes.
 * Returns SNAP_FORMAT_UNKNOWN with *err set when the file cannot be read or is none of ours. */
snap_format snap_detect_file(const char *path, snap_error *err);

/* Reads any supported format. For tipsy, also reads the sidecar "<path>.nbody" when present
 * (knobs, tags, exact doubles). A GADGET or HDF5 snapshot split into files <base>.0, <base>.1,
 * ... (before any extension: snap_099.3.hdf5) is read whole from any one of them. false with *err
 * (naming the file and what is wrong) on failure; never reads past the end, never crashes on
 * hostile input. On failure *out is zeroed. */
bool snap_read_file(const char *path, snap_data *out, snap_error *err);
/* Tipsy and GADGET-2 from memory (the fuzz tests use this); name is for messages. */
bool snap_read_memory(const uint8_t *data, size_t len, const char *name, snap_data *out,
                      snap_error *err);
/* A tipsy image plus its sidecar image (either may be hostile), as snap_read_file does for a
 * tipsy file with a sidecar. sidecar may be NULL (then as snap_read_memory). */
bool snap_read_memory_sidecar(const uint8_t *data, size_t len, const uint8_t *sidecar,
                              size_t sidecar_len, const char *name, snap_data *out,
                              snap_error *err);

/* Writers produce bytes in memory (malloc'd *buf, *len); the app writes them to disk atomically
 * (io_write_bytes in app/io). Tipsy: standard big-endian, 32-byte header, float fields; halo bodies
 * are dark particles, disk and bulge bodies star particles (dark first, each in body order).
 * All writers refuse NaN/inf values and counts < 0 with a message. */
bool snap_write_tipsy(const snap_data *d, uint8_t **buf, size_t *len, snap_error *err);
/* Our sidecar for tipsy saves: magic + version, knobs, per-body tags, and the exact double
 * positions, velocities and masses (tipsy holds floats), so save/load round-trips exactly;
 * with d->ids, also the IDs (version 2; version 1 without them). */
bool snap_write_sidecar(const snap_data *d, uint8_t **buf, size_t *len, snap_error *err);
/* HDF5 in the GADGET/SWIFT layout that pynbody, swiftsimio and h5py read: PartType1 the halo
 * (dark matter), PartType4 disk and bulge (stars), each with Coordinates, Velocities, Masses,
 * ParticleIDs (d->ids, or the body's index where d->ids is NULL; uint64), NbodyIndex (the
 * body's index, written only with d->ids), NbodyComponent (0 disk, 1 bulge, 2 halo) and
 * NbodyGalaxy;
 * d->units in GADGET's /Header attributes and SWIFT's /Units group and per-dataset unit
 * exponents (d->units.known must be true); an /Nbody group with the knobs and
 * d->units.system. Exact doubles: snap_read_file restores tags, body order and knobs exactly.
 * Built in memory (core driver + H5Fget_file_image). Fails with a hint in a build without
 * HDF5. */
bool snap_write_hdf5(const snap_data *d, uint8_t **buf, size_t *len, snap_error *err);

void snap_free(snap_data *d);

#ifdef __cplusplus
}
#endif

#endif /* NBODY_SNAP_H */
