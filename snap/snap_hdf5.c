/* snap_hdf5.c - HDF5 snapshots in the GADGET/AREPO/SWIFT layout, through
 * libhdf5 (built only when CMake found it; snap.c has the stand-ins).
 *
 * Read: /Header attributes NumPart_ThisFile, MassTable, Time,
 * NumFilesPerSnapshot (a snapshot in several files <base>.<n>.hdf5 is put
 * together by snap.c) and HubbleParam, Omega0, OmegaLambda where present;
 * /PartTypeN/Coordinates and Velocities (N x 3) and Masses (N), or the header's
 * MassTable entry for a type without Masses; ParticleIDs (any integer type,
 * read as uint64) give snap_data.ids when every type with particles has them.
 * N runs over 0..5 (GADGET, AREPO)
 * and 6 (SWIFT's neutrinos, drawn as halo; type_counts has no slot for them).
 * Units: GADGET-4/AREPO's UnitLength_in_cm, UnitMass_in_g and
 * UnitVelocity_in_cm_per_s in /Header or /Parameters, or SWIFT's /Units group
 * ("Unit length in cgs (U_L)", "Unit mass in cgs (U_M)", "Unit time in cgs
 * (U_t)"; velocity = U_L / U_t). A cosmological run (/Parameters
 * ComovingIntegrationOn, SWIFT's /Cosmology "Cosmological run", or a GADGET
 * header with Omega0 or OmegaLambda > 0) has time = the scale factor, and in
 * GADGET's convention lengths and masses in units of 1/h (SWIFT's are not).
 * Types and shapes are checked before any data is read, a dataset's row
 * count against the NumPart_ThisFile it belongs to, and the bytes it claims
 * against those it stores and the file's size (at most 64 times more, for
 * compression), so a tiny file cannot make us allocate for a huge dataset. Attribute values that
 * HDF5 converts for us (any integer or float type to double) are bounded by a fixed buffer.
 *
 * Write: a layout that GADGET-style readers, pynbody (through its SWIFT
 * reader) and swiftsimio all read with units and families: PartType1 the
 * halo (dark matter), PartType4 disk and bulge (stars), double Coordinates,
 * Velocities and Masses, ParticleIDs (snap_data.ids, or the body's index
 * where it has none; with ids, NbodyIndex holds the index), NbodyComponent (0
 * disk, 1 bulge, 2 halo) and NbodyGalaxy, each dataset with SWIFT's unit
 * exponents; the units as GADGET's /Header attributes and as SWIFT's /Units
 * group (with /Cosmology, /Policy and /Parameters, which those readers
 * open); and our own /Nbody group (the unit system in words, scene and
 * knobs). When /Nbody is present the reader restores the tags and the body
 * order from NbodyComponent, NbodyGalaxy and NbodyIndex or ParticleIDs (or, in saves
 * written before disk and bulge moved to PartType4, from NbodyTag), so our
 * own HDF5 saves round-trip exactly. The file is built in memory (core
 * driver without a backing store) and handed out with H5Fget_file_image;
 * the caller writes it to disk.
 */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "snap_internal.h"

enum {
    HDF5_TYPES = 7,      /* PartType0..6 (6: SWIFT's neutrinos) */
    ATTR_MAX = 16,       /* the most elements an attribute we read may have */
    COMPRESSION_MAX = 64 /* the most a dataset's claimed bytes may exceed its stored bytes */
};

bool snap_hdf5_available(void) {
    return true;
}

static const char layout_hint[] =
    "nbody reads HDF5 snapshots in the GADGET/AREPO/SWIFT layout: a /Header group and "
    "/PartTypeN groups with Coordinates, Velocities and Masses";

/* Closes any HDF5 id by its kind; ids < 0 are ignored. */
static void hclose(hid_t id) {
    if (id < 0) return;
    switch (H5Iget_type(id)) {
    case H5I_FILE:
        H5Fclose(id);
        break;
    case H5I_GROUP:
        H5Gclose(id);
        break;
    case H5I_DATASET:
        H5Dclose(id);
        break;
    case H5I_ATTR:
        H5Aclose(id);
        break;
    case H5I_DATASPACE:
        H5Sclose(id);
        break;
    case H5I_DATATYPE:
        H5Tclose(id);
        break;
    case H5I_GENPROP_LST:
        H5Pclose(id);
        break;
    default:
        break;
    }
}

/* The kind of object loc/name is (H5I_GROUP, H5I_DATASET, ...), H5I_BADID if none. */
static H5I_type_t object_kind(hid_t loc, const char *name) {
    hid_t o = H5Oopen(loc, name, H5P_DEFAULT);
    if (o < 0) return H5I_BADID;
    H5I_type_t kind = H5Iget_type(o);
    H5Oclose(o);
    return kind;
}

/* true when loc has a link called name (and its parents exist). */
static bool has_link(hid_t loc, const char *name) {
    return loc >= 0 && H5Lexists(loc, name, H5P_DEFAULT) > 0;
}

/* loc/name when it is a group, else -1. */
static hid_t open_group(hid_t loc, const char *name) {
    if (!has_link(loc, name) || object_kind(loc, name) != H5I_GROUP) return -1;
    return H5Gopen2(loc, name, H5P_DEFAULT);
}

/* A numeric attribute as up to max doubles. 0: absent; -1: present but not
 * numeric or too large (*err set); else the element count. */
static int attr_doubles(hid_t loc, const char *name, double *out, int max, const char *file,
                        const char *where, snap_error *err) {
    if (loc < 0 || H5Aexists(loc, name) <= 0) return 0;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    hid_t space = a >= 0 ? H5Aget_space(a) : -1;
    hid_t type = a >= 0 ? H5Aget_type(a) : -1;
    hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    H5T_class_t cls = type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS;
    int got = -1;
    double buf[ATTR_MAX];
    if (n < 1 || n > max || n > ATTR_MAX || (cls != H5T_INTEGER && cls != H5T_FLOAT))
        snap_fail(err, file, layout_hint, "attribute %s/%s is not a number or a short list of them",
                  where, name);
    else if (H5Aread(a, H5T_NATIVE_DOUBLE, buf) < 0)
        snap_fail(err, file, layout_hint, "cannot read attribute %s/%s", where, name);
    else {
        got = (int)n;
        for (int i = 0; i < got; i++) out[i] = buf[i];
    }
    hclose(type);
    hclose(space);
    hclose(a);
    return got;
}

