/*
 * dd_test.c - dd's operands and closing lines. The expected closing lines
 * were printed by GNU coreutils 9.1 dd on Debian 12 (`dd if=/dev/zero
 * of=/dev/null bs=... count=...`), with the time it reported.
 */
#include <atf-c.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../replay/replay.h"

ATF_TC_WITHOUT_HEAD(sizes);
ATF_TC_BODY(sizes, tc)
{
	char err[256];
	uint64_t v;

	ATF_CHECK(
	    replay_dd_parse_size("512", &v, err, sizeof(err)) == 0 && v == 512);
	ATF_CHECK(
	    replay_dd_parse_size("4k", &v, err, sizeof(err)) == 0 && v == 4096);
	ATF_CHECK(replay_dd_parse_size("64K", &v, err, sizeof(err)) == 0 &&
	    v == 65536);
	ATF_CHECK(replay_dd_parse_size("1m", &v, err, sizeof(err)) == 0 &&
	    v == 1048576);
	ATF_CHECK(replay_dd_parse_size("2g", &v, err, sizeof(err)) == 0 &&
	    v == 2147483648u);
	ATF_CHECK(
	    replay_dd_parse_size("3b", &v, err, sizeof(err)) == 0 && v == 1536);
	ATF_CHECK(replay_dd_parse_size("4kb", &v, err, sizeof(err)) == -1);
	ATF_CHECK(replay_dd_parse_size("4x", &v, err, sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "unknown suffix 'x'") != NULL, "%s", err);
	ATF_CHECK(replay_dd_parse_size("-1", &v, err, sizeof(err)) == -1);
	ATF_CHECK(replay_dd_parse_size("", &v, err, sizeof(err)) == -1);
	ATF_CHECK(replay_dd_parse_size(
	              "18446744073709551615", &v, err, sizeof(err)) == 0 &&
	    v == UINT64_MAX);
	ATF_CHECK(replay_dd_parse_size(
	              "18446744073709551616", &v, err, sizeof(err)) == -1);
	ATF_CHECK(replay_dd_parse_size(
	              "99999999999999g", &v, err, sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "too large") != NULL, "%s", err);
}

