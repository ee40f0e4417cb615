/* config_scenes.c - the one table of scenes: keys 1-7 and --preset.
 *
 * A scene is an initial condition with the knobs and the view that suit it:
 * N (more on a GPU, fewer on the CPU backend), time step, softening, steps
 * per frame, the merger's orbit, sprite size, colour mode and camera. The
 * number keys, --preset and --help all read the table below.
 *
 * The bodies of a scene are a pure function of its desc, and one function
 * (config_scene_desc) makes that desc whatever the path: at start-up the
 * command line's N, seed, dt, softening and orbit flags go on top of the
 * scene's own values; a number key builds the scene from the table with
 * the running seed (and N, when switching between scenes of the same kind:
 * Plummer and shell, or galaxies - the two kinds have different units).
 * Galaxy structure from the command line (--disk-temperature) holds for
 * every galaxy scene. On a GPU a scene also picks its force method: the
 * galaxies run on the tree with a million bodies, the Plummer sphere and
 * the shell on the best all-pairs kernel (a --variant flag wins at start-up). So `--preset disk`
 * and key 3 from a Plummer sphere build the same bodies.
 *
 * Galaxy units: sim.h's SIM_GALAXY_* (1 kpc, 10^10 solar masses, G = 1;
 * docs/GALAXIES.md).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "config.h"

/* The Milky Way - Andromeda orbit from observations, scaled to the model:
 * separation 785 kpc (McConnachie 2012), radial velocity -109.3 km/s and
 * tangential velocity 17 km/s in the Milky Way's frame (van der Marel et al.
 * 2012, ApJ 753, 8), total mass 3.17e12 Msun from their timing argument, and
 * M31 / MW = 1.6. The model galaxies are lighter than the real ones (their
 * halos stop at 36 kpc), so velocities are scaled by sqrt(M_model / M_real):
 * that keeps the orbit's shape - eccentricity and pericenter - the same. */
static sim_merger_desc milky_way_andromeda(void) {
    const sim_desc d = sim_desc_defaults(NULL);
    const double q = 1.6;
    const double m_model = ((double)d.galaxy.disk_mass + d.galaxy.bulge_mass + d.galaxy.halo_mass) *
                           (1 + q); /* 10^10 Msun */
    const double m_real = 3.17e12 / SIM_GALAXY_MSUN_PER_MASS;
    const double scale = sqrt(m_model / m_real) / SIM_GALAXY_KMS_PER_VELOCITY;
    const double r = 785.0, vr = -109.3 * scale, vt = 17.0 * scale;
    const double energy = 0.5 * (vr * vr + vt * vt) - m_model / r, L = r * vt;
    const double e = sqrt(1 + 2 * energy * L * L / (m_model * m_model));
    const double rp = L * L / (m_model * (1 + e));
    return (sim_merger_desc){.mass_ratio = q,
                             .pericenter = rp,
                             .separation = 100.0,
                             .eccentricity = e,
                             .incl1 = 30.0,
                             .incl2 = 60.0};
}

typedef struct scene_row {
    const char *name;     /* --preset NAME */
    const char *title;    /* shown on the HUD */
    const char *key_help; /* the number key's line in the help */
    sim_ic ic;
    sim_merger_desc merger;
    int n_gpu, n_cpu;
    int n_tree, steps_tree; /* on a GPU with the tree: N (0: as n_gpu) and steps per frame */
    double dt, softening;
    int steps_gpu, steps_cpu; /* steps per frame */
    float point_size;
    float exposure; /* 0: automatic (galaxies: cores would otherwise white out) */
    render_color color;
    float distance, pitch;
} scene_row;

/* Galaxies on a GPU run on the tree with a million bodies, two steps a
 * frame, which keeps the merger smooth at an interactive frame rate
 * (docs/PERFORMANCE.md, "Frames"). With --variant and an all-pairs kernel
 * they have 65,536. */
#define GALAXY_KNOBS                                                                               \
    .n_gpu = 65536, .n_cpu = 8192, .n_tree = 1048576, .steps_tree = 2, .dt = 0.025,                \
    .softening = 0.15, .steps_gpu = 4, .steps_cpu = 1, .point_size = 0.3f

