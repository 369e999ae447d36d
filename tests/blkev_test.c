/*
 * blkev_test.c - the counting rules of the exact probe, on event sequences
 * written the way this kernel emits them: flush sequences with their second
 * empty completion, empty preflush writes, merges, sequential runs,
 * latencies, and events of devices not followed; and a whole job's events
 * recorded on knfsd's disk in a guest, against that disk's diskstats.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <atf-c.h>
#include <zlib.h>

#include "../model/blkev.h"
#include "testlib.h"

#define DEV BLKEV_DEV(7, 1)

static void
ev(struct blkev_acc *a, int64_t ts, char kind, const char *rwbs,
    uint64_t sector, uint32_t nr_sector)
{
	struct blkev e = {.ts_ns = ts,
	    .dev = DEV,
	    .kind = kind,
	    .flags = blkev_rwbs_parse(rwbs),
	    .sector = sector,
	    .nr_sector = nr_sector,
	    .bytes = (uint64_t)nr_sector * 512};

	ATF_REQUIRE_MSG(e.flags != 0, "rwbs %s", rwbs);
	blkev_acc_add(a, &e);
}

ATF_TC(rwbs);
ATF_TC_HEAD(rwbs, tc)
{
	atf_tc_set_md_var(tc, "descr", "rwbs strings parse to flags and back");
}
ATF_TC_BODY(rwbs, tc)
{
	static const char *const ok[] = {"R", "RA", "RM", "W", "WS", "WSM",
	    "FWFSM", "FWS", "FF", "F", "D", "DE", "N", "WFS", "RAS"};
	char buf[16];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		unsigned f = blkev_rwbs_parse(ok[i]);

		ATF_CHECK_MSG(f != 0, "%s", ok[i]);
		ATF_CHECK_STREQ(blkev_rwbs_string(f, buf, sizeof(buf)), ok[i]);
	}
	ATF_CHECK_EQ(blkev_rwbs_parse("FWFSM"),
	    BLKEV_PREFLUSH | BLKEV_OP_WRITE | BLKEV_FUA | BLKEV_SYNC |
	        BLKEV_META);
	ATF_CHECK_EQ(blkev_rwbs_parse("FF"), BLKEV_PREFLUSH | BLKEV_OP_FLUSH);
	ATF_CHECK_EQ(blkev_rwbs_parse(""), 0);
	ATF_CHECK_EQ(blkev_rwbs_parse("X"), 0);
	ATF_CHECK_EQ(blkev_rwbs_parse("WQ"), 0);
}

ATF_TC(flush_sequence);
ATF_TC_HEAD(flush_sequence, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "a preflush+FUA journal write on a "
	    "device without FUA: the flushes are counted apart, the data "
	    "write once, and its second empty completion is not a request");
}
ATF_TC_BODY(flush_sequence, tc)
{
	uint32_t devs[] = {DEV};
	struct blkev_acc *a = blkev_acc_new(devs, 1, 0);
	struct devstats d;
	const struct xfer *w = &d.xfer[DIR_WRITE];

	ATF_REQUIRE(a != NULL);
	/* As recorded in fixtures/tracefs_test/basic/trace.txt. */
	ev(a, 1000, 'Q', "FWFSM", 98346, 2);
	ev(a, 1100, 'I', "FF", 0, 0);
	ev(a, 4100, 'C', "FF", UINT64_MAX, 0);
	ev(a, 4200, 'I', "WSM", 98346, 2);
	ev(a, 5200, 'C', "WSM", 98346, 2);
	ev(a, 5300, 'I', "FF", 0, 0);
	ev(a, 5400, 'C', "FF", UINT64_MAX, 0);
	ev(a, 5500, 'C', "WSM", 98346, 0);
	/* sync(2): an empty preflush write, issued as a flush only. */
	ev(a, 6000, 'Q', "FWS", 0, 0);
	ev(a, 6100, 'I', "FF", 0, 0);
	ev(a, 6300, 'C', "FF", UINT64_MAX, 0);
	ev(a, 6400, 'C', "WS", 0, 0);
	blkev_acc_mark(a, 10000, &d);

	ATF_CHECK(d.exact);
	ATF_CHECK_EQ(w->ops, 1);
	ATF_CHECK_EQ(w->bytes, 1024);
	ATF_CHECK_EQ(w->size.count[hist_bucket(1024)], 1);
	ATF_CHECK_EQ(w->bios, 1);
	ATF_CHECK_EQ(w->bio_preflush, 1);
	ATF_CHECK_EQ(w->bio_fua, 1);
	ATF_CHECK_EQ(w->fua, 0);
	ATF_CHECK_EQ(w->merges, 0);
	ATF_CHECK_EQ(d.flushes, 3);
	ATF_CHECK_EQ(d.empty_preflush, 1);
	/* One latency, the data write's: 1000 ns. */
	ATF_CHECK_EQ(hist_total(&w->lat), 1);
	ATF_CHECK_EQ(w->lat.count[hist_bucket(1000)], 1);
	ATF_CHECK_EQ(w->time_ns, 1000);
	ATF_CHECK_EQ(w->lat_by_size[hist_bucket(1024)]
	                           [hist_bucket(1000) - DEVSTATS_LAT_COL0],
	    1);
	ATF_CHECK_EQ(d.flush_first_ns, 1100);
	ATF_CHECK_EQ(d.flush_last_ns, 6100);
	ATF_CHECK_EQ(hist_total(&d.flush_gap), 2);
	/* Busy: 1100-4100, 4200-5200, 5300-5400, 6100-6300. */
	ATF_CHECK_EQ(d.busy_ns, 3000 + 1000 + 100 + 200);
	ATF_CHECK_EQ(d.xfer[DIR_READ].ops, 0);
	blkev_acc_free(a);
}

