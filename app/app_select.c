/* app_select.c - selections that follow bodies: up to UI_SELECT_SETS named,
 * coloured sets of bodies, made by property (F7, or a script's "select SET
 * galaxy G component C speed A B"), by region (Ctrl+left drag: a box of the
 * picture; Ctrl+right click: a sphere around the body drawn nearest the
 * cursor), cleared with F8, measured for the panel (F6) and the status JSON.
 *
 * Identity: a set is one bit per body index. The simulation never reorders
 * its bodies, so the bits follow them through every step. New bodies from a
 * snapshot keep the sets by identity: through a series' playback by
 * particle ID (app_playback_ids: the IDs of the bodies shown, whose order
 * changes from one pair of files to the next) where the bodies before and
 * now both have unique IDs; else (F9, files without IDs) by index = the
 * file's order, which our writers keep. A re-seed or a new N clears them,
 * saying so.
 *
 * Drawing: while the panel is shown, the renderer's 16-bit tags (not the
 * simulation's 8) carry each body's set in bits 8-10 (the active set first,
 * then the lowest) and a dim bit for bodies in no set (shaders/nbody_shared.h),
 * above the simulation's fade level; bodies.vert and splat/ draw those in
 * the set's colour and the rest at NBODY_SET_DIM of their light, both times
 * the fade.
 *
 * Measuring reads the bodies back (sim_get_state) and sums on the host in
 * double: every frame up to APP_SELECT_LIVE_N bodies; above, at most every
 * APP_SELECT_EVERY seconds and in at most 1 / (1 + APP_SELECT_DUTY) of the
 * wall time (docs/USAGE.md gives the cost at 1M). A change of the sets is
 * measured at once; the status JSON's lines are measured fresh.
 */
#include <GLFW/glfw3.h> /* key codes and modifier bits only */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

static const float SET_RGB[UI_SELECT_SETS][3] = {{NBODY_RGB_SET_1}, {NBODY_RGB_SET_2},
                                                 {NBODY_RGB_SET_3}, {NBODY_RGB_SET_4},
                                                 {NBODY_RGB_SET_5}, {NBODY_RGB_SET_6}};
_Static_assert(UI_SELECT_SETS == IO_SELECT_SETS, "the panel shows every set a script names");
_Static_assert(UI_SELECT_SETS <= 8, "a set is one bit of a byte per body");
_Static_assert(sizeof(((ui_select_set *)0)->name) == IO_SELECT_NAME_MAX, "a name fits the panel's");
_Static_assert(UI_SELECT_SETS <= NBODY_TAG_SET_MASK, "a set's number fits the tag's set bits");
/* The selection's bits go in the renderer's 16-bit tags above the
 * simulation's 8 (galaxy, component, fade level), which they must not touch. */
_Static_assert((NBODY_TAG_FADE_MASK << NBODY_TAG_FADE_SHIFT) <= 0xffu,
               "the simulation's tag fields fit the 8 bits of sim_get_tags");
_Static_assert((NBODY_TAG_FADE_MASK << NBODY_TAG_FADE_SHIFT) < (1u << NBODY_TAG_SET_SHIFT) &&
                   (NBODY_TAG_COMPONENT_MASK << NBODY_TAG_COMPONENT_SHIFT) <
                       (1u << NBODY_TAG_SET_SHIFT),
               "the set's bits lie above the simulation's tag");
_Static_assert(NBODY_TAG_DIM > (NBODY_TAG_SET_MASK << NBODY_TAG_SET_SHIFT) &&
                   NBODY_TAG_DIM <= 0xffffu && (NBODY_TAG_DIM & (NBODY_TAG_DIM - 1)) == 0,
               "the dim bit is one bit above the set's, within 16");

static const char *const QUANTITY_NAMES[APP_SELECT_QUANTITY_COUNT] = {
    "radius from its centre", "speed", "height above the disk"};
static const char *const QUANTITY_KEYS[APP_SELECT_QUANTITY_COUNT] = {"radius", "speed", "height"};
/* Their physical units in galaxy scenes, and the factors from model units. */
static const char *const QUANTITY_UNITS[APP_SELECT_QUANTITY_COUNT] = {"kpc", "km/s", "kpc"};
static const double QUANTITY_SCALES[APP_SELECT_QUANTITY_COUNT] = {
    SIM_GALAXY_KPC_PER_LENGTH, SIM_GALAXY_KMS_PER_VELOCITY, SIM_GALAXY_KPC_PER_LENGTH};

