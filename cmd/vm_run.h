/*
 * vm_run.h - what the files of `ubcreplay vm` share: the options vm.c
 * parses (struct vm_opts) and the matrix they make (struct vmrun), one
 * cell per kernel, filesystem and machine, whose runs, looks, bisection
 * and merge are the runner's (runner/runner.h). Each file keeps one idea,
 * and calls go one way, down this list:
 *
 *	vm.c		the options, which run they ask for, the exit status
 *	vm_plan.c	--plan's forms, --cell's choice, --merge's printing
 *	vm_print.c	what the runner reports, as lines; the series and the
 *			gates printed; what a local run prints at its end
 *	vm_run.c	the matrix: the runner's checks before any boot, the
 *			cells' plan, the runner set up over it, the results
 *			written (runner_prepare, runner_write), failures said
 *	vm_job.c	the job each cell runs in its guest, as words
 *
 *	struct vmrun r = {.o = &o, .report = &vmprint_report};
 *	if (vmrun_open(&r) == -1) ...			checked, planned
 *	vmrun_unpack(&r);
 *	runner_local(&r.run, idx, n);			or vmprint_bisect(&r)
 *	if (vmrun_write(&r) == -1) ...
 *	rc = vmprint_end(&r, rc);
 *	vmrun_free(&r);
 *
 * Nothing here exits.
 */
#ifndef UBC_CMD_VM_RUN_H
#define UBC_CMD_VM_RUN_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "../analysis/compare.h"
#include "../analysis/gate.h"
#include "../runner/runner.h"
#include "../vm/vdisk.h"
#include "../vm/vm.h"
#include "cmd.h"

#define MAX_KERNELS 64
#define MAX_FS      8
#define MAX_GATES   32
#define MAX_JOB     200
#define MAX_KNOB    8
#define MAX_LOOKS   RUNNER_MAX_LOOKS
#define MAX_MACHINE 64

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
	/* --disk virtio: the model, from vdisk_file ("": the defaults). */
	int virtio;
	const char *vdisk_file;
	struct vdisk_model vdisk;
	int rule; /* enum gate_rule */
	/*
	 * -n MIN..MAX (auto: 5..20): runs a cell until every gate is decided,
	 * looking at look[0] = MIN runs, then at each of look[1 .. nlook-1];
	 * 0 for a fixed -n. The gates' intervals are then at level.
	 */
	int runs_max, nlook, look[MAX_LOOKS];
	int runs_auto; /* -n auto: MIN the fewest the runs' test needs */
	double level;
	char *runs_arg; /* the job's -n, which each look sets */
	int64_t timeout_ns, boot_timeout_ns;
	int boot_runs; /* --boot-runs: the most runs a boot; 0 not given */
	uint64_t size_bytes;
};

/*
 * The run: everything that can be checked before a guest boots, then each
 * cell's result and the file it is written to.
 */
struct vmrun {
	struct vm_opts *o;
	struct vm_kernel *k;
	struct runner_prepared prep; /* this program, the archive, QEMU */
	size_t ncell;
	/* kernel-major: conf[(k * nfstype + f) * nmachine + m] */
	struct vm_cell_conf *conf;
	struct vm_modset *mods;  /* each kernel's and filesystem's modules */
	char kdir[PATH_MAX];     /* the vmlinux files unpacked, or "" */
	char (*boot)[PATH_MAX];  /* what QEMU boots, per kernel */
	char (*names)[PATH_MAX]; /* each result's file, once written */
	struct vm_plan plan;     /* the cells as data, with their ids */
	/* The runner over the cells, and its cell runner: vm/'s cells. */
	struct runner run;
	struct runner_vm vm;
	const struct runner_report *report; /* what the runner says goes */
	const char **name;                  /* each cell's, in the series */
	char (*cellname)[PATH_MAX / 2];     /* "KERNEL FS" */
	char (*tag)[128];                   /* each cell's machine */
	const char **tagp;
};

