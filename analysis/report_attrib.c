/*
 * report_attrib.c - what a run's writes were, by what their blocks held
 * (model/layout.h), rendered from the phases' "attribution" objects: each
 * class's share of the requests and of the bytes over the run, and the
 * request sizes by class, so that the small ones have a name.
 *
 *	  what the writes are (loop0; ext4: GETFSMAP, FIEMAP, hidden inodes)
 *	    class        requests   share        bytes   share     KB/t
 *	    data               52   76.5%       8.3 MB   94.5%    156.4
 *	    inode               2    2.9%       0.2 MB    2.0%     88.0
 *	  write sizes by class (requests)
 *	      size     data    inode
 *	        4K        3        1
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"

struct classes {
	uint64_t ops[LAYOUT_NCLASS], bytes[LAYOUT_NCLASS];
	struct hist size[LAYOUT_NCLASS];
	uint64_t mixed;
};

/* The write side of one phase's attribution into c. */
static void
add_phase(const json_t *a, struct classes *c)
{
	const json_t *w = json_object_get(a, "write");
	const json_t *cls = json_object_get(w, "classes");

	c->mixed += (uint64_t)result_geti(w, "mixed");
	for (int k = 0; k < LAYOUT_NCLASS; k++) {
		const json_t *x = json_object_get(cls, layout_class_name(k));
		struct hist h;

		c->ops[k] += (uint64_t)result_geti(x, "ops");
		c->bytes[k] += (uint64_t)result_geti(x, "bytes");
		result_hist_from_json(
		    json_object_get(x, "size_hist"), "min_bytes", &h);
		hist_merge(&c->size[k], &h);
	}
}

static double
share(uint64_t part, uint64_t whole)
{
	return whole == 0 ? 0 : 100.0 * (double)part / (double)whole;
}

static void
size_table(FILE *fp, const struct classes *c)
{
	unsigned lo = HIST_NBUCKETS, hi = 0;
	char label[16];

	for (unsigned b = 0; b < HIST_NBUCKETS; b++)
		for (int k = 0; k < LAYOUT_NCLASS; k++)
			if (c->size[k].count[b] != 0) {
				lo = b < lo ? b : lo;
				hi = b > hi ? b : hi;
			}
	if (lo == HIST_NBUCKETS)
		return;
	fprintf(fp, "  write sizes by class (requests)\n  %6s", "size");
	for (int k = 0; k < LAYOUT_NCLASS; k++)
		if (c->ops[k] != 0)
			fprintf(fp, " %8s", layout_class_name(k));
	fprintf(fp, "\n");
	for (unsigned b = lo; b <= hi; b++) {
		fprintf(fp, "  %6s", hist_label(b, label, sizeof(label)));
		for (int k = 0; k < LAYOUT_NCLASS; k++)
			if (c->ops[k] != 0)
				fprintf(fp, " %8" PRIu64, c->size[k].count[b]);
		fprintf(fp, "\n");
	}
}

void
report_attrib_text(const json_t *run, FILE *fp)
{
	const json_t *phases = json_object_get(run, "phases"), *ph, *a;
	const json_t *first = NULL;
	struct classes c;
	uint64_t ops = 0, bytes = 0;
	size_t i;

	memset(&c, 0, sizeof(c));
	json_array_foreach (phases, i, ph) {
		if ((a = json_object_get(ph, "attribution")) == NULL)
			continue;
		if (json_object_get(a, "error") != NULL) {
			fprintf(fp, "  what the writes are: not told: %s\n",
			    result_gets(a, "error"));
			return;
		}
		if (first == NULL)
			first = a;
		add_phase(a, &c);
	}
	if (first == NULL)
		return;
	for (int k = 0; k < LAYOUT_NCLASS; k++) {
		ops += c.ops[k];
		bytes += c.bytes[k];
	}
	fprintf(fp, "  what the writes are (%s; %s)\n",
	    result_gets(first, "device"), result_gets(first, "layout"));
	if (*result_gets(first, "note") != '\0')
		fprintf(fp, "    note: %s\n", result_gets(first, "note"));
	fprintf(fp, "    %-8s %12s %7s %12s %7s %8s\n", "class", "requests",
	    "share", "bytes", "share", "KB/t");
	for (int k = 0; k < LAYOUT_NCLASS; k++) {
		if (c.ops[k] == 0 && c.bytes[k] == 0)
			continue;
		fprintf(fp,
		    "    %-8s %12" PRIu64 " %6.1f%% %9.1f MB %6.1f%% %8.1f\n",
		    layout_class_name(k), c.ops[k], share(c.ops[k], ops),
		    (double)c.bytes[k] / 1e6, share(c.bytes[k], bytes),
		    c.ops[k] == 0 ? 0 : (double)c.bytes[k] / c.ops[k] / 1024);
	}
	if (c.mixed != 0)
		fprintf(fp,
		    "    %" PRIu64 " requests spanned classes: each is counted "
		    "with the class that held most of its bytes\n",
		    c.mixed);
	size_table(fp, &c);
}
