/*
 * nfs.c - NFS cells: the job in the guest runs on an NFS mount instead of
 * the disk. Two servers:
 *
 *   knfsd    the kernel under test serves its own disk (mounted on
 *            VM_GUEST_DISK) over the guest's loopback, with the host's
 *            nfs-kernel-server programs reached through the shared root;
 *   ganesha  nfs-ganesha runs on the host, exporting a directory in the
 *            cell's temporary directory, in a network and mount namespace
 *            of the cell's own (root only) with its own rpcbind and the
 *            cell's QEMU: ganesha listens on 127.0.0.1:2049 there, which
 *            QEMU's user network reaches as 10.0.2.2, and nothing of the
 *            host's or another cell's can take or answer on those ports.
 *            The servers are started one step at a time by
 *            vm_nfs_start and vm_nfs_ready, never waited on in a loop,
 *            so that a signal or another cell is never held up.
 *
 * The guest's init runs the script written here (out/nfs-setup.sh, in the
 * writable share) chrooted in the shared root before the job; its last
 * line on failure names the server and the mount options, and comes back
 * to the host as the init's error.
 */
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <net/if.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../model/clock.h"
#include "vm_impl.h"

#define GANESHA "/usr/bin/ganesha.nfsd"
#define RPCBIND "/usr/sbin/rpcbind"
/*
 * Inside the cell's namespaces the ports are fixed: nothing else listens
 * there. NS_RUN is in the namespace's own tmpfs on /run.
 */
#define RPCBIND_PORT   111
#define NFS_PORT       2049
#define MNT_PORT       20048
#define NS_RUN         "/run/ubcreplay"
#define GANESHA_EXPORT NS_RUN "/export"
/* rpcbind and ganesha, not both listening within this long, failed. */
#define GANESHA_START_NS ((int64_t)20 * 1000000000)

static const char *const knfsd_tools[] = {"/usr/sbin/rpc.nfsd",
    "/usr/sbin/rpc.mountd", "/usr/sbin/exportfs", "/usr/sbin/rpc.statd",
    "/usr/sbin/rpcbind", "/sbin/mount.nfs", "/sbin/ip"};

int
vm_nfs_check(const char *server, const char *opts, const char *path, char *err,
    size_t errlen)
{
	int knfsd = strcmp(server, "knfsd") == 0;

	if (!knfsd && strcmp(server, "ganesha") != 0) {
		snprintf(err, errlen,
		    "--nfs-server '%s' is not knfsd or ganesha", server);
		return -1;
	}
	if (strpbrk(opts, "'\n") != NULL || strpbrk(path, "'\n") != NULL) {
		snprintf(err, errlen,
		    "NFS mount options '%s' or path '%s' hold a quote or a "
		    "newline",
		    opts, path);
		return -1;
	}
	/* The guest runs the host's mount.nfs and, for knfsd, its server. */
	for (size_t i = 0; i < sizeof(knfsd_tools) / sizeof(knfsd_tools[0]);
	     i++) {
		const char *t = knfsd_tools[i];

		if (!knfsd && strstr(t, "mount.nfs") == NULL &&
		    strstr(t, "/ip") == NULL)
			continue;
		if (access(t, X_OK) == -1) {
			snprintf(err, errlen,
			    "NFS server %s: cannot run %s on this host (%s; "
			    "install %s)",
			    server, t, strerror(errno),
			    strstr(t, "mount.nfs") != NULL ? "nfs-common"
			        : strstr(t, "/ip") != NULL
			        ? "iproute2"
			        : "nfs-kernel-server");
			return -1;
		}
	}
	if (!knfsd && geteuid() != 0) {
		snprintf(err, errlen,
		    "NFS server ganesha needs root: it runs in a network and "
		    "mount namespace of the cell's own");
		return -1;
	}
	if (!knfsd &&
	    (access(GANESHA, X_OK) == -1 || access(RPCBIND, X_OK) == -1)) {
		snprintf(err, errlen,
		    "NFS server ganesha: cannot run %s on this host (%s; "
		    "install nfs-ganesha, nfs-ganesha-vfs and rpcbind)",
		    access(GANESHA, X_OK) == -1 ? GANESHA : RPCBIND,
		    strerror(errno));
		return -1;
	}
	return 0;
}

size_t
vm_nfs_modules(const char *server, const char **names, size_t max)
{
	static const char *const client[] = {"nfsv3", "nfsv4"};
	size_t n = 0;

	for (size_t i = 0; i < 2 && n < max; i++)
		names[n++] = client[i];
	if (n < max)
		names[n++] =
		    strcmp(server, "knfsd") == 0 ? "nfsd" : "virtio_net";
	return n;
}

