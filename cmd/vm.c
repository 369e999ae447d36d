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
 * Exit status as compare's: 0 when every gate passed (with --bisect: the
 * kernel was found), 1 when one failed, 3 when one is undecided and none
 * failed (with --bisect: a step that cannot tell good from bad), 2 for a
 * usage or input error, a cell that failed, or a gate that cannot be
 * judged.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../analysis/compare.h"
#include "../analysis/gate.h"
#include "../analysis/stats.h"
#include "../model/wtrace.h"
#include "../replay/replay.h"
#include "../vm/vm.h"
#include "cmd.h"

#define MAX_KERNELS 64
#define MAX_FS      8
#define MAX_GATES   32
#define MAX_JOB     200
#define IMAGE_BYTES (1ULL << 30)
#define MAX_KNOB    8
#define MAX_LOOKS   32
/* The machine when none is asked for (docs/vm-machine.md says why). */
#define VM_DEFAULT_CPUS   2
#define VM_DEFAULT_MEM    1024
#define VM_DEFAULT_QUEUES 1
#define VM_DEFAULT_SHIFT  (-1)
#define MAX_MACHINE       64
/* --size: from what a small mkfs takes to a sparse file of 16 TiB. */
#define IMAGE_MIN_BYTES (1ULL << 20)
#define IMAGE_MAX_BYTES (1ULL << 44)

static const struct option longopts[] = {
    {"accel", required_argument, NULL, 'A'},
    {"bisect", no_argument, NULL, 'B'},
    {"boot-timeout", required_argument, NULL, 'b'},
    {"cell", required_argument, NULL, 'c'},
    {"clock", required_argument, NULL, 'K'},
    {"cpus", required_argument, NULL, 'C'},
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
 * The guest's machine: each knob a list (--cpus 1,2,4), the machines their
 * product, a dimension of the matrix after the kernels and filesystems.
 * queues 0 is one per vCPU; shift -1 the host's real time.
 */
struct knob {
	size_t n;
	int v[MAX_KNOB];
};

struct vm_opts {
	size_t nkernel, nfstype, ngate, njob, nmachine;
	struct knob cpus, mem, queues, clock;
	struct cmp_machine machine[MAX_MACHINE];
	const char *kernel[MAX_KERNELS];
	const char *fstype[MAX_FS];
	struct cmp_gate gate[MAX_GATES];
	char *job[MAX_JOB + 4];
	const char *mkfs_opts, *mount_opts, *outdir, *accel, *modules;
	const char *archive;
	const char *nfs_server, *nfs_opts, *nfs_path, *export_fs;
	const char *plan;  /* --plan's form: "lines", "github", "gitlab" */
	const char *merge; /* --merge's directory */
	size_t ncell;      /* --cell: the ids of the cells to run */
	char *cell[MAX_KERNELS * MAX_FS];
	int runs, jobs, bisect;
	unsigned given; /* VM_GIVEN_*: the knobs given, not defaults */
	long long seed; /* --seed, -1 none */
	int rule;       /* enum gate_rule */
	/*
	 * -n MIN..MAX (auto: 5..20): runs a cell until every gate is decided,
	 * looking at look[0] = MIN runs, then at each of look[1 .. nlook-1];
	 * 0 for a fixed -n. The gates' intervals are then at level.
	 */
	int runs_max, nlook, look[MAX_LOOKS];
	double level;
	char *runs_arg; /* the job's -n, which each look sets */
	int64_t timeout_ns, boot_timeout_ns;
	uint64_t size_bytes;
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
 * run. QEMU's instruction count runs every vCPU in one thread, in turn,
 * and needs TCG; with more than one vCPU the guests tried here hung in
 * early boot, so icount takes one.
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
					if (x->icount_shift < 0)
						continue;
					if (strcmp(o->accel, "kvm") == 0) {
						warnx("--clock icount is "
						      "QEMU's TCG only: not "
						      "with --accel kvm");
						return -1;
					}
					if (x->cpus > 1) {
						warnx("--clock icount with %d "
						      "vCPUs: QEMU runs them "
						      "in one thread under "
						      "icount, and guests "
						      "hang in early boot; "
						      "use --cpus 1",
						    x->cpus);
						return -1;
					}
				}
	return 0;
}

/* The knobs with more than one value: those a cell's name carries. */
static unsigned
varying(const struct vm_opts *o)
{
	return (o->cpus.n > 1 ? CMP_M_CPUS : 0) |
	    (o->mem.n > 1 ? CMP_M_MEM : 0) |
	    (o->queues.n > 1 ? CMP_M_QUEUES : 0) |
	    (o->clock.n > 1 ? CMP_M_CLOCK : 0);
}

/* Cell j's machine as its name carries it ("" for one machine). */
static void
machine_tag(
    const struct vm_opts *o, size_t j, const char *sep, char *buf, size_t len)
{
	cmp_machine_tag(
	    &o->machine[j % o->nmachine], "", varying(o), sep, buf, len);
}

/*
 * The job's own -o, as getopt would find it: alone, with its value joined
 * ("-ox") or at the end of a bundle of flags ("-qo x"), up to the job's own
 * "--". The short options that take a value, in any job, are "fIilnoprt".
 * Returns its index in argv, or -1.
 */
static int
own_output(int argc, char **argv)
{
	for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *a = argv[i];

		if (a[0] != '-' || a[1] == '-')
			continue;
		for (a++; *a != '\0'; a++) {
			if (*a == 'o')
				return i;
			if (strchr("fIilnprt", *a) != NULL) {
				i += a[1] == '\0';
				break;
			}
		}
	}
	return -1;
}

/*
 * The job after `--`: the main job (archive dir ...) or a subcommand that
 * writes a result. -o goes where each takes it: after the subcommand's
 * name, or before the main job's operands.
 */
static int
jobargs(struct vm_opts *o, int argc, char **argv)
{
	static const char *const subs[] = {"dd", "sweep", "matrix", "nfs"};
	static const char *const none[] = {"compare", "report", "vm"};
	size_t n = 0, at = 0;
	int bad;

	if (argc == 0 || argc > MAX_JOB) {
		warnx("after --, the job's arguments (at most %d)", MAX_JOB);
		return -1;
	}
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		if (strcmp(argv[0], none[i]) == 0) {
			warnx("the job after -- cannot be '%s': it is the main "
			      "job, dd, sweep, matrix or nfs",
			    argv[0]);
			return -1;
		}
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		if (strcmp(argv[0], subs[i]) == 0)
			at = 1;
	if ((bad = own_output(argc, argv)) != -1) {
		warnx("the job after -- takes no -o ('%s'): each cell's result "
		      "goes under vm's own -o",
		    argv[bad]);
		return -1;
	}
	for (size_t i = 0; i < at; i++)
		o->job[n++] = argv[i];
	o->job[n++] = "-o";
	o->job[n++] = VM_GUEST_RESULT;
	for (size_t i = at; i < (size_t)argc; i++)
		o->job[n++] = argv[i];
	o->njob = n;
	return 0;
}

