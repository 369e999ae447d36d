/*
 * usage.c - the synopsis every command prints on a usage error, and -h on
 * its own prints: docs/ubcreplay.1's SYNOPSIS, line for line (manpage_test
 * checks that they agree).
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

/* The SYNOPSIS of docs/ubcreplay.1, line for line. */
static const char synopsis[] =
    "usage: ubcreplay [-hqV] [-i interval] [-l label] [-n runs] [-o file]\n"
    "                 [-p probe] [--drop-caches] [--fsync none | file | end]\n"
    "                 [--keep] [--nfs-iface interface] [--no-attribution]\n"
    "                 [--timing] [--trace-out file] [--watch-dev device]\n"
    "                 archive dir\n"
    "       ubcreplay [-q] [-i interval] [-l label] [-n runs] [-o file]\n"
    "                 [-p probe] [--drop-caches] [--fsync none | end] [--keep]\n"
    "                 [--no-attribution] [--trace-out file] dir -- command ...\n"
    "       ubcreplay [-q] [-i interval] [-l label] [-n runs] [-o file]\n"
    "                 [-O mount-options] [-p probe] [--fsync none | file | end]\n"
    "                 [--keep] [--no-attribution] [--rump dir] [--rump-mem size]\n"
    "                 [--timing] archive | trace ffs:image\n"
    "       ubcreplay compare [-a] [--alpha p] [--baseline file]\n"
    "                 [--fail-if metric:change]\n"
    "                 [--gate-rule interval | significance] [--json file]\n"
    "                 [--svg file] result ...\n"
    "       ubcreplay report [--svg file] file\n"
    "       ubcreplay dd [-q] [-i interval] [-l label] [-n runs] [-o file]\n"
    "                    [-O options] [-p probe] [--drop-caches]\n"
    "                    [--ntp host[:port]] [--rump dir] [--rump-mem size]\n"
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
    "                     [-r file] [-t seconds]\n"
    "       ubcreplay vm -k kernel [-k kernel ...] [-t fstype ...]\n"
    "                    [-m mkfs-options] [-O mount-options]\n"
    "                    [-n runs | min..max | auto]\n"
    "                    [-o dir] [-j guests] [--accel auto | kvm | tcg]\n"
    "                    [--bisect] [--boot-runs n]\n"
    "                    [--boot-timeout seconds]\n"
    "                    [--cell id[,id ...]] [--clock clock,...]\n"
    "                    [--cpus n,...] [--disk ubd | virtio]\n"
    "                    [--disk-model file] [--fail-if metric:change]\n"
    "                    [--gate-rule interval | significance]\n"
    "                    [--mem mib,...] [--modules dir]\n"
    "                    [--nfs-export-fs fstype] [--nfs-path path]\n"
    "                    [--nfs-server knfsd | ganesha]\n"
    "                    [--plan[=lines | github | gitlab]]\n"
    "                    [--queues n | cpus,...] [--seed n] [--size size]\n"
    "                    [--timeout seconds] archive | -- job ...\n"
    "       ubcreplay vm --merge dir [--fail-if metric:change]\n"
    "                    [--gate-rule interval | significance]\n"
    "       ubcreplay record [-q] [-C dir] [-o trace] -- command ...\n"
    "       ubcreplay record -d trace\n"
    "       ubcreplay layout dir | ffs:image\n";

void
usage_print(FILE *f)
{
	fputs(synopsis, f);
}

/*
 * A command's lines of the synopsis: the one that names it, with "usage:"
 * in place of the indent (the same width), and the indented ones after it.
 */
void
usage_command(FILE *f, const char *name)
{
	static const char lead[] = "       ubcreplay ";
	size_t len = strlen(name);
	const char *p = synopsis;

	while ((p = strstr(p, lead)) != NULL &&
	    !(strncmp(p + strlen(lead), name, len) == 0 &&
	        (p[strlen(lead) + len] == ' ' ||
	            p[strlen(lead) + len] == '\n')))
		p++;
	if (p == NULL) { /* a name not in it: all of it, then */
		fputs(synopsis, f);
		return;
	}
	fputs("usage:", f);
	p += strlen("usage:");
	do {
		const char *nl = strchr(p, '\n');

		fprintf(f, "%.*s", (int)(nl - p + 1), p);
		p = nl + 1;
	} while (*p != '\0' && strncmp(p, lead, strlen(lead)) != 0);
}