/* One scalar (or the first of a 1-element list, as SWIFT writes them). */
static int attr_scalar(hid_t loc, const char *name, double *out, const char *file,
                       const char *where, snap_error *err) {
    double v[ATTR_MAX];
    int n = attr_doubles(loc, name, v, ATTR_MAX, file, where, err);
    if (n > 0) *out = v[0];
    return n;
}

/* A dataset's shape: rows and columns (1 for rank 1). false with *err when
 * it is not a numeric array of rank 1 or 2 or stores too little for its rows. */
typedef struct dset_info {
    hid_t id;
    hsize_t rows, cols;
} dset_info;

static bool open_dataset(hid_t group, const char *gname, const char *name, dset_info *ds,
                         const char *file, snap_error *err) {
    ds->id = -1;
    if (!has_link(group, name)) return true; /* absent: the caller decides */
    if (object_kind(group, name) != H5I_DATASET)
        return snap_fail(err, file, layout_hint, "%s/%s is not a dataset", gname, name);
    ds->id = H5Dopen2(group, name, H5P_DEFAULT);
    hid_t space = ds->id >= 0 ? H5Dget_space(ds->id) : -1;
    hid_t type = ds->id >= 0 ? H5Dget_type(ds->id) : -1;
    H5T_class_t cls = type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS;
    size_t elem = type >= 0 ? H5Tget_size(type) : 0;
    int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    hsize_t dims[2] = {0, 1};
    bool ok = true;
    if (ds->id < 0 || space < 0 || type < 0)
        ok = snap_fail(err, file, layout_hint, "cannot open %s/%s", gname, name);
    else if (cls != H5T_INTEGER && cls != H5T_FLOAT)
        ok = snap_fail(err, file, layout_hint, "%s/%s is not numeric", gname, name);
    else if (rank < 1 || rank > 2 || H5Sget_simple_extent_dims(space, dims, NULL) < 0)
        ok = snap_fail(err, file, layout_hint, "%s/%s has rank %d, expected 1 or 2", gname, name,
                       rank);
    if (ok) {
        ds->rows = dims[0];
        ds->cols = rank == 2 ? dims[1] : 1;
        /* A dataset may claim far more rows than the file stores (never
         * written, or filled by a fill value): refuse before allocating. */
        double claimed = (double)ds->rows * (double)ds->cols * (double)elem;
        /* What HDF5 says is allocated, but never more than the file itself. */
        double stored = (double)H5Dget_storage_size(ds->id);
        hsize_t file_size = 0;
        hid_t fid = H5Iget_file_id(group);
        if (fid >= 0 && H5Fget_filesize(fid, &file_size) >= 0 && stored > (double)file_size)
            stored = (double)file_size;
        hclose(fid);
        if (claimed > stored * COMPRESSION_MAX)
            ok =
                snap_fail(err, file, layout_hint,
                          "%s/%s claims %llu x %llu values but stores only %.0f bytes", gname, name,
                          (unsigned long long)ds->rows, (unsigned long long)ds->cols, stored);
    }
    hclose(type);
    hclose(space);
    if (!ok) {
        hclose(ds->id);
        ds->id = -1;
    }
    return ok;
}