const char *
vm_nfs_iface(const char *server)
{
	return strcmp(server, "knfsd") == 0 ? "lo" : "eth0";
}

/*
 * The guest's side. The mount's source: NFSv4 mounts the server's pseudo
 * root, NFSv2 and v3 the export's real path, unless --nfs-path names
 * another. The cell's own options come first, so that the user's -O
 * overrides them. mount.nfs retries a refused
 * connection for two minutes unless told otherwise: retry=0 makes a server
 * that is not there an error at once.
 */
static const char script_head[] =
    "# Written by ubcreplay vm for one cell: the NFS mount the job runs "
    "on.\n"
    "set -u\n"
    "fail() { echo \"NFS server $server, mount -o $opts: $*\" >&2; exit 1; "
    "}\n"
    "case \",$opts,\" in\n"
    "*,vers=2,* | *,vers=3,* | *,nfsvers=2,* | *,nfsvers=3,* | *,v3,* | "
    "*,v2,*) src=$v3src more=$v3more ;;\n"
    "*) src=$v4src more=$v4more ;;\n"
    "esac\n"
    "mopts=$more${opts:+${more:+,}$opts}\n"
    "[ -n \"$path\" ] && src=${src%%:*}:$path\n"
    "case \",$opts,\" in\n"
    "*,retry=*) ;;\n"
    "*) mopts=${mopts:+$mopts,}retry=0 ;;\n"
    "esac\n";

/*
 * knfsd in the guest. A fresh NFSv4 server holds back OPENs that create for
 * its grace period, 90 s by default, and that wait would fall in the first
 * run's time: the period is set to its least (10 s) and then ended at once
 * (a fresh server has no clients to wait for), or, on a kernel that cannot
 * end it (before 4.17), waited out here, before the mount.
 */
static const char script_knfsd[] =
    "mount -t tmpfs tmpfs /var/lib/nfs || fail 'no tmpfs on /var/lib/nfs'\n"
    "mkdir -p /var/lib/nfs/v4recovery /var/lib/nfs/sm /var/lib/nfs/sm.bak\n"
    ": >/var/lib/nfs/etab && : >/var/lib/nfs/rmtab || fail 'no etab'\n"
    "ip link set lo up || fail 'lo does not come up'\n"
    "mount -t nfsd nfsd /proc/fs/nfsd || fail 'cannot mount nfsd'\n"
    "rpcbind -w || fail 'rpcbind did not start'\n"
    "exportfs -o rw,no_root_squash,fsid=0,no_subtree_check,insecure \\\n"
    "    \"127.0.0.1:$export\" || fail \"cannot export $export\"\n"
    "rpc.mountd || fail 'rpc.mountd did not start'\n"
    "rpc.statd --no-notify || fail 'rpc.statd did not start'\n"
    "echo 10 >/proc/fs/nfsd/nfsv4gracetime 2>/dev/null\n"
    "rpc.nfsd 4 || fail 'rpc.nfsd did not start'\n"
    "if [ -e /proc/fs/nfsd/v4_end_grace ]; then\n"
    "    echo Y >/proc/fs/nfsd/v4_end_grace 2>/dev/null\n"
    "    i=0\n"
    "    until [ \"$(cat /proc/fs/nfsd/v4_end_grace)\" = Y ]; do\n"
    "        [ $((i += 1)) -le 300 ] ||\n"
    "            fail 'its NFSv4 grace period did not end in 30 s'\n"
    "        sleep 0.1\n"
    "    done\n"
    "else\n"
    "    sleep 10\n"
    "fi\n";

static const char script_ganesha[] =
    "ip link set lo up || fail 'lo does not come up'\n"
    "ip addr add 10.0.2.15/24 dev eth0 && ip link set eth0 up ||\n"
    "    fail 'eth0 does not come up'\n";

static const char script_tail[] =
    "mkdir -p \"$mnt\" || fail \"cannot make $mnt\"\n"
    "out=$(mount -t nfs -o \"$mopts\" \"$src\" \"$mnt\" 2>&1) ||\n"
    "    fail \"cannot mount $src: $out\"\n";

/*
 * ganesha's configuration: only NFSv3 and v4 over TCP, no NLM or RQUOTA,
 * on every address of the namespace, whose only interface is its loopback
 * (Bind_Addr = 127.0.0.1 fails there: getaddrinfo's AI_ADDRCONFIG finds
 * no address but the loopback's, and refuses it), no grace period (a fresh
 * server has no clients to wait for). Its paths are the namespace's own
 * (GANESHA_EXPORT is the cell's export directory bound there), so that no
 * temporary directory's name, whatever characters it holds, is written into it.
 */
