/* io_script.c - --script FILE: scripted key presses, read and parsed.
 *
 * One press per line, "frame key", e.g.
 *     # the lecture tour
 *     120 K
 *     240 Shift+P
 * The app presses the key just before that frame is drawn (frame 0 is the
 * first), through the same dispatch the window's keyboard uses, in the
 * window and headless alike. "FRAME caption TEXT" shows a caption, and
 * "FRAME select SET WHAT" makes a selection (io_select_parse below; the
 * app's app_select.c does it). Blank lines and # comments are skipped; lines may be of
 * any length. A line that does not parse stops the program at start-up with
 * its line number. Only a regular file is read: a directory, a FIFO or a
 * device is refused up front (a FIFO would block, or be read as empty).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <GLFW/glfw3.h> /* key codes only */

#include "io.h"

#define SCRIPT_FRAME_MAX 1000000000 /* the last frame a line can name */

static int by_frame(const void *x, const void *y) {
    const io_script_event *a = x, *b = y;
    if (a->frame != b->frame) return (a->frame > b->frame) - (a->frame < b->frame);
    return (a->line > b->line) - (a->line < b->line); /* same frame: file order */
}

/* Names --script understands beyond single letters and digits (PgUp and
 * PgDn as --help writes them); a bad line's hint lists them all. */
static const struct {
    const char *name;
    int key;
} key_names[] = {
    {"Space", GLFW_KEY_SPACE},
    {".", GLFW_KEY_PERIOD},
    {"Period", GLFW_KEY_PERIOD},
    {"+", GLFW_KEY_EQUAL},
    {"Plus", GLFW_KEY_EQUAL},
    {"-", GLFW_KEY_MINUS},
    {"Minus", GLFW_KEY_MINUS},
    {"Tab", GLFW_KEY_TAB},
    {"Esc", GLFW_KEY_ESCAPE},
    {"Escape", GLFW_KEY_ESCAPE},
    {"F1", GLFW_KEY_F1},
    {"F12", GLFW_KEY_F12},
    {"Left", GLFW_KEY_LEFT},
    {"Right", GLFW_KEY_RIGHT},
    {"Up", GLFW_KEY_UP},
    {"Down", GLFW_KEY_DOWN},
    {"PageUp", GLFW_KEY_PAGE_UP},
    {"PageDown", GLFW_KEY_PAGE_DOWN},
    {"PgUp", GLFW_KEY_PAGE_UP},
    {"PgDn", GLFW_KEY_PAGE_DOWN},
    {"Home", GLFW_KEY_HOME},
    {"F11", GLFW_KEY_F11},
    {"F5", GLFW_KEY_F5},
    {"F9", GLFW_KEY_F9},
    {"F6", GLFW_KEY_F6},
    {"F7", GLFW_KEY_F7},
    {"F8", GLFW_KEY_F8},
    {",", GLFW_KEY_COMMA},
    {"Comma", GLFW_KEY_COMMA},
    {"[", GLFW_KEY_LEFT_BRACKET},
    {"]", GLFW_KEY_RIGHT_BRACKET},
    {"Enter", GLFW_KEY_ENTER},
    {"F2", GLFW_KEY_F2},
    {"F3", GLFW_KEY_F3},
    {"F4", GLFW_KEY_F4},
    {"\\", GLFW_KEY_BACKSLASH},
    {"Backslash", GLFW_KEY_BACKSLASH},
    {"'", GLFW_KEY_APOSTROPHE},
    {"Apostrophe", GLFW_KEY_APOSTROPHE},
};

static bool bad_line(const char *path, int line, const char *what) {
    fprintf(stderr, "nbody: --script %s line %d: %s\n", path, line, what);
    fprintf(stderr, "hint: lines are \"FRAME KEY\", e.g. \"120 K\" or \"240 Shift+P\", "
                    "\"FRAME caption TEXT\" or \"FRAME select SET WHAT\" (docs/USAGE.md); keys: "
                    "letters, digits, Shift+X, and");
    for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++) { /* the table's own */
        fprintf(stderr, " %s", key_names[i].name);
    }
    fprintf(stderr, "\n");
    return false;
}

