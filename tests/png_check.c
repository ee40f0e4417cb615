/* png_check.c - is a screenshot a picture, and is it where it should be?
 *
 *     png_check FILE.png [--size WxH] [--min-lit F] [--max-lit F]
 *                        [--within R] [--centroid-within R] [--threshold T]
 *                        [--hud-free R] [--brighter-than OTHER.png D]
 *
 * Loads the PNG (stb_image) and calls a pixel lit when its brightest channel
 * is above T of 255 (default 24: the tone-mapped background stays below it).
 * Prints the lit fraction, the share of white pixels, the mean brightness,
 * and of the lit pixels: the centroid, the bounding box and the largest
 * distance from the image centre (pixel centres; the image centre is
 * ((w-1)/2, (h-1)/2)). Exits 0 when every check given holds, 1 otherwise:
 *
 *   --size WxH            the image is exactly W x H pixels
 *   --min-lit F           at least the fraction F of the pixels are lit
 *                         (default 0.002; 0 allows a black image)
 *   --max-lit F           at most the fraction F are lit
 *   --within R            some pixel is lit and every lit pixel lies within
 *                         R pixels of the image centre
 *   --centroid-within R   some pixel is lit and the lit pixels' centroid
 *                         lies within R pixels of the image centre
 *   --hud-free R          the HUD panel at the top left (found as the run
 *                         of non-black pixels along its top and left rows
 *                         from the first non-black pixel on the diagonal)
 *                         is left out of every measure; "the centre" above
 *                         becomes the centre of the free area: the part
 *                         right of the panel or below it, whichever holds
 *                         the larger square. Some pixel outside the panel is
 *                         lit, their centroid lies within R pixels of that
 *                         centre, and none is lit in the 4-pixel band along
 *                         the panel's right and bottom edges (nothing lies
 *                         under the panel's edge)
 *   --brighter-than OTHER.png D
 *                         the mean brightness (0..255, of all pixels) is at
 *                         least D above OTHER.png's (e.g. the same scene
 *                         with bloom against without)
 *   --same-as OTHER.png M F
 *                         the same picture as OTHER.png within rounding:
 *                         the same size, the colour channels' mean
 *                         difference at most M levels, and at most the
 *                         fraction F of them more than 8 levels apart
 *                         (e.g. CUDA's sprites against GL's)
 *
 * More than half of the image white (blending gone wrong) always fails, and
 * so does a missing or unreadable file.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb/stb_image.h>

typedef struct check_desc {
    int width, height;      /* exact size; 0: any */
    double min_lit;         /* fraction of pixels */
    double max_lit;         /* fraction of pixels; negative: no limit */
    double within;          /* pixels; negative: not checked */
    double centroid_within; /* pixels; negative: not checked */
    int threshold;          /* a pixel is lit when its brightest channel > threshold */
} check_desc;

/* A rectangle of pixels, x0 <= x < x1, y0 <= y < y1. */
typedef struct box {
    int x0, y0, x1, y1;
} box;

static bool in_box(const box *b, int x, int y) {
    return b && x >= b->x0 && x < b->x1 && y >= b->y0 && y < b->y1;
}

typedef struct image_stats {
    long lit, white;
    double mean;         /* mean brightness, 0..255 */
    double cx, cy;       /* centroid of the lit pixels */
    int x0, y0, x1, y1;  /* bounding box of the lit pixels, inclusive */
    double max_distance; /* farthest lit pixel from the image centre */
} image_stats;

/* Stats of the pixels outside `skip` (NULL: all), distances from (mx, my). */
static image_stats measure(const unsigned char *px, int w, int h, int threshold, const box *skip,
                           double mx, double my) {
    image_stats s = {.x0 = w, .y0 = h, .x1 = -1, .y1 = -1};
    double sum = 0, sx = 0, sy = 0;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            if (in_box(skip, x, y)) continue;
            const unsigned char *p = px + 3 * ((long)y * w + x);
            int m = p[0] > p[1] ? p[0] : p[1];
            m = m > p[2] ? m : p[2];
            sum += (p[0] + p[1] + p[2]) / 3.0;
            s.white += p[0] > 250 && p[1] > 250 && p[2] > 250;
            if (m <= threshold) continue;
            s.lit++;
            sx += x;
            sy += y;
            if (x < s.x0) s.x0 = x;
            if (x > s.x1) s.x1 = x;
            if (y < s.y0) s.y0 = y;
            if (y > s.y1) s.y1 = y;
            const double d = hypot(x - mx, y - my);
            if (d > s.max_distance) s.max_distance = d;
        }
    }
    s.mean = sum / ((double)w * h);
    s.cx = s.lit ? sx / (double)s.lit : mx;
    s.cy = s.lit ? sy / (double)s.lit : my;
    return s;
}

static bool black(const unsigned char *px, int w, int x, int y) {
    const unsigned char *p = px + 3 * ((long)y * w + x);
    return p[0] == 0 && p[1] == 0 && p[2] == 0;
}

