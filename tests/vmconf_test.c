/*
 * vmconf_test.c - /vm.conf as the guest's init reads it (vm/vmconf.c, the
 * parser linked into the static init): what the host writes comes back
 * whole, values with blanks and the longest that fit included; a text the
 * guest cannot take whole (a line too long, more modules or arguments than
 * its limits, an unknown key, a NUL) fails with the line named, where the
 * old reader cut or dropped silently.
 */
#include <atf-c.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../vm/vmconf.h"
#include "testlib.h"

/* A growing text, lines appended with printf's format. */
struct text {
	char *s;
	size_t len;
};

static void add(struct text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	ATF_REQUIRE((t->s = realloc(t->s, t->len + (size_t)n + 1)) != NULL);
	va_start(ap, fmt);
	vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

/* parse must fail with want in its message. */
static void
refused(const struct text *t, const char *want)
{
	struct vmconf c;
	char err[512] = "";

	ATF_REQUIRE_EQ_MSG(vmconf_parse(t->s, t->len, &c, err, sizeof(err)), -1,
	    "accepted; wanted '%s'", want);
	ATF_REQUIRE_MSG(strstr(err, want) != NULL, "'%s', not '%s'", err, want);
}

ATF_TC_WITHOUT_HEAD(round_trip);
ATF_TC_BODY(round_trip, tc)
{
	char longest[VMCONF_LINE_MAX], err[512];
	const char *mods[] = {
	    "/modules/00-virtio_pci.ko", "/modules/01-a b.ko"};
	const char *args[] = {
	    "dd", "-o", "/run/ubcvm/out/result.json", "", "a  b ", longest};
	struct vmconf in = {.fstype = "ext4",
	    .mountopts = "noatime,data=ordered",
	    .exe = "/work/a dir/ubcreplay",
	    .setup = "/run/ubcvm/out/nfs-setup.sh",
	    .nmod = 2,
	    .mod = mods,
	    .narg = 6,
	    .arg = args};
	struct vmconf out;
	char *text;

	/* "arg " + value + newline fills the line exactly. */
	memset(longest, 'x', VMCONF_LINE_MAX - 5);
	longest[VMCONF_LINE_MAX - 5] = '\0';
	ATF_REQUIRE_MSG(
	    (text = vmconf_format(&in, err, sizeof(err))) != NULL, "%s", err);
	ATF_REQUIRE_MSG(
	    vmconf_parse(text, strlen(text), &out, err, sizeof(err)) == 0, "%s",
	    err);
	ATF_CHECK_STREQ(out.fstype, in.fstype);
	ATF_CHECK_STREQ(out.mountopts, in.mountopts);
	ATF_CHECK_STREQ(out.exe, in.exe);
	ATF_CHECK_STREQ(out.setup, in.setup);
	ATF_REQUIRE_EQ(out.nmod, in.nmod);
	for (size_t i = 0; i < in.nmod; i++)
		ATF_CHECK_STREQ(out.mod[i], in.mod[i]);
	ATF_REQUIRE_EQ(out.narg, in.narg);
	for (size_t i = 0; i < in.narg; i++)
		ATF_CHECK_STREQ(out.arg[i], in.arg[i]);
	vmconf_free(&out);
	free(text);
}

ATF_TC_WITHOUT_HEAD(writer_refuses);
ATF_TC_BODY(writer_refuses, tc)
{
	static const char *many[VMCONF_ARGS_MAX + 1];
	char toolong[VMCONF_LINE_MAX], err[512], *text;
	struct vmconf c = {.fstype = "ext4", .mountopts = "", .exe = "/u"};

	ATF_REQUIRE((text = vmconf_format(&c, err, sizeof(err))) != NULL);
	free(text);
	c.mountopts = "noatime\nexe /bin/sh";
	ATF_REQUIRE(vmconf_format(&c, err, sizeof(err)) == NULL);
	ATF_CHECK(strstr(err, "mount options (-O) holds a newline") != NULL);
	c.mountopts = "";
	memset(toolong, 'x', VMCONF_LINE_MAX - 4);
	toolong[VMCONF_LINE_MAX - 4] = '\0';
	c.narg = 1;
	c.arg = (const char *const[]){toolong};
	ATF_REQUIRE(vmconf_format(&c, err, sizeof(err)) == NULL);
	ATF_CHECK(strstr(err, "a job argument is 4092 bytes long") != NULL);
	for (size_t i = 0; i < VMCONF_ARGS_MAX + 1; i++)
		many[i] = "a";
	c.narg = VMCONF_ARGS_MAX + 1;
	c.arg = many;
	ATF_REQUIRE(vmconf_format(&c, err, sizeof(err)) == NULL);
	ATF_CHECK(
	    strstr(err, "255 arguments, more than the guest takes") != NULL);
	c.narg = 0;
	c.nmod = VMCONF_MODULES_MAX + 1;
	c.mod = many;
	ATF_REQUIRE(vmconf_format(&c, err, sizeof(err)) == NULL);
	ATF_CHECK(strstr(err, "129 modules") != NULL);
}

ATF_TC_WITHOUT_HEAD(reader_names_the_line);
ATF_TC_BODY(reader_names_the_line, tc)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
	    {"exe /u\nexec /bin/sh\n", "line 2: unknown key 'exec'"},
	    {"exe /u\nfstype\n", "line 2: no value"},
	    {"fstype ext4\nexe /u\nexe /v\n", "line 3: a second exe line"},
	    {"fstype ext4\n", "no exe line"},
	};
	struct text t = {NULL, 0};

	/* The old reader dropped module 129 and argument 255 silently. */
	for (int i = 0; i < VMCONF_MODULES_MAX + 1; i++)
		add(&t, "module /modules/%03d.ko\n", i);
	add(&t, "exe /u\n");
	refused(&t, "line 129: more than 128 modules");
	t.len = 0;
	add(&t, "exe /u\n");
	for (int i = 0; i < VMCONF_ARGS_MAX + 1; i++)
		add(&t, "arg %d\n", i);
	refused(&t, "line 256: more than 254 arguments");
	/* And split a line longer than its buffer into two. */
	t.len = 0;
	add(&t, "exe /u\nmountopts %0*d\n", VMCONF_LINE_MAX, 0);
	refused(&t, "line 2 is longer than 4096 bytes");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		t.len = 0;
		add(&t, "%s", bad[i].text);
		refused(&t, bad[i].want);
	}
	t.len = 0;
	add(&t, "exe /u\narg a");
	t.s[t.len - 2] = '\0';
	refused(&t, "line 2 holds a NUL byte");
	free(t.s);
}

