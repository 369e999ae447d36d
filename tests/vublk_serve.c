/*
 * vublk_serve.c - runs a UML guest with the virtio disk of vm/vdisk.h
 * (vm/vublk.c on vm/uml_sched.c's clock), for contrib/uml-run.sh -V and
 * tests/uml_test.sh: the sockets go to DIR, the guest's command line is
 * the caller's (it names DIR/time.sock and DIR/vublk.sock). Prints what
 * the disk did on stderr; exits with the guest's status, or 2 when the
 * disk or its clock failed.
 *
 *	vublk_serve -i disk.img -m disk.model -d DIR -- linux mem=512M \
 *	    time-travel=ext:DIR/time.sock virtio_uml.device=DIR/vublk.sock:2 ...
 *
 * With -c it only prints the guest's command-line word for the model's
 * CPU (uml_cpu=... and uml_bio_yield, or nothing), as vm passes them,
 * and exits; with -s, the nanoseconds the guest idles before its mount
 * (settle_ns), as vm's init does.
 */
#include <sys/wait.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../vm/vdisk.h"

static void
usage(void)
{
	fprintf(stderr,
	    "usage: vublk_serve -i image [-m model] -d dir -- command ...\n"
	    "       vublk_serve -c | -s [-m model]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	struct vdisk_conf c = {0};
	struct vublk_stats st = {0};
	const char *model = NULL;
	char err[512], cpu[96];
	int opt, status = 0, cpu_only = 0, settle_only = 0;

	while ((opt = getopt(argc, argv, "ci:m:d:s")) != -1) {
		switch (opt) {
		case 'c':
			cpu_only = 1;
			break;
		case 's':
			settle_only = 1;
			break;
		case 'i':
			c.image = optarg;
			break;
		case 'm':
			model = optarg;
			break;
		case 'd':
			c.dir = optarg;
			break;
		default:
			usage();
		}
	}
	if (cpu_only && settle_only)
		usage();
	if (!cpu_only && !settle_only &&
	    (c.image == NULL || c.dir == NULL || optind >= argc))
		usage();
	if (model == NULL)
		vdisk_model_default(&c.model);
	else if (vdisk_model_read(model, &c.model, err, sizeof(err)) == -1) {
		fprintf(stderr, "vublk_serve: %s\n", err);
		return 2;
	}
	if (cpu_only) {
		vdisk_model_cpu_arg(&c.model, cpu, sizeof(cpu));
		printf("%s\n", cpu);
		return 0;
	}
	if (settle_only) {
		printf("%" PRId64 "\n", c.model.settle_ns);
		return 0;
	}
	if (vdisk_serve(&c, argv + optind, &status, &st, err, sizeof(err)) ==
	    -1) {
		fprintf(stderr, "vublk_serve: %s\n", err);
		return 2;
	}
	fprintf(stderr,
	    "vublk_serve: reads %" PRIu64 " (%" PRIu64
	    " bytes), writes %" PRIu64 " (%" PRIu64 " bytes), flushes %" PRIu64
	    ", other %" PRIu64 ", last completion at %" PRId64 " ns\n",
	    st.reads, st.read_bytes, st.writes, st.write_bytes, st.flushes,
	    st.other, st.last_done_ns);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	fprintf(stderr, "vublk_serve: the guest was killed by signal %d\n",
	    WTERMSIG(status));
	return 2;
}
