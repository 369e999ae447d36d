/*
 * vm.c - `ubcreplay vm`: the job on kernels under test, each booted in a
 * QEMU guest (vm/), then the series across them and the gates, as compare
 * prints them; or, with --bisect, the first kernel of an ordered list whose
 * result crosses the gate against the first.
 *
 *	ubcreplay vm -k base/vmlinuz -k patched/vmlinuz -n 4 \
 *	    --fail-if write.mean_bytes:-10% emacs.tar.gz
 *	ubcreplay vm -k K1 -k K2 -- dd if=/dev/vda of=/dev/null bs=1k count=4096
 *
 * This file holds the options, chooses the run they ask for (a local run,
 * --bisect, --plan, --cell or --merge) and gives the exit status. The
 * matrix is vm_run.c's, what is printed vm_print.c's and vm_plan.c's
 * (vm_run.h); the runs themselves are the runner's (runner/runner.h).
 *
 * Exit status as compare's: 0 when every gate passed (with --bisect: the
 * kernel was found), 1 when one failed, 3 when one is undecided and none
 * failed (with --bisect: a step that cannot tell good from bad), 2 for a
 * usage or input error, a cell that failed, or a gate that cannot be
 * judged.
 */
#include <ctype.h>
#include <err.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/stats.h"
#include "../replay/replay.h"
#include "vm_run.h"

#define IMAGE_BYTES (1ULL << 30)
/* The machine when none is asked for (docs/vm-machine.md says why). */
#define VM_DEFAULT_CPUS   2
#define VM_DEFAULT_MEM    1024
#define VM_DEFAULT_QUEUES 1
#define VM_DEFAULT_SHIFT  (-1)
/* --size: from what a small mkfs takes to a sparse file of 16 TiB. */
#define IMAGE_MIN_BYTES (1ULL << 20)
#define IMAGE_MAX_BYTES (1ULL << 44)

