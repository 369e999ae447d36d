/*
 * record_other.c - recording where there is no ptrace with seccomp
 * (anything but Linux, for now): said plainly; see record.h.
 */
#include <stdio.h>

#include "record.h"

int
record_run(char *const argv[], const char *dir, const char *path,
    struct record_stats *st, char *err, size_t errlen)
{
	(void)argv;
	(void)dir;
	(void)path;
	(void)st;
	snprintf(err, errlen,
	    "recording a command is supported only on Linux (ptrace with "
	    "seccomp)");
	return -1;
}
