/* test_splat.c - CUDA's sprites (splat/) against GL's, through the
 * arithmetic they share (splat/splat_math.h).
 *
 *     test_splat cpu   splat_math.h against GL's own picture
 *     test_splat gpu   splat_draw on the GPU against splat_math.h on the CPU
 *
 * The scene: 3,001 bodies (not a multiple of a warp or a block) with
 * random tags (both galaxies, disk, bulge and halo) and speeds across the
 * palette (for a quantity's mode: places in it), seen from 3 length units:
 * most in a ball of radius 1.5, 60 within 0.02-0.3 of the eye (sprites up
 * to the 96-pixel cap), 20 behind the eye and 21 far to the side (outside
 * the clip volume: not drawn), and the farthest below the 1.5-pixel minimum
 * (dimmed). Every colour mode of the tags, a quantity's, the halo hidden,
 * a lens (the HUD's off-centre projection), and the renderer's 16-bit tags
 * with selections and fade levels (a third of the bodies in a set, a third
 * dimmed as in none, half of them with a fade level: bits 4-11, some bodies
 * with both a set and a fade level) are drawn. Before any picture, the CPU
 * twin's light of one body with a set and a fade level at once is checked
 * against the set's colour times the fade (shaders/nbody_shared.h's
 * numbers), so the two fields cannot overlap unseen.
 *
 * cpu: an offscreen render/ in whatever EGL context there is (Mesa's
 * llvmpipe in CI) draws each case with bodies.vert and bodies.frag and tone
 * maps it at a fixed exposure; the same case added up on the CPU with
 * splat_math.h and put through tonemap.frag's formula must give the same
 * 8-bit picture 48 pixels or more from its edge (nearer, GLs differ:
 * splat_math.h): mean difference <= 0.15 levels and no channel more than 2
 * levels off in more than 0.2 % of them (several times what Mesa's and
 * NVIDIA's GL gave: docs/TESTS.md). The bounds: GL adds each sprite into half
 * floats (a relative rounding of up to 2^-11 per addition, some hundreds of
 * additions in the densest pixels) where the CPU adds in float, and GL's exp
 * and pow are its own (NVIDIA's the GPU's approximations); through the tone
 * map that moves a level by a fraction, and a pixel centre exactly on a
 * sprite's rim (r^2 = 1 to the last bit) may go either way. A palette colour
 * moved by 0.03 fails them (docs/TESTS.md). A negative control: the speed palette's sum against GL's
 * per-body colours must fail the same bound.
 *
 * gpu (exits 77 without a CUDA device): splat_draw into a half-float CUDA
 * array, against the CPU's sums in float: each channel within 2^-10 of the
 * value + 1e-6 (rounding to half floats moves it by at most 2^-11 of it,
 * adding in another order on the GPU by far less), in all but 0.01 % of
 * them (a pixel whose r^2 sits on 1 within the GPU's fused multiply-adds:
 * measured 0-3 channels of 230,400); alpha exactly 1. The first case drawn
 * again after a smaller picture (the light buffer reused at another row
 * length, and zeroed between frames) is the same within that bound in every
 * channel. A dense cluster of 200,003 bodies is within the same bound of
 * the CPU's sums.
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "splat.h"
#include "splat_math.h"
#include "test_util.h" /* test_uniform, and test_check.h */

#define W 320
#define H 240
#define N 3001
#define NEAR_BODIES 60
#define BEHIND_BODIES 20
#define ASIDE_BODIES 21

typedef struct scene {
    float body[N][4];    /* x, y, z, speed */
    uint16_t tag[N];     /* the renderer's tags: galaxy and component */
    uint16_t tag_sel[N]; /* the same with selection bits and fade levels */
} scene;

static const render_camera camera = {
    .target = {0, 0, 0}, .distance = 3.0f, .yaw = 0.4f, .pitch = 0.3f};

