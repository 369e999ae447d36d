/*
 * probes_other.c - systems without a probe yet (NetBSD's hw.iostats and
 * FreeBSD's devstat are to come): only the none probe, which says plainly
 * that the devices cannot be observed here.
 */
#include <stddef.h>

#include "traces.h"

const struct probe_ops *const probe_table[] = {
    NULL,
};
