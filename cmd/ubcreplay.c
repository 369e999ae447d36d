/*
 * ubcreplay.c - the front end: picks the subcommand and exits with what it
 * returns. Without a subcommand, ubcreplay runs the main job (cmd_tar.c):
 *
 *	ubcreplay emacs-20.7.tar.gz /mnt
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

static const struct {
	const char *name;
	int (*fn)(int, char **);
} commands[] = {
    {"compare", cmd_compare},
    {"report", cmd_report},
    {"dd", cmd_dd},
    {"sweep", cmd_sweep},
    {"matrix", cmd_matrix},
    {"nfs", cmd_nfs},
};

/* The SYNOPSIS of docs/ubcreplay.1, line for line. */
static const char synopsis[] =
    "usage: ubcreplay [-hqV] [-i interval] [-l label] [-n runs] [-o file]\n"
    "                 [-p probe] [--drop-caches] [--fsync none | file | end]\n"
    "                 [--keep] [--nfs-iface interface] [--trace-out file]\n"
    "                 archive dir\n"
    "       ubcreplay compare [-a] [--alpha p] [--baseline file]\n"
    "                 [--fail-if metric:change] [--svg file] result ...\n"
    "       ubcreplay report [--svg file] file\n"
    "       ubcreplay dd [-q] [-i interval] [-l label] [-n runs] [-o file]\n"
    "                    [-p probe] [--drop-caches] [--ntp host[:port]]\n"
    "                    if=file of=file [bs=n] [count=n] [skip=n] [seek=n]\n"
    "                    [iflag=direct] [oflag=direct]\n"
    "       ubcreplay sweep --bs sizes [--cold] [--size n] [-q] [-i interval]\n"
    "                       [-l label] [-n runs] [-o file] [-p probe]\n"
    "                       [--drop-caches] [--ntp host[:port]] if=file\n"
    "                       [of=file] [skip=n] [iflag=direct] [oflag=direct]\n"
    "       ubcreplay matrix --from files --to files [--size n] [-q]\n"
    "                        [-i interval] [-l label] [-n runs] [-o file]\n"
    "                        [-p probe] [--drop-caches] [--ntp host[:port]]\n"
    "                        [bs=n] [iflag=direct] [oflag=direct]\n"
    "       ubcreplay nfs [-q] [-f filter] [-I interface] [-l label] [-o file]\n"
    "                     [-r file] [-t seconds]\n";

void
usage_synopsis(void)
{
	fputs(synopsis, stderr);
}

int
main(int argc, char **argv)
{
	if (argc > 1) {
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]);
		     i++)
			if (strcmp(argv[1], commands[i].name) == 0)
				exit(commands[i].fn(argc - 1, argv + 1));
		if (strcmp(argv[1], "-h") == 0 ||
		    strcmp(argv[1], "--help") == 0) {
			fputs(synopsis, stdout);
			exit(EXIT_SUCCESS);
		}
	}
	exit(cmd_tar(argc, argv));
}