/*
 * vm_job.c. The job after -- (argv, argc words) as each cell runs it: -1
 * after saying why it cannot be (no job, too long, not a job that writes
 * a result, its own -o).
 */
int vmjob_args(struct vm_opts *o, int argc, char **argv);
/*
 * -t nfs: the cell's disk holds the exported filesystem (--nfs-export-fs,
 * ext4 by default) and -O gives the NFS mount's options; -1 after saying
 * what is wrong. Without -t nfs, only that the NFS options need it.
 */
int vmjob_nfs(struct vm_opts *o);
/* The main job on o->archive, its -n o->runs, after vmjob_nfs. */
void vmjob_main(struct vm_opts *o);

/*
 * vm_run.c. The matrix of o's cells: the kernels opened, every check made
 * that can be made before a guest boots, the cells' configurations and
 * their plan, and the runner over them (r->report says where its news
 * goes); -1 after saying what is wrong. From here a signal is a flag
 * (stop_signal), so that vmrun_free removes what the run made. Call
 * vmrun_free after it, whatever it returned.
 */
int vmrun_open(struct vmrun *r);
/* Each kernel's vmlinux unpacked once for all its cells, where it can be. */
void vmrun_unpack(struct vmrun *r);
/* --bisect: the cells named by their kernels' paths in the series. */
void vmrun_name_kernels(struct vmrun *r);
/*
 * Writes each result (runner_write: DIR/KERNEL-FS.json, or
 * DIR/KERNEL-FS-MACHINE.json with more than one machine) into r->names;
 * nothing (and no directory) when there is no result. -1 after saying why.
 */
int vmrun_write(struct vmrun *r);
/* Cell j's machine tag, "" for one machine. */
const char *vmrun_tag(const struct vmrun *r, size_t j);
/* Everything the run holds freed, and the unpacked kernels removed. */
void vmrun_free(struct vmrun *r);

/*
 * vm_print.c. What the runner reports, printed: a cell's retry, end and
 * failure, the looks, the bisection's steps; the report_ctx is the
 * struct vmrun.
 */
extern const struct runner_report vmprint_report;

/* The exit status for a verdict, as compare's. */
int vmprint_status(enum runner_verdict v);

/* What vmprint_series prints: the report, the gates' verdicts. */
#define VMRUN_REPORT 1
#define VMRUN_GATES  2

/*
 * The series over the results in docs (paths names), and o's gates judged
 * by o's rule at o's level (runner_series), printed as print says. The
 * exit status: 0 when every gate passed, 1 when one failed, 3 when one is
 * undecided and none failed, 2 when they cannot be judged (said why).
 */
int vmprint_series(json_t *const *docs, const char *const *names, size_t n,
    const struct vm_opts *o, int print);
/* The same of a series the runner judged; why, its error's words. */
int vmprint_judged(const struct runner_series *s, const char *why,
    const struct vm_opts *o, int print);
/*
 * The end of a local run that ran the whole matrix: the caveats, the looks,
 * then the series and the gates (on each machine apart when there are more
 * than one), or the one result. The exit status: rc when it is not
 * EXIT_SUCCESS, else the gates'.
 */
int vmprint_end(struct vmrun *r, int rc);
/*
 * --bisect: the runner's bisection, its steps printed as they come and
 * its end; the exit status (0 when the kernel was found).
 */
int vmprint_bisect(struct vmrun *r);

/* vm_plan.c. --plan: the cells in o->plan's form; argv is this invocation's. */
void vmrun_plan_print(const struct vmrun *r, int argc, char **argv);
/*
 * --cell: the indices of the cells named, in idx; -1 naming what this node
 * has when an id is not one of its cells.
 */
int vmrun_select(const struct vmrun *r, size_t *idx, size_t *n);
/*
 * --merge: the series and the gates over a directory of one plan's
 * results, judged as a local run judges its own. The exit status.
 */
int vmrun_merge(struct vmrun *r);

#endif
