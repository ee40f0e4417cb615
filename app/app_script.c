/* app_script.c - --script FILE: scripted key presses.
 *
 * One press per line, "frame key", e.g.
 *     # the lecture tour
 *     120 K
 *     240 Shift+P
 * The key is pressed just before that frame is drawn (frame 0 is the first),
 * through the same app_key() the window's keyboard uses, in the window and
 * headless alike. Blank lines and # comments are skipped. A line that does
 * not parse stops the program at start-up with its line number.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

static int by_frame(const void *x, const void *y) {
    const app_script_event *a = x, *b = y;
    if (a->frame != b->frame) return (a->frame > b->frame) - (a->frame < b->frame);
    return (a->line > b->line) - (a->line < b->line); /* same frame: file order */
}

static bool bad_line(const char *path, int line, const char *what) {
    fprintf(stderr, "nbody: --script %s line %d: %s\n", path, line, what);
    fprintf(stderr, "hint: lines are \"FRAME KEY\", e.g. \"120 K\" or \"240 Shift+P\"; keys: "
                    "letters, digits, Shift+X, Space, ., +, -, Tab, Esc, F1, F12\n");
    return false;
}

bool app_script_load(app *a, const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "nbody: cannot read --script %s: %s\n", path, strerror(errno));
        fprintf(stderr, "hint: check the path\n");
        return false;
    }
    app_script_event *events = NULL;
    int count = 0, cap = 0, line = 0;
    char buf[256];
    bool ok = true;
    while (ok && fgets(buf, sizeof buf, f)) {
        line++;
        char *hash = strchr(buf, '#');
        if (hash) *hash = 0;
        if (strspn(buf, " \t\r\n") == strlen(buf)) continue; /* blank or comment */
        char key_name[64], extra[8];
        long frame = 0;
        int fields = sscanf(buf, "%ld %63s %7s", &frame, key_name, extra);
        app_script_event e = {.line = line};
        if (fields != 2) {
            ok = bad_line(path, line, "expected a frame number and one key");
        } else if (frame < 0 || frame > 1000000000L) {
            ok = bad_line(path, line, "the frame number must be 0 or more");
        } else if (!app_key_parse(key_name, &e.key, &e.mods)) {
            char what[96];
            snprintf(what, sizeof what, "unknown key '%s'", key_name);
            ok = bad_line(path, line, what);
        }
        if (!ok) break;
        e.frame = (int)frame;
        if (count == cap) {
            cap = cap ? 2 * cap : 64;
            app_script_event *grown = realloc(events, sizeof *events * (size_t)cap);
            if (!grown) {
                ok = bad_line(path, line, "out of memory");
                break;
            }
            events = grown;
        }
        events[count++] = e;
    }
    fclose(f);
    if (!ok) {
        free(events);
        return false;
    }
    qsort(events, (size_t)count, sizeof *events, by_frame);
    a->out.script = events;
    a->out.script_count = count;
    a->out.script_next = 0;
    return true;
}

void app_script_dispatch(app *a) {
    while (a->out.script_next < a->out.script_count &&
           a->out.script[a->out.script_next].frame <= a->live.frame) {
        const app_script_event *e = &a->out.script[a->out.script_next++];
        app_key(a, e->key, e->mods);
    }
}
