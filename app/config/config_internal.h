/* config_internal.h - what the files of config/ share and nobody outside sees. */
#ifndef NBODY_CONFIG_INTERNAL_H
#define NBODY_CONFIG_INTERNAL_H

#include "config.h"

/* Applies --name value to cfg (value NULL for a switch). Returns 0, or 2
 * after printing one line naming the flag and the user's text plus a hint
 * (config_knobs.c). */
int config_knob_parse(config *cfg, config_knob k, const char *value);

#endif /* NBODY_CONFIG_INTERNAL_H */
