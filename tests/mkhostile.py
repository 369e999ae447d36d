#!/usr/bin/python3
"""mkhostile.py - the hostile archives of tests/hostile_test.sh.

    mkhostile.py OUTDIR OUTSIDE [CLASS...]

Writes, for each class of attack and each format that can express it, an
archive OUTDIR/CLASS-VARIANT.FORMAT (tar: GNU, pax: POSIX.1-2001, cpio:
SVR4 newc, zip), and one line per archive to OUTDIR/MANIFEST:

    FILE EXPECT NAME

EXPECT is "refuse" (the run must fail, exit 1, and the message name NAME)
or "contain" (the run may succeed, but leave nothing outside and nothing
unsafe inside: no device node, no set-id bit). OUTSIDE is the absolute path
of a directory the archives try to reach (the test's canaries live there);
relative attacks climb to it from the run directory, which is
OUTSIDE/../d/ubcreplay-run.XXXXXX.

Python's tarfile and zipfile write what they are told, ".." and absolute
names included; cpio (newc) and the truncated zip are written by hand.
"""
import gzip
import io
import os
import stat
import struct
import sys
import tarfile
import warnings
import zipfile
import zlib

FORMATS = ("tar", "pax", "cpio", "zip")
DATA = b"escaped\n"
MTIME = 1000000000


class Entry:
    """One member: kind is f (file), d, l (symlink), h (hardlink), c, b
    (devices), p (fifo); size, when given, is the size the header claims."""

    def __init__(self, kind, name, data=DATA, link="", mode=None, dev=(0, 0),
                 size=None):
        self.kind, self.name, self.data, self.link = kind, name, data, link
        self.mode = mode if mode is not None else (0o755 if kind == "d"
                                                   else 0o644)
        self.dev, self.size = dev, size
        if kind == "l":
            self.data = link.encode()
        elif kind not in "fh":
            self.data = b""


TAR_TYPES = {"f": tarfile.REGTYPE, "d": tarfile.DIRTYPE,
             "l": tarfile.SYMTYPE, "h": tarfile.LNKTYPE,
             "c": tarfile.CHRTYPE, "b": tarfile.BLKTYPE,
             "p": tarfile.FIFOTYPE}
IFMT = {"f": stat.S_IFREG, "d": stat.S_IFDIR, "l": stat.S_IFLNK,
        "c": stat.S_IFCHR, "b": stat.S_IFBLK, "p": stat.S_IFIFO}


def write_tar(path, entries, fmt, truncate=False):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=fmt) as t:
        for e in entries:
            ti = tarfile.TarInfo(e.name)
            ti.type, ti.mode, ti.mtime = TAR_TYPES[e.kind], e.mode, MTIME
            ti.devmajor, ti.devminor = e.dev
            if e.kind in "lh":
                ti.linkname = e.link
            # A hard link may carry data: libarchive writes it through.
            data = e.data if e.kind in "fh" else b""
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data) if data else None)
    raw = buf.getvalue()
    if truncate:
        raw = patch_tar_size(raw, entries[-1])
    return raw


def patch_tar_size(raw, e):
    """The last member's header claims 1 MiB; the archive ends after its
    data block, with no end-of-archive blocks."""
    off = 0
    while off < len(raw):
        hdr = raw[off:off + 512]
        name = hdr[:100].rstrip(b"\0").decode(errors="replace")
        size = int(hdr[124:136].rstrip(b"\0 ") or b"0", 8)
        if name == e.name and hdr[156:157] in (b"0", b"\0"):
            h = bytearray(hdr)
            h[124:136] = b"%011o\0" % (1 << 20)
            h[148:156] = b" " * 8
            h[148:156] = b"%06o\0 " % sum(h)
            return raw[:off] + bytes(h) + raw[off + 512:off + 1024]
        off += 512 + (size + 511) // 512 * 512
    raise SystemExit("mkhostile: member %s not found" % e.name)


def cpio_member(ino, name, mode, data, nlink=1, rdev=(0, 0), size=None):
    namez = name.encode() + b"\0"
    hdr = b"070701" + b"".join(b"%08X" % v for v in (
        ino, mode, 0, 0, nlink, MTIME,
        len(data) if size is None else size, 0, 0, rdev[0], rdev[1],
        len(namez), 0))
    out = hdr + namez
    out += b"\0" * (-len(out) % 4)
    return out + data + b"\0" * (-len(data) % 4)


