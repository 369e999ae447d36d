/*
 * blkev.h - block-layer events, one per bio queued, bio split, request
 * issued and request completed, and their reduction into struct devstats
 * per device and per phase. The exact probe feeds it live; a trace file
 * read back (ubcreplay report TRACE) feeds it the same events, so both give
 * the same statistics.
 *
 *	uint32_t devs[] = {BLKEV_DEV(7, 0)};
 *	struct blkev_acc *a = blkev_acc_new(devs, 1, t0_ns);
 *	blkev_acc_add(a, &ev);			in time order
 *	blkev_acc_mark(a, now_ns, out);		out[0]: the phase since t0
 *	blkev_acc_free(a);
 *
 * Counting rules (what this kernel does, measured on loop, virtio and SCSI
 * devices):
 * - A device request is counted when it is issued (block_rq_issue) and
 *   carries bytes. An issued request without bytes whose flags say flush is
 *   a cache flush: counted apart, in devstats.flushes.
 * - A write inside a flush sequence completes twice: once with its bytes,
 *   then again with none when the sequence ends. Only the first completion
 *   is matched to the issue; a completion without bytes never matches a
 *   request that had some.
 * - An empty write that asks for a preflush is never issued as a write (the
 *   flush machinery issues a flush for it) but diskstats counts it as a write
 *   op of 0 bytes: it is counted at its bio, in devstats.empty_preflush.
 * - A bio larger than the device takes in one request is split
 *   (block_split): the front part goes on as a request of its own, and the
 *   rest is submitted again without a second block_bio_queue (it is already
 *   marked traced). diskstats counts no merge for a split, so the merges it
 *   counts are bios + splits - requests, per device and direction.
 */
#ifndef UBC_BLKEV_H
#define UBC_BLKEV_H

#include <stddef.h>
#include <stdint.h>

#include "devstats.h"

/* The kernel's dev_t inside trace events: major in the top 12 bits. */
#define BLKEV_DEV(major, minor) ((uint32_t)(major) << 20 | (uint32_t)(minor))
#define BLKEV_MAJOR(dev)        ((unsigned)((dev) >> 20))
#define BLKEV_MINOR(dev)        ((unsigned)((dev)&0xfffff))

enum blkev_kind {
	BLKEV_QUEUE = 'Q',    /* block_bio_queue: a bio submitted */
	BLKEV_ISSUE = 'I',    /* block_rq_issue: a request sent to the device */
	BLKEV_COMPLETE = 'C', /* block_rq_complete */
	BLKEV_SPLIT = 'S',    /* block_split: sector the front part's start,
	                         nr_sector its length (up to the rest's start) */
	/*
	 * Not events of the kernel's but records of the probe, so that a
	 * stream of records (live, or read back from a trace file) says all
	 * that the statistics are made from:
	 */
	BLKEV_LOST = 'L', /* sector: events lost before this point */
	BLKEV_KERN = 'K', /* diskstats over the phase ending at the next
	                     mark, for dev: flags BLKEV_OP_READ or _WRITE
	                     with sector ops, bytes bytes, nr_sector
	                     merges; or BLKEV_OP_FLUSH with sector the
	                     flushes */
	BLKEV_MARK = 'M', /* a phase ends at ts_ns; sector 1 when its
	                     statistics were reported, 0 at a start */
};

/* The operation and flags of rwbs, the string the block events carry. */
enum {
	BLKEV_OP_READ = 1,
	BLKEV_OP_WRITE,
	BLKEV_OP_DISCARD,
	BLKEV_OP_FLUSH,
	BLKEV_OP_OTHER,
	BLKEV_OP_MASK = 7,
	BLKEV_PREFLUSH = 1 << 3, /* 'F' before the operation */
	BLKEV_FUA = 1 << 4,      /* 'F' after it */
	BLKEV_RAHEAD = 1 << 5,
	BLKEV_SYNC = 1 << 6,
	BLKEV_META = 1 << 7,
	BLKEV_SECURE = 1 << 8, /* "DE": secure erase */
};

struct blkev {
	int64_t ts_ns;  /* the trace clock: CLOCK_MONOTONIC */
	uint32_t dev;   /* BLKEV_DEV(major, minor) */
	char kind;      /* enum blkev_kind */
	unsigned flags; /* BLKEV_OP_* | BLKEV_PREFLUSH | ... */
	uint64_t sector;
	uint32_t nr_sector;
	uint64_t bytes; /* issue: the request's bytes; else sectors */
	int32_t error;  /* complete: the kernel's error, 0 when fine */
};

/*
 * rwbs ("WS", "FWFSM", "FF", "RA") to flags; 0 when the string is not one.
 * blkev_rwbs_string does the reverse into buf (at least 12 bytes).
 */
unsigned blkev_rwbs_parse(const char *rwbs);
const char *blkev_rwbs_string(unsigned flags, char *buf, size_t len);

struct blkev_acc;

/*
 * An accumulator for the devices devs[0 .. ndev-1]; events of other devices
 * are ignored. t0_ns starts the first phase. NULL when out of memory.
 */
struct blkev_acc *blkev_acc_new(
    const uint32_t *devs, size_t ndev, int64_t t0_ns);
void blkev_acc_add(struct blkev_acc *a, const struct blkev *e);
/* Events lost before the next one added, counted into the current phase. */
void blkev_acc_lost(struct blkev_acc *a, uint64_t events);
/*
 * Ends the phase at now_ns: out[i] (may be NULL) gets what devs[i] did, and
 * the next phase starts. Requests in flight stay in flight across it.
 */
void blkev_acc_mark(struct blkev_acc *a, int64_t now_ns, struct devstats *out);
void blkev_acc_free(struct blkev_acc *a);

/*
 * One issued data request's place, kept for attribution (model/layout.h):
 * sector and bytes on the device, and its direction (DIR_READ, DIR_WRITE).
 */
struct blkev_xfer {
	uint64_t sector;
	uint64_t bytes;
	uint8_t dir;
};

struct blkev_xfers {
	struct blkev_xfer *x;
	size_t n, cap;
	uint64_t dropped; /* requests not kept: out of memory */
};

/*
 * From now on, keep each issued data request's place, per device and phase.
 * blkev_acc_take_xfers hands over those of devs[i] in the phase the last
 * mark ended (the caller frees out->x); empty when they were not kept.
 */
void blkev_acc_keep_xfers(struct blkev_acc *a);
void blkev_acc_take_xfers(
    struct blkev_acc *a, size_t i, struct blkev_xfers *out);

/*
 * Any record: an event is added, a lost count counted, kernel counters kept
 * for the phase, and a mark ends the phase into out (may be NULL).
 */
void blkev_apply(
    struct blkev_acc *a, const struct blkev *r, struct devstats *out);

/*
 * The BLKEV_KERN records for dev of one phase's diskstats delta d, into
 * r[0 .. 2] (read, write, flush). Returns 3.
 */
size_t blkev_kern_records(
    uint32_t dev, int64_t ts_ns, const struct devstats *d, struct blkev *r);

#endif