static void make_scene(scene *sc) {
    unsigned long long st = 12345;
    const float cp = cosf(camera.pitch), sp = sinf(camera.pitch);
    const float dir[3] = {cp * cosf(camera.yaw), cp * sinf(camera.yaw), sp}; /* to the eye */
    for (int i = 0; i < N; i++) {
        float p[3];
        if (i < NEAR_BODIES) { /* in front of the eye, 0.02-0.3 away, a little off axis */
            const float e = 0.02f + 0.28f * (float)test_uniform(&st), d = camera.distance - e;
            for (int k = 0; k < 3; k++)
                p[k] = dir[k] * d + 0.3f * e * (float)(test_uniform(&st) - 0.5);
        } else if (i < NEAR_BODIES + BEHIND_BODIES) {
            const float d = camera.distance + 0.5f + (float)test_uniform(&st);
            for (int k = 0; k < 3; k++) p[k] = dir[k] * d;
        } else if (i < NEAR_BODIES + BEHIND_BODIES + ASIDE_BODIES) {
            p[0] = 50.0f * (test_uniform(&st) < 0.5 ? -1.0f : 1.0f);
            p[1] = (float)test_uniform(&st);
            p[2] = -40.0f;
        } else { /* a ball of radius 1.5 */
            do {
                for (int k = 0; k < 3; k++) p[k] = 1.5f * (float)(2.0 * test_uniform(&st) - 1.0);
            } while (p[0] * p[0] + p[1] * p[1] + p[2] * p[2] > 2.25f);
        }
        for (int k = 0; k < 3; k++) sc->body[i][k] = p[k];
        sc->body[i][3] = (float)(1.3 * test_uniform(&st)); /* past speed_scale 1: the hot end */
        const int galaxy = (int)(2 * test_uniform(&st)), component = (int)(3 * test_uniform(&st));
        sc->tag[i] = (uint16_t)(galaxy | component << 2);
        /* The selections' case adds what the app adds to the renderer's
         * tags: a third of the bodies in a set (1-6, app_select.c), a third
         * dimmed as in none, and a fade level (1-15, app_interp.c) on half
         * of them, across the sets; by hashes of the index, not from st,
         * so the other cases' bodies stay what they were. */
        const double u = (double)(((uint32_t)i * 2654435761u) >> 16) / 65536.0;
        const double f = (double)(((uint32_t)i * 2246822519u + 374761393u) >> 16) / 65536.0;
        sc->tag_sel[i] = sc->tag[i];
        if (u < 1.0 / 3) {
            sc->tag_sel[i] |= (uint16_t)((1 + (int)(18 * u)) << NBODY_TAG_SET_SHIFT);
        } else if (u < 2.0 / 3) {
            sc->tag_sel[i] |= (uint16_t)NBODY_TAG_DIM;
        }
        if (f < 0.5) sc->tag_sel[i] |= (uint16_t)((1 + (int)(30 * f)) << NBODY_TAG_FADE_SHIFT);
    }
}

typedef struct view_case {
    const char *name;
    render_color color;
    bool hide_halo;
    float lens;        /* frame_scale; 0: none */
    float speed_scale; /* 0: 1 */
    bool selection;    /* the tags with selection bits and fade levels */
} view_case;

static const view_case cases[] = {
    {"speed", RENDER_COLOR_SPEED, false, 0, 0, false},
    {"per body", RENDER_COLOR_BODY, false, 0, 0, false},
    {"galaxy", RENDER_COLOR_GALAXY, false, 0, 0, false},
    {"component, halo hidden", RENDER_COLOR_COMPONENT, true, 0, 0, false},
    {"galaxy, halo hidden, lens", RENDER_COLOR_GALAXY, true, 0.7f, 0, false},
    /* A quantity's place (0..1 in the 4th float), which no speed scale
     * touches: drawn with speed_scale 2 that the speed mode would use. */
    {"a quantity (density)", RENDER_COLOR_DENSITY, false, 0, 2.0f, false},
    {"component, sets, fade", RENDER_COLOR_COMPONENT, false, 0, 0, true},
};
#define CASES (int)(sizeof cases / sizeof cases[0])

static render_view view_of(const view_case *c, int w, int h) {
    return (render_view){
        .fb_width = w,
        .fb_height = h,
        .camera = camera,
        .point_size = 0.02f,
        .color = c->color,
        .speed_scale = c->speed_scale,
        .hide_halo = c->hide_halo,
        .exposure = 1.0f,
        .frame_scale = c->lens,
        .frame_center_px = {0.6f * (float)w, 0.45f * (float)h},
    };
}

static splat_view splat_view_of(const render_view *rv) {
    splat_view v;
    interop_splat_view(rv, &v); /* as the app hands them to CUDA */
    return v;
}

