/* main.c - nbody's entry point: parse the command line, check the files it
 * names, make the app, run the window or the headless front-end, exit with
 * a status that says how it went (0 ok, 1 runtime failure, 2 bad command
 * line, 3 a headless run that blew up, 128 + the signal when SIGINT or
 * SIGTERM stopped a run after its outputs were written).
 *
 *     nbody                      # window, 16384-body Plummer sphere
 *     nbody --headless --frames 300 --screenshot out.png
 *     nbody --benchmark --variant all --n 16384,262144
 *     nbody --help
 */
#include <stdio.h>

#include "app.h"
#include "bench.h"

int main(int argc, char **argv) {
    /* Lines reach a redirected stdout as they happen, not in 4 KiB blocks
     * at exit (which a killed run would lose). */
    setvbuf(stdout, NULL, _IOLBF, 0);
    config cfg;
    switch (config_parse(argc, argv, &cfg)) {
    case CONFIG_HELP:
        config_usage(stdout);
        app_keys_usage(stdout);
        return 0;
    case CONFIG_HELP_MARKDOWN:
        printf("# Keys and flags\n\nMade by `nbody --help-markdown` from the tables the keys and "
               "flags are read from (app/config, app/app_keys.c, app/ui); a test fails when this "
               "page and the program differ.\n\n");
        app_keys_markdown(stdout);
        printf("\n");
        config_markdown(stdout);
        return 0;
    case CONFIG_BAD:
        return 2;
    case CONFIG_RUN:
        break;
    }
    if (!io_check_config(&cfg)) return 2;
    /* Every output that may name stdout ("-", /dev/stdout); an output added
     * to the config belongs here too. */
    const char **outputs[] = {&cfg.screenshot, &cfg.dump, &cfg.status_json,
                              &cfg.json,       &cfg.plot, &cfg.record};
    char stdout_name[32] = "";
    if (!io_claim_stdout(outputs, (int)(sizeof outputs / sizeof outputs[0]), stdout_name,
                         sizeof stdout_name)) {
        return 1;
    }
    cfg.stdout_name = stdout_name[0] ? stdout_name : NULL; /* "wrote stdout", not /dev/fd/N */
    if (cfg.benchmark) return bench_run(&cfg);
    if (cfg.encode) return io_encode(cfg.encode, cfg.record, cfg.record_fps); /* no simulation */
    base_signal_install(); /* after --benchmark, which Ctrl-C simply stops */
    int status = 0;
    app *a = app_create(&cfg, &status);
    if (!a) return status;
    const int rc = cfg.headless ? app_headless_run(a) : app_window_run(a);
    app_destroy(a);
    return rc;
}
