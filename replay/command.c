/*
 * command.c - the command workload: any program, run with the run directory
 * as its working directory, is the phase's work (`ubcreplay DIR -- command
 * ...`). The phase ends when the command exits; its rusage, through wait4 of
 * the phase's child, holds the command's and that of every process it waited
 * for. What the command asked of the filesystem is not seen, so the phase
 * has no application layer (app_unseen): only what the devices received.
 *
 * The phase's child leads a process group that the command and its children
 * join, so that a stopped phase is killed whole (child.c); the command also
 * dies with the child (replay_die_with) if someone else kills that.
 *
 * The run's work must be over when the command exits: what it left running
 * would write into the sync phase, the removal and the next run. The
 * phase's child adopts the orphans (replay_adopt_orphans), kills what is
 * left once the command has exited, and fails the run, naming it.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "replay.h"

/* What the command's process tells its parent when it cannot exec. */
struct start_failure {
	int stage; /* an index into stage_name */
	int error; /* errno */
};

static const char *const stage_name[] = {
    "cannot tie it to ubcreplay's life",
    "cannot enter the run directory",
    "cannot open /dev/null for its input",
    "cannot run it",
};

static void
start_failed(int fd, int stage)
{
	struct start_failure f = {stage, errno};

	/* Nothing more can be done about a failed write here. */
	if (write(fd, &f, sizeof(f)) != (ssize_t)sizeof(f))
		_exit(127);
	_exit(127);
}

/* In the command's process: its place, its input and output, then exec. */
static void
start(const struct replay_command_job *j, pid_t parent, int fd)
{
	int null;

	if (replay_die_with(parent) == -1)
		start_failed(fd, 0);
	if (chdir(j->rundir) == -1)
		start_failed(fd, 1);
	if ((null = open("/dev/null", O_RDONLY)) == -1 ||
	    dup2(null, STDIN_FILENO) == -1)
		start_failed(fd, 2);
	if (null != STDIN_FILENO)
		close(null);
	/* Standard output is the report's: the command's goes to stderr. */
	if (dup2(STDERR_FILENO, STDOUT_FILENO) == -1)
		start_failed(fd, 3);
	execvp(j->argv[0], j->argv);
	start_failed(fd, 3);
}

void
replay_command_run(void *arg, struct replay_report *rep)
{
	const struct replay_command_job *j = arg;
	struct start_failure f;
	pid_t parent = getpid(), pid;
	int efd[2], status;
	ssize_t n;
	char first[128];
	size_t left;

	rep->app_unseen = 1;
	rep->failed = 1;
	/*
	 * A group of our own, which the command and what it starts join: a
	 * stopped phase is killed as a group (child.c), make's compilers too.
	 */
	if (setpgid(0, 0) == -1) {
		snprintf(rep->error, sizeof(rep->error),
		    "command '%s': cannot make a process group: %s", j->argv[0],
		    strerror(errno));
		return;
	}
	if (replay_adopt_orphans() == -1) {
		snprintf(rep->error, sizeof(rep->error),
		    "command '%s': cannot adopt the processes it leaves: %s",
		    j->argv[0], strerror(errno));
		return;
	}
	if (pipe2(efd, O_CLOEXEC) == -1) {
		snprintf(rep->error, sizeof(rep->error),
		    "command '%s': cannot make a pipe: %s", j->argv[0],
		    strerror(errno));
		return;
	}
	fflush(NULL);
	if ((pid = fork()) == -1) {
		snprintf(rep->error, sizeof(rep->error),
		    "command '%s': cannot fork: %s", j->argv[0],
		    strerror(errno));
		close(efd[0]);
		close(efd[1]);
		return;
	}
	if (pid == 0) {
		close(efd[0]);
		start(j, parent, efd[1]);
	}
	close(efd[1]);
	/* End of file at exec; a start_failure when it never got there. */
	while ((n = read(efd[0], &f, sizeof(f))) == -1 && errno == EINTR)
		;
	close(efd[0]);
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR) {
			snprintf(rep->error, sizeof(rep->error),
			    "command '%s': cannot wait for it: %s", j->argv[0],
			    strerror(errno));
			return;
		}
	left = replay_kill_left(first, sizeof(first));
	if (n == (ssize_t)sizeof(f) && f.stage >= 0 && f.stage <= 3)
		snprintf(rep->error, sizeof(rep->error), "command '%s': %s: %s",
		    j->argv[0], stage_name[f.stage], strerror(f.error));
	else if (WIFSIGNALED(status))
		snprintf(rep->error, sizeof(rep->error),
		    "command '%s' was killed by signal %d", j->argv[0],
		    WTERMSIG(status));
	else if (WEXITSTATUS(status) != 0)
		snprintf(rep->error, sizeof(rep->error),
		    "command '%s' exited with status %d", j->argv[0],
		    WEXITSTATUS(status));
	else if (left > 0)
		snprintf(rep->error, sizeof(rep->error),
		    "command '%s' exited and left %zu process%s running, "
		    "now killed: %s%s; a run's work must end with the command "
		    "(wait for what it starts)",
		    j->argv[0], left, left == 1 ? "" : "es", first,
		    left > 1 ? " and others" : "");
	else
		rep->failed = 0;
}
