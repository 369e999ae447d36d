/*
 * mountstats.h - what the NFS client says it did: the counters the kernel
 * keeps per NFS mount in /proc/self/mountstats, read for one mount point,
 * and the difference between two readings as JSON. They are an instrument
 * independent of the wire capture: the client counts its own WRITE and
 * COMMIT calls and the bytes it handed to the server.
 *
 *	struct mountstats a, b;
 *
 *	mountstats_read("/mnt/nfs", &a, err, sizeof(err));
 *	... the run ...
 *	mountstats_read("/mnt/nfs", &b, err, sizeof(err));
 *	json_t *o = mountstats_delta_json(&a, &b);
 */
#ifndef UBC_MOUNTSTATS_H
#define UBC_MOUNTSTATS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* One per-op line: the first five of its counters. */
struct mountstats_op {
	uint64_t ops, transmissions, timeouts, bytes_sent, bytes_recv;
};

struct mountstats {
	/* The "bytes:" line (nfs_iostat.h, NFSIOS_*BYTES). */
	uint64_t normal_write, direct_write, server_write, write_pages;
	struct mountstats_op write, commit;
};

/*
 * Finds mountpoint's entry in text (the contents of /proc/self/mountstats)
 * and reads its counters; an entry that is not NFS (no "bytes:" line) or
 * no entry is an error naming the mount point.
 */
int mountstats_parse(const char *text, const char *mountpoint,
    struct mountstats *ms, char *err, size_t errlen);
int mountstats_read(
    const char *mountpoint, struct mountstats *ms, char *err, size_t errlen);

/* What the client did between two readings; NULL when out of memory. */
json_t *mountstats_delta_json(
    const struct mountstats *before, const struct mountstats *after);

#endif
