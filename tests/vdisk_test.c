/*
 * vdisk_test.c - the virtio disk of vm/vdisk.h without a guest: the model
 * file's reader refuses what it does not know and what no run can use
 * (naming the file and line), the model's arithmetic, an image that cannot
 * be opened, and a guest played over a socket pair (the vhost-user
 * messages virtio_uml sends, its memory as a memfd, one write request in a
 * ring of 8) whose completion is held until the model's time.
 */
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"
#include "../vm/vdisk.h"

static void
put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ATF_REQUIRE(f != NULL);
	fputs(text, f);
	fclose(f);
}

ATF_TC_WITHOUT_HEAD(model_file);
ATF_TC_BODY(model_file, tc)
{
	struct vdisk_model m;
	char err[256];

	(void)tc;
	put("good",
	    "# a disk\nlatency_ns 20000\n  ns_per_kib 250 # fast\n\ndepth 32\nseg_max 126\nsize_max 65536\n");
	ATF_REQUIRE_MSG(
	    vdisk_model_read("good", &m, err, sizeof(err)) == 0, "%s", err);
	ATF_CHECK_EQ(m.latency_ns, 20000);
	ATF_CHECK_EQ(m.ns_per_kib, 250);
	ATF_CHECK_EQ(m.depth, 32);
	ATF_CHECK_EQ(m.seg_max, 126);
	ATF_CHECK_EQ(m.size_max, 65536);
	ATF_CHECK_EQ(m.blk_size, 512);
	ATF_CHECK_EQ(m.num_queues, 1);
	/* What the file leaves out is the default: a 6 ms interrupt. */
	ATF_CHECK_EQ(m.irq_ns, 6000000);
	put("noirq", "irq_ns 0\n");
	ATF_REQUIRE_MSG(
	    vdisk_model_read("noirq", &m, err, sizeof(err)) == 0, "%s", err);
	ATF_CHECK_EQ(m.irq_ns, 0);
	/*
	 * The guest's CPU is charged as a TCG guest's extraction takes it,
	 * and yields before an unplugged bio, unless the file says otherwise.
	 */
	ATF_CHECK(m.cpu_syscall_ns == 56550 && m.cpu_kib_ns == 14790 &&
	    m.cpu_bio_ns == 0 && m.cpu_bio_kib_ns == 0);
	ATF_CHECK_EQ(m.cpu_bio_yield, 1);
	put("noyield", "cpu_bio_yield 0\ncpu_syscall_ns 0\ncpu_kib_ns 0\n");
	ATF_REQUIRE_MSG(
	    vdisk_model_read("noyield", &m, err, sizeof(err)) == 0, "%s", err);
	ATF_CHECK(m.cpu_bio_yield == 0 && m.cpu_syscall_ns == 0);
	put("yield2", "cpu_bio_yield 2\n");
	ATF_CHECK(vdisk_model_read("yield2", &m, err, sizeof(err)) == -1);
	ATF_CHECK_STREQ(err,
	    "yield2:1: 'cpu_bio_yield' wants a whole number from 0 to 1 (0 or 1)");
	/* The guest idles 2 s before its mount, up to a minute, or not. */
	ATF_CHECK_EQ(m.settle_ns, 2000000000);
	put("nosettle", "settle_ns 0\n");
	ATF_REQUIRE_MSG(
	    vdisk_model_read("nosettle", &m, err, sizeof(err)) == 0, "%s", err);
	ATF_CHECK_EQ(m.settle_ns, 0);
	put("settle61", "settle_ns 61000000000\n");
	ATF_CHECK(vdisk_model_read("settle61", &m, err, sizeof(err)) == -1);
	ATF_CHECK_STREQ(err,
	    "settle61:1: 'settle_ns' wants a whole number "
	    "from 0 to 60000000000");
	put("cpu",
	    "cpu_syscall_ns 7000\ncpu_kib_ns 300\ncpu_bio_ns 0\n"
	    "cpu_bio_kib_ns 15\n");
	ATF_REQUIRE_MSG(
	    vdisk_model_read("cpu", &m, err, sizeof(err)) == 0, "%s", err);
	ATF_CHECK_EQ(m.cpu_syscall_ns, 7000);
	ATF_CHECK_EQ(m.cpu_kib_ns, 300);
	ATF_CHECK_EQ(m.cpu_bio_ns, 0);
	ATF_CHECK_EQ(m.cpu_bio_kib_ns, 15);
	/* The guest's kernel reads them as int: a second at most. */
	put("cpubig", "cpu_bio_ns 1000000001\n");
	ATF_CHECK(vdisk_model_read("cpubig", &m, err, sizeof(err)) == -1);
	ATF_CHECK_STREQ(err,
	    "cpubig:1: 'cpu_bio_ns' wants a whole number from 0 to 1000000000");

	put("unknown", "latency_ns 1000\nbandwidth 5\n");
	ATF_CHECK(vdisk_model_read("unknown", &m, err, sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "unknown:2: unknown key 'bandwidth'");
	put("twice", "depth 1\ndepth 2\n");
	ATF_CHECK(vdisk_model_read("twice", &m, err, sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "twice:2: 'depth' twice");
	put("range", "depth 0\n");
	ATF_CHECK(vdisk_model_read("range", &m, err, sizeof(err)) == -1);
	ATF_CHECK_STREQ(
	    err, "range:1: 'depth' wants a whole number from 1 to 256");
	put("neg", "latency_ns -5\n");
	ATF_CHECK(vdisk_model_read("neg", &m, err, sizeof(err)) == -1);
	put("junk", "latency_ns 5us\n");
	ATF_CHECK(vdisk_model_read("junk", &m, err, sizeof(err)) == -1);
	put("queues", "num_queues 2\n");
	ATF_CHECK(vdisk_model_read("queues", &m, err, sizeof(err)) == -1);
	put("blk", "blk_size 1000\n");
	ATF_CHECK(vdisk_model_read("blk", &m, err, sizeof(err)) == -1);
	ATF_CHECK(vdisk_model_read("absent", &m, err, sizeof(err)) == -1);
	ATF_CHECK(strncmp(err, "cannot open 'absent': ", 22) == 0);
}

/* The model file name, of len bytes of text (NULs too), is refused: want. */
static void
refused_len(const char *name, const char *text, size_t len, const char *want)
{
	struct vdisk_model m;
	char err[256];
	FILE *f = fopen(name, "w");

	ATF_REQUIRE(f != NULL && fwrite(text, 1, len, f) == len);
	fclose(f);
	err[0] = '\0';
	ATF_CHECK_MSG(vdisk_model_read(name, &m, err, sizeof(err)) == -1,
	    "%s: taken", name);
	ATF_CHECK_STREQ_MSG(err, want, "%s", name);
}
#define refused(name, text, want)                                              \
	refused_len(name, text, sizeof(text) - 1, want)

/*
 * Values that parse as numbers in range but that no run can use: a guest
 * that asks the clock at every step, a block virtio_blk refuses, a segment
 * limit it raises; a file that sets nothing, or is no text.
 */
ATF_TC_WITHOUT_HEAD(model_nonsense);
ATF_TC_BODY(model_nonsense, tc)
{
	struct vdisk_model m;
	char err[256];

	(void)tc;
	refused("zero", "latency_ns 0\n",
	    "zero:1: 'latency_ns' wants a whole number from 1000 to "
	    "1000000000000 (the guest asks our clock every latency_ns)");
	refused("blk8k", "blk_size 8192\n",
	    "blk8k:1: 'blk_size' wants a power of two from 512 to 4096 (what "
	    "the guest's virtio_blk takes)");
	refused("blk1000", "depth 4\nblk_size 1000\n",
	    "blk1000:2: 'blk_size' wants a power of two from 512 to 4096 "
	    "(what the guest's virtio_blk takes)");
	refused("segsize", "size_max 100\n",
	    "segsize:1: 'size_max' wants 0 or a whole number from 4096 to "
	    "4294967295 (a guest raises a smaller one to its page)");
	refused("plus", "depth +4\n",
	    "plus:1: 'depth' wants a whole number from 1 to 256");
	refused("empty", "",
	    "'empty' sets nothing (no KEY VALUE line): "
	    "leave the model file out for the defaults");
	refused("comments", "# latency_ns 5000\n\n",
	    "'comments' sets nothing (no KEY VALUE line): leave the model file "
	    "out for the defaults");
	refused("nul", "depth 4\nlatency_ns 5000\0\n",
	    "nul:2: a NUL byte: not text");
	refused("binary", "\xff\xfe 5\n", "binary:1: unknown key (not text)");
	ATF_REQUIRE(mkdir("dir", 0755) == 0);
	ATF_CHECK(vdisk_model_read("dir", &m, err, sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "'dir': not a regular file");
	/* A FIFO with no writer is refused, not waited on forever. */
	ATF_REQUIRE(mkfifo("fifo", 0644) == 0);
	ATF_CHECK(vdisk_model_read("fifo", &m, err, sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "'fifo': not a regular file");
	/* The bounds themselves are taken, and size_max 0 (no limit). */
	put("edges", "latency_ns 1000\nblk_size 4096\nsize_max 4096\n");
	ATF_CHECK_MSG(
	    vdisk_model_read("edges", &m, err, sizeof(err)) == 0, "%s", err);
	put("nolimit", "size_max 0\n");
	ATF_CHECK_MSG(
	    vdisk_model_read("nolimit", &m, err, sizeof(err)) == 0, "%s", err);
}

/*
 * Requests the model takes in turn, from an idle start, and when each
 * completes.
 */
struct step {
	int64_t now;
	uint64_t bytes;
	int flush;
	int64_t done;
};

static void
steps(const struct vdisk_model *m, const struct step *s, size_t n)
{
	struct vdisk_model_state st = {0};

	for (size_t i = 0; i < n; i++)
		ATF_CHECK_EQ_MSG(vdisk_model_done_ns(
		                     m, &st, s[i].now, s[i].bytes, s[i].flush),
		    s[i].done, "step %zu", i);
}

/*
 * The server lets the guest run alone until vdisk_model_earliest_ns: no
 * request it takes at or after a time may reach the guest before that
 * time's earliest, whatever came before; an empty write to an idle
 * server reaches it exactly then (so it is no later than need be).
 * Random requests, random gaps, from a fixed seed.
 */
static void
earliest(const struct vdisk_model *m)
{
	struct vdisk_model_state st = {0}, idle = {0};
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	int64_t now = 0;

	for (int i = 0; i < 20000; i++) {
		int64_t e, done;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		now += (int64_t)(x >> 33) % (3 * m->latency_ns + 7);
		e = vdisk_model_earliest_ns(m, now);
		done = vdisk_model_done_ns(
		    m, &st, now, (x >> 20) % (1 << 20), (x >> 60) == 0);
		if (done < e) {
			ATF_CHECK_MSG(0,
			    "a request at %lld reaches the guest at "
			    "%lld, before the earliest, %lld",
			    (long long)now, (long long)done, (long long)e);
			return;
		}
		idle.busy_until_ns = 0;
		ATF_CHECK_EQ(vdisk_model_done_ns(m, &idle, now, 0, 0), e);
	}
}

ATF_TC_WITHOUT_HEAD(model_time);
ATF_TC_BODY(model_time, tc)
{
	struct vdisk_model m;
	/*
	 * 4 KiB at 0: transfer to 400, done at 1400. The next waits for
	 * the transfer server: 400..1200, done 2200. A flush waits for
	 * every transfer before it. An idle server starts at once.
	 */
	const struct step plain[] = {{0, 4096, 0, 1400}, {100, 8192, 0, 2200},
	    {300, 0, 1, 2207}, {5000, 1024, 0, 6100}};
	/*
	 * irq_ns: a completion is signalled at the next multiple of irq_ns,
	 * as a coalescing interrupt would, so that completions due within
	 * one period reach the guest together; the transfer server's own
	 * times do not move. Due at 1400 and 2200: both at 5000; the
	 * server was free at 1200, not 5000: due 3100, at 5000; due on a
	 * multiple (10000): then; a flush (due 11001) too.
	 */
	const struct step coalesced[] = {{0, 4096, 0, 5000},
	    {100, 8192, 0, 5000}, {2000, 1024, 0, 5000}, {8600, 4096, 0, 10000},
	    {10001, 0, 1, 15000}};

	(void)tc;
	vdisk_model_default(&m);
	m.latency_ns = 1000;
	m.ns_per_kib = 100;
	m.flush_ns = 7;
	m.irq_ns = 0;
	steps(&m, plain, sizeof(plain) / sizeof(plain[0]));
	earliest(&m);
	m.flush_ns = 0;
	m.irq_ns = 5000;
	steps(&m, coalesced, sizeof(coalesced) / sizeof(coalesced[0]));
	earliest(&m);
	vdisk_model_default(&m);
	earliest(&m);
}

/* The words vm puts on the guest's command line for its CPU. */
ATF_TC_WITHOUT_HEAD(cpu_words);
ATF_TC_BODY(cpu_words, tc)
{
	struct vdisk_model m;
	char w[96];

	(void)tc;
	vdisk_model_default(&m);
	ATF_CHECK_EQ(vdisk_model_cpu_arg(&m, w, sizeof(w)),
	    VDISK_CPU_CHARGES | VDISK_CPU_YIELD);
	ATF_CHECK_STREQ(w, "uml_cpu=56550,14790,0,0 uml_bio_yield");
	m.cpu_bio_yield = 0;
	m.cpu_bio_kib_ns = 3;
	ATF_CHECK_EQ(vdisk_model_cpu_arg(&m, w, sizeof(w)), VDISK_CPU_CHARGES);
	ATF_CHECK_STREQ(w, "uml_cpu=56550,14790,0,3");
	m.cpu_syscall_ns = m.cpu_kib_ns = m.cpu_bio_kib_ns = 0;
	ATF_CHECK_EQ(vdisk_model_cpu_arg(&m, w, sizeof(w)), 0);
	ATF_CHECK_STREQ(w, "");
	m.cpu_bio_yield = 1;
	ATF_CHECK_EQ(vdisk_model_cpu_arg(&m, w, sizeof(w)), VDISK_CPU_YIELD);
	ATF_CHECK_STREQ(w, "uml_bio_yield");
}

ATF_TC_WITHOUT_HEAD(image_unopenable);
ATF_TC_BODY(image_unopenable, tc)
{
	struct vdisk_model m;
	char err[256];

	(void)tc;
	vdisk_model_default(&m);
	ATF_CHECK(vublk_open("nonexistent.img", &m, err, sizeof(err)) == NULL);
	ATF_CHECK_STREQ(
	    err, "cannot open 'nonexistent.img': No such file or directory");
	put("tiny.img", "x");
	ATF_CHECK(vublk_open("tiny.img", &m, err, sizeof(err)) == NULL);
	ATF_CHECK(strstr(err, "not a disk image") != NULL);
}

/* The guest side: one vhost-user message, with an fd or none. */
static void
gsend(int fd, uint32_t req, const void *payload, uint32_t size, int pass)
{
	unsigned char buf[256];
	uint32_t hdr[3] = {req, 1, size};
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {buf, 12 + size};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

	memcpy(buf, hdr, 12);
	if (size > 0)
		memcpy(buf + 12, payload, size);
	if (pass != -1) {
		struct cmsghdr *cm;

		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &pass, sizeof(int));
	}
	ATF_REQUIRE(sendmsg(fd, &mh, 0) == (ssize_t)(12 + size));
}

#define MEM    (64 * 1024)
#define DESC   0x1000
#define AVAIL  0x1100
#define USED   0x1200
#define HDR    0x2000
#define DATA   0x3000
#define STATUS 0x4000

static void
desc(unsigned char *mem, int i, uint64_t addr, uint32_t len, uint16_t flags,
    uint16_t next)
{
	unsigned char *e = mem + DESC + 16 * i;

	memcpy(e, &addr, 8);
	memcpy(e + 8, &len, 4);
	memcpy(e + 12, &flags, 2);
	memcpy(e + 14, &next, 2);
}

ATF_TC_WITHOUT_HEAD(one_write);
ATF_TC_BODY(one_write, tc)
{
	struct vdisk_model m;
	struct vublk *d;
	struct vublk_stats st;
	unsigned char *mem, reply[12 + 8], got[4096];
	char err[256];
	int sv[2], slave[2], memfd, i;
	uint64_t u, region[5] = {0};
	uint32_t state[2], addr[10], hdr[4] = {1, 0, 8, 0};
	uint16_t one = 1, zero = 0;
	FILE *img;

	(void)tc;
	img = fopen("disk.img", "w");
	ATF_REQUIRE(img != NULL);
	ATF_REQUIRE(ftruncate(fileno(img), 1 << 20) == 0);
	fclose(img);
	vdisk_model_default(&m);
	m.latency_ns = 1000;
	m.irq_ns = 0;
	m.ns_per_kib = 100;
	d = vublk_open("disk.img", &m, err, sizeof(err));
	ATF_REQUIRE_MSG(d != NULL, "%s", err);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, slave) == 0);
	memfd = memfd_create("guest", 0);
	ATF_REQUIRE(memfd != -1 && ftruncate(memfd, MEM) == 0);
	mem = mmap(NULL, MEM, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	ATF_REQUIRE(mem != MAP_FAILED);

	gsend(sv[0], 1, NULL, 0, -1); /* GET_FEATURES */
	ATF_REQUIRE(vublk_message(d, sv[1], 0, err, sizeof(err)) == 1);
	ATF_REQUIRE(read(sv[0], reply, sizeof(reply)) == sizeof(reply));
	memcpy(&u, reply + 12, 8);
	ATF_CHECK(u & 1ULL << 32); /* VERSION_1 */
	ATF_CHECK(u & 1ULL << 30); /* PROTOCOL_FEATURES */
	gsend(sv[0], 2, &u, 8, -1);
	u = 1ULL << 5 | 1ULL << 9 | 1ULL << 14;
	gsend(sv[0], 16, &u, 8, -1);
	/* One region: guest-physical 0x10000 is the memfd's start. */
	region[0] = 1;
	region[1] = 0x10000;
	region[2] = MEM;
	region[3] = 0x10000;
	gsend(sv[0], 5, region, 8 + 32, memfd);
	gsend(sv[0], 21, NULL, 0, slave[1]);
	state[0] = 0;
	state[1] = 8;
	gsend(sv[0], 8, state, 8, -1);
	memset(addr, 0, sizeof(addr));
	u = 0x10000 + DESC;
	memcpy(&addr[2], &u, 8);
	u = 0x10000 + USED;
	memcpy(&addr[4], &u, 8);
	u = 0x10000 + AVAIL;
	memcpy(&addr[6], &u, 8);
	gsend(sv[0], 9, addr, 40, -1);
	state[1] = 1;
	gsend(sv[0], 18, state, 8, -1);
	for (i = 0; i < 7; i++)
		ATF_REQUIRE_MSG(
		    vublk_message(d, sv[1], 0, err, sizeof(err)) == 1,
		    "message %d: %s", i, err);
	ATF_CHECK(vublk_message(d, sv[1], 0, err, sizeof(err)) == 0);

	/* A 4 KiB write at sector 8: header, data, status. */
	memcpy(mem + HDR, hdr, 16);
	memset(mem + DATA, 'w', 4096);
	mem[STATUS] = 0xff;
	desc(mem, 0, 0x10000 + HDR, 16, 1, 1);
	desc(mem, 1, 0x10000 + DATA, 4096, 1, 2);
	desc(mem, 2, 0x10000 + STATUS, 1, 2, 0);
	memcpy(mem + AVAIL + 4, &zero, 2);
	memcpy(mem + AVAIL + 2, &one, 2);
	state[1] = 0;
	gsend(sv[0], 35, state, 8, -1); /* VRING_KICK at 500 ns */
	ATF_REQUIRE_MSG(
	    vublk_message(d, sv[1], 500, err, sizeof(err)) == 1, "%s", err);
	/* Transfer 500..900, done at 1900; not before. */
	ATF_CHECK_EQ(vublk_next_ns(d), 1900);
	ATF_CHECK(vublk_complete(d, 1899, err, sizeof(err)) == 0);
	ATF_CHECK(memcmp(mem + USED + 2, &zero, 2) == 0);
	ATF_CHECK(vublk_complete(d, 1900, err, sizeof(err)) == 1);
	ATF_CHECK(memcmp(mem + USED + 2, &one, 2) == 0);
	ATF_CHECK_EQ(mem[STATUS], 0);
	ATF_CHECK_EQ(vublk_next_ns(d), -1);
	/* The call, answered as the guest does. */
	ATF_REQUIRE(read(slave[0], reply, sizeof(reply)) == 12 + 8);
	ATF_CHECK(reply[0] == 4 && (reply[4] & 8));
	memset(reply + 12, 0, 8);
	reply[4] = 1 | 4;
	ATF_REQUIRE(write(slave[0], reply, sizeof(reply)) == sizeof(reply));
	ATF_CHECK_MSG(vublk_call_done(d, err, sizeof(err)) == 0, "%s", err);

	img = fopen("disk.img", "r");
	ATF_REQUIRE(img != NULL && fseek(img, 8 * 512, SEEK_SET) == 0);
	ATF_REQUIRE(fread(got, 1, sizeof(got), img) == sizeof(got));
	fclose(img);
	ATF_CHECK(memcmp(got, mem + DATA, 4096) == 0);
	vublk_stats(d, &st);
	ATF_CHECK_EQ(st.writes, 1);
	ATF_CHECK_EQ(st.write_bytes, 4096);

	/* A descriptor outside the guest's memory is an error, not a read. */
	desc(mem, 1, 0x10000 + MEM - 16, 4096, 1, 2);
	memcpy(mem + AVAIL + 6, &zero, 2);
	u = 2;
	memcpy(mem + AVAIL + 2, &u, 2);
	gsend(sv[0], 35, state, 8, -1);
	ATF_CHECK(vublk_message(d, sv[1], 3000, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "malformed") != NULL);

	close(sv[0]);
	ATF_CHECK(vublk_message(d, sv[1], 0, err, sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "closed");
	vublk_close(d);
	close(sv[1]);
	close(slave[0]);
	munmap(mem, MEM);
	close(memfd);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, model_file);
	ATF_TP_ADD_TC(tp, model_nonsense);
	ATF_TP_ADD_TC(tp, model_time);
	ATF_TP_ADD_TC(tp, cpu_words);
	ATF_TP_ADD_TC(tp, image_unopenable);
	ATF_TP_ADD_TC(tp, one_write);
	return atf_no_error();
}