/* Sprites drawn, and of those the ones at the size cap and at the minimum. */
typedef struct sprite_count {
    int drawn, capped, smallest;
} sprite_count;

static const uint16_t *tags_of(const scene *sc, const view_case *c) {
    return c->selection ? sc->tag_sel : sc->tag;
}

/* The light per pixel (rgb, GL's rows: bottom first) of count bodies,
 * added up in float. */
static sprite_count add_bodies(const float (*body)[4], const uint16_t *tags, int count,
                               const splat_view *v, float *light) {
    memset(light, 0, sizeof(float) * 3 * (size_t)v->width * (size_t)v->height);
    sprite_count n = {0};
    for (int i = 0; i < count; i++) {
        splat_sprite s;
        if (!splat_setup(v, body[i], tags[i], (uint32_t)i, &s) || s.x1 < s.x0 || s.y1 < s.y0) {
            continue;
        }
        n.drawn++;
        n.capped += s.size == SPLAT_MAX_PX;
        n.smallest += s.size == SPLAT_MIN_PX;
        for (int y = s.y0; y <= s.y1; y++) {
            for (int x = s.x0; x <= s.x1; x++) {
                const float wgt = splat_weight(&s, x, y);
                float *p = light + 3 * ((size_t)y * (size_t)v->width + (size_t)x);
                p[0] += s.light.r * wgt;
                p[1] += s.light.g * wgt;
                p[2] += s.light.b * wgt;
            }
        }
    }
    return n;
}

/* The same for the scene's bodies as case c sees them. */
static sprite_count add_sprites(const scene *sc, const view_case *c, const splat_view *v,
                                float *light) {
    return add_bodies((const float(*)[4])sc->body, tags_of(sc, c), N, v, light);
}

/* tonemap.frag without bloom, to 8 bits, top row first (render_read_pixels). */
static void tone_map(const float *light, int w, int h, float exposure, uint8_t *rgba) {
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            const float *l = light + 3 * ((size_t)y * (size_t)w + (size_t)x);
            float c[3] = {l[0] * exposure, l[1] * exposure, l[2] * exposure};
            const float m = fmaxf(c[0], fmaxf(c[1], c[2]));
            uint8_t *o = rgba + 4 * ((size_t)(h - 1 - y) * (size_t)w + (size_t)x);
            for (int k = 0; k < 3; k++) {
                const float t = powf(m > 0 ? c[k] / (1.0f + m) : c[k], 1.0f / 1.2f);
                o[k] = (uint8_t)floorf(fminf(fmaxf(t, 0.0f), 1.0f) * 255.0f + 0.5f);
            }
            o[3] = 255;
        }
    }
}

/* Within half the largest sprite of the picture's edge, GLs differ (a
 * sprite whose centre lies outside: splat_math.h). */
#define EDGE (int)(SPLAT_MAX_PX / 2)

/* Mean |a - b| over the colour channels of a W x H picture away from its
 * edge, and the share of them more than 2 levels apart; and how many
 * channels along the edge are. */
static void compare_rgba(const uint8_t *a, const uint8_t *b, double *mean, double *far,
                         long *far_at_edge) {
    long sum = 0, over = 0, inside = 0;
    *far_at_edge = 0;
    for (int i = 0; i < W * H; i++) {
        const int x = i % W, y = i / W;
        const bool edge = x < EDGE || y < EDGE || x >= W - EDGE || y >= H - EDGE;
        inside += !edge;
        for (int k = 0; k < 3; k++) {
            const int d = abs((int)a[4 * i + k] - (int)b[4 * i + k]);
            sum += edge ? 0 : d;
            over += !edge && d > 2;
            *far_at_edge += edge && d > 2;
        }
    }
    *mean = (double)sum / (3.0 * inside);
    *far = (double)over / (3.0 * inside);
}

/* splat_span against every pixel centre, for sprites anywhere near a
 * 50-pixel row, of every size from a pixel to more than the row. */
