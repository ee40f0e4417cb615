/* ui.h - what is drawn over the bodies: the HUD, the help, the ladder
 * chart, the energy sparkline, the tree's cells and the message line.
 *
 * The overlays are one table (ui.c): each has a key that shows or hides
 * it, a line in the help, a layer and a draw function. A frame draws them
 * layer by layer (ui_draw): the scene layer with the bodies, into every
 * picture (the window's and a video's own); the panel layer (HUD, help,
 * message) where the HUD goes; the screen layer (the chart, the code
 * panel) in the window only. Adding an overlay is a file here and a row in that table.
 *
 * The UI draws what it is told (ui_facts, filled by the app each frame)
 * and reads the simulation it is shown (sim/: its numbers, method and
 * cells); it changes neither. Rules: ui/ uses render/ (text, rectangles,
 * boxes), sim/ and base/; nothing else of app/.
 */
#ifndef NBODY_UI_H
#define NBODY_UI_H

#include <stdbool.h>
#include <stddef.h>

#include "base.h"
#include "render.h"
#include "sim.h"

/* ---- what the UI is told ------------------------------------------------- */

typedef enum ui_rung_status {
    UI_RUNG_MEASURING = 0, /* no result at this N yet */
    UI_RUNG_OK,            /* ms: the measured step time */
    UI_RUNG_TOO_SLOW,      /* not timed: ms is the estimate, over the time a rung may take */
    UI_RUNG_NO_MEMORY,     /* the copy to time could not be made */
} ui_rung_status;

/* One bar of the ladder chart. */
typedef struct ui_rung {
    const char *name;
    ui_rung_status status;
    double ms;    /* per step */
    bool live;    /* from the running simulation's own steps, not a timed copy */
    bool current; /* the method running now */
} ui_rung;

/* A snapshot series played as a movie (--load 'GLOB' or DIR): what the HUD
 * shows instead of the simulation's rows while it plays. */
typedef struct ui_playback {
    bool on;                    /* a series is loaded and plays (or is paused) */
    bool playing;               /* false: paused, or at its end */
    int index, count;           /* the file at or before the play position, 0-based, of count */
    const char *file;           /* its name (no folder) */
    const char *format, *units; /* its format's name; how its units were taken */
    double time;     /* the play time: interpolated between the files' own times (or indices) */
    double position; /* the play position in files (index + fraction) */
    double speed;    /* snapshots per second */
    const char *interp; /* what the frame did: "Hermite", "linear", "none", with why */
    const char *match;  /* how bodies are matched: by particle ID, or by file order (why) */
    bool time_is_index; /* the files' times do not increase: t is the position */
    bool time_of_file;  /* t is the file's own: on a file, or no interpolation */
} ui_playback;

/* A recording running (--record, --frames-dir, M): the REC indicator. */
typedef struct ui_recording {
    bool on;
    bool video;  /* a video; else a PNG sequence */
    long frames; /* frames written so far */
    int fps;     /* the video's frames/s: its time is frames / fps */
} ui_recording;

/* The selection panel (F6, ui_select.c): the sets as the app last measured
 * them (app_select.c). */
#define UI_SELECT_SETS 6
#define UI_SELECT_BINS 24 /* the histogram's bins */

typedef struct ui_select_set {
    char name[32];
    long count;                /* bodies in the set */
    double mass;               /* their total mass */
    double center[3];          /* their centre of mass (the mean position where the mass is 0) */
    long hist[UI_SELECT_BINS]; /* the histogram of the quantity: bin i holds [lo + i w, lo + (i+1)
                                  w) */
    double lo, hi;             /* its range: the set's own (the last bin holds hi) */
    long outside;              /* bodies whose quantity is not finite (in no bin) */
} ui_select_set;

