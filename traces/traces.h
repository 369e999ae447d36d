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
 *	p = probe_open("auto", &t, interval_ns, err, sizeof(err));
 *	if (p == NULL) ...
 *	probe_mark(p, NULL, err, sizeof(err));	start of a phase
 *	while (busy)
 *		probe_tick(p, err, sizeof(err));
 *	probe_mark(p, stats, err, sizeof(err));	end: stats[i] for t.dev[i]
 *	probe_close(p);
 *
 * Functions return 0 or -1 with a message in the caller's buffer; nothing
 * here prints or exits.
 */
#ifndef UBC_TRACES_H
#define UBC_TRACES_H

#include <stddef.h>
#include <stdint.h>

#include "../model/blkev.h"
#include "../model/devstats.h"

#define TARGET_MAXDEV DEVSTATS_MAXDEV
#define DEVNAME_MAX   32

/* One block device behind a target. */
struct target_dev {
	char name[DEVNAME_MAX]; /* kernel name: "loop0", "sda1", "dm-0" */
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
	char path[4096]; /* the directory, as given */
	char mountpoint[4096];
	char fstype[64];
	char options[1024];    /* mount options, then superblock options */
	char source[1024];     /* what mountinfo names as the source */
	unsigned major, minor; /* st_dev of the directory */
	size_t ndev;           /* 0: no block device (tmpfs, nfs, overlay) */
	struct target_dev dev[TARGET_MAXDEV];
	char nodev_reason[256]; /* why ndev is 0, in words */
};

/*
 * Resolves dir to its filesystem and block devices, reading the running
 * system (/proc/self/mountinfo and sysfs on Linux).
 */
int target_resolve(const char *dir, struct target *t, char *err, size_t errlen);

/*
 * Adds the block device node names to t's devices, with role "watched": a
 * disk that the target's filesystem reaches only through another layer,
 * such as the disk an NFS server in the same kernel exports. Statistics
 * are kept for it like for any other device of the target.
 */
int target_watch_dev(
    struct target *t, const char *node, char *err, size_t errlen);

/* Whether opt is one of t's mount options (t->options). */
int target_has_option(const struct target *t, const char *opt);

/*
 * Before the first run: does now what the filesystems on t's devices would
 * otherwise do by themselves soon after their mount, so that it does not
 * fall in a run. On Linux, loads ext4's block bitmaps, unless the target is
 * mounted no_prefetch_block_bitmaps. 0 also when there is nothing to do.
 */
int target_settle(const struct target *t, char *err, size_t errlen);

/*
 * Resolves what a dd operand names: a block device node to that device (and
 * its members; fstype "block device"), a character device or pipe to no
 * device, a file to its filesystem as target_resolve does, and a file that
 * does not exist yet to the filesystem of its directory.
 */
int target_resolve_node(
    const char *path, struct target *t, char *err, size_t errlen);

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
	int (*mark)(
	    struct probe *p, struct devstats *out, char *err, size_t errlen);
	void (*close)(struct probe *p);
	/*
	 * Exact probes only (NULL elsewhere): keep every record from now on,
	 * and hand them over (for --trace-out).
	 */
	int (*keep)(struct probe *p, char *err, size_t errlen);
	int (*trace_write)(struct probe *p, const char *path,
	    const char *result, char *err, size_t errlen);
	/* Exact probes only (NULL elsewhere): the accumulator they feed. */
	struct blkev_acc *(*acc)(struct probe *p);
};

struct probe {
	const struct probe_ops *ops;
	const struct target *target;
	int64_t interval_ns;
	void *priv;
	char why[256]; /* why this probe was chosen */
	/*
	 * What the next mark ends, for the records of a trace (--trace-out):
	 * "between", or "run N PHASE". Set with probe_label; each mark takes
	 * it and clears it.
	 */
	char label[64];
};

