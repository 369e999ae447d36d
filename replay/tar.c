/*
 * tar.c - the tar workload: what `tar xf ARCHIVE` does to a filesystem,
 * through libarchive, with the checks that keep an archive from writing
 * outside the run directory (no "..", no absolute paths, no writing through
 * symlinks, the same for hard link targets), and from leaving anything that
 * reaches past it: no device nodes, no set-id bits (see safe_entry).
 *
 * Data is copied block by block as libarchive decodes it; each block is one
 * write() by the disk writer (we do not ask for sparse handling), so the
 * sizes handed to archive_write_data_block are the application layer's
 * write sizes.
 */
#include <sys/stat.h>

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../model/clock.h"
#include "replay.h"
#include "tar_impl.h"

#define READ_BLOCK (64 * 1024)

/*
 * Whether libarchive's error number is the system's: it reports a format it
 * does not know, or damage, as EILSEQ, which strerror calls a multibyte
 * character; its own message says it better.
 */
static int
system_errno(int e)
{
	return e > 0 && e != EILSEQ;
}

static struct archive *
open_reader(const char *archive, char *err, size_t errlen)
{
	struct archive *a = archive_read_new();

	if (a == NULL) {
		snprintf(err, errlen, "cannot allocate an archive reader");
		return NULL;
	}
	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	if (archive_read_open_filename(a, archive, READ_BLOCK) != ARCHIVE_OK) {
		/* The system's reason reads better than libarchive's. */
		snprintf(err, errlen, "cannot open archive '%s': %s", archive,
		    system_errno(archive_errno(a)) ? strerror(archive_errno(a))
		                                   : archive_error_string(a));
		archive_read_free(a);
		return NULL;
	}
	return a;
}

int
replay_archive_identify(const char *archive, struct replay_archive_info *info,
    char *err, size_t errlen)
{
	struct archive_entry *e;
	struct archive *a;
	struct stat st;
	int r;

	memset(info, 0, sizeof(*info));
	if ((a = open_reader(archive, err, errlen)) == NULL)
		return -1;
	if ((r = archive_read_next_header(a, &e)) != ARCHIVE_OK &&
	    r != ARCHIVE_WARN) {
		snprintf(err, errlen, "archive '%s': %s", archive,
		    r == ARCHIVE_EOF ? "has no entries"
		                     : archive_error_string(a));
		archive_read_free(a);
		return -1;
	}
	snprintf(info->format, sizeof(info->format), "%s",
	    archive_format_name(a) ? archive_format_name(a) : "unknown");
	snprintf(info->filter, sizeof(info->filter), "%s",
	    archive_filter_name(a, 0) ? archive_filter_name(a, 0) : "none");
	if (stat(archive, &st) == 0)
		info->size_bytes = st.st_size;
	archive_read_free(a);
	return 0;
}

/*
 * The progress line: how far into the archive file we have read, which is
 * known without reading the archive twice.
 */
static void
progress(const struct replay_tar_job *job, struct archive *a,
    const struct replay_report *rep, int64_t *last, int done)
{
	int64_t now = clock_now_ns(), size = job->info->size_bytes;
	la_int64_t pos = archive_filter_bytes(a, -1);

	if (!job->progress || (!done && now - *last < 250000000))
		return;
	*last = now;
	if (done) {
		fprintf(stderr, "\r\033[K");
		return;
	}
	fprintf(stderr,
	    "\r\033[Krun %d: extracting, %3.0f%% of the archive, "
	    "%llu entries, %.1f MB",
	    job->run, size > 0 ? 100.0 * (double)pos / (double)size : 0.0,
	    (unsigned long long)rep->entries, (double)rep->bytes / 1e6);
}

