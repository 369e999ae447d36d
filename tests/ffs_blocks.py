#!/usr/bin/env python3
"""ffs_blocks.py - a second decoder of FFS images, for ffs_image_test.

It shares no code with traces/ffs_image.c and is written another way: it
maps each logical block of a file to its address one at a time, as
ufs_bmap does (the C decoder walks the indirect tree), and it paints a
map of 512-byte sectors in rank order, lowest first (the C decoder adds
ranked extents and lets model/layout.c resolve them). The rules are the
same, taken from NetBSD's sys/ufs (fs.h, dinode.h, ufs_wapbl.h):

  free     fragments free in a cylinder group's map            (rank 1)
  data     blocks of regular files and long symbolic links     (rank 2)
  dir      blocks of directories                               (rank 2)
  map      indirect blocks                                     (rank 2)
  journal  blocks of an inode flagged SF_LOG                   (rank 2)
           the log's place in the superblock                   (rank 3)
  alloc    superblock, each group's copy, header and maps,
           the summary area                                    (rank 3)
  inode    each group's inode blocks                           (rank 3)

Prints "fsize N", "bsize N", "image N" then the map as "OFFSET LENGTH
CLASS" lines (bytes, disjoint, sorted; what no rule covers is left out).
Trusts the image: it is for images known to be good.

    python3 tests/ffs_blocks.py IMAGE
    python3 tests/ffs_blocks.py --find IMAGE   where the hostile cases write
"""
import struct
import sys

CLASSES = ["data", "dir", "inode", "alloc", "map", "journal", "free"]
SECTOR = 512


