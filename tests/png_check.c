/* png_check.c - is a screenshot a picture or a blank?
 *
 *     png_check FILE.png [min_lit_fraction] [min_width] [min_height]
 *
 * Loads the PNG (stb_image), counts pixels whose brightest channel is above
 * 24 of 255, prints the statistics, and exits 0 when at least
 * min_lit_fraction (default 0.002, i.e. 0.2 %) of the pixels are lit and the
 * image is at least the given size; 1 otherwise. A black frame, an
 * all-white frame (blending gone wrong) and a missing file all fail.
 */
#include <stdio.h>
#include <stdlib.h>

#include <stb/stb_image.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: png_check FILE.png [min_lit_fraction] [min_w] [min_h]\n");
        return 2;
    }
    const double min_lit = argc > 2 ? atof(argv[2]) : 0.002;
    const int min_w = argc > 3 ? atoi(argv[3]) : 16, min_h = argc > 4 ? atoi(argv[4]) : 16;
    int w = 0, h = 0, comp = 0;
    unsigned char *px = stbi_load(argv[1], &w, &h, &comp, 3);
    if (!px) {
        fprintf(stderr, "png_check: cannot load %s: %s\n", argv[1], stbi_failure_reason());
        return 1;
    }
    long lit = 0, white = 0;
    double sum = 0;
    for (long i = 0; i < (long)w * h; i++) {
        const unsigned char *p = px + 3 * i;
        int m = p[0] > p[1] ? p[0] : p[1];
        m = m > p[2] ? m : p[2];
        lit += m > 24;
        white += p[0] > 250 && p[1] > 250 && p[2] > 250;
        sum += (p[0] + p[1] + p[2]) / 3.0;
    }
    stbi_image_free(px);
    const double n = (double)w * h, lit_frac = lit / n, white_frac = white / n;
    printf("png_check: %s %dx%d, lit %.2f %%, white %.2f %%, mean %.1f\n", argv[1], w, h,
           100 * lit_frac, 100 * white_frac, sum / n);
    if (w < min_w || h < min_h) {
        fprintf(stderr, "png_check: image smaller than %dx%d\n", min_w, min_h);
        return 1;
    }
    if (lit_frac < min_lit) {
        fprintf(stderr, "png_check: blank: only %.3f %% lit (need %.3f %%)\n", 100 * lit_frac,
                100 * min_lit);
        return 1;
    }
    if (white_frac > 0.5) {
        fprintf(stderr, "png_check: washed out: %.1f %% white\n", 100 * white_frac);
        return 1;
    }
    return 0;
}
