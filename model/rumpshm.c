/*
 * rumpshm.c - the memory a rump kernel's process shares with its watchers
 * (rumpshm.h): a ring of transfers, a sample of the kernel's disk
 * statistics, and the console's tail.
 */
#include <sys/mman.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rumpshm.h"

struct rumpshm *
rumpshm_new(char *err, size_t errlen)
{
	struct rumpshm *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (s == MAP_FAILED) {
		snprintf(err, errlen,
		    "cannot map %zu bytes to share with the "
		    "NetBSD kernel: %s",
		    sizeof(*s), strerror(errno));
		return NULL;
	}
	/* Anonymous memory comes zeroed: every slot unfilled. */
	return s;
}

void
rumpshm_free(struct rumpshm *s)
{
	if (s != NULL)
		munmap(s, sizeof(*s));
}

void
rumpshm_put(struct rumpshm *s, const struct rumpbio *b)
{
	uint64_t n = atomic_fetch_add(&s->head, 1);
	struct rumpshm_slot *sl = &s->slot[n % RUMPSHM_SLOTS];
	struct timespec pause = {0, 100000};

	/*
	 * The slot is free once its last record (n - RUMPSHM_SLOTS) was
	 * taken. Until then the completion waits: nothing is lost, and a
	 * reader that drains every interval leaves a ring of 65,536 records
	 * full only past half a million transfers a second.
	 */
	while (__atomic_load_n(&s->tail, __ATOMIC_ACQUIRE) + RUMPSHM_SLOTS <= n)
		nanosleep(&pause, NULL);
	sl->bio = *b;
	atomic_store_explicit(&sl->seq, n + 1, memory_order_release);
}

int
rumpshm_take(struct rumpshm *s, struct rumpbio *b)
{
	struct rumpshm_slot *sl = &s->slot[s->tail % RUMPSHM_SLOTS];

	if (atomic_load_explicit(&sl->seq, memory_order_acquire) != s->tail + 1)
		return 0;
	*b = sl->bio;
	__atomic_store_n(&s->tail, s->tail + 1, __ATOMIC_RELEASE);
	return 1;
}

void
rumpshm_iostats_put(
    struct rumpshm *s, uint64_t gen, const void *raw, size_t len)
{
	if (len > sizeof(s->iostats))
		len = sizeof(s->iostats);
	atomic_fetch_add(&s->iostats_seq, 1);
	s->iostats_gen = gen;
	s->iostats_len = len;
	memcpy(s->iostats, raw, len);
	atomic_fetch_add(&s->iostats_seq, 1);
}

size_t
rumpshm_iostats_get(struct rumpshm *s, uint64_t *gen, void *buf, size_t len)
{
	for (;;) {
		uint64_t seq = atomic_load(&s->iostats_seq);
		size_t n;

		if (seq & 1)
			continue;
		*gen = s->iostats_gen;
		n = s->iostats_len < len ? s->iostats_len : len;
		memcpy(buf, s->iostats, n);
		if (atomic_load(&s->iostats_seq) == seq)
			return n;
	}
}

void
rumpshm_console_put(struct rumpshm *s, char c)
{
	uint64_t p = atomic_fetch_add(&s->console_pos, 1);

	s->console[p % RUMPSHM_CONSOLE] = c;
}

void
rumpshm_console_get(struct rumpshm *s, char *buf, size_t len)
{
	uint64_t end = atomic_load(&s->console_pos), start = 0;
	size_t o = 0;

	if (len == 0)
		return;
	if (end > RUMPSHM_CONSOLE)
		start = end - RUMPSHM_CONSOLE;
	if (end - start >= len)
		start = end - (len - 1);
	for (uint64_t p = start; p < end; p++)
		buf[o++] = s->console[p % RUMPSHM_CONSOLE];
	buf[o] = '\0';
}

void
rumpshm_console_clear(struct rumpshm *s)
{
	atomic_store(&s->console_pos, 0);
}