static void check_span(void) {
    unsigned long long st = 7;
    long wrong = 0;
    for (int t = 0; t < 100000; t++) {
        const float c = (float)(90.0 * test_uniform(&st) - 20.0),
                    size = (float)(0.5 + 70.0 * test_uniform(&st));
        int first, last;
        splat_span(c, size, 50, &first, &last);
        for (int x = -5; x < 55; x++) {
            const float centre = (float)x + 0.5f;
            const bool in =
                x >= 0 && x < 50 && centre >= c - 0.5f * size && centre <= c + 0.5f * size;
            wrong += in != (x >= first && x <= last);
        }
    }
    CHECK(wrong == 0, "splat_span: %ld pixels wrongly in or out", wrong);
}

/* The CPU twin's light of one disk body in the middle of the picture with
 * every set (1-6) and the dim bit, each with every fade level (0-15): the
 * set's colour (the component's, times NBODY_SET_DIM, for the dim bit)
 * times 1 - level / 15, relative to the same body with neither. The fade
 * level and the set lie in different bits of the renderer's tag, so each
 * is what it would be alone. A float's rounding of a few products: 1e-5. */
static void check_tag_bits(void) {
    const view_case *c = &cases[CASES - 1]; /* component colours, no halo hidden */
    const render_view rv = view_of(c, W, H);
    const splat_view sv = splat_view_of(&rv);
    const float body[4] = {0, 0, 0, 0.5f};
    const uint16_t disk = (uint16_t)(NBODY_COMPONENT_DISK << NBODY_TAG_COMPONENT_SHIFT);
    const float disk_rgb[3] = {NBODY_RGB_DISK};
    const float set_rgb[6][3] = {{NBODY_RGB_SET_1}, {NBODY_RGB_SET_2}, {NBODY_RGB_SET_3},
                                 {NBODY_RGB_SET_4}, {NBODY_RGB_SET_5}, {NBODY_RGB_SET_6}};
    splat_sprite plain;
    CHECK(splat_setup(&sv, body, disk, 0, &plain), "a body at the target is drawn");
    const float scale = plain.light.g / disk_rgb[1]; /* brightness x the size's dim */
    int wrong = 0;
    for (int k = 0; k <= 6; k++) { /* k 0: the dim bit */
        for (unsigned level = 0; level <= NBODY_TAG_FADE_MASK; level++) {
            const uint16_t tag =
                (uint16_t)(disk | (k ? (unsigned)k << NBODY_TAG_SET_SHIFT : NBODY_TAG_DIM) |
                           level << NBODY_TAG_FADE_SHIFT);
            splat_sprite s;
            if (!splat_setup(&sv, body, tag, 0, &s)) {
                wrong++;
                continue;
            }
            const float fade = 1.0f - (float)level / (float)NBODY_TAG_FADE_MASK;
            const float got[3] = {s.light.r, s.light.g, s.light.b};
            for (int j = 0; j < 3; j++) {
                const float want =
                    (k ? set_rgb[k - 1][j] : disk_rgb[j] * (float)NBODY_SET_DIM) * scale * fade;
                if (!(fabsf(got[j] - want) <= 1e-5f * (fabsf(want) + scale))) {
                    if (wrong < 4) {
                        fprintf(stderr, "  %s %d, fade level %u, channel %d: %g, want %g\n",
                                k ? "set" : "dim", k, level, j, (double)got[j], (double)want);
                    }
                    wrong++;
                }
            }
        }
    }
    CHECK(wrong == 0, "a set and a fade level in one tag: %d channels wrong", wrong);
}

