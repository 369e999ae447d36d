/*
 * dd_impl.h - what the dd workload's files share: the copy loop (dd.c)
 * and the places it writes through, the host's or a NetBSD rump kernel's
 * (dd_rump.c). The source is always read on the host; the loop counts the
 * records and hands each one to the sink as one write(), so a host file
 * and a file in the kernel's FFS see the same calls in the same order.
 */
#ifndef UBC_DD_IMPL_H
#define UBC_DD_IMPL_H

#include <sys/types.h>

#include "replay.h"

struct dd_sink {
	/*
	 * dd->out opened for the copy: made when missing, a regular file
	 * cut where the copy begins, positioned at seek blocks. -1 with why
	 * in err.
	 */
	int (*open)(const struct replay_dd *dd, char *err, size_t errlen);
	/* One write() of n bytes, landing at off (seek's bytes and after). */
	ssize_t (*write)(int fd, const void *buf, size_t n, int64_t off);
	int (*close)(int fd);
};

/* The copy of job (a struct replay_dd_job) through k, into rep. */
void replay_dd_into(const struct replay_dd_job *job, const struct dd_sink *k,
    struct replay_report *rep);

#endif
