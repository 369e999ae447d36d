/*
 * dd_rump.c - the dd workload's destination inside a NetBSD rump kernel:
 * the host's copy loop (dd.c), each record one write() through the
 * kernel's system calls, at its place in the file (the kernel has no
 * lseek here: pwrite at the loop's offset is the same call for FFS).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dd_impl.h"
#include "rump.h"

static int
rump_open(const struct replay_dd *dd, char *err, size_t errlen)
{
	int fd = rumpk_open(dd->out,
	    RUMPK_O_WRONLY | RUMPK_O_CREAT | RUMPK_O_TRUNC |
	        (dd->odirect ? RUMPK_O_DIRECT : 0),
	    0644);

	if (fd == -1) {
		snprintf(err, errlen, "cannot open '%s'%s: %s", dd->out,
		    dd->odirect ? " with oflag=direct" : "", strerror(errno));
		return -1;
	}
	if (dd->seek > 0 &&
	    rumpk_ftruncate(fd, (int64_t)(dd->seek * dd->bs_bytes)) == -1) {
		snprintf(err, errlen, "cannot truncate '%s': %s", dd->out,
		    strerror(errno));
		rumpk_close(fd);
		return -1;
	}
	return fd;
}

static const struct dd_sink rump_sink = {
    .open = rump_open,
    .write = rumpk_pwrite,
    .close = rumpk_close,
};

void
replay_dd_copy_rump(void *arg, struct replay_report *rep)
{
	replay_dd_into(arg, &rump_sink, rep);
}