def write_cpio(path, entries, truncate=False):
    out = b""
    for i, e in enumerate(entries):
        last = truncate and i == len(entries) - 1
        out += cpio_member(i + 1, e.name, IFMT[e.kind] | e.mode, e.data,
                           rdev=e.dev, size=(1 << 20) if last else None)
    if not truncate:
        out += cpio_member(0, "TRAILER!!!", 0, b"")
    return out


def write_zip(path, entries, truncate=False):
    if truncate:
        # A local header that claims 1 MiB, stored; 8 bytes of data, and the
        # file ends: no central directory.
        e = entries[-1]
        name = e.name.encode()
        crc = zlib.crc32(e.data)
        return struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0, crc,
                           1 << 20, 1 << 20, len(name), 0) + name + e.data
    warnings.simplefilter("ignore")  # duplicate names are the point
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for e in entries:
            zi = zipfile.ZipInfo(e.name + ("/" if e.kind == "d" else ""),
                                 (2001, 9, 9, 1, 46, 40))
            zi.create_system = 3
            zi.external_attr = ((IFMT[e.kind] | e.mode) & 0xFFFF) << 16
            z.writestr(zi, e.data)
    return buf.getvalue()


def write(path, fmt, entries, truncate=False):
    if fmt == "tar":
        raw = write_tar(path, entries, tarfile.GNU_FORMAT, truncate)
    elif fmt == "pax":
        raw = write_tar(path, entries, tarfile.PAX_FORMAT, truncate)
    elif fmt == "cpio":
        raw = write_cpio(path, entries, truncate)
    else:
        raw = write_zip(path, entries, truncate)
    with open(path, "wb") as f:
        f.write(raw)


def bomb(path, fmt, size):
    """One file of size zero bytes, compressed: about a thousandth of it."""
    chunk = b"\0" * (1 << 20)
    if fmt == "zip":
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            zi = zipfile.ZipInfo("bomb", (2001, 9, 9, 1, 46, 40))
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = (stat.S_IFREG | 0o644) << 16
            with z.open(zi, "w", force_zip64=True) as f:
                for _ in range(size >> 20):
                    f.write(chunk)
        return
    with gzip.GzipFile(path, "wb", compresslevel=6, mtime=0) as g:
        if fmt == "cpio":
            g.write(cpio_member(1, "bomb", stat.S_IFREG | 0o644, b"",
                                size=size))
            for _ in range(size >> 20):
                g.write(chunk)
            g.write(cpio_member(0, "TRAILER!!!", 0, b""))
            return
        ti = tarfile.TarInfo("bomb")
        ti.size, ti.mtime = size, MTIME
        ti.mode = 0o644
        t = tarfile.open(fileobj=g, mode="w", format=tarfile.PAX_FORMAT
                         if fmt == "pax" else tarfile.GNU_FORMAT)

        class Zeros(io.RawIOBase):
            left = size

            def readinto(self, b):
                n = min(len(b), self.left)
                b[:n] = bytes(n)
                self.left -= n
                return n

        t.addfile(ti, Zeros())
        t.close()


