/*
 * cmd.h - the front end's subcommands. Each parses its own arguments, does
 * its work through the modules, prints, and returns the exit status for
 * main() in ubcreplay.c, the one place that exits.
 */
#ifndef UBC_CMD_H
#define UBC_CMD_H

#include <stdint.h>
#include <stdio.h>

#include "../analysis/analysis.h"
#include "../analysis/compare.h"
#include "../model/stop.h"
#include "../replay/replay.h"
#include "../traces/traces.h"

/* Exit statuses shared by every subcommand. */
#define EXIT_USAGE 2
/* A gate neither passed nor failed: more runs are needed. */
#define EXIT_UNDECIDED 3

int cmd_tar(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_dd(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_matrix(int argc, char **argv);
int cmd_nfs(int argc, char **argv);
int cmd_vm(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_layout(int argc, char **argv);

/* usage.c: the synopsis of every command, to f (stderr on usage errors). */
void usage_print(FILE *f);
/* Only the lines of `ubcreplay name`, first "usage: ubcreplay name ...". */
void usage_command(FILE *f, const char *name);

/*
 * common.c. An option's integer value: a whole decimal number from lo to
 * hi, nothing else (no blanks, no '+', a '-' only when lo < 0, no suffix).
 * Otherwise -1 after saying, the same way for every command,
 *	-n '1x' is not a whole number from 1 to 1000
 * where what names the option. cmd_parse_intv is the same into an int.
 */
int cmd_parse_int(
    const char *what, const char *s, long long lo, long long hi, long long *v);
int cmd_parse_intv(const char *what, const char *s, int lo, int hi, int *v);

/*
 * Splits the comma list arg of option opt in place into at most max items
 * (v), what naming them; -1 after saying so when there are more, or when
 * an item is empty ("", ",", "a,,b", "a,"), which would otherwise vanish:
 *	--cell '1,,2': an empty item in the list of cell ids
 */
int cmd_split_list(const char *opt, const char *what, char *arg, char **v,
    size_t max, size_t *n);

/*
 * An ffs:IMAGE target's --rump (the build of its kernel: an empty one
 * would silently be the default, so it is refused) and --rump-mem (its
 * memory ceiling, 64m at least). -1 after saying what was wrong.
 */
int cmd_parse_rump(const char *s, const char **dir);
int cmd_parse_rump_mem(const char *s, uint64_t *bytes);

/*
 * The sampling interval as written: "100ms", "0.5s", "250us",
 * or a plain number of seconds as iostat takes it; 1 ms to 1 h.
 */
int cmd_parse_interval(const char *s, int64_t *ns);

struct cmp;
struct cmp_gate;
struct gate_verdict;

/*
 * The verdicts under the report, as `compare` prints them: one line a
 * gate and result, with the change and its interval, then the count of
 * each outcome. Nothing when there are none.
 */
void cmd_print_gates(
    const struct cmp *c, int rule, const struct gate_verdict *v, size_t n);

/* The --gate-rule argument into *rule: -1 after saying why not. */
int cmd_gate_rule(const char *arg, int *rule);

/*
 * The page's width for reports that fit it (compare's table or series):
 * COLUMNS when set, else the terminal's when stdout is one, else 80 (a file,
 * a pipe).
 */
int cmd_page_width(void);

/* One --fail-if spec into gate[*ngate], at most max: -1 after saying why. */
int cmd_add_gate(
    const char *spec, struct cmp_gate *gate, size_t *ngate, size_t max);

#endif