static const struct option longopts[] = {
    {"accel", required_argument, NULL, 'A'},
    {"bisect", no_argument, NULL, 'B'},
    {"boot-runs", required_argument, NULL, 'U'},
    {"boot-timeout", required_argument, NULL, 'b'},
    {"cell", required_argument, NULL, 'c'},
    {"clock", required_argument, NULL, 'K'},
    {"cpus", required_argument, NULL, 'C'},
    {"disk", required_argument, NULL, 'V'},
    {"disk-model", required_argument, NULL, 'W'},
    {"fail-if", required_argument, NULL, 'f'},
    {"gate-rule", required_argument, NULL, 'R'},
    {"mem", required_argument, NULL, 'M'},
    {"merge", required_argument, NULL, 'G'},
    {"modules", required_argument, NULL, 'D'},
    {"nfs-export-fs", required_argument, NULL, 'E'},
    {"nfs-path", required_argument, NULL, 'P'},
    {"nfs-server", required_argument, NULL, 'S'},
    {"plan", optional_argument, NULL, 'p'},
    {"queues", required_argument, NULL, 'Q'},
    {"seed", required_argument, NULL, 'e'},
    {"size", required_argument, NULL, 'Z'},
    {"timeout", required_argument, NULL, 'T'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/*
 * A knob's comma-separated list into k, each element (an empty one too)
 * through one(), which gives the value or says what is wrong with it.
 */
static int
knob(const char *opt, const char *list, struct knob *k,
    int (*one)(const char *opt, const char *s, int *v))
{
	char buf[256], *e = buf, *next;

	k->n = 0;
	if (snprintf(buf, sizeof(buf), "%s", list) >= (int)sizeof(buf)) {
		warnx("%s '%s': too long", opt, list);
		return -1;
	}
	do {
		if ((next = strchr(e, ',')) != NULL)
			*next++ = '\0';
		if (k->n == MAX_KNOB) {
			warnx("%s: more than %d values", opt, MAX_KNOB);
			return -1;
		}
		if (one(opt, e, &k->v[k->n]) == -1)
			return -1;
		for (size_t i = 0; i < k->n; i++)
			if (k->v[i] == k->v[k->n]) {
				warnx("%s '%s': '%s' twice", opt, list, e);
				return -1;
			}
		k->n++;
	} while ((e = next) != NULL);
	return 0;
}

static int
one_cpus(const char *opt, const char *s, int *v)
{
	return cmd_parse_intv(opt, s, 1, 64, v);
}

static int
one_mem(const char *opt, const char *s, int *v)
{
	return cmd_parse_intv(opt, s, 128, 1 << 20, v);
}

/* A number of queues, or "cpus": one per vCPU (0). */
static int
one_queues(const char *opt, const char *s, int *v)
{
	if (strcmp(s, "cpus") == 0) {
		*v = 0;
		return 0;
	}
	return cmd_parse_intv(opt, s, 1, 64, v);
}

/* realtime (-1), icount (shift 0) or icount:SHIFT. */
static int
one_clock(const char *opt, const char *s, int *v)
{
	if (strcmp(s, "realtime") == 0) {
		*v = -1;
		return 0;
	}
	if (strcmp(s, "icount") == 0) {
		*v = 0;
		return 0;
	}
	if (strncmp(s, "icount:", 7) == 0)
		return cmd_parse_intv(opt, s + 7, 0, 10, v);
	warnx("%s '%s' is not realtime, icount or icount:SHIFT (0 to 10)", opt,
	    s);
	return -1;
}

/*
 * The machines: every combination of the knobs, refusing those that cannot
 * run anywhere. What a kernel's machine refuses (icount with more than one
 * vCPU, or on UML) is vm_cell_check's.
 */
static int
machines(struct vm_opts *o)
{
	o->nmachine = 0;
	for (size_t c = 0; c < o->cpus.n; c++)
		for (size_t m = 0; m < o->mem.n; m++)
			for (size_t q = 0; q < o->queues.n; q++)
				for (size_t k = 0; k < o->clock.n; k++) {
					struct cmp_machine *x;

					if (o->nmachine == MAX_MACHINE) {
						warnx("more than %d machines "
						      "(--cpus, --mem, "
						      "--queues, --clock)",
						    MAX_MACHINE);
						return -1;
					}
					x = &o->machine[o->nmachine++];
					x->cpus = o->cpus.v[c];
					x->mem_mib = o->mem.v[m];
					x->queues = o->queues.v[q] > 0
					    ? o->queues.v[q]
					    : x->cpus;
					x->icount_shift = o->clock.v[k];
					if (x->queues > x->cpus) {
						warnx("--queues %d with %d "
						      "vCPUs: the guest uses "
						      "at most one a vCPU",
						    x->queues, x->cpus);
						return -1;
					}
				}
	return 0;
}

/* -n N, -n MIN..MAX or -n auto (5..20). */
static int
parse_runs(const char *arg, struct vm_opts *o)
{
	const char *dots = strstr(arg, "..");
	char *end;
	int lo, hi, least;

	o->runs_auto = strcmp(arg, "auto") == 0;
	if (o->runs_auto)
		arg = "5..20", dots = arg + 1;
	if (dots == NULL) {
		o->runs_max = 0;
		o->level = 0.95;
		return cmd_parse_intv("-n", arg, 1, 1000, &o->runs);
	}
	lo = (int)strtol(arg, &end, 10);
	if (end != dots || !isdigit((unsigned char)*arg))
		lo = 0;
	hi = (int)strtol(dots + 2, &end, 10);
	if (*end != '\0' || !isdigit((unsigned char)dots[2]))
		hi = 0;
	if (lo < 5 || hi <= lo || hi > 1000) {
		warnx("-n '%s': N, auto, or MIN..MAX with 5 <= MIN < MAX <= "
		      "1000",
		    arg);
		return -1;
	}
	o->runs = lo;
	o->runs_max = hi;
	o->level = runner_looks(o->runs, o->runs_max, o->look, &o->nlook);
	/*
	 * MIN a side must bound an interval at the level each look takes,
	 * by the rank-sum test; pairs_ok checks it again for pairs.
	 */
	if ((least = (int)stats_fewest(o->level, 0)) > lo) {
		warnx("-n '%s': %d runs a side bound no interval at the %.2f%% "
		      "that each of its %d looks takes: MIN must be %d or more",
		    arg, lo, o->level * 100, o->nlook, least);
		return -1;
	}
	return 0;
}

/*
 * -n MIN..MAX once the kernels are known: on a seeded machine (UML) the
 * runs are judged as pairs, by the signed-rank test, which needs more of
 * them than the rank-sum test parse_runs checked MIN with (8 pairs at
 * 99%, where 5 runs a side do). auto then starts at the fewest pairs its
 * looks need; a MIN given is refused when too few.
 */
static int
pairs_ok(struct vm_opts *o, const struct vmrun *r)
{
	size_t least;

	for (size_t i = 0; i < o->nkernel; i++)
		if (r->k[i].machine != VM_MACHINE_UML)
			return 0;
	while ((least = stats_fewest(o->level, 1)) > (size_t)o->runs) {
		if (!o->runs_auto) {
			warnx(
			    "-n '%d..%d': the runs pair up by seed on UML, "
			    "and %d pairs bound no interval at the %.2f%% "
			    "that each of its %d looks takes (the signed-rank "
			    "test): MIN must be %zu or more",
			    o->runs, o->runs_max, o->runs, o->level * 100,
			    o->nlook, least);
			return -1;
		}
		o->runs = (int)least;
		o->level =
		    runner_looks(o->runs, o->runs_max, o->look, &o->nlook);
	}
	if (o->runs_auto && o->runs > 5) {
		fprintf(stderr,
		    "ubcreplay vm: -n auto: the runs pair up by seed on UML; "
		    "the signed-rank test needs %d pairs at %g%%: looks at",
		    o->runs, o->level * 100);
		for (int j = 0; j < o->nlook; j++)
			fprintf(stderr, "%s %d", j > 0 ? "," : "", o->look[j]);
		fprintf(stderr, "\n");
	}
	return 0;
}

/* What -n MIN..MAX needs: gates to decide, one invocation, the main job. */
static int
sequential_ok(const struct vm_opts *o)
{
	const char *why = o->ngate == 0
	    ? "--fail-if: there is nothing to decide"
	    : o->plan != NULL || o->ncell > 0 || o->merge != NULL
	    ? "one invocation: a plan's cells run apart cannot go on until "
	      "decided (give -n N)"
	    : o->archive == NULL
	    ? "the main job: a job after -- has its own runs"
	    : o->nmachine > 1 ? "one machine: run each machine apart"
	    : o->rule == GATE_RULE_SIGNIFICANCE
	    ? "the interval rule: --gate-rule significance never says "
	      "undecided, so its first look would end it"
	    : NULL;

	if (why == NULL)
		return 0;
	warnx("-n MIN..MAX runs until every gate is decided; it needs %s", why);
	return -1;
}

/* --accel: auto, kvm or tcg. */
static int
parse_accel(const char *arg, struct vm_opts *o)
{
	if (strcmp(arg, "auto") != 0 && strcmp(arg, "kvm") != 0 &&
	    strcmp(arg, "tcg") != 0) {
		warnx("--accel '%s' is not auto, kvm or tcg", arg);
		return -1;
	}
	o->accel = arg;
	return 0;
}

/* --timeout and --boot-timeout: whole seconds, up to a week. */
static int
parse_seconds(const char *opt, const char *arg, int64_t *ns)
{
	long long v;

	if (cmd_parse_int(opt, arg, 1, 7 * 86400, &v) == -1)
		return -1;
	*ns = (int64_t)v * 1000000000;
	return 0;
}

/* --size: the disk image's, in whole sectors. */
static int
parse_size(const char *arg, struct vm_opts *o)
{
	char errbuf[256] = "";

	if (replay_dd_parse_size(arg, &o->size_bytes, errbuf, sizeof(errbuf)) ==
	        -1 ||
	    o->size_bytes < IMAGE_MIN_BYTES ||
	    o->size_bytes > IMAGE_MAX_BYTES || o->size_bytes % 512 != 0) {
		warnx("--size '%s': %s", arg,
		    errbuf[0] != '\0' ? errbuf
		                      : "not a whole number of 512-byte "
		                        "sectors from 1M to 16T");
		return -1;
	}
	return 0;
}

/* --plan[=FORM]: lines (without a form), github or gitlab. */
static int
parse_plan(const char *arg, struct vm_opts *o)
{
	o->plan = arg != NULL ? arg : "lines";
	if (strcmp(o->plan, "lines") != 0 && strcmp(o->plan, "github") != 0 &&
	    strcmp(o->plan, "gitlab") != 0) {
		warnx("--plan '%s' is not lines, github or gitlab", o->plan);
		return -1;
	}
	return 0;
}

/* --cell ID[,ID...], given once or more. */
static int
add_cells(char *arg, struct vm_opts *o)
{
	size_t max = sizeof(o->cell) / sizeof(o->cell[0]), k;
	char *id[sizeof(o->cell) / sizeof(o->cell[0])];

	if (cmd_split_list("--cell", "cell ids", arg, id, max, &k) == -1)
		return -1;
	if (o->ncell + k > max) {
		warnx("--cell: more than %zu cell ids", max);
		return -1;
	}
	for (size_t i = 0; i < k; i++)
		o->cell[o->ncell++] = id[i];
	return 0;
}

/* The options' values when none is given; runs holds the job's -n. */
static void
defaults(struct vm_opts *o, char *runs)
{
	memset(o, 0, sizeof(*o));
	o->mkfs_opts = o->mount_opts = "";
	o->accel = "auto";
	o->runs = 2;
	o->level = 0.95;
	o->runs_arg = runs;
	o->cpus = (struct knob){1, {VM_DEFAULT_CPUS}};
	o->mem = (struct knob){1, {VM_DEFAULT_MEM}};
	o->queues = (struct knob){1, {VM_DEFAULT_QUEUES}};
	o->clock = (struct knob){1, {VM_DEFAULT_SHIFT}};
	o->jobs = 1;
	o->seed = -1;
	o->timeout_ns = (int64_t)1200 * 1000000000;
	o->size_bytes = IMAGE_BYTES;
}

/* --merge, --plan, --cell and --bisect: those that cannot go together. */
static int
modes(const struct vm_opts *o)
{
	if (o->merge != NULL && (o->plan != NULL || o->ncell > 0)) {
		warnx("--merge reads the results of a plan's cells: not with "
		      "--plan or --cell");
		return -1;
	}
	if (o->ncell > 0 && o->bisect) {
		warnx("--cell runs cells of a plan; --bisect chooses the "
		      "kernels it boots itself");
		return -1;
	}
	if (o->merge != NULL && o->bisect) {
		warnx("--merge draws the series of a plan's results; bisect "
		      "the kernels with --bisect instead");
		return -1;
	}
	return 0;
}

/*
 * What follows the options: the kernels, their machines and filesystems,
 * and the job, after -- or the main job on one archive.
 */
static int
operands(int argc, char **argv, struct vm_opts *o)
{
	if (modes(o) == -1)
		return -1;
	if (o->merge != NULL && o->nkernel == 0 && optind == argc)
		return 0;
	if (o->nkernel == 0) {
		warnx("vm needs a kernel (-k)");
		return -1;
	}
	if (machines(o) == -1)
		return -1;
	if (o->bisect &&
	    (o->ngate == 0 || o->nkernel < 2 || o->nfstype > 1 ||
	        o->nmachine > 1)) {
		warnx("--bisect needs a --fail-if, two kernels or more "
		      "(good first, bad last), one filesystem and one machine");
		return -1;
	}
	for (size_t f = 0; f < o->nfstype; f++)
		if (strcmp(o->fstype[f], "none") == 0) {
			warnx("-t none: a raw disk is for a job after --");
			return -1;
		}
	if (optind > 1 && strcmp(argv[optind - 1], "--") == 0) {
		/* The job as given, on the raw disk. */
		if (o->nfstype > 0) {
			warnx("-t: a job after -- has the raw disk");
			return -1;
		}
		o->fstype[o->nfstype++] = "none";
		return vmjob_args(o, argc - optind, argv + optind);
	}
	if (argc - optind != 1) {
		warnx("vm takes one archive, or a job after --");
		return -1;
	}
	o->archive = argv[optind];
	if (o->nfstype == 0)
		o->fstype[o->nfstype++] = "ext4";
	if (vmjob_nfs(o) == -1)
		return -1;
	vmjob_main(o);
	return 0;
}

/*
 * --disk and --disk-model: the virtio disk's model, from its file or the
 * built-in defaults (contrib/vdisk.model's values), read once here.
 */
static int
disk(struct vm_opts *o)
{
	char err[512];

	if (o->vdisk_file != NULL && !o->virtio) {
		warnx("--disk-model is the virtio disk's: give --disk virtio");
		return -1;
	}
	if (!o->virtio)
		return 0;
	if (o->vdisk_file == NULL) {
		vdisk_model_default(&o->vdisk);
		o->vdisk_file = "";
		return 0;
	}
	if (vdisk_model_read(o->vdisk_file, &o->vdisk, err, sizeof(err)) ==
	    -1) {
		warnx("--disk-model: %s", err);
		return -1;
	}
	return 0;
}

/* 0 to run, 1 after --help, -1 after saying what is wrong. */
static int
parse(int argc, char **argv, struct vm_opts *o)
{
	static char runs[16];
	long long v;
	int c;

	defaults(o, runs);
	optind = 1;
	while ((c = getopt_long(
	            argc, argv, "hk:t:m:O:n:o:j:", longopts, NULL)) != -1) {
		switch (c) {
		case 'k':
			if (o->nkernel == MAX_KERNELS) {
				warnx("more than %d kernels", MAX_KERNELS);
				return -1;
			}
			o->kernel[o->nkernel++] = optarg;
			break;
		case 't':
			if (o->nfstype == MAX_FS) {
				warnx("more than %d filesystem types", MAX_FS);
				return -1;
			}
			o->fstype[o->nfstype++] = optarg;
			break;
		case 'm':
			o->mkfs_opts = optarg;
			break;
		case 'O':
			o->mount_opts = optarg;
			break;
		case 'n':
			if (parse_runs(optarg, o) == -1)
				return -1;
			break;
		case 'o':
			o->outdir = optarg;
			break;
		case 'j':
			if (cmd_parse_int("-j", optarg, 1, 64, &v) == -1)
				return -1;
			o->jobs = (int)v;
			break;
		case 'A':
			if (parse_accel(optarg, o) == -1)
				return -1;
			break;
		case 'B':
			o->bisect = 1;
			break;
		case 'C':
			o->given |= VM_GIVEN_CPUS;
			if (knob("--cpus", optarg, &o->cpus, one_cpus) == -1)
				return -1;
			break;
		case 'M':
			if (knob("--mem", optarg, &o->mem, one_mem) == -1)
				return -1;
			break;
		case 'Q':
			o->given |= VM_GIVEN_QUEUES;
			if (knob("--queues", optarg, &o->queues, one_queues) ==
			    -1)
				return -1;
			break;
		case 'e':
			if (cmd_parse_int("--seed", optarg, 0, INT32_MAX, &v) ==
			    -1)
				return -1;
			o->seed = v;
			break;
		case 'V':
			if (strcmp(optarg, "ubd") != 0 &&
			    strcmp(optarg, "virtio") != 0) {
				warnx("--disk '%s': ubd or virtio", optarg);
				return -1;
			}
			o->virtio = strcmp(optarg, "virtio") == 0;
			break;
		case 'W':
			o->vdisk_file = optarg;
			break;
		case 'K':
			if (knob("--clock", optarg, &o->clock, one_clock) == -1)
				return -1;
			break;
		case 'D':
			o->modules = optarg;
			break;
		case 'E':
			o->export_fs = optarg;
			break;
		case 'P':
			o->nfs_path = optarg;
			break;
		case 'S':
			o->nfs_server = optarg;
			break;
		case 'T':
			if (parse_seconds(
			        "--timeout", optarg, &o->timeout_ns) == -1)
				return -1;
			break;
		case 'U':
			if (cmd_parse_int("--boot-runs", optarg, 1,
			        RUNNER_MAX_ROUND_RUNS, &v) == -1)
				return -1;
			o->boot_runs = (int)v;
			break;
		case 'b':
			if (parse_seconds("--boot-timeout", optarg,
			        &o->boot_timeout_ns) == -1)
				return -1;
			break;
		case 'Z':
			if (parse_size(optarg, o) == -1)
				return -1;
			break;
		case 'p':
			if (parse_plan(optarg, o) == -1)
				return -1;
			break;
		case 'c':
			if (add_cells(optarg, o) == -1)
				return -1;
			break;
		case 'G':
			o->merge = optarg;
			break;
		case 'f':
			if (cmd_add_gate(
			        optarg, o->gate, &o->ngate, MAX_GATES) == -1)
				return -1;
			break;
		case 'R':
			if (cmd_gate_rule(optarg, &o->rule) == -1)
				return -1;
			break;
		case 'h':
			usage_command(stdout, "vm");
			return 1;
		default:
			return -1;
		}
	}
	if (disk(o) == -1)
		return -1;
	return operands(argc, argv, o);
}

/*
 * The cells of a run that is not --bisect: those --cell names, else all,
 * once or until decided (-n MIN..MAX). EXIT_SUCCESS, EXIT_USAGE when a cell
 * failed or a signal came, -1 when none could start (said why).
 */
static int
local(struct vmrun *r)
{
	size_t *idx = calloc(r->ncell, sizeof(*idx)), n = r->ncell;
	int failed;

	if (idx == NULL) {
		warnx("out of memory");
		return -1;
	}
	for (size_t i = 0; i < r->ncell; i++)
		idx[i] = i;
	if (r->o->ncell > 0 && vmrun_select(r, idx, &n) == -1) {
		free(idx);
		return -1;
	}
	failed = runner_local(&r->run, idx, n) == -1;
	free(idx);
	return failed ? EXIT_USAGE : EXIT_SUCCESS;
}

int
cmd_vm(int argc, char **argv)
{
	struct vm_opts o;
	struct vmrun r;
	int rc, sig;

	if ((rc = parse(argc, argv, &o)) != 0) {
		if (rc < 0)
			usage_command(stderr, "vm");
		return rc < 0 ? EXIT_USAGE : EXIT_SUCCESS;
	}
	if (o.runs_max > 0 && sequential_ok(&o) == -1)
		return EXIT_USAGE;
	memset(&r, 0, sizeof(r));
	r.o = &o;
	r.report = &vmprint_report;
	if (o.merge != NULL && o.nkernel == 0)
		return vmrun_merge(&r);
	if (vmrun_open(&r) == -1 ||
	    (o.runs_max > 0 && pairs_ok(&o, &r) == -1)) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (o.plan != NULL) {
		vmrun_plan_print(&r, argc, argv);
		rc = EXIT_SUCCESS;
		goto out;
	}
	if (o.merge != NULL) {
		rc = vmrun_merge(&r);
		goto out;
	}
	/* Once per kernel, for all its cells; a plan or a merge boots none. */
	vmrun_unpack(&r);
	if (o.bisect)
		rc = vmprint_bisect(&r);
	else if ((rc = local(&r)) == -1) {
		rc = EXIT_USAGE;
		goto out;
	}
	if ((sig = stop_signal()) != 0) {
		vmrun_free(&r);
		signal(sig, SIG_DFL);
		raise(sig);
		return 128 + sig;
	}
	if (vmrun_write(&r) == -1)
		rc = EXIT_USAGE;
	/* A plan's cells run apart are judged together by --merge. */
	if (!o.bisect && o.ncell == 0)
		rc = vmprint_end(&r, rc);
out:
	vmrun_free(&r);
	return rc;
}
