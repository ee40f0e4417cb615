/* yuv_check.c - is a recorded frame the picture, converted as videos say?
 *
 *     yuv_check FILE.png FRAMES.yuv [--tolerance L]
 *
 * FRAMES.yuv holds raw yuv420p frames as nbody hands them to its encoder
 * (tests/ffmpeg-capture.sh keeps them); the frame size is the PNG's cut to
 * even sizes. The last frame must be the PNG converted here, in double
 * precision, by the formula the video is tagged with: BT.709 (Kr 0.2126,
 * Kb 0.0722), limited range (Y 16-235, Cb and Cr 16-240), chroma the average
 * of each 2 x 2 block, top row first, an odd last column or bottom row of
 * the picture left out. Prints the largest and mean difference per plane in
 * 8-bit levels from the exact (unrounded) reference; exits 0 when no sample
 * is more than L + 0.5 levels from it, i.e. L levels from the correctly
 * rounded value (default L = 1: the GPU computes in single precision and
 * rounds to 8 bits, which may land one level the other side of a rounding
 * boundary), 1 otherwise, 2 on bad input.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb/stb_image.h>

static double luma(const unsigned char *p) {
    return (0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]) / 255.0;
}

int main(int argc, char **argv) {
    double tolerance = 1;
    if (argc == 5 && strcmp(argv[3], "--tolerance") == 0) {
        tolerance = atof(argv[4]);
    } else if (argc != 3) {
        fprintf(stderr, "usage: yuv_check FILE.png FRAMES.yuv [--tolerance L]\n");
        return 2;
    }
    int w = 0, h = 0, comp = 0;
    unsigned char *px = stbi_load(argv[1], &w, &h, &comp, 3);
    if (!px) {
        fprintf(stderr, "yuv_check: cannot load %s: %s\n", argv[1], stbi_failure_reason());
        return 2;
    }
    const int ew = w & ~1, eh = h & ~1;
    const size_t frame = (size_t)ew * eh * 3 / 2;
    FILE *f = fopen(argv[2], "rb");
    long size = -1;
    if (f && fseek(f, 0, SEEK_END) == 0) size = ftell(f);
    if (!f || size <= 0 || size % (long)frame != 0) {
        fprintf(stderr, "yuv_check: %s: %ld bytes, not a whole number of %dx%d yuv420p frames\n",
                argv[2], size, ew, eh);
        if (f) fclose(f);
        stbi_image_free(px);
        return 2;
    }
    unsigned char *yuv = malloc(frame);
    const bool read =
        yuv && fseek(f, size - (long)frame, SEEK_SET) == 0 && fread(yuv, 1, frame, f) == frame;
    fclose(f);
    if (!read) {
        fprintf(stderr, "yuv_check: cannot read the last frame of %s\n", argv[2]);
        free(yuv);
        stbi_image_free(px);
        return 2;
    }
    /* planes: Y, U (Cb), V (Cr) */
    double worst[3] = {0}, sum[3] = {0};
    long count[3] = {0};
    for (int y = 0; y < eh; y++) {
        for (int x = 0; x < ew; x++) {
            const double want = 16 + 219 * luma(px + 3 * ((size_t)y * w + x));
            const double d = fabs(yuv[(size_t)y * ew + x] - want);
            worst[0] = fmax(worst[0], d);
            sum[0] += d;
            count[0]++;
        }
    }
    const int cw = ew / 2, ch = eh / 2;
    for (int y = 0; y < ch; y++) {
        for (int x = 0; x < cw; x++) {
            double c[3] = {0};
            for (int k = 0; k < 4; k++) {
                const unsigned char *p = px + 3 * ((size_t)(2 * y + k / 2) * w + 2 * x + k % 2);
                for (int j = 0; j < 3; j++) c[j] += p[j] / 255.0 / 4;
            }
            const double l = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
            const double want[2] = {128 + 224 * (c[2] - l) / 1.8556,
                                    128 + 224 * (c[0] - l) / 1.5748};
            for (int plane = 1; plane <= 2; plane++) {
                const size_t at =
                    (size_t)ew * eh + (size_t)(plane - 1) * cw * ch + (size_t)y * cw + x;
                const double d = fabs(yuv[at] - want[plane - 1]);
                worst[plane] = fmax(worst[plane], d);
                sum[plane] += d;
                count[plane]++;
            }
        }
    }
    const char *names[3] = {"Y", "U", "V"};
    bool ok = true;
    for (int p = 0; p < 3; p++) {
        printf("yuv_check: %s largest %.2f levels, mean %.3f\n", names[p], worst[p],
               sum[p] / (double)count[p]);
        ok = ok && worst[p] <= tolerance + 0.5; /* the reference is not rounded: +0.5 */
    }
    printf("yuv_check: %s (%dx%d frame of %s, %ld frames)\n", ok ? "ok" : "FAILED", ew, eh, argv[2],
           size / (long)frame);
    free(yuv);
    stbi_image_free(px);
    return ok ? 0 : 1;
}
