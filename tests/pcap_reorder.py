#!/usr/bin/env python3
"""pcap_reorder.py - write a copy of a capture in which TCP segments were
recorded out of order, as tcpdump sometimes records them on lo.

  pcap_reorder.py IN.pcap OUT.pcap PORT [EVERY]

Every EVERY-th (default 7th) segment that carries data towards PORT trades
places with the next segment of the same connection and direction that
carries data, when no data went the other way between them: two segments
of one burst, captured in the wrong order (a reply cannot be captured
before the call it answers was sent whole). The records' time stamps stay
where they were, so the file still reads forward in time. Prints how many
pairs were swapped. Reads pcap (micro- or nanosecond) with Ethernet (Linux
lo) or raw IPv4 links.
"""
import struct
import sys


def records(data, endian):
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack(endian + "IIII", data[off:off + 16])
        yield [sec, frac, orig, data[off + 16:off + 16 + incl]]
        off += 16 + incl


def flow(pkt, link, port):
    """The connection of a data segment towards port; ("back", connection)
    for one from it; None for anything else."""
    if link == 1:
        if len(pkt) < 14 or pkt[12:14] != b"\x08\x00":
            return None
        ip = pkt[14:]
    elif link in (101, 228):
        ip = pkt
    else:
        sys.exit("pcap_reorder: link type %d not handled" % link)
    if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 6:
        return None
    ihl = (ip[0] & 15) * 4
    total = struct.unpack(">H", ip[2:4])[0]
    tcp = ip[ihl:]
    if len(tcp) < 20:
        return None
    sport, dport = struct.unpack(">HH", tcp[0:4])
    payload = total - ihl - (tcp[12] >> 4) * 4
    if payload <= 0 or port not in (sport, dport):
        return None
    if dport == port:
        return (ip[12:16], sport, ip[16:20], dport)
    return ("back", (ip[16:20], dport, ip[12:16], sport))


def main(argv):
    src, dst, port = argv[1], argv[2], int(argv[3])
    every = int(argv[4]) if len(argv) > 4 else 7
    data = open(src, "rb").read()
    magic = data[:4]
    endian = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    link = struct.unpack(endian + "I", data[20:24])[0] & 0xFFFF
    recs = list(records(data, endian))
    seen = swapped = 0
    i = 0
    while i < len(recs):
        f = flow(recs[i][3], link, port)
        if f is not None and f[0] != "back":
            seen += 1
            if seen % every == 0:
                for j in range(i + 1, len(recs)):
                    g = flow(recs[j][3], link, port)
                    if g == ("back", f):
                        break
                    if g == f:
                        # The packets trade places; the clock stays.
                        recs[i][2:], recs[j][2:] = recs[j][2:], recs[i][2:]
                        swapped += 1
                        i = j
                        break
        i += 1
    with open(dst, "wb") as out:
        out.write(data[:24])
        for sec, frac, orig, pkt in recs:
            out.write(struct.pack(endian + "IIII", sec, frac, len(pkt), orig))
            out.write(pkt)
    print("%d segments swapped with a later one" % swapped)


if __name__ == "__main__":
    main(sys.argv)