/* F7's properties, in order. */
enum { PROP_GALAXY1, PROP_GALAXY2, PROP_DISK, PROP_BULGE, PROP_HALO, PROP_FAST, PROP_COUNT };

static void set_name(app_select *s, int k) {
    if (!s->names[k][0]) snprintf(s->names[k], sizeof s->names[k], "set %d", k + 1);
}

static long set_count(const app_select *s, int k) {
    long c = 0;
    for (int i = 0; i < s->count; i++) c += (s->member[i] >> k) & 1u;
    return c;
}

static bool any_member(const app_select *s) {
    for (int i = 0; i < s->count; i++) {
        if (s->member[i]) return true;
    }
    return false;
}

/* Room for n bodies, all in no set; false (message posted) without memory. */
static bool reset_members(app *a, int n) {
    app_select *s = &a->select;
    if (n != s->count) {
        uint8_t *m = realloc(s->member, (size_t)(n > 0 ? n : 1));
        if (!m) {
            base_msg_post(&a->msg, "selection: out of memory for %d bodies", n);
            return false;
        }
        s->member = m;
        s->count = n;
    }
    memset(s->member, 0, (size_t)n);
    s->version++;
    return true;
}

/* The bodies now, or NULL (out of memory: message posted). */
static sim_body *bodies_now(app *a, int *n) {
    *n = sim_get_params(a->sim).body_count;
    sim_body *b = malloc(sizeof *b * (size_t)*n);
    if (!b) base_msg_post(&a->msg, "selection: out of memory for %d bodies", *n);
    if (b) sim_get_state(a->sim, b); /* no forces computed */
    return b;
}

static double speed_of(const sim_body *b) {
    return sqrt(b->vel[0] * b->vel[0] + b->vel[1] * b->vel[1] + b->vel[2] * b->vel[2]);
}

/* Set k becomes the bodies that meet every criterion of sel. */
static void select_match(app *a, const io_select *sel) {
    app_select *s = &a->select;
    int n = 0;
    sim_body *b = bodies_now(a, &n);
    if (!b || (s->count != n && !reset_members(a, n))) {
        free(b);
        return;
    }
    const uint8_t bit = (uint8_t)(1u << sel->set);
    for (int i = 0; i < n; i++) {
        bool in = true;
        if (sel->galaxy >= 0) in = in && (int)SIM_TAG_GALAXY(b[i].tag) == sel->galaxy;
        if (sel->component >= 0) in = in && (int)SIM_TAG_COMPONENT(b[i].tag) == sel->component;
        if (sel->speed) {
            const double v = speed_of(&b[i]);
            in = in && v >= sel->speed_lo && v <= sel->speed_hi;
        }
        s->member[i] = (uint8_t)(in ? s->member[i] | bit : s->member[i] & ~bit);
    }
    free(b);
    s->version++;
}

/* Where body position p lands in the window's picture: fractions of its
 * width and height from the top left; false when it is not drawn (behind
 * the eye, beyond the near or far plane). The renderer's own matrices
 * (render_sprite_params_of), lens included. */
static bool project(const render_sprite_params *sp, const double p[3], double *fx, double *fy) {
    float eye[4], clip[4];
    const float v[4] = {(float)p[0], (float)p[1], (float)p[2], 1.0f};
    for (int r = 0; r < 4; r++) {
        eye[r] = sp->view[r] * v[0] + sp->view[4 + r] * v[1] + sp->view[8 + r] * v[2] +
                 sp->view[12 + r] * v[3];
    }
    for (int r = 0; r < 4; r++) {
        clip[r] = sp->proj[r] * eye[0] + sp->proj[4 + r] * eye[1] + sp->proj[8 + r] * eye[2] +
                  sp->proj[12 + r] * eye[3];
    }
    const float w = clip[3];
    if (!(w > 0.0f) || !(fabsf(clip[2]) <= w)) return false;
    *fx = 0.5 + 0.5 * (double)(clip[0] / w);
    *fy = 0.5 - 0.5 * (double)(clip[1] / w);
    return true;
}

/* Whether body b is drawn in view (a hidden halo is not). */
static bool drawn(const render_view *view, const sim_body *b) {
    return !(view->hide_halo && SIM_TAG_COMPONENT(b->tag) == SIM_COMPONENT_HALO);
}

