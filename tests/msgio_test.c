/*
 * msgio_test.c - model/msgio.h through real pipes and sockets, with a
 * child process on the other end: messages that come in small pieces,
 * writes cut short by a signal, a signal without SA_RESTART while a read
 * waits, an end of file between messages and inside one, a reader gone.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "../model/msgio.h"
#include "testlib.h"

static volatile sig_atomic_t caught;

static void
on_signal(int sig)
{
	(void)sig;
	caught++;
}

/* A handler without SA_RESTART: an interrupted call fails with EINTR or
 * returns short. */
static void
catch_plain(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	ATF_REQUIRE(sigaction(sig, &sa, NULL) == 0);
	caught = 0;
}

static void
fill(unsigned char *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 131 + seed);
}

/* The child: writes len bytes of fill(seed) to fd, piece bytes at a
 * time with a pause between; exits when done (its end of the pipe
 * closes). */
static pid_t
writer(int fd, int other, size_t len, size_t piece, unsigned seed)
{
	pid_t pid = fork();

	ATF_REQUIRE(pid != -1);
	if (pid == 0) {
		unsigned char *p = malloc(len);

		close(other);
		fill(p, len, seed);
		for (size_t off = 0; off < len; off += piece) {
			size_t n = len - off < piece ? len - off : piece;

			if (write(fd, p + off, n) != (ssize_t)n)
				_exit(1);
			usleep(200);
		}
		_exit(0);
	}
	close(fd);
	return pid;
}

static void
reap_ok(pid_t pid)
{
	int st;

	ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
	ATF_REQUIRE_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "the child ended with status %#x", st);
}

ATF_TC(short_reads);
ATF_TC_HEAD(short_reads, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "a message written 7 bytes at a time is read whole, and the end "
	    "of file after it is an end of file, not a cut message");
}
ATF_TC_BODY(short_reads, tc)
{
	unsigned char want[3000], got[3000];
	struct msgio_in in;
	int pfd[2], steps = 0;
	enum msgio r;
	pid_t pid;

	(void)tc;
	/* msgio_read, which polls. */
	ATF_REQUIRE(pipe(pfd) == 0);
	pid = writer(pfd[1], pfd[0], sizeof(want), 7, 1);
	fill(want, sizeof(want), 1);
	memset(got, 0, sizeof(got));
	r = msgio_read(pfd[0], got, sizeof(got), -1);
	ATF_REQUIRE_EQ_MSG(r, MSGIO_WHOLE, "%s", msgio_name(r));
	ATF_REQUIRE(memcmp(want, got, sizeof(want)) == 0);
	r = msgio_read(pfd[0], got, sizeof(got), -1);
	ATF_REQUIRE_EQ_MSG(r, MSGIO_EOF, "%s", msgio_name(r));
	close(pfd[0]);
	reap_ok(pid);

	/* msgio_in_step, one read at a time, as a caller's own loop. */
	ATF_REQUIRE(pipe(pfd) == 0);
	pid = writer(pfd[1], pfd[0], sizeof(want), 7, 2);
	fill(want, sizeof(want), 2);
	msgio_in_init(&in, got, sizeof(got));
	while ((r = msgio_in_step(&in, pfd[0])) == MSGIO_PART)
		steps++;
	ATF_REQUIRE_EQ_MSG(r, MSGIO_WHOLE, "%s", msgio_name(r));
	ATF_REQUIRE_EQ(in.got, sizeof(got));
	ATF_REQUIRE(memcmp(want, got, sizeof(want)) == 0);
	/* The pieces came apart: the reads were short. */
	ATF_REQUIRE_MSG(steps > 0, "one read took the whole message");
	close(pfd[0]);
	reap_ok(pid);
}

