/*
 * hist_test.c - the log2 buckets every layer shares, and the csh time line.
 */
#include <string.h>

#include "../analysis/analysis.h"
#include "testlib.h"

ATF_TC_WITHOUT_HEAD(buckets);
ATF_TC_BODY(buckets, tc)
{
	(void)tc;
	ATF_CHECK_EQ(hist_bucket(0), 0);
	ATF_CHECK_EQ(hist_bucket(1), 1);
	ATF_CHECK_EQ(hist_bucket(2), 2);
	ATF_CHECK_EQ(hist_bucket(3), 2);
	ATF_CHECK_EQ(hist_bucket(511), 9);
	ATF_CHECK_EQ(hist_bucket(512), 10);
	ATF_CHECK_EQ(hist_bucket(4095), 12);
	ATF_CHECK_EQ(hist_bucket(4096), 13);
	ATF_CHECK_EQ(hist_bucket(8191), 13);
	ATF_CHECK_EQ(hist_bucket(8192), 14);
	ATF_CHECK_EQ(hist_bucket(UINT64_MAX), 64);
	/* Every bucket's lower bound falls in that bucket, and one less not. */
	for (unsigned b = 1; b < HIST_NBUCKETS; b++) {
		ATF_CHECK_EQ(hist_bucket(hist_bucket_min(b)), b);
		ATF_CHECK_EQ(hist_bucket(hist_bucket_min(b) - 1), b - 1);
	}
}

ATF_TC_WITHOUT_HEAD(add_merge_total);
ATF_TC_BODY(add_merge_total, tc)
{
	struct hist a, b;

	(void)tc;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	hist_add(&a, 4096, 3);
	hist_add(&a, 7000, 1);
	hist_add(&b, 65536, 2);
	hist_add(&b, 0, 5);
	hist_merge(&a, &b);
	ATF_CHECK_EQ(a.count[13], 4);
	ATF_CHECK_EQ(a.count[17], 2);
	ATF_CHECK_EQ(a.count[0], 5);
	ATF_CHECK_EQ(hist_total(&a), 11);
}

ATF_TC_WITHOUT_HEAD(labels);
ATF_TC_BODY(labels, tc)
{
	char buf[16];

	(void)tc;
	ATF_CHECK_STREQ(hist_label(0, buf, sizeof(buf)), "0");
	ATF_CHECK_STREQ(hist_label(1, buf, sizeof(buf)), "1");
	ATF_CHECK_STREQ(hist_label(10, buf, sizeof(buf)), "512");
	ATF_CHECK_STREQ(hist_label(11, buf, sizeof(buf)), "1K");
	ATF_CHECK_STREQ(hist_label(13, buf, sizeof(buf)), "4K");
	ATF_CHECK_STREQ(hist_label(21, buf, sizeof(buf)), "1M");
	ATF_CHECK_STREQ(hist_label(64, buf, sizeof(buf)), "8E");
}

/*
 * csh's line, for figures worked out by hand: 4.438 s user, 3.049 s system
 * in 19.26 s is (4.438 + 3.049) / 19.26 = 38.87%.
 */
ATF_TC_WITHOUT_HEAD(time_line);
ATF_TC_BODY(time_line, tc)
{
	char buf[128];

	(void)tc;
	timefmt_csh(buf, sizeof(buf), 4438000000LL, 3049000000LL, 19260000000LL,
	    424, 8202, 58, 0);
	ATF_CHECK_STREQ(buf,
	    "4.438u 3.049s 0:19.26 38.9% 0+0k 424+8202io "
	    "58pf+0w");
	/* Minutes roll over; hundredths round. */
	timefmt_csh(buf, sizeof(buf), 0, 1000000, 125004999999LL, 0, 0, 0, 0);
	ATF_CHECK_STREQ(buf, "0.000u 0.001s 2:05.00 0.0% 0+0k 0+0io 0pf+0w");
	/* Past an hour csh prints hours:minutes:seconds. */
	timefmt_csh(
	    buf, sizeof(buf), 3600000000000LL, 0, 3723000000000LL, 1, 2, 3, 4);
	ATF_CHECK_STREQ(buf,
	    "3600.000u 0.000s 1:02:03 96.7% 0+0k 1+2io "
	    "3pf+4w");
}

ATF_TC_WITHOUT_HEAD(spread);
ATF_TC_BODY(spread, tc)
{
	int64_t odd[] = {5, 1, 9}, even[] = {4, 1, 3, 2};
	struct spread s;

	(void)tc;
	s = stats_spread(odd, 3);
	ATF_CHECK_EQ(s.median, 5);
	ATF_CHECK_EQ(s.min, 1);
	ATF_CHECK_EQ(s.max, 9);
	/* The lower middle: always a measured value. */
	s = stats_spread(even, 4);
	ATF_CHECK_EQ(s.median, 2);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, buckets);
	ATF_TP_ADD_TC(tp, add_merge_total);
	ATF_TP_ADD_TC(tp, labels);
	ATF_TP_ADD_TC(tp, time_line);
	ATF_TP_ADD_TC(tp, spread);
	return atf_no_error();
}
