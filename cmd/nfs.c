/*
 * nfs.c - `ubcreplay nfs`: the NFS READs, WRITEs and COMMITs on the
 * wire, from a capture file or a live interface, reported in the shape of
 * the disk probes (traces/nfs.h decodes, analysis/nfs_report.h renders).
 *
 *	ubcreplay nfs -r capture.pcap -o result.json
 *	ubcreplay nfs -I eth0 -t 60
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../analysis/analysis.h"
#include "../analysis/nfs_report.h"
#include "cmd.h"
#include "../traces/nfs.h"

enum { OPT_CALLS = 256 };

static const struct option longopts[] = {
    /* One CSV line per call, in the columns of the test oracles. */
    {"calls", no_argument, NULL, OPT_CALLS},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* Prints a field when its bit is known, else leaves it empty. */
static void
field(FILE *fp, uint32_t have, uint32_t bit, uint64_t v)
{
	if (have & bit)
		fprintf(fp, ",%" PRIu64, v);
	else
		fputs(",", fp);
}

static void
print_call(const struct nfs_call *c, void *arg)
{
	FILE *fp = arg;
	int reply = (c->have & NFS_HAVE_REPLY) != 0;

	fprintf(fp, "%" PRIu64 ",", c->call_frame);
	if (reply)
		fprintf(fp, "%" PRIu64, c->reply_frame);
	fprintf(fp, ",%" PRIu64 ",0x%08" PRIx32 ",%" PRIu32 ",%" PRIu32 ",",
	    c->stream, c->xid, c->vers, c->proc);
	if (c->op_index >= 0)
		fprintf(fp, "%" PRId32, c->op_index);
	fprintf(fp, ",%s", c->op);
	field(fp, c->have, NFS_HAVE_OFFSET, c->offset);
	field(fp, c->have, NFS_HAVE_COUNT, c->count);
	field(fp, c->have, NFS_HAVE_STABLE, c->stable);
	field(fp, c->have, NFS_HAVE_DATA_LEN, c->write_data_len);
	field(fp, c->have, NFS_HAVE_STATUS, c->reply_status);
	field(fp, c->have, NFS_HAVE_REPLY_COUNT, c->reply_count);
	field(fp, c->have, NFS_HAVE_REPLY_DATA, c->reply_data_len);
	field(fp, c->have, NFS_HAVE_COMMITTED, c->committed);
	field(fp, c->have, NFS_HAVE_EOF, c->eof);
	fprintf(fp, ",%d,0,%u,%" PRIu32 ",", c->call_truncated,
	    (unsigned)c->client_port, c->call_segments);
	if (reply)
		fprintf(fp, "%" PRIu32, c->reply_segments);
	fputc('\n', fp);
}

static int
usage(void)
{
	usage_command(stderr, "nfs");
	return EXIT_USAGE;
}

/* The result document: the common top level, one run holding "nfs". */
static json_t *
make_result(const struct nfs_capture *cap, const char *label, time_t started,
    const struct nfs_stats *st)
{
	struct result r;
	json_t *doc, *run, *runs, *workload;

	workload = json_pack("{s:s,s:s,s:s,s:I,s:s,s:i,s:b}", "source",
	    cap->file ? "file" : "interface", "name",
	    cap->file ? cap->file : cap->iface, "filter",
	    cap->filter_used ? cap->filter_used : "", "duration_ns",
	    (json_int_t)cap->duration_ns, "linktype",
	    cap->linktype_name ? cap->linktype_name : "unknown", "snaplen",
	    cap->snaplen, "interrupted", cap->interrupted);
	memset(&r, 0, sizeof(r));
	r.kind = "nfs";
	r.label = label;
	r.status = "ok";
	r.started = started;
	r.workload = workload;
	if ((doc = result_json(&r)) == NULL)
		return NULL;
	json_object_set_new(doc, "probe",
	    json_pack("{s:s,s:s,s:I,s:s}", "name", "pcap", "resolution",
	        "exact", "interval_ns", (json_int_t)0, "why",
	        "every packet the filter passed"));
	run = json_pack("{s:i,s:s,s:n,s:o}", "run", 1, "status", "ok", "error",
	    "nfs", nfs_stats_json(st));
	runs = json_array();
	json_array_append_new(runs, run);
	json_object_set_new(doc, "runs", runs);
	json_object_set_new(
	    json_object_get(doc, "summary"), "runs_ok", json_integer(1));
	return doc;
}

