/*
 * spawn.c - the programs vm runs on the host (QEMU, rpcbind, ganesha,
 * mkfs, and git and QEMU asked what they are), started one way: a process group
 * of its own (a terminal's ^C reaches us, not them; we kill the whole group), a
 * parent-death signal checked after it is set (a parent already gone means exit
 * at once), the signals we catch back to their defaults, no descriptor of ours
 * but the log (or a pipe of ours) on stdout and stderr and /dev/null on stdin,
 * optionally inside a
 * cell's namespaces; and stopped one way, a pid forgotten the moment it is
 * reaped, so that no later signal can reach a stranger that took it.
 */
#include <sys/prctl.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vm_impl.h"

/* In the child: everything before exec; -1 with errno set. */
static int
child_setup(const struct vm_spawn *s, pid_t parent)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE};
	struct sigaction sa;
	sigset_t none;
	int fd;

	setpgid(0, 0);
	if (prctl(PR_SET_PDEATHSIG,
	        s->pdeathsig != 0 ? s->pdeathsig : SIGKILL) == -1)
		return -1;
	/* The parent may have died before the signal was asked for. */
	if (getppid() != parent)
		_exit(127);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (s->netns != -1 && setns(s->netns, CLONE_NEWNET) == -1)
		return -1;
	if (s->mntns != -1 && setns(s->mntns, CLONE_NEWNS) == -1)
		return -1;
	if (s->child != NULL && s->child(s->child_arg) == -1)
		return -1;
	/* Before the others close; dup2 onto itself would keep close-on-exec.
	 */
	if (s->out != -1 &&
	    (s->out == 1 ? fcntl(1, F_SETFD, 0) : dup2(s->out, 1)) == -1)
		return -1;
	if (close_range(3, ~0U, 0) == -1)
		return -1;
	if ((fd = open(s->log != NULL ? s->log : "/dev/null",
	         O_WRONLY | O_CREAT | O_APPEND | (s->truncate ? O_TRUNC : 0),
	         0644)) == -1)
		return -1;
	if ((s->out == -1 && dup2(fd, 1) == -1) || dup2(fd, 2) == -1)
		return -1;
	if (fd > 2)
		close(fd);
	if ((fd = open("/dev/null", O_RDONLY)) == -1 || dup2(fd, 0) == -1)
		return -1;
	if (fd > 2)
		close(fd);
	return 0;
}

pid_t
vm_spawn(const struct vm_spawn *s, char *err, size_t errlen)
{
	pid_t parent = getpid(), pid = fork();

	if (pid == -1) {
		snprintf(err, errlen, "cannot start %s: fork: %s", s->argv[0],
		    strerror(errno));
		return -1;
	}
	if (pid == 0) {
		if (child_setup(s, parent) == 0) {
			if (s->run != NULL)
				_exit(s->run(s->run_arg));
			execvp(s->argv[0], s->argv);
		}
		/* stderr is the log once set up; else it is still ours. */
		fprintf(
		    stderr, "cannot run %s: %s\n", s->argv[0], strerror(errno));
		_exit(127);
	}
	/* Both sides set the group, so that kill(-pid) never misses. */
	setpgid(pid, pid);
	return pid;
}

int
vm_spawn_exited(pid_t *pid, int *status)
{
	int st = 0;
	pid_t r;

	if (*pid <= 0)
		return 1;
	while ((r = waitpid(*pid, &st, WNOHANG)) == -1 && errno == EINTR)
		;
	if (r == 0)
		return 0;
	if (r == *pid && status != NULL)
		*status = st;
	*pid = 0;
	return 1;
}

void
vm_spawn_wait(pid_t *pid, int *status)
{
	int st = 0;

	if (*pid <= 0)
		return;
	while (waitpid(*pid, &st, 0) == -1 && errno == EINTR)
		;
	if (status != NULL)
		*status = st;
	*pid = 0;
}

void
vm_spawn_kill(pid_t *pid, int *status)
{
	if (*pid <= 0)
		return;
	kill(-*pid, SIGKILL);
	kill(*pid, SIGKILL);
	vm_spawn_wait(pid, status);
}

int
vm_spawn_output(char *const *argv, char *out, size_t len)
{
	struct vm_spawn s = {.argv = argv,
	    .log = NULL,
	    .netns = -1,
	    .mntns = -1,
	    .pdeathsig = SIGKILL};
	char buf[4096], err[256];
	size_t have = 0;
	ssize_t n;
	int fd[2], st = 0;
	pid_t pid;

	out[0] = '\0';
	if (pipe2(fd, O_CLOEXEC) == -1)
		return -1;
	s.out = fd[1];
	pid = vm_spawn(&s, err, sizeof(err));
	close(fd[1]);
	if (pid == -1) {
		close(fd[0]);
		return -1;
	}
	/* All of it is read, so that the program never blocks on a full pipe.
	 */
	while ((n = read(fd[0], buf, sizeof(buf))) > 0 ||
	    (n == -1 && errno == EINTR)) {
		size_t take = n > 0 ? (size_t)n : 0;

		if (take > len - 1 - have)
			take = len - 1 - have;
		memcpy(out + have, buf, take);
		have += take;
	}
	out[have] = '\0';
	close(fd[0]);
	vm_spawn_wait(&pid, &st);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}