/* A box or a sphere, in the window's last view. */
static void select_region(app *a, const io_select *sel) {
    app_select *s = &a->select;
    if (!s->window_valid) return;
    int n = 0;
    sim_body *b = bodies_now(a, &n);
    if (!b || (s->count != n && !reset_members(a, n))) {
        free(b);
        return;
    }
    render_sprite_params sp;
    render_sprite_params_of(&s->window, &sp);
    const uint8_t bit = (uint8_t)(1u << sel->set);
    if (sel->op == IO_SELECT_BOX) {
        const double x0 = fmin(sel->rect[0], sel->rect[2]), x1 = fmax(sel->rect[0], sel->rect[2]);
        const double y0 = fmin(sel->rect[1], sel->rect[3]), y1 = fmax(sel->rect[1], sel->rect[3]);
        for (int i = 0; i < n; i++) {
            double fx = 0, fy = 0;
            const bool in = drawn(&s->window, &b[i]) && project(&sp, b[i].pos, &fx, &fy) &&
                            fx >= x0 && fx <= x1 && fy >= y0 && fy <= y1;
            s->member[i] = (uint8_t)(in ? s->member[i] | bit : s->member[i] & ~bit);
        }
    } else {
        /* The body drawn nearest the point (in pixels), and a sphere around
         * it a tenth of the picture's height at the camera's distance. Of a
         * sample (app_drawn.c) only the drawn bodies are candidates: the
         * click was on one of them; the sphere holds every body in it. */
        const double W = s->window.fb_width, H = s->window.fb_height;
        const int stride = sim_get_params(a->sim).draw_stride;
        int best = -1;
        double best_d2 = INFINITY;
        for (int i = 0; i < n; i += stride) {
            double fx = 0, fy = 0;
            if (!drawn(&s->window, &b[i]) || !project(&sp, b[i].pos, &fx, &fy)) continue;
            const double dx = (fx - sel->rect[0]) * W, dy = (fy - sel->rect[1]) * H;
            if (dx * dx + dy * dy < best_d2) best_d2 = dx * dx + dy * dy, best = i;
        }
        const render_camera *c = &s->window.camera;
        const double fov = c->fov_y > 0 ? c->fov_y : NBODY_FOV_Y_DEFAULT;
        const double r = 0.1 * 2.0 * c->distance * tan(0.5 * fov);
        for (int i = 0; i < n; i++) {
            bool in = false;
            if (best >= 0 && drawn(&s->window, &b[i])) {
                double d2 = 0;
                for (int k = 0; k < 3; k++)
                    d2 += (b[i].pos[k] - b[best].pos[k]) * (b[i].pos[k] - b[best].pos[k]);
                in = d2 <= r * r;
            }
            s->member[i] = (uint8_t)(in ? s->member[i] | bit : s->member[i] & ~bit);
        }
    }
    free(b);
    s->version++;
}

static void say_set(app *a, const char *what) {
    app_select *s = &a->select;
    const int k = s->active;
    char n[32];
    base_commas(set_count(s, k), n, sizeof n);
    base_msg_post(&a->msg, "%s%s%s: %s %s", what, what[0] ? ": " : "", s->names[k], n,
                  !strcmp(n, "1") ? "body" : "bodies");
}

/* The sets are shown as soon as one is made. */
static void show_panel(app *a) {
    a->ui.shown[UI_OVERLAY_SELECT] = true;
}

static void new_bodies(app *a);

static void do_select(app *a, const io_select *sel) {
    app_select *s = &a->select;
    new_bodies(a); /* the sets belong to the bodies there are now */
    s->active = sel->set;
    set_name(s, sel->set);
    switch (sel->op) {
    case IO_SELECT_NAME:
        snprintf(s->names[sel->set], sizeof s->names[sel->set], "%s", sel->name);
        s->version++;
        return;
    case IO_SELECT_CLEAR:
        for (int i = 0; i < s->count; i++) s->member[i] &= (uint8_t) ~(1u << sel->set);
        s->version++;
        say_set(a, "cleared");
        return;
    case IO_SELECT_MATCH:
        select_match(a, sel);
        break;
    case IO_SELECT_BOX:
    case IO_SELECT_SPHERE:
        select_region(a, sel);
        break;
    }
    show_panel(a);
    say_set(a, sel->op == IO_SELECT_BOX      ? "box"
               : sel->op == IO_SELECT_SPHERE ? "sphere"
                                             : "selected");
}