int
cmd_nfs(int argc, char **argv)
{
	struct nfs_capture cap;
	struct nfs_decoder *d;
	const char *output = NULL, *label = NULL;
	char errbuf[1024], *end;
	int c, calls = 0, quiet = 0, status = EXIT_SUCCESS;
	time_t started = time(NULL);
	json_t *doc;
	double secs;

	/*
	 * A hangup stops the capture as INT and TERM do. Left to its default
	 * action it could end the process while the result is being written,
	 * leaving the temporary file behind. Caught first thing, so that a
	 * stop sent while the capture is being set up is not lost.
	 */
	stop_catch();
	memset(&cap, 0, sizeof(cap));
	optind = 1;
	while ((c = getopt_long(
	            argc, argv, "f:hI:l:o:qr:t:", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			cap.filter = optarg;
			break;
		case 'I':
			cap.iface = optarg;
			break;
		case 'l':
			label = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'r':
			cap.file = optarg;
			break;
		case 't':
			errno = 0;
			secs = strtod(optarg, &end);
			if (end == optarg || *end != '\0' || errno != 0 ||
			    secs <= 0 || secs > 86400 * 365) {
				warnx("seconds '%s' is not a positive number",
				    optarg);
				return EXIT_USAGE;
			}
			cap.duration_ns = (int64_t)(secs * 1e9);
			break;
		case OPT_CALLS:
			calls = 1;
			break;
		case 'h':
			usage_command(stdout, "nfs");
			return EXIT_SUCCESS;
		default:
			return usage();
		}
	}
	if (optind != argc || (cap.file == NULL) == (cap.iface == NULL)) {
		if (optind == argc)
			warnx("give one of -r file or -I interface");
		return usage();
	}
	if (cap.file != NULL && cap.duration_ns != 0) {
		warnx("-t applies to live capture (-I), not to -r");
		return usage();
	}
	if ((d = nfs_decoder_new()) == NULL) {
		warnx("cannot make the NFS decoder: out of memory");
		return EXIT_FAILURE;
	}
	if (calls) {
		puts("call_frame,reply_frame,tcp_stream,xid,nfs_vers,rpc_proc,"
		     "op_index,op,offset,count,stable,write_data_len,"
		     "reply_status,reply_count,reply_data_len,reply_committed,"
		     "reply_eof,call_truncated,call_unreassembled,client_port,"
		     "call_segments,reply_segments");
		nfs_decoder_on_call(d, print_call, stdout);
	}
	cap.stop = stop_flag();
	if (nfs_capture_run(&cap, d, errbuf, sizeof(errbuf)) == -1) {
		warnx("%s", errbuf);
		nfs_decoder_free(d);
		return EXIT_FAILURE;
	}
	doc = make_result(&cap,
	    label          ? label
	        : cap.file ? cap.file
	                   : cap.iface,
	    started, nfs_decoder_stats(d));
	nfs_decoder_free(d);
	if (doc == NULL) {
		warnx("cannot build the result: out of memory");
		return EXIT_FAILURE;
	}
	if (!quiet && !calls)
		report_text(doc, stdout, 0);
	if (output != NULL &&
	    result_write(doc, output, errbuf, sizeof(errbuf)) == -1) {
		warnx("%s", errbuf);
		status = EXIT_FAILURE;
	}
	json_decref(doc);
	return status;
}