/*
 * -t nfs: the cell's disk holds the exported filesystem (--nfs-export-fs,
 * ext4 by default) and -O gives the NFS mount's options.
 */
static int
nfsjob(struct vm_opts *o)
{
	char errbuf[512];
	int nfscells = 0;

	for (size_t f = 0; f < o->nfstype; f++)
		nfscells += strcmp(o->fstype[f], "nfs") == 0;
	if (nfscells == 0) {
		if (o->nfs_server != NULL || o->export_fs != NULL ||
		    o->nfs_path != NULL) {
			warnx("--nfs-server, --nfs-export-fs and --nfs-path "
			      "need -t nfs");
			return -1;
		}
		return 0;
	}
	if (o->nfstype != 1) {
		warnx("-t nfs goes alone: -O is the NFS mount's options");
		return -1;
	}
	if (o->nfs_server == NULL)
		o->nfs_server = "knfsd";
	if (o->nfs_path == NULL)
		o->nfs_path = "";
	if (vm_nfs_check(o->nfs_server, o->mount_opts, o->nfs_path, errbuf,
	        sizeof(errbuf)) == -1) {
		warnx("%s", errbuf);
		return -1;
	}
	o->nfs_opts = o->mount_opts;
	o->mount_opts = "";
	o->fstype[0] = o->export_fs != NULL ? o->export_fs : "ext4";
	if (strcmp(o->fstype[0], "none") == 0 ||
	    strcmp(o->fstype[0], "nfs") == 0) {
		warnx("--nfs-export-fs '%s' is not a filesystem to export",
		    o->fstype[0]);
		return -1;
	}
	return 0;
}

/*
 * The looks of -n MIN..MAX: MIN runs, then half as many again each time
 * (at least one more), up to MAX. Each look judges the gates at
 * 1 - alpha / nlook, so that over all of them a wrong outcome stays below
 * alpha / 2 (docs/compare.md, "Runs until decided").
 */
static void
plan_looks(struct vm_opts *o)
{
	int n = o->runs;

	o->nlook = 0;
	for (;;) {
		o->look[o->nlook++] = n;
		if (n >= o->runs_max || o->nlook == MAX_LOOKS)
			break;
		n = n + (n + 1) / 2 < o->runs_max ? n + (n + 1) / 2
		                                  : o->runs_max;
	}
	o->look[o->nlook - 1] = o->runs_max;
	o->level = 1 - 0.05 / o->nlook;
}

/* -n N, -n MIN..MAX or -n auto (5..20). */
static int
parse_runs(const char *arg, struct vm_opts *o)
{
	const char *dots = strstr(arg, "..");
	char *end;
	int lo, hi, least;

	if (strcmp(arg, "auto") == 0)
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
	plan_looks(o);
	/* MIN a side must bound an interval at the level each look takes. */
	for (least = lo;
	     stats_mw_pmin((size_t)least, (size_t)least) > 1 - o->level;
	     least++)
		;
	if (least > lo) {
		warnx("-n '%s': %d runs a side bound no interval at the %.2f%% "
		      "that each of its %d looks takes: MIN must be %d or more",
		    arg, lo, o->level * 100, o->nlook, least);
		return -1;
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
	                      : NULL;

	if (why == NULL)
		return 0;
	warnx("-n MIN..MAX runs until every gate is decided; it needs %s", why);
	return -1;
}

static int
parse(int argc, char **argv, struct vm_opts *o)
{
	static char runs[16];
	char errbuf[256] = "";
	long long v;
	int c;

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
			if (strcmp(optarg, "auto") != 0 &&
			    strcmp(optarg, "kvm") != 0 &&
			    strcmp(optarg, "tcg") != 0) {
				warnx("--accel '%s' is not auto, kvm or tcg",
				    optarg);
				return -1;
			}
			o->accel = optarg;
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
			if (cmd_parse_int(
			        "--timeout", optarg, 1, 7 * 86400, &v) == -1)
				return -1;
			o->timeout_ns = (int64_t)v * 1000000000;
			break;
		case 'b':
			if (cmd_parse_int("--boot-timeout", optarg, 1,
			        7 * 86400, &v) == -1)
				return -1;
			o->boot_timeout_ns = (int64_t)v * 1000000000;
			break;
		case 'Z':
			if (replay_dd_parse_size(optarg, &o->size_bytes, errbuf,
			        sizeof(errbuf)) == -1 ||
			    o->size_bytes < IMAGE_MIN_BYTES ||
			    o->size_bytes > IMAGE_MAX_BYTES ||
			    o->size_bytes % 512 != 0) {
				warnx("--size '%s': %s", optarg,
				    errbuf[0] != '\0'
				        ? errbuf
				        : "not a whole number of 512-byte "
				          "sectors from 1M to 16T");
				return -1;
			}
			break;
		case 'p':
			o->plan = optarg != NULL ? optarg : "lines";
			if (strcmp(o->plan, "lines") != 0 &&
			    strcmp(o->plan, "github") != 0 &&
			    strcmp(o->plan, "gitlab") != 0) {
				warnx("--plan '%s' is not lines, github or "
				      "gitlab",
				    o->plan);
				return -1;
			}
			break;
		case 'c': {
			size_t max = sizeof(o->cell) / sizeof(o->cell[0]), k;
			char *id[sizeof(o->cell) / sizeof(o->cell[0])];

			if (cmd_split_list("--cell", "cell ids", optarg, id,
			        max, &k) == -1)
				return -1;
			if (o->ncell + k > max) {
				warnx("--cell: more than %zu cell ids", max);
				return -1;
			}
			for (size_t i = 0; i < k; i++)
				o->cell[o->ncell++] = id[i];
			break;
		}
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
		return jobargs(o, argc - optind, argv + optind);
	}
	if (argc - optind != 1) {
		warnx("vm takes one archive, or a job after --");
		return -1;
	}
	o->archive = argv[optind];
	if (o->nfstype == 0)
		o->fstype[o->nfstype++] = "ext4";
	if (nfsjob(o) == -1)
		return -1;
	snprintf(runs, sizeof(runs), "%d", o->runs);
	o->job[0] = (char *)o->archive;
	o->job[1] = VM_GUEST_DISK;
	o->job[2] = "-n";
	o->job[3] = runs;
	o->job[4] = "-o";
	o->job[5] = VM_GUEST_RESULT;
	o->njob = 6;
	if (o->nfs_opts != NULL) {
		o->job[1] = VM_GUEST_NFS;
		o->job[o->njob++] = "--nfs-iface";
		o->job[o->njob++] = (char *)vm_nfs_iface(o->nfs_server);
		/* knfsd's disk is the guest's: the exact probe watches it. */
		if (strcmp(o->nfs_server, "knfsd") == 0) {
			o->job[o->njob++] = "--watch-dev";
			o->job[o->njob++] = "/dev/vda";
		}
	}
	return 0;
}

