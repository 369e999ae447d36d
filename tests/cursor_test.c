/*
 * cursor_test.c - the bounds-checked byte cursor (traces/cursor.h):
 * truncated and malformed told apart, errors sticky, XDR padding and its
 * overflow, skipping past the captured bytes.
 */
#include <stdint.h>
#include <string.h>

#include <atf-c.h>

#include "../traces/cursor.h"

static const uint8_t bytes[12] = {
    0x00,
    0x00,
    0x00,
    0x05,
    'h',
    'e',
    'l',
    'l',
    'o',
    0,
    0,
    0,
};

ATF_TC_WITHOUT_HEAD(integers);
ATF_TC_BODY(integers, tc)
{
	static const uint8_t b[] = {
	    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
	struct cursor c;

	cur_init(&c, b, sizeof(b), sizeof(b));
	ATF_CHECK_EQ(cur_u8(&c), 1);
	ATF_CHECK_EQ(cur_u16(&c), 0x0203);
	ATF_CHECK_EQ(cur_u32(&c), 0x04050607u);
	ATF_CHECK_EQ(cur_u64(&c), 0x08090a0b0c0d0e0fULL);
	ATF_CHECK_EQ(c.err, CUR_OK);
	ATF_CHECK_EQ(cur_left(&c), 0);
}

ATF_TC_WITHOUT_HEAD(truncated_is_not_malformed);
ATF_TC_BODY(truncated_is_not_malformed, tc)
{
	struct cursor c;

	/* 6 bytes captured of 12 claimed: reading on is truncation. */
	cur_init(&c, bytes, 6, 12);
	ATF_CHECK_EQ(cur_u32(&c), 5);
	ATF_CHECK_EQ(cur_u32(&c), 0);
	ATF_CHECK_EQ(c.err, CUR_TRUNCATED);
	/* 12 captured and claimed: reading past them is malformation. */
	cur_init(&c, bytes, 12, 12);
	cur_skip(&c, 8);
	ATF_CHECK_EQ(cur_u64(&c), 0);
	ATF_CHECK_EQ(c.err, CUR_MALFORMED);
}

ATF_TC_WITHOUT_HEAD(sticky);
ATF_TC_BODY(sticky, tc)
{
	struct cursor c;

	cur_init(&c, bytes, 2, 12);
	ATF_CHECK_EQ(cur_u32(&c), 0);
	ATF_CHECK_EQ(c.err, CUR_TRUNCATED);
	/* A later read that would fit still returns 0, and the error stays. */
	ATF_CHECK_EQ(cur_u8(&c), 0);
	cur_skip(&c, 100);
	ATF_CHECK_EQ(c.err, CUR_TRUNCATED);
	ATF_CHECK_EQ(cur_left(&c), 0);
}

ATF_TC_WITHOUT_HEAD(opaque);
ATF_TC_BODY(opaque, tc)
{
	struct cursor c;
	const uint8_t *p;
	uint32_t len;

	cur_init(&c, bytes, 12, 12);
	p = cur_opaque(&c, 64, &len);
	ATF_REQUIRE(p != NULL);
	ATF_CHECK_EQ(len, 5);
	ATF_CHECK(memcmp(p, "hello", 5) == 0);
	ATF_CHECK_EQ(cur_left(&c), 0); /* padding consumed */
	ATF_CHECK_EQ(c.err, CUR_OK);

	/* Longer than allowed: malformed, whatever follows. */
	cur_init(&c, bytes, 12, 12);
	ATF_CHECK(cur_opaque(&c, 4, &len) == NULL);
	ATF_CHECK_EQ(c.err, CUR_MALFORMED);

	/* Claimed but not captured: no bytes, no error, cursor moved on. */
	cur_init(&c, bytes, 6, 12);
	ATF_CHECK(cur_opaque(&c, 64, &len) == NULL);
	ATF_CHECK_EQ(c.err, CUR_OK);
	ATF_CHECK_EQ(len, 5);
	ATF_CHECK_EQ(cur_left(&c), 0);
}

ATF_TC_WITHOUT_HEAD(opaque_length_overflow);
ATF_TC_BODY(opaque_length_overflow, tc)
{
	static const uint8_t huge[8] = {0xff, 0xff, 0xff, 0xfe, 1, 2, 3, 4};
	struct cursor c;
	uint32_t len;

	/* 0xfffffffe rounds up past 2^32: must not wrap to a small skip. */
	cur_init(&c, huge, 8, 8);
	ATF_CHECK(cur_opaque(&c, UINT32_MAX, &len) == NULL);
	ATF_CHECK_EQ(c.err, CUR_MALFORMED);
	cur_init(&c, huge, 8, 8);
	ATF_CHECK(cur_fixed(&c, SIZE_MAX) == NULL);
	ATF_CHECK_EQ(c.err, CUR_MALFORMED);
}

ATF_TC_WITHOUT_HEAD(sub_cursor);
ATF_TC_BODY(sub_cursor, tc)
{
	struct cursor c, s;

	cur_init(&c, bytes, 6, 12);
	cur_sub(&c, 8, &s);
	ATF_CHECK_EQ(s.len, 8);
	ATF_CHECK_EQ(s.cap, 6);
	ATF_CHECK_EQ(cur_left(&c), 4);
	cur_sub(&c, 5, &s);
	ATF_CHECK_EQ(c.err, CUR_MALFORMED);
	ATF_CHECK_EQ(s.err, CUR_MALFORMED);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, integers);
	ATF_TP_ADD_TC(tp, truncated_is_not_malformed);
	ATF_TP_ADD_TC(tp, sticky);
	ATF_TP_ADD_TC(tp, opaque);
	ATF_TP_ADD_TC(tp, opaque_length_overflow);
	ATF_TP_ADD_TC(tp, sub_cursor);
	return atf_no_error();
}