typedef struct ui_select {
    const ui_select_set *sets; /* UI_SELECT_SETS of them; NULL: none yet */
    int active;                /* the set the keys act on */
    const char *quantity;      /* the histogram's quantity, in words */
    const char *units;         /* galaxy scenes: its physical units ("kpc"); NULL: none */
    double scale;              /* model units to those */
    const float (*colors)[3];  /* each set's colour (shaders/nbody_shared.h) */
} ui_select;
/* The density view (app/app_density.c): what its colour bar shows. */
typedef struct ui_density {
    bool on;               /* the density map is drawn instead of the sprites */
    double lo, hi;         /* the palette's ends, in units */
    render_stretch stretch;
    bool manual;           /* the range set by keys or --density-max (else the map's own) */
    const char *units;     /* "M_sun/kpc²" or "mass/length² (model units)" */
    const char *bodies;    /* which bodies: "all bodies", "disk", "galaxy 1", ... */
} ui_density;

/* A colour mode of a quantity (app/app_colour.c): what the legend shows. */
typedef struct ui_quantity {
    bool on;           /* the sprites are coloured by it this frame */
    bool computed;     /* false: no values yet (the legend says so) */
    const char *name;  /* "density", "radial velocity", "potential" */
    const char *units; /* "M_sun/kpc²", "km/s", ... */
    double lo, hi;     /* the palette's ends, in units (auto: 1st..99th percentile) */
    bool log;          /* placed by log(value) between them */
} ui_quantity;

/* The tree's accuracy-speed frontier (Shift+X, ui_frontier.c): points the
 * app measured on a copy of the bodies (app/app_frontier.c). */
#define UI_FRONTIER_MAX 20 /* points a sweep holds at most */

typedef enum ui_frontier_series {
    UI_FRONTIER_THETA,   /* theta alone (the relative criterion off) */
    UI_FRONTIER_ALPHA,   /* the relative criterion alpha at theta 1 */
    UI_FRONTIER_RUNNING, /* the running setting, where it is on neither */
    UI_FRONTIER_SERIES_COUNT
} ui_frontier_series;

typedef struct ui_frontier_point {
    ui_frontier_series series;
    double theta, alpha;          /* the setting; alpha 0: off */
    double ms;                    /* per step */
    double median, p99;           /* relative force error against the exact sum */
    double interactions_per_body; /* evaluated per body in a step; 0: unknown */
} ui_frontier_point;

typedef struct ui_frontier {
    bool on;                         /* a sweep was started: the view is shown */
    bool sweeping;                   /* points are still coming */
    const ui_frontier_point *points; /* measured so far */
    int count, planned;
    int n;                  /* bodies of the copy */
    double exact_ms;        /* the exact kernel's step time at n; 0: not known */
    bool exact_estimated;   /* ... from a smaller N (too slow to run) */
    const char *exact_name; /* its method's name */
    double theta, alpha;    /* the running setting (alpha 0: off) */
    bool tree_running;      /* the tree is the running method (else no point is its setting) */
    const char *device;     /* what the points ran on */
} ui_frontier;

/* Where the frontier view last drew (framebuffer pixels), for the tests:
 * its panel (w 0: none), the plot's box, each point's two markers' centres. */
typedef struct ui_frontier_drawn {
    float panel[4], plot[4];
    float median[UI_FRONTIER_MAX][2], p99[UI_FRONTIER_MAX][2];
    int count;
    float exact_x; /* the exact kernel's line; 0: none */
    float font_px; /* its text's size */
} ui_frontier_drawn;

/* One tick of the colour bar: its place along the bar (0..1) and label. */
typedef struct ui_tick {
    float t;
    char label[24];
} ui_tick;
#define UI_TICKS_MAX 8

/* Where the colour bar's box goes in a picture of fb_width x fb_height: w x
 * h pixels at the bottom right, margin m from the edges, into box (x, y
 * from the top left, w, h). false when it does not fit in the picture or
 * would reach into its middle, the central UI_COLORBAR_CLEAR of its width
 * and height, where the lens keeps the subject: a small picture gets no bar. */
#define UI_COLORBAR_CLEAR 0.4f
bool ui_colorbar_box(float w, float h, float m, int fb_width, int fb_height, float box[4]);

/* The colour bar's ticks for d (ui_colorbar.c): 0 (asinh only), the powers
 * of ten in [lo, hi] (every other one, or fewer, when more would crowd)
 * and hi when it is not one of them, at the palette's places; returns how
 * many (at most UI_TICKS_MAX). */