/*
 * Opens the probe named by want ("auto", "exact", "interval", "none") on t.
 * "auto" picks the most exact one this system offers and says why in
 * probe->why. A target with no block device gets the "none" probe.
 */
struct probe *probe_open(const char *want, const struct target *t,
    int64_t interval_ns, char *err, size_t errlen);

/*
 * The same from a table of probes (ending with NULL), most exact first;
 * where says where they are ("on this system") in the error. Each probe's
 * open finds arg in p->priv (and replaces it with its own state).
 */
struct probe *probe_open_from(const struct probe_ops *const *table,
    const char *where, const char *want, const struct target *t,
    int64_t interval_ns, void *arg, char *err, size_t errlen);

/* Records one interval sample; cheap, called from the sampling loop. */
int probe_tick(struct probe *p, char *err, size_t errlen);

/*
 * Ends the current phase: fills out[i] (for each of the target's devices)
 * with what happened since the previous mark, and starts the next. out may
 * be NULL to start measuring without reporting.
 */
int probe_mark(struct probe *p, struct devstats *out, char *err, size_t errlen);

void probe_close(struct probe *p);

/* Names what the next probe_mark ends (see struct probe's label). */
void probe_label(struct probe *p, const char *label);

/*
 * --trace-out. An exact probe keeps the stream of records its statistics
 * are made from (struct blkev: events, lost counts, the kernel's counters,
 * marks) when asked before the first mark; -1 with a reason when this probe
 * cannot. After the run, probe_trace_write saves them with the target's
 * devices and the result document (JSON text, may be NULL) to path, in the
 * format of docs/trace-format.md, through a temporary file and a rename.
 */
int probe_keep_records(struct probe *p, char *err, size_t errlen);
int probe_trace_write(struct probe *p, const char *path, const char *result,
    char *err, size_t errlen);

/*
 * Attribution (model/layout.h). An exact probe keeps each issued data
 * request's place when asked (-1 with a reason when this probe cannot);
 * after each mark, probe_take_xfers hands over those the target's device i
 * was sent in the phase the mark ended (the caller frees out->x).
 */
int probe_keep_xfers(struct probe *p, char *err, size_t errlen);
void probe_take_xfers(struct probe *p, size_t i, struct blkev_xfers *out);

/*
 * What the blocks of t's filesystem hold now, into l (model/layout.h;
 * layout_init'd here): read from the mounted filesystem, after a sync, on
 * ext2/3/4 and xfs (layout_linux.c). -1 with the reason where this
 * filesystem or system cannot say (btrfs, tmpfs, no GETFSMAP); l is then
 * empty.
 */
struct layout;
int layout_read_dir(
    const struct target *t, struct layout *l, char *err, size_t errlen);

/*
 * A trace file read back: the devices, the records in order, the labels of
 * the marks (a mark's nr_sector indexes labels), and the result document
 * the run produced (NULL when the file has none).
 */
struct tracefile {
	size_t ndev;
	struct target_dev dev[TARGET_MAXDEV];
	char devname[TARGET_MAXDEV][DEVNAME_MAX];
	char devrole[TARGET_MAXDEV][16];
	struct blkev *rec;
	size_t nrec;
	char (*label)[64];
	size_t nlabel;
	char *result;
};

/* The first line of every trace file. */
#define TRACEFILE_MAGIC "ubcreplay-trace 1"

int tracefile_write(const char *path, const struct target *t,
    const struct blkev *rec, size_t nrec, const char (*label)[64],
    size_t nlabel, const char *result, char *err, size_t errlen);
/* Reads path; the error names the file and the line. */
int tracefile_read(
    const char *path, struct tracefile *tf, char *err, size_t errlen);
/*
 * 1 when the file at path starts as a trace file, 0 when it is something
 * else, -1 when it cannot be opened or read (a cut .gz), saying why in err.
 */
int tracefile_is(const char *path, char *err, size_t errlen);
void tracefile_free(struct tracefile *tf);