static int
ganesha_conf(struct vm_cell *cell, char *err, size_t errlen)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/export", cell->host->dir);
	/* A retry's server finds the export as the first one found it. */
	vm_rmtree(p);
	if (mkdir(p, 0777) == -1) {
		snprintf(
		    err, errlen, "cannot make '%s': %s", p, strerror(errno));
		return -1;
	}
	snprintf(p, sizeof(p), "%s/ganesha.conf", cell->host->dir);
	if ((f = fopen(p, "we")) == NULL) {
		snprintf(
		    err, errlen, "cannot write '%s': %s", p, strerror(errno));
		return -1;
	}
	fprintf(f,
	    "NFS_CORE_PARAM {\n"
	    "\tNFS_Port = %d;\n"
	    "\tMNT_Port = %d;\n"
	    "\tProtocols = 3, 4;\n"
	    "\tEnable_NLM = false;\n"
	    "\tEnable_RQUOTA = false;\n"
	    "\tEnable_UDP = false;\n"
	    "}\n"
	    "NFSv4 {\n"
	    "\tGraceless = true;\n"
	    "\tRecoveryRoot = \"" NS_RUN "/recovery\";\n"
	    "}\n"
	    "EXPORT {\n"
	    "\tExport_Id = 1;\n"
	    "\tPath = \"" GANESHA_EXPORT "\";\n"
	    "\tPseudo = /ubcvm;\n"
	    "\tAccess_Type = RW;\n"
	    "\tSquash = No_Root_Squash;\n"
	    "\tProtocols = 3, 4;\n"
	    "\tTransports = TCP;\n"
	    "\tSecType = sys;\n"
	    "\tFSAL { Name = VFS; }\n"
	    "}\n",
	    NFS_PORT, MNT_PORT);
	if (fclose(f) == EOF) {
		snprintf(
		    err, errlen, "cannot write '%s': %s", p, strerror(errno));
		return -1;
	}
	return 0;
}

