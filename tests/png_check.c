/* png_check.c - is a screenshot a picture, and is it where it should be?
 *
 *     png_check FILE.png [--size WxH] [--min-lit F] [--max-lit F]
 *                        [--within R] [--centroid-within R] [--threshold T]
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
 *
 * More than half of the image white (blending gone wrong) always fails, and
 * so does a missing or unreadable file.
 */
#include <math.h>
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

typedef struct image_stats {
    long lit, white;
    double mean;         /* mean brightness, 0..255 */
    double cx, cy;       /* centroid of the lit pixels */
    int x0, y0, x1, y1;  /* bounding box of the lit pixels, inclusive */
    double max_distance; /* farthest lit pixel from the image centre */
} image_stats;

static image_stats measure(const unsigned char *px, int w, int h, int threshold) {
    image_stats s = {.x0 = w, .y0 = h, .x1 = -1, .y1 = -1};
    const double mx = (w - 1) / 2.0, my = (h - 1) / 2.0;
    double sum = 0, sx = 0, sy = 0;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
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

static int usage(void) {
    fprintf(stderr, "usage: png_check FILE.png [--size WxH] [--min-lit F] [--max-lit F] "
                    "[--within R] [--centroid-within R] [--threshold T]\n");
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
    for (int i = 2; i < argc; i++) {
        if (i + 1 >= argc) return usage();
        const char *flag = argv[i], *v = argv[++i];
        double d = 0;
        if (strcmp(flag, "--size") == 0) {
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
    const image_stats s = measure(px, w, h, c.threshold);
    stbi_image_free(px);
    const double n = (double)w * h, lit = s.lit / n, white = s.white / n;
    const double mx = (w - 1) / 2.0, my = (h - 1) / 2.0;
    const double off = hypot(s.cx - mx, s.cy - my);
    printf("png_check: %s %dx%d, lit %.4f %% (%ld px), white %.2f %%, mean %.1f\n", argv[1], w, h,
           100 * lit, s.lit, 100 * white, s.mean);
    if (s.lit) {
        printf("png_check: lit centroid (%.1f, %.1f), %.1f px from the centre (%.1f, %.1f); "
               "box x %d..%d, y %d..%d; farthest lit pixel %.1f px from the centre\n",
               s.cx, s.cy, off, mx, my, s.x0, s.x1, s.y0, s.y1, s.max_distance);
    }
    int failed = 0;
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
    if (white > 0.5) {
        fprintf(stderr, "png_check: FAIL: washed out: %.1f %% white\n", 100 * white);
        failed = 1;
    }
    return failed;
}