ATF_TC_WITHOUT_HEAD(operands);
ATF_TC_BODY(operands, tc)
{
	struct replay_dd dd;
	char err[256];

	replay_dd_init(&dd);
	ATF_CHECK_EQ(dd.bs_bytes, 512);
	ATF_CHECK(
	    replay_dd_operand(&dd, "if=/dev/zero", err, sizeof(err)) == 0);
	ATF_CHECK(replay_dd_operand(&dd, "of=/tmp/x", err, sizeof(err)) == 0);
	ATF_CHECK(replay_dd_operand(&dd, "bs=64k", err, sizeof(err)) == 0);
	ATF_CHECK(replay_dd_operand(&dd, "count=10", err, sizeof(err)) == 0);
	ATF_CHECK(replay_dd_operand(&dd, "skip=2", err, sizeof(err)) == 0);
	ATF_CHECK(replay_dd_operand(&dd, "seek=3", err, sizeof(err)) == 0);
	ATF_CHECK(
	    replay_dd_operand(&dd, "iflag=direct", err, sizeof(err)) == 0);
	ATF_CHECK(
	    replay_dd_operand(&dd, "oflag=direct", err, sizeof(err)) == 0);
	ATF_CHECK_STREQ(dd.in, "/dev/zero");
	ATF_CHECK_STREQ(dd.out, "/tmp/x");
	ATF_CHECK_EQ(dd.bs_bytes, 65536);
	ATF_CHECK(dd.have_count && dd.count == 10);
	ATF_CHECK_EQ(dd.skip, 2);
	ATF_CHECK_EQ(dd.seek, 3);
	ATF_CHECK(dd.idirect && dd.odirect);

	ATF_CHECK(replay_dd_operand(&dd, "bs=0", err, sizeof(err)) == -1);
	ATF_CHECK_MSG(
	    strstr(err, "invalid block size 'bs=0'") != NULL, "%s", err);
	ATF_CHECK(replay_dd_operand(&dd, "conv=sync", err, sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "unknown operand 'conv=sync'");
	ATF_CHECK(replay_dd_operand(&dd, "bogus", err, sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "unknown operand 'bogus'");
	ATF_CHECK(replay_dd_operand(&dd, "iflag=sync", err, sizeof(err)) == -1);
	ATF_CHECK(replay_dd_operand(&dd, "of=", err, sizeof(err)) == -1);
	ATF_CHECK(replay_dd_operand(&dd, "bs=1q", err, sizeof(err)) == -1);
}

ATF_TC_WITHOUT_HEAD(too_large);
ATF_TC_BODY(too_large, tc)
{
	struct replay_dd dd;
	char err[256];

	replay_dd_init(&dd);
	ATF_REQUIRE(
	    replay_dd_operand(&dd, "if=/dev/zero", err, sizeof(err)) == 0);
	ATF_REQUIRE(
	    replay_dd_operand(&dd, "of=/dev/null", err, sizeof(err)) == 0);
	ATF_REQUIRE(
	    replay_dd_operand(&dd, "bs=1000000g", err, sizeof(err)) == 0);
	ATF_CHECK(replay_dd_check(&dd, err, sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "too large for memory") != NULL, "%s", err);
}

static const struct {
	uint64_t records, bytes;
	int64_t ns;
	const char *line;
} gnu[] = {
    {1, 512, 34090, "512 bytes copied, 3.409e-05 s, 15.0 MB/s"},
    {1, 1000, 33299,
        "1000 bytes (1.0 kB) copied, 3.3299e-05 s, "
        "30.0 MB/s"},
    {1, 1048576, 553942,
        "1048576 bytes (1.0 MB, 1.0 MiB) copied, "
        "0.000553942 s, 1.9 GB/s"},
    {100, 104857600, 2484690,
        "104857600 bytes (105 MB, 100 MiB) copied, "
        "0.00248469 s, 42.2 GB/s"},
    {0, 0, 31857, "0 bytes copied, 3.1857e-05 s, 0.0 kB/s"},
    {1, 10, 37435, "10 bytes copied, 3.7435e-05 s, 267 kB/s"},
    {1, 1, 29153, "1 byte copied, 2.9153e-05 s, 34.3 kB/s"},
    {2000, 2097152000, 93990300,
        "2097152000 bytes (2.1 GB, 2.0 GiB) "
        "copied, 0.0939903 s, 22.3 GB/s"},
    {1000, 1048576000, 4937260000,
        "1048576000 bytes (1.0 GB, 1000 MiB) "
        "copied, 4.93726 s, 212 MB/s"},
};

ATF_TC_WITHOUT_HEAD(closing);
ATF_TC_BODY(closing, tc)
{
	for (size_t i = 0; i < sizeof(gnu) / sizeof(gnu[0]); i++) {
		struct replay_dd_counts c = {
		    .full_in = gnu[i].records,
		    .full_out = gnu[i].records,
		    .bytes_out = gnu[i].bytes,
		    .copy_ns = gnu[i].ns,
		};
		char want[256], buf[256];

		snprintf(want, sizeof(want),
		    "%" PRIu64 "+0 records in\n"
		    "%" PRIu64 "+0 records out\n%s\n",
		    gnu[i].records, gnu[i].records, gnu[i].line);
		replay_dd_closing(&c, buf, sizeof(buf));
		ATF_CHECK_STREQ(buf, want);
	}
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, sizes);
	ATF_TP_ADD_TC(tp, operands);
	ATF_TP_ADD_TC(tp, too_large);
	ATF_TP_ADD_TC(tp, closing);
	return atf_no_error();
}
