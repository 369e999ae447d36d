/*
 * traces.h - what the traces module promises: from a directory to the
 * devices behind it, and probes that observe the I/O those devices receive.
 *
 * A target is resolved once (target_resolve). A probe is opened on it and
 * then told where the phase boundaries are (probe_mark); each mark returns
 * what the devices did since the previous mark, in struct devstats, the same
 * shape whatever the probe. Between marks, probe_tick is called every
 * interval so that an interval probe can record the mean transfer size of
 * each interval.
 *
 *	struct target t;
 *	struct probe *p;
 *	char err[256];
 *
 *	if (target_resolve(dir, &t, err, sizeof(err)) == -1) ...
 *	if ((p = probe_open("auto", &t, interval_ns, err, sizeof(err))) == NULL) ...
 *	probe_mark(p, NULL);			start of a phase
 *	while (busy) probe_tick(p);
 *	probe_mark(p, stats);			end: stats[i] for t.dev[i]
 *	probe_close(p);
 *
 * Functions return 0 or -1 with a message in the caller's buffer; nothing
 * here prints or exits.
 */
#ifndef UBC_TRACES_H
#define UBC_TRACES_H

#include <stddef.h>
#include <stdint.h>

#include "../analysis/devstats.h"

#define TARGET_MAXDEV DEVSTATS_MAXDEV
#define DEVNAME_MAX 32

/* One block device behind a target. */
struct target_dev {
	char name[DEVNAME_MAX];	/* kernel name: "loop0", "sda1", "dm-0" */
	unsigned major, minor;
	/*
	 * "fs": the device the filesystem is mounted from; "member": a device
	 * under it (a dm or md member, or a partition's member disks' own
	 * members). Statistics are kept for every one.
	 */
	const char *role;
};

/* What a directory lives on. */
struct target {
	char path[4096];	/* the directory, as given */
	char mountpoint[4096];
	char fstype[64];
	char options[1024];	/* mount options, then superblock options */
	char source[1024];	/* what mountinfo names as the source */
	unsigned major, minor;	/* st_dev of the directory */
	size_t ndev;		/* 0: no block device (tmpfs, nfs, overlay) */
	struct target_dev dev[TARGET_MAXDEV];
	char nodev_reason[256];	/* why ndev is 0, in words */
};

/*
 * Resolves dir to its filesystem and block devices, reading the running
 * system (/proc/self/mountinfo and sysfs on Linux).
 */
int target_resolve(const char *dir, struct target *t, char *err, size_t errlen);

/*
 * The same from recorded inputs: the text of a mountinfo file, the device
 * number of the directory, and the root of a sysfs tree ("/sys" on a live
 * system, a fixture directory in tests).
 */
int target_resolve_from(const char *dir, unsigned major, unsigned minor,
    const char *mountinfo, const char *sysroot, struct target *t, char *err,
    size_t errlen);

/* "exact": every request; "interval": counters sampled every interval. */
enum probe_resolution { PROBE_NONE, PROBE_INTERVAL, PROBE_EXACT };
const char *probe_resolution_name(enum probe_resolution r);

struct probe;

/* What a probe implementation provides; see diskstats_linux.c. */
struct probe_ops {
	const char *name;
	enum probe_resolution resolution;
	int (*open)(struct probe *p, char *err, size_t errlen);
	int (*tick)(struct probe *p, char *err, size_t errlen);
	int (*mark)(struct probe *p, struct devstats *out, char *err,
	    size_t errlen);
	void (*close)(struct probe *p);
};

struct probe {
	const struct probe_ops *ops;
	const struct target *target;
	int64_t interval_ns;
	void *priv;
	char why[256];		/* why this probe was chosen */
};

/*
 * Opens the probe named by want ("auto", "exact", "interval", "none") on t.
 * "auto" picks the most exact one this system offers and says why in
 * probe->why. A target with no block device gets the "none" probe.
 */
struct probe *probe_open(const char *want, const struct target *t,
    int64_t interval_ns, char *err, size_t errlen);

/* Records one interval sample; cheap, called from the sampling loop. */
int probe_tick(struct probe *p, char *err, size_t errlen);

/*
 * Ends the current phase: fills out[i] (for each of the target's devices)
 * with what happened since the previous mark, and starts the next. out may
 * be NULL to start measuring without reporting.
 */
int probe_mark(struct probe *p, struct devstats *out, char *err,
    size_t errlen);

void probe_close(struct probe *p);

/*
 * The probes this platform builds, most exact first, ending with NULL
 * (probes_linux.c, probes_other.c). The none probe is always there besides.
 */
extern const struct probe_ops *const probe_table[];
extern const struct probe_ops probe_none_ops;

/*
 * Parsers of what the kernel returns, apart from the reading so that each is
 * tested on recorded bytes on any system.
 *
 * diskstats_parse: one line of /sys/block/DEV/stat (11, 15 or 17 fields) or
 * of /proc/diskstats (the same after major, minor and name: 14, 18 or 20
 * fields) into cumulative counters. The histograms are left empty.
 */
int diskstats_parse(const char *line, struct devstats *out, char *err,
    size_t errlen);

/*
 * mountinfo_find: in the text of a mountinfo file, the mount of device
 * major:minor that holds realdir (an absolute path without symlinks); fills
 * t's mountpoint, fstype, options, source and device number.
 */
int mountinfo_find(const char *text, unsigned major, unsigned minor,
    const char *realdir, struct target *t, char *err, size_t errlen);

#endif