ATF_TC(splits);
ATF_TC_HEAD(splits, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "a split bio is one request more with no bio queued for it: "
	    "merges are bios + splits - requests, as diskstats counts them");
}
ATF_TC_BODY(splits, tc)
{
	uint32_t devs[] = {DEV};
	struct blkev_acc *a = blkev_acc_new(devs, 1, 0);
	struct devstats d;
	const struct xfer *w = &d.xfer[DIR_WRITE];

	ATF_REQUIRE(a != NULL);
	/*
	 * A 1 MiB bio on a device of 512 KiB requests: split once, the rest
	 * not queued again; a 4 KiB bio after it merges into the rest.
	 */
	ev(a, 10, 'Q', "W", 0, 2048);
	ev(a, 11, 'S', "W", 0, 1024);
	ev(a, 12, 'Q', "W", 2048, 8);
	ev(a, 13, 'S', "R", 9000, 8); /* another direction */
	ev(a, 20, 'I', "W", 0, 1024);
	ev(a, 21, 'I', "W", 1024, 1032);
	blkev_acc_mark(a, 30, &d);
	ATF_CHECK_EQ(w->bios, 2);
	ATF_CHECK_EQ(w->splits, 1);
	ATF_CHECK_EQ(w->ops, 2);
	ATF_CHECK_EQ(w->merges, 1);
	ATF_CHECK_EQ(w->bio_bytes, (2048 + 8) * 512);
	ATF_CHECK_EQ(d.xfer[DIR_READ].splits, 1);
	blkev_acc_free(a);
}