/* Opens path for reading if it is a regular file; else NULL with a message.
 * O_NONBLOCK so that opening a FIFO cannot wait for a writer; fstat then
 * tells what was opened (the file itself, not a name that may change). */
static FILE *open_regular(const char *path) {
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "nbody: cannot read --script %s: %s\n", path, strerror(errno));
        fprintf(stderr, "hint: check the path\n");
        return NULL;
    }
    struct stat st;
    const char *kind = NULL;
    if (fstat(fd, &st) != 0) {
        kind = "cannot be examined";
    } else if (S_ISDIR(st.st_mode)) {
        kind = "is a directory";
    } else if (S_ISFIFO(st.st_mode)) {
        kind = "is a FIFO (named pipe)";
    } else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
        kind = "is a device";
    } else if (!S_ISREG(st.st_mode)) {
        kind = "is not a regular file";
    }
    if (kind) {
        fprintf(stderr, "nbody: --script %s %s\n", path, kind);
        fprintf(stderr, "hint: give a text file of \"FRAME KEY\" lines (a pipe or device cannot be "
                        "read ahead of the run)\n");
        close(fd);
        return NULL;
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        fprintf(stderr, "nbody: cannot read --script %s: %s\n", path, strerror(errno));
        fprintf(stderr, "hint: free some memory\n");
        close(fd);
    }
    return f;
}

/* The next whitespace-separated word of *p: its start and length (0 at the end). */
static size_t next_word(char **p, char **word) {
    *p += strspn(*p, " \t\r\n\f\v");
    *word = *p;
    const size_t len = strcspn(*p, " \t\r\n\f\v");
    *p += len;
    return len;
}

/* Parses one line (comment already cut) into *e; false with a message. */
static bool parse_line(const char *path, int line, char *buf, io_script_event *e) {
    char *p = buf, *frame_word, *key_word, *extra;
    const size_t frame_len = next_word(&p, &frame_word);
    const size_t key_len = next_word(&p, &key_word);
    const bool caption = key_len == 7 && !strncmp(key_word, "caption", 7);
    const bool select = key_len == 6 && !strncmp(key_word, "select", 6);
    if (caption) { /* the rest of the line, trimmed, is the text */
        p += strspn(p, " \t");
        size_t len = strlen(p);
        while (len > 0 && strchr(" \t\r\n\f\v", p[len - 1])) len--;
        if (len >= IO_CAPTION_MAX) {
            char what[96];
            snprintf(what, sizeof what, "a caption of %zu bytes (at most %d)", len,
                     IO_CAPTION_MAX - 1);
            return bad_line(path, line, what);
        }
        memcpy(e->caption, p, len);
        e->caption[len] = 0;
    }
    if (select) { /* the rest of the line is the selection */
        char why[200];
        if (!io_select_parse(p, &e->select, why, sizeof why)) return bad_line(path, line, why);
        e->is_select = true;
    }
    const size_t extra_len = caption || select ? 0 : next_word(&p, &extra);
    if (frame_len == 0 || key_len == 0 || extra_len != 0) {
        return bad_line(path, line, "expected a frame number and one key (or caption TEXT)");
    }
    frame_word[frame_len] = 0;
    key_word[key_len] = 0;
    long long frame = 0; /* a whole number as every flag takes one (base.h) */
    const base_number r = base_parse_whole(frame_word, LLONG_MIN, LLONG_MAX, &frame);
    if (r == BASE_NUMBER_SYNTAX || r == BASE_NUMBER_FRACTION) {
        return bad_line(path, line, "expected a frame number and one key");
    }
    if (frame_word[0] == '-' && !(r == BASE_NUMBER_OK && frame == 0)) {
        return bad_line(path, line, "the frame number must be 0 or more");
    }
    if (r != BASE_NUMBER_OK || frame > SCRIPT_FRAME_MAX) {
        char what[160];
        snprintf(what, sizeof what,
                 "frame %.40s%s is beyond the last frame this script can address (max %d)",
                 frame_word, frame_len > 40 ? "..." : "", SCRIPT_FRAME_MAX);
        return bad_line(path, line, what);
    }
    if (!caption && !select && !io_key_parse(key_word, &e->key, &e->mods)) {
        char what[96];
        snprintf(what, sizeof what, "unknown key '%.60s%s'", key_word, key_len > 60 ? "..." : "");
        return bad_line(path, line, what);
    }
    e->frame = (int)frame;
    e->line = line;
    return true;
}