void app_select_request(app *a, const io_select *sel) {
    app_select *s = &a->select;
    if (sel->op == IO_SELECT_BOX || sel->op == IO_SELECT_SPHERE) { /* they need this frame's view */
        if (s->pending_count < APP_SELECT_PENDING) s->pending[s->pending_count++] = *sel;
        return;
    }
    do_select(a, sel);
}

void app_select_box(app *a, double x0, double y0, double x1, double y1, int w, int h) {
    if (w <= 0 || h <= 0) return;
    io_select sel = {.op = IO_SELECT_BOX, .set = a->select.active};
    const double r[4] = {x0 / w, y0 / h, x1 / w, y1 / h};
    for (int k = 0; k < 4; k++) sel.rect[k] = fmin(fmax(r[k], 0), 1);
    app_select_request(a, &sel);
}

void app_select_sphere(app *a, double x, double y, int w, int h) {
    if (w <= 0 || h <= 0) return;
    io_select sel = {.op = IO_SELECT_SPHERE, .set = a->select.active};
    sel.rect[0] = fmin(fmax(x / w, 0), 1);
    sel.rect[1] = fmin(fmax(y / h, 0), 1);
    app_select_request(a, &sel);
}

/* F7: the next property into the active set. */
static void select_property(app *a) {
    app_select *s = &a->select;
    io_select sel = {.op = IO_SELECT_MATCH, .set = s->active, .galaxy = -1, .component = -1};
    const int prop = s->property;
    s->property = (s->property + 1) % PROP_COUNT;
    if (prop == PROP_GALAXY1 || prop == PROP_GALAXY2) sel.galaxy = prop - PROP_GALAXY1;
    if (prop == PROP_DISK) sel.component = SIM_COMPONENT_DISK;
    if (prop == PROP_BULGE) sel.component = SIM_COMPONENT_BULGE;
    if (prop == PROP_HALO) sel.component = SIM_COMPONENT_HALO;
    static const char *const names[PROP_COUNT] = {"galaxy 1", "galaxy 2", "disk",
                                                  "bulge",    "halo",     "speed above the median"};
    if (prop == PROP_FAST) { /* the median speed of every body */
        int n = 0;
        sim_body *b = bodies_now(a, &n);
        double *v = b ? malloc(sizeof *v * (size_t)n) : NULL;
        if (!v) {
            free(b);
            return;
        }
        for (int i = 0; i < n; i++) v[i] = speed_of(&b[i]);
        /* the median by selection (Hoare's), O(N) on average */
        int lo = 0, hi = n - 1;
        const int mid = n / 2;
        while (lo < hi) {
            const double pivot = v[lo + (hi - lo) / 2];
            int i = lo, j = hi;
            while (i <= j) {
                while (v[i] < pivot) i++;
                while (v[j] > pivot) j--;
                if (i <= j) {
                    const double t = v[i];
                    v[i++] = v[j];
                    v[j--] = t;
                }
            }
            if (mid <= j) {
                hi = j;
            } else if (mid >= i) {
                lo = i;
            } else {
                break;
            }
        }
        sel.speed = true;
        sel.speed_lo = nextafter(v[mid], INFINITY); /* above the median */
        sel.speed_hi = INFINITY;
        free(v);
        free(b);
    }
    set_name(s, s->active);
    do_select(a, &sel);
    say_set(a, names[prop]);
}

bool app_select_key(app *a, int key, int mods) {
    app_select *s = &a->select;
    const bool shift = mods & GLFW_MOD_SHIFT;
    switch (key) {
    case GLFW_KEY_Z:
        s->active = (s->active + (shift ? UI_SELECT_SETS - 1 : 1)) % UI_SELECT_SETS;
        set_name(s, s->active);
        s->version++; /* the active set is drawn on top */
        say_set(a, "active");
        return true;
    case GLFW_KEY_F7:
        if (shift) {
            s->quantity = (app_select_quantity)((s->quantity + 1) % APP_SELECT_QUANTITY_COUNT);
            s->version++;
            base_msg_post(&a->msg, "selection histogram: %s", QUANTITY_NAMES[s->quantity]);
        } else {
            select_property(a);
        }
        return true;
    case GLFW_KEY_F8:
        do_select(a, &(io_select){.op = IO_SELECT_CLEAR, .set = s->active});
        return true;
    default:
        return false;
    }
}

/* A body's ID and its index, for app_select_remap. */
typedef struct pair {
    uint64_t id;
    int index;
} pair;

