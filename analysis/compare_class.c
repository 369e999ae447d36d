/*
 * compare_class.c - which classes of blocks (model/layout.h) moved most
 * between the baseline and a result, for a gate's line: when a size or a
 * count fails, the first question is which writes changed, and the class
 * rows (write.class.CLASS.ops) answer it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../model/layout.h"
#include "compare.h"

/*
 * The direction and phase a metric is about: "extract.write.mean_bytes"
 * gives "extract." and "write"; NULL for a metric of no device direction.
 */
static const char *
metric_dir(const char *metric, char *prefix, size_t len)
{
	static const char *const dir[2] = {"write", "read"};

	for (int k = 0; k < 2; k++) {
		size_t n = strlen(dir[k]);
		const char *p = strstr(metric, dir[k]);

		if (p == NULL || p[n] != '.' || (p != metric && p[-1] != '.'))
			continue;
		if (strncmp(metric, "app.", 4) == 0 ||
		    strncmp(metric, "nfs.", 4) == 0)
			return NULL;
		snprintf(prefix, len, "%.*s", (int)(p - metric), metric);
		return dir[k];
	}
	return NULL;
}

int
cmp_class_movers(const struct cmp *c, size_t result, const char *metric,
    char *buf, size_t len)
{
	double change[LAYOUT_NCLASS], base[LAYOUT_NCLASS];
	int used[LAYOUT_NCLASS] = {0};
	char prefix[64], name[96];
	const char *dir = metric_dir(metric, prefix, sizeof(prefix));
	size_t n = 0;

	buf[0] = '\0';
	if (dir == NULL)
		return 0;
	for (int k = 0; k < LAYOUT_NCLASS; k++) {
		const struct cmp_row *row;

		snprintf(name, sizeof(name), "%s%s.class.%s.ops", prefix, dir,
		    layout_class_name(k));
		row = cmp_row_find(c, name);
		change[k] = 0;
		if (row == NULL || !row->cell[0].present ||
		    !row->cell[result].present)
			continue;
		base[k] = row->cell[0].sum.median;
		change[k] = row->cell[result].sum.median - base[k];
		used[k] = change[k] != 0;
	}
	/* The two that moved most, by requests. */
	for (int pick = 0; pick < 2; pick++) {
		int best = -1;

		for (int k = 0; k < LAYOUT_NCLASS; k++)
			if (used[k] &&
			    (best == -1 ||
			        fabs(change[k]) > fabs(change[best])))
				best = k;
		if (best == -1)
			break;
		used[best] = 0;
		n += (size_t)snprintf(buf + strlen(buf), len - strlen(buf),
		    "%s%s %+.0f requests", n ? ", " : "",
		    layout_class_name(best), change[best]);
		if (base[best] != 0)
			snprintf(buf + strlen(buf), len - strlen(buf),
			    " (%+.1f%%)", 100 * change[best] / base[best]);
	}
	return buf[0] != '\0';
}
