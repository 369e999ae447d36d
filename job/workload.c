/*
 * workload.c - what the workload rows share: their state made and given
 * back, and the names of the options every one describes.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"

void *
job_wpriv_new(struct job *j, size_t size, char *err, size_t errlen)
{
	if ((j->wpriv = calloc(1, size)) == NULL)
		snprintf(err, errlen, "out of memory");
	return j->wpriv;
}

void
job_wpriv_free(struct job *j)
{
	free(j->wpriv);
	j->wpriv = NULL;
}

const char *
job_fsync_name(enum replay_fsync f)
{
	return f == FSYNC_NONE ? "none" : f == FSYNC_FILE ? "file" : "end";
}

int
job_input_path(
    const struct job *j, const char *what, char *path, char *err, size_t errlen)
{
	if (realpath(j->o->archive, path) != NULL)
		return 0;
	snprintf(err, errlen, "cannot resolve %s '%s': %s", what, j->o->archive,
	    strerror(errno));
	return -1;
}