int ui_colorbar_ticks(const ui_density *d, ui_tick *out);

/* ---- the lecture mode (--lecture; app/app_lecture.c steps it) ----------- */

typedef struct ui_rect {
    float x, y, w, h; /* framebuffer pixels, from the top left */
} ui_rect;

/* What the overlays are told of the lecture: which step of how many. */
typedef struct ui_lecture {
    bool on;          /* --lecture */
    int step, steps;  /* 0-based; steps: the rungs on this backend and the summary */
    const char *rung; /* the running rung's name */
    bool summary;     /* the last step: the whole ladder at once */
} ui_lecture;

/* Where the panels go in lecture mode: the compact HUD across the top, the
 * code panel left, the chart right, the caption and the message line at
 * the bottom, and between the two columns the subject, where the lens puts
 * the bodies and no panel reaches. font_px: the text size of every panel,
 * at least UI_LECTURE_FONT_SHARE of the picture's height (a projector's
 * back row), or the wanted size (ui_font_px) where that is larger. */
typedef struct ui_lecture_layout {
    float font_px;
    ui_rect hud, code, chart, caption, message, subject;
} ui_lecture_layout;
#define UI_LECTURE_FONT_SHARE (1.0f / 45.0f)
#define UI_LECTURE_CODE_SHARE 0.33f  /* of the width: the code panel */
#define UI_LECTURE_CHART_SHARE 0.37f /* of the width: the chart */
/* A pure function of the picture's size and the wanted text size (no GL):
 * every rectangle inside the picture, none overlapping another. */
void ui_lecture_place(int fb_width, int fb_height, float want_px, ui_lecture_layout *out);
bool ui_rect_overlap(ui_rect a, ui_rect b);
/* The roofline view's device numbers (ui_roofline.c); NULL where unknown:
 * gpu on the CUDA backend, cpu on the CPU backend. */
typedef struct ui_roof {
    const sim_device_info *gpu;
    const sim_cpu_info *cpu;
} ui_roof;

/* Everything the overlays show that is not the simulation's own. */
typedef struct ui_facts {
    sim *sim;         /* the simulation shown (read only) */
    render_view view; /* the scene's camera and look */
    float exposure;   /* the exposure in effect (automatic included) */
    const char *scene_title; /* the scene's, or the loaded file's name */
    double time;     /* simulated time shown: a loaded file's own time plus the steps since */
    long long steps; /* steps shown, likewise */
    bool galactic; /* galaxy units: Myr, kpc and km/s beside the model units */
    double now;    /* base_now() when the facts were made (after this frame's samples) */
    double fps;
    int steps_per_frame;
    bool headless, vsync;
    float text_scale;      /* the screen's content scale times --hud-scale */
    bool text_scale_asked; /* --hud-scale was given: its size wins over the panel's share */
    ui_playback playback;
    ui_recording recording;
    ui_select select;
    double interactions_per_s, flops_per_interaction;
    /* sampled by the app */
    bool energy_valid; /* energy, energy_error and virial_ratio hold a sample */
    double energy, energy_error, virial_ratio, energy_time;
    bool energy_walk; /* ... from the tree walk's potentials, up to energy_hz a second (else
                         sampled every few frames) */
    double energy_hz;
    bool ferr_valid; /* the running method's force error against the exact sum */
    sim_force_error ferr;
    double ferr_time;
    bool paused, blown_up;
    /* the pipeline */
    const char *interop;  /* "zero-copy interop" or "host copy" */
    bool sprites_by_cuda; /* CUDA drew this frame's sprites */
    bool sprites_auto;    /* ... chosen by the measured trial */
    const char *snapshot; /* the snapshot line, or "" */
    const char *drawn;    /* a sample is drawn: which (app_drawn.c), else "" (NULL: none) */
    const char *caption;  /* a --script tour's caption line, or "" */
    const char *campath;  /* a camera path's line while it plays, or "" (NULL: none) */
    const base_msg *msg;  /* the message line */
    bool capturing;       /* this frame is saved (F12): no message in it */
    /* the ladder chart */
    const ui_rung *rungs;
    int rung_count;
    const char *device; /* what the rungs ran on */
    ui_density density; /* the density view's colour bar */
    ui_quantity quantity; /* the colour mode's quantity, for the legend */
    ui_frontier frontier; /* the tree's frontier (Shift+X) */
    ui_lecture lecture;   /* --lecture: the panels in its layout, the HUD compact */
    ui_roof roof;         /* the ladder chart's ceilings view: the device's numbers */
    /* the help's key lines: fills label and text for binding i, false past the end */
    bool (*key_help)(int i, char *label, size_t label_len, char *text, size_t text_len);
} ui_facts;

