/* sim.c - the simulation context: defaults, validation, backend choice.
 *
 * Owns the knobs (dt, softening, damping, kernel variant, block shape) and
 * the simulated clock, and forwards the work to one backend (sim_cpu.c or
 * sim_cuda.cu) through sim_backend_ops. User-caused failures come back as a
 * NULL or false plus a sim_error with a message and a hint; nothing here
 * prints or exits.
 */
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

/* Step calls remembered to give the simulated time of a non-finite step
 * found after later calls (sim_nonfinite). */
#define STEP_HISTORY 64

typedef struct step_call {
    int64_t first_step; /* the steps counter before the call */
    int steps;
    double time0; /* the simulated time before it */
    double dt;
} step_call;

struct sim {
    const sim_backend_ops *ops;
    void *backend_state;
    sim_backend backend;
    sim_desc desc;         /* defaults filled in; IC parameters live here */
    sim_step_params knobs; /* live dt, softening, damping, variant, p, q */
    int want_p, want_q;    /* block shape as asked (0 = auto), re-clamped on change */
    uint8_t *tags;         /* per body, host copy (sim_get_tags) */
    uint32_t generation;   /* bumped whenever the bodies are replaced */
    sim_device_limits limits;
    int body_count;
    sim_ic ic;
    uint64_t seed;
    double time;
    int64_t steps;
    step_call calls[STEP_HISTORY]; /* the last step calls, a ring */
    int call_next;                 /* where the next call goes */
    int call_kept;                 /* calls in the ring since the bodies were replaced */
    int64_t nonfinite_step;        /* first non-finite step, 0: none seen */
    double nonfinite_time;
    /* sim_energy_queue: whether sums are queued, the state they are of,
     * and (a backend without a queue) the sums themselves. */
    bool energy_queued;
    uint32_t energy_generation;
    int64_t energy_steps;
    sim_step_params energy_knobs;
    sim_diag energy_sums;
    bool no_step_potentials; /* sim_set_step_potentials(false) */
    int draw_stride;         /* sim_set_draw_stride: 1 or more */
};

static const char *const ic_names[] = {"plummer", "plummer", "shell", "disk", "merger"};
_Static_assert(sizeof ic_names / sizeof ic_names[0] == SIM_IC_COUNT, "ic_names vs sim_ic");
static const char *const backend_names[] = {"auto", "cuda", "cpu"};
_Static_assert(sizeof backend_names / sizeof backend_names[0] == SIM_BACKEND_COUNT,
               "backend_names vs sim_backend");

static void set_error(sim_error *err, const char *hint, const char *fmt, ...) {
    if (!err) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    snprintf(err->hint, sizeof err->hint, "%s", hint);
}

/* One range per knob (sim.h). The ranges are wide enough for every scene
 * and narrow enough that a float holds every value and its products in a
 * step: dt and softening stay well inside float range, damping below 0.5
 * stops everything within a few steps, theta above 1 lets a cell's own
 * bodies be approximated by its multipole. */
static const sim_knob_info knobs[] = {
    [SIM_KNOB_BODY_COUNT] = {"n", "body count", "bodies", 1, 2147483647.0, false, true},
    [SIM_KNOB_DT] = {"dt", "time step", "model time units", 1e-6, 10, false, false},
    [SIM_KNOB_SOFTENING] = {"softening", "softening", "length units", 1e-6, 100, true, false},
    [SIM_KNOB_DAMPING] = {"damping", "damping", "velocity factor per step", 0.5, 1, false, false},
    [SIM_KNOB_THETA] = {"theta", "tree opening angle", "cell size / distance", 0.05, 1, false,
                        false},
    [SIM_KNOB_TREE_ALPHA] = {"tree-alpha", "tree relative tolerance", "error / |a|", 1e-4, 1, true,
                             false},
    [SIM_KNOB_P] = {"p", "p", "threads or bodies", 1, 1024, false, true},
    [SIM_KNOB_Q] = {"q", "q", "threads or blocks", 1, 1024, false, true},
    [SIM_KNOB_MASS_RATIO] = {"mass-ratio", "mass ratio", "M2 / M1", 0.01, 100, false, false},
    [SIM_KNOB_PERICENTER] = {"pericenter", "pericenter", "kpc", 1e-3, 1e5, false, false},
    [SIM_KNOB_SEPARATION] = {"separation", "separation", "kpc", 1e-3, 1e5, false, false},
    [SIM_KNOB_ECCENTRICITY] = {"eccentricity", "eccentricity", "", 1e-3, 10, false, false},
    [SIM_KNOB_INCL1] = {"incl1", "inclination of galaxy 1", "degrees", -360, 360, false, false},
    [SIM_KNOB_INCL2] = {"incl2", "inclination of galaxy 2", "degrees", -360, 360, false, false},
    [SIM_KNOB_DISK_TEMPERATURE] = {"disk-temperature", "disk temperature", "Toomre Q", 0.1, 10,
                                   false, false},
};
_Static_assert(sizeof knobs / sizeof knobs[0] == SIM_KNOB_COUNT, "one range per knob");

