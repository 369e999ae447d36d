#!/bin/sh
# record.sh - `ubcreplay record` and the trace workload, against peers
# measured in the same run:
#
#   slowdown   the recorded command's wall time over its own, for record and
#              for strace -f -e trace=<the same calls> -o /dev/null (goal: at
#              most half of strace's), on bsdtar -x, cp -a and git clone
#   replay     the replay's time (as fast as possible) over the command's
#   size       gzip'd trace bytes per operation
#   fidelity   (root, FIDELITY=1) on fresh ext4 and xfs loop filesystems,
#              the command against its replay over RUNS runs each: write()
#              calls and bytes (strace -f -y against the replay's result),
#              and what the device received, exact probe, by `ubcreplay
#              compare` of the command run as a workload (`ubcreplay DIR
#              -- command`) against the replay of its trace; and bsdtar's
#              replay against `ubcreplay ARCHIVE`, the same way.
#
# The workloads: bsdtar -x of the emacs-sized archive, cp -a and git clone
# of the first 3000 files of /usr/include, and make -j2 of the kernel's
# objtool (tools/ of linux-source-6.1, from its tarball in /usr/src: make
# skipped without it).
#
#   sh bench/record.sh TOP          (make bench runs it)
#   FIDELITY=1 RUNS=5 sh bench/record.sh TOP
#   SLOWDOWN=0 FIDELITY=1 sh bench/record.sh TOP     (fidelity alone)
#   WORKLOADS="cp git" FSTYPES=xfs ...                (some of them)
set -u
top=$(cd "$1" && pwd) || exit 1
ubc=$top/ubcreplay
archive=$top/build/fixtures/emacs-like.tar.gz
small=$top/build/fixtures/small.tar.gz
REPS=${REPS:-3}
WORKLOADS=${WORKLOADS:-bsdtar cp git make}
FSTYPES=${FSTYPES:-ext4 xfs}
RUNS=${RUNS:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/ubc-record-bench.XXXXXX") || exit 1
# Loop devices are listed in a file: loopfs runs in a command substitution,
# whose variables its caller never sees.
cleanup()
{
	if [ -f "$work/loops" ]; then
		while read -r dev dir; do
			umount "$dir" 2>/dev/null || umount -l "$dir" 2>/dev/null
			losetup -d "$dev" 2>/dev/null
		done <"$work/loops"
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
for p in bsdtar strace git; do
	command -v $p >/dev/null || { echo "record: needs $p; skipped"; exit 0; }
done
calls=read,write,pread64,pwrite64,readv,writev,preadv,pwritev,preadv2,pwritev2,open,creat,openat,openat2,close,close_range,dup,dup2,dup3,fcntl,lseek,fsync,fdatasync,sync_file_range,fallocate,ftruncate,truncate,rename,renameat,renameat2,link,linkat,symlink,symlinkat,unlink,unlinkat,mkdir,mkdirat,rmdir,mmap,copy_file_range,sync,syncfs,clone,clone3,fork,vfork,execve,execveat

# A tree of a few thousand real files (the first 3000 of /usr/include), and
# a git repository of it, cloned locally by the git workload.
mkdir -p "$work/tree" "$work/repo"
(cd /usr/include && find . -type f | sort | head -3000 | tar -cf - -T - 2>/dev/null) |
    (cd "$work/tree" && tar -xf -)
(cd "$work/repo" && cp -a "$work/tree/." . && git init -q && git add -A &&
    git -c user.name=b -c user.email=b@b commit -qm tree) || exit 1

# A real C project built with make -j2: the kernel's objtool, its objects
# in the directory measured, its sources outside it.
case " $WORKLOADS " in
*" make "*)
	src=/usr/src/linux-source-6.1.tar.xz
	if [ -f "$src" ] && command -v make >/dev/null && command -v cc >/dev/null; then
		tar -xJf "$src" -C "$work" linux-source-6.1/tools || exit 1
	else
		echo "record: make needs $src, make and cc (contrib/deps.sh kbuild); skipped"
		WORKLOADS=$(echo " $WORKLOADS " | sed 's/ make / /')
	fi ;;
esac

# wl NAME DIR: the workload's command, run in DIR (which it fills); a
# script of its own, so that record, strace and ubcreplay run the same one.
cat >"$work/wl.sh" <<EOF
case \$1 in
bsdtar) exec bsdtar -xf "$archive" -C "\$2" ;;
cp) exec cp -a "$work/tree" "\$2/tree" ;;
git) exec git clone -q --no-hardlinks "$work/repo" "\$2/repo" ;;
make) exec make -s -j2 -C "$work/linux-source-6.1/tools/objtool" OUTPUT="\$(cd "\$2" && pwd)/" ;;
esac
EOF
wl() { sh "$work/wl.sh" "$@"; }

