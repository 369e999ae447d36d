#!/usr/bin/python3
# guest_diskstats.py - what vm_test.sh and uml_test.sh check of a guest's
# run: the exact probe's requests on the guest's one disk, summed over the
# run's phases, equal the deltas of the guest's own /proc/diskstats (the
# kernel's count, an instrument of its own): write requests (an empty
# preflush is one) and bytes, and read requests. Imported:
#
#   sys.path.insert(0, TOP + "/tests"); from guest_diskstats import mismatch
#   mismatch(run, "vda")  ->  None, or what differs


def mismatch(run, disk):
    tot = dict.fromkeys(("ops", "bytes", "ds_ops", "ds_bytes", "rd", "ds_rd"), 0)
    for p in run["phases"]:
        for dev in p["devices"]:
            if dev["device"] != disk:
                return "device %r: the disk is %s" % (dev["device"], disk)
            s = dev["diskstats"]
            for k, v in (("ops", dev["write"]["ops"] + dev["empty_preflush"]),
                         ("bytes", dev["write"]["bytes"]),
                         ("ds_ops", s["write_ops"]), ("ds_bytes", s["write_bytes"]),
                         ("rd", dev["read"]["ops"]), ("ds_rd", s["read_ops"])):
                tot[k] += v
    if (tot["ops"], tot["bytes"]) != (tot["ds_ops"], tot["ds_bytes"]):
        return "requests %d ops %d bytes, diskstats %d ops %d bytes" % (
            tot["ops"], tot["bytes"], tot["ds_ops"], tot["ds_bytes"])
    if tot["rd"] != tot["ds_rd"]:
        return "reads: %d requests, diskstats %d" % (tot["rd"], tot["ds_rd"])
    return None
