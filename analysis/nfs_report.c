/*
 * nfs_report.c - the NFS wire statistics as JSON (the "nfs" object of a run,
 * docs/json.md) and the text report rendered from that JSON alone, so that
 * `ubcreplay report` prints what the live command printed.
 */
#include <inttypes.h>
#include <string.h>

#include "analysis.h"
#include "nfs_report.h"

static const char *const stable_name[NFS_NSTABLE] = {
    "unstable",
    "data_sync",
    "file_sync",
};

/* A histogram as {"kind", "buckets": [{min_key: B, "count": N}...]}. */
static json_t *
hist_json(const struct hist *h, const char *kind, const char *min_key)
{
	json_t *b = json_array();

	for (unsigned i = 0; i < HIST_NBUCKETS; i++)
		if (h->count[i] != 0)
			json_array_append_new(b,
			    json_pack("{s:I,s:I}", min_key,
			        (json_int_t)hist_bucket_min(i), "count",
			        (json_int_t)h->count[i]));
	return json_pack("{s:s,s:o}", "kind", kind, "buckets", b);
}

static json_t *
xfer_json(const struct nfs_xfer *x)
{
	uint64_t known = x->calls - x->size_unknown;

	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,"
	                 "s:o,s:o,s:o}",
	    "calls", (json_int_t)x->calls, "size_unknown",
	    (json_int_t)x->size_unknown, "bytes_requested",
	    (json_int_t)x->bytes_requested, "mean_bytes",
	    (json_int_t)(known ? x->bytes_requested / known : 0), "replies",
	    (json_int_t)x->replies, "errors", (json_int_t)x->errors,
	    "bytes_done", (json_int_t)x->bytes_done, "short_replies",
	    (json_int_t)x->short_replies, "sequential",
	    (json_int_t)x->sequential, "followed", (json_int_t)x->followed,
	    "judged_by_reply", (json_int_t)x->judged_by_reply,
	    "judged_by_request", (json_int_t)x->judged_by_request, "size_hist",
	    hist_json(&x->size_requested, "exact", "min_bytes"),
	    "done_size_hist", hist_json(&x->size_done, "exact", "min_bytes"),
	    "latency_hist", hist_json(&x->latency_ns, "exact", "min_ns"));
}

static json_t *
ops_json(const uint64_t *n, size_t count, uint32_t vers)
{
	json_t *o = json_object();

	for (size_t i = 0; i < count; i++) {
		const char *name = vers == 4
		    ? (i == 0 ? "NULL" : nfs_v4_op_name((uint32_t)i))
		    : nfs_proc_name(vers, (uint32_t)i);

		if (n[i] != 0 && name != NULL)
			json_object_set_new(
			    o, name, json_integer((json_int_t)n[i]));
	}
	return o;
}