now() { date +%s.%N; }

# one NAME MODE: "wall cpu" seconds of one run in a fresh directory, cpu
# being user + system of everything the run started (the tracer's too), by
# /usr/bin/time: on a machine shared with other jobs, wall time swings by
# several times between identical runs; CPU time much less.
one()
{
	rm -rf "$work/d" && mkdir "$work/d" && sync
	case $2 in
	plain) set -- sh "$work/wl.sh" "$1" "$work/d" ;;
	record) set -- "$ubc" record -q -o "$work/$1.trace.gz" -C "$work/d" -- \
	    sh "$work/wl.sh" "$1" "$work/d" ;;
	strace) set -- strace -f -qq -e trace=$calls -o /dev/null \
	    sh "$work/wl.sh" "$1" "$work/d" ;;
	esac
	/usr/bin/time -f '%e %U %S' -o "$work/time" "$@" >/dev/null 2>&1
	awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$work/time"
}

# The modes take turns, REPS rounds after one unmeasured round that warms
# the caches, so that the machine's other load falls on all three alike.
med() { sort -n "$1" | sed -n "$(((REPS + 1) / 2))p"; }
medcpu() { awk '{ print $2 }' "$1" | sort -n | sed -n "$(((REPS + 1) / 2))p"; }

[ "${SLOWDOWN:-1}" = 1 ] || REPS=0
[ "$REPS" -gt 0 ] &&
echo "workload  wall: plain s  record x  strace x   cpu: plain s  record x  strace x  overhead record/strace  ops  trace B/op  replay s  replay/plain"
for w in $WORKLOADS; do
	[ "$REPS" -gt 0 ] || break
	: >"$work/plain" && : >"$work/record" && : >"$work/strace"
	i=-1
	while [ $i -lt "$REPS" ]; do
		i=$((i + 1))
		for m in plain strace record; do
			t=$(one $w $m)
			[ $i -gt 0 ] && echo "$t" >>"$work/$m"
		done
	done
	p=$(med "$work/plain") s=$(med "$work/strace") r=$(med "$work/record")
	pc=$(medcpu "$work/plain") sc=$(medcpu "$work/strace") rc=$(medcpu "$work/record")
	ops=$("$ubc" record -d "$work/$w.trace.gz" | wc -l)
	size=$(wc -c <"$work/$w.trace.gz")
	mkdir -p "$work/rd"
	"$ubc" -q -p none -n "$REPS" -o "$work/$w.json" "$work/$w.trace.gz" "$work/rd" ||
	    echo "record: replay of $w failed"
	rp=$(python3 -c "import json,sys,statistics as s; d=json.load(open(sys.argv[1]));
print('%.3f' % s.median(r['phases'][0]['elapsed_ns']/1e9 for r in d['runs']))" "$work/$w.json")
	awk -v w=$w -v p="${p% *}" -v r="${r% *}" -v s="${s% *}" -v pc="$pc" -v rc="$rc" -v sc="$sc" \
	    -v ops="$ops" -v size="$size" -v rp="$rp" 'BEGIN {
	    printf "%-8s %14.2f %9.2f %9.2f %14.2f %9.2f %9.2f %23.2f %6d %11.1f %9.3f %13.2f\n",
	    w, p, r / p, s / p, pc, rc / pc, sc / pc, (rc - pc) / (sc - pc), ops, size / ops, rp, rp / p }'
done
[ "$REPS" -gt 0 ] && {
echo "(record x, strace x: time over the plain command's, medians of $REPS rounds taken in turn;"
echo " overhead record/strace: (record - plain) / (strace - plain) in CPU seconds;"
echo " replay: -p none, the replay phase alone, against the plain command's wall time)"; }

[ "${FIDELITY:-0}" = 1 ] || exit 0
[ "$(id -u)" -eq 0 ] || { echo "fidelity: needs root (loop filesystems); skipped"; exit 0; }

# loopfs NAME FS: a fresh filesystem mounted on $work/NAME; its device.
loopfs()
{
	truncate -s 1024M "$work/$1.img"
	case $2 in
	ext4) mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$work/$1.img" ;;
	xfs) mkfs.xfs -q -f "$work/$1.img" ;;
	esac >/dev/null 2>&1
	dev=$(losetup -f --show "$work/$1.img") || exit 1
	mkdir -p "$work/$1"
	mount "$dev" "$work/$1" || exit 1
	echo "$dev $work/$1" >>"$work/loops"
	basename "$dev"
}