ATF_TC(short_writes);
ATF_TC_HEAD(short_writes, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "a write that a signal cuts short goes on: 1 MiB through a small "
	    "pipe to a slow reader, under a 1 ms timer, arrives whole");
}
ATF_TC_BODY(short_writes, tc)
{
	const size_t len = 1 << 20;
	unsigned char *p = malloc(len);
	struct itimerval it = {{0, 1000}, {0, 1000}}, off = {{0, 0}, {0, 0}};
	int pfd[2], sum[2];
	uint64_t total = 0, check = 0, want = 0;
	ssize_t n;
	pid_t pid;

	(void)tc;
	ATF_REQUIRE(p != NULL);
	ATF_REQUIRE(pipe(pfd) == 0 && pipe(sum) == 0);
	/* A pipe of one page, so that a write blocks with part of it done. */
	fcntl(pfd[1], F_SETPIPE_SZ, 4096);
	if ((pid = fork()) == 0) {
		unsigned char b[512];
		uint64_t t[2] = {0, 0};

		close(pfd[1]);
		close(sum[0]);
		while ((n = read(pfd[0], b, sizeof(b))) > 0) {
			for (ssize_t i = 0; i < n; i++)
				t[1] = t[1] * 31 + b[i];
			t[0] += (uint64_t)n;
			usleep(50);
		}
		_exit(write(sum[1], t, sizeof(t)) == sizeof(t) ? 0 : 1);
	}
	ATF_REQUIRE(pid != -1);
	close(pfd[0]);
	close(sum[1]);
	fill(p, len, 3);
	catch_plain(SIGALRM);
	ATF_REQUIRE(setitimer(ITIMER_REAL, &it, NULL) == 0);
	/* The set-up cuts a plain write short, or the test proves nothing. */
	n = write(pfd[1], p, len);
	ATF_REQUIRE_MSG(n > 0 && (size_t)n < len,
	    "a plain write of 1 MiB under the timer wrote %zd bytes", n);
	ATF_REQUIRE_MSG(msgio_write(pfd[1], p, len) == 0, "msgio_write: %s",
	    strerror(errno));
	setitimer(ITIMER_REAL, &off, NULL);
	close(pfd[1]);
	ATF_REQUIRE(caught > 0);
	for (size_t i = 0; i < (size_t)n; i++)
		want = want * 31 + p[i];
	for (size_t i = 0; i < len; i++)
		want = want * 31 + p[i];
	{
		uint64_t t[2];

		ATF_REQUIRE_EQ(
		    msgio_read(sum[0], t, sizeof(t), -1), MSGIO_WHOLE);
		total = t[0];
		check = t[1];
	}
	ATF_REQUIRE_EQ_MSG(total, (uint64_t)n + len,
	    "the reader got %ju bytes of %ju", (uintmax_t)total,
	    (uintmax_t)((uint64_t)n + len));
	ATF_REQUIRE(check == want);
	close(sum[0]);
	reap_ok(pid);
	free(p);
}

/* The child: half the message, a signal to its parent while the parent
 * waits for the rest, then the rest. */
static pid_t
signaller(int fd, int other, unsigned char *msg, size_t len)
{
	pid_t pid = fork();

	ATF_REQUIRE(pid != -1);
	if (pid == 0) {
		close(other);
		if (write(fd, msg, len / 2) != (ssize_t)(len / 2))
			_exit(1);
		usleep(100000);
		kill(getppid(), SIGUSR1);
		usleep(100000);
		if (write(fd, msg + len / 2, len - len / 2) !=
		    (ssize_t)(len - len / 2))
			_exit(1);
		_exit(0);
	}
	close(fd);
	return pid;
}