/* Everything that can be checked before a guest boots. */
struct run {
	struct vm_opts *o;
	struct vm_kernel *k;
	char exe[PATH_MAX];
	char archive[PATH_MAX];
	char qemu[32];
	size_t ncell;
	/* kernel-major: conf[(k * nfstype + f) * nmachine + m] */
	struct vm_cell_conf *conf;
	struct vm_modset *mods; /* each kernel's and filesystem's modules */
	char kdir[PATH_MAX];    /* the vmlinux files unpacked, or "" */
	char (*boot)[PATH_MAX]; /* what QEMU boots, per kernel */
	json_t **doc;           /* each cell's result, or NULL */
	char exe_sha256[65], archive_sha256[65];
	struct vm_plan plan; /* the cells as data, with their ids */
};

static int
check(struct run *r)
{
	struct vm_opts *o = r->o;
	char errbuf[2048];
	ssize_t n;
	int noqemu;

	/*
	 * Listing the cells, or reading their results, boots nothing; UML
	 * kernels need no QEMU (asked below, once they are known).
	 */
	noqemu = vm_qemu_version(
	             r->qemu, sizeof(r->qemu), errbuf, sizeof(errbuf)) == -1 &&
	    o->plan == NULL && o->merge == NULL;
	if ((n = readlink("/proc/self/exe", r->exe, sizeof(r->exe) - 1)) <= 0) {
		warnx(
		    "cannot find this program's own file: %s", strerror(errno));
		return -1;
	}
	r->exe[n] = '\0';
	if (vm_sha256_file(r->exe, r->exe_sha256, errbuf, sizeof(errbuf)) ==
	    -1) {
		warnx("%s", errbuf);
		return -1;
	}
	if (o->archive != NULL) {
		if (realpath(o->archive, r->archive) == NULL ||
		    access(r->archive, R_OK) == -1) {
			warnx("cannot read archive '%s': %s", o->archive,
			    strerror(errno));
			return -1;
		}
		o->job[0] = r->archive;
		if (vm_sha256_file(r->archive, r->archive_sha256, errbuf,
		        sizeof(errbuf)) == -1) {
			warnx("%s", errbuf);
			return -1;
		}
		/*
		 * A workload trace reaches the guest as an archive does (the
		 * host's files, read-only) and is checked whole here, before
		 * any boot. How much of the disk it fills is known only by
		 * running it: a full disk fails the run, naming the record.
		 * An archive must fit the disk (ganesha's export is a
		 * directory on the host, not the disk).
		 */
		if (wtrace_is(r->archive)) {
			struct replay_wtrace_info wi;

			if (replay_wtrace_identify(r->archive, &wi, errbuf,
			        sizeof(errbuf)) == -1) {
				warnx("%s", errbuf);
				return -1;
			}
		} else if ((o->nfs_server == NULL ||
		               strcmp(o->nfs_server, "ganesha") != 0) &&
		    vm_image_fits(r->archive, o->size_bytes, errbuf,
		        sizeof(errbuf)) == -1) {
			warnx("%s", errbuf);
			return -1;
		}
	}
	/* A plan, or its results, boot nothing here. */
	if (o->plan == NULL && o->merge == NULL &&
	    vm_image_direct_check(vm_tmpdir(), errbuf, sizeof(errbuf)) == -1) {
		warnx("%s", errbuf);
		return -1;
	}
	for (size_t f = 0; f < o->nfstype; f++)
		if (vm_image_check(o->fstype[f], errbuf, sizeof(errbuf)) ==
		    -1) {
			warnx("%s", errbuf);
			return -1;
		}
	for (size_t i = 0; i < o->nkernel; i++) {
		if (vm_kernel_open(&r->k[i], o->kernel[i], o->modules, errbuf,
		        sizeof(errbuf)) == -1) {
			warnx("%s", errbuf);
			return -1;
		}
		if (noqemu && r->k[i].machine == VM_MACHINE_QEMU) {
			vm_qemu_version(
			    r->qemu, sizeof(r->qemu), errbuf, sizeof(errbuf));
			warnx("%s", errbuf);
			return -1;
		}
		for (size_t f = 0; f < o->nfstype; f++) {
			const char *names[16];
			size_t nn = vm_modules_needed(o->fstype[f], names, 16);

			if (o->nfs_server != NULL)
				nn += vm_nfs_modules(
				    o->nfs_server, names + nn, 16 - nn);
			if (vm_modules_resolve(&r->k[i], names, nn,
			        &r->mods[i * o->nfstype + f], errbuf,
			        sizeof(errbuf)) == -1) {
				warnx("kernel '%s': %s", o->kernel[i], errbuf);
				return -1;
			}
		}
	}
	return 0;
}

/*
 * Each kernel's vmlinux, unpacked once for all its cells into a directory
 * of the run's where it can be, for speed; else the image boots as it is.
 */
static void
unpack(struct run *r)
{
	char errbuf[1024];

	snprintf(r->kdir, sizeof(r->kdir), "%s/ubcreplay-vmlinux.XXXXXX",
	    vm_tmpdir());
	if (mkdtemp(r->kdir) == NULL)
		r->kdir[0] = '\0';
	for (size_t i = 0; i < r->o->nkernel; i++) {
		snprintf(r->boot[i], PATH_MAX, "%s/vmlinux-%zu", r->kdir, i);
		if (r->kdir[0] == '\0' ||
		    vm_kernel_unpack(
		        &r->k[i], r->boot[i], errbuf, sizeof(errbuf)) == -1)
			snprintf(r->boot[i], PATH_MAX, "%s", r->k[i].path);
	}
}

static void
confs(struct run *r)
{
	struct vm_opts *o = r->o;
	size_t ncell = o->nkernel * o->nfstype * o->nmachine;
	for (size_t j = 0; j < ncell; j++) {
		struct vm_cell_conf *c = &r->conf[j];
		const struct cmp_machine *m = &o->machine[j % o->nmachine];
		size_t i = j / o->nmachine / o->nfstype;
		size_t f = j / o->nmachine % o->nfstype;

		c->kernel = &r->k[i];
		c->mods = &r->mods[i * o->nfstype + f];
		c->boot = r->boot[i];
		c->fstype = o->fstype[f];
		c->mkfs_opts = o->mkfs_opts;
		c->mount_opts = o->mount_opts;
		c->size_bytes = o->size_bytes;
		c->accel = o->accel;
		c->cpus = m->cpus;
		c->mem_mib = m->mem_mib;
		c->queues = m->queues;
		c->icount_shift = m->icount_shift;
		c->timeout_ns = o->timeout_ns;
		c->boot_timeout_ns = o->boot_timeout_ns;
		c->exe = r->exe;
		c->njob = o->njob;
		c->job = o->job;
		c->qemu_version = r->qemu;
		c->nfs_server = o->nfs_opts != NULL ? o->nfs_server : NULL;
		c->nfs_opts = o->nfs_opts;
		c->nfs_path = o->nfs_path;
		c->given = o->given;
		c->seed = o->seed;
	}
	r->ncell = ncell;
}