# strace -f -y -s 0's write() calls under DIR: "count bytes" (-s 0: printed
# data could hold a '<' taken for a path).
appcalls()
{
	sed -n 's/^[0-9]* *\(write\|pwrite64\|writev\|pwritev\|copy_file_range\)(.*<\([^>]*\)>.* = \([0-9][0-9]*\)$/\2 \3/p' "$1" |
	    awk -v dir="$2/" 'index($1, dir) == 1 && $2 > 0 { n++; b += $2 } END { print n + 0, b + 0 }'
}

# verdict A.json B.json: compare's word on the device's write requests,
# bytes, mean size and size histogram (significant or not), and the medians.
verdict()
{
	"$ubc" compare "$1" "$2" >"$work/cmp.txt" 2>&1 || { echo "compare failed: $(cat "$work/cmp.txt")"; return; }
	awk '$1 ~ /^write\.(ops|bytes|mean_bytes)$/ && !seen[$1]++ { printf "%s %s -> %s %s%s; ", $1, $2, $4, $6, ($7 == "*" ? " *" : "") }
	    /^write transfer sizes/ { h = 1 }
	    h && /chi-square/ { p = $0; sub(/.* p /, "", p); sub(/;.*/, "", p) }
	    h && /median .* -> / { sub(/^ *EMD [^;]*; /, ""); printf "hist p %s, %s", p, $0; h = 0 }' "$work/cmp.txt"
	echo
}

echo
echo "fidelity over $RUNS runs: the command against its replay, fresh loop filesystems, exact probe"
echo "(app: write() calls and bytes, strace of the command / the replay's own count;"
echo " device: ubcreplay compare of the command as a workload against the replay,"
echo " median -> median, change, * where significant; hist: the size histogram's verdict)"
for fs in $FSTYPES; do
	for w in $WORKLOADS; do
		dev=$(loopfs "m$fs$w" $fs)
		m=$work/m$fs$w
		# The trace, recorded on this filesystem.
		mkdir "$m/rec"
		"$ubc" record -q -o "$work/f.trace.gz" -C "$m/rec" -- \
		    sh "$work/wl.sh" $w "$m/rec" >/dev/null 2>&1
		rm -rf "$m/rec"
		# str, as long a name as rec: paths written into files (make's
		# dependency records) are as long.
		mkdir "$m/str" "$work/st"
		# A file per process (-ff): -f alone splits the calls of
		# processes that run at once (make's) into lines not read here.
		strace -ff -y -qq -s 0 -e trace=write,pwrite64,writev,pwritev,copy_file_range -o "$work/st/s" \
		    sh "$work/wl.sh" $w "$m/str" >/dev/null 2>&1
		cat "$work"/st/s.* >"$work/s.out" && rm -rf "$work/st"
		app=$(appcalls "$work/s.out" "$m/str")
		rm -rf "$m/str" "$work/o.json" "$work/r.json"
		sync -f "$m"
		"$ubc" -q -p exact -n "$RUNS" -l "$w" -o "$work/o.json" "$m" -- sh "$work/wl.sh" $w . 2>/dev/null ||
		    echo "fidelity: the command failed on $fs $w"
		"$ubc" -q -p exact -n "$RUNS" -l "$w replay" -o "$work/r.json" "$work/f.trace.gz" "$m" ||
		    echo "fidelity: replay failed on $fs $w"
		rapp=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1]))
p=[p for p in d['runs'][0]['phases'] if p['phase'] == 'replay'][0]['app_write']
print(p['ops'], p['bytes'])" "$work/r.json")
		set -- $app $rapp
		printf '%-5s %-7s app %s/%s calls %s/%s bytes%s\n      device: %s\n' $fs $w $1 $3 $2 $4 \
		    "$([ "$1 $2" = "$3 $4" ] && echo ", equal" || echo ", DIFFERENT")" \
		    "$(verdict "$work/o.json" "$work/r.json")"
		umount "$m" && losetup -d "/dev/$dev" && rm -f "$m.img"
	done
done
# bsdtar's replay against ubcreplay's own extraction of the archive.
for fs in $FSTYPES; do
	case " $WORKLOADS " in *" bsdtar "*) ;; *) break ;; esac
	dev=$(loopfs "c$fs" $fs)
	mkdir "$work/c$fs/rec"
	"$ubc" record -q -o "$work/c.trace.gz" -C "$work/c$fs/rec" -- bsdtar -xf "$archive" -C "$work/c$fs/rec"
	rm -rf "$work/c$fs/rec"
	"$ubc" -q -p exact -n "$RUNS" -o "$work/a.json" -l archive "$archive" "$work/c$fs" &&
	    "$ubc" -q -p exact -n "$RUNS" -o "$work/t.json" -l "bsdtar trace" "$work/c.trace.gz" "$work/c$fs" &&
	    printf '%-5s ubcreplay ARCHIVE against the replay of bsdtar -x trace\n      device: %s\n' $fs \
	    "$(verdict "$work/a.json" "$work/t.json")"
done