static int run_cpu(const scene *sc) {
    check_span();
    check_tag_bits();
    app_egl *egl = app_egl_open(-1);
    if (!egl) {
        fprintf(stderr, "test_splat: no EGL context (install Mesa's EGL)\n");
        return 1;
    }
    render_error err = {0};
    render *r = render_create(
        &(render_desc){.shader_dir = NBODY_SHADER_DIR, .offscreen_width = W, .offscreen_height = H},
        &err);
    if (!r || !render_reserve_bodies(r, N, &err)) {
        fprintf(stderr, "test_splat: %s\n", err.message);
        return 1;
    }
    printf("GL: %s\n", render_gl_renderer());
    render_upload_bodies(r, (const render_vertex *)sc->body, N);
    float *light = malloc(sizeof(float) * 3 * W * H);
    uint8_t *gl = malloc(4 * W * H), *cpu = malloc(4 * W * H), *speed = malloc(4 * W * H);
    if (!light || !gl || !cpu || !speed) return 1;
    for (int c = 0; c < CASES; c++) {
        const render_view rv = view_of(&cases[c], W, H);
        render_upload_tags(r, tags_of(sc, &cases[c]), N);
        render_frame(r, &rv, N);
        render_read_pixels(r, W, H, gl);
        const splat_view sv = splat_view_of(&rv);
        const sprite_count n = add_sprites(sc, &cases[c], &sv, light);
        tone_map(light, W, H, rv.exposure, cpu);
        if (c == 0) memcpy(speed, cpu, 4 * W * H);
        double mean, far;
        long far_at_edge;
        compare_rgba(gl, cpu, &mean, &far, &far_at_edge);
        long lit = 0;
        for (int i = 0; i < W * H; i++)
            lit += gl[4 * i] > 24 || gl[4 * i + 1] > 24 || gl[4 * i + 2] > 24;
        printf("%-26s %d sprites drawn (%d at %g px, %d at %g), %.1f %% of the pixels lit; GL "
               "against the CPU %d px or more from the edge: mean %.4f levels, %.4f %% of "
               "channels > 2 levels apart (nearer the edge: %ld channels)\n",
               cases[c].name, n.drawn, n.capped, SPLAT_MAX_PX, n.smallest, SPLAT_MIN_PX,
               100.0 * lit / (W * H), EDGE, mean, 100.0 * far, far_at_edge);
        CHECK(n.drawn > N / 2 && n.drawn <= N - BEHIND_BODIES - ASIDE_BODIES,
              "%s: %d sprites drawn (the %d behind or aside are not)", cases[c].name, n.drawn,
              BEHIND_BODIES + ASIDE_BODIES);
        CHECK(n.capped > 0 && n.smallest > 0, "%s: the scene has no sprites at the size limits",
              cases[c].name);
        CHECK(lit > W * H / 50, "%s: a picture (%ld pixels lit)", cases[c].name, lit);
        CHECK(mean <= 0.15 && far <= 0.002, "%s: GL and the CPU differ: mean %.4f, %.4f %% far",
              cases[c].name, mean, 100.0 * far);
        if (cases[c].color == RENDER_COLOR_BODY) { /* the negative control */
            compare_rgba(gl, speed, &mean, &far, &far_at_edge);
            printf("%-26s GL's per-body colours against the CPU's speed palette: mean %.4f, "
                   "%.4f %% far\n",
                   "  (negative control)", mean, 100.0 * far);
            CHECK(mean > 0.15 || far > 0.002, "the comparison cannot tell two palettes apart");
        }
    }
    free(light);
    free(gl);
    free(cpu);
    free(speed);
    render_destroy(r);
    app_egl_close(egl);
    return 0;
}

/* IEEE binary16 to float. */
static float half_to_float(uint16_t h) {
    const int e = (h >> 10) & 31, m = h & 1023;
    const float v = e == 0    ? ldexpf((float)m, -24)
                    : e == 31 ? INFINITY
                              : ldexpf(1024.0f + m, e - 25);
    return (h & 0x8000) ? -v : v;
}

static bool cuda_ok(cudaError_t e, const char *what) {
    if (e == cudaSuccess) return true;
    fprintf(stderr, "test_splat: %s: %s\n", what, cudaGetErrorString(e));
    test_failures++;
    return false;
}

/* One draw of case c at w x h on the GPU, read back as floats (rgba). */
static bool draw_gpu(splat *s, const void *dev, const view_case *c, int w, int h,
                     struct cudaArray *array, float *rgba, uint16_t *halves) {
    const render_view rv = view_of(c, w, h);
    const splat_view sv = splat_view_of(&rv);
    splat_error err = {0};
    if (!splat_draw(s, dev, N, &sv, array, &err)) {
        fprintf(stderr, "test_splat: splat_draw: %s\n", err.message);
        test_failures++;
        return false;
    }
    if (!cuda_ok(cudaMemcpy2DFromArray(halves, (size_t)w * 8, array, 0, 0, (size_t)w * 8, (size_t)h,
                                       cudaMemcpyDeviceToHost),
                 "cudaMemcpy2DFromArray")) {
        return false;
    }
    for (size_t i = 0; i < 4 * (size_t)w * (size_t)h; i++) rgba[i] = half_to_float(halves[i]);
    return true;
}

