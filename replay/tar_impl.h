/*
 * tar_impl.h - what the tar workload's files share: the extraction loop
 * (tar.c) and the sinks it writes through. The loop reads the archive,
 * refuses what is unsafe, and counts every data block it hands the sink:
 * the application layer's write() sizes, the same whatever the sink, so a
 * host directory and a NetBSD rump kernel's FFS see the same calls in the
 * same order.
 */
#ifndef UBC_TAR_IMPL_H
#define UBC_TAR_IMPL_H

#include <archive_entry.h>

#include "replay.h"

/* Each returns 0, or -1 with why in err. */
struct tar_sink {
	void *ctx;
	/* Makes the entry: a directory, a link, or a file opened. */
	int (*header)(
	    void *ctx, struct archive_entry *e, char *err, size_t errlen);
	/* One block of the file's data, at off: one write(). */
	int (*data)(void *ctx, const void *buf, size_t size, int64_t off,
	    char *err, size_t errlen);
	/* The entry done: owner, mode, times; fsync'd when sync is set. */
	int (*finish)(void *ctx, struct archive_entry *e, int sync, char *err,
	    size_t errlen);
	/* The archive done: what was left for the end (directories' modes). */
	int (*close)(void *ctx, char *err, size_t errlen);
};

/* Extracts job->archive through k, into rep. */
void replay_tar_into(const struct replay_tar_job *job, const struct tar_sink *k,
    struct replay_report *rep);

#endif
