/*
 * mountstats_test.c - the NFS client's counters for one mount, read from
 * fixtures/mountstats_test/mountstats (the layout of the kernel's
 * nfs_show_stats: a "device ... mounted on ..." line, then indented lines).
 */
#include <stdlib.h>
#include <string.h>

#include "../traces/mountstats.h"
#include "testlib.h"

static int
parse(const atf_tc_t *tc, const char *dir, struct mountstats *ms, char *err,
    size_t len)
{
	char *text = tl_read(tc, "fixtures/mountstats_test/mountstats");
	int rv = mountstats_parse(text, dir, ms, err, len);

	free(text);
	return rv;
}

ATF_TC_WITHOUT_HEAD(nfs4_mount);
ATF_TC_BODY(nfs4_mount, tc)
{
	struct mountstats ms;
	char err[256];

	/* The later of two entries on one directory is the one that counts. */
	if (parse(tc, "/run/ubcvm/nfs", &ms, err, sizeof(err)) == -1)
		atf_tc_fail("%s", err);
	ATF_CHECK_EQ(ms.normal_write, 7731965);
	ATF_CHECK_EQ(ms.direct_write, 33);
	ATF_CHECK_EQ(ms.server_write, 7731970);
	ATF_CHECK_EQ(ms.write_pages, 2033);
	ATF_CHECK_EQ(ms.write.ops, 314);
	ATF_CHECK_EQ(ms.write.transmissions, 315);
	ATF_CHECK_EQ(ms.write.timeouts, 1);
	ATF_CHECK_EQ(ms.write.bytes_sent, 7793964);
	ATF_CHECK_EQ(ms.write.bytes_recv, 57776);
	ATF_CHECK_EQ(ms.commit.ops, 6);
	ATF_CHECK_EQ(ms.commit.bytes_sent, 960);
}

ATF_TC_WITHOUT_HEAD(v3_short_lines);
ATF_TC_BODY(v3_short_lines, tc)
{
	struct mountstats ms;
	char err[256];

	/* Older kernels end the per-op line after eight numbers. */
	if (parse(tc, "/mnt/v3", &ms, err, sizeof(err)) == -1)
		atf_tc_fail("%s", err);
	ATF_CHECK_EQ(ms.write.ops, 1);
	ATF_CHECK_EQ(ms.server_write, 100);
	ATF_CHECK_EQ(ms.commit.ops, 0);
}

ATF_TC_WITHOUT_HEAD(errors);
ATF_TC_BODY(errors, tc)
{
	struct mountstats ms;
	char err[256];

	ATF_CHECK_EQ(parse(tc, "/nowhere", &ms, err, sizeof(err)), -1);
	ATF_CHECK(strstr(err, "no entry for '/nowhere'") != NULL);
	ATF_CHECK_EQ(parse(tc, "/run", &ms, err, sizeof(err)), -1);
	ATF_CHECK(strstr(err, "no NFS counters") != NULL);
	ATF_CHECK_EQ(parse(tc, "/mnt/bad", &ms, err, sizeof(err)), -1);
	ATF_CHECK(strstr(err, "not numbers") != NULL);
}

ATF_TC_WITHOUT_HEAD(delta);
ATF_TC_BODY(delta, tc)
{
	struct mountstats a, b;
	char err[256];
	json_t *o;

	memset(&a, 0, sizeof(a));
	if (parse(tc, "/run/ubcvm/nfs", &b, err, sizeof(err)) == -1)
		atf_tc_fail("%s", err);
	a.write.ops = 14;
	a.server_write = 970;
	o = mountstats_delta_json(&a, &b);
	ATF_REQUIRE(o != NULL);
	ATF_CHECK_EQ(json_integer_value(
	                 json_object_get(json_object_get(o, "WRITE"), "ops")),
	    300);
	ATF_CHECK_EQ(
	    json_integer_value(json_object_get(o, "server_write_bytes")),
	    7731000);
	json_decref(o);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, nfs4_mount);
	ATF_TP_ADD_TC(tp, v3_short_lines);
	ATF_TP_ADD_TC(tp, errors);
	ATF_TP_ADD_TC(tp, delta);
	return atf_no_error();
}