static int by_id(const void *x, const void *y) {
    const pair *a = x, *b = y;
    return (a->id > b->id) - (a->id < b->id);
}

/* ids[0..n) with their indices, sorted by ID; NULL without memory. */
static pair *sorted_ids(const uint64_t *ids, int n) {
    pair *p = malloc(sizeof *p * (size_t)(n > 0 ? n : 1));
    if (!p) return NULL;
    for (int i = 0; i < n; i++) p[i] = (pair){ids[i], i};
    qsort(p, (size_t)n, sizeof *p, by_id);
    return p;
}

static bool unique(const pair *p, int n) {
    for (int i = 1; i < n; i++) {
        if (p[i].id == p[i - 1].id) return false;
    }
    return true;
}

bool app_select_remap(app_select *s, const uint64_t *old_ids, const uint64_t *new_ids, int new_n) {
    uint8_t *m = calloc((size_t)(new_n > 0 ? new_n : 1), 1);
    if (!m) return false; /* the old bits stay; the caller's count check clears them */
    bool by_index = !old_ids || !new_ids;
    /* The same IDs in the same order (a series between two files): body i
     * stays body i, without sorting. */
    if (!by_index && s->count == new_n &&
        (new_n == 0 || !memcmp(old_ids, new_ids, sizeof *new_ids * (size_t)new_n))) {
        by_index = true;
    }
    bool ok = true;
    if (!by_index) {
        /* By ID: both lists sorted by ID and merged; IDs that are not unique
         * (a file's own) say nothing of identity, so index order then. */
        pair *p = sorted_ids(old_ids, s->count), *q = p ? sorted_ids(new_ids, new_n) : NULL;
        if (!q) {
            ok = false; /* without memory: the sets are cleared */
        } else if (!unique(p, s->count) || !unique(q, new_n)) {
            by_index = true;
        } else {
            int j = 0;
            for (int k = 0; k < new_n; k++) {
                while (j < s->count && p[j].id < q[k].id) j++;
                if (j < s->count && p[j].id == q[k].id) m[q[k].index] = s->member[p[j].index];
            }
        }
        free(p);
        free(q);
    }
    if (by_index) {
        /* Identity is the index (the file's order): body i stays body i. */
        const int n = s->count < new_n ? s->count : new_n;
        if (n > 0) memcpy(m, s->member, (size_t)n);
    }
    free(s->member);
    s->member = m;
    s->count = new_n;
    s->version++;
    return ok;
}

/* Keeps a copy of the new bodies' IDs for the next remap (NULL: none, or
 * no memory for them: index order then). */
static void keep_ids(app_select *s, const uint64_t *ids, int n) {
    uint64_t *k = ids ? realloc(s->ids, sizeof *k * (size_t)(n > 0 ? n : 1)) : NULL;
    if (!k) free(s->ids);
    if (k && n > 0) memcpy(k, ids, sizeof *k * (size_t)n);
    s->ids = k;
}

/* New bodies since the last frame: a snapshot's (F9, a series: kept by
 * identity, the particle IDs where the playback has them for both the
 * bodies before and now) or a re-seed's (cleared, saying so). */
static void new_bodies(app *a) {
    app_select *s = &a->select;
    const sim_params p = sim_get_params(a->sim);
    if (s->generation_known && s->generation == p.generation) return;
    const bool had = s->member && any_member(s);
    const bool loaded = a->snapshot.file[0] && a->snapshot.generation == p.generation;
    s->generation = p.generation;
    s->generation_known = true;
    int id_count = 0;
    const uint64_t *ids = loaded ? app_playback_ids(a, &id_count) : NULL;
    if (ids && id_count != p.body_count) ids = NULL;
    if (loaded && had) {
        if (!app_select_remap(s, s->ids, ids, p.body_count)) {
            reset_members(a, p.body_count);
            base_msg_post(&a->msg,
                          "selection: out of memory matching %d bodies by ID; the "
                          "selections are cleared",
                          p.body_count);
        }
    } else {
        reset_members(a, p.body_count);
        if (had) {
            base_msg_post(&a->msg,
                          "new bodies (a re-seed or another N): the selections are cleared");
        }
    }
    keep_ids(s, ids, p.body_count);
}

/* The renderer's tag bits of body i: its set (the active one first) in
 * bits 8-10, or the dim bit. */
