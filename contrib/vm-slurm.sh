#!/bin/sh
# vm-slurm.sh - the cells of a `ubcreplay vm` plan as a Slurm array job, one
# cell a task, their results into one directory the nodes share; then a job
# that depends on the array, reads that directory whole (one plan, no cell
# missing) and prints the series with the gates' verdict. This script waits
# for it and exits with its status: 0 no gate failed, 1 one did, 2 a cell
# failed or the results are not one plan's whole.
#
#   contrib/vm-slurm.sh [-d DIR] [-u UBCREPLAY] [-s 'SBATCH OPTIONS'] -- VM-ARGS ...
#
#   -d DIR       the shared directory (default: ./ubcreplay-slurm.XXXXXX):
#                plan.jsonl, results/, logs/, cell.sh, merge.sh, merge.out
#   -u PROGRAM   ubcreplay as the nodes find it (default: the one on PATH)
#   -s OPTIONS   more sbatch options for the cells (a partition, -c, --mem)
#
# VM-ARGS are what `ubcreplay vm` takes, gates included, e.g.
#
#   contrib/vm-slurm.sh -d /shared/run1 -- -k /shared/base/vmlinuz \
#       -k /shared/patched/vmlinuz -t ext4 -t xfs -n 5 \
#       --fail-if write.mean_bytes:-10% /shared/emacs-20.7.tar.gz
#
# Every node must see the kernels, the archive and ubcreplay at the same
# paths; a node whose copy differs (by digest) refuses its cell, naming it.
set -eu

die()
{
	echo "vm-slurm.sh: $*" >&2
	exit 2
}

dir= ubc=ubcreplay sbopts=
while getopts d:u:s: opt; do
	case $opt in
	d) dir=$OPTARG ;;
	u) ubc=$OPTARG ;;
	s) sbopts=$OPTARG ;;
	*) die "usage: vm-slurm.sh [-d DIR] [-u UBCREPLAY] [-s 'SBATCH OPTIONS'] -- VM-ARGS ..." ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || die "no arguments for ubcreplay vm"
for p in sbatch jq "$ubc"; do
	command -v "$p" >/dev/null 2>&1 || die "cannot run $p"
done
if [ -z "$dir" ]; then
	dir=$(mktemp -d "$PWD/ubcreplay-slurm.XXXXXX") || die "no directory"
fi
mkdir -p "$dir/results" "$dir/logs" || die "cannot make $dir"
dir=$(cd "$dir" && pwd)

# The arguments as shell words, for the scripts the nodes run.
args=
for a in "$@"; do
	args="$args '$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'"
done

# The plan first: its options before the arguments, which may end in a job.
"$ubc" vm --plan "$@" >"$dir/plan.jsonl" || die "ubcreplay vm --plan failed"
n=$(wc -l <"$dir/plan.jsonl")
[ "$n" -gt 0 ] || die "the plan has no cells"

cat >"$dir/cell.sh" <<EOF
#!/bin/sh
# One cell of plan $(jq -r .plan "$dir/plan.jsonl" | head -n 1): line \$SLURM_ARRAY_TASK_ID of plan.jsonl.
id=\$(sed -n "\${SLURM_ARRAY_TASK_ID}p" '$dir/plan.jsonl' | jq -r .id)
exec '$ubc' vm --cell "\$id" -o '$dir/results'$args
EOF
cat >"$dir/merge.sh" <<EOF
#!/bin/sh
# The series and the gates over the plan's results, once every cell ended.
exec '$ubc' vm --merge '$dir/results'$args
EOF
chmod +x "$dir/cell.sh" "$dir/merge.sh"

# shellcheck disable=SC2086
cells=$(sbatch --parsable --job-name=ubcreplay-cells --array=1-"$n" \
    --output="$dir/logs/cell-%a.out" $sbopts "$dir/cell.sh") ||
    die "sbatch of the cells failed"
cells=${cells%%;*}
echo "vm-slurm.sh: $n cells as array job $cells; results in $dir/results" >&2
status=0
sbatch --parsable --wait --job-name=ubcreplay-merge \
    --dependency=afterany:"$cells" --output="$dir/merge.out" \
    "$dir/merge.sh" >/dev/null || status=$?
cat "$dir/merge.out"
exit "$status"