/* The HUD panel: from the first non-black pixel on the diagonal, as far
 * right along the row below it and as far down the column beside it as the
 * pixels stay non-black; the box runs from the image's corner to there. */
static bool find_panel(const unsigned char *px, int w, int h, box *panel) {
    int k = 0;
    while (k < w / 4 && k < h / 4 && black(px, w, k, k)) k++;
    if (k >= w / 4 || k >= h / 4) return false;
    int x = k + 1, y = k + 1;
    while (x < w && !black(px, w, x, k + 1)) x++;
    while (y < h && !black(px, w, k + 1, y)) y++;
    *panel = (box){0, 0, x, y};
    return true;
}

/* --same-as: px (w x h, RGB) against the picture in path. */
static bool same_as(const unsigned char *px, int w, int h, const char *path, double max_mean,
                    double max_far) {
    int ow = 0, oh = 0, ocomp = 0;
    unsigned char *o = stbi_load(path, &ow, &oh, &ocomp, 3);
    if (!o) {
        fprintf(stderr, "png_check: FAIL: cannot load %s: %s\n", path, stbi_failure_reason());
        return false;
    }
    if (ow != w || oh != h) {
        fprintf(stderr, "png_check: FAIL: %s is %dx%d, this %dx%d\n", path, ow, oh, w, h);
        stbi_image_free(o);
        return false;
    }
    const long channels = 3L * w * h;
    long sum = 0, far = 0;
    int worst = 0;
    for (long i = 0; i < channels; i++) {
        const int d = abs((int)px[i] - (int)o[i]);
        sum += d;
        far += d > 8;
        if (d > worst) worst = d;
    }
    stbi_image_free(o);
    const double mean = (double)sum / channels, share = (double)far / channels;
    printf("png_check: against %s: mean difference %.4f levels, %.4f %% of channels more than 8 "
           "apart, the largest %d\n",
           path, mean, 100 * share, worst);
    if (mean <= max_mean && share <= max_far) return true;
    fprintf(stderr,
            "png_check: FAIL: not the same picture as %s (at most %.4f levels and %.4f %% "
            "allowed)\n",
            path, max_mean, 100 * max_far);
    return false;
}

static int usage(void) {
    fprintf(stderr, "usage: png_check FILE.png [--size WxH] [--min-lit F] [--max-lit F] "
                    "[--within R] [--centroid-within R] [--threshold T] [--hud-free R] "
                    "[--brighter-than OTHER.png D] [--same-as OTHER.png M F]\n");
    return 2;
}

static int parse_number(const char *s, double *out) {
    char *end;
    *out = strtod(s, &end);
    return end != s && *end == 0 && isfinite(*out);
}

