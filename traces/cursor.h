/*
 * cursor.h - the one bounds-checked way to read untrusted packet bytes.
 *
 * A cursor is a window on a message: the bytes captured (what the capture
 * kept, limited by snaplen) and the bytes claimed (what the headers say the
 * message holds). Every read first checks the bytes are there. A read past
 * the claimed end means the message lies about its own length: MALFORMED.
 * A read past the captured end inside the claimed end means the capture
 * stopped early: TRUNCATED. The first error sticks; later reads return zero
 * and change nothing, so a decoder reads a whole structure and tests once:
 *
 *	struct cursor c;
 *	cur_init(&c, buf, caplen, wirelen);
 *	uint32_t xid = cur_u32(&c);
 *	uint32_t type = cur_u32(&c);
 *	if (c.err != CUR_OK)
 *		return c.err;		counted as truncated or malformed
 *
 * Skipping may run past the captured bytes (the skipped bytes are not
 * needed) but never past the claimed ones. XDR opaques (RFC 4506 section
 * 4.10) are padded to a multiple of four; rounding is overflow-checked.
 */
#ifndef UBC_CURSOR_H
#define UBC_CURSOR_H

#include <stddef.h>
#include <stdint.h>

enum cur_err {
	CUR_OK = 0,
	CUR_TRUNCATED, /* the capture ended before the message did */
	CUR_MALFORMED, /* a length points past the end of the message */
};

struct cursor {
	const uint8_t *p; /* next byte, valid for cap bytes */
	size_t cap;       /* bytes captured from p on */
	size_t len;       /* bytes claimed from p on; cap <= len */
	enum cur_err err; /* sticky */
};

/* A cursor on len claimed bytes of which the first cap are at p. */
void cur_init(struct cursor *c, const void *p, size_t cap, size_t len);

/*
 * Whether n bytes can be read; sets the error when they cannot. The small
 * readers below are inline: a decoder calls them for every field of every
 * packet.
 */
static inline int
cur_have(struct cursor *c, size_t n)
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

/* Moves past n claimed bytes; past the captured ones p is not used. */
static inline void
cur_advance(struct cursor *c, size_t n)
{
	size_t k = n < c->cap ? n : c->cap;

	if (k > 0) /* p may be NULL when nothing was captured */
		c->p += k;
	c->cap -= k;
	c->len -= n;
}

/* Big-endian (network, XDR) integers; 0 once the cursor is in error. */
static inline uint8_t
cur_u8(struct cursor *c)
{
	uint8_t v;

	if (!cur_have(c, 1))
		return 0;
	v = c->p[0];
	cur_advance(c, 1);
	return v;
}

static inline uint16_t
cur_u16(struct cursor *c)
{
	uint16_t v;

	if (!cur_have(c, 2))
		return 0;
	v = (uint16_t)(c->p[0] << 8 | c->p[1]);
	cur_advance(c, 2);
	return v;
}

static inline uint32_t
cur_u32(struct cursor *c)
{
	uint32_t v;

	if (!cur_have(c, 4))
		return 0;
	v = (uint32_t)c->p[0] << 24 | (uint32_t)c->p[1] << 16 |
	    (uint32_t)c->p[2] << 8 | c->p[3];
	cur_advance(c, 4);
	return v;
}

static inline uint64_t
cur_u64(struct cursor *c)
{
	uint64_t hi = cur_u32(c);
	uint64_t lo = cur_u32(c);

	return c->err == CUR_OK ? hi << 32 | lo : 0;
}

/* Moves n bytes on; they need be claimed, not captured. */
static inline void
cur_skip(struct cursor *c, size_t n)
{
	if (c->err != CUR_OK)
		return;
	if (n > c->len) {
		c->err = CUR_MALFORMED;
		return;
	}
	cur_advance(c, n);
}

/*
 * The n captured bytes at the cursor (moving past them), or NULL with the
 * error set when they are not all there.
 */
const uint8_t *cur_bytes(struct cursor *c, size_t n);

/*
 * An XDR variable-length opaque or string: a 4-byte length, the bytes, then
 * padding to a multiple of four. A length above max is MALFORMED. Stores the
 * length in *lenp and returns the captured bytes, or NULL when they were not
 * captured (the cursor still moves past them when they were claimed) or on
 * error; test c->err to tell the two apart.
 */
const uint8_t *cur_opaque(struct cursor *c, uint32_t max, uint32_t *lenp);

/* An XDR fixed-length opaque of n bytes, padded to four; as cur_opaque. */
const uint8_t *cur_fixed(struct cursor *c, size_t n);

/*
 * Splits off the next n claimed bytes as a cursor of their own and moves
 * past them; MALFORMED when fewer are claimed.
 */
void cur_sub(struct cursor *c, size_t n, struct cursor *sub);

/* Bytes claimed and not yet read. */
size_t cur_left(const struct cursor *c);

#endif
