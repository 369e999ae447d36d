/*
 * blkev.c - block events to device statistics; see blkev.h for the counting
 * rules.
 *
 * Requests in flight are kept in a hash table keyed by device and start
 * sector (flushes, which have no sector, by device alone), so that each
 * completion finds its issue: that gives the latency of every request and
 * the time each device was busy.
 */
#include <stdlib.h>
#include <string.h>

#include "blkev.h"

#define SECTOR_BYTES 512

unsigned
blkev_rwbs_parse(const char *rwbs)
{
	unsigned f = 0;
	const char *s = rwbs;

	/* A leading F is a preflush when an operation letter follows it. */
	if (s[0] == 'F' && s[1] != '\0' && strchr("WRDFN", s[1]) != NULL) {
		f |= BLKEV_PREFLUSH;
		s++;
	}
	switch (*s) {
	case 'R':
		f |= BLKEV_OP_READ;
		break;
	case 'W':
		f |= BLKEV_OP_WRITE;
		break;
	case 'D':
		f |= BLKEV_OP_DISCARD;
		if (s[1] == 'E') {
			f |= BLKEV_SECURE;
			s++;
		}
		break;
	case 'F':
		f |= BLKEV_OP_FLUSH;
		break;
	case 'N':
		f |= BLKEV_OP_OTHER;
		break;
	default:
		return 0;
	}
	for (s++; *s != '\0'; s++) {
		switch (*s) {
		case 'F':
			f |= BLKEV_FUA;
			break;
		case 'A':
			f |= BLKEV_RAHEAD;
			break;
		case 'S':
			f |= BLKEV_SYNC;
			break;
		case 'M':
			f |= BLKEV_META;
			break;
		default:
			return 0;
		}
	}
	return f;
}

const char *
blkev_rwbs_string(unsigned flags, char *buf, size_t len)
{
	char s[12];
	size_t n = 0;

	if (flags & BLKEV_PREFLUSH)
		s[n++] = 'F';
	switch (flags & BLKEV_OP_MASK) {
	case BLKEV_OP_READ:
		s[n++] = 'R';
		break;
	case BLKEV_OP_WRITE:
		s[n++] = 'W';
		break;
	case BLKEV_OP_DISCARD:
		s[n++] = 'D';
		if (flags & BLKEV_SECURE)
			s[n++] = 'E';
		break;
	case BLKEV_OP_FLUSH:
		s[n++] = 'F';
		break;
	default:
		s[n++] = 'N';
		break;
	}
	if (flags & BLKEV_FUA)
		s[n++] = 'F';
	if (flags & BLKEV_RAHEAD)
		s[n++] = 'A';
	if (flags & BLKEV_SYNC)
		s[n++] = 'S';
	if (flags & BLKEV_META)
		s[n++] = 'M';
	s[n] = '\0';
	if (len > 0) {
		strncpy(buf, s, len - 1);
		buf[len - 1] = '\0';
	}
	return buf;
}

/* What an issued request is, for its completion. */
enum { KIND_READ = DIR_READ, KIND_WRITE = DIR_WRITE, KIND_OTHER, KIND_FLUSH };

struct inflight {
	uint32_t dev;
	uint8_t used;
	uint8_t kind;
	uint64_t sector; /* 0 for a flush */
	uint64_t bytes;
	int64_t issued_ns;
};

struct devacc {
	uint32_t dev;
	struct devstats cur;
	int have_last[DIR_N];
	uint64_t last_end[DIR_N]; /* sector after the last request */
	uint64_t run[DIR_N];      /* the sequential run going on */
	uint64_t inflight;
	int64_t busy_since_ns;
	int64_t last_flush_ns; /* in this phase; 0 before the first */
	/* diskstats over the phase, from BLKEV_KERN records */
	int has_kern;
	uint64_t kern_ops[DIR_N], kern_bytes[DIR_N], kern_merges[DIR_N];
	uint64_t kern_flushes;
	/* The requests' places, when kept: this phase's, the last one's. */
	struct blkev_xfers xfers, last;
};

struct blkev_acc {
	size_t ndev;
	struct devacc *dev;
	int64_t phase_start_ns;
	uint64_t lost;
	struct inflight *tab; /* open addressing, linear probing */
	size_t cap, used;     /* cap a power of two */
	int keep_xfers;
};

struct blkev_acc *
blkev_acc_new(const uint32_t *devs, size_t ndev, int64_t t0_ns)
{
	struct blkev_acc *a;

	if ((a = calloc(1, sizeof(*a))) == NULL)
		return NULL;
	a->cap = 1024;
	if ((a->dev = calloc(ndev > 0 ? ndev : 1, sizeof(*a->dev))) == NULL ||
	    (a->tab = calloc(a->cap, sizeof(*a->tab))) == NULL) {
		free(a->dev);
		free(a);
		return NULL;
	}
	a->ndev = ndev;
	for (size_t i = 0; i < ndev; i++)
		a->dev[i].dev = devs[i];
	a->phase_start_ns = t0_ns;
	return a;
}

