/*
 * nfs.c - NFS cells: the job in the guest runs on an NFS mount instead of
 * the disk. Two servers:
 *
 *   knfsd    the kernel under test serves its own disk (mounted on
 *            VM_GUEST_DISK) over the guest's loopback, with the host's
 *            nfs-kernel-server programs reached through the shared root;
 *   ganesha  nfs-ganesha runs on the host, bound to 127.0.0.1 on two ports
 *            of the cell's own, exporting a directory in the cell's
 *            temporary directory; QEMU's user network forwards the guest's
 *            connections to 10.0.2.2 there.
 *
 * The guest's init runs the script written here (out/nfs-setup.sh, in the
 * writable share) chrooted in the shared root before the job; its last
 * line on failure names the server and the mount options, and comes back
 * to the host as the init's error.
 */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm.h"

#define GANESHA      "/usr/bin/ganesha.nfsd"
#define RPCBIND      "/usr/sbin/rpcbind"
#define RPCBIND_SOCK "/run/rpcbind.sock"
/* A ganesha that has not registered within this long has failed. */
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
    "rpc.nfsd 4 || fail 'rpc.nfsd did not start'\n";

static const char script_ganesha[] =
    "ip link set lo up || fail 'lo does not come up'\n"
    "ip addr add 10.0.2.15/24 dev eth0 && ip link set eth0 up ||\n"
    "    fail 'eth0 does not come up'\n";

static const char script_tail[] =
    "mkdir -p \"$mnt\" || fail \"cannot make $mnt\"\n"
    "out=$(mount -t nfs -o \"$mopts\" \"$src\" \"$mnt\" 2>&1) ||\n"
    "    fail \"cannot mount $src: $out\"\n";

/* A TCP port on 127.0.0.1 that nothing holds now, or -1. */
static int
freeport(void)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = -1;

	if (fd == -1)
		return -1;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	close(fd);
	return port;
}

/*
 * ganesha's configuration: only NFSv3 and v4 over TCP on the cell's ports,
 * no NLM or RQUOTA, no grace period (a fresh server has no clients to wait
 * for), its recovery state and log in the cell's directory.
 */
static int
ganesha_conf(struct vm_cell *cell, char *err, size_t errlen)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/export", cell->dir);
	if (mkdir(p, 0777) == -1) {
		snprintf(
		    err, errlen, "cannot make '%s': %s", p, strerror(errno));
		return -1;
	}
	snprintf(p, sizeof(p), "%s/ganesha.conf", cell->dir);
	if ((f = fopen(p, "we")) == NULL) {
		snprintf(
		    err, errlen, "cannot write '%s': %s", p, strerror(errno));
		return -1;
	}
	fprintf(f,
	    "NFS_CORE_PARAM {\n"
	    "\tBind_Addr = 127.0.0.1;\n"
	    "\tNFS_Port = %d;\n"
	    "\tMNT_Port = %d;\n"
	    "\tProtocols = 3, 4;\n"
	    "\tEnable_NLM = false;\n"
	    "\tEnable_RQUOTA = false;\n"
	    "\tEnable_UDP = false;\n"
	    "}\n"
	    "NFSv4 {\n"
	    "\tGraceless = true;\n"
	    "\tRecoveryRoot = \"%s/recovery\";\n"
	    "}\n"
	    "EXPORT {\n"
	    "\tExport_Id = 1;\n"
	    "\tPath = \"%s/export\";\n"
	    "\tPseudo = /ubcvm;\n"
	    "\tAccess_Type = RW;\n"
	    "\tSquash = No_Root_Squash;\n"
	    "\tProtocols = 3, 4;\n"
	    "\tTransports = TCP;\n"
	    "\tSecType = sys;\n"
	    "\tFSAL { Name = VFS; }\n"
	    "}\n",
	    cell->nfs_port, cell->mnt_port, cell->dir, cell->dir);
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

	if (!knfsd) {
		if ((cell->nfs_port = freeport()) == -1 ||
		    (cell->mnt_port = freeport()) == -1 ||
		    cell->nfs_port == cell->mnt_port) {
			snprintf(err, errlen,
			    "NFS server ganesha: no two free ports on "
			    "127.0.0.1");
			return -1;
		}
		if (ganesha_conf(cell, err, errlen) == -1)
			return -1;
	}
	snprintf(p, sizeof(p), "%s/out/nfs-setup.sh", cell->dir);
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
		    "v3src=10.0.2.2:%s/export\nv4src=10.0.2.2:/ubcvm\n"
		    "v3more=port=%d,mountport=%d,mountproto=tcp,proto=tcp,"
		    "nolock,addr=10.0.2.2\n"
		    "v4more=port=%d,proto=tcp,addr=10.0.2.2,"
		    "clientaddr=10.0.2.15\n",
		    cell->dir, cell->nfs_port, cell->mnt_port, cell->nfs_port);
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

