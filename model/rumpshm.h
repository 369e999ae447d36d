/*
 * rumpshm.h - what a NetBSD rump kernel's process shares with the probes
 * that watch it from the parent: memory mapped shared before the kernel's
 * process is forked, written there, read here.
 *
 * - Every transfer the kernel sent its block device (its rumpuser_bio
 *   hypercall): a record when it is issued and one when it completes,
 *   with operation, offset, length and time (CLOCK_MONOTONIC). They come from
 *   several threads; each takes a slot with one atomic add, fills it, then
 *   publishes it. The reader takes the published slots in order. A writer
 *   a whole ring ahead of the reader waits for it: nothing is dropped.
 * - The kernel's own disk statistics, the raw bytes of sysctl hw.iostats
 *   as the kernel returned them, sampled every interval under a sequence
 *   count, and which kernel (generation) they are from: each run has a
 *   fresh kernel whose counters start at zero.
 * - The tail of the kernel's console, where a panic's message is.
 *
 *	struct rumpshm *s = rumpshm_new(err, errlen);	before the fork
 *	rumpshm_put(s, &rec);				in the kernel's process
 *	while (rumpshm_take(s, &rec)) ...		in the parent
 *	rumpshm_free(s);
 */
#ifndef UBC_RUMPSHM_H
#define UBC_RUMPSHM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define RUMPSHM_SLOTS   (1u << 16)
#define RUMPSHM_IOSTATS 8192 /* bytes of hw.iostats kept */
#define RUMPSHM_CONSOLE 4096 /* bytes of console kept */

enum { RUMPBIO_READ = 1, RUMPBIO_WRITE = 2, RUMPBIO_SYNC = 4 };

/*
 * One transfer's issue (the hypercall made) or completion (its callback),
 * in the order the kernel's threads reached the ring.
 */
struct rumpbio {
	char kind;     /* 'I' issue, 'C' completion (blkev's letters) */
	int op;        /* RUMPBIO_* as the hypercall's op */
	int error;     /* completion: the error, 0 when fine */
	int64_t off;   /* bytes into the image */
	uint64_t len;  /* issue: bytes asked; completion: bytes moved */
	int64_t ts_ns; /* CLOCK_MONOTONIC */
};

struct rumpshm_slot {
	_Atomic uint64_t seq; /* its number + 1 once filled */
	struct rumpbio bio;
};

struct rumpshm {
	_Atomic uint64_t head; /* slots taken by writers */
	uint64_t tail;         /* the reader's next */
	struct rumpshm_slot slot[RUMPSHM_SLOTS];

	/* hw.iostats: seq odd while written. */
	_Atomic uint64_t iostats_seq;
	uint64_t iostats_gen; /* the kernel's number, from 1 */
	size_t iostats_len;
	unsigned char iostats[RUMPSHM_IOSTATS];

	/* The console's last bytes: a ring of RUMPSHM_CONSOLE, pos total. */
	_Atomic uint64_t console_pos;
	char console[RUMPSHM_CONSOLE];
};

struct rumpshm *rumpshm_new(char *err, size_t errlen);
void rumpshm_free(struct rumpshm *s);

/* Writers (any thread of the kernel's process). */
void rumpshm_put(struct rumpshm *s, const struct rumpbio *b);
void rumpshm_iostats_put(
    struct rumpshm *s, uint64_t gen, const void *raw, size_t len);
void rumpshm_console_put(struct rumpshm *s, char c);

/*
 * The reader. rumpshm_take: the next record, 1, or 0 when there is none
 * yet (one published out of order waits for those before it).
 * rumpshm_iostats_get: the latest sample (a consistent copy) into buf.
 * rumpshm_console_get: the console's kept tail, as a string.
 */
int rumpshm_take(struct rumpshm *s, struct rumpbio *b);
size_t rumpshm_iostats_get(
    struct rumpshm *s, uint64_t *gen, void *buf, size_t len);
void rumpshm_console_get(struct rumpshm *s, char *buf, size_t len);
/* Forgets the console, before a kernel starts. */
void rumpshm_console_clear(struct rumpshm *s);

#endif
