/*
 * vmconf.c - /vm.conf written by the host and read by the guest's init, in
 * one place (vmconf.h says the format and the limits). Only the C library:
 * this file is also linked into the static init.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmconf.h"

/* One "key value" line, or the reason it cannot be one. */
static int
checkline(
    const char *key, const char *what, const char *v, char *err, size_t errlen)
{
	size_t len = strlen(key) + 1 + strlen(v) + 1;

	if (strchr(v, '\n') != NULL) {
		snprintf(err, errlen, "%s holds a newline: '%s'", what, v);
		return -1;
	}
	if (len > VMCONF_LINE_MAX) {
		snprintf(err, errlen,
		    "%s is %zu bytes long, more than the guest takes (%d): "
		    "'%.64s...'",
		    what, strlen(v), VMCONF_LINE_MAX - (int)strlen(key) - 2, v);
		return -1;
	}
	return 0;
}

char *
vmconf_format(const struct vmconf *c, char *err, size_t errlen)
{
	const char *setup = c->setup != NULL ? c->setup : "";
	const char *transport = c->transport != NULL ? c->transport : "";
	const char *outdir = c->outdir != NULL ? c->outdir : "";
	const char *disk = c->disk != NULL ? c->disk : "";
	size_t len = 1;
	char *s, *p;

	if (c->nmod > VMCONF_MODULES_MAX) {
		snprintf(err, errlen,
		    "the cell needs %zu modules, more than the guest loads "
		    "(%d)",
		    c->nmod, VMCONF_MODULES_MAX);
		return NULL;
	}
	if (c->narg > VMCONF_ARGS_MAX) {
		snprintf(err, errlen,
		    "the job has %zu arguments, more than the guest takes (%d)",
		    c->narg, VMCONF_ARGS_MAX);
		return NULL;
	}
	if (checkline("fstype", "the filesystem type", c->fstype, err,
	        errlen) == -1 ||
	    checkline("mountopts", "the mount options (-O)", c->mountopts, err,
	        errlen) == -1 ||
	    checkline("exe", "this program's path", c->exe, err, errlen) ==
	        -1 ||
	    checkline("setup", "the set-up script's path", setup, err,
	        errlen) == -1 ||
	    checkline("transport", "the transport", transport, err, errlen) ==
	        -1 ||
	    checkline("outdir", "the out directory's path", outdir, err,
	        errlen) == -1 ||
	    checkline("disk", "the disk's path", disk, err, errlen) == -1)
		return NULL;
	len += strlen(c->fstype) + strlen(c->mountopts) + strlen(c->exe) +
	    strlen(setup) + strlen(transport) + strlen(outdir) + strlen(disk) +
	    96;
	for (size_t i = 0; i < c->nmod; i++) {
		if (checkline("module", "a module's path", c->mod[i], err,
		        errlen) == -1)
			return NULL;
		len += strlen(c->mod[i]) + 8;
	}
	for (size_t i = 0; i < c->narg; i++) {
		if (checkline(
		        "arg", "a job argument", c->arg[i], err, errlen) == -1)
			return NULL;
		len += strlen(c->arg[i]) + 8;
	}
	if ((s = malloc(len)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p = s;
	for (size_t i = 0; i < c->nmod; i++)
		p += sprintf(p, "module %s\n", c->mod[i]);
	p += sprintf(p, "fstype %s\nmountopts %s\nexe %s\n", c->fstype,
	    c->mountopts, c->exe);
	if (setup[0] != '\0')
		p += sprintf(p, "setup %s\n", setup);
	if (transport[0] != '\0')
		p += sprintf(p, "transport %s\n", transport);
	if (outdir[0] != '\0')
		p += sprintf(p, "outdir %s\n", outdir);
	if (disk[0] != '\0')
		p += sprintf(p, "disk %s\n", disk);
	for (size_t i = 0; i < c->narg; i++)
		p += sprintf(p, "arg %s\n", c->arg[i]);
	return s;
}

/* Sets *slot to a copy of v, unless a line gave it already. */
static int
single(const char **slot, const char *v, size_t n, const char *key, char *err,
    size_t errlen)
{
	if (*slot != NULL) {
		snprintf(err, errlen, "line %zu: a second %s line", n, key);
		return -1;
	}
	if ((*slot = strdup(v)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* Appends a copy of v to list, unless it holds max already. */
static int
append(char **list, size_t *count, size_t max, const char *v, size_t n,
    const char *what, char *err, size_t errlen)
{
	if (*count == max) {
		snprintf(
		    err, errlen, "line %zu: more than %zu %s", n, max, what);
		return -1;
	}
	if ((list[*count] = strdup(v)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	(*count)++;
	return 0;
}

static int
parseline(char *line, size_t n, struct vmconf *c, char **mod, char **arg,
    char *err, size_t errlen)
{
	char *v = strchr(line, ' ');

	if (v == NULL) {
		snprintf(err, errlen, "line %zu: no value: '%.64s'", n, line);
		return -1;
	}
	*v++ = '\0';
	if (strcmp(line, "module") == 0)
		return append(mod, &c->nmod, VMCONF_MODULES_MAX, v, n,
		    "modules", err, errlen);
	if (strcmp(line, "arg") == 0)
		return append(arg, &c->narg, VMCONF_ARGS_MAX, v, n, "arguments",
		    err, errlen);
	if (strcmp(line, "fstype") == 0)
		return single(&c->fstype, v, n, line, err, errlen);
	if (strcmp(line, "mountopts") == 0)
		return single(&c->mountopts, v, n, line, err, errlen);
	if (strcmp(line, "exe") == 0)
		return single(&c->exe, v, n, line, err, errlen);
	if (strcmp(line, "setup") == 0)
		return single(&c->setup, v, n, line, err, errlen);
	if (strcmp(line, "transport") == 0)
		return single(&c->transport, v, n, line, err, errlen);
	if (strcmp(line, "outdir") == 0)
		return single(&c->outdir, v, n, line, err, errlen);
	if (strcmp(line, "disk") == 0)
		return single(&c->disk, v, n, line, err, errlen);
	snprintf(err, errlen, "line %zu: unknown key '%.64s'", n, line);
	return -1;
}

int
vmconf_parse(
    const char *text, size_t len, struct vmconf *c, char *err, size_t errlen)
{
	char **mod = calloc(VMCONF_MODULES_MAX, sizeof(*mod));
	char **arg = calloc(VMCONF_ARGS_MAX, sizeof(*arg));
	char line[VMCONF_LINE_MAX];
	size_t at = 0, n = 0;

	memset(c, 0, sizeof(*c));
	c->mod = (const char *const *)mod;
	c->arg = (const char *const *)arg;
	if (mod == NULL || arg == NULL) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t l = (nl != NULL ? (size_t)(nl - text) : len) - at;

		n++;
		/* The line and its newline must fit the buffer whole. */
		if (l + 1 > VMCONF_LINE_MAX) {
			snprintf(err, errlen,
			    "line %zu is longer than %d bytes", n,
			    VMCONF_LINE_MAX);
			goto fail;
		}
		memcpy(line, text + at, l);
		line[l] = '\0';
		if (strlen(line) != l) {
			snprintf(err, errlen, "line %zu holds a NUL byte", n);
			goto fail;
		}
		if (parseline(line, n, c, mod, arg, err, errlen) == -1)
			goto fail;
		at += l + 1;
	}
	if (c->exe == NULL || c->exe[0] == '\0') {
		snprintf(err, errlen, "no exe line names a program to run");
		goto fail;
	}
	if (c->fstype == NULL &&
	    single(&c->fstype, "none", n, "fstype", err, errlen) == -1)
		goto fail;
	if (c->mountopts == NULL &&
	    single(&c->mountopts, "", n, "mountopts", err, errlen) == -1)
		goto fail;
	if (c->transport == NULL &&
	    single(&c->transport, "9p", n, "transport", err, errlen) == -1)
		goto fail;
	if (strcmp(c->transport, "9p") != 0 &&
	    strcmp(c->transport, "hostfs") != 0) {
		snprintf(err, errlen, "transport '%.64s': not 9p or hostfs",
		    c->transport);
		goto fail;
	}
	if (strcmp(c->transport, "hostfs") == 0 &&
	    (c->outdir == NULL || c->outdir[0] != '/')) {
		snprintf(err, errlen,
		    "transport hostfs needs an outdir line, an absolute path");
		goto fail;
	}
	if (c->disk == NULL &&
	    single(&c->disk, "/dev/vda", n, "disk", err, errlen) == -1)
		goto fail;
	return 0;
fail:
	vmconf_free(c);
	return -1;
}

void
vmconf_free(struct vmconf *c)
{
	char **mod = (char **)c->mod, **arg = (char **)c->arg;

	for (size_t i = 0; mod != NULL && i < c->nmod; i++)
		free(mod[i]);
	for (size_t i = 0; arg != NULL && i < c->narg; i++)
		free(arg[i]);
	free(mod);
	free(arg);
	free((char *)c->fstype);
	free((char *)c->mountopts);
	free((char *)c->exe);
	free((char *)c->setup);
	free((char *)c->transport);
	free((char *)c->outdir);
	free((char *)c->disk);
	memset(c, 0, sizeof(*c));
}
