/* main.c - nbody's entry point: parse the command line, set up the
 * simulation, run the window or the headless front-end, exit with a status
 * that says how it went (0 ok, 1 runtime failure, 2 bad command line,
 * 128 + the signal when SIGINT or SIGTERM stopped a run after its outputs
 * were written).
 *
 *     nbody                      # window, 16384-body Plummer sphere
 *     nbody --headless --frames 300 --screenshot out.png
 *     nbody --benchmark --variant all --n 16384,262144
 *     nbody --help
 */
#include <stdio.h>

#include "app.h"

int main(int argc, char **argv) {
    /* Lines reach a redirected stdout as they happen, not in 4 KiB blocks
     * at exit (which a killed run would lose). */
    setvbuf(stdout, NULL, _IOLBF, 0);
    app a = {0};
    int rc = app_cli_parse(argc, argv, &a.cfg);
    if (rc == 1) return 0; /* --help */
    if (rc != 0) return rc;
    /* Every output that may name stdout ("-", /dev/stdout); an output added
     * to app_config belongs here too. */
    const char **outputs[] = {&a.cfg.screenshot, &a.cfg.dump, &a.cfg.status_json, &a.cfg.json,
                              &a.cfg.plot};
    char stdout_name[32];
    if (!app_output_claim_stdout(outputs, (int)(sizeof outputs / sizeof outputs[0]), stdout_name,
                                 sizeof stdout_name)) {
        return 1;
    }
    if (a.cfg.width == 0) a.cfg.width = 1280;
    if (a.cfg.height == 0) a.cfg.height = 720;
    if (a.cfg.benchmark) return app_bench_run(&a.cfg);
    if (a.cfg.encode) return app_record_encode(&a.cfg); /* PNGs to a video, no simulation */
    app_signal_install(); /* after --benchmark, which Ctrl-C simply stops */
    /* A bad script is a bad command line: exit 2, before anything runs. */
    if (a.cfg.script && !app_script_load(&a, a.cfg.script)) return 2;
    if (!app_create_sim(&a)) return 1;
    rc = a.cfg.headless ? app_headless_run(&a) : app_window_run(&a);
    app_destroy(&a); /* no-op when the front-end already tore down */
    return rc;
}
