/* io_script.c - --script FILE: scripted key presses, read and parsed.
 *
 * One press per line, "frame key", e.g.
 *     # the lecture tour
 *     120 K
 *     240 Shift+P
 * The app presses the key just before that frame is drawn (frame 0 is the
 * first), through the same dispatch the window's keyboard uses, in the
 * window and headless alike. Blank lines and # comments are skipped; lines may be of
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

static bool bad_line(const char *path, int line, const char *what) {
    fprintf(stderr, "nbody: --script %s line %d: %s\n", path, line, what);
    fprintf(stderr, "hint: lines are \"FRAME KEY\", e.g. \"120 K\" or \"240 Shift+P\", or "
                    "\"FRAME caption TEXT\"; keys: letters, digits, Shift+X, Space, ., +, -, Tab, "
                    "Esc, F1, F12\n");
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
    const size_t extra_len = caption ? 0 : next_word(&p, &extra);
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
    if (!caption && !io_key_parse(key_word, &e->key, &e->mods)) {
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
        if (hash) *hash = 0;
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

/* Names --script understands beyond single letters and digits. */
static const struct {
    const char *name;
    int key;
} key_names[] = {
    {"Space", GLFW_KEY_SPACE},    {".", GLFW_KEY_PERIOD},        {"Period", GLFW_KEY_PERIOD},
    {"+", GLFW_KEY_EQUAL},        {"Plus", GLFW_KEY_EQUAL},      {"-", GLFW_KEY_MINUS},
    {"Minus", GLFW_KEY_MINUS},    {"Tab", GLFW_KEY_TAB},         {"Esc", GLFW_KEY_ESCAPE},
    {"Escape", GLFW_KEY_ESCAPE},  {"F1", GLFW_KEY_F1},           {"F12", GLFW_KEY_F12},
    {"Left", GLFW_KEY_LEFT},      {"Right", GLFW_KEY_RIGHT},     {"Up", GLFW_KEY_UP},
    {"Down", GLFW_KEY_DOWN},      {"PageUp", GLFW_KEY_PAGE_UP},  {"PageDown", GLFW_KEY_PAGE_DOWN},
    {"Home", GLFW_KEY_HOME},      {"F11", GLFW_KEY_F11},         {"F5", GLFW_KEY_F5},
    {"F9", GLFW_KEY_F9},          {",", GLFW_KEY_COMMA},         {"Comma", GLFW_KEY_COMMA},
    {"[", GLFW_KEY_LEFT_BRACKET}, {"]", GLFW_KEY_RIGHT_BRACKET}, {"Enter", GLFW_KEY_ENTER},
    {"F2", GLFW_KEY_F2},          {"F3", GLFW_KEY_F3},           {"F4", GLFW_KEY_F4},
    {"\\", GLFW_KEY_BACKSLASH},   {"Backslash", GLFW_KEY_BACKSLASH},
};

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