/* A cell's name after its kernel: the disk's filesystem, or nfs. */
static const char *
fsname(const struct vm_cell_conf *c)
{
	if (c->nfs_server != NULL)
		return "nfs";
	return strcmp(c->fstype, "none") == 0 ? "raw" : c->fstype;
}

static int
active(const struct vm_cell *c)
{
	return c->state == VM_SERVER || c->state == VM_RUNNING ||
	    c->state == VM_RETRY;
}

static const char *tag(const struct run *r, size_t j);
static int label_machine(const struct run *r, json_t *doc, size_t j);

/*
 * Keeps a cell's result: its first boot's as it is, a later one's (a look
 * of -n MIN..MAX) in the first's "boots", which compare reads with it.
 */
static int
keep(struct run *r, size_t at, json_t *doc)
{
	json_t *boots;

	if (r->doc[at] == NULL) {
		r->doc[at] = doc;
		return 0;
	}
	if ((boots = json_object_get(r->doc[at], "boots")) == NULL &&
	    json_object_set_new(r->doc[at], "boots", boots = json_array()) ==
	        -1)
		return -1;
	return json_array_append_new(boots, doc);
}

/* The runs cell at has had, in every boot. */
static int
runs_of(const struct run *r, size_t at)
{
	json_t *b;
	size_t i, n;

	if (r->doc[at] == NULL)
		return 0;
	n = json_array_size(json_object_get(r->doc[at], "runs"));
	json_array_foreach (json_object_get(r->doc[at], "boots"), i, b)
		n += json_array_size(json_object_get(b, "runs"));
	return (int)n;
}

/*
 * One step of a cell under way: DONE and FAILED end it (its result kept,
 * or its error said), RETRY starts it again under TCG. 1 while it is
 * under way, 0 when it ended well, -1 when it failed.
 */
static int
step(struct run *r, struct vm_cell *c, size_t at, char *errbuf, size_t len)
{
	const struct vm_cell_conf *cf = c->c;
	enum vm_state s = vm_cell_poll(c, errbuf, len);
	json_t *doc = NULL;

	if (s == VM_RETRY) {
		fprintf(stderr,
		    "ubcreplay vm: %s %s: KVM cannot run it; again under "
		    "TCG\n",
		    vm_kernel_name(cf->kernel), fsname(cf));
		s = vm_cell_retry(c, errbuf, len) == -1 ? VM_FAILED : c->state;
	}
	if (s == VM_SERVER || s == VM_RUNNING)
		return 1;
	if (s == VM_DONE && (doc = vm_cell_result(c, errbuf, len)) != NULL &&
	    (label_machine(r, doc, at) == -1 || keep(r, at, doc) == -1)) {
		json_decref(doc);
		doc = NULL;
		snprintf(errbuf, len, "out of memory");
	}
	if (doc != NULL) {
		fprintf(stderr,
		    "ubcreplay vm: %s %s%s%s: done under %s in %.1f s (%.1f s "
		    "to the job)\n",
		    vm_kernel_name(cf->kernel), fsname(cf),
		    *tag(r, at) ? " " : "", tag(r, at), c->accel,
		    (double)c->guest_ns / 1e9, (double)c->boot_ns / 1e9);
		vm_cell_cleanup(c);
		return 0;
	}
	warnx("%s", errbuf);
	vm_cell_cleanup(c);
	return -1;
}

/* Cell j's machine tag, "" for one machine. */
static const char *
tag(const struct run *r, size_t j)
{
	static char buf[128];

	machine_tag(r->o, j, " ", buf, sizeof(buf));
	return buf;
}

/* With more than one machine, doc's label says which runs cell j. */
static int
label_machine(const struct run *r, json_t *doc, size_t j)
{
	char label[512];

	if (r->o->nmachine == 1)
		return 0;
	snprintf(label, sizeof(label), "%s %s",
	    json_string_value(json_object_get(doc, "label")), tag(r, j));
	return json_object_set_new(doc, "label", json_string(label));
}

/*
 * Runs the cells named by idx, up to jobs at once, into r->doc. -1 when
 * one failed (each failure said), or a signal came (every guest killed,
 * every temporary file removed). Each cell records the most cells that
 * were under way at once while it was.
 */
static int
run_cells(struct run *r, const size_t *idx, size_t n, int jobs)
{
	struct vm_cell *cell = calloc(n, sizeof(*cell));
	size_t next = 0, running = 0;
	char errbuf[4096];
	int status = 0;

	if (cell == NULL) {
		warnx("out of memory");
		return -1;
	}
	for (;;) {
		const struct timespec nap = {0, 50 * 1000000};

		while (!stop_signal() && running < (size_t)jobs && next < n) {
			struct vm_cell *c = &cell[next];
			const struct vm_cell_conf *cf = &r->conf[idx[next]];

			vm_cell_init(c, cf);
			next++;
			if (vm_cell_prepare(c, errbuf, sizeof(errbuf)) == -1 ||
			    vm_cell_start(c, errbuf, sizeof(errbuf)) == -1) {
				warnx("%s", errbuf);
				vm_cell_cleanup(c);
				c->state = VM_FAILED;
				status = -1;
				continue;
			}
			running++;
		}
		for (size_t i = 0; i < next; i++)
			if (active(&cell[i]) &&
			    cell[i].parallel_guests < (int)running)
				cell[i].parallel_guests = (int)running;
		if (stop_signal() || running == 0)
			break;
		for (size_t i = 0; i < next; i++) {
			int s;

			if (!active(&cell[i]) || stop_signal() ||
			    (s = step(r, &cell[i], idx[i], errbuf,
			         sizeof(errbuf))) == 1)
				continue;
			running--;
			if (s == -1)
				status = -1;
		}
		nanosleep(&nap, NULL);
	}
	for (size_t i = 0; i < next; i++)
		vm_cell_cleanup(&cell[i]);
	free(cell);
	return stop_signal() ? -1 : status;
}