ATF_TC(merges_and_runs);
ATF_TC_HEAD(merges_and_runs, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "bios merge into requests; sequential "
	    "runs are counted per direction and cut at the mark");
}
ATF_TC_BODY(merges_and_runs, tc)
{
	uint32_t devs[] = {BLKEV_DEV(8, 0), DEV};
	struct blkev_acc *a = blkev_acc_new(devs, 2, 0);
	struct blkev other = {.ts_ns = 1,
	    .dev = BLKEV_DEV(9, 9),
	    .kind = 'I',
	    .flags = BLKEV_OP_WRITE,
	    .sector = 1,
	    .nr_sector = 8,
	    .bytes = 4096};
	struct devstats d[2];
	const struct xfer *w;

	memset(d, 0, sizeof(d));
	w = &d[1].xfer[DIR_WRITE];
	ATF_REQUIRE(a != NULL);
	blkev_acc_add(a, &other); /* not followed: ignored */
	/* Four 4 KiB bios merge into one 16 KiB request at 100. */
	for (int i = 0; i < 4; i++)
		ev(a, 10 + i, 'Q', "W", 100 + 8 * (uint64_t)i, 8);
	ev(a, 20, 'I', "W", 100, 32); /* run 1 begins */
	ev(a, 21, 'I', "W", 132, 8);  /* sequential */
	ev(a, 22, 'I', "R", 500, 8);  /* reads do not cut it */
	ev(a, 23, 'I', "W", 140, 16); /* sequential: run of 3 */
	ev(a, 24, 'I', "W", 1000, 8); /* a new run */
	ev(a, 30, 'C', "W", 100, 32);
	ev(a, 31, 'C', "W", 132, 8);
	ev(a, 32, 'C', "R", 500, 8);
	ev(a, 33, 'C', "W", 140, 16);
	ev(a, 34, 'C', "W", 1000, 8);
	ev(a, 35, 'C', "W", 1000, 8); /* no issue left: ignored */
	blkev_acc_mark(a, 40, d);

	ATF_CHECK_EQ(d[0].xfer[DIR_WRITE].ops, 0);
	ATF_CHECK_EQ(w->ops, 4);
	ATF_CHECK_EQ(w->bytes, (32 + 8 + 16 + 8) * 512);
	ATF_CHECK_EQ(w->bios, 4);
	ATF_CHECK_EQ(w->bio_bytes, 16384);
	ATF_CHECK_EQ(w->bio_size.count[hist_bucket(4096)], 4);
	ATF_CHECK_EQ(w->merges, 0); /* 4 bios, 4 requests */
	ATF_CHECK_EQ(w->seq_ops, 2);
	ATF_CHECK_EQ(w->seq_runs.count[hist_bucket(3)], 1);
	ATF_CHECK_EQ(w->seq_runs.count[hist_bucket(1)], 1);
	ATF_CHECK_EQ(hist_total(&w->lat), 4);
	ATF_CHECK_EQ(w->time_ns, 10 + 10 + 10 + 10);
	ATF_CHECK_EQ(d[1].xfer[DIR_READ].ops, 1);
	ATF_CHECK_EQ(d[1].xfer[DIR_READ].seq_runs.count[1], 1);
	ATF_CHECK_EQ(d[1].busy_ns, 34 - 20);

	/* The next phase: a sequential request starts a new run. */
	ev(a, 50, 'Q', "W", 1008, 8);
	ev(a, 51, 'Q', "W", 1016, 8);
	ev(a, 52, 'I', "W", 1008, 16);
	blkev_acc_lost(a, 7);
	blkev_acc_mark(a, 60, d);
	ATF_CHECK_EQ(w->ops, 1);
	ATF_CHECK_EQ(w->bios, 2);
	ATF_CHECK_EQ(w->merges, 1);
	ATF_CHECK_EQ(w->seq_ops, 1);
	ATF_CHECK_EQ(w->seq_runs.count[1], 1);
	ATF_CHECK_EQ(d[1].lost_events, 7);
	ATF_CHECK_EQ(d[0].lost_events, 7);
	/* Still in flight at the mark: busy to the mark. */
	ATF_CHECK_EQ(d[1].busy_ns, 60 - 52);
	ATF_CHECK_EQ(hist_total(&w->lat), 0);
	ev(a, 70, 'C', "W", 1008, 16);
	blkev_acc_mark(a, 80, d);
	ATF_CHECK_EQ(d[1].busy_ns, 70 - 60);
	ATF_CHECK_EQ(w->lat.count[hist_bucket(18)], 1);
	ATF_CHECK_EQ(d[1].lost_events, 0);
	blkev_acc_free(a);
}

ATF_TC(discard_and_clamp);
ATF_TC_HEAD(discard_and_clamp, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "discards are counted apart; huge "
	    "sizes and latencies land in the last row and column");
}
ATF_TC_BODY(discard_and_clamp, tc)
{
	uint32_t devs[] = {DEV};
	struct blkev_acc *a = blkev_acc_new(devs, 1, 0);
	struct devstats d;
	const struct xfer *w = &d.xfer[DIR_WRITE];

	ATF_REQUIRE(a != NULL);
	ev(a, 1, 'I', "D", 0, 2048);
	ev(a, 2, 'C', "D", 0, 2048);
	ev(a, 3, 'I', "W", 1 << 20, 1 << 16); /* 32 MiB */
	ev(a, 3 + (INT64_C(1) << 45), 'C', "W", 1 << 20, 1 << 16);
	ev(a, INT64_C(1) << 46, 'I', "W", 0, 1);
	ev(a, (INT64_C(1) << 46) + 100, 'C', "W", 0, 1);
	blkev_acc_mark(a, INT64_C(1) << 47, &d);
	ATF_CHECK_EQ(d.discards, 1);
	ATF_CHECK_EQ(d.discard_bytes, 2048 * 512);
	ATF_CHECK_EQ(w->ops, 2);
	ATF_CHECK_EQ(
	    w->lat_by_size[DEVSTATS_LAT_ROWS - 1][DEVSTATS_LAT_COLS - 1], 1);
	ATF_CHECK_EQ(w->lat_by_size[hist_bucket(512)][0], 1);
	blkev_acc_free(a);
}

