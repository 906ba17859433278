#!/bin/sh
# cgroup_run.sh CORES CMD ARGS...: runs CMD (e.g. an mpirun and so all its
# ranks) inside one cgroup (v1 cpu controller) whose CPU quota is CORES
# cores, shared by every process in it: a slower machine for
# bench/predict_accuracy.sh (RUN="sh bench/cgroup_run.sh 1.0 mpirun ...").
# Needs root and cgroup v1 at /sys/fs/cgroup/cpu. Period 10 ms.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 CORES CMD [ARGS...]" >&2; exit 2; }
cores=$1
shift
cg=/sys/fs/cgroup/cpu/perfskel-bench
[ -d /sys/fs/cgroup/cpu ] || { echo "$0: /sys/fs/cgroup/cpu: no cgroup v1 cpu controller" >&2; exit 1; }
mkdir -p "$cg"
period=10000
quota=$(awk -v c="$cores" -v p=$period 'BEGIN { q = int(c * p); if (q < 1000) q = 1000; print q }')
echo $period >"$cg/cpu.cfs_period_us"
echo "$quota" >"$cg/cpu.cfs_quota_us"
echo $$ >"$cg/cgroup.procs"
exec "$@"
