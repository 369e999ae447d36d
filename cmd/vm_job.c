/*
 * vm_job.c - the job each cell of `ubcreplay vm` runs in its guest, as
 * words for the guest's command line: a job after -- (the main job, dd,
 * sweep, matrix or nfs) with -o where it takes it, or the main job on
 * the archive, on the guest's disk or its NFS mount; and what -t nfs
 * makes of -O and the disk.
 */
#include <err.h>
#include <stdio.h>
#include <string.h>

#include "vm_run.h"

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
int
vmjob_args(struct vm_opts *o, int argc, char **argv)
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
int
vmjob_nfs(struct vm_opts *o)
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
 * The main job on the archive, in each cell: on the guest's disk, or on
 * its NFS mount, with the result where the host reads it.
 */
void
vmjob_main(struct vm_opts *o)
{
	snprintf(o->runs_arg, 16, "%d", o->runs);
	o->job[0] = (char *)o->archive;
	o->job[1] = VM_GUEST_DISK;
	o->job[2] = "-n";
	o->job[3] = o->runs_arg;
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
}