const sim_knob_info *sim_knob_get(sim_knob k) {
    assert((int)k >= 0 && k < SIM_KNOB_COUNT);
    return &knobs[k];
}

/* v in the shortest %g form that reads back as v, so that a message shows
 * the value that was checked, not a neighbour of it (app/base's
 * base_real_text does the same for the app, which sim/ cannot call). */
typedef struct real_text {
    char s[32];
} real_text;
static real_text text_of(double v) {
    real_text t;
    int digits = 1;
    while (digits < 17 && isfinite(v)) {
        snprintf(t.s, sizeof t.s, "%.*g", digits, v);
        if (strtod(t.s, NULL) == v) break;
        digits++;
    }
    /* A whole number below 10^17 in all its digits: 10, not 1e+01. */
    const double a = fabs(v);
    if (a >= 1 && a < 1e17 && a == floor(a)) {
        const int whole = (int)floor(log10(a)) + 1;
        if (whole > digits) digits = whole;
    }
    snprintf(t.s, sizeof t.s, "%.*g", digits, v);
    return t;
}

bool sim_knob_check(sim_knob k, double v, sim_error *err) {
    const sim_knob_info *i = sim_knob_get(k);
    char hint[160];
    snprintf(hint, sizeof hint, "%s takes %s%s%s .. %s%s%s", i->name,
             i->integer ? "a whole number " : "", i->zero_ok ? "0 or " : "", text_of(i->min).s,
             text_of(i->max).s, i->unit[0] ? " " : "", i->unit);
    if (!isfinite(v)) {
        set_error(err, hint, "%s %g is not a finite number", i->what, v);
        return false;
    }
    if (i->integer && v != floor(v)) {
        set_error(err, hint, "%s %s is not a whole number", i->what, text_of(v).s);
        return false;
    }
    if ((v == 0 && i->zero_ok) || (v >= i->min && v <= i->max)) return true;
    set_error(err, hint, "%s %s is out of range", i->what, text_of(v).s);
    return false;
}

sim_desc sim_desc_defaults(const sim_desc *desc) {
    sim_desc d = desc ? *desc : (sim_desc){0};
    if (d.body_count == 0) d.body_count = 16384;
    if (d.ic == SIM_IC_DEFAULT) d.ic = SIM_IC_PLUMMER;
    if (d.dt == 0) d.dt = 1.0 / 128.0;
    /* softening: 0 is legal (none) and stays 0 */
    if (d.damping == 0) d.damping = 1.0;
    if (d.gpus == 0) d.gpus = 1;
    if (d.theta == 0) {
        d.theta = d.backend == SIM_BACKEND_CPU ? SIM_THETA_DEFAULT_CPU : SIM_THETA_DEFAULT;
    }
    if (d.tree_alpha == 0) {
        d.tree_alpha =
            d.backend == SIM_BACKEND_CPU ? SIM_TREE_ALPHA_DEFAULT_CPU : SIM_TREE_ALPHA_DEFAULT;
    }
    if (d.tree_alpha < 0) d.tree_alpha = 0; /* off */
    if (d.variant == SIM_VARIANT_DEFAULT) d.variant = sim_variant_auto(d.body_count);
    if (d.shell.inner_radius == 0) d.shell.inner_radius = 0.625;
    if (d.shell.outer_radius == 0) d.shell.outer_radius = 1.0;
    if (d.shell.spin == 0) d.shell.spin = 0.6;
    sim_galaxy_desc *g = &d.galaxy;
    if (g->disk_mass == 0) g->disk_mass = 5.0;
    if (g->disk_scale == 0) g->disk_scale = 3.0;
    if (g->disk_height == 0) g->disk_height = 0.3;
    if (g->disk_temperature == 0) g->disk_temperature = 1.2;
    if (g->bulge_mass == 0) g->bulge_mass = 1.0;
    if (g->bulge_scale == 0) g->bulge_scale = 0.5;
    if (g->halo_mass == 0) g->halo_mass = 15.0;
    if (g->halo_scale == 0) g->halo_scale = 12.0;
    if (g->halo_cut == 0) g->halo_cut = 36.0;
    if (g->disk_fraction == 0) g->disk_fraction = 0.5;
    if (g->bulge_fraction == 0) g->bulge_fraction = 0.1;
    sim_merger_desc *m = &d.merger;
    if (m->mass_ratio == 0) m->mass_ratio = 1.0;
    if (m->pericenter == 0) m->pericenter = 8.0;
    if (m->separation == 0) m->separation = 80.0;
    if (m->eccentricity == 0) m->eccentricity = 1.0;
    return d; /* backend stays DEFAULT until sim_create picks one */
}

