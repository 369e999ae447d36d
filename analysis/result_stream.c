/*
 * result_stream.c - a result whose runs are written as they end, not held
 * (analysis.h says what it promises). The spill holds each run's JSON as
 * it stands in the result, two levels deep; the result is then written key
 * by key from the frame, in jansson's own layout, the spill copied in
 * where the runs go.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"

#define DUMP_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY)

int
result_stream_open(
    struct result_stream *s, const char *result, char *err, size_t errlen)
{
	char dir[PATH_MAX], *tmpl = s->path;
	const char *tmp = getenv("TMPDIR");
	int fd, beside = result != NULL && strcmp(result, "-") != 0;

	memset(s, 0, sizeof(s[0]));
	if (beside) {
		snprintf(dir, sizeof(dir), "%s", result);
		snprintf(tmpl, sizeof(s->path), "%s/.ubcreplay-runs.XXXXXX",
		    dirname(dir));
	} else
		snprintf(tmpl, sizeof(s->path), "%s/ubcreplay-runs.XXXXXX",
		    tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	/* Unlinked at once: whatever becomes of the job, nothing is left. */
	if ((fd = mkstemp(tmpl)) == -1) {
		snprintf(err, errlen, "cannot keep the runs %s '%s': %s",
		    beside ? "beside the result" : "in",
		    beside ? result : dirname(tmpl), strerror(errno));
		return -1;
	}
	unlink(tmpl);
	if ((s->spill = fdopen(fd, "w+")) == NULL) {
		snprintf(
		    err, errlen, "cannot open '%s': %s", tmpl, strerror(errno));
		close(fd);
		return -1;
	}
	return 0;
}

/* text, each of its lines after the first indented by depth levels. */
static int
put_indented(const char *text, int depth, FILE *fp)
{
	for (const char *p = text; *p != '\0'; p++) {
		if (fputc(*p, fp) == EOF)
			return -1;
		if (*p == '\n' && fprintf(fp, "%*s", depth * 2, "") < 0)
			return -1;
	}
	return 0;
}

int
result_stream_run(struct result_stream *s, const struct result *r,
    const struct run_result *run, size_t idx, char *err, size_t errlen)
{
	json_t *o = result_run_json(r, run, idx);
	char *text = o != NULL ? json_dumps(o, DUMP_FLAGS) : NULL;
	off_t *end = realloc(s->end, (s->nrun + 1) * sizeof(*end));
	int bad;

	json_decref(o);
	if (end != NULL)
		s->end = end;
	if (text == NULL || end == NULL ||
	    result_figures_add(&s->figures, run) == -1) {
		free(text);
		snprintf(err, errlen, "run %zu: out of memory", idx + 1);
		return -1;
	}
	bad = put_indented(text, 2, s->spill) == -1 ||
	    fflush(s->spill) == EOF || fdatasync(fileno(s->spill)) == -1;
	free(text);
	if (bad) {
		snprintf(err, errlen, "cannot keep run %zu in '%s': %s",
		    idx + 1, s->path, strerror(errno));
		return -1;
	}
	s->end[s->nrun++] = ftello(s->spill);
	return 0;
}

/* The spill's bytes from off to end, onto fp. */
static int
copy_spill(struct result_stream *s, off_t off, off_t end, FILE *fp)
{
	char buf[65536];

	while (off < end) {
		size_t want = end - off < (off_t)sizeof(buf)
		    ? (size_t)(end - off)
		    : sizeof(buf);
		ssize_t got = pread(fileno(s->spill), buf, want, off);

		if (got <= 0 || fwrite(buf, 1, (size_t)got, fp) != (size_t)got)
			return -1;
		off += got;
	}
	return 0;
}

/* The runs array, at the frame's first level, as jansson lays it out. */
static int
dump_runs(struct result_stream *s, FILE *fp)
{
	if (s->nrun == 0)
		return fputs("[]", fp) == EOF ? -1 : 0;
	for (size_t i = 0; i < s->nrun; i++)
		if (fputs(i == 0 ? "[\n    " : ",\n    ", fp) == EOF ||
		    copy_spill(s, i == 0 ? 0 : s->end[i - 1], s->end[i], fp) ==
		        -1)
			return -1;
	return fputs("\n  ]", fp) == EOF ? -1 : 0;
}

int
result_stream_dump(struct result_stream *s, json_t *frame, FILE *fp)
{
	const char *key;
	json_t *v, *k;
	char *text;
	int first = 1, bad;

	if (fflush(s->spill) == EOF || fputc('{', fp) == EOF)
		return -1;
	json_object_foreach (frame, key, v) {
		k = json_string(key);
		text = k != NULL ? json_dumps(k, DUMP_FLAGS) : NULL;
		json_decref(k);
		bad = text == NULL ||
		    fprintf(fp, "%s\n  %s: ", first ? "" : ",", text) < 0;
		free(text);
		if (bad)
			return -1;
		first = 0;
		if (strcmp(key, "runs") == 0) {
			if (dump_runs(s, fp) == -1)
				return -1;
			continue;
		}
		text = json_dumps(v, DUMP_FLAGS);
		bad = text == NULL || put_indented(text, 1, fp) == -1;
		free(text);
		if (bad)
			return -1;
	}
	return fputs(first ? "}" : "\n}", fp) == EOF ? -1 : 0;
}

static int
dump_stream(void *s, json_t *frame, FILE *fp)
{
	return result_stream_dump(s, frame, fp);
}

int
result_stream_write(struct result_stream *s, json_t *frame, const char *path,
    char *err, size_t errlen)
{
	return result_write_with(dump_stream, s, frame, path, err, errlen);
}

json_t *
result_stream_get(void *arg, size_t i)
{
	struct result_stream *s = arg;
	off_t off = i == 0 ? 0 : s->end[i - 1];
	json_t *run = NULL;
	char *buf;

	if (i >= s->nrun || fflush(s->spill) == EOF ||
	    (buf = malloc((size_t)(s->end[i] - off))) == NULL)
		return NULL;
	if (pread(fileno(s->spill), buf, (size_t)(s->end[i] - off), off) ==
	    s->end[i] - off)
		run = json_loadb(buf, (size_t)(s->end[i] - off), 0, NULL);
	free(buf);
	return run;
}

void
result_stream_close(struct result_stream *s)
{
	if (s->spill != NULL)
		fclose(s->spill);
	free(s->end);
	result_figures_free(&s->figures);
	memset(s, 0, sizeof(s[0]));
}
