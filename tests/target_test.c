/*
 * target_test.c - from a directory to its filesystem and devices, on the
 * recorded mountinfo and sysfs tree in fixtures/target_test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../traces/traces.h"
#include "testlib.h"

static void
resolve(const atf_tc_t *tc, const char *dir, unsigned ma, unsigned mi,
    struct target *t)
{
	char *mountinfo = tl_read(tc, "fixtures/target_test/mountinfo");
	char sysroot[4096], err[256];

	snprintf(sysroot, sizeof(sysroot), "%s",
	    tl_path(tc, "fixtures/target_test/sys"));
	if (target_resolve_from(
	        dir, ma, mi, mountinfo, sysroot, t, err, sizeof(err)) == -1)
		atf_tc_fail("%s: %s", dir, err);
	free(mountinfo);
}

static int
has_dev(const struct target *t, const char *name, const char *role)
{
	for (size_t i = 0; i < t->ndev; i++)
		if (strcmp(t->dev[i].name, name) == 0)
			return strcmp(t->dev[i].role, role) == 0;
	return 0;
}

ATF_TC_WITHOUT_HEAD(loop);
ATF_TC_BODY(loop, tc)
{
	struct target t;

	resolve(tc, "/mnt/loop/run", 7, 0, &t);
	ATF_CHECK_STREQ(t.mountpoint, "/mnt/loop");
	ATF_CHECK_STREQ(t.fstype, "ext4");
	ATF_CHECK_STREQ(t.options, "rw,relatime");
	ATF_CHECK_STREQ(t.source, "/dev/loop0");
	ATF_REQUIRE_EQ(t.ndev, 1);
	ATF_CHECK(has_dev(&t, "loop0", "fs"));
	ATF_CHECK_EQ(t.dev[0].major, 7);
	ATF_CHECK_EQ(t.dev[0].minor, 0);
}

/* Two mounts of one device: the one that holds the directory wins. */
ATF_TC_WITHOUT_HEAD(bind_mount);
ATF_TC_BODY(bind_mount, tc)
{
	struct target t;

	resolve(tc, "/mnt/bind/deeper/dir", 7, 0, &t);
	ATF_CHECK_STREQ(t.mountpoint, "/mnt/bind");
	ATF_CHECK(has_dev(&t, "loop0", "fs"));
}

ATF_TC_WITHOUT_HEAD(partition_escaped_path);
ATF_TC_BODY(partition_escaped_path, tc)
{
	struct target t;

	resolve(tc, "/mnt/with space/x", 8, 1, &t);
	ATF_CHECK_STREQ(t.mountpoint, "/mnt/with space");
	ATF_CHECK_STREQ(t.fstype, "xfs");
	/* Superblock options that repeat a mount option appear once. */
	ATF_CHECK_STREQ(
	    t.options, "rw,noatime,attr2,inode64,logbufs=8,noquota");
	ATF_REQUIRE_EQ(t.ndev, 1);
	ATF_CHECK(has_dev(&t, "sda1", "fs"));
}

ATF_TC_WITHOUT_HEAD(device_mapper);
ATF_TC_BODY(device_mapper, tc)
{
	struct target t;

	resolve(tc, "/mnt/dm", 253, 0, &t);
	ATF_CHECK_STREQ(t.options, "rw,relatime,sync");
	ATF_REQUIRE_EQ(t.ndev, 3);
	ATF_CHECK(has_dev(&t, "dm-0", "fs"));
	ATF_CHECK(has_dev(&t, "loop1", "member"));
	ATF_CHECK(has_dev(&t, "loop2", "member"));
}

ATF_TC_WITHOUT_HEAD(md);
ATF_TC_BODY(md, tc)
{
	struct target t;

	resolve(tc, "/mnt/md/a/b", 9, 0, &t);
	ATF_REQUIRE_EQ(t.ndev, 3);
	ATF_CHECK(has_dev(&t, "md0", "fs"));
	ATF_CHECK(has_dev(&t, "sdb1", "member"));
	ATF_CHECK(has_dev(&t, "sdc1", "member"));
}