/* The checks a caller's values must pass; a failure names the field. */
static bool validate(const sim_desc *d, sim_error *err) {
    const struct {
        sim_knob k;
        double v;
    } values[] = {
        {SIM_KNOB_BODY_COUNT, d->body_count},
        {SIM_KNOB_DT, d->dt},
        {SIM_KNOB_SOFTENING, d->softening},
        {SIM_KNOB_DAMPING, d->damping},
        {SIM_KNOB_THETA, d->theta},
        {SIM_KNOB_TREE_ALPHA, d->tree_alpha},
        {SIM_KNOB_MASS_RATIO, d->merger.mass_ratio},
        {SIM_KNOB_PERICENTER, d->merger.pericenter},
        {SIM_KNOB_SEPARATION, d->merger.separation},
        {SIM_KNOB_ECCENTRICITY, d->merger.eccentricity},
        {SIM_KNOB_INCL1, d->merger.incl1},
        {SIM_KNOB_INCL2, d->merger.incl2},
        {SIM_KNOB_DISK_TEMPERATURE, d->galaxy.disk_temperature},
    };
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        if (!sim_knob_check(values[i].k, values[i].v, err)) return false;
    }
    if (d->p != 0 && !sim_knob_check(SIM_KNOB_P, d->p, err)) return false;
    if (d->q != 0 && !sim_knob_check(SIM_KNOB_Q, d->q, err)) return false;
    if ((int)d->ic < 0 || d->ic >= SIM_IC_COUNT) {
        set_error(err, "use one of the listed scenes", "unknown initial condition %d", d->ic);
        return false;
    }
    if ((int)d->backend < 0 || d->backend >= SIM_BACKEND_COUNT) {
        set_error(err, "use --backend cuda or cpu", "unknown backend %d", d->backend);
        return false;
    }
    if ((int)d->variant < 0 || d->variant >= SIM_VARIANT_COUNT) {
        set_error(err, "use one of the listed kernel variants", "unknown variant %d", d->variant);
        return false;
    }
    if (d->gpus < 1 || d->gpus > SIM_MAX_GPUS) {
        set_error(err, "pass --gpus from 1 to the number of GPUs (nvidia-smi lists them)",
                  "GPU count %d is outside [1, %d]", d->gpus, SIM_MAX_GPUS);
        return false;
    }
    if (d->gpus > 1 && d->backend == SIM_BACKEND_CPU) {
        set_error(err, "drop --gpus, or run on the CUDA backend",
                  "--gpus %d needs the CUDA backend; the CPU backend runs on the CPU", d->gpus);
        return false;
    }
    if (d->spread && d->backend == SIM_BACKEND_CPU) {
        set_error(err, "drop --spread, or run where a CUDA device is (nvidia-smi lists them)",
                  "--spread spreads the bodies over GPUs; this run is on the CPU backend");
        return false;
    }
    if (d->spread && d->gpus < 2) {
        set_error(err, "pass --gpus 2 or more with --spread, or drop --spread",
                  "--spread spreads the bodies over several GPUs; this run has %d", d->gpus);
        return false;
    }
    if (d->spread && sim_variant_resolve(d->variant) != SIM_VARIANT_TREE) {
        set_error(err, "run --spread with --variant tree",
                  "--spread runs only the tree; %s needs every body on each GPU",
                  sim_variant_info(d->variant)->name);
        return false;
    }
    const sim_galaxy_desc *g = &d->galaxy;
    if (!(g->disk_mass > 0 && g->bulge_mass > 0 && g->halo_mass > 0 && g->disk_scale > 0 &&
          g->disk_height > 0 && g->bulge_scale > 0 && g->halo_scale > 0 &&
          g->halo_cut > g->halo_scale && g->disk_temperature > 0)) {
        set_error(err, "galaxy masses, scales and the disk temperature must be positive",
                  "invalid galaxy parameters");
        return false;
    }
    if (!(g->disk_fraction > 0 && g->bulge_fraction > 0 &&
          g->disk_fraction + g->bulge_fraction < 1)) {
        set_error(err, "disk and bulge fractions are positive and leave some bodies for the halo",
                  "invalid body fractions %s, %s", text_of(g->disk_fraction).s,
                  text_of(g->bulge_fraction).s);
        return false;
    }
    const sim_merger_desc *m = &d->merger;
    if (!(m->separation >= m->pericenter)) {
        set_error(err, "the start separation must be at least the pericenter (both positive)",
                  "separation %s, pericenter %s, eccentricity %s do not make an orbit",
                  text_of(m->separation).s, text_of(m->pericenter).s, text_of(m->eccentricity).s);
        return false;
    }
    if (m->eccentricity < 1 &&
        m->separation > m->pericenter * (1 + m->eccentricity) / (1 - m->eccentricity) * 1.0001) {
        set_error(err, "start at or inside the apocenter r_p (1 + e) / (1 - e)",
                  "separation %s lies beyond the apocenter %s of a bound orbit (pericenter %s, "
                  "eccentricity %s)",
                  text_of(m->separation).s,
                  text_of(m->pericenter * (1 + m->eccentricity) / (1 - m->eccentricity)).s,
                  text_of(m->pericenter).s, text_of(m->eccentricity).s);
        return false;
    }
    if (!(d->shell.inner_radius > 0 && d->shell.inner_radius <= d->shell.outer_radius)) {
        set_error(err, "give the shell 0 < inner <= outer radius",
                  "shell radii %s..%s are not ordered", text_of(d->shell.inner_radius).s,
                  text_of(d->shell.outer_radius).s);
        return false;
    }
    return true;
}