json_t *
nfs_stats_json(const struct nfs_stats *s)
{
	const struct nfs_loss *l = &s->loss;
	json_t *vers = json_object(), *ops = json_object();
	json_t *stable = json_object(), *committed = json_object(), *v4;

	for (int v = 2; v <= 4; v++) {
		char key[2] = {(char)('0' + v), '\0'};

		if (s->calls_by_vers[v] != 0)
			json_object_set_new(vers, key,
			    json_integer((json_int_t)s->calls_by_vers[v]));
	}
	if (s->calls_by_vers[2] != 0)
		json_object_set_new(ops, "2", ops_json(s->ops_v2, 18, 2));
	if (s->calls_by_vers[3] != 0)
		json_object_set_new(ops, "3", ops_json(s->ops_v3, 22, 3));
	if (s->calls_by_vers[4] != 0) {
		v4 = ops_json(s->ops_v4, NFS_NOPS, 4);
		if (s->ops_v4_other != 0)
			json_object_set_new(v4, "other",
			    json_integer((json_int_t)s->ops_v4_other));
		json_object_set_new(ops, "4", v4);
	}
	for (int i = 0; i < NFS_NSTABLE; i++) {
		json_object_set_new(stable, stable_name[i],
		    json_integer((json_int_t)s->stable[i]));
		json_object_set_new(committed, stable_name[i],
		    json_integer((json_int_t)s->committed[i]));
	}
	return json_pack(
	    "{s:I,s:I,s:I,s:I,s:o,s:o,s:o,s:o,s:o,s:o,"
	    "s:{s:I,s:I,s:o,s:o,s:I,s:I,s:I},s:I,s:{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,"
	    "s:I,s:I,s:I,s:I,s:I,s:I,s:I}}",
	    "packets", (json_int_t)s->packets, "rpc_calls",
	    (json_int_t)s->rpc_calls, "rpc_replies", (json_int_t)s->rpc_replies,
	    "rpc_errors", (json_int_t)s->rpc_errors, "versions", vers, "ops",
	    ops, "read", xfer_json(&s->xfer[DIR_READ]), "write",
	    xfer_json(&s->xfer[DIR_WRITE]), "stable", stable, "committed",
	    committed, "commit", "calls", (json_int_t)s->commits, "replies",
	    (json_int_t)s->commit_replies, "latency_hist",
	    hist_json(&s->commit_latency_ns, "exact", "min_ns"),
	    "bytes_between_hist",
	    hist_json(&s->bytes_between_commits, "exact", "min_bytes"),
	    "bytes_between", (json_int_t)s->bytes_between, "writes_by_reply",
	    (json_int_t)s->between_by_reply, "writes_by_request",
	    (json_int_t)s->between_by_request, "file_handles",
	    (json_int_t)s->file_handles, "loss", "pcap_drops",
	    (json_int_t)l->pcap_drops, "pcap_ifdrops",
	    (json_int_t)l->pcap_ifdrops, "truncated", (json_int_t)l->truncated,
	    "malformed", (json_int_t)l->malformed, "bad_record_marks",
	    (json_int_t)l->bad_record_marks, "calls_without_reply",
	    (json_int_t)l->calls_without_reply, "replies_without_call",
	    (json_int_t)l->replies_without_call, "bytes_skipped",
	    (json_int_t)l->bytes_skipped, "resyncs", (json_int_t)l->resyncs,
	    "table_evictions", (json_int_t)l->table_evictions, "conns_evicted",
	    (json_int_t)l->conns_evicted, "packets_truncated",
	    (json_int_t)l->packets_truncated, "packets_malformed",
	    (json_int_t)l->packets_malformed, "ip_fragments",
	    (json_int_t)l->ip_fragments, "duplicate_segments",
	    (json_int_t)l->duplicate_segments, "out_of_order_segments",
	    (json_int_t)l->out_of_order_segments);
}

/* Prints a histogram object as rows of bucket, count and a bar. */
static void
hist_rows(FILE *fp, const json_t *h, const char *min_key, int ns)
{
	const json_t *b;
	int64_t max = 0;
	size_t i;

	json_array_foreach (json_object_get(h, "buckets"), i, b)
		if (result_geti(b, "count") > max)
			max = result_geti(b, "count");
	if (max == 0) {
		fprintf(fp, "      (none)\n");
		return;
	}
	json_array_foreach (json_object_get(h, "buckets"), i, b) {
		char label[16];
		int64_t n = result_geti(b, "count");
		int bar = (int)(n * 32 / max);
		uint64_t min = (uint64_t)result_geti(b, min_key);

		if (ns && min >= 1000000)
			snprintf(label, sizeof(label), "%" PRIu64 "ms",
			    min / 1000000);
		else if (ns && min >= 1000)
			snprintf(
			    label, sizeof(label), "%" PRIu64 "us", min / 1000);
		else if (ns)
			snprintf(label, sizeof(label), "%" PRIu64 "ns", min);
		else
			hist_label(hist_bucket(min), label, sizeof(label));
		fprintf(fp, "      %8s %10" PRId64 " %.*s\n", label, n, bar,
		    "################################");
	}
}