/*
 * The probes of an FFS image in a NetBSD rump kernel (probe_rump.c),
 * which read what the kernel shares (model/rumpshm.h): "exact" takes every
 * transfer the kernel sent the image (its rumpuser_bio hypercall), with
 * the kernel's own hw.iostats counters beside it as the Linux exact probe
 * has diskstats; "interval" samples hw.iostats every interval, as NetBSD's
 * iostat(8) does. The target's one device is PROBE_NETBSD_DEV.
 */
#define PROBE_NETBSD_DEV   "rumpblk0"
#define PROBE_NETBSD_MAJOR 197 /* rumpblk's major in the rump kernel */
struct rumpshm;
struct probe *probe_open_netbsd(const char *want, const struct target *t,
    struct rumpshm *shm, int64_t interval_ns, char *err, size_t errlen);

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
int diskstats_parse(
    const char *line, struct devstats *out, char *err, size_t errlen);

/*
 * iostat_netbsd_parse: the raw bytes of NetBSD's sysctl hw.iostats (an
 * array of struct io_sysctl) into the cumulative counters of the disk
 * named name (NULL: the one disk listed; -1 when there are several):
 * transfers and bytes per direction, and the time busy.
 */
int iostat_netbsd_parse(const void *buf, size_t len, const char *name,
    struct devstats *out, char *err, size_t errlen);

/*
 * mountinfo_find: in the text of a mountinfo file, the mount of device
 * major:minor that holds realdir (an absolute path without symlinks); fills
 * t's mountpoint, fstype, options, source and device number.
 */
int mountinfo_find(const char *text, unsigned major, unsigned minor,
    const char *realdir, struct target *t, char *err, size_t errlen);

/*
 * tracefs: what the kernel's tracing file system publishes, parsed apart from
 * the reading (tracefs.c) so that the exact probe's decoding is tested on
 * recorded bytes.
 *
 * tracefs_format_parse: an event's `format` file (events/SYS/NAME/format)
 * into its name, id and fields. Fields are always looked up by name, never
 * by a remembered offset: the kernel may lay them out in another order.
 */
#define TRACEFS_MAXFIELD 32
#define TRACEFS_NAMEMAX  64

struct tracefs_field {
	char name[TRACEFS_NAMEMAX];
	unsigned offset, size;
	int is_signed;
	/*
	 * A __data_loc field is 32 bits in the record: the low 16 the offset
	 * of the data from the start of the record, the high 16 its length.
	 */
	int data_loc;
	int is_string; /* char name[N]: text up to a NUL or N bytes */
};

struct tracefs_format {
	char name[TRACEFS_NAMEMAX];
	unsigned id;
	size_t nfield;
	struct tracefs_field field[TRACEFS_MAXFIELD];
};

int tracefs_format_parse(
    const char *text, struct tracefs_format *f, char *err, size_t errlen);
/* The field called name, or NULL. */
const struct tracefs_field *tracefs_field_find(
    const struct tracefs_format *f, const char *name);

/*
 * Reading a field of one record (the payload of a ring-buffer event, which
 * starts with common_type). Each checks that the field lies inside the record
 * and returns -1 if not. tracefs_field_u64 reads an integer field of size 1,
 * 2, 4 or 8, sign-extending a signed one; tracefs_field_str copies a char[N]
 * or __data_loc string, always NUL-terminated (the kernel's char arrays may
 * hold garbage after the NUL: it stops there).
 */
int tracefs_field_u64(const struct tracefs_field *fd, const unsigned char *rec,
    size_t len, int big_endian, uint64_t *out);
int tracefs_field_str(const struct tracefs_field *fd, const unsigned char *rec,
    size_t len, int big_endian, char *out, size_t outlen);

/*
 * The layout of one ring-buffer page as events/header_page describes it: a
 * time stamp, a commit word (the bytes of events on the page, and in its top
 * bits whether events were lost before it), then the events.
 */