/* Reads rows x cols doubles of an opened dataset into a malloc'd buffer. */
static double *read_doubles(const dset_info *ds, const char *gname, const char *name,
                            const char *file, snap_error *err) {
    size_t n = (size_t)ds->rows * (size_t)ds->cols;
    double *buf = malloc((n ? n : 1) * sizeof *buf);
    if (!buf) {
        snap_fail(err, file, "free some memory, or load a smaller snapshot",
                  "cannot allocate %zu values for %s/%s", n, gname, name);
        return NULL;
    }
    if (n && H5Dread(ds->id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        free(buf);
        snap_fail(err, file, "the file is damaged; copy it again", "cannot read %s/%s", gname,
                  name);
        return NULL;
    }
    return buf;
}

/* Units from GADGET-4/AREPO attributes in /Header or /Parameters, or SWIFT's
 * /Units group; also whether the run is cosmological and its h. */
static bool read_units(hid_t file_id, hid_t header, const char *file, snap_units *u,
                       snap_error *err) {
    static const char *const gadget_names[3] = {"UnitLength_in_cm", "UnitMass_in_g",
                                                "UnitVelocity_in_cm_per_s"};
    static const char *const swift_names[3] = {"Unit length in cgs (U_L)", "Unit mass in cgs (U_M)",
                                               "Unit time in cgs (U_t)"};
    hid_t params = open_group(file_id, "Parameters");
    hid_t units = open_group(file_id, "Units");
    const hid_t locs[3] = {header, params, units};
    const char *const where[3] = {"/Header", "/Parameters", "/Units"};
    bool ok = true;
    for (int l = 0; l < 3 && ok && !u->known; l++) {
        const char *const *names = l == 2 ? swift_names : gadget_names;
        double v[3];
        int found = 0;
        for (int k = 0; k < 3 && ok; k++) {
            int n = attr_scalar(locs[l], names[k], &v[k], file, where[l], err);
            ok = n >= 0;
            found += n > 0;
            if (ok && n > 0 && !(isfinite(v[k]) && v[k] > 0))
                ok = snap_fail(err, file, "the file's unit attributes are damaged",
                               "%s/%s is %g, expected a positive number", where[l], names[k], v[k]);
        }
        if (ok && found == 3) {
            u->known = true;
            u->length_cm = v[0];
            u->mass_g = v[1];
            u->velocity_cm_s = l == 2 ? v[0] / v[2] : v[2];
        }
    }
    /* A cosmological run, and whether lengths and masses carry 1/h. */
    double flag = 0, omega0 = 0, omega_lambda = 0, h = 0;
    if (ok && attr_scalar(params, "ComovingIntegrationOn", &flag, file, "/Parameters", err) > 0)
        u->comoving = flag != 0;
    else if (ok && has_link(file_id, "Cosmology")) {
        hid_t cosmo = H5Gopen2(file_id, "Cosmology", H5P_DEFAULT);
        ok = attr_scalar(cosmo, "Cosmological run", &flag, file, "/Cosmology", err) >= 0;
        u->comoving = ok && flag != 0;
        hclose(cosmo);
    } else if (ok) {
        ok = attr_scalar(header, "Omega0", &omega0, file, "/Header", err) >= 0 &&
             attr_scalar(header, "OmegaLambda", &omega_lambda, file, "/Header", err) >= 0;
        u->comoving = omega0 > 0 || omega_lambda > 0;
    }
    u->hubble = 1;
    bool swift = units >= 0;
    if (ok && u->comoving && !swift) { /* lengths and masses per h: h is divided out */
        const char *h_where = "/Header";
        int n = attr_scalar(header, "HubbleParam", &h, file, h_where, err);
        if (n == 0) n = attr_scalar(params, "HubbleParam", &h, file, h_where = "/Parameters", err);
        ok = n >= 0;
        if (n > 0 && !(isfinite(h) && h > 0))
            ok = snap_fail(err, file,
                           "a cosmological run's lengths and masses are per h; the file's h is "
                           "damaged",
                           "%s/HubbleParam is %g, expected a positive number", h_where, h);
        else if (n > 0)
            u->hubble = h;
    }
    hclose(params);
    hclose(units);
    return ok;
}

/* A fixed-length string attribute of /Nbody into out (size bytes with the
 * NUL), unprintable characters as '?'. 0: absent; -1: not such a string
 * (*err set); 1: read. */
static int read_string_attr(hid_t g, const char *name, char *out, size_t size, const char *file,
                            snap_error *err) {
    if (g < 0 || H5Aexists(g, name) <= 0) return 0;
    hid_t a = H5Aopen(g, name, H5P_DEFAULT);
    hid_t type = a >= 0 ? H5Aget_type(a) : -1;
    size_t len = type >= 0 ? H5Tget_size(type) : 0;
    int got = -1;
    char buf[256] = {0};
    if (type < 0 || H5Tget_class(type) != H5T_STRING || H5Tis_variable_str(type) || len == 0 ||
        len >= size || len >= sizeof buf)
        snap_fail(err, file, "the /Nbody group is damaged; delete it to load the bodies alone",
                  "/Nbody/%s is not a short fixed-length string", name);
    else {
        hid_t mem = H5Tcopy(H5T_C_S1);
        H5Tset_size(mem, len);
        if (H5Aread(a, mem, buf) >= 0) {
            buf[len] = '\0';
            for (char *c = buf; *c; c++)
                if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e) *c = '?';
            memcpy(out, buf, len + 1);
            got = 1;
        } else
            snap_fail(err, file, "the /Nbody group is damaged; delete it to load the bodies alone",
                      "cannot read /Nbody/%s", name);
        hclose(mem);
    }
    hclose(type);
    hclose(a);
    return got;
}

/* Our /Nbody group: knobs and the unit system in words. */
static bool read_knobs(hid_t file_id, const char *file, snap_data *out, snap_error *err) {
    snap_knobs *k = &out->knobs;
    hid_t g = open_group(file_id, "Nbody");
    if (g < 0) return true;
    static const char *const names[5] = {"Dt", "Softening", "Damping", "Theta", "Steps"};
    double v[5] = {0};
    bool ok = read_string_attr(g, "UnitSystem", out->units.system, sizeof out->units.system, file,
                               err) >= 0;
    if (ok && H5Aexists(g, "Dt") <= 0) { /* a save without knobs: tags and order only */
        hclose(g);
        return true;
    }
    for (int i = 0; i < 5 && ok; i++) {
        int n = attr_scalar(g, names[i], &v[i], file, "/Nbody", err);
        ok = n > 0 && isfinite(v[i]);
        if (n == 0 || (n > 0 && !ok))
            snap_fail(err, file, "the /Nbody group is damaged; delete it to load the bodies alone",
                      "/Nbody/%s is missing or not finite", names[i]);
    }
    if (ok) ok = read_string_attr(g, "Scene", k->scene, sizeof k->scene, file, err) >= 0;
    hclose(g);
    if (!ok) return false;
    k->valid = true;
    k->dt = v[0];
    k->softening = v[1];
    k->damping = v[2];
    k->theta = v[3];
    k->steps = v[4] >= 0 && v[4] < 9.2e18 ? (int64_t)v[4] : 0;
    return true;
}

/* One /PartTypeN group; of ours also NbodyComponent and NbodyGalaxy, or, in
 * saves from before they existed, NbodyTag (galaxy | component << 2). */
typedef struct part_type {
    hid_t group;
    dset_info pos, vel, mass, ids, comp, galaxy, tag, index;
    int64_t count;
} part_type;

static void close_type(part_type *p) {
    dset_info *const sets[8] = {&p->pos, &p->vel,    &p->mass, &p->ids,
                                &p->comp, &p->galaxy, &p->tag,  &p->index};
    for (int i = 0; i < 8; i++) {
        hclose(sets[i]->id);
        sets[i]->id = -1;
    }
    hclose(p->group);
    p->group = -1;
}

/* true when ds is open and not a column of rows values. */
static bool bad_column(const dset_info *ds, hsize_t rows) {
    return ds->id >= 0 && (ds->rows != rows || ds->cols != 1);
}

/* Opens /PartType<t> and checks its datasets' shapes against count (from
 * NumPart_ThisFile, or -1 to take the Coordinates' rows). */