/* ui_lecture_place with the text size the overlays want for f (its
 * screen's scale and --hud-scale). */
void ui_lecture_layout_of(const ui_facts *f, int fb_width, int fb_height, ui_lecture_layout *out);

/* ---- the overlays -------------------------------------------------------- */

typedef enum ui_layer {
    UI_LAYER_SCENE,  /* in the scene's view, in every picture (a video's too) */
    UI_LAYER_PANEL,  /* where the HUD goes (in a video with --record-hud) */
    UI_LAYER_SCREEN, /* the window only */
} ui_layer;

typedef enum ui_overlay_id {
    UI_OVERLAY_HUD,
    UI_OVERLAY_HELP,
    UI_OVERLAY_CHART,
    UI_OVERLAY_CELLS,
    UI_OVERLAY_SELECT,
    UI_OVERLAY_FRONTIER,
    UI_OVERLAY_CODE, /* the running rung's key lines (ui_code.c) */
    UI_OVERLAY_COUNT
} ui_overlay_id;

/* |dE/E0| above which the HUD's energy line becomes a warning. */
#define UI_ENERGY_WARN 0.01
#define UI_SPARK_SAMPLES 256 /* samples of the energy error the sparkline keeps (a ring) */
#define UI_TREE_LEVELS 21    /* the deepest level of cells read from the tree */
#define UI_RUNGS_MAX 32      /* bars the ladder chart draws at most */
/* Bytes of one line of text an overlay lays out, its end included: a whole
 * lecture caption (a rung's name and its why, app_lecture.c) before it is
 * wrapped. */
#define UI_LINE_MAX 400

typedef struct ui_spark {
    double t[UI_SPARK_SAMPLES];  /* simulated time of the sample */
    double de[UI_SPARK_SAMPLES]; /* (E - E0) / |E0| */
    int count, next;             /* samples held; where the next one goes */
} ui_spark;

#define UI_CODE_ROWS_MAX 64 /* code lines the code panel shows at most */

/* The code panel (', ui_code.c) as last drawn, and where the overlays drawn
 * before it in the frame were, which it keeps clear of. */
typedef struct ui_code_view {
    float drawn[UI_OVERLAY_COUNT][4]; /* each overlay's box this frame (ui_draw); w 0: not drawn */
    float box[4];                     /* the panel's own (x, y, w, h); w 0: not drawn */
    float font_px;                    /* its font size */
    int rows;                         /* code rows shown */
    float row_y[UI_CODE_ROWS_MAX];    /* each one's top */
    bool added[UI_CODE_ROWS_MAX];     /* ... marked: new against the rung before */
    float mark_x, mark_w;             /* where the marks (bars left of the code) are */
} ui_code_view;

typedef struct ui_state ui_state;

/* The ladder chart's view (Shift+I): bars of the measured rates, or each
 * rung against its ceilings (ui_roofline.c). */
typedef enum ui_chart_view {
    UI_CHART_BARS = 0,
    UI_CHART_CEILINGS,
} ui_chart_view;