struct tracefs_page_layout {
	unsigned ts_offset, ts_size;
	unsigned commit_offset, commit_size;
	unsigned data_offset;
	size_t page_bytes; /* data_offset + the data's size */
	int big_endian;
};

int tracefs_header_page_parse(
    const char *text, struct tracefs_page_layout *l, char *err, size_t errlen);

/* What one page held besides its events. */
struct tracefs_page_info {
	uint64_t ts;       /* the page's time stamp */
	size_t data_bytes; /* from the commit word */
	int missed;        /* events were lost before this page */
	uint64_t
	    missed_events;     /* how many, when the kernel stored it; else 0 */
	uint64_t events;       /* data events passed to the callback */
	uint64_t padding;      /* discarded events and padding skipped */
	uint64_t time_extends; /* extended time deltas */
	uint64_t time_stamps;  /* absolute time stamps */
};

/*
 * Called once per data event with its time stamp (the page's plus the deltas
 * so far) and its payload. Returning -1 stops the parse, which then returns
 * -1 with err left as the callback set it.
 */
typedef int (*tracefs_event_fn)(void *ctx, uint64_t ts,
    const unsigned char *rec, size_t len, char *err, size_t errlen);

/*
 * Walks one page read from per_cpu/cpuN/trace_pipe_raw (len may be less than
 * a full page: a read returns what is there). A page that claims more than
 * it holds, or an event that runs past the commit, is malformed: -1.
 */
int tracefs_page_parse(const struct tracefs_page_layout *l,
    const unsigned char *page, size_t len, tracefs_event_fn fn, void *ctx,
    struct tracefs_page_info *info, char *err, size_t errlen);

/* per_cpu/cpuN/stats, the counters that say whether events were lost. */
struct tracefs_cpu_stats {
	uint64_t entries; /* events in the buffer now */
	uint64_t overrun; /* overwritten before they were read */
	uint64_t commit_overrun;
	uint64_t bytes;   /* bytes of unread events */
	uint64_t dropped; /* refused because the buffer was full */
	uint64_t read;    /* events read so far */
};

int tracefs_stats_parse(
    const char *text, struct tracefs_cpu_stats *s, char *err, size_t errlen);

/*
 * The four block events the exact probe enables, decoded into struct blkev
 * through their formats: the fields are found by name in each event's own
 * format, whatever their order or offsets. block_split has no nr_sector but
 * new_sector, the start of the rest: the front part's length is the
 * difference.
 */
enum {
	TRACEFS_BIO_QUEUE,
	TRACEFS_RQ_ISSUE,
	TRACEFS_RQ_COMPLETE,
	TRACEFS_SPLIT,
	TRACEFS_NBLOCK
};
extern const char *const tracefs_block_events[TRACEFS_NBLOCK];

struct tracefs_block {
	struct tracefs_format fmt[TRACEFS_NBLOCK];
	/* For each event, the fields it is read through (NULL when absent). */
	struct {
		const struct tracefs_field *type, *dev, *sector, *nr_sector,
		    *new_sector, *bytes, *error, *rwbs;
	} f[TRACEFS_NBLOCK];
	int big_endian;
};

/*
 * formats[i]: the text of the format file of tracefs_block_events[i]. The
 * struct must not be copied after this (it points into itself).
 */
int tracefs_block_init(struct tracefs_block *b,
    const char *const formats[TRACEFS_NBLOCK], int big_endian, char *err,
    size_t errlen);
/*
 * One record of the ring buffer: 1 and *ev filled when it is one of the
 * four events, 0 when it is another event, -1 when it is too short for its
 * fields or its rwbs is not one.
 */
int tracefs_block_decode(const struct tracefs_block *b, uint64_t ts,
    const unsigned char *rec, size_t len, struct blkev *ev, char *err,
    size_t errlen);

#endif
