/*
 * nfs_watch.c - the NFS traffic of each run of a workload, captured live by
 * a child process while the workload runs in others (--nfs-iface).
 *
 * The watcher captures from start to finish on one pcap handle, so nothing
 * falls between runs. Asked for a run's share (SIGUSR1), it sends the
 * statistics gathered since the previous share over a pipe and starts
 * them again; asked to finish (SIGTERM), it sends the last share, with the
 * calls still unanswered counted, and exits. Messages on the pipe
 * (model/msgio.h) are one byte of kind followed by its body:
 *
 *	'R'			capturing (sent once)
 *	'S' struct nfs_stats	a share
 *	'E' char[256]		the capture could not start, and why
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../model/msgio.h"
#include "../model/stop.h"
#include "nfs.h"

/* How long the parent waits for the watcher to answer. */
#define ANSWER_MS 10000

static volatile sig_atomic_t want_share;

static void
on_share(int sig)
{
	(void)sig;
	want_share = 1;
}

static void
send_msg(int fd, char kind, const void *body, size_t len)
{
	if (msgio_write(fd, &kind, 1) == -1 || msgio_write(fd, body, len) == -1)
		_exit(2);
}

static void
ready(void *arg)
{
	send_msg(*(int *)arg, 'R', NULL, 0);
}

static void
share(struct nfs_decoder *d, void *arg)
{
	struct nfs_stats *st = nfs_decoder_stats(d);

	send_msg(*(int *)arg, 'S', st, sizeof(*st));
	memset(st, 0, sizeof(*st));
}

static void
watch_child(int fd, const char *iface, const char *filter)
{
	struct nfs_capture cap = {.iface = iface,
	    .filter = filter,
	    .stop = stop_flag(),
	    .mark = &want_share,
	    .on_ready = ready,
	    .on_mark = share,
	    .arg = &fd};
	struct nfs_decoder *d = nfs_decoder_new();
	struct sigaction sa;
	char err[256] = "";

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_share;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	/* The parent decides when the watcher ends; ^C is the parent's. */
	stop_catch_term();
	if (d == NULL) {
		snprintf(err, sizeof(err), "out of memory");
		send_msg(fd, 'E', err, sizeof(err));
		_exit(1);
	}
	if (nfs_capture_run(&cap, d, err, sizeof(err)) == -1) {
		send_msg(fd, 'E', err, sizeof(err));
		_exit(1);
	}
	share(d, &fd);
	nfs_decoder_free(d);
	_exit(0);
}

/* Waits for a message of the kind wanted; body gets it. */
static int
recv_msg(struct nfs_watch *w, char want, void *body, size_t len, char *err,
    size_t errlen)
{
	char kind, why[256];
	enum msgio r;

	/* Each part of a message comes within ANSWER_MS. */
	if ((r = msgio_read(w->fd, &kind, 1, ANSWER_MS)) != MSGIO_WHOLE) {
		snprintf(err, errlen, "the capture on '%s' does not answer: %s",
		    w->iface, msgio_name(r));
		return -1;
	}
	if (kind == 'E') {
		if (msgio_read(w->fd, why, sizeof(why), ANSWER_MS) !=
		    MSGIO_WHOLE)
			snprintf(why, sizeof(why), "it gave no reason");
		why[sizeof(why) - 1] = '\0';
		snprintf(
		    err, errlen, "cannot capture on '%s': %s", w->iface, why);
		return -1;
	}
	if (kind != want) {
		snprintf(
		    err, errlen, "the capture on '%s' sent garbage", w->iface);
		return -1;
	}
	if ((r = msgio_read(w->fd, body, len, ANSWER_MS)) != MSGIO_WHOLE) {
		snprintf(err, errlen, "the capture on '%s' sent %s", w->iface,
		    r == MSGIO_EOF ? "no share" : msgio_name(r));
		return -1;
	}
	return 0;
}

int
nfs_watch_start(struct nfs_watch *w, const char *iface, const char *filter,
    char *err, size_t errlen)
{
	int pfd[2];

	memset(w, 0, sizeof(*w));
	w->iface = iface;
	w->pid = -1;
	if (pipe(pfd) == -1) {
		snprintf(
		    err, errlen, "cannot make a pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	if ((w->pid = fork()) == -1) {
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (w->pid == 0) {
		close(pfd[0]);
		watch_child(pfd[1], iface, filter);
	}
	close(pfd[1]);
	w->fd = pfd[0];
	if (recv_msg(w, 'R', NULL, 0, err, errlen) == -1) {
		nfs_watch_kill(w);
		return -1;
	}
	return 0;
}

int
nfs_watch_take(struct nfs_watch *w, int last, struct nfs_stats *out, char *err,
    size_t errlen)
{
	if (kill(w->pid, last ? SIGTERM : SIGUSR1) == -1) {
		snprintf(err, errlen, "the capture on '%s' has ended: %s",
		    w->iface, strerror(errno));
		nfs_watch_kill(w);
		return -1;
	}
	if (recv_msg(w, 'S', out, sizeof(*out), err, errlen) == -1) {
		nfs_watch_kill(w);
		return -1;
	}
	if (last) {
		while (waitpid(w->pid, NULL, 0) == -1 && errno == EINTR)
			;
		close(w->fd);
		w->pid = -1;
	}
	return 0;
}

void
nfs_watch_kill(struct nfs_watch *w)
{
	if (w->pid <= 0)
		return;
	kill(w->pid, SIGKILL);
	while (waitpid(w->pid, NULL, 0) == -1 && errno == EINTR)
		;
	close(w->fd);
	w->pid = -1;
}