void
blkev_acc_free(struct blkev_acc *a)
{
	if (a == NULL)
		return;
	for (size_t i = 0; i < a->ndev; i++) {
		free(a->dev[i].xfers.x);
		free(a->dev[i].last.x);
	}
	free(a->tab);
	free(a->dev);
	free(a);
}

static struct devacc *
find_dev(struct blkev_acc *a, uint32_t dev)
{
	for (size_t i = 0; i < a->ndev; i++)
		if (a->dev[i].dev == dev)
			return &a->dev[i];
	return NULL;
}

static size_t
slot(const struct blkev_acc *a, uint32_t dev, uint64_t sector)
{
	uint64_t h = (sector ^ ((uint64_t)dev << 32)) * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 32) & (a->cap - 1);
}

static int
grow(struct blkev_acc *a)
{
	struct inflight *old = a->tab, *tab;
	size_t oldcap = a->cap;

	if ((tab = calloc(oldcap * 2, sizeof(*tab))) == NULL)
		return -1;
	a->tab = tab;
	a->cap = oldcap * 2;
	for (size_t i = 0; i < oldcap; i++) {
		size_t s;

		if (!old[i].used)
			continue;
		for (s = slot(a, old[i].dev, old[i].sector); a->tab[s].used;
		     s = (s + 1) & (a->cap - 1))
			continue;
		a->tab[s] = old[i];
	}
	free(old);
	return 0;
}

/*
 * Same keys may be in flight twice (two flushes); they queue in probe order,
 * so the oldest is found first.
 */
static void
inflight_put(struct blkev_acc *a, const struct inflight *in)
{
	size_t s;

	if (a->used + 1 > a->cap / 2 && grow(a) == -1)
		return; /* out of memory: this one gets no latency */
	for (s = slot(a, in->dev, in->sector); a->tab[s].used;
	     s = (s + 1) & (a->cap - 1))
		continue;
	a->tab[s] = *in;
	a->tab[s].used = 1;
	a->used++;
}

static int
is_flush_kind(uint8_t kind)
{
	return kind == KIND_FLUSH;
}

/* Removes and returns the oldest entry for the key; 0 when none. */
static int
inflight_take(struct blkev_acc *a, uint32_t dev, uint64_t sector, int flush,
    struct inflight *out)
{
	size_t s, hole, next;

	for (s = slot(a, dev, sector); a->tab[s].used;
	     s = (s + 1) & (a->cap - 1)) {
		struct inflight *e = &a->tab[s];

		if (e->dev == dev && e->sector == sector &&
		    is_flush_kind(e->kind) == flush)
			break;
	}
	if (!a->tab[s].used)
		return 0;
	*out = a->tab[s];
	/* Backward-shift deletion keeps every chain unbroken. */
	hole = s;
	for (next = (hole + 1) & (a->cap - 1); a->tab[next].used;
	     next = (next + 1) & (a->cap - 1)) {
		size_t home = slot(a, a->tab[next].dev, a->tab[next].sector);

		/* Move next into the hole if its home is not in (hole, next].
		 */
		if (((next - home) & (a->cap - 1)) >=
		    ((next - hole) & (a->cap - 1))) {
			a->tab[hole] = a->tab[next];
			hole = next;
		}
	}
	a->tab[hole].used = 0;
	a->used--;
	return 1;
}

static void
busy_start(struct devacc *d, int64_t ts)
{
	if (d->inflight++ == 0)
		d->busy_since_ns = ts;
}

static void
busy_end(struct devacc *d, int64_t ts)
{
	if (d->inflight == 0)
		return;
	if (--d->inflight == 0 && ts > d->busy_since_ns)
		d->cur.busy_ns += ts - d->busy_since_ns;
}

static int
data_dir(unsigned flags)
{
	switch (flags & BLKEV_OP_MASK) {
	case BLKEV_OP_READ:
		return DIR_READ;
	case BLKEV_OP_WRITE:
		return DIR_WRITE;
	default:
		return -1;
	}
}

static void
on_queue(struct devacc *d, const struct blkev *e)
{
	int dir = data_dir(e->flags);
	struct xfer *x;
	uint64_t bytes = (uint64_t)e->nr_sector * SECTOR_BYTES;

	if (dir == -1)
		return;
	if (e->nr_sector == 0) {
		if (dir == DIR_WRITE && (e->flags & BLKEV_PREFLUSH))
			d->cur.empty_preflush++;
		return;
	}
	x = &d->cur.xfer[dir];
	x->bios++;
	x->bio_bytes += bytes;
	hist_add(&x->bio_size, bytes, 1);
	if (e->flags & BLKEV_PREFLUSH)
		x->bio_preflush++;
	if (e->flags & BLKEV_FUA)
		x->bio_fua++;
}

