/*
 * ubcreplay.c - the front end: picks the subcommand and exits with what it
 * returns. Without a subcommand, ubcreplay runs the main job (tar.c):
 *
 *	ubcreplay emacs-20.7.tar.gz /mnt
 */
#include <signal.h>
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
    {"vm", cmd_vm},
    {"record", cmd_record},
    {"layout", cmd_layout},
};

int
main(int argc, char **argv)
{
	/*
	 * An ignored SIGCHLD survives exec: a parent that set it would have
	 * our children reaped by the kernel, and waitpid then finds none (a
	 * guest looks finished at once). Every command waits for its own.
	 */
	signal(SIGCHLD, SIG_DFL);
	if (argc > 1) {
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]);
		     i++)
			if (strcmp(argv[1], commands[i].name) == 0)
				exit(commands[i].fn(argc - 1, argv + 1));
		if (strcmp(argv[1], "-h") == 0 ||
		    strcmp(argv[1], "--help") == 0) {
			usage_print(stdout);
			exit(EXIT_SUCCESS);
		}
	}
	exit(cmd_tar(argc, argv));
}