/* Whether something accepts connections on 127.0.0.1:port. */
static int
listening(int port)
{
	struct sockaddr_in a;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;

	if (fd == -1)
		return 0;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

/* A daemon in the foreground, in its own process group, output to log. */
static pid_t
spawn(char *const argv[], const char *log, char *err, size_t errlen)
{
	pid_t pid = fork();

	if (pid == -1) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		int nul = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		/* Even a killed ubcreplay leaves no server behind. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (fd != -1) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (nul != -1)
			dup2(nul, 0);
		execv(argv[0], argv);
		fprintf(
		    stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	return pid;
}

/* Stops a daemon we started: TERM, a few seconds' grace, then KILL. */
static void
reap(pid_t *pid)
{
	if (*pid <= 0)
		return;
	kill(-*pid, SIGTERM);
	for (int i = 0; i < 50; i++) {
		if (waitpid(*pid, NULL, WNOHANG) == *pid) {
			*pid = 0;
			return;
		}
		usleep(100000);
	}
	kill(-*pid, SIGKILL);
	waitpid(*pid, NULL, 0);
	*pid = 0;
}

/* Waits until port listens; -1 when pid died first or time ran out. */
static int
await_port(pid_t pid, int port, int64_t limit_ns)
{
	int64_t end = vm_now_ns() + limit_ns;

	while (vm_now_ns() < end) {
		if (listening(port))
			return 0;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return -1;
		usleep(100000);
	}
	return -1;
}

int
vm_nfs_start(
    struct vm_cell *cell, char *netdev, size_t len, char *err, size_t errlen)
{
	char conf[PATH_MAX], log[PATH_MAX], pid[PATH_MAX], tail[1024];
	/* A pid file per cell: ganesha locks it, and cells run side by side. */
	char *gargv[] = {GANESHA, "-F", "-f", conf, "-L", log, "-p", pid, "-N",
	    "NIV_EVENT", NULL};
	char *rargv[] = {RPCBIND, "-f", "-w", NULL};

	netdev[0] = '\0';
	if (strcmp(cell->c->nfs_server, "ganesha") != 0)
		return 0;
	/* A guest started again (KVM that failed) finds its server running. */
	if (cell->nfs_pid != 0) {
		snprintf(netdev, len, "user,id=ubcnet");
		return 0;
	}
	snprintf(conf, sizeof(conf), "%s/ganesha.conf", cell->dir);
	snprintf(log, sizeof(log), "%s/ganesha.log", cell->dir);
	snprintf(pid, sizeof(pid), "%s/ganesha.pid", cell->dir);
	/* ganesha registers its programs with rpcbind or gives up. */
	if (!listening(111)) {
		if ((cell->rpcbind_pid = spawn(rargv, log, err, errlen)) ==
		    -1) {
			cell->rpcbind_pid = 0;
			return -1;
		}
		if (await_port(cell->rpcbind_pid, 111, GANESHA_START_NS) ==
		    -1) {
			vm_tail(log, 3, tail, sizeof(tail));
			snprintf(err, errlen,
			    "NFS server ganesha: rpcbind did not start: %s",
			    tail);
			reap(&cell->rpcbind_pid);
			return -1;
		}
	}
	if ((cell->nfs_pid = spawn(gargv, log, err, errlen)) == -1) {
		cell->nfs_pid = 0;
		return -1;
	}
	if (await_port(cell->nfs_pid, cell->nfs_port, GANESHA_START_NS) == -1) {
		vm_tail(log, 3, tail, sizeof(tail));
		snprintf(err, errlen,
		    "NFS server ganesha on 127.0.0.1:%d did not start: %s",
		    cell->nfs_port, tail[0] != '\0' ? tail : "(no log)");
		vm_nfs_stop(cell);
		return -1;
	}
	snprintf(netdev, len, "user,id=ubcnet");
	return 0;
}

void
vm_nfs_stop(struct vm_cell *cell)
{
	int ours = cell->rpcbind_pid > 0;

	reap(&cell->nfs_pid);
	reap(&cell->rpcbind_pid);
	/* rpcbind leaves its socket; unless another one has started since. */
	if (ours && !listening(111))
		unlink(RPCBIND_SOCK);
}