static const scene_row presets[] = {
    {.name = "plummer",
     .key_help = "Plummer sphere",
     .title = "Plummer sphere (Henon units)",
     .ic = SIM_IC_PLUMMER,
     .n_gpu = 16384,
     .n_cpu = 4096,
     .dt = 1.0 / 128,
     .softening = 0.05,
     .steps_gpu = 1,
     .steps_cpu = 1,
     .point_size = 0.035f,
     .exposure = 2.5f,
     .color = RENDER_COLOR_SPEED,
     .distance = 3.6f,
     .pitch = 0.35f},
    {.name = "shell",
     .key_help = "rotating shell",
     .title = "rotating shell (GPU Gems 3)",
     .ic = SIM_IC_SHELL,
     .n_gpu = 16384,
     .n_cpu = 4096,
     .dt = 1.0 / 128,
     .softening = 0.05,
     .steps_gpu = 1,
     .steps_cpu = 1,
     .point_size = 0.035f,
     .exposure = 2.5f,
     .color = RENDER_COLOR_SPEED,
     .distance = 3.2f,
     .pitch = 0.35f},
    {.name = "disk",
     .key_help = "one disk galaxy, face-on",
     .title = "one disk galaxy, face-on",
     .ic = SIM_IC_DISK,
     GALAXY_KNOBS,
     .color = RENDER_COLOR_COMPONENT,
     .distance = 45.0f,
     .pitch = 1.5f},
    {.name = "antennae-like",
     .key_help = "galaxies: prograde encounter (long tails)",
     .title = "equal-mass prograde encounter: long tidal tails",
     .ic = SIM_IC_MERGER,
     .merger = {.mass_ratio = 1,
                .pericenter = 6,
                .separation = 80,
                .eccentricity = 1,
                .incl1 = 0,
                .incl2 = 30},
     GALAXY_KNOBS,
     .color = RENDER_COLOR_GALAXY,
     .distance = 140.0f,
     .pitch = 0.9f},
    {.name = "retrograde",
     .key_help = "galaxies: retrograde encounter (few tails)",
     .title = "equal-mass retrograde encounter: few tails",
     .ic = SIM_IC_MERGER,
     .merger = {.mass_ratio = 1,
                .pericenter = 6,
                .separation = 80,
                .eccentricity = 1,
                .incl1 = 180,
                .incl2 = 150},
     GALAXY_KNOBS,
     .color = RENDER_COLOR_GALAXY,
     .distance = 140.0f,
     .pitch = 0.9f},
    {.name = "minor-merger",
     .key_help = "galaxies: 1:4 minor merger, inclined",
     .title = "1:4 minor merger, inclined 60 degrees",
     .ic = SIM_IC_MERGER,
     .merger = {.mass_ratio = 0.25,
                .pericenter = 8,
                .separation = 70,
                .eccentricity = 1,
                .incl1 = 0,
                .incl2 = 60},
     GALAXY_KNOBS,
     .color = RENDER_COLOR_GALAXY,
     .distance = 140.0f,
     .pitch = 0.9f},
    /* The orbit comes from milky_way_andromeda() at run time. */
    {.name = "milky-way-andromeda",
     .key_help = "Milky Way and Andromeda",
     .title = "Milky Way and Andromeda (1 : 1.6) on their observed approach",
     .ic = SIM_IC_MERGER,
     GALAXY_KNOBS,
     .color = RENDER_COLOR_GALAXY,
     .distance = 140.0f,
     .pitch = 0.9f},
};
#define PRESET_COUNT ((int)(sizeof presets / sizeof presets[0]))

_Static_assert(PRESET_COUNT <= 9, "scenes sit on the keys 1-9");

int config_scene_count(void) {
    return PRESET_COUNT;
}

const char *config_scene_name(int i) {
    return i >= 0 && i < PRESET_COUNT ? presets[i].name : "?";
}

const char *config_scene_title(int i) {
    return i >= 0 && i < PRESET_COUNT ? presets[i].title : "?";
}

const char *config_scene_key_help(int i) {
    return presets[i].key_help;
}

int config_scene_find(const char *name) {
    for (int i = 0; i < PRESET_COUNT; i++) {
        if (strcmp(presets[i].name, name) == 0) return i;
    }
    return -1;
}

/* The preset's merger parameters (the observed orbit is computed). */
static sim_merger_desc merger_of(int i) {
    return strcmp(presets[i].name, "milky-way-andromeda") == 0 ? milky_way_andromeda()
                                                               : presets[i].merger;
}

/* Whether the method runs in N log N (the tree): a scene then takes its
 * tree size and steps per frame. */
static bool nlogn(sim_variant v) {
    const sim_method *m = sim_method_of(SIM_BACKEND_CUDA, v);
    return m && m->scaling == SIM_SCALING_NLOGN;
}

int config_scene_of(const config *c) {
    if (c->preset) return config_scene_find(c->preset);
    static const char *const by_ic[] = {"plummer", "plummer", "shell", "disk", "antennae-like"};
    _Static_assert(sizeof by_ic / sizeof by_ic[0] == SIM_IC_COUNT, "a scene per ic");
    return config_scene_find(by_ic[c->sim.ic < SIM_IC_COUNT ? c->sim.ic : 0]);
}

