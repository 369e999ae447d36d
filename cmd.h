/*
 * cmd.h - the front end's subcommands. Each parses its own arguments, does
 * its work through the modules, prints, and returns the exit status for
 * main() in ubcreplay.c, the one place that exits.
 */
#ifndef UBC_CMD_H
#define UBC_CMD_H

/* Exit statuses shared by every subcommand. */
#define EXIT_USAGE 2

int cmd_tar(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_nfs(int argc, char **argv);

/* Prints the synopsis of every command to stderr (usage errors). */
void usage_synopsis(void);

#endif