bool sim_desc_check(const sim_desc *desc, sim_error *err) {
    const sim_desc d = sim_desc_defaults(desc);
    return validate(&d, err);
}

double sim_relative_error(const double a[3], const double exact[3]) {
    const double dx = a[0] - exact[0], dy = a[1] - exact[1], dz = a[2] - exact[2];
    const double diff = sqrt(dx * dx + dy * dy + dz * dz);
    const double ref = sqrt(exact[0] * exact[0] + exact[1] * exact[1] + exact[2] * exact[2]);
    return ref > 0 ? diff / ref : diff == 0 ? 0.0 : INFINITY;
}

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void sim_force_error_summary(double *rel, int n, sim_force_error *out) {
    *out = (sim_force_error){0};
    if (n <= 0) return;
    qsort(rel, (size_t)n, sizeof *rel, by_value);
    out->samples = n;
    out->median = n % 2 ? rel[n / 2] : 0.5 * (rel[n / 2 - 1] + rel[n / 2]);
    out->p99 = rel[(99 * (long long)n + 99) / 100 - 1];
    out->max = rel[n - 1];
}

void sim_diag_finish(sim_diag *d) {
    d->total = d->kinetic + d->potential;
    d->virial_ratio = d->potential != 0 ? 2.0 * d->kinetic / fabs(d->potential) : 0.0;
    if (d->mass > 0) {
        for (int k = 0; k < 3; k++) d->center_of_mass[k] /= d->mass;
    }
    for (int g = 0; g < 2; g++) {
        if (d->galaxy_mass[g] <= 0) continue;
        for (int k = 0; k < 3; k++) {
            d->galaxy_com[g][k] /= d->galaxy_mass[g];
            d->galaxy_vel[g][k] /= d->galaxy_mass[g];
        }
    }
}

/* Keeps the host copy of the tags and marks new bodies. */
static bool take_tags(sim *s, const sim_body *bodies, int n, sim_error *err) {
    uint8_t *tags = realloc(s->tags, (size_t)n);
    if (!tags) {
        set_error(err, "try a smaller --n", "out of host memory for %d bodies", n);
        return false;
    }
    for (int i = 0; i < n; i++) tags[i] = (uint8_t)bodies[i].tag;
    s->tags = tags;
    s->generation++;
    return true;
}

static bool seed_bodies(sim *s, sim_ic ic, int n, uint64_t seed, sim_error *err) {
    if (!s->ops->reserve(s->backend_state, n, err)) return false;
    const double need = (double)sizeof(sim_body) * n, have = sim_host_memory_bytes();
    sim_body *bodies = have <= 0 || need < have ? malloc(sizeof(sim_body) * (size_t)n) : NULL;
    if (!bodies) {
        set_error(err, "try a smaller --n", "out of host memory for %d bodies", n);
        return false;
    }
    sim_ic_generate(ic, n, seed, &s->desc, s->knobs.softening, bodies);
    const bool ok = take_tags(s, bodies, n, err);
    if (ok) s->ops->upload(s->backend_state, bodies, n);
    free(bodies);
    if (!ok) return false;
    s->body_count = n;
    s->ic = ic;
    s->seed = seed;
    s->time = 0;
    s->steps = 0;
    s->call_kept = 0;
    s->nonfinite_step = 0;
    return true;
}

/* The operations of backend b (CUDA or CPU), or NULL. */
static const sim_backend_ops *ops_of(sim_backend b) {
    return b == SIM_BACKEND_CUDA ? &sim_cuda_ops : b == SIM_BACKEND_CPU ? &sim_cpu_ops : NULL;
}

int sim_methods(sim_backend b, sim_variant *out, int max) {
    const sim_backend_ops *ops = ops_of(b);
    return ops ? ops->methods(out, max) : 0;
}

const sim_method *sim_method_of(sim_backend b, sim_variant v) {
    const sim_backend_ops *ops = ops_of(b);
    return ops ? ops->method(v) : NULL;
}

const sim_method *sim_get_method(const sim *s) {
    return s->ops->method(s->knobs.variant);
}

double sim_pair_rate(int n, double step_ms) {
    return step_ms > 0 ? (double)n * (double)n / (step_ms * 1e-3) : 0;
}

bool sim_failed(const sim *s, sim_error *err) {
    return s->ops->failed && s->ops->failed(s->backend_state, err);
}

const char *sim_launched_build(sim *s) {
    return s->ops->launched_build ? s->ops->launched_build(s->backend_state) : NULL;
}

sim_variant sim_variant_auto(int n) {
    return n >= SIM_TREE_CROSSOVER ? SIM_VARIANT_TREE : sim_variant_resolve(SIM_VARIANT_DEFAULT);
}

