/*
 * uml_sched.c - the virtio disk's server (vm/vdisk.h): the scheduler that
 * owns a UML guest's simulated time (time-travel=ext, the protocol of
 * include/uapi/linux/um_timetravel.h) and the loop that serves it and the
 * disk (vm/vublk.c) until the guest exits.
 *
 * The guest asks for the time of its next event (REQUEST), tells us its
 * time before a kick (UPDATE) and waits (WAIT) whenever it would let time
 * pass; its CPU takes no simulated time. When it waits, the earlier of its
 * next event and the disk's next completion wins: for the guest's, it runs
 * (RUN) at that time; for the disk's, the completion's VRING_CALL is sent
 * on the slave channel and the guest's answer awaited (it reads our time,
 * GET, to queue the interrupt), and then it runs at that time. Every kick
 * the guest sent before it waited is in its socket when its WAIT is read,
 * and is taken first: so what the guest sees depends only on what it did,
 * never on how fast the host was.
 */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vdisk.h"

/* um_timetravel.h */
enum {
	TT_ACK = 0,
	TT_START = 1,
	TT_REQUEST = 2,
	TT_WAIT = 3,
	TT_GET = 4,
	TT_UPDATE = 5,
	TT_RUN = 6,
	TT_FREE_UNTIL = 7,
	TT_GET_TOD = 8,
};

struct tt_msg {
	uint32_t op;
	uint32_t seq;
	uint64_t time;
};

/* The wall clock the guest starts at, when it asks (GET_TOD). */
#define TOD_START_NS 1700000000000000000LL
/* How long the guest may take to answer, in real time. */
#define STALL_MS 60000
/* How long a guest whose clock's socket closed may take to exit. */
#define GONE_MS 2000

struct sched {
	int tfd, vfd;
	/* The disk's connection ended (vfd closed); the sockets' paths. */
	int disk_gone;
	const char *vpath, *tpath;
	struct vublk *d;
	int64_t now_ns;
	int64_t want_ns; /* the guest's next event; -1: none asked */
	const struct vdisk_model *model;
	int waiting;
	uint32_t seq;
	char *err;
	size_t errlen;
};