int main(int argc, char **argv) {
    if (argc < 2) return usage();
    check_desc c = {
        .min_lit = 0.002, .max_lit = -1, .within = -1, .centroid_within = -1, .threshold = 24};
    double hud_free = -1, brighter_by = 0, same_mean = 0, same_far = 0;
    const char *dimmer = NULL; /* --brighter-than: the other image */
    const char *same = NULL;   /* --same-as: the other image */
    for (int i = 2; i < argc; i++) {
        if (i + 1 >= argc) return usage();
        const char *flag = argv[i], *v = argv[++i];
        double d = 0;
        if (strcmp(flag, "--brighter-than") == 0) {
            if (i + 1 >= argc || !parse_number(argv[i + 1], &brighter_by)) return usage();
            dimmer = v;
            i++;
        } else if (strcmp(flag, "--same-as") == 0) {
            if (i + 2 >= argc || !parse_number(argv[i + 1], &same_mean) ||
                !parse_number(argv[i + 2], &same_far)) {
                return usage();
            }
            same = v;
            i += 2;
        } else if (strcmp(flag, "--size") == 0) {
            if (sscanf(v, "%dx%d", &c.width, &c.height) != 2) return usage();
        } else if (!parse_number(v, &d)) {
            return usage();
        } else if (strcmp(flag, "--min-lit") == 0) {
            c.min_lit = d;
        } else if (strcmp(flag, "--max-lit") == 0) {
            c.max_lit = d;
        } else if (strcmp(flag, "--within") == 0) {
            c.within = d;
        } else if (strcmp(flag, "--centroid-within") == 0) {
            c.centroid_within = d;
        } else if (strcmp(flag, "--threshold") == 0) {
            c.threshold = (int)d;
        } else if (strcmp(flag, "--hud-free") == 0) {
            hud_free = d;
        } else {
            return usage();
        }
    }
    int w = 0, h = 0, comp = 0;
    unsigned char *px = stbi_load(argv[1], &w, &h, &comp, 3);
    if (!px) {
        fprintf(stderr, "png_check: cannot load %s: %s\n", argv[1], stbi_failure_reason());
        return 1;
    }
    double mx = (w - 1) / 2.0, my = (h - 1) / 2.0;
    box panel = {0, 0, 0, 0};
    int failed = 0, edge_lit = 0;
    if (hud_free >= 0) {
        if (!find_panel(px, w, h, &panel)) {
            fprintf(stderr, "png_check: FAIL: no HUD panel at the top left\n");
            failed = 1;
        }
        /* The free part: right of the panel or below it, the larger square. */
        const int right = w - panel.x1 < h ? w - panel.x1 : h;
        const int below = h - panel.y1 < w ? h - panel.y1 : w;
        if (right >= below) {
            mx = (panel.x1 + w - 1) / 2.0;
        } else {
            my = (panel.y1 + h - 1) / 2.0;
        }
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                const bool band = (x >= panel.x1 && x < panel.x1 + 4 && y < panel.y1 + 4) ||
                                  (y >= panel.y1 && y < panel.y1 + 4 && x < panel.x1 + 4);
                const unsigned char *p = px + 3 * ((long)y * w + x);
                const int m =
                    p[0] > p[1] ? (p[0] > p[2] ? p[0] : p[2]) : (p[1] > p[2] ? p[1] : p[2]);
                edge_lit += band && m > c.threshold;
            }
        }
        printf("png_check: HUD panel x 0..%d, y 0..%d; free area centre (%.1f, %.1f); "
               "%d lit pixels along its edges\n",
               panel.x1 - 1, panel.y1 - 1, mx, my, edge_lit);
        if (c.centroid_within < 0 || hud_free < c.centroid_within) c.centroid_within = hud_free;
    }
    const image_stats s = measure(px, w, h, c.threshold, hud_free >= 0 ? &panel : NULL, mx, my);
    if (same && !same_as(px, w, h, same, same_mean, same_far)) failed = 1;
    stbi_image_free(px);
    const double n = (double)w * h, lit = s.lit / n, white = s.white / n;
    const double off = hypot(s.cx - mx, s.cy - my);
    printf("png_check: %s %dx%d, lit %.4f %% (%ld px), white %.2f %%, mean %.1f\n", argv[1], w, h,
           100 * lit, s.lit, 100 * white, s.mean);
    if (s.lit) {
        printf("png_check: lit centroid (%.1f, %.1f), %.1f px from the centre (%.1f, %.1f); "
               "box x %d..%d, y %d..%d; farthest lit pixel %.1f px from the centre\n",
               s.cx, s.cy, off, mx, my, s.x0, s.x1, s.y0, s.y1, s.max_distance);
    }
    if (edge_lit > 0) {
        fprintf(stderr, "png_check: FAIL: %d lit pixels under the HUD panel's edges\n", edge_lit);
        failed = 1;
    }
    if (c.width && (w != c.width || h != c.height)) {
        fprintf(stderr, "png_check: FAIL: image is %dx%d, expected %dx%d\n", w, h, c.width,
                c.height);
        failed = 1;
    }
    if (lit < c.min_lit) {
        fprintf(stderr, "png_check: FAIL: only %.4f %% lit (need %.4f %%)\n", 100 * lit,
                100 * c.min_lit);
        failed = 1;
    }
    if (c.max_lit >= 0 && lit > c.max_lit) {
        fprintf(stderr, "png_check: FAIL: %.4f %% lit (at most %.4f %% allowed)\n", 100 * lit,
                100 * c.max_lit);
        failed = 1;
    }
    if ((c.within >= 0 || c.centroid_within >= 0) && s.lit == 0) {
        fprintf(stderr, "png_check: FAIL: nothing lit, so nothing is near the centre\n");
        failed = 1;
    }
    if (c.within >= 0 && s.lit && s.max_distance > c.within) {
        fprintf(stderr, "png_check: FAIL: a lit pixel %.1f px from the centre (at most %.1f)\n",
                s.max_distance, c.within);
        failed = 1;
    }
    if (c.centroid_within >= 0 && s.lit && off > c.centroid_within) {
        fprintf(stderr, "png_check: FAIL: lit centroid %.1f px from the centre (at most %.1f)\n",
                off, c.centroid_within);
        failed = 1;
    }
    if (dimmer) {
        int ow = 0, oh = 0, ocomp = 0;
        unsigned char *o = stbi_load(dimmer, &ow, &oh, &ocomp, 3);
        if (!o) {
            fprintf(stderr, "png_check: cannot load %s: %s\n", dimmer, stbi_failure_reason());
            return 1;
        }
        const image_stats os =
            measure(o, ow, oh, c.threshold, NULL, (ow - 1) / 2.0, (oh - 1) / 2.0);
        stbi_image_free(o);
        printf("png_check: mean %.2f against %.2f in %s (at least %.2f more wanted)\n", s.mean,
               os.mean, dimmer, brighter_by);
        if (s.mean < os.mean + brighter_by) {
            fprintf(stderr, "png_check: FAIL: mean %.2f is not %.2f above %s's %.2f\n", s.mean,
                    brighter_by, dimmer, os.mean);
            failed = 1;
        }
    }
    if (white > 0.5) {
        fprintf(stderr, "png_check: FAIL: washed out: %.1f %% white\n", 100 * white);
        failed = 1;
    }
    return failed;
}