/* The GPU's picture (rgba) against the CPU's light (rgb): channels out of
 * bound, alpha not 1. */
static long compare_light(const float *rgba, const float *light, int pixels, long *bad_alpha,
                          double *worst) {
    long bad = 0;
    *bad_alpha = 0;
    *worst = 0;
    for (int i = 0; i < pixels; i++) {
        for (int k = 0; k < 3; k++) {
            const double got = rgba[4 * i + k], want = light[3 * i + k];
            const double excess = fabs(got - want) / (ldexp(fabs(want), -10) + 1e-6);
            if (!(excess <= 1.0)) bad++;
            if (excess > *worst || isnan(excess)) *worst = isnan(excess) ? INFINITY : excess;
        }
        *bad_alpha += rgba[4 * i + 3] != 1.0f;
    }
    return bad;
}

/* A dense cluster: hundreds of sprites over the central pixels, each
 * warp's sprites overlapping; the picture must be the CPU's within
 * compare_light's bound. */
#define DENSE_N 200003

static void check_dense(struct cudaArray *array, float *light, float *got, uint16_t *halves) {
    float(*body)[4] = malloc(sizeof *body * DENSE_N);
    uint16_t *tags = calloc(DENSE_N, sizeof *tags);
    void *dev = NULL;
    splat_error err = {0};
    splat *s = splat_create(&err);
    if (!body || !tags || !s ||
        !cuda_ok(cudaMalloc(&dev, sizeof *body * DENSE_N), "cudaMalloc (dense)")) {
        CHECK(false, "dense cluster: no memory (%s)", s ? "" : err.message);
        free(body);
        free(tags);
        splat_destroy(s);
        return;
    }
    unsigned long long st = 777;
    for (int i = 0; i < DENSE_N; i++) {
        /* Radius 0.6 u^2: denser towards the centre. */
        float p[3], r2;
        do {
            for (int k = 0; k < 3; k++) p[k] = (float)(2.0 * test_uniform(&st) - 1.0);
            r2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
        } while (r2 > 1.0f || r2 == 0.0f);
        const float u = (float)test_uniform(&st), scale = 0.6f * u * u / sqrtf(r2);
        for (int k = 0; k < 3; k++) body[i][k] = p[k] * scale;
        body[i][3] = (float)test_uniform(&st);
    }
    const view_case c = {"dense cluster", RENDER_COLOR_SPEED, false, 0, 0, false};
    const render_view rv = view_of(&c, W, H);
    const splat_view sv = splat_view_of(&rv);
    if (cuda_ok(cudaMemcpy(dev, body, sizeof *body * DENSE_N, cudaMemcpyHostToDevice),
                "cudaMemcpy (dense)") &&
        splat_set_tags(s, tags, DENSE_N, &err)) {
        if (!splat_draw(s, dev, DENSE_N, &sv, array, &err)) {
            CHECK(false, "dense cluster: splat_draw: %s", err.message);
        } else if (cuda_ok(cudaMemcpy2DFromArray(halves, (size_t)W * 8, array, 0, 0, (size_t)W * 8,
                                                 (size_t)H, cudaMemcpyDeviceToHost),
                           "cudaMemcpy2DFromArray (dense)")) {
            for (size_t i = 0; i < 4 * (size_t)W * H; i++) got[i] = half_to_float(halves[i]);
            const sprite_count n = add_bodies((const float(*)[4])body, tags, DENSE_N, &sv, light);
            long bad_alpha;
            double worst;
            const long bad = compare_light(got, light, W * H, &bad_alpha, &worst);
            printf("%-26s GPU against the CPU: %ld of %d channels out of bound (worst %.2f x the "
                   "bound), %d sprites\n",
                   c.name, bad, 3 * W * H, worst, n.drawn);
            CHECK(n.drawn > DENSE_N * 9 / 10, "dense cluster: %d sprites drawn", n.drawn);
            CHECK(bad <= 3 * W * H / 10000, "dense cluster: %ld channels out of bound", bad);
            CHECK(bad_alpha == 0, "dense cluster: %ld alphas not 1", bad_alpha);
        }
    } else {
        CHECK(false, "dense cluster: set-up failed");
    }
    cudaFree(dev);
    splat_destroy(s);
    free(body);
    free(tags);
}

