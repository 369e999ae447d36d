/*
 * wtrace.h - the workload trace: the file-system operations a command made
 * under a directory (`ubcreplay record`), in the order they were seen, as a
 * replay needs them (docs/workload-trace.md is the format's definition).
 * Data is never in it: only which file, where, how much was asked and how
 * much was done, and the flags that change what the kernel does.
 *
 * A trace is written whole or not at all (outfile.h: a name ending in .gz
 * is gzip-compressed), and read back whole through the bounds-checked
 * cursor (traces/cursor.h's idea, here in model/ as its own small reader):
 * every record is checked before it is handed out, so that a replay never
 * sees a path that is absolute, has "..", or an empty component, a handle
 * that was never opened, or a size beyond WTRACE_MAX_IO.
 *
 *	struct wtrace_writer w;
 *	wtrace_create(&w, "work.trace.gz", err, sizeof(err));
 *	wtrace_put(&w, &rec);	...
 *	wtrace_commit(&w, err, sizeof(err));	or wtrace_abort(&w)
 *
 *	struct wtrace t;
 *	wtrace_load("work.trace.gz", &t, err, sizeof(err));
 *	while ((r = wtrace_next(&t, &rec, err, sizeof(err))) == 1) ...
 *	wtrace_free(&t);
 */
#ifndef UBC_WTRACE_H
#define UBC_WTRACE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "outfile.h"

#define WTRACE_MAGIC       "ubcwtrc\n"
#define WTRACE_MAGIC_LEN   8
#define WTRACE_VERSION     1
#define WTRACE_MAX_PATH    1024         /* bytes of a path in the trace */
#define WTRACE_MAX_IO      (1ULL << 30) /* bytes one operation may ask */
#define WTRACE_MAX_OFFSET  (1ULL << 44) /* 16 TiB: an offset's bound */
#define WTRACE_MAX_THREADS 65536
#define WTRACE_MAX_BYTES   (1ULL << 30) /* a trace, once inflated */

enum wtrace_op {
	WT_END = 0,   /* the last record: asked is the count before it */
	WT_OPEN,      /* path, flags (WT_O_*), h (0 if it failed), done */
	WT_CLOSE,     /* h: the last descriptor on it was closed */
	WT_READ,      /* h, off, asked, done; flags WT_AT_OFFSET, WT_APPEND */
	WT_WRITE,     /* the same */
	WT_FSYNC,     /* h */
	WT_FDATASYNC, /* h */
	WT_SYNC_FILE_RANGE, /* h, off, asked (nbytes), flags (the call's) */
	WT_FALLOCATE,       /* h, off, asked (len), flags (the mode) */
	WT_FTRUNCATE,       /* h, off (the length) */
	WT_TRUNCATE,        /* path, off (the length) */
	WT_RENAME,          /* path to path2, flags (renameat2's) */
	WT_LINK,            /* path (existing) to path2 (new) */
	WT_SYMLINK,    /* path (the link), path2 (what it holds, verbatim) */
	WT_UNLINK,     /* path */
	WT_MKDIR,      /* path */
	WT_RMDIR,      /* path */
	WT_MMAP,       /* h, off, asked (len): a shared writable mapping */
	WT_COPY_RANGE, /* h to h2, off, off2, asked, done */
	WT_SYNC,       /* sync(2) */
	WT_SYNCFS,     /* h */
	WT_SETATTR,    /* h, or path: flags WT_ATTR_* (chmod, chown, utimes) */
	WT_NOPS
};

/* Open flags, the kernel's ones that change what it does, portably. */
#define WT_O_READ      0x001
#define WT_O_WRITE     0x002
#define WT_O_CREAT     0x004
#define WT_O_EXCL      0x008
#define WT_O_TRUNC     0x010
#define WT_O_APPEND    0x020
#define WT_O_DIRECT    0x040
#define WT_O_SYNC      0x080
#define WT_O_DSYNC     0x100
#define WT_O_DIRECTORY 0x200
#define WT_O_ALL       0x3ff

/* What a setattr changed: each dirties the inode, whatever the value. */
#define WT_ATTR_MODE  0x1
#define WT_ATTR_OWNER 0x2
#define WT_ATTR_TIMES 0x4

/* Read and write flags. */
#define WT_AT_OFFSET 0x1 /* pread/pwrite: the offset was given */
#define WT_APPEND    0x2 /* written at the end (O_APPEND): off unknown */

struct wtrace_rec {
	uint8_t op;      /* enum wtrace_op */
	uint32_t thread; /* from 0, in order of first appearance */
	int64_t t_ns;    /* since the recording began, never decreasing */
	uint64_t h, h2;  /* handles: the n-th successful open is n */
	uint64_t flags;
	uint64_t off, off2, asked;
	int64_t done; /* the result; a negative errno when it failed */
	char path[WTRACE_MAX_PATH];  /* relative to the directory */
	char path2[WTRACE_MAX_PATH]; /* rename's, link's target; symlink's */
};

struct wtrace_writer {
	struct outfile of;
	int64_t last_ns;
	uint64_t nrec;
	uint64_t nopen;
};

int wtrace_create(
    struct wtrace_writer *w, const char *path, char *err, size_t errlen);
/* Appends r; handles of WT_OPEN are numbered here (r->h is set). */
int wtrace_put(struct wtrace_writer *w, struct wtrace_rec *r);
/* Writes the end record, then the file whole (outfile_commit). */
int wtrace_commit(struct wtrace_writer *w, char *err, size_t errlen);
void wtrace_abort(struct wtrace_writer *w);

struct wtrace {
	uint8_t *buf; /* the whole trace, inflated */
	size_t len;
	size_t pos; /* of the next record */
	char name[PATH_MAX];
	uint64_t nrec, nopen, nthread;
	int64_t last_ns;
	int ended;
};

/* Whether the file at path starts as a trace (plain or gzip'd). */
int wtrace_is(const char *path);

/* Reads the trace at path whole and checks its header. */
int wtrace_load(const char *path, struct wtrace *t, char *err, size_t errlen);
/* The same on bytes in memory (copied). */
int wtrace_load_mem(const void *p, size_t len, const char *name,
    struct wtrace *t, char *err, size_t errlen);
/*
 * The next record: 1, or 0 after the end record, or -1 with err naming the
 * trace, the record's number and what was wrong with it.
 */
int wtrace_next(
    struct wtrace *t, struct wtrace_rec *r, char *err, size_t errlen);
/*
 * Where the record wtrace_next gives next is, and the reader's state
 * there. wtrace_read_at reads the record at such a place again, checked
 * as wtrace_next checked it, without moving t: for readers that take the
 * records out of order, from several threads at once (the replay).
 */
struct wtrace_place {
	size_t pos;
	uint64_t nrec, nopen, nthread; /* before it */
	int64_t last_ns;
};
void wtrace_tell(const struct wtrace *t, struct wtrace_place *p);
int wtrace_read_at(const struct wtrace *t, const struct wtrace_place *p,
    struct wtrace_rec *r, char *err, size_t errlen);
/* Back to the first record. */
void wtrace_rewind(struct wtrace *t);
void wtrace_free(struct wtrace *t);

/* The operation's name, as docs/workload-trace.md and messages call it. */
const char *wtrace_op_name(unsigned op);

/* Whether a path is one a trace may hold (relative, no "..", no "//"). */
int wtrace_path_ok(const char *p);

#endif