bool io_script_load(const char *path, io_script_event **out, int *out_count) {
    FILE *f = open_regular(path);
    if (!f) return false;
    io_script_event *events = NULL;
    int count = 0, cap = 0, line = 0;
    char *buf = NULL;
    size_t buf_cap = 0;
    bool ok = true;
    while (ok && getline(&buf, &buf_cap, f) != -1) {
        line++;
        char *hash = strchr(buf, '#');
        if (hash) { /* a comment, except inside a caption's text, which is refused */
            char *q = buf, *w;
            next_word(&q, &w);
            const size_t key_len = next_word(&q, &w);
            if (key_len == 7 && !strncmp(w, "caption", 7) && w < hash) {
                fprintf(stderr, "nbody: --script %s line %d: a caption cannot hold '#'\n", path,
                        line);
                fprintf(stderr, "hint: write the caption without # (it starts a comment, which "
                                "would cut the caption there)\n");
                ok = false;
                break;
            }
            *hash = 0;
        }
        if (strspn(buf, " \t\r\n\f\v") == strlen(buf)) continue; /* blank or comment */
        io_script_event e = {0};
        if (!parse_line(path, line, buf, &e)) {
            ok = false;
            break;
        }
        if (count == cap) {
            cap = cap ? 2 * cap : 64;
            io_script_event *grown = realloc(events, sizeof *events * (size_t)cap);
            if (!grown) {
                ok = bad_line(path, line, "out of memory");
                break;
            }
            events = grown;
        }
        events[count++] = e;
    }
    if (ok && ferror(f)) {
        fprintf(stderr, "nbody: cannot read --script %s: %s\n", path, strerror(errno));
        fprintf(stderr, "hint: check the file\n");
        ok = false;
    }
    free(buf);
    fclose(f);
    if (!ok) {
        free(events);
        return false;
    }
    qsort(events, (size_t)count, sizeof *events, by_frame);
    *out = events;
    *out_count = count;
    return true;
}

bool io_key_parse(const char *name, int *key, int *mods) {
    *mods = 0;
    if (strncasecmp(name, "Shift+", 6) == 0) {
        *mods = GLFW_MOD_SHIFT;
        name += 6;
    }
    if (name[0] && !name[1]) {
        const char c = name[0];
        if (c >= 'a' && c <= 'z') return *key = GLFW_KEY_A + (c - 'a'), true;
        if (c >= 'A' && c <= 'Z') return *key = GLFW_KEY_A + (c - 'A'), true;
        if (c >= '0' && c <= '9') return *key = GLFW_KEY_0 + (c - '0'), true;
    }
    for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++) {
        if (strcasecmp(name, key_names[i].name) == 0) return *key = key_names[i].key, true;
    }
    return false;
}

/* ---- selection lines ------------------------------------------------------ */

/* The next word of *p into a NUL-terminated copy (at most len - 1 bytes);
 * false at the end of the text. */
static bool word_of(const char **p, char *out, size_t len) {
    *p += strspn(*p, " \t\r\n\f\v");
    const size_t n = strcspn(*p, " \t\r\n\f\v");
    if (n == 0) return false;
    snprintf(out, len, "%.*s", (int)n, *p);
    *p += n;
    return true;
}

/* A real number word of *p in [lo, hi] into *out; false with why filled. */
static bool real_of(const char **p, const char *what, double lo, double hi, double *out, char *why,
                    size_t len) {
    char w[64];
    if (!word_of(p, w, sizeof w)) {
        snprintf(why, len, "select: %s: a number is missing", what);
        return false;
    }
    const base_number r = base_parse_real(w, out);
    if (r != BASE_NUMBER_OK || *out < lo || *out > hi) {
        snprintf(why, len, "select: %s '%.40s' is %s (%g to %g)", what, w,
                 r != BASE_NUMBER_OK ? base_number_problem(r) : "out of range", lo, hi);
        return false;
    }
    return true;
}

