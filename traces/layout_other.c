/*
 * layout_other.c - attribution where no filesystem answers GETFSMAP: it
 * says so rather than guess.
 */
#include <stdio.h>

#include "traces.h"

int
layout_read_dir(
    const struct target *t, struct layout *l, char *err, size_t errlen)
{
	(void)l;
	snprintf(err, errlen,
	    "%s: attribution reads Linux's ext2/3/4 and xfs only", t->fstype);
	return -1;
}