/* One row of the overlay table. */
typedef struct ui_overlay {
    const char *name;      /* the row's name, for the reader of the table */
    int key;               /* GLFW key that shows / hides it */
    const char *key_label; /* as the help shows it */
    const char *help;      /* its line in the help */
    ui_layer layer;
    bool covers; /* while shown, the other panel and screen overlays are not drawn */
    void (*draw)(ui_state *ui, const ui_facts *f, int fb_width, int fb_height);
    /* What to say when it is shown or hidden; NULL: nothing is said. */
    void (*toggled)(ui_state *ui, const ui_facts *f, char *msg, size_t len);
    /* A second key (Shift: the other way), its help, and what it does; 0: none. */
    int adjust_key;
    const char *adjust_label, *adjust_help;
    void (*adjust)(ui_state *ui, const ui_facts *f, int dir, char *msg, size_t len);
} ui_overlay;

const ui_overlay *ui_overlay_get(ui_overlay_id id);

/* ---- the state ----------------------------------------------------------- */

/* The steps (line heights) the panels' width is rounded up to for the
 * lens, how far they may shrink before the lens follows, and how much
 * larger (fraction) the other free part's square must be for it to move
 * there (ui_lens_fit). */
#define UI_LENS_WIDTH_STEP 1.0f
#define UI_LENS_HOLD_LINES 2.0f
#define UI_LENS_SWITCH_GAIN 0.1f

/* What the lens was last made for, so that small changes of the panels'
 * width (a legend's words, an exposure's digits) do not move the picture. */
typedef struct ui_lens_hold {
    int fb_width, fb_height; /* 0: nothing held */
    float right, bottom;     /* the panels' extents it was made for, pixels */
    bool below;              /* the free part it chose: below the panels, else right */
} ui_lens_hold;

typedef struct ui_gl_desc {
    const char *shader_dir; /* render/'s shaders */
    const char *font_path;  /* the TrueType font of every text */
} ui_gl_desc;

struct ui_state {
    base_msg *msg;        /* where an overlay that has to give up says so */
    render_overlay *text; /* text and rectangles; NULL until ui_gl_begin */
    render_boxes *boxes;  /* the tree's cells */
    bool shown[UI_OVERLAY_COUNT];
    float lens_scale;     /* the HUD's last lens (ui_fit_view); 0: none */
    ui_lens_hold lens_hold; /* the panels' extents the lens was made for (ui_hud.c) */
    int tree_depth;       /* cells: levels drawn below the first that fits the view */
    int tree_first;       /* cells: that first level, as last drawn */
    /* The first-run hint (ui_hint.c): on in the window, from its first
     * drawn frame (hint_since) for UI_HINT_SECONDS, then fading; a key ends it. */
    bool hint;
    double hint_since;
    sim_tree_cell *cells; /* cells: scratch, made on the first draw */
    render_box *box_scratch;
    ui_spark spark;
    /* Where the last frame drew each rung's bar (framebuffer pixels; w 0:
     * none), in rung order, for the tests. */
    float bars[UI_RUNGS_MAX][4];
    ui_frontier_drawn frontier_drawn; /* the frontier view, likewise */
    ui_chart_view chart_view; /* the ladder chart's view (Shift+I) */
    ui_code_view code; /* the code panel, for its layout and the tests */
};

/* The state without GL (keys and text work; nothing is drawn): hud shown
 * or not, messages to msg. */
void ui_init(ui_state *ui, bool hud, base_msg *msg);
/* The first-run hint: shown from the next frame drawn (ui_hint_start), or
 * ended (ui_hint_end: a key was pressed). */
void ui_hint_start(ui_state *ui);
void ui_hint_end(ui_state *ui);
#define UI_HINT_SECONDS 8.0 /* the hint stays this long, ... */
#define UI_HINT_FADE 2.0    /* ... then fades out over this long */
/* The hint's text and its opacity (0..1) at f->now; NULL when it is not
 * shown (off, ended, faded, or the HUD hidden). Its clock starts at the
 * first frame that draws it. */
const char *ui_hint_text(const ui_state *ui, const ui_facts *f, float *alpha);
/* The REC indicator's text ("REC 0:03.2"), into out; false while nothing
 * records. */