static int
fsync_path(const char *path, char *err, size_t errlen)
{
	int fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1 ||
	    fsync(fd) == -1) {
		snprintf(err, errlen, "cannot fsync '%s': %s", path,
		    strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * libarchive's message, with the system's reason when it left it out
 * ("Can't create 'x'": read-only? no permission?), or a reason when it gave
 * none (a short cpio body).
 */
static const char *
why(struct archive *a)
{
	static char buf[640];
	const char *msg = archive_error_string(a);
	const char *sys =
	    system_errno(archive_errno(a)) ? strerror(archive_errno(a)) : NULL;

	if (msg == NULL)
		return sys != NULL ? sys
		                   : "the data ends early or cannot be read";
	if (sys == NULL || strstr(msg, sys) != NULL)
		return msg;
	snprintf(buf, sizeof(buf), "%s: %s", msg, sys);
	return buf;
}

/*
 * What an archive may not make, even when we run as root, decided as bsdtar
 * decides for an unprivileged user (who cannot do otherwise): a device node
 * in the run directory would open the disk or memory it names past every
 * permission on them, so the entry is refused; a set-user-id or set-group-id
 * file left by --keep would run as its owner (root's, as we restore owners),
 * so the bits are dropped, which changes no I/O. A set-group-id directory
 * only passes its group on and keeps the bit. FIFOs are made, as bsdtar
 * makes them: they reach nothing. Returns NULL, or why the entry is refused.
 */
static const char *
safe_entry(struct archive_entry *e)
{
	mode_t perm = archive_entry_perm(e);

	switch (archive_entry_filetype(e)) {
	case AE_IFCHR:
		return "a character device (ubcreplay makes no device nodes)";
	case AE_IFBLK:
		return "a block device (ubcreplay makes no device nodes)";
	case AE_IFDIR:
		perm &= ~(mode_t)S_ISUID;
		break;
	default:
		perm &= ~(mode_t)(S_ISUID | S_ISGID);
		break;
	}
	archive_entry_set_perm(e, perm);
	return NULL;
}

/*
 * Control characters in the message (names are the archive's, and so are
 * some of libarchive's messages that quote them) become octal escapes, as
 * bsdtar prints them: a name must not move the cursor, retitle or clear the
 * terminal of whoever reads the error. Other bytes, UTF-8 included, stay.
 */
static void
printable(struct replay_report *rep)
{
	char out[sizeof(rep->error)];
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)rep->error;
	     *p != '\0' && o + 5 < sizeof(out); p++) {
		if (*p < 0x20 || *p == 0x7f)
			o += (size_t)snprintf(
			    out + o, sizeof(out) - o, "\\%03o", *p);
		else
			out[o++] = (char)*p;
	}
	out[o] = '\0';
	memcpy(rep->error, out, o + 1);
}

/*
 * A name as a message shows it: whole, or, past 400 bytes, its start and
 * its length, so that what is said of it still fits after it.
 */
static void
shown(const char *name, char *buf, size_t len)
{
	size_t n = name != NULL ? strlen(name) : 0;

	if (name == NULL)
		snprintf(buf, len, "?");
	else if (n <= 400)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%.120s... (%zu bytes)", name, n);
}

/* "'name'", or "'name' (a hard link to 'target')": what the message names. */
static void
entry_name(struct archive_entry *e, char *buf, size_t len)
{
	const char *link = archive_entry_hardlink(e);
	char name[420], target[420];

	shown(archive_entry_pathname(e), name, sizeof(name));
	if (link != NULL) {
		shown(link, target, sizeof(target));
		snprintf(buf, len, "'%s' (a hard link to '%s')", name, target);
	} else
		snprintf(buf, len, "'%s'", name);
}

static int
copy_data(const char *archive, struct archive *a, const struct tar_sink *k,
    struct archive_entry *e, struct replay_report *rep)
{
	char why_not[640];
	const void *buf;
	size_t size;
	la_int64_t off;
	int r;

	while (
	    (r = archive_read_data_block(a, &buf, &size, &off)) == ARCHIVE_OK) {
		if (k->data(k->ctx, buf, size, off, why_not, sizeof(why_not)) ==
		    -1) {
			snprintf(rep->error, sizeof(rep->error),
			    "cannot write '%s': %s", archive_entry_pathname(e),
			    why_not);
			return -1;
		}
		rep->app_ops++;
		rep->app_bytes += size;
		hist_add(&rep->app_size, size, 1);
		rep->bytes += size;
	}
	if (r != ARCHIVE_EOF) {
		snprintf(rep->error, sizeof(rep->error),
		    "archive '%s' is corrupt in entry '%s': %s", archive,
		    archive_entry_pathname(e), why(a));
		return -1;
	}
	return 0;
}

void
replay_tar_into(const struct replay_tar_job *job, const struct tar_sink *k,
    struct replay_report *rep)
{
	struct archive_entry *e;
	struct archive *a;
	char why_not[640];
	int64_t last = 0;
	int r;

