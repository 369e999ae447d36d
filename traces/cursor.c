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

const uint8_t *
cur_bytes(struct cursor *c, size_t n)
{
	const uint8_t *p;

	if (!cur_have(c, n))
		return NULL;
	p = c->p;
	cur_advance(c, n);
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
	cur_advance(c, padded);
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
	cur_advance(c, n);
}

size_t
cur_left(const struct cursor *c)
{
	return c->err == CUR_OK ? c->len : 0;
}