/* The output directory: as given (made if need be), or a fresh one. */
static int
outdir(struct run *r, char *dir, size_t len)
{
	if (r->o->outdir != NULL) {
		snprintf(dir, len, "%s", r->o->outdir);
		if (mkdir(dir, 0755) == -1 && errno != EEXIST) {
			warnx("cannot make '%s': %s", dir, strerror(errno));
			return -1;
		}
		return 0;
	}
	snprintf(dir, len, "ubcreplay-vm.XXXXXX");
	if (mkdtemp(dir) == NULL) {
		const char *tmp = getenv("TMPDIR");

		snprintf(dir, len, "%s/ubcreplay-vm.XXXXXX",
		    tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
		if (mkdtemp(dir) == NULL) {
			warnx("cannot make '%s': %s", dir, strerror(errno));
			return -1;
		}
	}
	fprintf(stderr, "ubcreplay vm: results in %s\n", dir);
	return 0;
}

/*
 * A kernel's name as a file name's start: "6.1.192", or for a tree
 * "6.1.192-base@1a2b3c4".
 */
static void
stem(const struct vm_kernel *k, char *buf, size_t len)
{
	snprintf(buf, len, "%s", vm_kernel_name(k));
	for (char *p = buf; *p != '\0'; p++)
		if (*p == ' ' || *p == '/')
			*p = '-';
}

/*
 * Writes each result as DIR/KERNEL-FS.json, or DIR/KERNEL-FS-MACHINE.json
 * with more than one machine (2cpu-icount-4); names[i] gets the path.
 */
static int
write_results(struct run *r, char names[][PATH_MAX])
{
	char dir[PATH_MAX / 2], errbuf[1024], kname[PATH_MAX / 4];
	int any = 0;

	for (size_t i = 0; i < r->ncell; i++)
		any |= r->doc[i] != NULL;
	if (!any)
		return 0;
	if (outdir(r, dir, sizeof(dir)) == -1)
		return -1;
	for (size_t i = 0; i < r->ncell; i++) {
		const struct vm_cell_conf *c = &r->conf[i];
		int dup = 0;

		char m[128];

		/*
		 * Named as in a run of the whole plan, whichever of its cells
		 * ran here (--cell), so that a scheduler's results merge.
		 */
		for (size_t j = 0; j < i; j++)
			dup |= strcmp(vm_kernel_name(r->conf[j].kernel),
			           vm_kernel_name(c->kernel)) == 0 &&
			    strcmp(fsname(&r->conf[j]), fsname(c)) == 0 &&
			    j % r->o->nmachine == i % r->o->nmachine;
		if (r->doc[i] == NULL)
			continue;
		stem(c->kernel, kname, sizeof(kname));
		machine_tag(r->o, i, "-", m, sizeof(m));
		for (char *p = m; *p != '\0'; p++)
			*p = *p == ':' ? '-' : *p;
		snprintf(names[i], PATH_MAX, "%s/%s-%s%s%s.json", dir, kname,
		    fsname(c), *m ? "-" : "", m);
		if (dup)
			snprintf(names[i], PATH_MAX, "%s/%s-%s-%zu.json", dir,
			    kname, fsname(c), i + 1);
		json_object_set_new(json_object_get(r->doc[i], "vm"), "plan",
		    vm_plan_stamp(&r->plan, i));
		if (result_write(r->doc[i], names[i], errbuf, sizeof(errbuf)) ==
		    -1) {
			warnx("%s", errbuf);
			return -1;
		}
	}
	return 0;
}

static void
caveats(const struct run *r)
{
	int tcg = 0, parallel = 1;

	for (size_t i = 0; i < r->ncell; i++) {
		json_t *vm = json_object_get(r->doc[i], "vm");

		if (vm == NULL)
			continue;
		tcg |= strcmp(json_string_value(json_object_get(vm, "accel")),
		           "tcg") == 0;
		if (result_geti(vm, "parallel_guests") > parallel)
			parallel = (int)result_geti(vm, "parallel_guests");
	}
	if (tcg)
		warnx("under TCG the guests' elapsed times are emulated: "
		      "compare sizes, not times");
	if (parallel > 1)
		warnx("warning: %d guests ran at once: their times are not "
		      "comparable",
		    parallel);
}

/* What series prints: the report, the gates' verdicts. */
#define PRINT_REPORT 1
#define PRINT_GATES  2

/*
 * The series over the results in docs (paths names), and the gates. 0 when
 * every gate passed, 1 when one failed, 3 when one is undecided and none
 * failed, 2 when they cannot be judged. change, when not NULL, gets the
 * first gate's verdict on the last result (zeroed without gates).
 */
static int
series(json_t **docs, char names[][PATH_MAX], size_t n, struct vm_opts *o,
    int print, struct gate_verdict *change)
{
	struct cmp_opts copts = CMP_OPTS_DEFAULT;
	struct cmp_result **res = calloc(n, sizeof(*res));
	struct gate_verdict *v;
	char errbuf[2048];
	struct cmp *c;
	size_t k = 0;
	int nv, status;

	copts.level = o->level;
	if (res == NULL) {
		warnx("out of memory");
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < n; i++) {
		if (docs[i] == NULL)
			continue;
		if ((res[k] = cmp_result_from_json(
		         docs[i], names[i], errbuf, sizeof(errbuf))) == NULL) {
			warnx("%s", errbuf);
			while (k > 0)
				cmp_result_free(res[--k]);
			free(res);
			return EXIT_USAGE;
		}
		k++;
	}
	c = cmp_new(res, k, &copts, errbuf, sizeof(errbuf));
	free(res);
	if (c == NULL) {
		warnx("%s", errbuf);
		return EXIT_USAGE;
	}
	if (print & PRINT_REPORT)
		cmp_report_text(c, stdout, 0, cmd_page_width());
	if ((nv = cmd_judge_gates(c, o->gate, o->ngate, o->rule, &v)) == -1) {
		fflush(stdout);
		cmp_free(c);
		return EXIT_USAGE;
	}
	if (print & PRINT_GATES) {
		cmd_print_gates(c, o->rule, v, (size_t)nv);
		fflush(stdout);
	}
	if (change != NULL) {
		memset(change, 0, sizeof(*change));
		/* The first gate's verdicts come first, result by result. */
		if (nv > 0)
			*change = v[c->nresult - 2];
	}
	status = gate_status(v, (size_t)nv);
	free(v);
	cmp_free(c);
	return status;
}

/*
 * More than one machine: the series of every cell, then the gates judged on
 * each machine apart (its kernels and filesystems against its first), since
 * sizes are not judged across machines. The worst exit status of them.
 */
static int
per_machine(struct run *r, char names[][PATH_MAX])
{
	struct vm_opts nogate = *r->o;
	size_t per = r->ncell / r->o->nmachine, n;
	json_t **docs = calloc(per, sizeof(*docs));
	char(*nm)[PATH_MAX] = calloc(per, sizeof(*nm));
	int rc, s;

	if (docs == NULL || nm == NULL) {
		free(docs);
		free(nm);
		warnx("out of memory");
		return EXIT_USAGE;
	}
	nogate.ngate = 0;
	rc = series(r->doc, names, r->ncell, &nogate, PRINT_REPORT, NULL);
	for (size_t m = 0; m < r->o->nmachine; m++) {
		n = 0;
		for (size_t j = m; j < r->ncell; j += r->o->nmachine)
			if (r->doc[j] != NULL) {
				docs[n] = r->doc[j];
				snprintf(nm[n++], PATH_MAX, "%s", names[j]);
			}
		printf("On %s:\n", tag(r, m));
		if (n < 2) {
			printf("  fewer than two results: no gates\n");
			s = EXIT_USAGE;
		} else
			s = series(docs, nm, n, r->o, PRINT_GATES, NULL);
		rc = gate_worse(rc, s);
	}
	free(docs);
	free(nm);
	return rc;
}

/*
 * Boots cell at once more, when it has had fewer than want runs, for the
 * runs it lacks.
 */
static int
top_up(struct run *r, size_t at, int want)
{
	int have = runs_of(r, at);

	if (have >= want)
		return 0;
	snprintf(r->o->runs_arg, 16, "%d", want - have);
	return run_cells(r, &at, 1, 1);
}

/*
 * Good (0) or bad (1), or undecided (3): kernel i's cell against the
 * first's, by the gates, at each look of -n MIN..MAX in turn until one
 * decides; v gets the first gate's verdict.
 */
static int
judge(struct run *r, size_t i, struct gate_verdict *v)
{
	const struct vm_opts *o = r->o;
	json_t *pair[2];
	char pn[2][PATH_MAX];
	int s;

	for (int j = 0;; j++) {
		int want = o->runs_max > 0 ? o->look[j] : o->runs;

		if (top_up(r, 0, want) == -1 || top_up(r, i, want) == -1)
			return -1;
		pair[0] = r->doc[0];
		pair[1] = r->doc[i];
		snprintf(pn[0], PATH_MAX, "%s", r->k[0].path);
		snprintf(pn[1], PATH_MAX, "%s", r->k[i].path);
		s = series(pair, pn, 2, r->o, 0, v);
		if (s != EXIT_UNDECIDED || j + 1 >= o->nlook)
			return s;
	}
}

/* How -n MIN..MAX judged, above the gates. */
static void
print_looks(const struct vm_opts *o)
{
	printf(
	    "Runs until decided (-n %d..%d): looks at", o->runs, o->runs_max);
	for (int j = 0; j < o->nlook; j++)
		printf("%s %d", j > 0 ? "," : "", o->look[j]);
	printf(" runs a cell, each judging at %g%% (0.05 spread over the "
	       "%d),\nso that no outcome is wrong more than 2.5%% of the "
	       "time over all of them.\n\n",
	    o->level * 100, o->nlook);
}

/*
 * -n MIN..MAX: every cell booted again for the runs of the next look, in
 * the matrix's order (A, B, A, B...: a change in the host's load falls on
 * both), until the gates are decided or MAX runs are reached.
 */
static int
until_decided(struct run *r, const size_t *idx, size_t n)
{
	struct vm_opts *o = r->o;
	char(*nm)[PATH_MAX] = calloc(r->ncell, sizeof(*nm));
	int s = EXIT_UNDECIDED;

	if (nm == NULL) {
		warnx("out of memory");
		return -1;
	}
	for (size_t i = 0; i < r->ncell; i++)
		snprintf(nm[i], PATH_MAX, "%s %s", vm_kernel_name(&r->k[i]),
		    fsname(&r->conf[i]));
	for (int j = 0; j < o->nlook && s == EXIT_UNDECIDED; j++) {
		snprintf(o->runs_arg, 16, "%d",
		    o->look[j] - (j > 0 ? o->look[j - 1] : 0));
		if (run_cells(r, idx, n, o->jobs) == -1) {
			free(nm);
			return -1;
		}
		s = series(r->doc, nm, r->ncell, o, 0, NULL);
		fprintf(stderr,
		    "ubcreplay vm: look %d of %d, %d runs a cell: %s\n", j + 1,
		    o->nlook, o->look[j],
		    s == EXIT_SUCCESS       ? "every gate passed"
		        : s == EXIT_FAILURE ? "a gate failed"
		        : s == EXIT_UNDECIDED
		        ? (j + 1 < o->nlook ? "undecided: more runs"
		                            : "undecided at the most runs")
		        : "the gates cannot be judged");
	}
	free(nm);
	return 0;
}

static size_t
boots(const struct run *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->ncell; i++)
		n += r->doc[i] != NULL;
	return n;
}

