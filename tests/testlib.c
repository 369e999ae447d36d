/*
 * testlib.c - helpers shared by the C tests; see testlib.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

const char *
tl_path(const atf_tc_t *tc, const char *rel)
{
	static char buf[PATH_MAX];

	/* The programs live in build/tests: the top is two levels up. */
	snprintf(buf, sizeof(buf), "%s/../../%s",
	    atf_tc_get_config_var(tc, "srcdir"), rel);
	return buf;
}

char *
tl_read(const atf_tc_t *tc, const char *rel)
{
	const char *path = tl_path(tc, rel);
	size_t len = 0, cap = 4096, n;
	char *buf = malloc(cap), *nb;
	FILE *fp;

	if (buf == NULL || (fp = fopen(path, "r")) == NULL) {
		atf_tc_fail(
		    "cannot read fixture '%s': %s", path, strerror(errno));
		return NULL;
	}
	while ((n = fread(buf + len, 1, cap - len - 1, fp)) > 0) {
		len += n;
		if (len + 1 < cap)
			continue;
		if ((nb = realloc(buf, cap *= 2)) == NULL) {
			atf_tc_fail("out of memory reading '%s'", path);
			break;
		}
		buf = nb;
	}
	fclose(fp);
	buf[len] = '\0';
	return buf;
}
