/*
 * vmconf.c - /vm.conf written by the host and read by the guest's init, in
 * one place (vmconf.h says the format and the limits). Only the C library:
 * this file is also linked into the static init.
 */
#include <stddef.h>
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

/*
 * The keys of one value each, in the order they are written, with what an
 * error calls them and the value a file without the line means (NULL: none).
 */
static const struct key {
	const char *key, *what, *dflt;
	size_t off; /* of the const char * in struct vmconf */
} keys[] = {
    {"fstype", "the filesystem type", "none", offsetof(struct vmconf, fstype)},
    {"mountopts", "the mount options (-O)", "",
        offsetof(struct vmconf, mountopts)},
    {"exe", "this program's path", NULL, offsetof(struct vmconf, exe)},
    {"setup", "the set-up script's path", NULL, offsetof(struct vmconf, setup)},
    {"transport", "the transport", "9p", offsetof(struct vmconf, transport)},
    {"outdir", "the out directory's path", NULL,
        offsetof(struct vmconf, outdir)},
    {"disk", "the disk's path", "/dev/vda", offsetof(struct vmconf, disk)},
    {"schedfeat", "the scheduler features", "",
        offsetof(struct vmconf, schedfeat)},
    {"settle_ns", "the time to idle before the mount", "",
        offsetof(struct vmconf, settle_ns)},
};
#define NKEY (sizeof(keys) / sizeof(keys[0]))

static const char **
slot(struct vmconf *c, const struct key *k)
{
	return (const char **)((char *)c + k->off);
}

/* A key's value in c, "" for none. */
static const char *
value(const struct vmconf *c, const struct key *k)
{
	const char *v = *(const char *const *)((const char *)c + k->off);

	return v != NULL ? v : "";
}

char *
vmconf_format(const struct vmconf *c, char *err, size_t errlen)
{
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
	for (size_t i = 0; i < NKEY; i++) {
		if (checkline(keys[i].key, keys[i].what, value(c, &keys[i]),
		        err, errlen) == -1)
			return NULL;
		len += strlen(value(c, &keys[i])) + 16;
	}
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
	*p = '\0';
	for (size_t i = 0; i < c->nmod; i++)
		p += sprintf(p, "module %s\n", c->mod[i]);
	/* A key left out reads back as its default, "" as none. */
	for (size_t i = 0; i < NKEY; i++)
		if (value(c, &keys[i])[0] != '\0')
			p += sprintf(
			    p, "%s %s\n", keys[i].key, value(c, &keys[i]));
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
	for (size_t i = 0; i < NKEY; i++)
		if (strcmp(line, keys[i].key) == 0)
			return single(
			    slot(c, &keys[i]), v, n, line, err, errlen);
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
	for (size_t i = 0; i < NKEY; i++)
		if (keys[i].dflt != NULL && *slot(c, &keys[i]) == NULL &&
		    single(slot(c, &keys[i]), keys[i].dflt, n, keys[i].key, err,
		        errlen) == -1)
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
	for (size_t i = 0; i < NKEY; i++)
		free((char *)*slot(c, &keys[i]));
	memset(c, 0, sizeof(*c));
}