static bool open_type(hid_t file_id, int t, int64_t count, const double *mass_table, bool ours,
                      part_type *p, const char *file, snap_error *err) {
    char gname[24];
    snprintf(gname, sizeof gname, "PartType%d", t);
    p->count = 0;
    if (!has_link(file_id, gname)) {
        if (count > 0)
            return snap_fail(err, file, layout_hint,
                             "/Header NumPart_ThisFile says %lld PartType%d particles but there is "
                             "no /%s group",
                             (long long)count, t, gname);
        return true;
    }
    if (object_kind(file_id, gname) != H5I_GROUP)
        return snap_fail(err, file, layout_hint, "/%s is not a group", gname);
    p->group = H5Gopen2(file_id, gname, H5P_DEFAULT);
    if (p->group < 0) return snap_fail(err, file, layout_hint, "cannot open /%s", gname);
    if (count == 0) return true; /* an empty type's datasets are not read */
    if (!open_dataset(p->group, gname, "Coordinates", &p->pos, file, err) ||
        !open_dataset(p->group, gname, "Velocities", &p->vel, file, err) ||
        !open_dataset(p->group, gname, "Masses", &p->mass, file, err))
        return false;
    if (!open_dataset(p->group, gname, "ParticleIDs", &p->ids, file, err)) return false;
    if (ours && (!open_dataset(p->group, gname, "NbodyIndex", &p->index, file, err) ||
                 !open_dataset(p->group, gname, "NbodyComponent", &p->comp, file, err) ||
                 !open_dataset(p->group, gname, "NbodyGalaxy", &p->galaxy, file, err) ||
                 !open_dataset(p->group, gname, "NbodyTag", &p->tag, file, err)))
        return false;
    if (p->pos.id < 0)
        return snap_fail(err, file, layout_hint, "/%s has no Coordinates dataset", gname);
    if (p->vel.id < 0)
        return snap_fail(err, file, layout_hint, "/%s has no Velocities dataset", gname);
    int64_t rows = (int64_t)p->pos.rows;
    if (count >= 0 && rows != count)
        return snap_fail(err, file, layout_hint,
                         "/%s/Coordinates has %lld rows but /Header NumPart_ThisFile says %lld",
                         gname, (long long)rows, (long long)count);
    if (p->pos.cols != 3 || p->vel.cols != 3 || p->vel.rows != p->pos.rows)
        return snap_fail(err, file, layout_hint,
                         "/%s: Coordinates is %llu x %llu and Velocities %llu x %llu, expected "
                         "%lld x 3 each",
                         gname, (unsigned long long)p->pos.rows, (unsigned long long)p->pos.cols,
                         (unsigned long long)p->vel.rows, (unsigned long long)p->vel.cols,
                         (long long)rows);
    if (p->mass.id >= 0 && (p->mass.rows != p->pos.rows || p->mass.cols != 1))
        return snap_fail(err, file, layout_hint, "/%s/Masses has %llu x %llu values, expected %lld",
                         gname, (unsigned long long)p->mass.rows, (unsigned long long)p->mass.cols,
                         (long long)rows);
    if (p->mass.id < 0 && !(mass_table[t] > 0))
        return snap_fail(err, file, layout_hint,
                         "/%s has no Masses dataset and /Header MassTable[%d] is %g", gname, t,
                         mass_table[t]);
    if (bad_column(&p->ids, p->pos.rows))
        return snap_fail(err, file, "the file is damaged; copy it again",
                         "/%s/ParticleIDs has %llu x %llu values, expected %lld", gname,
                         (unsigned long long)p->ids.rows, (unsigned long long)p->ids.cols,
                         (long long)rows);
    if (ours && (bad_column(&p->index, p->pos.rows) || bad_column(&p->comp, p->pos.rows) ||
                 bad_column(&p->galaxy, p->pos.rows) || bad_column(&p->tag, p->pos.rows)))
        return snap_fail(err, file, "the /Nbody data is damaged; delete /Nbody to load the bodies",
                         "/%s/NbodyIndex, NbodyComponent, NbodyGalaxy or NbodyTag does not match "
                         "Coordinates",
                         gname);
    if (ours && p->ids.id < 0 && p->index.id < 0)
        return snap_fail(err, file, "the /Nbody data is damaged; delete /Nbody to load the bodies",
                         "/%s has neither ParticleIDs nor NbodyIndex", gname);
    if (ours && (p->comp.id >= 0) != (p->galaxy.id >= 0))
        return snap_fail(err, file, "the /Nbody data is damaged; delete /Nbody to load the bodies",
                         "/%s has one of NbodyComponent and NbodyGalaxy without the other", gname);
    p->count = rows;
    return true;
}

/* Reads an optional dataset of ours (NULL, and true, when absent). */
static bool read_optional(const dset_info *ds, const char *gname, const char *name,
                          const char *file, double **out, snap_error *err) {
    *out = ds->id >= 0 ? read_doubles(ds, gname, name, file, err) : NULL;
    return ds->id < 0 || *out;
}

/* Reads an opened column as unsigned 64-bit integers (HDF5 converts any
 * integer type exactly) into dst. */
static bool read_u64(const dset_info *ds, const char *gname, const char *name, uint64_t *dst,
                     const char *file, snap_error *err) {
    if (ds->rows && H5Dread(ds->id, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, dst) < 0)
        return snap_fail(err, file, "the file is damaged; copy it again", "cannot read %s/%s",
                         gname, name);
    return true;
}

/* Fills the bodies of one type at out->bodies + first (and out->ids + first
 * when out->ids). Ours: order[first + i] is the body's index in the save
 * (NbodyIndex, else ParticleIDs), -1 where that is no index. */
