#!/usr/bin/env python3
# nfs_table.py - the layers of NFS results side by side, one line per
# result, as the Markdown table of docs/nfs.md:
#
#   python3 contrib/nfs_table.py RESULT.json ...
#
# Each figure is the first run's, over the whole run (extract, sync and
# remove), so that the wire share, the client's counters and the server's
# disk cover the same span. Medians are the log2 histogram's median bucket
# (its lower bound), as `compare` prints them.
import json
import sys


def median_bucket(hist):
    buckets = hist.get("buckets", [])
    total = sum(b["count"] for b in buckets)
    if total == 0:
        return "-"
    seen = 0
    for b in buckets:
        seen += b["count"]
        if 2 * seen >= total:
            return size(b["min_bytes"])
    return "-"


def size(n):
    for unit, div in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= div and n % div == 0:
            return "%d%s" % (n // div, unit)
    return str(n)


def merged(hists):
    count = {}
    for h in hists:
        for b in h.get("buckets", []):
            count[b["min_bytes"]] = count.get(b["min_bytes"], 0) + b["count"]
    return {"buckets": [{"min_bytes": k, "count": count[k]} for k in sorted(count)]}


def row(path):
    doc = json.load(open(path))
    run = doc["runs"][0]
    vm = doc.get("vm", {})
    nfs = vm.get("nfs")
    app = merged(p["app_write"]["size_hist"] for p in run["phases"] if "app_write" in p)
    app_bytes = sum(p["app_write"]["bytes"] for p in run["phases"] if "app_write" in p)
    disk_ops = disk_bytes = flushes = 0
    for p in run["phases"]:
        for d in p["devices"]:
            disk_ops += d["write"]["ops"]
            disk_bytes += d["write"]["bytes"]
            flushes += d.get("flushes", 0)
    opts = dict(o.split("=", 1) for o in doc["targets"][0]["options"].split(",") if "=" in o)
    cells = [vm.get("kernel_release", "?"),
             nfs["mount_options"] if nfs else "local",
             nfs["server"] if nfs else vm.get("image", {}).get("fstype", "?"),
             size(int(opts["wsize"])) if "wsize" in opts else "-",
             median_bucket(app), str(app_bytes)]
    wire = run.get("nfs")
    if wire is not None:
        w = wire["write"]
        cells += [str(w["calls"]), median_bucket(w["done_size_hist"]),
                  str(w["bytes_done"]),
                  "%d / %d" % (wire["stable"]["unstable"],
                               wire["stable"]["data_sync"] + wire["stable"]["file_sync"]),
                  str(wire["commit"]["calls"])]
        ms = run.get("mountstats")
        cells.append("%d / %d" % (ms["WRITE"]["ops"], ms["server_write_bytes"]) if ms else "-")
    else:
        cells += ["-"] * 6
    watched = doc["targets"][0]["devices"] if doc.get("targets") else []
    if watched:
        cells += [str(disk_ops), "%.1fK" % (disk_bytes / disk_ops / 1024) if disk_ops else "-",
                  str(disk_bytes), str(flushes)]
    else:
        cells += ["-"] * 4
    return "| " + " | ".join(cells) + " |"


print("| kernel | NFS | server | wsize | app write() median | app bytes | WRITE calls "
      "| WRITE median acked | bytes acked | unstable / stable | COMMITs "
      "| mountstats WRITEs / bytes | disk writes | mean write | disk bytes | flushes |")
print("|" + "---|" * 16)
for p in sys.argv[1:]:
    print(row(p))