def classes(outside):
    """Each class: a list of (variant, expect, name to be named, entries,
    formats or None for all, truncate)."""
    out = outside
    up = "../../" + os.path.basename(out)  # from the run directory
    deep = "/".join(["n"] * 1500) + "/deep"
    return {
        "dotdot": [
            ("plain", "refuse", "../escape", [Entry("f", "ok"),
                                               Entry("f", "../escape")]),
            ("inner", "refuse", "a/../../escape",
             [Entry("d", "a"), Entry("f", "a/../../escape")]),
            ("climb", "refuse", up + "/dotdot-pwned",
             [Entry("f", up + "/dotdot-pwned")]),
        ],
        "absolute": [
            ("file", "refuse", out + "/abs-pwned",
             [Entry("f", out + "/abs-pwned")]),
            ("dir", "refuse", out + "/absdir",
             [Entry("d", out + "/absdir")]),
        ],
        "symlink": [
            ("through_abs", "refuse", "lnk/pwned",
             [Entry("l", "lnk", link=out), Entry("f", "lnk/pwned")]),
            ("through_rel", "refuse", "rel/pwned",
             [Entry("l", "rel", link=up), Entry("f", "rel/pwned")]),
            ("through_dir", "refuse", "lnk/sub",
             [Entry("l", "lnk", link=out), Entry("d", "lnk/sub")]),
            # The link is replaced, not followed: contained.
            ("overwrite", "contain", "",
             [Entry("l", "lnk", link=out + "/canary"),
              Entry("f", "lnk")]),
            # The directory's mode and time are set at the end, by name:
            # they must not land on what the name has become.
            ("dir_then_link", "contain", "",
             [Entry("d", "x", mode=0o777), Entry("l", "x", link=out)]),
        ],
        "hardlink": [
            ("abs", "refuse", out + "/canary",
             [Entry("h", "hl", link=out + "/canary", data=b"pwned\n")]),
            ("dotdot", "refuse", up + "/canary",
             [Entry("h", "hl", link=up + "/canary", data=b"pwned\n")]),
            ("via_symlink", "refuse", "lnk/canary",
             [Entry("l", "lnk", link=out),
              Entry("h", "hl", link="lnk/canary", data=b"pwned\n")]),
        ],
        "device": [
            ("char", "refuse", "kmem",
             [Entry("f", "ok"), Entry("c", "kmem", mode=0o666, dev=(1, 2))]),
            ("block", "refuse", "disk",
             [Entry("b", "disk", mode=0o666, dev=(7, 0))]),
        ],
        "fifo": [
            ("plain", "contain", "", [Entry("p", "fifo"), Entry("f", "after")]),
            ("dup", "contain", "", [Entry("p", "x"), Entry("f", "x")]),
        ],
        "setid": [
            ("setuid", "contain", "",
             [Entry("f", "suid", mode=0o4755), Entry("f", "sgid", mode=0o2755),
              Entry("d", "sgiddir", mode=0o2775)]),
        ],
        "longname": [
            ("component", "refuse", "x" * 300, [Entry("f", "x" * 300)]),
            ("path", "contain", "",
             [Entry("f", "/".join(["p" * 200] * 30))]),
            ("deep", "contain", "", [Entry("f", deep)]),
        ],
        "duplicate": [
            ("file", "contain", "",
             [Entry("f", "dup", data=b"one\n"), Entry("f", "dup", data=b"2\n")]),
            ("file_dir", "contain", "",
             [Entry("f", "fd"), Entry("d", "fd"), Entry("f", "fd/in")]),
            ("dir_file", "refuse", "df",
             [Entry("d", "df"), Entry("f", "df/in"), Entry("f", "df")]),
        ],
        "ctrlname": [
            # Refused, and named in a message that must not carry the
            # escape sequences to the terminal.
            ("refused", "refuse", "evil",
             [Entry("f", "../\x1b]2;owned\x07\x1b[2J\r\nevil")]),
            ("contained", "contain", "",
             [Entry("f", "ok\x1b[31mred\x7f\ttab")]),
        ],
        "oversize": [
            ("file", "refuse", "big", [Entry("f", "ok"), Entry("f", "big")]),
        ],
    }


# Formats that cannot say a thing: cpio and zip have no hard link to a name
# (cpio links by inode number, inside the archive), zip no device numbers.
CANNOT = {("hardlink", "cpio"), ("hardlink", "zip"), ("device", "zip")}


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: mkhostile.py OUTDIR OUTSIDE [CLASS...]")
    outdir, outside = sys.argv[1], sys.argv[2]
    want = sys.argv[3:]
    os.makedirs(outdir, exist_ok=True)
    lines = []
    for cls, variants in classes(outside).items():
        if want and cls not in want:
            continue
        for fmt in FORMATS:
            if (cls, fmt) in CANNOT:
                continue
            for variant, expect, name, entries in variants:
                fn = "%s-%s.%s" % (cls, variant, fmt)
                write(os.path.join(outdir, fn), fmt, entries,
                      truncate=cls == "oversize")
                lines.append("%s %s %s" % (fn, expect, name or "-"))
    if not want or "bomb" in want:
        for fmt in FORMATS:
            fn = "bomb.%s%s" % (fmt, "" if fmt == "zip" else ".gz")
            bomb(os.path.join(outdir, fn), fmt, 256 << 20)
            lines.append("%s refuse bomb" % fn)
            # More entries than the target has inodes: 20000 empty files.
            fn = "bomb-inodes.%s" % fmt
            write(os.path.join(outdir, fn), fmt,
                  [Entry("f", "f%05d" % i, data=b"") for i in range(20000)])
            lines.append("%s refuse 'f" % fn)
    with open(os.path.join(outdir, "MANIFEST"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