static bool read_type(const part_type *p, int t, const double *mass_table, snap_data *out,
                      int64_t first, bool ours, int64_t *order, const char *file, snap_error *err) {
    char gname[24];
    snprintf(gname, sizeof gname, "PartType%d", t);
    double *pos = read_doubles(&p->pos, gname, "Coordinates", file, err);
    double *vel = pos ? read_doubles(&p->vel, gname, "Velocities", file, err) : NULL;
    double *mass = NULL, *ids = NULL, *comp = NULL, *galaxy = NULL, *tag = NULL;
    bool ok = vel && read_optional(&p->mass, gname, "Masses", file, &mass, err);
    if (ok && out->ids)
        ok = read_u64(&p->ids, gname, "ParticleIDs", out->ids + first, file, err);
    const bool by_index = p->index.id >= 0;
    if (ours)
        ok = ok &&
             read_optional(by_index ? &p->index : &p->ids, gname,
                           by_index ? "NbodyIndex" : "ParticleIDs", file, &ids, err) &&
             read_optional(&p->comp, gname, "NbodyComponent", file, &comp, err) &&
             read_optional(&p->galaxy, gname, "NbodyGalaxy", file, &galaxy, err) &&
             read_optional(&p->tag, gname, "NbodyTag", file, &tag, err);
    for (int64_t i = 0; ok && i < p->count; i++) {
        snap_body *b = &out->bodies[first + i];
        for (int a = 0; a < 3; a++) {
            b->pos[a] = pos[3 * i + a];
            b->vel[a] = vel[3 * i + a];
        }
        b->mass = mass ? mass[i] : mass_table[t];
        b->tag = snap_gadget_tag(t == 6 ? 5 : t);
        if (comp && galaxy) {
            if (!(comp[i] == 0 || comp[i] == 1 || comp[i] == 2) ||
                !(galaxy[i] == 0 || galaxy[i] == 1 || galaxy[i] == 2 || galaxy[i] == 3))
                ok = snap_fail(err, file, "the /Nbody data is damaged; delete /Nbody",
                               "/%s body %lld has NbodyComponent %g and NbodyGalaxy %g, expected "
                               "0-2 and 0-3",
                               gname, (long long)i, comp[i], galaxy[i]);
            else
                b->tag = SNAP_TAG((unsigned)galaxy[i], (unsigned)comp[i]);
        } else if (tag) {
            if (!(tag[i] >= 0 && tag[i] <= 15) || SNAP_TAG_COMPONENT((unsigned)tag[i]) > 2)
                ok = snap_fail(err, file, "the /Nbody data is damaged; delete /Nbody",
                               "/%s/NbodyTag[%lld] is %g, not a tag", gname, (long long)i, tag[i]);
            else
                b->tag = (uint8_t)tag[i];
        }
        if (order)
            order[first + i] = ids && ids[i] >= 0 && ids[i] < 2147483648.0 ? (int64_t)ids[i] : -1;
    }
    free(pos);
    free(vel);
    free(mass);
    free(ids);
    free(comp);
    free(galaxy);
    free(tag);
    return ok;
}

bool snap_hdf5_read_part(const char *path, snap_data *out, int *num_files_out, snap_error *err) {
    memset(out, 0, sizeof *out);
    *num_files_out = 1;
    /* HDF5 prints its error stack by default; we report our own lines. */
    H5E_auto2_t old_func;
    void *old_data;
    H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

    part_type types[HDF5_TYPES];
    for (int t = 0; t < HDF5_TYPES; t++)
        types[t] = (part_type){.group = -1,
                               .pos.id = -1,
                               .vel.id = -1,
                               .mass.id = -1,
                               .ids.id = -1,
                               .index.id = -1,
                               .comp.id = -1,
                               .galaxy.id = -1,
                               .tag.id = -1};
    int64_t *order = NULL;
    hid_t header = -1;
    hid_t file_id = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    bool ok = file_id >= 0;
    if (!ok)
        snap_fail(err, path,
                  "the file is damaged or truncated (copy it again), or a running simulation "
                  "holds it open (then set HDF5_USE_FILE_LOCKING=FALSE)",
                  "cannot open as HDF5 (it has the HDF5 signature)");
    if (ok && !has_link(file_id, "Header"))
        ok = snap_fail(err, path, layout_hint, "has no /Header group");
    if (ok && object_kind(file_id, "Header") != H5I_GROUP)
        ok = snap_fail(err, path, layout_hint, "/Header is not a group");
    if (ok) header = H5Gopen2(file_id, "Header", H5P_DEFAULT);
    double counts[ATTR_MAX] = {0}, mass_table[ATTR_MAX] = {0}, num_files = 1, time = 0;
    int ncounts = 0;
    if (ok) {
        ncounts = attr_doubles(header, "NumPart_ThisFile", counts, ATTR_MAX, path, "/Header", err);
        int nmass = ncounts >= 0 ? attr_doubles(header, "MassTable", mass_table, ATTR_MAX, path,
                                                "/Header", err)
                                 : -1;
        ok = ncounts >= 0 && nmass >= 0 &&
             attr_scalar(header, "Time", &time, path, "/Header", err) >= 0 &&
             attr_scalar(header, "NumFilesPerSnapshot", &num_files, path, "/Header", err) >= 0;
        for (int t = 0; ok && t < ncounts && t < HDF5_TYPES; t++)
            if (!(counts[t] >= 0 && counts[t] <= SNAP_MAX_BODIES))
                ok = snap_fail(err, path, layout_hint, "/Header NumPart_ThisFile[%d] is %g", t,
                               counts[t]);
        for (int t = 0; ok && t < nmass && t < HDF5_TYPES; t++)
            if (!(isfinite(mass_table[t]) && mass_table[t] >= 0))
                ok = snap_fail(err, path, layout_hint, "/Header MassTable[%d] is %g", t,
                               mass_table[t]);
        if (ok && !isfinite(time))
            ok = snap_fail(err, path, layout_hint, "/Header Time is %g", time);
        if (ok && !(num_files >= 1 && num_files <= 65536))
            ok = snap_fail(err, path, layout_hint, "/Header NumFilesPerSnapshot is %g", num_files);
        else if (ok)
            *num_files_out = (int)num_files;
    }
    bool ours = ok && object_kind(file_id, "Nbody") == H5I_GROUP;
    int64_t total = 0;
    for (int t = 0; ok && t < HDF5_TYPES; t++) {
        int64_t want = ncounts > 0 ? (t < ncounts ? (int64_t)counts[t] : 0) : -1;
        ok = open_type(file_id, t, want, mass_table, ours, &types[t], path, err);
        total += types[t].count;
        if (ok && total > SNAP_MAX_BODIES)
            ok = snap_fail(err, path, layout_hint, "holds more than %d particles", SNAP_MAX_BODIES);
    }
    if (ok && total == 0)
        ok = snap_fail(err, path, layout_hint, "has no particles in /PartType0../PartType6");
    bool all_ids = true; /* every type with particles has ParticleIDs */
    for (int t = 0; t < HDF5_TYPES; t++) all_ids = all_ids && (types[t].count == 0 || types[t].ids.id >= 0);
    if (ok) {
        out->bodies = calloc((size_t)total, sizeof *out->bodies);
        order = ours ? malloc((size_t)total * sizeof *order) : NULL;
        out->ids = all_ids ? malloc((size_t)total * sizeof *out->ids) : NULL;
        if (!out->bodies || (ours && !order) || (all_ids && !out->ids))
            ok = snap_fail(err, path, "free some memory, or load a smaller snapshot",
                           "cannot allocate %lld bodies", (long long)total);
    }
    int64_t first = 0;
    for (int t = 0; ok && t < HDF5_TYPES; t++) {
        if (types[t].count > 0)
            ok = read_type(&types[t], t, mass_table, out, first, ours, order, path, err);
        if (t < 6) out->type_counts[t] = (int)types[t].count;
        first += types[t].count;
    }
    if (ok) {
        out->count = (int)total;
        out->time = time;
        out->format = SNAP_FORMAT_HDF5;
        ok = read_units(file_id, header, path, &out->units, err) &&
             read_knobs(file_id, path, out, err);
    }
    /* Ours: NbodyIndex (or, without it, ParticleIDs) is each body's index in
     * the saved state; put them back, with their IDs. */
    if (ok && ours) {
        snap_body *sorted = malloc((size_t)total * sizeof *sorted);
        uint64_t *sorted_ids = out->ids ? malloc((size_t)total * sizeof *sorted_ids) : NULL;
        bool *seen = calloc((size_t)total, 1);
        ok = sorted && seen && (!out->ids || sorted_ids);
        if (!ok) snap_fail(err, path, "free some memory", "out of memory");
        for (int64_t i = 0; ok && i < total; i++) {
            int64_t j = order[i];
            if (j < 0 || j >= total || seen[j])
                ok = snap_fail(err, path, "the /Nbody data is damaged; delete /Nbody",
                               "NbodyIndex (or ParticleIDs) are not the indices 0..%lld",
                               (long long)total - 1);
            else {
                seen[j] = true;
                sorted[j] = out->bodies[i];
                if (sorted_ids) sorted_ids[j] = out->ids[i];
            }
        }
        if (ok) {
            free(out->bodies);
            out->bodies = sorted;
            free(out->ids);
            out->ids = sorted_ids;
        } else {
            free(sorted);
            free(sorted_ids);
        }
        free(seen);
    }
    free(order);
    for (int t = 0; t < HDF5_TYPES; t++) close_type(&types[t]);
    hclose(header);
    hclose(file_id);
    H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
    if (!ok) snap_free(out);
    return ok;
}

