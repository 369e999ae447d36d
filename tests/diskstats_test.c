/*
 * diskstats_test.c - the interval probe's parser on recorded statistics
 * (fixtures/diskstats_test/README says where each came from).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../traces/traces.h"
#include "testlib.h"

/* The vda line of the recordings, field by field, as the kernel printed it. */
static const unsigned long long vda[17] = {69292, 11260, 3315434, 20849, 46833,
    12658, 4182496, 26043, 0, 11796, 47992, 6480, 74, 2460680, 729, 5736, 370};

static void
check_vda(const struct devstats *d, int nfields)
{
	ATF_CHECK_EQ(d->xfer[DIR_READ].ops, vda[0]);
	ATF_CHECK_EQ(d->xfer[DIR_READ].merges, vda[1]);
	ATF_CHECK_EQ(d->xfer[DIR_READ].bytes, vda[2] * 512);
	ATF_CHECK_EQ(d->xfer[DIR_READ].time_ns, (long long)vda[3] * 1000000);
	ATF_CHECK_EQ(d->xfer[DIR_WRITE].ops, vda[4]);
	ATF_CHECK_EQ(d->xfer[DIR_WRITE].merges, vda[5]);
	ATF_CHECK_EQ(d->xfer[DIR_WRITE].bytes, vda[6] * 512);
	ATF_CHECK_EQ(d->xfer[DIR_WRITE].time_ns, (long long)vda[7] * 1000000);
	ATF_CHECK_EQ(d->busy_ns, (long long)vda[9] * 1000000);
	ATF_CHECK_EQ(d->discards, nfields >= 15 ? vda[11] : 0);
	ATF_CHECK_EQ(d->discard_bytes, nfields >= 15 ? vda[13] * 512 : 0);
	ATF_CHECK_EQ(d->flushes, nfields >= 17 ? vda[15] : 0);
}

/* The line of the fixture that names vda, or the only line. */
static const char *
vda_line(char *text)
{
	char *p = strstr(text, " vda ");

	if (p == NULL)
		return text;
	while (p > text && p[-1] != '\n')
		p--;
	return p;
}

static void
parse_ok(const atf_tc_t *tc, const char *fixture, int nfields)
{
	char *text = tl_read(tc, fixture), err[256];
	struct devstats d;
	char *nl;
	const char *line = vda_line(text);

	if ((nl = strchr(line, '\n')) != NULL)
		nl[1] = '\0';
	if (diskstats_parse(line, &d, err, sizeof(err)) == -1)
		atf_tc_fail("%s: %s", fixture, err);
	check_vda(&d, nfields);
	free(text);
}

#define PARSE_CASE(name, fixture, n)                                           \
	ATF_TC_WITHOUT_HEAD(name);                                             \
	ATF_TC_BODY(name, tc)                                                  \
	{                                                                      \
		parse_ok(tc, "fixtures/diskstats_test/" fixture, n);           \
	}

PARSE_CASE(proc14, "proc14.txt", 11)
PARSE_CASE(proc18, "proc18.txt", 15)
PARSE_CASE(proc20, "proc20.txt", 17)
PARSE_CASE(sys11, "sys11.txt", 11)
PARSE_CASE(sys15, "sys15.txt", 15)
PARSE_CASE(sys17, "sys17.txt", 17)

ATF_TC_WITHOUT_HEAD(malformed);
ATF_TC_BODY(malformed, tc)
{
	static const char *const bad[] = {
	    "bad_count.txt", "bad_number.txt", "bad_sign.txt"};
	char path[128], err[256];
	struct devstats d;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *text;

		snprintf(
		    path, sizeof(path), "fixtures/diskstats_test/%s", bad[i]);
		text = tl_read(tc, path);
		err[0] = '\0';
		ATF_CHECK_MSG(diskstats_parse(text, &d, err, sizeof(err)) == -1,
		    "%s was accepted", bad[i]);
		ATF_CHECK_MSG(err[0] != '\0', "%s: no message", bad[i]);
		free(text);
	}
	ATF_CHECK(diskstats_parse("", &d, err, sizeof(err)) == -1);
}

/* Deltas of cumulative counters, and a counter that was reset. */
ATF_TC_WITHOUT_HEAD(delta);
ATF_TC_BODY(delta, tc)
{
	struct devstats a, b, d;
	char err[256];

	(void)tc;
	ATF_REQUIRE(diskstats_parse("1 0 8 1 10 2 80 5 0 7 9\n", &a, err,
	                sizeof(err)) == 0);
	ATF_REQUIRE(diskstats_parse("3 0 24 2 15 4 200 9 1 9 12\n", &b, err,
	                sizeof(err)) == 0);
	devstats_delta(&d, &b, &a);
	ATF_CHECK_EQ(d.xfer[DIR_READ].ops, 2);
	ATF_CHECK_EQ(d.xfer[DIR_READ].bytes, 16 * 512);
	ATF_CHECK_EQ(d.xfer[DIR_WRITE].ops, 5);
	ATF_CHECK_EQ(d.xfer[DIR_WRITE].merges, 2);
	ATF_CHECK_EQ(d.xfer[DIR_WRITE].bytes, 120 * 512);
	ATF_CHECK_EQ(d.busy_ns, 2000000);
	devstats_delta(&d, &a, &b);
	ATF_CHECK_EQ(d.xfer[DIR_WRITE].ops, 10);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, proc14);
	ATF_TP_ADD_TC(tp, proc18);
	ATF_TP_ADD_TC(tp, proc20);
	ATF_TP_ADD_TC(tp, sys11);
	ATF_TP_ADD_TC(tp, sys15);
	ATF_TP_ADD_TC(tp, sys17);
	ATF_TP_ADD_TC(tp, malformed);
	ATF_TP_ADD_TC(tp, delta);
	return atf_no_error();
}