/* One bisection line: the kernel, its verdict, the change that made it. */
static void
print_step(const char *what, const struct vm_kernel *k, int v,
    const struct gate_verdict *gv)
{
	char chg[96] = "";

	if (gv->gate != NULL)
		cmp_format_change(chg, sizeof(chg), &gv->ch);
	printf("  %-6s %-32s %s (%s %s)\n", what, vm_kernel_name(k),
	    v == EXIT_SUCCESS       ? "good"
	        : v == EXIT_FAILURE ? "bad"
	                            : "undecided",
	    gv->gate != NULL ? gv->gate->metric : "", chg);
}

/* A step that cannot tell good from bad stops the bisection, and says so. */
static int
undecided(struct run *r, size_t i, const struct gate_verdict *gv)
{
	warnx("%s cannot be called good or bad: the interval of %s holds the "
	      "gate's limit; run more (-n, about %zu runs) and bisect again",
	    r->k[i].path, gv->gate != NULL ? gv->gate->metric : "the metric",
	    gv->runs);
	return EXIT_UNDECIDED;
}

static int
bisect(struct run *r)
{
	size_t lo = 0, hi = r->ncell - 1, ends[2] = {0, r->ncell - 1};
	struct gate_verdict gv;
	char step[16];
	int v, n = 0;

	/* The ends first, side by side when -j allows. */
	if (run_cells(r, ends, 2, r->o->jobs > 1 ? 2 : 1) == -1)
		return EXIT_USAGE;
	printf(
	    "Bisection over %zu kernels (good first, bad last):\n", r->ncell);
	printf(
	    "  first: %-32s good (the baseline)\n", vm_kernel_name(&r->k[0]));
	if ((v = judge(r, hi, &gv)) == EXIT_USAGE || v == -1)
		return EXIT_USAGE;
	print_step("last:", &r->k[hi], v, &gv);
	if (v == EXIT_UNDECIDED)
		return undecided(r, hi, &gv);
	if (v == EXIT_SUCCESS) {
		warnx("the last kernel, %s, passes the gate against the first: "
		      "nothing to bisect",
		    r->k[hi].path);
		return EXIT_USAGE;
	}
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if ((v = judge(r, mid, &gv)) == EXIT_USAGE || v == -1)
			return EXIT_USAGE;
		snprintf(step, sizeof(step), "step %d:", ++n);
		print_step(step, &r->k[mid], v, &gv);
		if (v == EXIT_UNDECIDED)
			return undecided(r, mid, &gv);
		if (v)
			hi = mid;
		else
			lo = mid;
	}
	printf("first bad kernel: %s (%s), after %s; %zu boots for %zu "
	       "kernels\n",
	    vm_kernel_name(&r->k[hi]), r->k[hi].path, vm_kernel_name(&r->k[lo]),
	    boots(r), r->ncell);
	return EXIT_SUCCESS;
}