bool ui_rec_text(const ui_facts *f, char *out, size_t len);
/* The overlays' GL objects, in the current GL context; false with *err. */
bool ui_gl_begin(ui_state *ui, const ui_gl_desc *desc, render_error *err);
/* Frees them (while the context is current) and the scratch memory. */
void ui_gl_end(ui_state *ui);

/* Shows or hides overlay id; *msg gets what to say about it. */
void ui_toggle(ui_state *ui, ui_overlay_id id, const ui_facts *f, char *msg, size_t len);
/* The overlay whose key (or adjust key, *adjust true) is key; UI_OVERLAY_COUNT if none. */
ui_overlay_id ui_overlay_of_key(int key, bool *adjust);

/* Sets view's lens so the scene is centred in the part of the window the
 * HUD panel and the selection panel leave free (no lens when both are hidden). */
void ui_fit_view(ui_state *ui, const ui_facts *f, int fb_width, int fb_height, render_view *view);
/* Draws the shown overlays of one layer (for the scene layer: in f->view),
 * and on the panel layer the message line. */
void ui_draw(ui_state *ui, const ui_facts *f, ui_layer layer, int fb_width, int fb_height);
/* Whether ui_draw draws anything on layer (what a video's picture read in
 * place must not get after its capture). */
bool ui_layer_draws(const ui_state *ui, const ui_facts *f, ui_layer layer);

/* The HUD's lines (help: the help's), one per line, into out, the HUD's
 * colour legend last as words ("colour: speed 0 | 1 and more"); no GL
 * needed (tests). */
void ui_hud_text(ui_state *ui, const ui_facts *f, bool help, char *out, size_t len);
/* The lens for panels reaching right and down to (right_px, bottom_px) in
 * a fb_width x fb_height window, text line height lh: its scale and centre
 * (ui_hud.c says how; hold keeps what it was made for between frames). */
void ui_lens_fit(ui_lens_hold *hold, float right_px, float bottom_px, float lh, int fb_width,
                 int fb_height, float *scale, float center[2]);
/* The selection panel's lines (F6), one per line, into out; empty before
 * the sets are measured. No GL needed (tests). */
void ui_select_text(const ui_facts *f, char *out, size_t len);
/* Whether the density view's colour bar is drawn: the map is on and the
 * help, which covers the window, is not. */
bool ui_colorbar_shown(const ui_state *ui, const ui_facts *f);

/* The sparkline's samples. */
void ui_spark_push(ui_spark *s, double t, double de);
void ui_spark_reset(ui_spark *s);
/* Sample i, oldest first; false past the end. */
bool ui_spark_get(const ui_spark *s, int i, double *t, double *de);

/* The code panel's diff: which of cur's lines (split at '\n') are new
 * against prev's, by the longest common subsequence of the two texts'
 * lines compared with the spaces at their ends trimmed. added[i] is true
 * for line i of cur outside that subsequence; a "..." line (where regions
 * join) is never added, and with prev NULL (the first rung: nothing to
 * compare to) no line is. Returns cur's line count; lines past max are
 * counted but not marked. */
int ui_code_diff(const char *prev, const char *cur, bool *added, int max);

/* The chart's arithmetic (its bars are sim_pair_rate, the tree's an "N^2
 * equivalent"): the speedups of rung i over rung i-1 and over rung 0 from
 * their rates, 0 where a rate is unknown (vs_prev[0] = 0). */
void ui_chart_speedups(const double *rates, int count, double *vs_prev, double *vs_first);

/* The roofline view's log-log axes: a plot box (framebuffer pixels, y
 * down) spanning 10^x_lo10..10^x_hi10 interactions per byte across and
 * 10^y_lo10..10^y_hi10 interactions/s up. */
typedef struct ui_roof_axes {
    float x, y, w, h;
    double x_lo10, x_hi10, y_lo10, y_hi10;
} ui_roof_axes;

/* Where a point (intensity, rate) falls in ax: *px, *py; false (nothing
 * written) when either is not positive and finite or the axes are empty.
 * Points off the axes' ranges land outside the box (the caller clips). */
bool ui_roof_place(const ui_roof_axes *ax, double intensity, double rate, float *px, float *py);

#endif /* NBODY_UI_H */