static uint16_t set_bits(const app_select *s, int i) {
    const uint8_t m = s->member[i];
    if (!m) return (uint16_t)NBODY_TAG_DIM;
    int k = s->active;
    if (!((m >> k) & 1u)) {
        for (k = 0; !((m >> k) & 1u); k++) {
        }
    }
    return (uint16_t)((unsigned)(k + 1) << NBODY_TAG_SET_SHIFT);
}

uint16_t *app_select_sim_tags(app *a) {
    const sim_params p = sim_get_params(a->sim);
    const int n = p.body_count, drawn = p.drawn;
    uint16_t *tags = malloc(sizeof *tags * (size_t)(drawn > 0 ? drawn : 1));
    uint8_t *sim_tags = malloc((size_t)(n > 0 ? n : 1));
    if (tags && sim_tags) {
        sim_get_tags(a->sim, sim_tags);
        for (int j = 0; j < drawn; j++) tags[j] = sim_tags[(size_t)j * (size_t)p.draw_stride];
    } else {
        free(tags);
        tags = NULL;
    }
    free(sim_tags);
    return tags;
}

void app_select_frame(app *a, const render_view *window, uint16_t **tags) {
    app_select *s = &a->select;
    new_bodies(a);
    s->window = *window;
    s->window_valid = window->fb_width > 0 && window->fb_height > 0;
    for (int k = 0; k < s->pending_count; k++) do_select(a, &s->pending[k]);
    s->pending_count = 0;
    /* The renderer's tags (of the drawn bodies, drawn one j is body
     * j * draw_stride): again when the sets or their showing changed. */
    const sim_params p = sim_get_params(a->sim);
    const bool show = a->ui.shown[UI_OVERLAY_SELECT] && s->count == p.body_count && any_member(s);
    if (*tags || s->tags_version != s->version || s->tags_drawn != show) {
        const bool made = !*tags; /* else the simulation's new tags, CUDA's already */
        if (made) *tags = app_select_sim_tags(a);
        if (!*tags) return;
        if (show) {
            for (int j = 0; j < p.drawn; j++) (*tags)[j] |= set_bits(s, j * p.draw_stride);
        }
        if (made || show) interop_tags(&a->interop, *tags, p.drawn);
        s->tags_version = s->version;
        s->tags_drawn = show;
    }
    /* The panel's figures, while it is shown. */
    if (a->ui.shown[UI_OVERLAY_SELECT]) {
        const bool fresh = s->stats_valid && s->stats_version == s->version &&
                           s->stats_generation == p.generation && s->stats_steps == p.steps;
        const double wait = fmax(APP_SELECT_EVERY, APP_SELECT_DUTY * s->stats_ms * 1e-3);
        const bool due = p.body_count <= APP_SELECT_LIVE_N || base_now() - s->stats_when >= wait ||
                         s->stats_version != s->version;
        if (!fresh && due) app_select_measure(a);
    }
}

/* Galaxy g's disk plane: a point on it and its unit normal, from its disk
 * bodies' centre of mass and angular momentum about it (all its bodies
 * where it has no disk; +z where that spin is 0). */
static void disk_plane(const sim_body *b, int n, unsigned g, double c[3], double normal[3]) {
    for (int pass = 0; pass < 2; pass++) {
        const bool any_disk = pass == 0;
        double m = 0, x[3] = {0}, v[3] = {0}, l[3] = {0};
        for (int i = 0; i < n; i++) {
            if (SIM_TAG_GALAXY(b[i].tag) != g) continue;
            if (any_disk && SIM_TAG_COMPONENT(b[i].tag) != SIM_COMPONENT_DISK) continue;
            m += b[i].mass;
            for (int k = 0; k < 3; k++)
                x[k] += b[i].mass * b[i].pos[k], v[k] += b[i].mass * b[i].vel[k];
        }
        if (!(m > 0)) continue;
        for (int k = 0; k < 3; k++) x[k] /= m, v[k] /= m;
        for (int i = 0; i < n; i++) {
            if (SIM_TAG_GALAXY(b[i].tag) != g) continue;
            if (any_disk && SIM_TAG_COMPONENT(b[i].tag) != SIM_COMPONENT_DISK) continue;
            const double r[3] = {b[i].pos[0] - x[0], b[i].pos[1] - x[1], b[i].pos[2] - x[2]};
            const double u[3] = {b[i].vel[0] - v[0], b[i].vel[1] - v[1], b[i].vel[2] - v[2]};
            l[0] += b[i].mass * (r[1] * u[2] - r[2] * u[1]);
            l[1] += b[i].mass * (r[2] * u[0] - r[0] * u[2]);
            l[2] += b[i].mass * (r[0] * u[1] - r[1] * u[0]);
        }
        const double len = sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]);
        for (int k = 0; k < 3; k++) c[k] = x[k], normal[k] = len > 0 ? l[k] / len : k == 2;
        return;
    }
    for (int k = 0; k < 3; k++) c[k] = 0, normal[k] = k == 2;
}