static int
make_plan(struct run *r)
{
	struct vm_plan_inputs in = {r->exe, r->exe_sha256,
	    r->o->archive != NULL ? r->archive : NULL, r->archive_sha256};
	char errbuf[512];
	json_t *c;
	size_t i;

	if (vm_plan_make(&r->plan, r->conf, r->ncell, &in, errbuf,
	        sizeof(errbuf)) == -1) {
		warnx("%s", errbuf);
		return -1;
	}
	/* Named as its result will be: with its machine, if there are more. */
	json_array_foreach (r->plan.cells, i, c)
		if (label_machine(r, c, i) == -1) {
			warnx("out of memory");
			return -1;
		}
	return 0;
}

/* One shell word, single-quoted. */
static void
shell_word(FILE *f, const char *w)
{
	fputs(" '", f);
	for (; *w != '\0'; w++)
		if (*w == '\'')
			fputs("'\\''", f);
		else
			fputc(*w, f);
	fputc('\'', f);
}

/*
 * The arguments of this invocation, a shell word each, for the jobs a CI
 * plan runs: --plan and -o left out (the jobs give their own), or only the
 * gates (and their rule) for the merge job. After --, the job's own words go as
 * they are.
 */
static void
shell_args(FILE *f, int argc, char **argv, int gates_only)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int gate = strcmp(a, "--fail-if") == 0 ||
		    strncmp(a, "--fail-if=", 10) == 0 ||
		    strcmp(a, "--gate-rule") == 0 ||
		    strncmp(a, "--gate-rule=", 12) == 0;
		int drop =
		    strncmp(a, "--plan", 6) == 0 || strncmp(a, "-o", 2) == 0;
		int takes =
		    (strcmp(a, "-o") == 0 || strcmp(a, "--fail-if") == 0 ||
		        strcmp(a, "--gate-rule") == 0) &&
		    i + 1 < argc;

		if (strcmp(a, "--") == 0) {
			for (; !gates_only && i < argc; i++)
				shell_word(f, argv[i]);
			return;
		}
		if (gates_only ? gate : !drop) {
			shell_word(f, a);
			if (takes)
				shell_word(f, argv[i + 1]);
		}
		i += takes;
	}
}

/*
 * --plan: the cells, one JSON object a line; or a GitHub Actions matrix
 * (fromJSON of an "include" list); or a GitLab child pipeline, a job per
 * cell and a merge job with the gates.
 */
static void
print_plan(struct run *r, int argc, char **argv)
{
	const char *form = r->o->plan;
	json_t *c;
	size_t i;

	if (strcmp(form, "lines") == 0) {
		json_array_foreach (r->plan.cells, i, c) {
			json_object_set_new(c, "plan", json_string(r->plan.id));
			json_dumpf(c, stdout, JSON_COMPACT);
			putchar('\n');
		}
	} else if (strcmp(form, "github") == 0) {
		json_t *inc = json_array();

		json_array_foreach (r->plan.cells, i, c)
			json_array_append_new(inc,
			    json_pack("{s:O, s:O}", "cell",
			        json_object_get(c, "id"), "label",
			        json_object_get(c, "label")));
		json_t *m = json_pack("{s:o}", "include", inc);

		json_dumpf(m, stdout, JSON_COMPACT);
		json_decref(m);
		putchar('\n');
	} else {
		printf("# The cells of plan %s, made by ubcreplay vm "
		       "--plan=gitlab:\n# a job per cell, then the series "
		       "and the gates.\n",
		    r->plan.id);
		printf("stages: [cells, merge]\ncell:\n  stage: cells\n"
		       "  parallel:\n    matrix:\n      - UBC_CELL:\n");
		json_array_foreach (r->plan.cells, i, c)
			printf("          - \"%s\"  # %s\n",
			    json_string_value(json_object_get(c, "id")),
			    json_string_value(json_object_get(c, "label")));
		printf("  script:\n    - >-\n      ubcreplay vm --cell "
		       "\"$UBC_CELL\" -o results");
		shell_args(stdout, argc, argv, 0);
		printf("\n"
		       "  artifacts:\n    paths: [results/]\n"
		       "merge:\n  stage: merge\n  script:\n    - >-\n"
		       "      ubcreplay vm --merge results");
		shell_args(stdout, argc, argv, 1);
		printf("\n");
	}
	fflush(stdout);
}

/*
 * --cell: the plan's cells named, in idx; an id that is not one of this
 * node's cells is an error naming what this node has, by digest, since a
 * kernel, archive or ubcreplay that differs from the planning node's
 * changes every id it is part of.
 */
static int
select_cells(struct run *r, size_t *idx, size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < r->o->ncell; i++) {
		long k = vm_plan_find(&r->plan, r->o->cell[i]);

		if (k >= 0) {
			idx[(*n)++] = (size_t)k;
			continue;
		}
		warnx("cell '%s' is not a cell of this plan (%s) on this "
		      "node; an id names the kernel, the archive and "
		      "ubcreplay by digest, so a copy here that differs from "
		      "the planning node's makes other ids. Here:",
		    r->o->cell[i], r->plan.id);
		fprintf(stderr, "  ubcreplay %s sha256 %s\n", r->exe,
		    r->exe_sha256);
		if (r->o->archive != NULL)
			fprintf(stderr, "  archive %s sha256 %s\n", r->archive,
			    r->archive_sha256);
		for (size_t c = 0; c < r->ncell; c++)
			fprintf(stderr, "  cell %s: %s (kernel %s sha256 %s)\n",
			    vm_plan_cell_id(&r->plan, c),
			    json_string_value(json_object_get(
			        json_array_get(r->plan.cells, c), "label")),
			    r->conf[c].kernel->path, r->conf[c].kernel->sha256);
		return -1;
	}
	return 0;
}