	rep->failed = 1;
	if ((a = open_reader(job->archive, rep->error, sizeof(rep->error))) ==
	    NULL)
		return;
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK ||
	    r == ARCHIVE_WARN) {
		const char *bad;
		char what[1024];

		entry_name(e, what, sizeof(what));
		if ((bad = safe_entry(e)) != NULL) {
			snprintf(rep->error, sizeof(rep->error),
			    "archive '%s': refused entry %s: %s", job->archive,
			    what, bad);
			goto out;
		}
		if (k->header(k->ctx, e, why_not, sizeof(why_not)) == -1) {
			snprintf(rep->error, sizeof(rep->error),
			    "archive '%s': refused entry %s: %s", job->archive,
			    what, why_not);
			goto out;
		}
		if (archive_entry_size(e) > 0 &&
		    copy_data(job->archive, a, k, e, rep) == -1)
			goto out;
		if (k->finish(k->ctx, e, job->fsync == FSYNC_FILE, why_not,
		        sizeof(why_not)) == -1) {
			snprintf(rep->error, sizeof(rep->error),
			    "cannot finish %s: %s", what, why_not);
			goto out;
		}
		rep->entries++;
		progress(job, a, rep, &last, 0);
	}
	if (r != ARCHIVE_EOF) {
		snprintf(rep->error, sizeof(rep->error),
		    "archive '%s' is corrupt after %llu entries: %s",
		    job->archive, (unsigned long long)rep->entries, why(a));
		goto out;
	}
	if (k->close(k->ctx, why_not, sizeof(why_not)) == -1) {
		snprintf(rep->error, sizeof(rep->error), "archive '%s': %s",
		    job->archive, why_not);
		goto out;
	}
	rep->failed = 0;
out:
	printable(rep);
	progress(job, a, rep, &last, 1);
	archive_read_free(a);
}

/*
 * The host's sink: libarchive's disk writer with the secure flags. Each
 * data block is one write() (we do not ask for sparse handling), so the
 * sizes handed to archive_write_data_block are the application layer's
 * write sizes.
 */
static int
disk_header(void *ctx, struct archive_entry *e, char *err, size_t errlen)
{
	if (archive_write_header(ctx, e) < ARCHIVE_WARN) {
		snprintf(err, errlen, "%s", why(ctx));
		return -1;
	}
	return 0;
}

static int
disk_data(void *ctx, const void *buf, size_t size, int64_t off, char *err,
    size_t errlen)
{
	/*
	 * A failed write() (ENOSPC, EIO, EROFS) is only ARCHIVE_WARN here:
	 * anything but OK is data that did not reach the file.
	 */
	if (archive_write_data_block(ctx, buf, size, off) != ARCHIVE_OK) {
		snprintf(err, errlen, "%s", why(ctx));
		return -1;
	}
	return 0;
}

static int
disk_finish(
    void *ctx, struct archive_entry *e, int sync, char *err, size_t errlen)
{
	if (archive_write_finish_entry(ctx) < ARCHIVE_WARN) {
		snprintf(err, errlen, "%s", why(ctx));
		return -1;
	}
	if (sync && archive_entry_filetype(e) == AE_IFREG)
		return fsync_path(archive_entry_pathname(e), err, errlen);
	return 0;
}

static int
disk_close(void *ctx, char *err, size_t errlen)
{
	(void)ctx, (void)err, (void)errlen;
	return 0;
}

void
replay_tar_extract(void *arg, struct replay_report *rep)
{
	const struct replay_tar_job *job = arg;
	int flags = ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_PERM |
	    ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SECURE_NODOTDOT |
	    ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS;
	struct tar_sink k = {.header = disk_header,
	    .data = disk_data,
	    .finish = disk_finish,
	    .close = disk_close};
	struct archive *w;

	if (chdir(job->rundir) == -1) {
		rep->failed = 1;
		snprintf(rep->error, sizeof(rep->error),
		    "cannot enter '%s': %s", job->rundir, strerror(errno));
		return;
	}
	/* As root, keep owners as tar does; otherwise they are ours. */
	if (geteuid() == 0)
		flags |= ARCHIVE_EXTRACT_OWNER;
	w = archive_write_disk_new();
	archive_write_disk_set_options(w, flags);
	archive_write_disk_set_standard_lookup(w);
	k.ctx = w;
	replay_tar_into(job, &k, rep);
	archive_write_free(w);
}