static int
listen_at(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(a.sun_path)) {
		snprintf(err, errlen, "socket path too long: '%s'", path);
		return -1;
	}
	strcpy(a.sun_path, path);
	unlink(path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) == -1 ||
	    listen(fd, 1) == -1) {
		snprintf(err, errlen, "cannot listen on '%s': %s", path,
		    strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	return fd;
}

/*
 * The guest runs on, or waits, though its disk's connection ended (its
 * side closed it, or ours was shut down): it would wait for its requests
 * forever, its clock running, so the disk fails.
 */
static int
disk_ended(struct sched *s)
{
	snprintf(s->err, s->errlen,
	    "the disk's connection ('%s') ended while the guest ran on",
	    s->vpath);
	return -1;
}

static int
tt_send(struct sched *s, uint32_t op, uint32_t seq, uint64_t t)
{
	struct tt_msg m = {op, seq, t};

	if (send(s->tfd, &m, sizeof(m), MSG_NOSIGNAL) != (ssize_t)sizeof(m)) {
		snprintf(s->err, s->errlen,
		    "time-travel: cannot send on '%s': %s", s->tpath,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/* Every vhost-user message waiting in the socket, handled at now. */
static int
drain(struct sched *s)
{
	int rc;

	if (s->vfd == -1)
		return 0;
	while ((rc = vublk_message(
	            s->d, s->vfd, s->now_ns, s->err, s->errlen)) == 1)
		;
	/* The guest waits for us: it lives, and its disk is gone. */
	if (rc == -1 && strcmp(s->err, "closed") == 0)
		return disk_ended(s);
	return rc;
}

static int tt_message(struct sched *s);

/*
 * The guest waits: the next thing to happen, at its time. Returns 0 when
 * the guest runs again.
 */
static int
next(struct sched *s)
{
	int64_t dev, grant;
	int rc;

	if (drain(s) == -1)
		return -1;
	dev = vublk_next_ns(s->d);
	if (dev >= 0 && (s->want_ns < 0 || dev <= s->want_ns)) {
		if (dev > s->now_ns)
			s->now_ns = dev;
		if ((rc = vublk_complete(s->d, s->now_ns, s->err, s->errlen)) ==
		    -1)
			return -1;
		if (rc == 1) {
			/*
			 * The guest answers the call after it has read our
			 * time and queued the interrupt: the time messages
			 * meanwhile are answered here.
			 */
			struct pollfd p[2] = {
			    {vublk_slave_fd(s->d), POLLIN, 0},
			    {s->tfd, POLLIN, 0},
			};

			for (;;) {
				int n = poll(p, 2, STALL_MS);

				if (n == -1 && errno == EINTR)
					continue;
				if (n <= 0) {
					snprintf(s->err, s->errlen,
					    "the guest did not answer a VRING_CALL in %d s",
					    STALL_MS / 1000);
					return -1;
				}
				if (p[1].revents & (POLLIN | POLLHUP)) {
					if ((rc = tt_message(s)) == -1)
						return -1;
					if (rc == 1) {
						snprintf(s->err, s->errlen,
						    "time-travel: the guest closed its clock before it answered a VRING_CALL");
						return -1;
					}
					continue;
				}
				if (p[0].revents & (POLLIN | POLLHUP))
					break;
			}
			if (vublk_call_done(s->d, s->err, s->errlen) == -1)
				return -1;
		}
	} else if (s->want_ns >= 0) {
		if (s->want_ns > s->now_ns)
			s->now_ns = s->want_ns;
	} else {
		snprintf(s->err, s->errlen,
		    "the guest waits for nothing: no event of its own and no request in the disk");
		return -1;
	}
	s->waiting = 0;
	/*
	 * The guest may run on its own, reading its clock and taking its
	 * own events without a word to us, until the disk's next completion
	 * or the earliest that a request it kicks meanwhile (at a time it
	 * tells us first, UPDATE) could reach it (latency_ns on, at the
	 * next irq_ns), whichever is first: so it comes back to WAIT before
	 * any completion we do not know of yet is due. Without this every
	 * read of its clock (256 ns each) would be a round trip, and every
	 * charge of its CPU (0004).
	 */
	grant = vdisk_model_earliest_ns(s->model, s->now_ns);
	dev = vublk_next_ns(s->d);
	if (dev >= 0 && dev < grant)
		grant = dev;
	if (grant > s->now_ns &&
	    tt_send(s, TT_FREE_UNTIL, ++s->seq, (uint64_t)grant) == -1)
		return -1;
	return tt_send(s, TT_RUN, ++s->seq, (uint64_t)s->now_ns);
}

/* One time-travel message from the guest. 0, 1 at its end, or -1. */
static int
tt_message(struct sched *s)
{
	struct tt_msg m;
	ssize_t n;

	do
		n = recv(s->tfd, &m, sizeof(m), MSG_WAITALL);
	while (n == -1 && errno == EINTR);
	/* A guest that dies with our answer unread resets the link. */
	if (n == 0 || (n == -1 && errno == ECONNRESET))
		return 1;
	if (n == -1) {
		snprintf(s->err, s->errlen, "time-travel: cannot read '%s': %s",
		    s->tpath, strerror(errno));
		return -1;
	}
	if (n != (ssize_t)sizeof(m)) {
		snprintf(s->err, s->errlen,
		    "time-travel: a short message (%zd bytes)", n);
		return -1;
	}
	/*
	 * A guest that ends closes its disk and its clock at once, and may
	 * leave answers to our last RUN unread behind; any other word means
	 * it runs on without its disk.
	 */
	if (s->disk_gone && m.op != TT_ACK)
		return disk_ended(s);
	switch (m.op) {
	case TT_ACK:
		/* The guest's answer to our RUN. */
		return 0;
	case TT_START:
		return tt_send(s, TT_ACK, m.seq, 0);
	case TT_REQUEST:
		s->want_ns = (int64_t)(m.time > INT64_MAX ? INT64_MAX : m.time);
		return tt_send(s, TT_ACK, m.seq, 0);
	case TT_UPDATE:
		if ((int64_t)m.time > s->now_ns)
			s->now_ns = (int64_t)m.time;
		return tt_send(s, TT_ACK, m.seq, 0);
	case TT_GET:
		return tt_send(s, TT_ACK, m.seq, (uint64_t)s->now_ns);
	case TT_GET_TOD:
		return tt_send(
		    s, TT_ACK, m.seq, (uint64_t)(TOD_START_NS + s->now_ns));
	case TT_WAIT:
		s->waiting = 1;
		if (tt_send(s, TT_ACK, m.seq, 0) == -1)
			return -1;
		return next(s);
	default:
		snprintf(
		    s->err, s->errlen, "time-travel: unknown message %u", m.op);
		return -1;
	}
}

/*
 * The first connection on lfd, while the guest lives: a guest that exits
 * (or dies) before it connects is an error naming what it did not do.
 */
static int
accept_one(int lfd, struct sched *s, pid_t pid, int *status, const char *what)
{
	struct pollfd p = {lfd, POLLIN, 0};
	int fd, waited;

	for (waited = 0; waited < STALL_MS; waited += 100) {
		int n = poll(&p, 1, 100);

		if (n == 1)
			break;
		if (n == -1 && errno != EINTR) {
			snprintf(
			    s->err, s->errlen, "poll: %s", strerror(errno));
			return -1;
		}
		if (waitpid(pid, status, WNOHANG) == pid) {
			snprintf(s->err, s->errlen,
			    "the guest %s %d before it made %s",
			    WIFEXITED(*status) ? "exited"
			                       : "was killed by signal",
			    WIFEXITED(*status) ? WEXITSTATUS(*status)
			                       : WTERMSIG(*status),
			    what);
			return -2;
		}
	}
	if (waited >= STALL_MS) {
		snprintf(s->err, s->errlen, "the guest made no %s in %d s",
		    what, STALL_MS / 1000);
		return -1;
	}
	if ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) == -1) {
		snprintf(s->err, s->errlen, "cannot accept %s: %s", what,
		    strerror(errno));
		return -1;
	}
	return fd;
}

/*
 * Whether the guest, whose clock's socket has closed, exits within
 * GONE_MS: its wait status in *status. A guest whose socket is open lives.
 */
static int
guest_gone(int tfd, pid_t pid, int *status)
{
	struct pollfd p = {tfd, 0, 0};
	int waited;

	if (tfd == -1 || poll(&p, 1, 0) != 1 || !(p.revents & POLLHUP))
		return 0;
	for (waited = 0; waited < GONE_MS; waited += 10) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return 1;
		poll(NULL, 0, 10);
	}
	return 0;
}

int
vdisk_serve(const struct vdisk_conf *c, char *const argv[], int *status,
    struct vublk_stats *st, char *err, size_t errlen)
{
	struct sched s = {
	    .tfd = -1, .vfd = -1, .want_ns = -1, .err = err, .errlen = errlen};
	char vpath[4096], tpath[4096];
	int vl = -1, tl = -1, rc = -1, alive = 0;
	pid_t pid = -1, me;

	err[0] = '\0';
	s.model = &c->model;
	s.vpath = vpath;
	s.tpath = tpath;
	if ((s.d = vublk_open(c->image, &c->model, err, errlen)) == NULL)
		return -1;
	snprintf(vpath, sizeof(vpath), "%s/vublk.sock", c->dir);
	snprintf(tpath, sizeof(tpath), "%s/time.sock", c->dir);
	if ((vl = listen_at(vpath, err, errlen)) == -1 ||
	    (tl = listen_at(tpath, err, errlen)) == -1)
		goto out;
	me = getpid();
	if ((pid = fork()) == -1) {
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		/*
		 * The guest goes with its disk and clock, however they end;
		 * the first process of a PID namespace sees its parent as 0.
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 ||
		    (getppid() != me && getppid() != 0))
			_exit(127);
		execvp(argv[0], argv);
		fprintf(
		    stderr, "cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	/* The clock first: the guest connects to it on its command line. */
	if ((s.tfd = accept_one(tl, &s, pid, status,
	         "the time-travel connection (time-travel=ext:DIR/time.sock)")) <
	    0) {
		if (s.tfd == -2)
			pid = -1;
		s.tfd = -1;
		goto out;
	}
	/*
	 * Until the disk's socket is connected, only the clock is served;
	 * a guest that waits before it has probed its devices runs on.
	 */
	alive = 1;
	while (alive) {
		/* One connection to the disk: none after it ended. */
		int dfd = s.vfd != -1 ? s.vfd : s.disk_gone ? -1 : vl;
		struct pollfd p[2] = {{s.tfd, POLLIN, 0}, {dfd, POLLIN, 0}};
		int n = poll(p, 2, STALL_MS);

		if (n == -1 && errno == EINTR)
			continue;
		if (n == 0) {
			snprintf(err, errlen, "the guest was silent for %d s",
			    STALL_MS / 1000);
			goto out;
		}
		if (n == -1) {
			snprintf(err, errlen, "poll: %s", strerror(errno));
			goto out;
		}
		/* The disk's messages before the clock's (see above). */
		if (p[1].revents & (POLLIN | POLLHUP)) {
			if (s.vfd == -1) {
				if ((s.vfd = accept4(
				         vl, NULL, NULL, SOCK_CLOEXEC)) == -1) {
					snprintf(err, errlen,
					    "cannot accept the disk's connection: %s",
					    strerror(errno));
					goto out;
				}
			} else {
				int r = vublk_message(
				    s.d, s.vfd, s.now_ns, err, errlen);

				/* At the guest's end, or before it runs on. */
				if (r == -1 && strcmp(err, "closed") == 0) {
					close(s.vfd);
					s.vfd = -1;
					s.disk_gone = 1;
					err[0] = '\0';
				} else if (r == -1)
					goto out;
			}
			continue;
		}
		if (p[0].revents & (POLLIN | POLLHUP)) {
			int r = tt_message(&s);

			if (r == -1)
				goto out;
			if (r == 1)
				alive = 0;
		}
	}
	while (waitpid(pid, status, 0) == -1 && errno == EINTR)
		;
	pid = -1;
	rc = 0;
out:
	/*
	 * A link that broke because the guest died (killed, or panicked) is
	 * told by how the guest ended, not by the broken link.
	 */
	if (pid > 0 && rc == -1 && guest_gone(s.tfd, pid, status)) {
		pid = -1;
		rc = 0;
		err[0] = '\0';
	}
	if (pid > 0) {
		kill(pid, SIGKILL);
		while (waitpid(pid, status, 0) == -1 && errno == EINTR)
			;
	}
	if (st != NULL)
		vublk_stats(s.d, st);
	if (s.tfd != -1)
		close(s.tfd);
	if (s.vfd != -1)
		close(s.vfd);
	if (vl != -1) {
		close(vl);
		unlink(vpath);
	}
	if (tl != -1) {
		close(tl);
		unlink(tpath);
	}
	vublk_close(s.d);
	return rc;
}
