/*
 * remove_rump.c - the remove phase inside a NetBSD rump kernel: a tree
 * removed as `rm -rf` would, through the kernel's system calls, following
 * no symbolic link.
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rump.h"

/* The names in directory path, read through before any is removed. */
static char **
names(const char *path, size_t *n)
{
	char name[512], **v = NULL;
	size_t cap = 0;
	int fd, r;

	*n = 0;
	if ((fd = rumpk_open(path,
	         RUMPK_O_RDONLY | RUMPK_O_DIRECTORY | RUMPK_O_NOFOLLOW, 0)) ==
	    -1)
		return NULL;
	while ((r = rumpk_readdir(fd, name, sizeof(name))) == 1) {
		if (*n == cap) {
			char **nv =
			    realloc(v, (cap = cap ? cap * 2 : 32) * sizeof(*v));

			if (nv == NULL)
				break;
			v = nv;
		}
		if ((v[*n] = strdup(name)) == NULL)
			break;
		(*n)++;
	}
	rumpk_close(fd);
	return v;
}

int
replay_rump_remove_tree(const char *path, char *err, size_t errlen)
{
	char child[PATH_MAX];
	mode_t mode;
	char **v;
	size_t n;
	int rv = 0;

	if (rumpk_lstat_mode(path, &mode) == -1) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "cannot look at '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	if (!S_ISDIR(mode)) {
		if (rumpk_unlink(path) == -1) {
			snprintf(err, errlen, "cannot remove '%s': %s", path,
			    strerror(errno));
			return -1;
		}
		return 0;
	}
	v = names(path, &n);
	for (size_t i = 0; i < n; i++) {
		snprintf(child, sizeof(child), "%s/%s", path, v[i]);
		if (rv == 0 &&
		    replay_rump_remove_tree(child, err, errlen) == -1)
			rv = -1;
		free(v[i]);
	}
	free(v);
	if (rv == 0 && rumpk_rmdir(path) == -1) {
		snprintf(err, errlen, "cannot remove '%s': %s", path,
		    strerror(errno));
		rv = -1;
	}
	return rv;
}
