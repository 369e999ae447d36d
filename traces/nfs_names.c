/*
 * nfs_names.c - NFS procedure and operation names by number: v2 (RFC 1094
 * section 2.2), v3 (RFC 1813 section 3.3) and the NFSv4 operations
 * (RFC 7530 section 16, RFC 8881 section 18, RFC 7862 section 15, RFC 8276
 * section 8), the names the statistics and the per-call listing use.
 */
#include "nfs_impl.h"

static const char *const v4_names[] = {
    "NULL",
    "1",
    "2",
    "ACCESS",
    "CLOSE",
    "COMMIT",
    "CREATE",
    "DELEGPURGE",
    "DELEGRETURN",
    "GETATTR",
    "GETFH",
    "LINK",
    "LOCK",
    "LOCKT",
    "LOCKU",
    "LOOKUP",
    "LOOKUPP",
    "NVERIFY",
    "OPEN",
    "OPENATTR",
    "OPEN_CONFIRM",
    "OPEN_DOWNGRADE",
    "PUTFH",
    "PUTPUBFH",
    "PUTROOTFH",
    "READ",
    "READDIR",
    "READLINK",
    "REMOVE",
    "RENAME",
    "RENEW",
    "RESTOREFH",
    "SAVEFH",
    "SECINFO",
    "SETATTR",
    "SETCLIENTID",
    "SETCLIENTID_CONFIRM",
    "VERIFY",
    "WRITE",
    "RELEASE_LOCKOWNER",
    "BACKCHANNEL_CTL",
    "BIND_CONN_TO_SESSION",
    "EXCHANGE_ID",
    "CREATE_SESSION",
    "DESTROY_SESSION",
    "FREE_STATEID",
    "GET_DIR_DELEGATION",
    "GETDEVICEINFO",
    "GETDEVICELIST",
    "LAYOUTCOMMIT",
    "LAYOUTGET",
    "LAYOUTRETURN",
    "SECINFO_NO_NAME",
    "SEQUENCE",
    "SET_SSV",
    "TEST_STATEID",
    "WANT_DELEGATION",
    "DESTROY_CLIENTID",
    "RECLAIM_COMPLETE",
    "ALLOCATE",
    "COPY",
    "COPY_NOTIFY",
    "DEALLOCATE",
    "IO_ADVISE",
    "LAYOUTERROR",
    "LAYOUTSTATS",
    "OFFLOAD_CANCEL",
    "OFFLOAD_STATUS",
    "READ_PLUS",
    "SEEK",
    "WRITE_SAME",
    "CLONE",
    "GETXATTR",
    "SETXATTR",
    "LISTXATTRS",
    "REMOVEXATTR",
};
_Static_assert(sizeof(v4_names) / sizeof(v4_names[0]) == NFS_NOPS,
    "a name for every NFSv4 opcode counted");

/* RFC 1094 section 2.2 */
static const char *const v2_names[18] = {
    "NULL",
    "GETATTR",
    "SETATTR",
    "ROOT",
    "LOOKUP",
    "READLINK",
    "READ",
    "WRITECACHE",
    "WRITE",
    "CREATE",
    "REMOVE",
    "RENAME",
    "LINK",
    "SYMLINK",
    "MKDIR",
    "RMDIR",
    "READDIR",
    "STATFS",
};

/* RFC 1813 section 3.3 */
static const char *const v3_names[22] = {
    "NULL",
    "GETATTR",
    "SETATTR",
    "LOOKUP",
    "ACCESS",
    "READLINK",
    "READ",
    "WRITE",
    "CREATE",
    "MKDIR",
    "SYMLINK",
    "MKNOD",
    "REMOVE",
    "RMDIR",
    "RENAME",
    "LINK",
    "READDIR",
    "READDIRPLUS",
    "FSSTAT",
    "FSINFO",
    "PATHCONF",
    "COMMIT",
};

const char *
nfs_v4_op_name(uint32_t op)
{
	return op < NFS_NOPS && op > 2 ? v4_names[op] : NULL;
}

const char *
nfs_proc_name(uint32_t vers, uint32_t proc)
{
	if (vers == 2 && proc < 18)
		return v2_names[proc];
	if (vers == 3 && proc < 22)
		return v3_names[proc];
	if (vers == 4 && proc == 0)
		return "NULL";
	if (vers == 4 && proc == 1)
		return "COMPOUND";
	return NULL;
}

const char *
nfsname_v4(uint32_t op)
{
	return op < NFS_NOPS ? v4_names[op] : "?";
}
