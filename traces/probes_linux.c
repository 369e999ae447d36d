/*
 * probes_linux.c - the probes Linux offers, most exact first: probe_open's
 * "auto" takes the first that opens.
 */
#include <stddef.h>

#include "traces.h"

extern const struct probe_ops probe_tracefs_ops;
extern const struct probe_ops probe_diskstats_ops;

const struct probe_ops *const probe_table[] = {
    &probe_tracefs_ops,
    &probe_diskstats_ops,
    NULL,
};