sim_backend sim_backend_resolve(sim_backend want, char *why, size_t why_len) {
    if (want != SIM_BACKEND_DEFAULT) return want;
    char reason[160] = "";
    const bool cuda = sim_cuda_device_count(reason, sizeof reason) > 0;
    if (why && why_len) snprintf(why, why_len, "%s", cuda ? "" : reason);
    return cuda ? SIM_BACKEND_CUDA : SIM_BACKEND_CPU;
}

sim *sim_create(const sim_desc *desc, sim_error *err) {
    sim_desc want = desc ? *desc : (sim_desc){0};
    want.backend = sim_backend_resolve(want.backend, NULL, 0); /* theta's default depends on it */
    sim_desc d = sim_desc_defaults(&want);
    if (!validate(&d, err)) return NULL;

    /* The CPU backend never touches CUDA (whose driver starts threads). */
    const sim_backend backend = sim_backend_resolve(d.backend, NULL, 0);
    char why[160] = "";
    const int devices = backend == SIM_BACKEND_CUDA ? sim_cuda_device_count(why, sizeof why) : 0;
    if (backend == SIM_BACKEND_CUDA && d.device + d.gpus > devices) {
        if (devices == 0) {
            set_error(err, "run with --backend cpu, or check the NVIDIA driver (nvidia-smi)",
                      "no CUDA device: %s", why);
        } else if (d.gpus > 1) {
            set_error(err, "pass a smaller --gpus (nvidia-smi lists the GPUs)",
                      "--gpus %d asks for %d GPUs from device %d; %d %s visible", d.gpus, d.gpus,
                      d.device, devices, devices == 1 ? "is" : "are");
        } else {
            set_error(err, "pick a device below the count",
                      "CUDA device %d does not exist (%d found)", d.device, devices);
        }
        return NULL;
    }

    sim *s = calloc(1, sizeof *s);
    if (!s) {
        set_error(err, "free some memory", "out of host memory");
        return NULL;
    }
    s->desc = d;
    s->backend = backend;
    s->draw_stride = 1;
    s->ops = ops_of(backend);
    s->limits = sim_cuda_device_limits(backend == SIM_BACKEND_CUDA ? d.device : -1);
    s->backend_state = s->ops->create(d.device, d.gpus, d.spread, err);
    if (!s->backend_state) {
        if (err && !err->message[0]) set_error(err, "free some memory", "cannot create backend");
        free(s);
        return NULL;
    }
    s->knobs = (sim_step_params){
        .dt = d.dt,
        .softening = d.softening,
        .damping = d.damping,
        .theta = d.theta,
        .tree_alpha = d.tree_alpha,
        .tree_quadrupoles_only = d.tree_quadrupoles_only,
        .variant = d.variant,
    };
    if (s->ops->set_stop) s->ops->set_stop(s->backend_state, &d.stop);
    if (!s->ops->reserve(s->backend_state, d.body_count, err) ||
        (s->ops->prepare_variant &&
         !s->ops->prepare_variant(s->backend_state, sim_variant_resolve(d.variant), err)) ||
        !s->ops->set_precision(s->backend_state, sim_variant_info(d.variant)->fp64, err) ||
        !seed_bodies(s, d.ic, d.body_count, d.seed, err)) {
        sim_destroy(s);
        return NULL;
    }
    sim_set_block(s, d.p, d.q);
    return s;
}

void sim_destroy(sim *s) {
    if (!s) return;
    s->ops->destroy(s->backend_state);
    free(s->tags);
    free(s);
}

bool sim_reset(sim *s, sim_ic ic, int n, uint64_t seed, sim_error *err) {
    if (ic == SIM_IC_DEFAULT) ic = SIM_IC_PLUMMER;
    if (n <= 0) {
        set_error(err, "pass a positive --n", "body count %d is not positive", n);
        return false;
    }
    if ((int)ic < 0 || ic >= SIM_IC_COUNT) {
        set_error(err, "use one of the listed scenes", "unknown initial condition %d", ic);
        return false;
    }
    if (!seed_bodies(s, ic, n, seed, err)) return false;
    /* The automatic block shape depends on N. */
    sim_set_block(s, s->want_p, s->want_q);
    return true;
}

bool sim_reset_scene(sim *s, const sim_desc *desc, sim_error *err) {
    sim_desc d = sim_desc_defaults(desc);
    /* The live knobs that are not part of a scene stay as they are. */
    d.damping = s->knobs.damping;
    d.theta = s->knobs.theta;
    d.tree_alpha = s->knobs.tree_alpha; /* after the defaults: 0 stays off */
    d.variant = s->knobs.variant;
    d.backend = s->backend;
    d.gpus = s->desc.gpus; /* fixed at sim_create */
    d.spread = s->desc.spread;
    if (!validate(&d, err)) return false;
    const sim_desc old = s->desc;
    const sim_step_params old_knobs = s->knobs;
    s->desc.shell = d.shell;
    s->desc.galaxy = d.galaxy;
    s->desc.merger = d.merger;
    /* Seeded with the scene's own softening (a disk's rotation curve is
     * measured with it), which is then the live one. */
    s->knobs.dt = d.dt;
    s->knobs.softening = d.softening;
    if (!sim_reset(s, d.ic, d.body_count, d.seed, err)) {
        s->desc = old;
        s->knobs = old_knobs;
        return false;
    }
    s->ops->invalidate(s->backend_state);
    return true;
}