/* --- writer -------------------------------------------------------------------- */

/* An attribute of n elements (n = 0: a scalar). */
static bool write_attr(hid_t loc, const char *name, hid_t type, int n, const void *v) {
    hsize_t dim = (hsize_t)n;
    hid_t space = n > 0 ? H5Screate_simple(1, &dim, NULL) : H5Screate(H5S_SCALAR);
    hid_t a = space >= 0 ? H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
    bool ok = a >= 0 && H5Awrite(a, type, v) >= 0;
    hclose(a);
    hclose(space);
    return ok;
}

/* A fixed-length string attribute of size bytes (at least 1), text NUL-padded. */
static bool write_string_attr(hid_t loc, const char *name, const char *text, size_t size) {
    char buf[256] = {0};
    if (size == 0) size = 1;
    if (size > sizeof buf) size = sizeof buf;
    strncpy(buf, text, size);
    hid_t str = H5Tcopy(H5T_C_S1);
    bool ok = str >= 0 && H5Tset_size(str, size) >= 0 && write_attr(loc, name, str, 0, buf);
    hclose(str);
    return ok;
}

/* SWIFT's description of a dataset's units, which swiftsimio needs to read
 * it and pynbody's SWIFT reader uses: the exponents of the length, mass and
 * time units (current and temperature 0), no a or h factors (physical, not
 * comoving), and the factor to cgs. */
typedef struct field_units {
    double length, mass, time; /* exponents of U_L, U_M, U_t */
    const char *description;
} field_units;

static bool write_field_units(hid_t d, const field_units *f, const snap_units *u) {
    const double time_s = u->length_cm / u->velocity_cm_s;
    const double cgs =
        pow(u->length_cm, f->length) * pow(u->mass_g, f->mass) * pow(time_s, f->time);
    const double zero = 0;
    const int32_t physical = 1, convertible = 0;
    return write_attr(d, "U_L exponent", H5T_NATIVE_DOUBLE, 1, &f->length) &&
           write_attr(d, "U_M exponent", H5T_NATIVE_DOUBLE, 1, &f->mass) &&
           write_attr(d, "U_t exponent", H5T_NATIVE_DOUBLE, 1, &f->time) &&
           write_attr(d, "U_I exponent", H5T_NATIVE_DOUBLE, 1, &zero) &&
           write_attr(d, "U_T exponent", H5T_NATIVE_DOUBLE, 1, &zero) &&
           write_attr(d, "a-scale exponent", H5T_NATIVE_DOUBLE, 1, &zero) &&
           write_attr(d, "h-scale exponent", H5T_NATIVE_DOUBLE, 1, &zero) &&
           write_attr(d, "Conversion factor to CGS (not including cosmological corrections)",
                      H5T_NATIVE_DOUBLE, 1, &cgs) &&
           write_attr(d, "Conversion factor to physical CGS (including cosmological corrections)",
                      H5T_NATIVE_DOUBLE, 1, &cgs) &&
           write_attr(d, "Value stored as physical", H5T_NATIVE_INT32, 1, &physical) &&
           write_attr(d, "Property can be converted to comoving", H5T_NATIVE_INT32, 1,
                      &convertible) &&
           write_string_attr(d, "Description", f->description, strlen(f->description));
}