static int run_gpu(const scene *sc) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("test_splat: no CUDA device: skipped\n");
        return TEST_SKIP;
    }
    splat_error err = {0};
    splat *s = splat_create(&err);
    if (!s) {
        fprintf(stderr, "test_splat: splat_create: %s\n", err.message);
        return 1;
    }
    void *dev = NULL;
    struct cudaArray *array = NULL;
    const struct cudaChannelFormatDesc half4 = {16, 16, 16, 16, cudaChannelFormatKindFloat};
    float *light = malloc(sizeof(float) * 3 * W * H), *got = malloc(sizeof(float) * 4 * W * H),
          *first = malloc(sizeof(float) * 4 * W * H);
    uint16_t *halves = malloc(sizeof(uint16_t) * 4 * W * H);
    if (!light || !got || !first || !halves) return 1;
    if (!cuda_ok(cudaMalloc(&dev, sizeof sc->body), "cudaMalloc") ||
        !cuda_ok(cudaMemcpy(dev, sc->body, sizeof sc->body, cudaMemcpyHostToDevice),
                 "cudaMemcpy") ||
        !cuda_ok(cudaMallocArray(&array, &half4, W, H, cudaArraySurfaceLoadStore),
                 "cudaMallocArray")) {
        return 1;
    }
    for (int c = 0; c < CASES; c++) {
        if (!splat_set_tags(s, tags_of(sc, &cases[c]), N, &err)) {
            fprintf(stderr, "test_splat: %s\n", err.message);
            return 1;
        }
        if (!draw_gpu(s, dev, &cases[c], W, H, array, got, halves)) break;
        const render_view rv = view_of(&cases[c], W, H);
        const splat_view sv = splat_view_of(&rv);
        add_sprites(sc, &cases[c], &sv, light);
        long bad_alpha;
        double worst;
        const long bad = compare_light(got, light, W * H, &bad_alpha, &worst);
        printf("%-26s GPU against the CPU: %ld of %d channels out of bound (worst %.2f x the "
               "bound), %ld alphas not 1\n",
               cases[c].name, bad, 3 * W * H, worst, bad_alpha);
        CHECK(bad <= 3 * W * H / 10000, "%s: %ld channels out of bound", cases[c].name, bad);
        CHECK(bad_alpha == 0, "%s: %ld alphas not 1", cases[c].name, bad_alpha);
        if (c == 0) memcpy(first, got, sizeof(float) * 4 * W * H);
    }
    /* Again, after the light was used at another size: the same picture. */
    float *small = malloc(sizeof(float) * 4 * W * H);
    if (!small || !splat_set_tags(s, sc->tag, N, &err)) return 1;
    if (draw_gpu(s, dev, &cases[1], W / 2 + 3, H / 2 + 1, array, small, halves) &&
        draw_gpu(s, dev, &cases[0], W, H, array, got, halves)) {
        long differ = 0;
        double worst = 0;
        for (size_t i = 0; i < 4 * (size_t)W * H; i++) {
            const double d = fabs((double)got[i] - first[i]) / (ldexp(fabs(first[i]), -10) + 1e-6);
            differ += !(d <= 1.0);
            if (d > worst) worst = d;
        }
        printf("the first case again, after a %dx%d draw: %ld channels moved (worst %.2f x the "
               "bound)\n",
               W / 2 + 3, H / 2 + 1, differ, worst);
        CHECK(differ == 0, "a second draw differs from the first in %ld channels", differ);
    }
    free(small);
    check_dense(array, light, got, halves);
    free(light);
    free(got);
    free(first);
    free(halves);
    cudaFreeArray(array);
    cudaFree(dev);
    splat_destroy(s);
    return 0;
}

int main(int argc, char **argv) {
    const bool gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    if (argc != 2 || (!gpu && strcmp(argv[1], "cpu") != 0)) {
        fprintf(stderr, "usage: test_splat cpu|gpu\n");
        return 2;
    }
    scene *sc = malloc(sizeof *sc);
    if (!sc) return 1;
    make_scene(sc);
    const int rc = gpu ? run_gpu(sc) : run_cpu(sc);
    free(sc);
    if (rc) return rc;
    return test_exit(gpu ? "test_splat gpu" : "test_splat cpu");
}
