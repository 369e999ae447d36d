/*
 * msgio.c - whole messages over a pipe or a socket (msgio.h).
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "msgio.h"

int
msgio_write(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	int sock = 1;

	while (len > 0) {
		ssize_t n = sock ? send(fd, p, len, MSG_NOSIGNAL) : -1;

		/*
		 * A pipe: learnt once. A kernel without networking (a
		 * tinyconfig guest's, CONFIG_NET=n) has no send() at all.
		 */
		if (n == -1 && sock && (errno == ENOTSOCK || errno == ENOSYS)) {
			sock = 0;
			continue;
		}
		if (!sock)
			n = write(fd, p, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		if (n == 0) {
			errno = EIO; /* write(2) of more than 0 bytes gave 0 */
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

void
msgio_in_init(struct msgio_in *in, void *buf, size_t len)
{
	in->buf = buf;
	in->len = len;
	in->got = 0;
}

enum msgio
msgio_in_step(struct msgio_in *in, int fd)
{
	ssize_t n;

	if (in->got == in->len)
		return MSGIO_WHOLE;
	n = read(fd, in->buf + in->got, in->len - in->got);
	if (n == -1)
		return errno == EINTR ? MSGIO_PART : MSGIO_ERROR;
	if (n == 0)
		return in->got == 0 ? MSGIO_EOF : MSGIO_CUT;
	in->got += (size_t)n;
	return in->got == in->len ? MSGIO_WHOLE : MSGIO_PART;
}

enum msgio
msgio_read(int fd, void *buf, size_t len, int timeout_ms)
{
	struct msgio_in in;
	enum msgio r = MSGIO_PART;

	msgio_in_init(&in, buf, len);
	if (len == 0)
		return MSGIO_WHOLE;
	while (r == MSGIO_PART) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		int rv = poll(&pf, 1, timeout_ms);

		if (rv == -1 && errno == EINTR)
			continue;
		if (rv == -1)
			return MSGIO_ERROR;
		if (rv == 0)
			return MSGIO_TIMEOUT;
		r = msgio_in_step(&in, fd);
	}
	return r;
}

const char *
msgio_name(enum msgio r)
{
	switch (r) {
	case MSGIO_WHOLE:
		return "a whole message";
	case MSGIO_PART:
		return "part of a message";
	case MSGIO_EOF:
		return "end of file";
	case MSGIO_CUT:
		return "end of file inside a message";
	case MSGIO_TIMEOUT:
		return "no answer in time";
	case MSGIO_ERROR:
		break;
	}
	return "a read error";
}