/*
 * The transport: 9p and /dev/vda when the host says nothing (QEMU's), or
 * UML's hostfs with the out directory's host path and its ubd disk (and
 * the scheduler features, none unless said); a
 * hostfs without an out directory, or a transport the guest does not
 * know, is refused.
 */
ATF_TC_WITHOUT_HEAD(transport);
ATF_TC_BODY(transport, tc)
{
	struct vmconf c, back;
	struct text t = {NULL, 0};
	char err[512], *s, *u;

	memset(&c, 0, sizeof(c));
	c.fstype = "ext4";
	c.mountopts = "";
	c.exe = "/usr/bin/ubcreplay";
	ATF_REQUIRE((s = vmconf_format(&c, err, sizeof(err))) != NULL);
	ATF_REQUIRE_EQ(vmconf_parse(s, strlen(s), &back, err, sizeof(err)), 0);
	ATF_REQUIRE_STREQ(back.transport, "9p");
	ATF_REQUIRE_STREQ(back.disk, "/dev/vda");
	ATF_REQUIRE_STREQ(back.schedfeat, "");
	ATF_REQUIRE_STREQ(back.settle_ns, "");
	vmconf_free(&back);
	free(s);
	c.transport = "hostfs";
	c.outdir = "/tmp/ubcreplay-uml/out";
	c.disk = "/dev/ubda";
	c.schedfeat = "NO_WAKEUP_PREEMPTION";
	c.settle_ns = "2000000000";
	ATF_REQUIRE((u = vmconf_format(&c, err, sizeof(err))) != NULL);
	ATF_REQUIRE_EQ(vmconf_parse(u, strlen(u), &back, err, sizeof(err)), 0);
	ATF_REQUIRE_STREQ(back.schedfeat, "NO_WAKEUP_PREEMPTION");
	ATF_REQUIRE_STREQ(back.settle_ns, "2000000000");
	ATF_REQUIRE_STREQ(back.transport, "hostfs");
	ATF_REQUIRE_STREQ(back.outdir, "/tmp/ubcreplay-uml/out");
	ATF_REQUIRE_STREQ(back.disk, "/dev/ubda");
	vmconf_free(&back);
	free(u);
	add(&t, "exe /x\ntransport hostfs\n");
	refused(&t, "transport hostfs needs an outdir line");
	free(t.s);
	t.s = NULL;
	t.len = 0;
	add(&t, "exe /x\ntransport virtiofs\n");
	refused(&t, "transport 'virtiofs': not 9p or hostfs");
	free(t.s);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, round_trip);
	ATF_TP_ADD_TC(tp, writer_refuses);
	ATF_TP_ADD_TC(tp, reader_names_the_line);
	ATF_TP_ADD_TC(tp, transport);
	return atf_no_error();
}
