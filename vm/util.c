/*
 * util.c - what the cell's steps share: the last lines of a log (a guest's
 * console mixes in carriage returns), removing a temporary tree.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vm_impl.h"

void
vm_tail(const char *path, int lines, char *buf, size_t len)
{
	char text[8192];
	FILE *f = fopen(path, "re");
	size_t n = 0, start;
	long size;
	int seen = 0;

	buf[0] = '\0';
	if (f == NULL)
		return;
	if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0) {
		long from = size > (long)sizeof(text) - 1
		    ? size - (long)sizeof(text) + 1
		    : 0;

		if (fseek(f, from, SEEK_SET) == 0)
			n = fread(text, 1, sizeof(text) - 1, f);
	}
	fclose(f);
	/* Carriage returns out, and trailing blank lines. */
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (text[i] != '\r' && text[i] != '\0')
			text[m++] = text[i];
	while (m > 0 && (text[m - 1] == '\n' || text[m - 1] == ' '))
		m--;
	text[m] = '\0';
	for (start = m; start > 0; start--)
		if (text[start - 1] == '\n' && ++seen == lines)
			break;
	snprintf(buf, len, "%s", text + start);
}

void
vm_rmtree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;

	if (d != NULL) {
		while ((e = readdir(d)) != NULL) {
			char sub[PATH_MAX];
			struct stat st;

			if (strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0)
				continue;
			snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
			if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
				vm_rmtree(sub);
			else
				unlink(sub);
		}
		closedir(d);
	}
	rmdir(path);
}
