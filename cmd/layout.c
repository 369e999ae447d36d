/*
 * layout.c - `ubcreplay layout dir | ffs:image`: what the blocks of a
 * filesystem hold, as attribution reads them (model/layout.h), one extent a
 * line: its offset and length in bytes on the filesystem's device and its
 * class. It is how a transfer of a trace (--trace-out) is looked up by hand,
 * and how the tests hold attribution against debugfs and xfs_db.
 *
 *	# ext4: GETFSMAP, FIEMAP, hidden inodes
 *	0 4096 alloc
 *	4096 520192 alloc
 *	...
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/layout.h"
#include "../traces/ffs_image.h"
#include "cmd.h"

int
cmd_layout(int argc, char **argv)
{
	struct target t;
	struct layout l;
	char err[768];
	const char *what;
	int ch;

	optind = 1;
	while ((ch = getopt(argc, argv, "h")) != -1) {
		usage_command(ch == 'h' ? stdout : stderr, "layout");
		return ch == 'h' ? EXIT_SUCCESS : EXIT_USAGE;
	}
	if (argc - optind != 1) {
		usage_command(stderr, "layout");
		return EXIT_USAGE;
	}
	what = argv[optind];
	if (strncmp(what, "ffs:", 4) == 0) {
		if (ffs_image_layout_path(what + 4, &l, err, sizeof(err)) ==
		    -1) {
			warnx("%s", err);
			return EXIT_FAILURE;
		}
	} else if (target_resolve(what, &t, err, sizeof(err)) == -1 ||
	    layout_read_dir(&t, &l, err, sizeof(err)) == -1) {
		warnx("%s", err);
		return EXIT_FAILURE;
	}
	printf("# %s\n", l.source);
	if (l.note[0] != '\0')
		printf("# %s\n", l.note);
	for (size_t i = 0; i < l.n; i++)
		printf("%llu %llu %s\n", (unsigned long long)l.ext[i].off,
		    (unsigned long long)l.ext[i].len,
		    layout_class_name(l.ext[i].cls));
	layout_free(&l);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		warnx("cannot write the layout: %s", strerror(errno));
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}