void config_gpus_on(const config *cfg, int devices, bool nccl, sim_desc *d) {
    d->gpus = cfg->sim.gpus;
    d->spread = cfg->sim.spread;
    const bool chosen = d->gpus == 0; /* --gpus auto */
    if (chosen && d->spread) d->gpus = devices;
    if (chosen && !d->spread) {
        const sim_method *m = sim_method_of(SIM_BACKEND_CUDA, d->variant);
        d->gpus = m && m->splits && nccl ? sim_gpus_for(d->body_count, m->scaling, devices) : 1;
    }
    if (!d->spread && !cfg->no_spread && d->variant == SIM_VARIANT_TREE) {
        d->spread = sim_spread_for(d->body_count, d->gpus);
        if (d->spread && chosen) d->gpus = devices; /* as --spread */
    }
}

void config_gpus(const config *cfg, bool cpu, sim_desc *d) {
    if (cpu) {
        d->gpus = cfg->sim.gpus;
        d->spread = cfg->sim.spread;
        return;
    }
    char nccl[64];
    config_gpus_on(cfg, sim_cuda_device_count(NULL, 0), sim_multi_gpu_support(nccl, sizeof nccl),
                   d);
}

sim_desc config_scene_desc(int i, const config *cfg, bool cpu, bool startup) {
    const scene_row *p = &presets[i];
    sim_desc d = cfg ? cfg->sim : (sim_desc){0}; /* backend, kernel, damping, theta, structure */
    const bool *given = cfg && startup ? cfg->given : NULL;
    const int n_given = given && given[CONFIG_KNOB_N] ? cfg->sim.body_count : 0;
    /* On a GPU a scene with a tree size runs it on the tree; a given
     * --variant keeps its own size, and N decides the method where neither
     * is given (sim_variant_auto). */
    int n = n_given ? n_given : cpu ? p->n_cpu : p->n_tree > 0 ? p->n_tree : p->n_gpu;
    if (!cpu && given && given[CONFIG_KNOB_VARIANT]) {
        if (!n_given) n = nlogn(d.variant) && p->n_tree > 0 ? p->n_tree : p->n_gpu;
    } else if (!cpu) {
        d.variant = d.spread ? SIM_VARIANT_TREE : sim_variant_auto(n); /* only the tree spreads */
    }
    d.ic = p->ic;
    d.body_count = n;
    if (cfg) config_gpus(cfg, cpu, &d);
    d.dt = p->dt;
    d.softening = p->softening;
    d.merger = p->ic == SIM_IC_MERGER ? merger_of(i) : (sim_merger_desc){0};
    if (!given) return d;
    if (given[CONFIG_KNOB_DT]) d.dt = cfg->sim.dt;
    if (given[CONFIG_KNOB_SOFTENING]) d.softening = cfg->sim.softening;
    if (p->ic != SIM_IC_MERGER) return d;
    const sim_merger_desc *o = &cfg->sim.merger;
    if (given[CONFIG_KNOB_MASS_RATIO]) d.merger.mass_ratio = o->mass_ratio;
    if (given[CONFIG_KNOB_PERICENTER]) d.merger.pericenter = o->pericenter;
    if (given[CONFIG_KNOB_SEPARATION]) d.merger.separation = o->separation;
    if (given[CONFIG_KNOB_ECCENTRICITY]) d.merger.eccentricity = o->eccentricity;
    if (given[CONFIG_KNOB_INCL1]) d.merger.incl1 = o->incl1;
    if (given[CONFIG_KNOB_INCL2]) d.merger.incl2 = o->incl2;
    if (cfg->retrograde) {
        d.merger.incl1 += 180;
        d.merger.incl2 += 180;
    }
    return d;
}

int config_scene_steps(int i, bool cpu, sim_variant v) {
    const scene_row *p = &presets[i];
    if (cpu) return p->steps_cpu;
    return nlogn(v) && p->steps_tree > 0 ? p->steps_tree : p->steps_gpu;
}

config_scene_look config_scene_look_of(int i) {
    const scene_row *p = &presets[i];
    return (config_scene_look){.point_size = p->point_size,
                               .exposure = p->exposure,
                               .color = p->color,
                               .hide_halo = sim_ic_galactic(p->ic),
                               .camera = {.distance = p->distance, .yaw = 0.6f, .pitch = p->pitch}};
}

float config_scene_brightness(int n, sim_ic ic) {
    /* A body's light falls as 1 / sqrt(N); a galaxy spreads its light thinner. */
    float b = 0.3f * sqrtf(16384.0f / (float)n);
    if (sim_ic_galactic(ic)) b *= 2.0f;
    return b > 1.0f ? 1.0f : b;
}