/* Takes the backend's first non-finite step, if it knows one by now, with
 * the simulated time at its end from the remembered step calls. */
static void latch_nonfinite(sim *s) {
    if (s->nonfinite_step > 0) return;
    const int64_t k = s->ops->nonfinite_step(s->backend_state);
    if (k <= 0) return;
    s->nonfinite_step = k;
    s->nonfinite_time = s->time - s->knobs.dt * (double)(s->steps - k); /* fallback */
    for (int i = 1; i <= s->call_kept; i++) {
        const step_call *c = &s->calls[(s->call_next - i + STEP_HISTORY) % STEP_HISTORY];
        if (k > c->first_step && k <= c->first_step + c->steps) {
            s->nonfinite_time = c->time0 + c->dt * (double)(k - c->first_step);
            break;
        }
    }
}

/* The knobs as a call hands them to the backend, with the softening
 * squared here and only here, in both its forms (sim_step_params). */
static sim_step_params step_params(const sim *s) {
    sim_step_params sp = s->knobs;
    sp.eps2 = sp.softening * sp.softening;
    sp.eps2_kernel = fmaxf((float)sp.eps2, SIM_EPS2_FLOOR); /* rounded once, for float kernels */
    sp.eps2_kernel64 = fmax(sp.eps2, (double)SIM_EPS2_FLOOR);
    sp.first_step = s->steps;
    return sp;
}

bool sim_step(sim *s, int steps) {
    if (steps <= 0) return true;
    latch_nonfinite(s); /* before the ring forgets the call it happened in */
    sim_step_params sp = step_params(s);
    sp.no_potentials = s->no_step_potentials;
    /* The clock follows the steps: a float kernel steps by float(dt). */
    const bool in_float = s->backend == SIM_BACKEND_CUDA && !sim_get_method(s)->fp64;
    const double dt = in_float ? (double)(float)sp.dt : sp.dt;
    s->calls[s->call_next] =
        (step_call){.first_step = s->steps, .steps = steps, .time0 = s->time, .dt = dt};
    s->call_next = (s->call_next + 1) % STEP_HISTORY;
    if (s->call_kept < STEP_HISTORY) s->call_kept++;
    s->ops->step(s->backend_state, &sp, steps);
    int done = steps;
    const bool stopped = s->ops->stopped && s->ops->stopped(s->backend_state, &done);
    s->calls[(s->call_next - 1 + STEP_HISTORY) % STEP_HISTORY].steps = done;
    s->time += dt * done;
    s->steps += done;
    return !stopped;
}

bool sim_nonfinite(sim *s, int64_t *step, double *time) {
    latch_nonfinite(s);
    if (s->nonfinite_step <= 0) return false;
    if (step) *step = s->nonfinite_step;
    if (time) *time = s->nonfinite_time;
    return true;
}

void sim_set_step_potentials(sim *s, bool on) {
    s->no_step_potentials = !on;
}

void sim_set_dt(sim *s, double dt) {
    assert(dt > 0);
    s->knobs.dt = dt;
}

void sim_set_softening(sim *s, double softening) {
    assert(softening >= 0);
    s->knobs.softening = softening;
    s->ops->invalidate(s->backend_state);
}

void sim_set_damping(sim *s, double damping) {
    assert(damping > 0 && damping <= 1);
    s->knobs.damping = damping;
}

void sim_set_theta(sim *s, double theta) {
    assert(theta > 0);
    s->knobs.theta = theta;
    s->ops->invalidate(s->backend_state);
}

void sim_set_tree_alpha(sim *s, double alpha) {
    assert(alpha >= 0);
    s->knobs.tree_alpha = alpha;
    s->ops->invalidate(s->backend_state);
}

bool sim_set_variant(sim *s, sim_variant v, sim_error *err) {
    v = sim_variant_resolve(v);
    assert(v > SIM_VARIANT_DEFAULT && v < SIM_VARIANT_COUNT);
    if (s->ops->prepare_variant && !s->ops->prepare_variant(s->backend_state, v, err)) return false;
    if (!s->ops->set_precision(s->backend_state, sim_variant_info(v)->fp64, err)) return false;
    s->knobs.variant = v;
    s->ops->invalidate(s->backend_state);
    /* Keep the user's p and q where the new variant takes them. */
    sim_set_block(s, s->want_p, s->want_q);
    return true;
}

sim_block sim_clamp_block(const sim *s, sim_variant v, int p, int q) {
    return sim_kernels_clamp(sim_variant_resolve(v), p, q, s->body_count, &s->limits);
}

