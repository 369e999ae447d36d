/*
 * cursor.c - the bounds-checked byte cursor; see cursor.h.
 */

#include "cursor.h"

void
cur_init(struct cursor *c, const void *p, size_t cap, size_t len)
{
	c->p = p;
	c->cap = cap < len ? cap : len;
	c->len = len;
	c->err = CUR_OK;
}

/* Whether n bytes can be read; sets the error when they cannot. */
static int
have(struct cursor *c, size_t n)
{
	if (c->err != CUR_OK)
		return 0;
	if (n > c->len) {
		c->err = CUR_MALFORMED;
		return 0;
	}
	if (n > c->cap) {
		c->err = CUR_TRUNCATED;
		return 0;
	}
	return 1;
}

static void
advance(struct cursor *c, size_t n)
{
	size_t k = n < c->cap ? n : c->cap;

	/* Past the captured bytes p is not used, and may be NULL. */
	if (k > 0)
		c->p += k;
	c->cap -= k;
	c->len -= n;
}

uint8_t
cur_u8(struct cursor *c)
{
	uint8_t v;

	if (!have(c, 1))
		return 0;
	v = c->p[0];
	advance(c, 1);
	return v;
}

uint16_t
cur_u16(struct cursor *c)
{
	uint16_t v;

	if (!have(c, 2))
		return 0;
	v = (uint16_t)(c->p[0] << 8 | c->p[1]);
	advance(c, 2);
	return v;
}

uint32_t
cur_u32(struct cursor *c)
{
	uint32_t v;

	if (!have(c, 4))
		return 0;
	v = (uint32_t)c->p[0] << 24 | (uint32_t)c->p[1] << 16 |
	    (uint32_t)c->p[2] << 8 | c->p[3];
	advance(c, 4);
	return v;
}

uint64_t
cur_u64(struct cursor *c)
{
	uint64_t hi = cur_u32(c);
	uint64_t lo = cur_u32(c);

	return c->err == CUR_OK ? hi << 32 | lo : 0;
}

void
cur_skip(struct cursor *c, size_t n)
{
	if (c->err != CUR_OK)
		return;
	if (n > c->len) {
		c->err = CUR_MALFORMED;
		return;
	}
	advance(c, n);
}

const uint8_t *
cur_bytes(struct cursor *c, size_t n)
{
	const uint8_t *p;

	if (!have(c, n))
		return NULL;
	p = c->p;
	advance(c, n);
	return p;
}

const uint8_t *
cur_fixed(struct cursor *c, size_t n)
{
	const uint8_t *p;
	size_t padded;

	/* Round up to four without wrapping around. */
	if (n > SIZE_MAX - 3) {
		if (c->err == CUR_OK)
			c->err = CUR_MALFORMED;
		return NULL;
	}
	padded = (n + 3) & ~(size_t)3;
	if (c->err != CUR_OK)
		return NULL;
	if (padded > c->len) {
		c->err = CUR_MALFORMED;
		return NULL;
	}
	p = n <= c->cap ? c->p : NULL;
	advance(c, padded);
	return p;
}

const uint8_t *
cur_opaque(struct cursor *c, uint32_t max, uint32_t *lenp)
{
	uint32_t n = cur_u32(c);

	*lenp = 0;
	if (c->err != CUR_OK)
		return NULL;
	if (n > max) {
		c->err = CUR_MALFORMED;
		return NULL;
	}
	*lenp = n;
	return cur_fixed(c, n);
}

void
cur_sub(struct cursor *c, size_t n, struct cursor *sub)
{
	if (c->err == CUR_OK && n > c->len)
		c->err = CUR_MALFORMED;
	if (c->err != CUR_OK) {
		cur_init(sub, NULL, 0, 0);
		sub->err = c->err;
		return;
	}
	cur_init(sub, c->p, n < c->cap ? n : c->cap, n);
	advance(c, n);
}

size_t
cur_left(const struct cursor *c)
{
	return c->err == CUR_OK ? c->len : 0;
}