ATF_TC(eintr);
ATF_TC_HEAD(eintr, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "a signal whose handler has no SA_RESTART, arriving while half a "
	    "message is in, does not end the read (in poll, and in read)");
}
ATF_TC_BODY(eintr, tc)
{
	unsigned char want[100], got[100];
	struct msgio_in in;
	int pfd[2];
	enum msgio r;
	pid_t pid;

	(void)tc;
	fill(want, sizeof(want), 4);
	catch_plain(SIGUSR1);

	/* msgio_read: the signal lands in its poll. */
	ATF_REQUIRE(pipe(pfd) == 0);
	pid = signaller(pfd[1], pfd[0], want, sizeof(want));
	r = msgio_read(pfd[0], got, sizeof(got), -1);
	ATF_REQUIRE_EQ_MSG(r, MSGIO_WHOLE, "%s", msgio_name(r));
	ATF_REQUIRE_EQ(caught, 1);
	ATF_REQUIRE(memcmp(want, got, sizeof(want)) == 0);
	close(pfd[0]);
	reap_ok(pid);

	/* msgio_in_step on a blocking pipe: the signal lands in its read. */
	caught = 0;
	ATF_REQUIRE(pipe(pfd) == 0);
	pid = signaller(pfd[1], pfd[0], want, sizeof(want));
	msgio_in_init(&in, got, sizeof(got));
	memset(got, 0, sizeof(got));
	while ((r = msgio_in_step(&in, pfd[0])) == MSGIO_PART)
		;
	ATF_REQUIRE_EQ_MSG(r, MSGIO_WHOLE, "%s", msgio_name(r));
	ATF_REQUIRE_EQ(caught, 1);
	ATF_REQUIRE(memcmp(want, got, sizeof(want)) == 0);
	close(pfd[0]);
	reap_ok(pid);
}

/* What msgio_read makes of len bytes written piece at a time, then the
 * writer's exit. */
static enum msgio
read_written(size_t len, size_t piece, void *buf, size_t buflen)
{
	int pfd[2];
	enum msgio r;
	pid_t pid;

	ATF_REQUIRE(pipe(pfd) == 0);
	pid = writer(pfd[1], pfd[0], len, piece, 5);
	r = msgio_read(pfd[0], buf, buflen, -1);
	close(pfd[0]);
	reap_ok(pid);
	return r;
}

ATF_TC(eof);
ATF_TC_HEAD(eof, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "a writer that exits in the middle of a message is a cut message; "
	    "one that exits before it, an end of file; one that says "
	    "nothing, a time-out");
}
ATF_TC_BODY(eof, tc)
{
	unsigned char got[100];
	struct msgio_in in;
	int pfd[2];
	enum msgio r;
	pid_t pid;

	(void)tc;
	/* 40 bytes of 100, in pieces of 7, then the writer's exit. */
	r = read_written(40, 7, got, sizeof(got));
	ATF_REQUIRE_EQ_MSG(r, MSGIO_CUT, "%s", msgio_name(r));
	r = read_written(0, 1, got, sizeof(got));
	ATF_REQUIRE_EQ_MSG(r, MSGIO_EOF, "%s", msgio_name(r));

	ATF_REQUIRE(pipe(pfd) == 0);
	pid = writer(pfd[1], pfd[0], 40, 40, 5);
	msgio_in_init(&in, got, sizeof(got));
	while ((r = msgio_in_step(&in, pfd[0])) == MSGIO_PART)
		;
	ATF_REQUIRE_EQ_MSG(r, MSGIO_CUT, "%s", msgio_name(r));
	ATF_REQUIRE_EQ(in.got, 40);
	close(pfd[0]);
	reap_ok(pid);

	/* Nothing, and the write end still open. */
	ATF_REQUIRE(pipe(pfd) == 0);
	r = msgio_read(pfd[0], got, sizeof(got), 50);
	ATF_REQUIRE_EQ_MSG(r, MSGIO_TIMEOUT, "%s", msgio_name(r));
	close(pfd[0]);
	close(pfd[1]);
}

ATF_TC(reader_gone);
ATF_TC_HEAD(reader_gone, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "writing to a socket whose reader is gone fails with EPIPE and "
	    "does not kill the writer with SIGPIPE");
}
ATF_TC_BODY(reader_gone, tc)
{
	char msg[64] = "an ask";
	int sv[2];

	(void)tc;
	signal(SIGPIPE, SIG_DFL);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	close(sv[1]);
	ATF_REQUIRE_EQ(msgio_write(sv[0], msg, sizeof(msg)), -1);
	ATF_REQUIRE_EQ(errno, EPIPE);
	close(sv[0]);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, short_reads);
	ATF_TP_ADD_TC(tp, short_writes);
	ATF_TP_ADD_TC(tp, eintr);
	ATF_TP_ADD_TC(tp, eof);
	ATF_TP_ADD_TC(tp, reader_gone);
	return atf_no_error();
}