ATF_TC_WITHOUT_HEAD(no_block_device);
ATF_TC_BODY(no_block_device, tc)
{
	static const struct {
		const char *dir, *fstype;
		unsigned minor;
	} fs[] = {{"/tmp/scratch", "tmpfs", 30}, {"/mnt/nfs/x", "nfs4", 40},
	    {"/mnt/over", "overlay", 41}};
	struct target t;

	for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); i++) {
		resolve(tc, fs[i].dir, 0, fs[i].minor, &t);
		ATF_CHECK_STREQ(t.fstype, fs[i].fstype);
		ATF_CHECK_EQ(t.ndev, 0);
		ATF_CHECK_MSG(strstr(t.nodev_reason, fs[i].fstype) != NULL,
		    "reason '%s' does not name %s", t.nodev_reason,
		    fs[i].fstype);
	}
}

ATF_TC_WITHOUT_HEAD(errors);
ATF_TC_BODY(errors, tc)
{
	char *mountinfo = tl_read(tc, "fixtures/target_test/mountinfo");
	struct target t;
	char err[256];

	ATF_CHECK(target_resolve_from("/nowhere", 1, 99, mountinfo,
	              "/nonexistent", &t, err, sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "1:99") != NULL, "message: %s", err);
	ATF_CHECK(target_resolve_from("/", 254, 0, "22 1 254:0 / / rw\n",
	              "/nonexistent", &t, err, sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "line 1") != NULL, "message: %s", err);
	free(mountinfo);
}

/* The running system: / resolves, and its devices are in /sys. */
ATF_TC_WITHOUT_HEAD(live_root);
ATF_TC_BODY(live_root, tc)
{
	struct target t;
	char err[256];

	(void)tc;
	if (target_resolve("/", &t, err, sizeof(err)) == -1)
		atf_tc_fail("%s", err);
	ATF_CHECK_STREQ(t.mountpoint, "/");
	ATF_CHECK(t.fstype[0] != '\0');
}

/*
 * btrfs: the directory's device number is its subvolume's, which mountinfo
 * does not list (recorded here: stat said 0:40, mountinfo 0:39).
 */
ATF_TC_WITHOUT_HEAD(btrfs_subvolume);
ATF_TC_BODY(btrfs_subvolume, tc)
{
	static const char text[] =
	    "22 1 259:1 / / rw,relatime - ext4 /dev/vda1 rw\n"
	    "46 22 0:39 / /mnt/b rw,relatime - btrfs /dev/loop1 "
	    "rw,space_cache=v2,subvolid=5,subvol=/\n";
	struct target t;
	char err[256];

	memset(&t, 0, sizeof(t));
	ATF_REQUIRE_EQ_MSG(
	    mountinfo_find(text, 0, 40, "/mnt/b/run", &t, err, sizeof(err)), 0,
	    "%s", err);
	ATF_CHECK_STREQ(t.mountpoint, "/mnt/b");
	ATF_CHECK_STREQ(t.fstype, "btrfs");
	ATF_CHECK_STREQ(t.source, "/dev/loop1");
	/* Not btrfs: a number that matches nothing is still an error. */
	ATF_CHECK_EQ(
	    mountinfo_find(text, 0, 41, "/srv/x", &t, err, sizeof(err)), -1);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, loop);
	ATF_TP_ADD_TC(tp, bind_mount);
	ATF_TP_ADD_TC(tp, partition_escaped_path);
	ATF_TP_ADD_TC(tp, device_mapper);
	ATF_TP_ADD_TC(tp, md);
	ATF_TP_ADD_TC(tp, no_block_device);
	ATF_TP_ADD_TC(tp, errors);
	ATF_TP_ADD_TC(tp, live_root);
	ATF_TP_ADD_TC(tp, btrfs_subvolume);
	return atf_no_error();
}