int
vm_nfs_prepare(struct vm_cell *cell, char *err, size_t errlen)
{
	const struct vm_cell_conf *c = cell->c;
	int knfsd = strcmp(c->nfs_server, "knfsd") == 0;
	char p[PATH_MAX];
	FILE *f;

	if (!knfsd && ganesha_conf(cell, err, errlen) == -1)
		return -1;
	snprintf(p, sizeof(p), "%s/out/nfs-setup.sh", cell->host->dir);
	if ((f = fopen(p, "we")) == NULL) {
		snprintf(
		    err, errlen, "cannot write '%s': %s", p, strerror(errno));
		return -1;
	}
	fprintf(f, "server=%s\nopts='%s'\npath='%s'\nmnt=%s\n", c->nfs_server,
	    c->nfs_opts, c->nfs_path, VM_GUEST_NFS);
	if (knfsd)
		fprintf(f,
		    "export=%s\nv3src=127.0.0.1:%s\nv4src=127.0.0.1:/\n"
		    "v3more=\nv4more=\n",
		    VM_GUEST_DISK, VM_GUEST_DISK);
	else
		/* No rpcbind in reach: every port is given. */
		fprintf(f,
		    "v3src=10.0.2.2:" GANESHA_EXPORT "\nv4src=10.0.2.2:/ubcvm\n"
		    "v3more=port=%d,mountport=%d,mountproto=tcp,proto=tcp,"
		    "nolock,addr=10.0.2.2\n"
		    "v4more=port=%d,proto=tcp,addr=10.0.2.2,"
		    "clientaddr=10.0.2.15\n",
		    NFS_PORT, MNT_PORT, NFS_PORT);
	fputs(script_head, f);
	fputs(knfsd ? script_knfsd : script_ganesha, f);
	fputs(script_tail, f);
	if (fclose(f) == EOF) {
		snprintf(
		    err, errlen, "cannot write '%s': %s", p, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The namespaces' holder, in the child: a network namespace whose
 * loopback is the cell's alone and a mount namespace with a private tmpfs
 * on /run (rpcbind's socket, lock and state, ganesha's recovery, the
 * export bound at GANESHA_EXPORT). The cell's directory stays where it is
 * when TMPDIR lies under /run: it is bound back over the tmpfs. The word
 * "ok", or what failed, goes up the pipe; then it waits to be killed.
 */
static void
holder(int fd, const char *dir)
{
	char p[PATH_MAX], msg[PATH_MAX + 128];
	struct ifreq ifr;
	int keep = -1, s;
	const char *what;

	if (strncmp(dir, "/run/", 5) == 0 &&
	    (keep = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1) {
		what = "cannot open the cell's directory";
		goto fail;
	}
	what = "unshare (network and mount)";
	if (unshare(CLONE_NEWNET | CLONE_NEWNS) == -1)
		goto fail;
	what = "cannot make the mounts private";
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1)
		goto fail;
	what = "cannot mount a tmpfs on /run";
	if (mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV,
	        "mode=0755") == -1)
		goto fail;
	what = "cannot make the directories under /run";
	if (mkdir("/run/rpcbind", 0755) == -1 || mkdir(NS_RUN, 0755) == -1 ||
	    mkdir(GANESHA_EXPORT, 0777) == -1)
		goto fail;
	if (keep != -1) {
		what = "cannot bind the cell's directory back under /run";
		for (char *q = strcpy(p, dir) + 1; (q = strchr(q, '/')) != NULL;
		     q++) {
			*q = '\0';
			if (mkdir(p, 0755) == -1 && errno != EEXIST)
				goto fail;
			*q = '/';
		}
		snprintf(msg, sizeof(msg), "/proc/self/fd/%d", keep);
		if (mkdir(dir, 0700) == -1 ||
		    mount(msg, dir, NULL, MS_BIND | MS_REC, NULL) == -1)
			goto fail;
		close(keep);
	}
	what = "cannot bind the export";
	snprintf(p, sizeof(p), "%s/export", dir);
	if (mount(p, GANESHA_EXPORT, NULL, MS_BIND, NULL) == -1)
		goto fail;
	what = "cannot bring the loopback up";
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if ((s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1 ||
	    ioctl(s, SIOCGIFFLAGS, &ifr) == -1)
		goto fail;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) == -1)
		goto fail;
	close(s);
	if (write(fd, "ok", 2) != 2)
		_exit(1);
	close(fd);
	for (;;)
		pause();
fail:
	snprintf(msg, sizeof(msg), "%s: %s", what, strerror(errno));
	if (write(fd, msg, strlen(msg)) < 0)
		_exit(1);
	_exit(1);
}

/* Starts the holder and opens its namespaces into the cell. */
static int
namespaces(struct vm_cell *cell, char *err, size_t errlen)
{
	char msg[PATH_MAX + 128], p[64];
	pid_t parent = getpid();
	ssize_t n, got = 0;
	int fds[2];

	if (pipe2(fds, O_CLOEXEC) == -1) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	if ((cell->host->ns_pid = fork()) == -1) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		cell->host->ns_pid = 0;
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (cell->host->ns_pid == 0) {
		close(fds[0]);
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		holder(fds[1], cell->host->dir);
	}
	setpgid(cell->host->ns_pid, cell->host->ns_pid);
	close(fds[1]);
	while (
	    (n = read(fds[0], msg + got, sizeof(msg) - 1 - (size_t)got)) > 0 ||
	    (n == -1 && errno == EINTR))
		got += n > 0 ? n : 0;
	close(fds[0]);
	msg[got] = '\0';
	if (strcmp(msg, "ok") != 0) {
		snprintf(err, errlen,
		    "NFS server ganesha: the cell's namespace: %s",
		    got > 0 ? msg : "its holder died");
		return -1;
	}
	snprintf(p, sizeof(p), "/proc/%d/ns/net", (int)cell->host->ns_pid);
	cell->host->netns = open(p, O_RDONLY | O_CLOEXEC);
	snprintf(p, sizeof(p), "/proc/%d/ns/mnt", (int)cell->host->ns_pid);
	cell->host->mntns = open(p, O_RDONLY | O_CLOEXEC);
	if (cell->host->netns == -1 || cell->host->mntns == -1) {
		snprintf(
		    err, errlen, "cannot open '%s': %s", p, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Whether a TCP socket listens on port in the cell's network namespace,
 * as the kernel lists them for the holder. Nothing but the cell's own
 * servers runs there: one that listens is ours.
 */
static int
listening(pid_t ns_pid, int port)
{
	static const char *const tables[] = {"tcp", "tcp6"};
	char p[64], line[512], addr[128];
	unsigned lport, state;
	int found = 0;

	for (size_t i = 0; i < 2 && !found; i++) {
		FILE *f;

		snprintf(
		    p, sizeof(p), "/proc/%d/net/%s", (int)ns_pid, tables[i]);
		if ((f = fopen(p, "re")) == NULL)
			continue;
		while (!found && fgets(line, sizeof(line), f) != NULL)
			found = sscanf(line, " %*u: %127[0-9A-Fa-f]:%x %*s %x",
			            addr, &lport, &state) == 3 &&
			    (int)lport == port && state == 0x0A;
		fclose(f);
	}
	return found;
}

int
vm_nfs_start(struct vm_cell *cell, char *err, size_t errlen)
{
	char log[PATH_MAX];
	char *rargv[] = {RPCBIND, "-f", "-w", NULL};
	struct vm_spawn sp = {.argv = rargv,
	    .log = log,
	    .out = -1,
	    .netns = -1,
	    .mntns = -1,
	    .pdeathsig = SIGKILL};

	if (strcmp(cell->c->nfs_server, "ganesha") != 0)
		return 0;
	snprintf(log, sizeof(log), "%s/ganesha.log", cell->host->dir);
	if (namespaces(cell, err, errlen) == -1) {
		vm_nfs_stop(cell);
		return -1;
	}
	sp.netns = cell->host->netns;
	sp.mntns = cell->host->mntns;
	cell->host->nfs_start_ns = clock_now_ns();
	/* ganesha registers its programs with rpcbind or gives up. */
	if ((cell->host->rpcbind_pid = vm_spawn(&sp, err, errlen)) == -1) {
		cell->host->rpcbind_pid = 0;
		vm_nfs_stop(cell);
		return -1;
	}
	return 0;
}

int
vm_nfs_ready(struct vm_cell *cell, char *err, size_t errlen)
{
	char conf[PATH_MAX], log[PATH_MAX], pid[PATH_MAX], tail[1024];
	/* A pid file per cell: ganesha locks it. */
	char *gargv[] = {GANESHA, "-F", "-f", conf, "-L", log, "-p", pid, "-N",
	    "NIV_EVENT", NULL};
	struct vm_spawn sp = {.argv = gargv,
	    .log = log,
	    .out = -1,
	    .netns = cell->host->netns,
	    .mntns = cell->host->mntns,
	    .pdeathsig = SIGKILL};
	const char *who = NULL, *how = "exited";

	if (strcmp(cell->c->nfs_server, "ganesha") != 0)
		return 1;
	snprintf(conf, sizeof(conf), "%s/ganesha.conf", cell->host->dir);
	snprintf(log, sizeof(log), "%s/ganesha.log", cell->host->dir);
	snprintf(pid, sizeof(pid), "%s/ganesha.pid", cell->host->dir);
	if (cell->host->nfs_pid != 0 &&
	    listening(cell->host->ns_pid, NFS_PORT) &&
	    listening(cell->host->ns_pid, MNT_PORT))
		return 1;
	if (vm_spawn_exited(&cell->host->rpcbind_pid, NULL))
		who = "rpcbind";
	else if (cell->host->nfs_pid != 0 &&
	    vm_spawn_exited(&cell->host->nfs_pid, NULL))
		who = "ganesha";
	else if (clock_now_ns() - cell->host->nfs_start_ns > GANESHA_START_NS) {
		who = cell->host->nfs_pid != 0 ? "ganesha" : "rpcbind";
		how = "did not start in time";
	}
	if (who != NULL) {
		vm_tail(log, 3, tail, sizeof(tail));
		snprintf(err, errlen, "NFS server ganesha: %s %s: %s", who, how,
		    tail[0] != '\0' ? tail : "(no log)");
		vm_nfs_stop(cell);
		return -1;
	}
	if (cell->host->nfs_pid == 0 &&
	    listening(cell->host->ns_pid, RPCBIND_PORT) &&
	    (cell->host->nfs_pid = vm_spawn(&sp, err, errlen)) == -1) {
		cell->host->nfs_pid = 0;
		vm_nfs_stop(cell);
		return -1;
	}
	return 0;
}

/*
 * Everything the cell's namespace holds dies with it: the servers are
 * killed outright (their state is the namespace's tmpfs and the cell's
 * directory, both about to go), then the holder, whose end frees the
 * namespaces and their mounts.
 */
void
vm_nfs_stop(struct vm_cell *cell)
{
	vm_spawn_kill(&cell->host->nfs_pid, NULL);
	vm_spawn_kill(&cell->host->rpcbind_pid, NULL);
	vm_spawn_kill(&cell->host->ns_pid, NULL);
	if (cell->host->netns != -1)
		close(cell->host->netns);
	if (cell->host->mntns != -1)
		close(cell->host->mntns);
	cell->host->netns = cell->host->mntns = -1;
}