bool io_select_parse(const char *text, io_select *out, char *why, size_t len) {
    *out = (io_select){.op = IO_SELECT_MATCH, .galaxy = -1, .component = -1};
    const char *p = text;
    char w[64];
    long long set = 0;
    if (!word_of(&p, w, sizeof w) ||
        base_parse_whole(w, 1, IO_SELECT_SETS, &set) != BASE_NUMBER_OK) {
        snprintf(why, len, "select: expected a set number 1-%d after \"select\"", IO_SELECT_SETS);
        return false;
    }
    out->set = (int)set - 1;
    if (!word_of(&p, w, sizeof w)) {
        snprintf(why, len,
                 "select %d: what? (galaxy G, component C, speed A B, all, box X0 Y0 X1 "
                 "Y1, sphere X Y, clear, name TEXT)",
                 (int)set);
        return false;
    }
    if (!strcmp(w, "name")) {
        p += strspn(p, " \t");
        size_t n = strlen(p);
        while (n > 0 && strchr(" \t\r\n\f\v", p[n - 1])) n--;
        if (n == 0 || n >= IO_SELECT_NAME_MAX) {
            snprintf(why, len, "select: a name of 1 to %d bytes", IO_SELECT_NAME_MAX - 1);
            return false;
        }
        out->op = IO_SELECT_NAME;
        memcpy(out->name, p, n);
        out->name[n] = 0;
        return true;
    }
    bool single = true; /* clear, box and sphere stand alone */
    if (!strcmp(w, "clear")) {
        out->op = IO_SELECT_CLEAR;
    } else if (!strcmp(w, "box")) {
        out->op = IO_SELECT_BOX;
        static const char *const names[4] = {"box X0", "box Y0", "box X1", "box Y1"};
        for (int k = 0; k < 4; k++) {
            if (!real_of(&p, names[k], 0, 1, &out->rect[k], why, len)) return false;
        }
    } else if (!strcmp(w, "sphere")) {
        out->op = IO_SELECT_SPHERE;
        if (!real_of(&p, "sphere X", 0, 1, &out->rect[0], why, len) ||
            !real_of(&p, "sphere Y", 0, 1, &out->rect[1], why, len))
            return false;
    } else {
        single = false;
    }
    if (single) {
        if (word_of(&p, w, sizeof w)) {
            snprintf(why, len, "select: '%.40s' after a whole selection", w);
            return false;
        }
        return true;
    }
    /* Criteria, all of which a body must meet, each given once. */
    static const char *const criteria[] = {"all", "galaxy", "component", "speed"};
    bool seen[4] = {false};
    do {
        for (int k = 0; k < 4; k++) {
            if (strcmp(w, criteria[k]) != 0) continue;
            if (seen[k]) {
                snprintf(why, len, "select: '%s' given twice (a body meets every criterion)",
                         criteria[k]);
                return false;
            }
            seen[k] = true;
        }
        if (!strcmp(w, "all")) continue;
        if (!strcmp(w, "galaxy")) {
            long long g = 0;
            if (!word_of(&p, w, sizeof w) || base_parse_whole(w, 1, 2, &g) != BASE_NUMBER_OK) {
                snprintf(why, len, "select: galaxy 1 or galaxy 2");
                return false;
            }
            out->galaxy = (int)g - 1;
        } else if (!strcmp(w, "component")) {
            static const char *const names[] = {"disk", "bulge", "halo"};
            static const int comps[] = {NBODY_COMPONENT_DISK, NBODY_COMPONENT_BULGE,
                                        NBODY_COMPONENT_HALO};
            out->component = -1;
            if (word_of(&p, w, sizeof w)) {
                for (int k = 0; k < 3; k++) {
                    if (!strcmp(w, names[k])) out->component = comps[k];
                }
            }
            if (out->component < 0) {
                snprintf(why, len, "select: component disk, bulge or halo");
                return false;
            }
        } else if (!strcmp(w, "speed")) {
            out->speed = true;
            if (!real_of(&p, "speed A", 0, 1e300, &out->speed_lo, why, len) ||
                !real_of(&p, "speed B", out->speed_lo, 1e300, &out->speed_hi, why, len))
                return false;
        } else {
            snprintf(why, len,
                     "select: unknown '%.40s' (galaxy G, component C, speed A B, all, "
                     "box, sphere, clear, name)",
                     w);
            return false;
        }
    } while (word_of(&p, w, sizeof w));
    return true;
}