/* One split: the front part becomes a request the rest's bio does not. */
static void
on_split(struct devacc *d, const struct blkev *e)
{
	int dir = data_dir(e->flags);

	if (dir != -1)
		d->cur.xfer[dir].splits++;
}

static void
on_flush_issue(struct blkev_acc *a, struct devacc *d, const struct blkev *e)
{
	int64_t at = e->ts_ns - a->phase_start_ns;
	struct inflight in = {
	    .dev = e->dev, .kind = KIND_FLUSH, .issued_ns = e->ts_ns};

	if (d->cur.flushes == 0)
		d->cur.flush_first_ns = at;
	else if (e->ts_ns >= d->last_flush_ns)
		hist_add(&d->cur.flush_gap,
		    (uint64_t)(e->ts_ns - d->last_flush_ns), 1);
	d->cur.flush_last_ns = at;
	d->last_flush_ns = e->ts_ns;
	d->cur.flushes++;
	busy_start(d, e->ts_ns);
	inflight_put(a, &in);
}

static void
keep_xfer(struct blkev_xfers *k, const struct blkev *e, int dir)
{
	if (k->n == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 1024;
		struct blkev_xfer *x = realloc(k->x, cap * sizeof(*x));

		if (x == NULL) {
			k->dropped++;
			return;
		}
		k->x = x;
		k->cap = cap;
	}
	k->x[k->n++] = (struct blkev_xfer){
	    .sector = e->sector, .bytes = e->bytes, .dir = (uint8_t)dir};
}

static void
on_issue(struct blkev_acc *a, struct devacc *d, const struct blkev *e)
{
	unsigned op = e->flags & BLKEV_OP_MASK;
	int dir = data_dir(e->flags);
	struct inflight in = {.dev = e->dev,
	    .sector = e->sector,
	    .bytes = e->bytes,
	    .issued_ns = e->ts_ns};
	struct xfer *x;

	if (e->bytes == 0) {
		if (op == BLKEV_OP_FLUSH || (e->flags & BLKEV_PREFLUSH))
			on_flush_issue(a, d, e);
		return;
	}
	if (dir == -1) {
		if (op == BLKEV_OP_DISCARD) {
			d->cur.discards++;
			d->cur.discard_bytes += e->bytes;
		}
		in.kind = KIND_OTHER;
		busy_start(d, e->ts_ns);
		inflight_put(a, &in);
		return;
	}
	x = &d->cur.xfer[dir];
	x->ops++;
	x->bytes += e->bytes;
	hist_add(&x->size, e->bytes, 1);
	if (e->flags & BLKEV_FUA)
		x->fua++;
	if (d->have_last[dir] && e->sector == d->last_end[dir]) {
		x->seq_ops++;
		d->run[dir]++;
	} else {
		if (d->run[dir] > 0)
			hist_add(&x->seq_runs, d->run[dir], 1);
		d->run[dir] = 1;
	}
	d->have_last[dir] = 1;
	d->last_end[dir] = e->sector + e->bytes / SECTOR_BYTES;
	if (a->keep_xfers)
		keep_xfer(&d->xfers, e, dir);
	in.kind = (uint8_t)dir;
	busy_start(d, e->ts_ns);
	inflight_put(a, &in);
}

void
blkev_acc_keep_xfers(struct blkev_acc *a)
{
	a->keep_xfers = 1;
}

void
blkev_acc_take_xfers(struct blkev_acc *a, size_t i, struct blkev_xfers *out)
{
	memset(out, 0, sizeof(*out));
	if (i >= a->ndev)
		return;
	*out = a->dev[i].last;
	memset(&a->dev[i].last, 0, sizeof(a->dev[i].last));
}

static unsigned
clamp_bucket(uint64_t v, unsigned lo, unsigned n)
{
	unsigned b = hist_bucket(v);

	b = b < lo ? 0 : b - lo;
	return b >= n ? n - 1 : b;
}

static void
on_complete(struct blkev_acc *a, struct devacc *d, const struct blkev *e)
{
	struct inflight in;
	int flush =
	    e->nr_sector == 0 && ((e->flags & BLKEV_OP_MASK) == BLKEV_OP_FLUSH);
	uint64_t lat;

	/*
	 * A completion without bytes is a flush's, or the second completion
	 * of a write in a flush sequence, or an empty preflush write's (never
	 * issued): only a flush's has an issue to match.
	 */
	if (e->nr_sector == 0 && !flush)
		return;
	if (!inflight_take(a, e->dev, flush ? 0 : e->sector, flush, &in))
		return; /* issued before we looked, or lost */
	busy_end(d, e->ts_ns);
	if (in.kind != KIND_READ && in.kind != KIND_WRITE)
		return;
	lat = e->ts_ns > in.issued_ns ? (uint64_t)(e->ts_ns - in.issued_ns) : 0;
	{
		struct xfer *x = &d->cur.xfer[in.kind];

		hist_add(&x->lat, lat, 1);
		x->time_ns += (int64_t)lat;
		x->lat_by_size[clamp_bucket(in.bytes, 0, DEVSTATS_LAT_ROWS)]
		              [clamp_bucket(
		                  lat, DEVSTATS_LAT_COL0, DEVSTATS_LAT_COLS)]++;
	}
}

