/* test_code.c - each force method's key lines (sim_method.code) and reason
 * (sim_method.why), on both backends, against the sources themselves.
 *
 * For every method sim_methods() lists, CUDA's and the CPU's: code and why
 * are set and not empty, its row of sim/sim_code.list names it, and code is
 * exactly the text between that row's markers in the source files, cut here
 * again, independently of sim/sim_code.cmake (the same rules: a region's
 * lines lose their common indentation, preprocessor lines aside; blank lines
 * at its ends go; regions are joined by a "..." line). The sources are read
 * now, so a header left stale by an edit the build did not see fails, and
 * so does a row of the list no method uses.
 *
 *     test_code SOURCE_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "test_check.h"

#define LINE_MAX_CHARS 512
#define ROWS_MAX 64
#define REGIONS_MAX 8

typedef struct code_row {
    char backend[16], method[32], file[128];
    char region[REGIONS_MAX][48];
    int regions;
    bool used;
} code_row;

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s) s[n] = 0;
    fclose(f);
    return s;
}

static int read_list(const char *dir, code_row *rows) {
    char path[1024], line[LINE_MAX_CHARS];
    snprintf(path, sizeof path, "%s/sim/sim_code.list", dir);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    int count = 0;
    while (fgets(line, sizeof line, f) && count < ROWS_MAX) {
        code_row r = {.regions = 0};
        char *save = NULL, *w = strtok_r(line, " \t\r\n", &save);
        if (!w || w[0] == '#') continue;
        snprintf(r.backend, sizeof r.backend, "%s", w);
        if ((w = strtok_r(NULL, " \t\r\n", &save))) snprintf(r.method, sizeof r.method, "%s", w);
        if ((w = strtok_r(NULL, " \t\r\n", &save))) snprintf(r.file, sizeof r.file, "%s", w);
        while ((w = strtok_r(NULL, " \t\r\n", &save)) && r.regions < REGIONS_MAX) {
            snprintf(r.region[r.regions++], sizeof r.region[0], "%s", w);
        }
        rows[count++] = r;
    }
    fclose(f);
    return count;
}

/* Whether line (without its newline) is the marker "/ * lecture: what name * /". */
static bool is_marker(const char *line, size_t len, const char *what, const char *name) {
    char want[128];
    snprintf(want, sizeof want, "/* lecture: %s %s */", what, name);
    while (len > 0 && (*line == ' ' || *line == '\t')) line++, len--;
    while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t')) len--;
    return len == strlen(want) && memcmp(line, want, len) == 0;
}

/* Appends region `name` of text, dedented, to out; false when it is not there. */
static bool cut_region(const char *text, const char *name, char *out, size_t cap) {
    const char *lines[512];
    size_t lens[512];
    int count = 0;
    bool in = false, found = false;
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        if (!in && is_marker(p, len, "begin", name)) {
            in = true;
        } else if (in && is_marker(p, len, "end", name)) {
            found = true;
            break;
        } else if (in && count < 512) {
            lines[count] = p, lens[count++] = len;
        }
        p = e ? e + 1 : p + len;
    }
    if (!found) return false;
    size_t indent = (size_t)-1;
    for (int i = 0; i < count; i++) {
        size_t lead = 0;
        while (lead < lens[i] && lines[i][lead] == ' ') lead++;
        if (lead == lens[i] || lines[i][0] == '#') continue; /* blank, preprocessor */
        if (lead < indent) indent = lead;
    }
    int first = 0, last = count - 1;
    while (first <= last && strspn(lines[first], " ") >= lens[first]) first++;
    while (last >= first && strspn(lines[last], " ") >= lens[last]) last--;
    for (int i = first; i <= last; i++) {
        size_t lead = 0;
        while (lead < lens[i] && lines[i][lead] == ' ') lead++;
        const size_t cut = lead >= indent ? indent : 0;
        const size_t n = strlen(out);
        snprintf(out + n, cap - n, "%s%.*s", i > first ? "\n" : "", (int)(lens[i] - cut),
                 lines[i] + cut);
    }
    return true;
}

static void check_backend(sim_backend b, const char *backend, const char *dir, code_row *rows,
                          int row_count) {
    sim_variant v[SIM_VARIANT_COUNT + 4];
    const int n = sim_methods(b, v, SIM_VARIANT_COUNT + 4);
    CHECK(n > 0, "%s lists methods", backend);
    for (int k = 0; k < n; k++) {
        const sim_method *m = sim_method_of(b, v[k]);
        CHECK(m && m->code && m->code[0], "%s %s has code", backend, m ? m->name : "?");
        CHECK(m && m->why && strlen(m->why) > 20 && m->why[strlen(m->why) - 1] == '.',
              "%s %s has a sentence for why: \"%s\"", backend, m ? m->name : "?",
              m && m->why ? m->why : "(null)");
        if (!m || !m->code) continue;
        code_row *r = NULL;
        for (int i = 0; i < row_count; i++) {
            if (strcmp(rows[i].backend, backend) == 0 && strcmp(rows[i].method, m->name) == 0) {
                r = &rows[i];
            }
        }
        CHECK(r, "sim/sim_code.list has a row for %s %s", backend, m->name);
        if (!r) continue;
        r->used = true;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, r->file);
        char *text = read_text(path);
        CHECK(text, "%s can be read", path);
        if (!text) continue;
        static char want[1 << 16];
        want[0] = 0;
        for (int i = 0; i < r->regions; i++) {
            if (i > 0) strncat(want, "\n...\n", sizeof want - strlen(want) - 1);
            CHECK(cut_region(text, r->region[i], want, sizeof want), "%s has region %s", r->file,
                  r->region[i]);
        }
        free(text);
        CHECK(strcmp(m->code, want) == 0,
              "%s %s: its code is the text between the markers in %s\n--- code:\n%s\n--- "
              "source:\n%s",
              backend, m->name, r->file, m->code, want);
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_code SOURCE_DIR\n");
        return 2;
    }
    code_row rows[ROWS_MAX];
    const int count = read_list(argv[1], rows);
    CHECK(count > 0, "sim/sim_code.list read from %s", argv[1]);
    check_backend(SIM_BACKEND_CUDA, "cuda", argv[1], rows, count);
    check_backend(SIM_BACKEND_CPU, "cpu", argv[1], rows, count);
    for (int i = 0; i < count; i++) {
        CHECK(rows[i].used, "sim/sim_code.list's row %s %s is some method's", rows[i].backend,
              rows[i].method);
    }
    /* The ladder's first CUDA rung shows its kernel, the CPU reference its loop. */
    const sim_method *naive = sim_method_of(SIM_BACKEND_CUDA, SIM_VARIANT_NAIVE);
    CHECK(naive && naive->code && strstr(naive->code, "forces_naive_kernel"),
          "naive's code is its kernel");
    const sim_method *ref = sim_method_of(SIM_BACKEND_CPU, SIM_VARIANT_BEST);
    CHECK(ref && ref->code && strstr(ref->code, "1.0 / sqrt(r2)"),
          "the reference's code is its loop");
    return test_exit("test_code");
}
