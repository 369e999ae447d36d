/*
 * child.c - running one phase of a workload in a child and waiting for it.
 *
 * The child reports through a pipe: one struct replay_report (model/msgio.h)
 * just before it exits. The parent polls that pipe with a timeout of one
 * sampling interval, so it wakes both to sample and, at once, when the child is
 * done: the pipe's end of file is the child's exit, and the elapsed time ends
 * there.
 */
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../model/clock.h"
#include "../model/msgio.h"
#include "../model/stop.h"
#include "replay.h"

static void
run_child(int fd, replay_fn fn, void *arg)
{
	struct replay_report rep;

	/* The child dies of the signals the parent catches. */
	stop_default();

	memset(&rep, 0, sizeof(rep));
	fn(arg, &rep);
	if (msgio_write(fd, &rep, sizeof(rep)) == -1)
		_exit(2);
	_exit(rep.failed ? 1 : 0);
}

static int
reap(pid_t pid, struct replay_outcome *out)
{
	while (wait4(pid, &out->status, 0, &out->ru) == -1)
		if (errno != EINTR)
			return -1;
	return 0;
}

int
replay_child(replay_fn fn, void *arg, int64_t interval_ns, replay_tick_fn tick,
    void *ctx, struct replay_outcome *out, char *err, size_t errlen)
{
	struct msgio_in in;
	enum msgio r = MSGIO_PART;
	int64_t t0, next;
	int pfd[2];
	pid_t pid;

	memset(out, 0, sizeof(*out));
	/* Not inherited by what the child execs (a command workload). */
	if (pipe2(pfd, O_CLOEXEC) == -1) {
		snprintf(
		    err, errlen, "cannot make a pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	t0 = clock_now_ns();
	if ((pid = fork()) == -1) {
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		close(pfd[0]);
		run_child(pfd[1], fn, arg);
	}
	close(pfd[1]);
	msgio_in_init(&in, &out->report, sizeof(out->report));
	next = t0 + interval_ns;
	while (r == MSGIO_PART) {
		struct pollfd pf = {.fd = pfd[0], .events = POLLIN};
		int64_t now = clock_now_ns();
		int timeout = -1, rv;

		if (tick != NULL && interval_ns > 0) {
			if (now >= next) {
				if (tick(ctx, err, errlen) == -1)
					goto kill;
				while (next <= now)
					next += interval_ns;
			}
			timeout = (int)((next - now + 999999) / 1000000);
		}
		if (stop_signal() != 0) {
			snprintf(err, errlen, "interrupted by signal %d",
			    stop_signal());
			goto kill;
		}
		rv = poll(&pf, 1, timeout);
		if (rv == -1 && errno != EINTR) {
			snprintf(
			    err, errlen, "cannot poll: %s", strerror(errno));
			goto kill;
		}
		if (rv > 0)
			r = msgio_in_step(&in, pfd[0]);
	}
	/* The report comes just before the exit; without it the end of file
	 * is the exit. Either ends the elapsed time. */
	out->elapsed_ns = clock_now_ns() - t0;
	close(pfd[0]);
	if (reap(pid, out) == -1) {
		snprintf(err, errlen, "cannot wait for the child: %s",
		    strerror(errno));
		return -1;
	}
	/*
	 * A ^C reaches the whole process group: the child may die of it
	 * before we see the flag. That is the stop, not a failed workload.
	 */
	if (stop_signal() != 0) {
		snprintf(
		    err, errlen, "interrupted by signal %d", stop_signal());
		return -1;
	}
	if (r != MSGIO_WHOLE) {
		memset(&out->report, 0, sizeof(out->report));
		out->report.failed = 1;
		if (WIFSIGNALED(out->status))
			snprintf(out->report.error, sizeof(out->report.error),
			    "the workload was killed by signal %d",
			    WTERMSIG(out->status));
		else
			snprintf(out->report.error, sizeof(out->report.error),
			    "the workload exited with status %d and %s",
			    WEXITSTATUS(out->status),
			    r == MSGIO_CUT ? "part of its report"
			                   : "no report");
	}
	return 0;
kill:
	/* A command's child leads a group: the command's processes go too. */
	kill(pid, SIGKILL);
	kill(-pid, SIGKILL);
	close(pfd[0]);
	reap(pid, out);
	return -1;
}
