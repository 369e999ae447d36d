/*
 * mountinfo.c - finding a directory's mount in the text of
 * /proc/self/mountinfo (Documentation/filesystems/proc.rst, 3.5):
 *
 *	36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw
 *	(1)(2)(3)   (4)   (5)         (6)       (7)     (8) (9)  (10)     (11)
 *
 * Fields 7 are optional and end at the lone "-". Paths escape space, tab,
 * newline and backslash as octal (\040).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces.h"

/* Copies the next space-separated field, undoing the octal escapes. */
static const char *
field(const char *s, char *out, size_t len)
{
	size_t n = 0;

	while (*s == ' ')
		s++;
	while (*s != '\0' && *s != ' ' && *s != '\n') {
		char c = *s++;

		if (c == '\\' && s[0] >= '0' && s[0] <= '3' && s[1] >= '0' &&
		    s[1] <= '7' && s[2] >= '0' && s[2] <= '7') {
			c = (char)((s[0] - '0') * 64 + (s[1] - '0') * 8 +
			    (s[2] - '0'));
			s += 3;
		}
		if (n + 1 < len)
			out[n++] = c;
	}
	if (len > 0)
		out[n] = '\0';
	return s;
}

/* Is token tok, of length n, in the comma-separated list? */
static int
has_option(const char *list, const char *tok, size_t n)
{
	for (const char *p = list; *p != '\0';) {
		size_t len = strcspn(p, ",");

		if (len == n && strncmp(p, tok, n) == 0)
			return 1;
		p += len + (p[len] == ',');
	}
	return 0;
}

int
target_has_option(const struct target *t, const char *opt)
{
	return has_option(t->options, opt, strlen(opt));
}

/* The mount options, then the superblock options that add to them. */
static void
join_options(char *out, size_t len, const char *opts, const char *sopts)
{
	size_t used;

	snprintf(out, len, "%s", opts);
	for (const char *p = sopts; *p != '\0';) {
		size_t n = strcspn(p, ",");

		used = strlen(out);
		if (n > 0 && !has_option(opts, p, n))
			snprintf(out + used, len - used, "%s%.*s",
			    used > 0 ? "," : "", (int)n, p);
		p += n + (p[n] == ',');
	}
}

/* Is mountpoint mp a prefix of path at a component boundary? */
static size_t
prefix_len(const char *mp, const char *path)
{
	size_t n = strlen(mp);

	if (strcmp(mp, "/") == 0)
		return 1;
	if (strncmp(mp, path, n) != 0 || (path[n] != '/' && path[n] != '\0'))
		return 0;
	return n;
}

int
mountinfo_find(const char *text, unsigned major, unsigned minor,
    const char *realdir, struct target *t, char *err, size_t errlen)
{
	size_t best = 0, fb_best = 0;
	int found = 0, lineno = 0;
	struct target fb; /* the btrfs fallback */

	for (const char *line = text; line != NULL && *line != '\0';) {
		const char *next = strchr(line, '\n');
		char id[32], parent[32], dev[32], root[4096], mp[4096];
		char opts[1024], tok[1024], fstype[64], source[1024];
		char sopts[1024];
		unsigned ma, mi;
		const char *s = line;
		size_t plen;

		lineno++;
		s = field(s, id, sizeof(id));
		s = field(s, parent, sizeof(parent));
		s = field(s, dev, sizeof(dev));
		s = field(s, root, sizeof(root));
		s = field(s, mp, sizeof(mp));
		s = field(s, opts, sizeof(opts));
		do
			s = field(s, tok, sizeof(tok));
		while (tok[0] != '\0' && strcmp(tok, "-") != 0);
		s = field(s, fstype, sizeof(fstype));
		s = field(s, source, sizeof(source));
		field(s, sopts, sizeof(sopts));
		line = next != NULL ? next + 1 : NULL;
		if (id[0] == '\0')
			continue;
		if (strcmp(tok, "-") != 0 || fstype[0] == '\0' ||
		    sscanf(dev, "%u:%u", &ma, &mi) != 2) {
			snprintf(err, errlen, "mountinfo line %d is malformed",
			    lineno);
			return -1;
		}
		/*
		 * A btrfs subvolume has a device number of its own, which
		 * mountinfo does not show: there the deepest btrfs mount that
		 * encloses the directory is the one, when no number matches.
		 */
		if ((ma != major || mi != minor) && !found &&
		    strcmp(fstype, "btrfs") == 0 &&
		    (plen = prefix_len(mp, realdir)) != 0 && plen >= fb_best) {
			fb_best = plen;
			snprintf(
			    fb.mountpoint, sizeof(fb.mountpoint), "%s", mp);
			snprintf(fb.fstype, sizeof(fb.fstype), "%s", fstype);
			snprintf(fb.source, sizeof(fb.source), "%s", source);
			join_options(
			    fb.options, sizeof(fb.options), opts, sopts);
		}
		if (ma != major || mi != minor)
			continue;
		/* Bind mounts share a device: the deepest enclosing one wins.
		 */
		if ((plen = prefix_len(mp, realdir)) == 0 || plen < best)
			continue;
		best = plen;
		found = 1;
		snprintf(t->mountpoint, sizeof(t->mountpoint), "%s", mp);
		snprintf(t->fstype, sizeof(t->fstype), "%s", fstype);
		snprintf(t->source, sizeof(t->source), "%s", source);
		join_options(t->options, sizeof(t->options), opts, sopts);
	}
	if (!found && fb_best > 0) {
		snprintf(
		    t->mountpoint, sizeof(t->mountpoint), "%s", fb.mountpoint);
		snprintf(t->fstype, sizeof(t->fstype), "%s", fb.fstype);
		snprintf(t->source, sizeof(t->source), "%s", fb.source);
		snprintf(t->options, sizeof(t->options), "%s", fb.options);
		found = 1;
	}
	if (!found) {
		snprintf(err, errlen, "no mount of device %u:%u holds '%s'",
		    major, minor, realdir);
		return -1;
	}
	t->major = major;
	t->minor = minor;
	return 0;
}
