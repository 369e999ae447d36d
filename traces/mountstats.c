/*
 * mountstats.c - the NFS client's own counters for one mount, from
 * /proc/self/mountstats (the kernel's nfs_show_stats). An entry starts with
 * "device SOURCE mounted on DIR with fstype nfs4 statvers=1.1"; the lines
 * after it, indented, hold "bytes:" and, under "per-op statistics", one
 * line per operation: "WRITE: ops transmissions timeouts bytes_sent
 * bytes_recv queue rtt execute [errors]".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mountstats.h"

/* Reads up to n numbers after the label; how many it found. */
static int
numbers(const char *s, uint64_t *v, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		char *end;

		while (*s == ' ' || *s == '\t')
			s++;
		if (*s < '0' || *s > '9')
			break;
		v[i] = strtoull(s, &end, 10);
		s = end;
	}
	return i;
}

static int
op(const char *line, const char *name, struct mountstats_op *o)
{
	size_t len = strlen(name);
	uint64_t v[5];

	if (strncmp(line, name, len) != 0 || line[len] != ':')
		return 0;
	if (numbers(line + len + 1, v, 5) != 5)
		return -1;
	o->ops = v[0];
	o->transmissions = v[1];
	o->timeouts = v[2];
	o->bytes_sent = v[3];
	o->bytes_recv = v[4];
	return 1;
}

int
mountstats_parse(const char *text, const char *mountpoint,
    struct mountstats *ms, char *err, size_t errlen)
{
	const char *p = text;
	int in = 0, found = 0, bytes = 0;

	memset(ms, 0, sizeof(*ms));
	while (*p != '\0') {
		const char *nl = strchr(p, '\n');
		size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		char line[1024], dev[512], dir[512];
		const char *l = line;

		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		p += len + (nl != NULL);
		if (strncmp(line, "device ", 7) == 0) {
			/* A later entry on the same directory hides an earlier.
			 */
			in = sscanf(line, "device %511s mounted on %511s", dev,
			         dir) == 2 &&
			    strcmp(dir, mountpoint) == 0;
			if (in) {
				found = 1;
				bytes = 0;
				memset(ms, 0, sizeof(*ms));
			}
			continue;
		}
		if (!in)
			continue;
		while (*l == ' ' || *l == '\t')
			l++;
		if (strncmp(l, "bytes:", 6) == 0) {
			uint64_t v[8];

			if (numbers(l + 6, v, 8) != 8)
				goto malformed;
			ms->normal_write = v[1];
			ms->direct_write = v[3];
			ms->server_write = v[5];
			ms->write_pages = v[7];
			bytes = 1;
		} else if (op(l, "WRITE", &ms->write) == -1 ||
		    op(l, "COMMIT", &ms->commit) == -1)
			goto malformed;
	}
	if (!found) {
		snprintf(
		    err, errlen, "no entry for '%s' in mountstats", mountpoint);
		return -1;
	}
	if (!bytes) {
		snprintf(err, errlen,
		    "the mountstats entry for '%s' has no NFS counters",
		    mountpoint);
		return -1;
	}
	return 0;

malformed:
	snprintf(err, errlen, "mountstats for '%s': a line is not numbers",
	    mountpoint);
	return -1;
}

int
mountstats_read(
    const char *mountpoint, struct mountstats *ms, char *err, size_t errlen)
{
	FILE *f = fopen("/proc/self/mountstats", "re");
	char *text = NULL;
	size_t cap = 0, len = 0, n;
	int rv;

	if (f == NULL) {
		snprintf(err, errlen, "cannot open /proc/self/mountstats: %s",
		    strerror(errno));
		return -1;
	}
	/* A proc file has no size to ask for: grow until it ends. */
	do {
		char *t;

		if (len + 4096 + 1 > cap) {
			cap = cap == 0 ? 65536 : cap * 2;
			if ((t = realloc(text, cap)) == NULL) {
				free(text);
				fclose(f);
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			text = t;
		}
		n = fread(text + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	fclose(f);
	text[len] = '\0';
	rv = mountstats_parse(text, mountpoint, ms, err, errlen);
	free(text);
	return rv;
}

static json_t *
opjson(const struct mountstats_op *a, const struct mountstats_op *b)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I}", "ops",
	    (json_int_t)(b->ops - a->ops), "transmissions",
	    (json_int_t)(b->transmissions - a->transmissions), "timeouts",
	    (json_int_t)(b->timeouts - a->timeouts), "bytes_sent",
	    (json_int_t)(b->bytes_sent - a->bytes_sent), "bytes_recv",
	    (json_int_t)(b->bytes_recv - a->bytes_recv));
}

json_t *
mountstats_delta_json(
    const struct mountstats *before, const struct mountstats *after)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:o, s:o}", "normal_write_bytes",
	    (json_int_t)(after->normal_write - before->normal_write),
	    "direct_write_bytes",
	    (json_int_t)(after->direct_write - before->direct_write),
	    "server_write_bytes",
	    (json_int_t)(after->server_write - before->server_write),
	    "write_pages",
	    (json_int_t)(after->write_pages - before->write_pages), "WRITE",
	    opjson(&before->write, &after->write), "COMMIT",
	    opjson(&before->commit, &after->commit));
}