/* Body b's histogram quantity q, in a set centred at center. */
static double quantity_of(app_select_quantity q, const sim_body *b, const double center[3],
                          double plane_c[2][3], double plane_n[2][3]) {
    double v = 0;
    if (q == APP_SELECT_SPEED) return speed_of(b);
    if (q == APP_SELECT_RADIUS) {
        for (int j = 0; j < 3; j++) v += (b->pos[j] - center[j]) * (b->pos[j] - center[j]);
        return sqrt(v);
    }
    const unsigned g = SIM_TAG_GALAXY(b->tag) & 1u;
    for (int j = 0; j < 3; j++) v += (b->pos[j] - plane_c[g][j]) * plane_n[g][j];
    return v;
}

void app_select_measure(app *a) {
    app_select *s = &a->select;
    const double t0 = base_now();
    const sim_params p = sim_get_params(a->sim);
    if (s->count != p.body_count && !reset_members(a, p.body_count)) return;
    for (int k = 0; k < UI_SELECT_SETS; k++) {
        set_name(s, k);
        ui_select_set *st = &s->stats[k];
        memcpy(st->name, s->names[k], sizeof st->name);
        st->count = 0, st->mass = 0, st->outside = 0, st->lo = 0, st->hi = 0;
        for (int j = 0; j < 3; j++) st->center[j] = 0;
        memset(st->hist, 0, sizeof st->hist);
    }
    int n = 0;
    sim_body *b = any_member(s) ? bodies_now(a, &n) : NULL; /* no sets: nothing to read */
    if (!b && any_member(s)) return;
    /* Counts, masses, centres; the mean position where the mass is 0. */
    double mean[UI_SELECT_SETS][3] = {{0}};
    for (int i = 0; i < n; i++) {
        const uint8_t m = s->member[i];
        for (int k = 0; m && k < UI_SELECT_SETS; k++) {
            if (!((m >> k) & 1u)) continue;
            ui_select_set *st = &s->stats[k];
            st->count++;
            st->mass += b[i].mass;
            for (int j = 0; j < 3; j++) {
                st->center[j] += b[i].mass * b[i].pos[j];
                mean[k][j] += b[i].pos[j];
            }
        }
    }
    for (int k = 0; k < UI_SELECT_SETS; k++) {
        ui_select_set *st = &s->stats[k];
        for (int j = 0; j < 3; j++) {
            st->center[j] = st->mass > 0    ? st->center[j] / st->mass
                            : st->count > 0 ? mean[k][j] / (double)st->count
                                            : 0;
        }
    }
    double plane_c[2][3] = {{0}}, plane_n[2][3] = {{0}};
    if (s->quantity == APP_SELECT_HEIGHT) {
        for (unsigned g = 0; g < 2; g++) disk_plane(b, n, g, plane_c[g], plane_n[g]);
    }
    /* The histogram over each set's own range (two passes: range, bins). */
    for (int pass = 0; pass < 2; pass++) {
        double lo[UI_SELECT_SETS], hi[UI_SELECT_SETS];
        for (int k = 0; k < UI_SELECT_SETS; k++) lo[k] = INFINITY, hi[k] = -INFINITY;
        for (int i = 0; i < n; i++) {
            const uint8_t m = s->member[i];
            for (int k = 0; m && k < UI_SELECT_SETS; k++) {
                if (!((m >> k) & 1u)) continue;
                ui_select_set *st = &s->stats[k];
                const double v = quantity_of(s->quantity, &b[i], st->center, plane_c, plane_n);
                if (pass == 0) {
                    if (isfinite(v)) lo[k] = fmin(lo[k], v), hi[k] = fmax(hi[k], v);
                    continue;
                }
                if (!isfinite(v)) {
                    st->outside++;
                    continue;
                }
                const double w = st->hi - st->lo;
                int bin = w > 0 ? (int)floor((v - st->lo) / w * UI_SELECT_BINS) : 0;
                bin = bin < 0 ? 0 : bin >= UI_SELECT_BINS ? UI_SELECT_BINS - 1 : bin;
                st->hist[bin]++;
            }
        }
        for (int k = 0; pass == 0 && k < UI_SELECT_SETS; k++) {
            ui_select_set *st = &s->stats[k];
            st->lo = isfinite(lo[k]) ? lo[k] : 0;
            st->hi = isfinite(hi[k]) ? hi[k] : 0;
            if (s->quantity != APP_SELECT_HEIGHT) st->lo = fmin(st->lo, 0); /* from 0 */
        }
    }
    free(b);
    s->stats_valid = true;
    s->stats_version = s->version;
    s->stats_generation = p.generation;
    s->stats_steps = p.steps;
    s->stats_when = base_now();
    s->stats_ms = (s->stats_when - t0) * 1e3;
}