static void
xfer_text(FILE *fp, const char *name, const json_t *x, const char *done)
{
	int64_t followed = result_geti(x, "followed");

	fprintf(fp,
	    "  %s: %" PRId64 " calls, %" PRId64 " bytes requested "
	    "(mean %" PRId64 "), %" PRId64 " bytes %s, %" PRId64
	    " replies, %" PRId64 " errors, %" PRId64 " short (%s less than "
	    "asked)\n",
	    name, result_geti(x, "calls"), result_geti(x, "bytes_requested"),
	    result_geti(x, "mean_bytes"), result_geti(x, "bytes_done"), done,
	    result_geti(x, "replies"), result_geti(x, "errors"),
	    result_geti(x, "short_replies"), done);
	if (result_geti(x, "calls") == 0)
		return;
	if (followed > 0) {
		fprintf(fp,
		    "    sequential: %" PRId64 " of %" PRId64
		    " (%.0f%%) continue where the previous one on the file "
		    "ended",
		    result_geti(x, "sequential"), followed,
		    100.0 * (double)result_geti(x, "sequential") /
		        (double)followed);
		/* Results from before the split have no such keys. */
		if (json_object_get(x, "judged_by_reply") != NULL)
			fprintf(fp,
			    " (as its reply said: %" PRId64
			    "; as it asked: %" PRId64 ")",
			    result_geti(x, "judged_by_reply"),
			    result_geti(x, "judged_by_request"));
		fprintf(fp, "\n");
	}
	if (result_geti(x, "size_unknown") > 0)
		fprintf(fp, "    size not captured: %" PRId64 "\n",
		    result_geti(x, "size_unknown"));
	fprintf(fp, "    requested size:\n");
	hist_rows(fp, json_object_get(x, "size_hist"), "min_bytes", 0);
	fprintf(fp, "    %s size:\n", done);
	hist_rows(fp, json_object_get(x, "done_size_hist"), "min_bytes", 0);
	fprintf(fp, "    latency:\n");
	hist_rows(fp, json_object_get(x, "latency_hist"), "min_ns", 1);
}

void
nfs_report_text(const json_t *nfs, FILE *fp)
{
	const json_t *st = json_object_get(nfs, "stable");
	const json_t *cm = json_object_get(nfs, "committed");
	const json_t *c = json_object_get(nfs, "commit");
	const json_t *l = json_object_get(nfs, "loss");
	const json_t *v;
	const char *key;

	fprintf(fp,
	    "%" PRId64 " packets, %" PRId64 " NFS calls, %" PRId64
	    " replies, %" PRId64 " RPC errors;",
	    result_geti(nfs, "packets"), result_geti(nfs, "rpc_calls"),
	    result_geti(nfs, "rpc_replies"), result_geti(nfs, "rpc_errors"));
	json_object_foreach ((json_t *)json_object_get(nfs, "versions"), key, v)
		fprintf(
		    fp, " v%s: %lld", key, (long long)json_integer_value(v));
	fprintf(fp, "\n");
	xfer_text(fp, "WRITE", json_object_get(nfs, "write"), "acknowledged");
	fprintf(fp,
	    "    stable asked: unstable %" PRId64 ", data_sync %" PRId64
	    ", file_sync %" PRId64 "; reached: unstable %" PRId64
	    ", data_sync %" PRId64 ", file_sync %" PRId64 "\n",
	    result_geti(st, "unstable"), result_geti(st, "data_sync"),
	    result_geti(st, "file_sync"), result_geti(cm, "unstable"),
	    result_geti(cm, "data_sync"), result_geti(cm, "file_sync"));
	xfer_text(fp, "READ", json_object_get(nfs, "read"), "returned");
	fprintf(fp, "  COMMIT: %" PRId64 " calls, %" PRId64 " replies\n",
	    result_geti(c, "calls"), result_geti(c, "replies"));
	if (result_geti(c, "calls") > 0) {
		fprintf(fp, "    bytes written between COMMITs (per file)");
		if (json_object_get(c, "bytes_between") != NULL)
			fprintf(fp,
			    ": %" PRId64 " in all; %" PRId64
			    " WRITEs counted as acknowledged, %" PRId64
			    " as requested (no reply before the COMMIT)",
			    result_geti(c, "bytes_between"),
			    result_geti(c, "writes_by_reply"),
			    result_geti(c, "writes_by_request"));
		fprintf(fp, ":\n");
		hist_rows(fp, json_object_get(c, "bytes_between_hist"),
		    "min_bytes", 0);
		fprintf(fp, "    latency:\n");
		hist_rows(fp, json_object_get(c, "latency_hist"), "min_ns", 1);
	}
	fprintf(fp,
	    "  lost: %" PRId64 " pcap drops (%" PRId64 " by the "
	    "interface), %" PRId64 " truncated, %" PRId64 " malformed, %" PRId64
	    " calls without reply, %" PRId64 " replies without call, %" PRId64
	    " bytes skipped in %" PRId64 " resyncs\n",
	    result_geti(l, "pcap_drops"), result_geti(l, "pcap_ifdrops"),
	    result_geti(l, "truncated"), result_geti(l, "malformed"),
	    result_geti(l, "calls_without_reply"),
	    result_geti(l, "replies_without_call"),
	    result_geti(l, "bytes_skipped"), result_geti(l, "resyncs"));
}
