/* base.h - the app's leaf helpers: the clock, the HUD's message line, A/B
 * trials, signals, reading and writing numbers (one grammar for every
 * flag, script and environment variable) and where the data files are.
 *
 * Nothing here knows the app, its state or any other part of app/: every
 * other part of app/ may use it, and it uses only the C library. State is
 * passed in (a message line, a trial); the one exception is the signal
 * flag, which a handler can reach no other way.
 */
#ifndef NBODY_BASE_H
#define NBODY_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the clock ----------------------------------------------------------- */

/* Monotonic seconds: the app's one clock. */
double base_now(void);

/* ---- the message line ---------------------------------------------------- */

#define BASE_MSG_SECONDS 3.0 /* how long a posted message stays on the HUD */

/* The line the HUD flashes (key presses, files written, refusals). */
typedef struct base_msg {
    char text[192];
    double until; /* base_now() after which it is no longer shown */
} base_msg;

/* Shows the formatted text for BASE_MSG_SECONDS and prints it on stdout
 * as "nbody: <text>". */
void base_msg_post(base_msg *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Shows text for `seconds` without printing it (the terminal already has
 * its own line). Text longer than the line keeps its end. */
void base_msg_show(base_msg *m, double seconds, const char *text);
/* Whether the line is to be shown at time now. */
bool base_msg_visible(const base_msg *m, double now);

/* ---- A/B trials ---------------------------------------------------------- */

/* Which of two ways to do a frame is faster, timed on whole frames: the
 * frames of way A (after a few to warm up), then those of way B, then the
 * faster is kept until the trial is started again. The clock is passed in
 * (base_now() in the app, made-up times in the tests). */
typedef struct base_trial_desc {
    int warm_a, warm_b;  /* frames to let pass before timing each way, ... */
    double warm_seconds; /* ... or fewer when they take longer than this; 0: no limit */
    int timed;           /* frame ends timed each way, ... */
    double max_seconds;  /* ... or fewer when they take longer than this; 0: no limit */
    double b_margin;     /* B is chosen only when A's frame is longer than B's times this */
    double every;        /* seconds after which a decided trial starts again; 0: never */
    /* A timed frame of B longer than b_give_up times A's mean frame, and
     * longer than give_up_seconds, ends the trial at once with A kept: B
     * is slower by far, and its frames are long enough to see. 0: never. */
    double b_give_up, give_up_seconds;
} base_trial_desc;

typedef enum base_trial_phase {
    BASE_TRIAL_WARM_A = 0,
    BASE_TRIAL_TIME_A,
    BASE_TRIAL_WARM_B,
    BASE_TRIAL_TIME_B,
    BASE_TRIAL_DECIDED
} base_trial_phase;

typedef struct base_trial {
    base_trial_desc desc;
    base_trial_phase phase;
    int count;          /* frames ended in this phase */
    double since;       /* when the phase's first timed frame ended */
    double a_s, b_s;    /* the last trial's mean frame each way, seconds */
    bool a_chosen;      /* its verdict */
    bool b_given_up;    /* ... reached on one frame of B (b_s is that frame) */
    double last_end;    /* when the last frame ended (0: none yet) */
    uint64_t signature; /* what the frames did when the trial started */
    double started;     /* when it started */
} base_trial;

/* Starts a trial (way A first) of frames described by signature. */
void base_trial_start(base_trial *t, uint64_t signature, double now);
/* Whether this frame is done way A. A frame whose signature differs from
 * the trial's starts a new trial (the frames timed so far were another
 * frame's), and so does a decided trial older than desc.every. */
bool base_trial_use_a(base_trial *t, uint64_t signature, double now);
/* At the end of every frame: times the trial. true when this call reached
 * a verdict (a_s, b_s and a_chosen are new). */
bool base_trial_frame_end(base_trial *t, double now);
/* A signature from whole numbers (FNV-1a over their bits). */
uint64_t base_signature(const int64_t *parts, int count);

/* ---- signals ------------------------------------------------------------- */

/* The first SIGINT or SIGTERM asks the front-end to finish the frame,
 * write every output and exit with 128 + the signal; a second one ends the
 * process at once. SIGPIPE is ignored, so writing to a closed pipe is a
 * reported failure (EPIPE). */
void base_signal_install(void);
/* The first signal caught (SIGINT, SIGTERM), or 0. */
int base_signal_caught(void);
/* The exit status of a run that went ok or not: 1 when not ok (an output
 * failed), else 128 + the signal when one stopped it, else 0. */
int base_signal_exit_code(bool ok);

/* ---- text and numbers ---------------------------------------------------- */

/* 16384 -> "16,384" into out. */
void base_commas(long v, char *out, size_t len);
/* "" for 1, else "s": "1 frame", "2 frames". */
const char *base_plural(long n);
/* qsort's comparison of doubles, ascending. */
int base_cmp_double(const void *x, const void *y);
/* The k-th smallest of v[0 .. n-1] (0-based; no NaN), in O(n) on average;
 * v is reordered. */
float base_kth_float(float *v, ptrdiff_t n, ptrdiff_t k);
/* s as a JSON string, quoted (quotes, backslashes and control characters
 * escaped), into out; cut short to fit len. Returns its length. */
size_t base_json_string(char *out, size_t len, const char *s);

/* ---- numbers in text (base_number.c) --------------------------------------- */

/* The one grammar of numbers, for every flag, knob, --script line and
 * environment variable (docs/USAGE.md, "Numbers"):
 *     [+|-] DIGITS [. [DIGITS]] [(e|E) [+|-] DIGITS]   or   [+|-] . DIGITS [...]
 * decimal digits only, nothing before or after: no spaces, no 0x, no inf
 * or nan, no separators. 100, +100, 1e2, 100.0 and 0100 are one hundred.
 * A real is the nearest double; a whole number is a number whose value is
 * whole (1e2 yes, 2.5 no), in digits of any length up to its range, or,
 * with a point or exponent, up to 2^53, where doubles hold every one. */
typedef enum base_number {
    BASE_NUMBER_OK = 0,
    BASE_NUMBER_SYNTAX,   /* not a number of the grammar */
    BASE_NUMBER_FRACTION, /* a whole number was wanted */
    BASE_NUMBER_INEXACT,  /* a whole number past 2^53 written with a point or exponent */
    BASE_NUMBER_RANGE,    /* beyond the range asked for, or what a double holds (a real
                             beyond 1.8e308, or one so small that it becomes 0) */
} base_number;

/* A real: a finite double, not a non-zero number rounded to 0. */
base_number base_parse_real(const char *s, double *out);
/* A whole number in [min, max]. */
base_number base_parse_whole(const char *s, long long min, long long max, long long *out);
/* A whole number in [0, 2^64 - 1] (seeds). */
base_number base_parse_u64(const char *s, uint64_t *out);
/* What was wrong, for a message: "not a number", "not a whole number",
 * "out of range", ... */
const char *base_number_problem(base_number r);
/* v in the shortest %g form that reads back as exactly v (at most 17
 * digits), whole numbers below 10^17 in all their digits: 0.05, 1e-06,
 * 0.30000000000000004, 100000. */
void base_real_text(double v, char *out, size_t len);

/* ---- data files ---------------------------------------------------------- */

/* The folder holding shaders/ and assets/: $NBODY_DATA_DIR, next to the
 * binary, the install tree (../share/nbody), else source_dir. */
void base_data_dir(const char *source_dir, char *dir, size_t len);

#endif /* NBODY_BASE_H */