static bool write_dataset(hid_t loc, const char *name, hid_t type, hsize_t rows, hsize_t cols,
                          const void *v, const field_units *f, const snap_units *u) {
    hsize_t dims[2] = {rows, cols};
    hid_t space = H5Screate_simple(cols > 1 ? 2 : 1, dims, NULL);
    hid_t d =
        space >= 0 ? H5Dcreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    bool ok = d >= 0 && H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0 &&
              write_field_units(d, f, u);
    hclose(d);
    hclose(space);
    return ok;
}

/* The file type that holds a body: 1 (dark matter) the halo, 4 (stars) disk and bulge, as
 * GADGET, AREPO and SWIFT number them and pynbody and swiftsimio name them. */
enum { TYPE_HALO = 1, TYPE_STARS = 4 };

static int file_type(uint8_t tag) {
    return SNAP_TAG_COMPONENT(tag) == SNAP_COMPONENT_HALO ? TYPE_HALO : TYPE_STARS;
}

static const field_units coordinates_units = {1, 0, 0, "Positions of the particles"},
                         velocities_units = {1, 0, -1, "Velocities of the particles"},
                         masses_units = {0, 1, 0, "Masses of the particles"},
                         ids_units = {0, 0, 0, "ID of the particle (nbody: its index where it has no other)"},
                         index_units = {0, 0, 0, "Index of the particle in nbody's state"},
                         component_units = {0, 0, 0, "nbody's component: 0 disk, 1 bulge, 2 halo"},
                         galaxy_units = {0, 0, 0, "nbody's galaxy: 0 to 3"};