sim_block sim_set_block(sim *s, int p, int q) {
    s->want_p = p;
    s->want_q = q;
    sim_block b = sim_clamp_block(s, s->knobs.variant, p, q);
    s->knobs.p = b.p;
    s->knobs.q = b.q;
    return b;
}

sim_params sim_get_params(const sim *s) {
    return (sim_params){
        .body_count = s->body_count,
        .ic = s->ic,
        .seed = s->seed,
        .dt = s->knobs.dt,
        .softening = s->knobs.softening,
        .damping = s->knobs.damping,
        .theta = s->knobs.theta,
        .tree_alpha = s->knobs.tree_alpha,
        .backend = s->backend,
        .variant = s->knobs.variant,
        .p = s->knobs.p,
        .q = s->knobs.q,
        .gpus = s->desc.gpus,
        .spread = s->desc.spread,
        .draw_stride = s->draw_stride,
        .drawn = (int)(((long long)s->body_count + s->draw_stride - 1) / s->draw_stride),
        .time = s->time,
        .steps = s->steps,
        .generation = s->generation,
    };
}

bool sim_get_bodies(sim *s, sim_body *out) {
    const sim_step_params sp = step_params(s);
    s->ops->download(s->backend_state, out, &sp);
    for (int i = 0; i < s->body_count; i++) out[i].tag = s->tags[i];
    return !(s->ops->stopped && s->ops->stopped(s->backend_state, NULL));
}

void sim_get_state(sim *s, sim_body *out) {
    s->ops->download(s->backend_state, out, NULL);
    for (int i = 0; i < s->body_count; i++) {
        out[i].tag = s->tags[i];
        out[i].acc[0] = out[i].acc[1] = out[i].acc[2] = NAN;
    }
}

void sim_get_tags(const sim *s, uint8_t *out) {
    memcpy(out, s->tags, (size_t)s->body_count);
}

bool sim_set_bodies(sim *s, const sim_body *bodies, int n, sim_error *err) {
    if (n <= 0) {
        set_error(err, "pass at least one body", "body count %d is not positive", n);
        return false;
    }
    if (!s->ops->reserve(s->backend_state, n, err) || !take_tags(s, bodies, n, err)) return false;
    s->ops->upload(s->backend_state, bodies, n);
    s->body_count = n;
    s->time = 0;
    s->steps = 0;
    s->call_kept = 0;
    s->nonfinite_step = 0;
    sim_set_block(s, s->want_p, s->want_q);
    return true;
}

sim_diag sim_diagnostics(sim *s) {
    const sim_step_params sp = step_params(s);
    return s->ops->diagnostics(s->backend_state, &sp, SIM_POTENTIAL_EXACT);
}

sim_diag sim_energy(sim *s) {
    const sim_step_params sp = step_params(s);
    const sim_potential_source want =
        sim_get_method(s)->walk_potential ? SIM_POTENTIAL_WALK : SIM_POTENTIAL_EXACT;
    return s->ops->diagnostics(s->backend_state, &sp, want);
}

void sim_energy_queue(sim *s) {
    const sim_step_params sp = step_params(s);
    const sim_potential_source want =
        sim_get_method(s)->walk_potential ? SIM_POTENTIAL_WALK : SIM_POTENTIAL_EXACT;
    if (s->ops->diagnostics_queue) {
        s->ops->diagnostics_queue(s->backend_state, &sp, want);
    } else {
        s->energy_sums = s->ops->diagnostics(s->backend_state, &sp, want);
    }
    s->energy_queued = true;
    s->energy_generation = s->generation;
    s->energy_steps = s->steps;
    s->energy_knobs = s->knobs;
}

sim_diag sim_energy_collect(sim *s) {
    if (!s->energy_queued) return sim_energy(s);
    s->energy_queued = false;
    const sim_diag d = s->ops->diagnostics_collect ? s->ops->diagnostics_collect(s->backend_state)
                                                   : s->energy_sums;
    const sim_step_params *q = &s->energy_knobs, *k = &s->knobs;
    const bool same = s->energy_generation == s->generation && s->energy_steps == s->steps &&
                      q->softening == k->softening && q->variant == k->variant &&
                      q->theta == k->theta && q->tree_alpha == k->tree_alpha;
    return same ? d : sim_energy(s);
}

sim_potential_source sim_get_potentials(sim *s, float *out) {
    const sim_step_params sp = step_params(s);
    return s->ops->potentials(s->backend_state, &sp, out);
}

bool sim_radial_velocities(sim *s, float *device_out) {
    if (!s->ops->radial) return false;
    s->ops->radial(s->backend_state, device_out, s->draw_stride);
    return true;
}

sim_diag sim_moments(sim *s) {
    const sim_step_params sp = step_params(s);
    sim_diag d = s->ops->diagnostics(s->backend_state, &sp, SIM_POTENTIAL_NONE);
    d.total = 0; /* no potential, so no total energy */
    return d;
}

void sim_write_vertices(sim *s, sim_vertex *dst, bool dst_on_device) {
    assert(!dst_on_device || s->backend == SIM_BACKEND_CUDA);
    s->ops->vertices(s->backend_state, dst, dst_on_device, true, s->draw_stride);
}