void
blkev_acc_add(struct blkev_acc *a, const struct blkev *e)
{
	struct devacc *d = find_dev(a, e->dev);

	if (d == NULL)
		return;
	switch (e->kind) {
	case BLKEV_QUEUE:
		on_queue(d, e);
		break;
	case BLKEV_SPLIT:
		on_split(d, e);
		break;
	case BLKEV_ISSUE:
		on_issue(a, d, e);
		break;
	case BLKEV_COMPLETE:
		on_complete(a, d, e);
		break;
	default:
		break;
	}
}

void
blkev_acc_lost(struct blkev_acc *a, uint64_t events)
{
	a->lost += events;
}

void
blkev_acc_mark(struct blkev_acc *a, int64_t now_ns, struct devstats *out)
{
	for (size_t i = 0; i < a->ndev; i++) {
		struct devacc *d = &a->dev[i];

		for (int k = 0; k < DIR_N; k++) {
			struct xfer *x = &d->cur.xfer[k];

			if (d->run[k] > 0)
				hist_add(&x->seq_runs, d->run[k], 1);
			d->run[k] = 0;
			x->merges = x->bios + x->splits > x->ops
			    ? x->bios + x->splits - x->ops
			    : 0;
		}
		if (d->inflight > 0 && now_ns > d->busy_since_ns) {
			d->cur.busy_ns += now_ns - d->busy_since_ns;
			d->busy_since_ns = now_ns;
		}
		d->cur.exact = 1;
		d->cur.lost_events = a->lost;
		if (d->has_kern) {
			d->cur.has_kern = 1;
			memcpy(
			    d->cur.kern_ops, d->kern_ops, sizeof(d->kern_ops));
			memcpy(d->cur.kern_bytes, d->kern_bytes,
			    sizeof(d->kern_bytes));
			memcpy(d->cur.kern_merges, d->kern_merges,
			    sizeof(d->kern_merges));
			d->cur.kern_flushes = d->kern_flushes;
		}
		d->has_kern = 0;
		if (out != NULL)
			out[i] = d->cur;
		memset(&d->cur, 0, sizeof(d->cur));
		d->last_flush_ns = 0;
		free(d->last.x);
		d->last = d->xfers;
		memset(&d->xfers, 0, sizeof(d->xfers));
	}
	a->lost = 0;
	a->phase_start_ns = now_ns;
}

static void
on_kern(struct devacc *d, const struct blkev *r)
{
	int dir = data_dir(r->flags);

	d->has_kern = 1;
	if (dir != -1) {
		d->kern_ops[dir] = r->sector;
		d->kern_bytes[dir] = r->bytes;
		d->kern_merges[dir] = r->nr_sector;
	} else if ((r->flags & BLKEV_OP_MASK) == BLKEV_OP_FLUSH)
		d->kern_flushes = r->sector;
}

void
blkev_apply(struct blkev_acc *a, const struct blkev *r, struct devstats *out)
{
	struct devacc *d;

	switch (r->kind) {
	case BLKEV_LOST:
		blkev_acc_lost(a, r->sector);
		break;
	case BLKEV_KERN:
		if ((d = find_dev(a, r->dev)) != NULL)
			on_kern(d, r);
		break;
	case BLKEV_MARK:
		blkev_acc_mark(a, r->ts_ns, out);
		break;
	default:
		blkev_acc_add(a, r);
		break;
	}
}

size_t
blkev_kern_records(
    uint32_t dev, int64_t ts_ns, const struct devstats *d, struct blkev *r)
{
	for (int k = 0; k < DIR_N; k++) {
		const struct xfer *x = &d->xfer[k];

		r[k] = (struct blkev){.ts_ns = ts_ns,
		    .dev = dev,
		    .kind = BLKEV_KERN,
		    .flags = k == DIR_READ ? BLKEV_OP_READ : BLKEV_OP_WRITE,
		    .sector = x->ops,
		    .bytes = x->bytes,
		    .nr_sector = (uint32_t)x->merges};
	}
	r[2] = (struct blkev){.ts_ns = ts_ns,
	    .dev = dev,
	    .kind = BLKEV_KERN,
	    .flags = BLKEV_OP_FLUSH,
	    .sector = d->flushes};
	return 3;
}