class Image:
    def __init__(self, data):
        self.d = data
        for at in (65536, 8192, 0, 262144):
            if at + 1376 > len(data):
                continue
            for e in "<>":
                magic, = struct.unpack_from(e + "I", data, at + 1372)
                if magic not in (0x011954, 0x19540119):
                    continue
                updated = magic == 0x19540119 or data[at + 211] & 0x80
                if not updated and at == 65536:
                    continue
                loc = struct.unpack_from(e + "q", data, at + 1000)[0] \
                    if updated else at
                if loc == at:
                    self.parse(at, e, magic == 0x19540119, updated)
                    return
        raise SystemExit("ffs_blocks.py: no superblock")

    def parse(self, at, e, ufs2, updated):
        self.e, self.ufs2, self.sbloc = e, ufs2, at

        def i32(off):
            return struct.unpack_from(e + "i", self.d, at + off)[0]

        def i64(off):
            return struct.unpack_from(e + "q", self.d, at + off)[0]
        (self.sblkno, self.cblkno, self.iblkno, self.dblkno,
         self.cgoffset, self.cgmask) = [i32(o) for o in (8, 12, 16, 20, 24, 28)]
        self.ncg, self.bsize, self.fsize, self.frag = [
            i32(o) for o in (44, 48, 52, 56)]
        self.nindir, self.inopb = i32(116), i32(120)
        self.cssize, self.cgsize = i32(156), i32(160)
        self.ipg, self.fpg = i32(184), i32(188)
        self.size = i64(1080) if updated else i32(36)
        self.csaddr = i64(1096) if updated else i32(152)
        self.maxsymlinklen = i32(1320)
        self.jversion, self.jloc = self.d[at + 864], self.d[at + 865]
        self.jlocs = struct.unpack_from(e + "4Q", self.d, at + 872)
        self.isize = 256 if ufs2 else 128
        self.pfmt = e + ("q" if ufs2 else "i")
        self.psize = 8 if ufs2 else 4

    def u(self, fmt, off):
        return struct.unpack_from(self.e + fmt, self.d, off)[0]

    def cgstart(self, c):
        base = self.fpg * c
        if self.ufs2:
            return base
        return base + self.cgoffset * (c & ~self.cgmask & 0xffffffff)

    def ptr(self, off):
        return struct.unpack_from(self.pfmt, self.d, off)[0]

    def bmap(self, dinode, lbn):
        """The fragment address of logical block lbn, 0 for a hole, and
        the indirect blocks passed through on the way."""
        db = dinode + (112 if self.ufs2 else 40)
        ib = dinode + (208 if self.ufs2 else 88)
        if lbn < 12:
            return self.ptr(db + lbn * self.psize), []
        lbn -= 12
        n = self.nindir
        for level in range(3):
            span = n ** (level + 1)
            if lbn < span:
                break
            lbn -= span
        addr = self.ptr(ib + level * self.psize)
        path = []
        for depth in range(level, -1, -1):
            if addr == 0:
                return 0, path
            path.append(addr)
            idx = (lbn // n ** depth) % n
            addr = self.ptr(addr * self.fsize + idx * self.psize)
        return addr, path


def layout(img):
    f = img
    nsect = len(f.d) // SECTOR
    paint = bytearray([255]) * nsect    # 255: nothing says
    rank = bytearray(nsect)

    def mark(off, length, cls, r):
        s, t = off // SECTOR, (off + length) // SECTOR
        for i in range(s, min(t, nsect)):
            if r >= rank[i]:
                rank[i] = r
                paint[i] = CLASSES.index(cls)

    def frags(a, n, cls, r):
        mark(a * f.fsize, n * f.fsize, cls, r)

    sure = []
    for c in range(f.ncg):
        s = f.cgstart(c)
        sure.append((s + f.sblkno, f.iblkno - f.sblkno, "alloc"))
        sure.append((s + f.iblkno, f.dblkno - f.iblkno, "inode"))
    sure_bytes = [(f.sbloc, 8192, "alloc"),
                  (f.csaddr * f.fsize,
                   -(-f.cssize // f.fsize) * f.fsize, "alloc")]
    if f.jversion == 1 and f.jloc in (1, 2):
        a, n, b = f.jlocs[0], f.jlocs[1], f.jlocs[2]
        sure_bytes.append((a * b, n * b, "journal"))

    claims = []
    for c in range(f.ncg):
        cg = f.cgstart(c) * f.fsize + f.cblkno * f.fsize
        ndblk = f.u("i", cg + 20)
        iused, free = f.u("i", cg + 92), f.u("i", cg + 96)
        base = f.fpg * c
        for j in range(ndblk):
            if f.d[cg + free + j // 8] >> (j % 8) & 1:
                frags(base + j, 1, "free", 1)
        for i in range(f.ipg):
            if not f.d[cg + iused + i // 8] >> (i % 8) & 1:
                continue
            blk = i // f.inopb
            dinode = ((f.cgstart(c) + f.iblkno) * f.fsize +
                      blk * f.bsize + (i % f.inopb) * f.isize)
            claims.extend(inode_blocks(f, dinode))
    claimed = set()     # a fragment claimed twice: the first claim holds
    for a, n, cls in claims:
        for k in range(a, a + n):
            if k not in claimed:
                claimed.add(k)
                frags(k, 1, cls, 2)
    for a, n, cls in sure:
        frags(a, n, cls, 3)
    for off, length, cls in sure_bytes:
        mark(off, length, cls, 3)
    return paint


def inode_blocks(f, dinode):
    mode = f.u("H", dinode)
    size = f.u("Q", dinode + (16 if f.ufs2 else 8))
    flags = f.u("I", dinode + (88 if f.ufs2 else 100))
    kind = mode & 0o170000
    if kind == 0o100000:
        cls = "data"
    elif kind == 0o040000:
        cls = "dir"
    elif kind == 0o120000:
        if f.maxsymlinklen > 0 and size < f.maxsymlinklen:
            return []
        cls = "data"
    else:
        return []
    if flags & 0x00200000:      # SF_SNAPSHOT: not walked
        return []
    if flags & 0x00400000 and cls == "data":
        cls = "journal"
    out, seen = [], set()
    nblocks = -(-size // f.bsize)
    for lbn in range(nblocks):
        addr, path = f.bmap(dinode, lbn)
        for p in path:
            if p not in seen:
                seen.add(p)
                out.append((p, f.frag, "map"))
        if addr == 0:
            continue
        if lbn < 12 and lbn == size // f.bsize:
            n = -(-(size % f.bsize) // f.fsize)
        else:
            n = f.frag
        out.append((addr, n, cls))
    return out


def find(img):
    """Where the hostile cases change the image: the superblock, and the
    dinodes of a regular file with a direct block and of one with an
    indirect block (its first entry's place too)."""
    f = img
    out = ["sb %d" % f.sbloc, "size %d" % f.size, "fsize %d" % f.fsize,
           "ufs2 %d" % f.ufs2,
           "cg0 %d" % ((f.cgstart(0) + f.cblkno) * f.fsize)]
    found = set()
    for c in range(f.ncg):
        for i in range(f.ipg):
            dinode = ((f.cgstart(c) + f.iblkno) * f.fsize +
                      (i // f.inopb) * f.bsize + (i % f.inopb) * f.isize)
            if f.u("H", dinode) & 0o170000 != 0o100000:
                continue
            db = dinode + (112 if f.ufs2 else 40)
            ib = dinode + (208 if f.ufs2 else 88)
            if "direct" not in found and f.ptr(db):
                out.append("direct %d %d" % (c * f.ipg + i, db))
                found.add("direct")
            if "indirect" not in found and f.ptr(ib):
                out.append("indirect %d %d %d" % (
                    c * f.ipg + i, ib, f.ptr(ib) * f.fsize))
                found.add("indirect")
    print("\n".join(out))


def main():
    if sys.argv[1] == "--find":
        find(Image(open(sys.argv[2], "rb").read()))
        return
    data = open(sys.argv[1], "rb").read()
    img = Image(data)
    paint = layout(img)
    out = ["fsize %d" % img.fsize, "bsize %d" % img.bsize,
           "image %d" % len(data)]
    i, n = 0, len(paint)
    while i < n:
        j = i
        while j < n and paint[j] == paint[i]:
            j += 1
        if paint[i] != 255:
            out.append("%d %d %s" % (i * SECTOR, (j - i) * SECTOR,
                                     CLASSES[paint[i]]))
        i = j
    print("\n".join(out))


if __name__ == "__main__":
    main()