void sim_queue_vertices(sim *s, sim_vertex *dst) {
    assert(s->backend == SIM_BACKEND_CUDA);
    s->ops->vertices(s->backend_state, dst, true, false, s->draw_stride);
}

void sim_set_draw_stride(sim *s, int stride) {
    s->draw_stride = stride > 1 ? stride : 1;
}

sim_memory sim_memory_estimate(sim *s, int n) {
    sim_memory m = {0};
    if (n <= 0) return m;
    /* seed_bodies' host buffer and the host copy of the tags */
    m.host_need = (double)(sizeof(sim_body) + 1) * n;
    m.host_free = sim_host_available_bytes();
    s->ops->memory(s->backend_state, n, s->knobs.variant, &m);
    return m;
}

float sim_last_step_ms(sim *s) {
    return s->ops->last_step_ms(s->backend_state);
}

const char *sim_ic_name(sim_ic ic) {
    return (int)ic >= 0 && ic < SIM_IC_COUNT ? ic_names[ic] : "?";
}

bool sim_ic_galactic(sim_ic ic) {
    return ic == SIM_IC_DISK || ic == SIM_IC_MERGER;
}

sim_ic sim_ic_from_name(const char *name) {
    for (int i = 1; i < SIM_IC_COUNT; i++) {
        if (strcmp(name, ic_names[i]) == 0) return (sim_ic)i;
    }
    return SIM_IC_COUNT;
}

const char *sim_backend_name(sim_backend b) {
    return (int)b >= 0 && b < SIM_BACKEND_COUNT ? backend_names[b] : "?";
}

sim_backend sim_backend_from_name(const char *name) {
    for (int i = 0; i < SIM_BACKEND_COUNT; i++) {
        if (strcmp(name, backend_names[i]) == 0) return (sim_backend)i;
    }
    return SIM_BACKEND_COUNT;
}

float sim_step_timed(sim *s, int steps) {
    s->ops->wait_timing(s->backend_state); /* so this call's steps get the events */
    sim_step(s, steps);
    s->ops->wait_timing(s->backend_state);
    return s->ops->last_step_ms(s->backend_state);
}

sim_tree_stats sim_get_tree_stats(sim *s) {
    return s->ops->tree_stats ? s->ops->tree_stats(s->backend_state) : (sim_tree_stats){0};
}

int sim_tree_cells(sim *s, int max_depth, sim_tree_cell *out, int max_cells) {
    if (!s->ops->tree_cells || max_cells <= 0) return 0;
    return s->ops->tree_cells(s->backend_state, max_depth, out, max_cells);
}

bool sim_measure_force_error(sim *s, int samples, uint64_t seed, sim_force_error *out,
                             sim_error *err) {
    *out = (sim_force_error){0};
    if (samples <= 0) {
        set_error(err, "ask for at least one sample", "%d force-error samples", samples);
        return false;
    }
    if (!s->ops->force_error) {
        set_error(err, "use the CUDA or CPU backend", "this backend cannot measure force errors");
        return false;
    }
    const sim_step_params sp = step_params(s);
    return s->ops->force_error(s->backend_state, &sp, samples, seed, out, err);
}

int sim_gpus_for(int n, sim_scaling scaling, int devices) {
    const bool n2 = scaling == SIM_SCALING_N2;
    const int two = n2 ? SIM_GPUS2_MIN_BODIES_N2 : SIM_GPUS2_MIN_BODIES_NLOGN;
    const int four = n2 ? SIM_GPUS4_MIN_BODIES_N2 : SIM_GPUS4_MIN_BODIES_NLOGN;
    if (devices < 2 || n < two) return 1;
    if (devices == 2 || n < four) return 2;
    return devices < SIM_GPUS_AUTO_MAX ? devices : SIM_GPUS_AUTO_MAX;
}

bool sim_spread_for(int n, int gpus) {
    if (gpus < 2) return false;
    return n >= (gpus == 2 ? SIM_SPREAD2_MIN_BODIES : SIM_SPREAD4_MIN_BODIES);
}

void sim_balance_shares(const double *at, const double *w, int count, double *out) {
    double total = 0;
    for (int k = 0; k < count; k++) total += w[k];
    out[0] = 0, out[count] = 1;
    double before = 0; /* the work of the shares before k */
    int k = 0;
    for (int j = 1; j < count; j++) {
        const double target = total * j / count;
        while (k < count - 1 && before + w[k] < target) before += w[k++];
        const double even = at[k] + (target - before) / w[k] * (at[k + 1] - at[k]);
        out[j] = at[j] + 0.5 * (even - at[j]);
    }
}

sim_gpu_stats sim_get_gpu_stats(sim *s) {
    if (s->ops->gpu_stats) return s->ops->gpu_stats(s->backend_state);
    return (sim_gpu_stats){.gpus = 1};
}

int sim_gpus_disagree(sim *s) {
    return s->ops->gpus_disagree ? s->ops->gpus_disagree(s->backend_state) : 0;
}
