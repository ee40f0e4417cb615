/* app_presets.c - the scenes on the number keys and --preset.
 *
 * A preset is an initial condition with the knobs and the view that suit
 * it: N (more on a GPU, fewer on the CPU backend), time step, softening,
 * steps per frame, sprite size, colour mode and camera. Keys 1-7 switch
 * scenes live; --preset NAME starts on one (command-line flags still win).
 * N is kept when switching between scenes of the same kind (Plummer and
 * shell, or galaxies): the two kinds have different units.
 *
 * Galaxy units: 1 kpc, 10^10 solar masses, G = 1, hence 4.71 Myr and
 * 207.4 km/s (docs/GALAXIES.md).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app.h"

#define KPC_KM 3.0857e16      /* km in a kpc */
#define VELOCITY_UNIT 207.4   /* km/s: sqrt(G 1e10 Msun / 1 kpc) */
#define GALAXY_MASS_UNIT 1e10 /* solar masses */

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
    const double m_real = 3.17e12 / GALAXY_MASS_UNIT;
    const double scale = sqrt(m_model / m_real) / VELOCITY_UNIT;
    const double r = 785.0, vr = -109.3 * scale, vt = 17.0 * scale;
    const double energy = 0.5 * (vr * vr + vt * vt) - m_model / r, L = r * vt;
    const double e = sqrt(1 + 2 * energy * L * L / (m_model * m_model));
    const double rp = L * L / (m_model * (1 + e));
    return (sim_merger_desc){.mass_ratio = (float)q,
                             .pericenter = (float)rp,
                             .separation = 100.0f,
                             .eccentricity = (float)e,
                             .incl1 = 30.0f,
                             .incl2 = 60.0f};
}

typedef struct app_preset {
    const char *name;  /* --preset NAME */
    const char *title; /* shown on the HUD */
    sim_ic ic;
    sim_merger_desc merger;
    int n_gpu, n_cpu;
    float dt, softening;
    int steps_gpu, steps_cpu; /* steps per frame */
    float point_size;
    float exposure; /* 0: automatic (galaxies: cores would otherwise white out) */
    render_color color;
    float distance, pitch;
} app_preset;

#define GALAXY_KNOBS                                                                               \
    .n_gpu = 65536, .n_cpu = 8192, .dt = 0.025f, .softening = 0.15f, .steps_gpu = 4,               \
    .steps_cpu = 1, .point_size = 0.3f