ui_select app_select_facts(app *a) {
    app_select *s = &a->select;
    const bool galactic = sim_ic_galactic(sim_get_params(a->sim).ic);
    return (ui_select){.sets = s->stats_valid ? s->stats : NULL,
                       .active = s->active,
                       .quantity = QUANTITY_NAMES[s->quantity],
                       .units = galactic ? QUANTITY_UNITS[s->quantity] : NULL,
                       .scale = QUANTITY_SCALES[s->quantity],
                       .colors = SET_RGB};
}

static void json_number(char *out, size_t len, double v) {
    if (isfinite(v)) {
        snprintf(out, len, "%.17g", v);
    } else {
        snprintf(out, len, "null");
    }
}

void app_select_status(app *a) {
    app_select *s = &a->select;
    const render_view *v = &s->window;
    const render_camera *c = &v->camera;
    io_status_printf(&a->status,
                     ", \"view\": {\"width\": %d, \"height\": %d, \"target\": [%.9g, %.9g, %.9g], "
                     "\"distance\": %.9g, \"yaw\": %.9g, \"pitch\": %.9g, \"fov_y\": %.9g, "
                     "\"lens_scale\": %.9g, \"lens_center\": [%.9g, %.9g], \"hide_halo\": %s}",
                     v->fb_width, v->fb_height, c->target[0], c->target[1], c->target[2],
                     c->distance, c->yaw, c->pitch, c->fov_y > 0 ? c->fov_y : NBODY_FOV_Y_DEFAULT,
                     v->frame_scale, v->frame_center_px[0], v->frame_center_px[1],
                     v->hide_halo ? "true" : "false");
    const sim_params p = sim_get_params(a->sim);
    if (!(s->stats_valid && s->stats_version == s->version && s->stats_generation == p.generation &&
          s->stats_steps == p.steps)) {
        app_select_measure(a);
    }
    io_status_printf(&a->status,
                     ", \"selection\": {\"active\": %d, \"quantity\": \"%s\", \"shown\": %s, "
                     "\"sets\": [",
                     s->active + 1, QUANTITY_KEYS[s->quantity],
                     a->ui.shown[UI_OVERLAY_SELECT] ? "true" : "false");
    for (int k = 0; k < UI_SELECT_SETS; k++) {
        const ui_select_set *st = &s->stats[k];
        char name[6 * IO_SELECT_NAME_MAX + 3], m[32], x[3][32], lo[32], hi[32];
        base_json_string(name, sizeof name, st->name);
        json_number(m, sizeof m, st->mass);
        for (int j = 0; j < 3; j++) json_number(x[j], sizeof x[j], st->center[j]);
        json_number(lo, sizeof lo, st->lo);
        json_number(hi, sizeof hi, st->hi);
        io_status_printf(&a->status,
                         "%s{\"set\": %d, \"name\": %s, \"count\": %ld, \"mass\": %s, "
                         "\"center\": [%s, %s, %s], \"hist_lo\": %s, \"hist_hi\": %s, "
                         "\"outside\": %ld, \"hist\": [",
                         k ? ", " : "", k + 1, name, st->count, m, x[0], x[1], x[2], lo, hi,
                         st->outside);
        for (int i = 0; i < UI_SELECT_BINS; i++) {
            io_status_printf(&a->status, "%s%ld", i ? ", " : "", st->hist[i]);
        }
        io_status_printf(&a->status, "]}");
    }
    io_status_printf(&a->status, "], \"measure_ms\": %.3g}", s->stats_ms);
}

void app_select_destroy(app *a) {
    free(a->select.member);
    free(a->select.ids);
    a->select.member = NULL;
    a->select.ids = NULL;
}
