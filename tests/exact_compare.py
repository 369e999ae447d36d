#!/usr/bin/python3
# exact_compare.py - checks a ubcreplay result made with the exact probe
# against instruments that are not ubcreplay. Used by exact_test.sh.
#
#   exact_compare.py bpftrace RESULT.json BPFTRACE.out
#	The device-request histograms (count per log2 bucket, reads and
#	writes) and the total bytes must equal what bpftrace counted on
#	tracepoint:block:block_rq_issue for the same device, and the splits
#	what it counted on tracepoint:block:block_split (@ws, @rs). bpftrace's
#	maps are keyed by the exact byte count; the buckets are computed here
#	(hist.h: bucket k holds [2^(k-1), 2^k - 1]).
#
#   exact_compare.py diskstats RESULT.json "BEFORE" "AFTER"
#	BEFORE and AFTER are /sys/block/DEV/stat taken around the run. Under
#	the counting rules (model/blkev.h) diskstats' write ops are the
#	write requests plus the empty preflush writes, its bytes the requests'
#	bytes, its merges the bios plus the splits less the requests, and its
#	flushes the flushes; reads likewise.
#
# Prints the comparison; exits 1 when anything differs.
import json
import re
import sys


def devices(d):
    devs = [dv for r in d['runs'] for p in r['phases'] for dv in p['devices']]
    return devs + d.get('between_runs', {}).get('devices', [])


def bucket(v):
    return 0 if v == 0 else 1 << (v.bit_length() - 1)


def cmp_bpftrace(result, btout):
    """Writes bucket for bucket and byte for byte. Reads: bpftrace counts
    the device over a wider window than the job's phases, and something
    else on the machine (a probe of a new block device's first blocks)
    may read it then; the job writes, nothing else does. So the tool may
    count fewer reads than bpftrace, never more."""
    d = json.load(open(result))
    tool = {'read': {}, 'write': {}}
    tbytes = {'read': 0, 'write': 0}
    tsplits = {'read': 0, 'write': 0}
    for dv in devices(d):
        for k in tool:
            tbytes[k] += dv[k]['bytes']
            tsplits[k] += dv[k].get('splits', 0)
            for b in dv[k]['size_hist']['buckets']:
                tool[k][b['min_bytes']] = \
                    tool[k].get(b['min_bytes'], 0) + b['count']
    bt = {'read': {}, 'write': {}}
    bbytes = {'read': 0, 'write': 0}
    bsplits = {'read': 0, 'write': 0}
    names = {'r': 'read', 'w': 'write'}
    for line in open(btout):
        m = re.match(r'@([rw])s: (\d+)', line)
        if m:
            bsplits[names[m.group(1)]] += int(m.group(2))
        m = re.match(r'@([rw])\[(\d+)\]: (\d+)', line)
        if m:
            k, lo = names[m.group(1)], bucket(int(m.group(2)))
            bt[k][lo] = bt[k].get(lo, 0) + int(m.group(3))
        m = re.match(r'@([rw])b: (\d+)', line)
        if m:
            bbytes[names[m.group(1)]] += int(m.group(2))
    ok = True
    for k in tool:
        for lo in sorted(set(tool[k]) | set(bt[k])):
            a, b = tool[k].get(lo, 0), bt[k].get(lo, 0)
            good = a == b if k == 'write' else a <= b
            ok &= good
            print('%-5s %10d  ubcreplay %7d  bpftrace %7d%s'
                  % (k, lo, a, b, '' if good else '  <-- differs'))
        print('%s bytes: ubcreplay %d, bpftrace %d'
              % (k, tbytes[k], bbytes[k]))
        good = tsplits[k] == bsplits[k] if k == 'write' \
            else tsplits[k] <= bsplits[k]
        ok &= good
        print('%s splits: ubcreplay %d, bpftrace %d%s'
              % (k, tsplits[k], bsplits[k], '' if good else '  <-- differs'))
    ok &= tbytes['write'] == bbytes['write']
    ok &= tbytes['read'] <= bbytes['read']
    if sum(sum(h.values()) for h in bt.values()) == 0:
        print('bpftrace counted nothing: not a comparison')
        ok = False
    return ok


def cmp_diskstats(result, before, after):
    d = json.load(open(result))
    b = [int(x) for x in before.split()]
    a = [int(x) for x in after.split()]
    delta = [x - y for x, y in zip(a, b)]
    devs = devices(d)

    def total(f):
        return sum(f(dv) for dv in devs)
    rows = [
        ('read ops', delta[0], total(lambda dv: dv['read']['ops'])),
        ('read bytes', delta[2] * 512, total(lambda dv: dv['read']['bytes'])),
        ('write ops', delta[4], total(lambda dv: dv['write']['ops'] +
                                      dv['empty_preflush'])),
        ('write bytes', delta[6] * 512,
         total(lambda dv: dv['write']['bytes'])),
        ('write merges', delta[5], total(lambda dv: dv['write']['merges'])),
        ('flushes', delta[15] if len(delta) > 15 else 0,
         total(lambda dv: dv['flushes'])),
        ('lost events', 0, total(lambda dv: dv['lost_events'])),
    ]
    ok = True
    for what, want, got in rows:
        ok &= want == got
        print('%-12s diskstats %10d  ubcreplay %10d%s'
              % (what, want, got, '' if want == got else '  <-- differs'))
    return ok


if __name__ == '__main__':
    if sys.argv[1] == 'bpftrace':
        good = cmp_bpftrace(sys.argv[2], sys.argv[3])
    else:
        good = cmp_diskstats(sys.argv[2], sys.argv[3], sys.argv[4])
    sys.exit(0 if good else 1)
