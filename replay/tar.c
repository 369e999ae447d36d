/*
 * tar.c - the tar workload: what `tar xf ARCHIVE` does to a filesystem,
 * through libarchive, with the checks that keep an archive from writing
 * outside the run directory (no "..", no absolute paths, no writing through
 * symlinks).
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

#include "replay.h"

#define READ_BLOCK (64 * 1024)

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
		    archive_errno(a) > 0 ? strerror(archive_errno(a))
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
	int64_t now = replay_now_ns(), size = job->info->size_bytes;
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
fsync_path(const char *path, struct replay_report *rep)
{
	int fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1 ||
	    fsync(fd) == -1) {
		snprintf(rep->error, sizeof(rep->error),
		    "cannot fsync '%s': %s", path, strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int
copy_data(const char *archive, struct archive *a, struct archive *w,
    struct archive_entry *e, struct replay_report *rep)
{
	const void *buf;
	size_t size;
	la_int64_t off;
	int r;

	while (
	    (r = archive_read_data_block(a, &buf, &size, &off)) == ARCHIVE_OK) {
		if (archive_write_data_block(w, buf, size, off) <
		    ARCHIVE_WARN) {
			snprintf(rep->error, sizeof(rep->error),
			    "cannot write '%s': %s", archive_entry_pathname(e),
			    archive_error_string(w));
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
		    archive_entry_pathname(e), archive_error_string(a));
		return -1;
	}
	return 0;
}

void
replay_tar_extract(void *arg, struct replay_report *rep)
{
	const struct replay_tar_job *job = arg;
	int flags = ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_PERM |
	    ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SECURE_NODOTDOT |
	    ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS;
	struct archive_entry *e;
	struct archive *a, *w;
	int64_t last = 0;
	int r;

	rep->failed = 1;
	if (chdir(job->rundir) == -1) {
		snprintf(rep->error, sizeof(rep->error),
		    "cannot enter '%s': %s", job->rundir, strerror(errno));
		return;
	}
	if ((a = open_reader(job->archive, rep->error, sizeof(rep->error))) ==
	    NULL)
		return;
	/* As root, keep owners as tar does; otherwise they are ours. */
	if (geteuid() == 0)
		flags |= ARCHIVE_EXTRACT_OWNER;
	w = archive_write_disk_new();
	archive_write_disk_set_options(w, flags);
	archive_write_disk_set_standard_lookup(w);
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK ||
	    r == ARCHIVE_WARN) {
		const char *name = archive_entry_pathname(e);

		if (archive_write_header(w, e) < ARCHIVE_WARN) {
			snprintf(rep->error, sizeof(rep->error),
			    "archive '%s': refused entry '%s': %s",
			    job->archive, name ? name : "?",
			    archive_error_string(w));
			goto out;
		}
		if (archive_entry_size(e) > 0 &&
		    copy_data(job->archive, a, w, e, rep) == -1)
			goto out;
		if (archive_write_finish_entry(w) < ARCHIVE_WARN) {
			snprintf(rep->error, sizeof(rep->error),
			    "cannot finish '%s': %s", name ? name : "?",
			    archive_error_string(w));
			goto out;
		}
		if (job->fsync == FSYNC_FILE &&
		    archive_entry_filetype(e) == AE_IFREG &&
		    fsync_path(name, rep) == -1)
			goto out;
		rep->entries++;
		progress(job, a, rep, &last, 0);
	}
	if (r != ARCHIVE_EOF) {
		snprintf(rep->error, sizeof(rep->error),
		    "archive '%s' is corrupt after %llu entries: %s",
		    job->archive, (unsigned long long)rep->entries,
		    archive_error_string(a));
		goto out;
	}
	rep->failed = 0;
out:
	progress(job, a, rep, &last, 1);
	archive_write_free(w);
	archive_read_free(a);
}