static const app_preset presets[] = {
    {.name = "plummer",
     .title = "Plummer sphere (Henon units)",
     .ic = SIM_IC_PLUMMER,
     .n_gpu = 16384,
     .n_cpu = 4096,
     .dt = 1.0f / 128,
     .softening = 0.05f,
     .steps_gpu = 1,
     .steps_cpu = 1,
     .point_size = 0.035f,
     .exposure = 2.5f,
     .color = RENDER_COLOR_SPEED,
     .distance = 3.6f,
     .pitch = 0.35f},
    {.name = "shell",
     .title = "rotating shell (GPU Gems 3)",
     .ic = SIM_IC_SHELL,
     .n_gpu = 16384,
     .n_cpu = 4096,
     .dt = 1.0f / 128,
     .softening = 0.05f,
     .steps_gpu = 1,
     .steps_cpu = 1,
     .point_size = 0.035f,
     .exposure = 2.5f,
     .color = RENDER_COLOR_SPEED,
     .distance = 3.2f,
     .pitch = 0.35f},
    {.name = "disk",
     .title = "one disk galaxy, face-on",
     .ic = SIM_IC_DISK,
     GALAXY_KNOBS,
     .color = RENDER_COLOR_COMPONENT,
     .distance = 45.0f,
     .pitch = 1.5f},
    {.name = "antennae-like",
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
     .distance = 120.0f,
     .pitch = 0.9f},
    {.name = "retrograde",
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
     .distance = 120.0f,
     .pitch = 0.9f},
    {.name = "minor-merger",
     .title = "1:4 minor merger, inclined 60 degrees",
     .ic = SIM_IC_MERGER,
     .merger = {.mass_ratio = 0.25f,
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
     .title = "Milky Way and Andromeda (1 : 1.6) on their observed approach",
     .ic = SIM_IC_MERGER,
     GALAXY_KNOBS,
     .color = RENDER_COLOR_GALAXY,
     .distance = 140.0f,
     .pitch = 0.9f},
};
#define PRESET_COUNT ((int)(sizeof presets / sizeof presets[0]))

const char *app_preset_title(int i) {
    return presets[i].title;
}

int app_preset_find(const char *name) {
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

static bool galactic(sim_ic ic) {
    return ic == SIM_IC_DISK || ic == SIM_IC_MERGER;
}

void app_preset_config(app_config *c, int i) {
    const app_preset *p = &presets[i];
    c->sim.ic = c->sim.ic ? c->sim.ic : p->ic;
    if (c->sim.ic != SIM_IC_MERGER) return; /* --ic given: the rest only for a merger */
    const sim_merger_desc m = merger_of(i);
    sim_merger_desc *o = &c->sim.merger;
    if (o->mass_ratio == 0) o->mass_ratio = m.mass_ratio;
    if (o->pericenter == 0) o->pericenter = m.pericenter;
    if (o->separation == 0) o->separation = m.separation;
    if (o->eccentricity == 0) o->eccentricity = m.eccentricity;
    if (!c->incl_given) {
        o->incl1 = m.incl1;
        o->incl2 = m.incl2;
    }
    if (c->retrograde) {
        o->incl1 += 180;
        o->incl2 += 180;
    }
}

/* The knobs a preset sets on the command line's zeros (flags win). */
void app_preset_knobs(app_config *c, int i, bool cpu) {
    const app_preset *p = &presets[i];
    if (!c->n_given) c->sim.body_count = cpu ? p->n_cpu : p->n_gpu;
    if (c->sim.dt == 0) c->sim.dt = p->dt;
    if (c->sim.softening == 0 && !c->softening_zero) c->sim.softening = p->softening;
    if (c->steps_per_frame == 0) c->steps_per_frame = cpu ? p->steps_cpu : p->steps_gpu;
}

void app_preset_view(app *a, int i) {
    const app_preset *p = &presets[i];
    a->preset = i;
    a->point_size = p->point_size;
    a->color = p->color;
    a->hide_halo = galactic(p->ic);
    a->auto_exposure = p->exposure == 0;
    a->exposure = p->exposure > 0 ? p->exposure : 1.0f;
    a->follow_com = false;
    a->camera = (render_camera){.distance = p->distance, .yaw = 0.6f, .pitch = p->pitch};
    app_preset_brightness(a);
}

void app_preset_brightness(app *a) {
    /* The same total light whatever N is; a galaxy spreads its light thinner. */
    const sim_params p = sim_get_params(a->sim);
    a->brightness = 0.3f * sqrtf(16384.0f / (float)p.body_count);
    if (galactic(p.ic)) a->brightness *= 2.0f;
    if (a->brightness > 1.0f) a->brightness = 1.0f;
}

void app_preset_switch(app *a, int i) {
    const app_preset *p = &presets[i];
    const sim_params now = sim_get_params(a->sim);
    const bool cpu = now.backend == SIM_BACKEND_CPU;
    const int n = galactic(now.ic) == galactic(p->ic) ? now.body_count : cpu ? p->n_cpu : p->n_gpu;
    sim_desc scene = a->cfg.sim; /* galaxy parameters from the command line stay */
    scene.ic = p->ic;
    scene.body_count = n;
    scene.seed = now.seed;
    scene.merger = p->ic == SIM_IC_MERGER ? merger_of(i) : scene.merger;
    sim_error err = {0};
    if (!sim_reset_scene(a->sim, &scene, &err)) {
        app_message(a, "%s: %s (%s)", p->name, err.message, err.hint);
        return;
    }
    sim_set_dt(a->sim, p->dt);
    sim_set_softening(a->sim, p->softening);
    a->cfg.steps_per_frame = cpu ? p->steps_cpu : p->steps_gpu;
    a->energy0_valid = false;
    a->diag_valid = false;
    a->blown_up = false;
    app_preset_view(a, i);
    app_message(a, "%d: %s, %d bodies, dt %.3g, eps %.3g, %d steps/frame", i + 1, p->title, n,
                p->dt, p->softening, a->cfg.steps_per_frame);
}