/*
 * --merge DIR: the series and the gates over a directory of one plan's
 * results, however its cells were run; the plan these arguments make,
 * when they name kernels, must be that plan.
 */
static int
merge(struct run *r)
{
	char errbuf[4096], **files;
	char(*names)[PATH_MAX];
	json_t **docs;
	size_t n;
	int rc;

	if (vm_plan_load(r->o->merge, r->o->nkernel > 0 ? r->plan.id : NULL,
	        &docs, &files, &n, errbuf, sizeof(errbuf)) == -1) {
		warnx("%s", errbuf);
		return EXIT_USAGE;
	}
	if ((names = calloc(n, sizeof(*names))) == NULL) {
		warnx("out of memory");
		rc = EXIT_USAGE;
	} else {
		for (size_t i = 0; i < n; i++)
			snprintf(names[i], PATH_MAX, "%s", files[i]);
		rc = n >= 2 ? series(docs, names, n, r->o,
		                  PRINT_REPORT | PRINT_GATES, NULL)
		            : (report_text(docs[0], stdout, 0), EXIT_SUCCESS);
		if (n < 2 && r->o->ngate > 0) {
			warnx("--fail-if needs two results or more to compare");
			rc = EXIT_USAGE;
		}
	}
	for (size_t i = 0; i < n; i++)
		json_decref(docs[i]);
	free(docs);
	free(names);
	vm_plan_names_free(files, n);
	return rc;
}

static void
run_free(struct run *r, char (*names)[PATH_MAX])
{
	/* Modules per kernel and filesystem; results per cell, machines too. */
	size_t n = r->o->nkernel * r->o->nfstype;

	for (size_t i = 0; r->doc != NULL && i < n * r->o->nmachine; i++)
		json_decref(r->doc[i]);
	for (size_t i = 0; r->mods != NULL && i < n; i++)
		vm_modules_free(&r->mods[i]);
	/* unpack() made kdir and at most one vmlinux-N in it a kernel. */
	if (r->kdir[0] != '\0') {
		for (size_t i = 0; i < r->o->nkernel; i++) {
			char p[PATH_MAX];

			snprintf(p, sizeof(p), "%s/vmlinux-%zu", r->kdir, i);
			unlink(p);
		}
		rmdir(r->kdir);
	}
	free(r->boot);
	free(r->k);
	free(r->conf);
	free(r->mods);
	free(r->doc);
	free(names);
}

int
cmd_vm(int argc, char **argv)
{
	struct vm_opts o;
	struct run r;
	char(*names)[PATH_MAX] = NULL, errbuf[2048];
	size_t nok = 0;
	int rc, sig, failed;

	if ((rc = parse(argc, argv, &o)) != 0) {
		if (rc < 0)
			usage_command(stderr, "vm");
		return rc < 0 ? EXIT_USAGE : EXIT_SUCCESS;
	}
	if (o.runs_max > 0 && sequential_ok(&o) == -1)
		return EXIT_USAGE;
	memset(&r, 0, sizeof(r));
	r.o = &o;
	if (o.merge != NULL && o.nkernel == 0)
		return merge(&r);
	r.k = calloc(o.nkernel, sizeof(*r.k));
	r.conf = calloc(o.nkernel * o.nfstype * o.nmachine, sizeof(*r.conf));
	r.mods = calloc(o.nkernel * o.nfstype, sizeof(*r.mods));
	r.boot = calloc(o.nkernel, sizeof(*r.boot));
	r.doc = calloc(o.nkernel * o.nfstype * o.nmachine, sizeof(*r.doc));
	names = calloc(o.nkernel * o.nfstype * o.nmachine, sizeof(*names));
	if (r.k == NULL || r.conf == NULL || r.mods == NULL || r.boot == NULL ||
	    r.doc == NULL || names == NULL) {
		warnx("out of memory");
		rc = EXIT_USAGE;
		goto out;
	}
	/* From here a signal is a flag: the unpacked kernels get removed. */
	stop_catch();
	if (check(&r) == -1) {
		rc = EXIT_USAGE;
		goto out;
	}
	confs(&r);
	for (size_t i = 0; i < r.ncell; i++)
		if (vm_cell_check(&r.conf[i], errbuf, sizeof(errbuf)) == -1) {
			warnx("%s", errbuf);
			rc = EXIT_USAGE;
			goto out;
		}
	if (make_plan(&r) == -1) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (o.plan != NULL || o.merge != NULL) {
		if (o.plan != NULL)
			print_plan(&r, argc, argv);
		rc = o.plan != NULL ? EXIT_SUCCESS : merge(&r);
		goto out;
	}
	/* Once per kernel, for all its cells; a plan or a merge boots none. */
	unpack(&r);
	if (o.bisect) {
		rc = bisect(&r);
		failed = 0;
	} else {
		size_t *idx = calloc(r.ncell, sizeof(*idx));

		if (idx == NULL) {
			warnx("out of memory");
			rc = EXIT_USAGE;
			goto out;
		}
		size_t nrun = r.ncell;

		for (size_t i = 0; i < r.ncell; i++)
			idx[i] = i;
		if (o.ncell > 0 && select_cells(&r, idx, &nrun) == -1) {
			free(idx);
			rc = EXIT_USAGE;
			goto out;
		}
		failed =
		    (o.runs_max > 0 ? until_decided(&r, idx, nrun)
		                    : run_cells(&r, idx, nrun, o.jobs)) == -1;
		free(idx);
		rc = failed ? EXIT_USAGE : EXIT_SUCCESS;
	}
	if ((sig = stop_signal()) != 0) {
		run_free(&r, names);
		signal(sig, SIG_DFL);
		raise(sig);
		return 128 + sig;
	}
	if (write_results(&r, names) == -1)
		rc = EXIT_USAGE;
	/* A plan's cells run apart are judged together by --merge. */
	if (o.bisect || o.ncell > 0)
		goto out;
	for (size_t i = 0; i < r.ncell; i++)
		nok += r.doc[i] != NULL;
	caveats(&r);
	if (o.runs_max > 0 && !o.bisect)
		print_looks(&o);
	if (nok >= 2) {
		int s = o.nmachine > 1 && o.ngate > 0
		    ? per_machine(&r, names)
		    : series(r.doc, names, r.ncell, &o,
		          PRINT_REPORT | PRINT_GATES, NULL);

		if (rc == EXIT_SUCCESS)
			rc = s;
	} else if (nok == 1) {
		for (size_t i = 0; i < r.ncell; i++)
			if (r.doc[i] != NULL)
				report_text(r.doc[i], stdout, 0);
		if (o.ngate > 0) {
			warnx("--fail-if needs two results or more to compare");
			rc = EXIT_USAGE;
		}
	}
out:
	vm_plan_free(&r.plan);
	run_free(&r, names);
	return rc;
}