static bool write_types(hid_t f, const snap_data *d) {
    bool ok = true;
    const int types[2] = {TYPE_HALO, TYPE_STARS};
    for (int k = 0; k < 2 && ok; k++) {
        const int t = types[k];
        size_t n = 0;
        for (int i = 0; i < d->count; i++) n += file_type(d->bodies[i].tag) == t;
        if (n == 0) continue;
        double *pos = malloc(n * 3 * sizeof *pos), *vel = malloc(n * 3 * sizeof *vel);
        double *mass = malloc(n * sizeof *mass);
        uint64_t *ids = malloc(n * sizeof *ids), *index = malloc(n * sizeof *index);
        uint8_t *comp = malloc(n), *galaxy = malloc(n);
        ok = pos && vel && mass && ids && index && comp && galaxy;
        size_t j = 0;
        for (int i = 0; ok && i < d->count; i++) {
            const snap_body *b = &d->bodies[i];
            if (file_type(b->tag) != t) continue;
            for (int a = 0; a < 3; a++) {
                pos[3 * j + a] = b->pos[a];
                vel[3 * j + a] = b->vel[a];
            }
            mass[j] = b->mass;
            ids[j] = d->ids ? d->ids[i] : (uint64_t)i;
            index[j] = (uint64_t)i;
            comp[j] = (uint8_t)SNAP_TAG_COMPONENT(b->tag);
            galaxy[j] = (uint8_t)SNAP_TAG_GALAXY(b->tag);
            j++;
        }
        char gname[24];
        snprintf(gname, sizeof gname, "PartType%d", t);
        const snap_units *u = &d->units;
        hid_t g = ok ? H5Gcreate2(f, gname, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
        ok =
            g >= 0 &&
            write_dataset(g, "Coordinates", H5T_NATIVE_DOUBLE, n, 3, pos, &coordinates_units, u) &&
            write_dataset(g, "Velocities", H5T_NATIVE_DOUBLE, n, 3, vel, &velocities_units, u) &&
            write_dataset(g, "Masses", H5T_NATIVE_DOUBLE, n, 1, mass, &masses_units, u) &&
            write_dataset(g, "ParticleIDs", H5T_NATIVE_UINT64, n, 1, ids, &ids_units, u) &&
            (!d->ids ||
             write_dataset(g, "NbodyIndex", H5T_NATIVE_UINT64, n, 1, index, &index_units, u)) &&
            write_dataset(g, "NbodyComponent", H5T_NATIVE_UINT8, n, 1, comp, &component_units, u) &&
            write_dataset(g, "NbodyGalaxy", H5T_NATIVE_UINT8, n, 1, galaxy, &galaxy_units, u);
        hclose(g);
        free(pos);
        free(vel);
        free(mass);
        free(ids);
        free(index);
        free(comp);
        free(galaxy);
    }
    return ok;
}

/* /Header in GADGET's names, with the SWIFT ones swiftsimio needs (Time,
 * Redshift, Scale-factor and Dimension as 1-element arrays), the units in
 * GADGET-4/AREPO's names; no HubbleParam or Omega0: not a cosmological run. */
static bool write_header(hid_t f, const snap_data *d) {
    hid_t h = H5Gcreate2(f, "Header", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int32_t npart[6] = {0};
    uint32_t total[6] = {0}, high[6] = {0};
    for (int i = 0; i < d->count; i++) npart[file_type(d->bodies[i].tag)]++;
    for (int t = 0; t < 6; t++) total[t] = (uint32_t)npart[t];
    const double zeros[6] = {0}, one = 1;
    const int32_t files = 1, dimension = 3;
    const snap_units *u = &d->units;
    bool ok = h >= 0 && write_attr(h, "NumPart_ThisFile", H5T_NATIVE_INT32, 6, npart) &&
              write_attr(h, "NumPart_Total", H5T_NATIVE_UINT32, 6, total) &&
              write_attr(h, "NumPart_Total_HighWord", H5T_NATIVE_UINT32, 6, high) &&
              write_attr(h, "MassTable", H5T_NATIVE_DOUBLE, 6, zeros) &&
              write_attr(h, "Time", H5T_NATIVE_DOUBLE, 1, &d->time) &&
              write_attr(h, "Redshift", H5T_NATIVE_DOUBLE, 1, zeros) &&
              write_attr(h, "Scale-factor", H5T_NATIVE_DOUBLE, 1, &one) &&
              write_attr(h, "Dimension", H5T_NATIVE_INT32, 1, &dimension) &&
              write_attr(h, "BoxSize", H5T_NATIVE_DOUBLE, 3, zeros) &&
              write_attr(h, "NumFilesPerSnapshot", H5T_NATIVE_INT32, 0, &files) &&
              write_attr(h, "UnitLength_in_cm", H5T_NATIVE_DOUBLE, 0, &u->length_cm) &&
              write_attr(h, "UnitMass_in_g", H5T_NATIVE_DOUBLE, 0, &u->mass_g) &&
              write_attr(h, "UnitVelocity_in_cm_per_s", H5T_NATIVE_DOUBLE, 0, &u->velocity_cm_s);
    hclose(h);
    return ok;
}

/* What SWIFT writes beside the header and swiftsimio or pynbody's SWIFT
 * reader open: /Units (and /InternalCodeUnits, the same) with exactly
 * SWIFT's five cgs units (swiftsimio refuses any other attribute there),
 * /Cosmology saying this is no cosmological run, and the /Policy (pynbody's
 * sign of a SWIFT file) and /Parameters groups, empty. */
static bool write_swift_groups(hid_t f, const snap_units *u) {
    const double time_s = u->length_cm / u->velocity_cm_s, one = 1;
    const int32_t no = 0;
    hid_t units = H5Gcreate2(f, "Units", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    bool ok = units >= 0 &&
              write_attr(units, "Unit length in cgs (U_L)", H5T_NATIVE_DOUBLE, 1, &u->length_cm) &&
              write_attr(units, "Unit mass in cgs (U_M)", H5T_NATIVE_DOUBLE, 1, &u->mass_g) &&
              write_attr(units, "Unit time in cgs (U_t)", H5T_NATIVE_DOUBLE, 1, &time_s) &&
              write_attr(units, "Unit current in cgs (U_I)", H5T_NATIVE_DOUBLE, 1, &one) &&
              write_attr(units, "Unit temperature in cgs (U_T)", H5T_NATIVE_DOUBLE, 1, &one) &&
              H5Lcreate_hard(f, "Units", f, "InternalCodeUnits", H5P_DEFAULT, H5P_DEFAULT) >= 0;
    hclose(units);
    hid_t cosmo = ok ? H5Gcreate2(f, "Cosmology", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    ok = cosmo >= 0 && write_attr(cosmo, "Cosmological run", H5T_NATIVE_INT32, 1, &no);
    hclose(cosmo);
    const char *const empty[2] = {"Policy", "Parameters"};
    for (int i = 0; i < 2 && ok; i++) {
        hid_t g = H5Gcreate2(f, empty[i], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        ok = g >= 0;
        hclose(g);
    }
    return ok;
}

/* /Nbody marks the file as ours (the reader then restores tags and order):
 * the unit system in words, and the knobs when the state has them. */
static bool write_nbody(hid_t f, const snap_data *d) {
    hid_t g = H5Gcreate2(f, "Nbody", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    bool ok = g >= 0;
    if (ok && d->units.system[0])
        ok = write_string_attr(g, "UnitSystem", d->units.system,
                               strnlen(d->units.system, sizeof d->units.system - 1));
    if (ok && d->knobs.valid) {
        const double steps = (double)d->knobs.steps;
        ok = write_string_attr(g, "Scene", d->knobs.scene, sizeof d->knobs.scene - 1) &&
             write_attr(g, "Dt", H5T_NATIVE_DOUBLE, 0, &d->knobs.dt) &&
             write_attr(g, "Softening", H5T_NATIVE_DOUBLE, 0, &d->knobs.softening) &&
             write_attr(g, "Damping", H5T_NATIVE_DOUBLE, 0, &d->knobs.damping) &&
             write_attr(g, "Theta", H5T_NATIVE_DOUBLE, 0, &d->knobs.theta) &&
             write_attr(g, "Steps", H5T_NATIVE_DOUBLE, 0, &steps);
    }
    hclose(g);
    return ok;
}

bool snap_write_hdf5(const snap_data *d, uint8_t **buf, size_t *len, snap_error *err) {
    *buf = NULL;
    *len = 0;
    const char *name = "HDF5 output";
    if (!d || d->count <= 0 || !d->bodies)
        return snap_fail(err, name, "save a state with bodies", "no bodies to write");
    if (!snap_check_bodies(d, name, err)) return false;
    if (!isfinite(d->time))
        return snap_fail(err, name, "the simulation time is damaged", "time is %g", d->time);
    const snap_units *u = &d->units;
    if (!u->known || !(isfinite(u->length_cm) && u->length_cm > 0) ||
        !(isfinite(u->mass_g) && u->mass_g > 0) ||
        !(isfinite(u->velocity_cm_s) && u->velocity_cm_s > 0) ||
        !isfinite(u->length_cm / u->velocity_cm_s))
        return snap_fail(err, name, "give the state's units (snap_units) in cgs",
                         "no usable units to write (%g cm, %g g, %g cm/s)", u->length_cm, u->mass_g,
                         u->velocity_cm_s);
    H5E_auto2_t old_func;
    void *old_data;
    H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    bool ok = fapl >= 0 && H5Pset_fapl_core(fapl, 1 << 20, 0) >= 0; /* memory only */
    hid_t f =
        ok ? H5Fcreate("nbody-snapshot-in-memory.hdf5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl) : -1;
    ok = f >= 0 && write_header(f, d) && write_swift_groups(f, u) && write_types(f, d) &&
         write_nbody(f, d);
    if (ok && H5Fflush(f, H5F_SCOPE_GLOBAL) < 0) ok = false;
    ssize_t size = ok ? H5Fget_file_image(f, NULL, 0) : -1;
    uint8_t *image = size > 0 ? malloc((size_t)size) : NULL;
    if (image && H5Fget_file_image(f, image, (size_t)size) != size) {
        free(image);
        image = NULL;
    }
    hclose(f);
    hclose(fapl);
    H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
    if (!image)
        return snap_fail(err, name, "free some memory, and check the HDF5 library",
                         "building the HDF5 image in memory failed");
    *buf = image;
    *len = (size_t)size;
    return true;
}
