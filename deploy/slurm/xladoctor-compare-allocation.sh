#!/bin/bash
# Snapshot every node of a Slurm allocation (one task per node), keep one file per node here, then compare them.
# No shared filesystem is needed: the snapshots come back through srun's own output, each line labelled with its
# task, and are split here into DIR/<node>.json.
#
#   salloc -N 64 xladoctor-compare-allocation.sh DIR [SNAPSHOT OPTIONS...]        # or inside an sbatch script
#   XLADOCTOR=/opt/xladoctor/bin/xladoctor xladoctor-compare-allocation.sh snaps --python /opt/ml/bin/python
#
# Exit status: compare's (0 no skew failed, 1 a skew failed, 2 bad input), or 1 when some node gave no snapshot.
# srun(1), slurm-wlm 22.05: `-l, --label` "Prepend task number to lines of stdout/err" (srun line-buffers each
# task's output, so a line is never split between tasks); SLURMD_NODENAME is set in every task's environment.
set -uo pipefail

if [[ $# -lt 1 || "$1" == -* ]]; then
    echo "usage: $0 DIR [xladoctor snapshot options...]" >&2
    exit 2
fi
dir="$1"
shift
xladoctor="${XLADOCTOR:-xladoctor}"
mkdir -p -- "$dir" || exit 2
if compgen -G "$dir/*.json" >/dev/null; then
    echo "$0: $dir already holds snapshots (*.json); give a new folder, so that no stale one is compared" >&2
    exit 2
fi

# each task first names its node on a line of its own, then prints its snapshot (indented JSON, one line each)
# shellcheck disable=SC2016  # $SLURMD_NODENAME, $0 and $@ belong to the task's shell
srun --ntasks-per-node=1 --label bash -c 'printf "#xladoctor-node %s\n" "$SLURMD_NODENAME"; exec "$0" snapshot "$@"' \
    "$xladoctor" "$@" |
    awk -v dir="$dir" '
        match($0, /^ *[0-9]+: /) == 0 { next }
        {
            task = substr($0, 1, RLENGTH - 2); gsub(/ /, "", task)
            line = substr($0, RLENGTH + 1)
            if (!(task in file)) {
                name = line
                if (sub(/^#xladoctor-node /, "", name) == 0 || name !~ /^[A-Za-z0-9._-]+$/) { next }
                file[task] = dir "/" name ".json"
                printf "" > file[task]
                next
            }
            print line > file[task]
        }'
srun_status=${PIPESTATUS[0]}
if [[ $srun_status -ne 0 ]]; then
    echo "$0: srun exited $srun_status: some nodes may have given no snapshot (their errors are above)" >&2
fi
"$xladoctor" compare "$dir"
compare_status=$?
if [[ $srun_status -ne 0 && $compare_status -eq 0 ]]; then
    exit 1
fi
exit "$compare_status"
