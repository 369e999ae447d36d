/*
 * msgio.h - whole messages over a pipe or a socket between ubcreplay and a
 * child it forked (a workload's phase, a NetBSD kernel's process, the NFS
 * watcher): the one place that loops over short reads and writes and
 * EINTR, and tells an end of file between messages from one inside a
 * message.
 *
 * A message is a fixed number of bytes the two sides agree on (a struct,
 * or a kind byte and then its body); msgio frames nothing itself.
 *
 * What it promises:
 *
 *  - msgio_write() writes all len bytes, or fails with errno set. A signal
 *    that interrupts it (EINTR, or a short write) only makes it go on. On
 *    a socket it sends with MSG_NOSIGNAL, so that a reader gone is EPIPE,
 *    not the writer's death by SIGPIPE; on a pipe it writes (SIGPIPE is
 *    then the writer's, as for any write), and so it does on a kernel
 *    without networking, where send() is ENOSYS.
 *  - msgio_read() waits for all len bytes, at most timeout_ms (-1: for
 *    ever) for each part to come, and says which of five things happened
 *    (enum msgio). A signal only makes it wait again.
 *  - msgio_in_step() is msgio_read's one step, for a caller that waits
 *    for the bytes in its own poll loop (doing its probe's ticks between):
 *    one read() of what is missing, when poll said the descriptor is
 *    readable.
 *
 * Usage, the parent waiting in its own loop:
 *
 *	struct msgio_in in;
 *
 *	msgio_in_init(&in, &report, sizeof(report));
 *	for (;;) {
 *		poll(&pfd, 1, tick_ms);
 *		...tick...
 *		if ((r = msgio_in_step(&in, fd)) != MSGIO_PART)
 *			break;
 *	}
 *	r == MSGIO_WHOLE: report is all there; MSGIO_EOF: the child ended
 *	without one; MSGIO_CUT: it ended in the middle of it (in.got bytes).
 */
#ifndef UBC_MSGIO_H
#define UBC_MSGIO_H

#include <stddef.h>

enum msgio {
	MSGIO_WHOLE,   /* every byte of the message is in */
	MSGIO_PART,    /* some bytes, or none yet (a signal): wait again */
	MSGIO_EOF,     /* end of file before the first byte */
	MSGIO_CUT,     /* end of file inside the message */
	MSGIO_TIMEOUT, /* msgio_read: nothing came for timeout_ms */
	MSGIO_ERROR    /* read() or poll() failed: errno says why */
};

struct msgio_in {
	char *buf;
	size_t len;
	size_t got; /* bytes of buf in so far */
};

/* All len bytes of buf to fd: 0, or -1 with errno set. */
int msgio_write(int fd, const void *buf, size_t len);

/* Reads exactly len bytes into buf: MSGIO_WHOLE, _EOF, _CUT, _TIMEOUT or
 * _ERROR (never _PART). */
enum msgio msgio_read(int fd, void *buf, size_t len, int timeout_ms);

void msgio_in_init(struct msgio_in *in, void *buf, size_t len);

/* One read() of what in still lacks: MSGIO_WHOLE once it has it all,
 * MSGIO_PART while not (a signal included), else _EOF, _CUT or _ERROR. */
enum msgio msgio_in_step(struct msgio_in *in, int fd);

/* The name of r, for messages: "end of file inside the message", ... */
const char *msgio_name(enum msgio r);

#endif