ATF_TC(devstats_sum);
ATF_TC_HEAD(devstats_sum, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "devstats_add sums the exact fields "
	    "and keeps the first and last flush");
}
ATF_TC_BODY(devstats_sum, tc)
{
	struct devstats a, b, t;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&t, 0, sizeof(t));
	a.exact = b.exact = 1;
	a.flushes = 2;
	a.flush_first_ns = 5;
	a.flush_last_ns = 9;
	b.flushes = 1;
	b.flush_first_ns = 3;
	b.flush_last_ns = 3;
	a.xfer[DIR_WRITE].bios = 4;
	b.xfer[DIR_WRITE].bios = 6;
	a.xfer[DIR_WRITE].lat_by_size[3][4] = 2;
	b.xfer[DIR_WRITE].lat_by_size[3][4] = 5;
	b.has_kern = 1;
	b.kern_ops[DIR_WRITE] = 11;
	devstats_add(&t, &a);
	devstats_add(&t, &b);
	ATF_CHECK(t.exact);
	ATF_CHECK_EQ(t.flushes, 3);
	ATF_CHECK_EQ(t.flush_first_ns, 5);
	ATF_CHECK_EQ(t.flush_last_ns, 3);
	ATF_CHECK_EQ(t.xfer[DIR_WRITE].bios, 10);
	ATF_CHECK_EQ(t.xfer[DIR_WRITE].lat_by_size[3][4], 7);
	ATF_CHECK(t.has_kern);
	ATF_CHECK_EQ(t.kern_ops[DIR_WRITE], 11);
}

ATF_TC(knfsd_recorded);
ATF_TC_HEAD(knfsd_recorded, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "the block events of a whole NFS job on the disk a 6.12 guest's "
	    "knfsd exported (fixtures/blkev_test): write requests plus empty "
	    "preflush writes, bytes and flushes equal the disk's diskstats "
	    "over the same time");
}
ATF_TC_BODY(knfsd_recorded, tc)
{
	const char *path = tl_path(tc, "fixtures/blkev_test/knfsd-6.12.txt.gz");
	uint32_t devs[] = {BLKEV_DEV(254, 0)};
	struct blkev_acc *a = blkev_acc_new(devs, 1, 0);
	uint64_t k_ops = 0, k_sectors = 0, k_flushes = 0, n = 0;
	struct devstats d;
	const struct xfer *w = &d.xfer[DIR_WRITE];
	char line[256];
	gzFile gz;

	ATF_REQUIRE(a != NULL);
	if ((gz = gzopen(path, "rb")) == NULL)
		atf_tc_fail("cannot open '%s'", path);
	while (gzgets(gz, line, sizeof(line)) != NULL) {
		struct blkev e = {.dev = devs[0]};
		char rwbs[16];
		int64_t extra = 0;

		if (line[0] == '#')
			continue;
		if (sscanf(line, "diskstats %" SCNu64 " %" SCNu64 " %" SCNu64,
		        &k_ops, &k_sectors, &k_flushes) == 3)
			continue;
		ATF_REQUIRE_MSG(sscanf(line,
		                    "%c %" SCNd64 " 254:0 %15s %" SCNu64
		                    " %" SCNu32 " %" SCNd64,
		                    &e.kind, &e.ts_ns, rwbs, &e.sector,
		                    &e.nr_sector, &extra) >= 5,
		    "bad line: %s", line);
		e.flags = blkev_rwbs_parse(rwbs);
		ATF_REQUIRE_MSG(e.flags != 0, "bad rwbs: %s", line);
		if (e.kind == BLKEV_ISSUE)
			e.bytes = (uint64_t)extra;
		else if (e.kind == BLKEV_COMPLETE)
			e.error = (int32_t)extra;
		blkev_acc_add(a, &e);
		n++;
	}
	gzclose(gz);
	blkev_acc_mark(a, INT64_MAX, &d);
	blkev_acc_free(a);

	ATF_REQUIRE_EQ(n, 57628);
	ATF_REQUIRE(k_ops > 0);
	/* Empty preflush writes are there: what the test is about. */
	ATF_CHECK_EQ(d.empty_preflush, 2);
	ATF_CHECK_EQ(w->ops + d.empty_preflush, k_ops);
	ATF_CHECK_EQ(w->bytes, k_sectors * 512);
	ATF_CHECK_EQ(d.flushes, k_flushes);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, rwbs);
	ATF_TP_ADD_TC(tp, flush_sequence);
	ATF_TP_ADD_TC(tp, merges_and_runs);
	ATF_TP_ADD_TC(tp, splits);
	ATF_TP_ADD_TC(tp, discard_and_clamp);
	ATF_TP_ADD_TC(tp, devstats_sum);
	ATF_TP_ADD_TC(tp, knfsd_recorded);
	return atf_no_error();
}
