#!/bin/sh
# target_accuracy.sh testbed|cgroup [BUILD_DIR]: bench/predict_accuracy.sh
# with the recording on this machine (2 ranks, plain mpirun.openmpi) and
# the originals and skeletons run on a different target:
#   testbed  the emulated heterogeneous cluster of a testbed kept outside this
#            repository (TB: its directory, default ../shared/testbed; its
#            cluster.sh brought up here if it is not: 4 hosts, CPU shares 0.6
#            0.6 0.4 0.4, 1 Gbit/s + 50 us inside a subnet, 100 Mbit/s + 0.5
#            ms between the subnets {h0,h1} {h2,h3}); the 2 ranks run on h0
#            (0.6) and h2 (0.4), so across the slow link
#   cgroup   every rank in one cgroup with a CPU quota of CORES cores
#            (default 1.0: the two ranks share half of this machine); with
#            the testbed's idle shim (idlesleep.so in TOOLS, built by the
#            testbed's cluster.sh up; IDLE_SHIM=0 to go without), so that
#            a waiting rank sleeps instead of spinning away the quota
# Iteration counts are divided by DIV (default 4 on the testbed, 2 in the
# cgroup) so that the slowed runs last seconds, not tens of seconds. Needs
# root. Other settings as for predict_accuracy.sh (ROUNDS, CASES, LANGS).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
B=${2:-build}
case ${1:-} in
testbed)
    TB=${TB:-$(cd "$here/../../shared/testbed" && pwd)}
    if ! "$TB/cluster.sh" status >/dev/null 2>&1 || ! ip netns list 2>/dev/null | grep -q '^h3'; then
        N=4 CPU="0.6 0.6 0.4 0.4" "$TB/cluster.sh" up >&2
    fi
    export DIV=${DIV:-4}
    export RUN="$TB/cluster.sh mpirun -x PS_WALL=1 -np 2 --host h0,h2"
    ;;
cgroup)
    export DIV=${DIV:-2}
    shim=""
    if [ "${IDLE_SHIM:-1}" = 1 ]; then
        so=${TOOLS:-/tmp/mpicluster-tools}/idlesleep.so
        [ -f "$so" ] || { echo "$0: $so not found: run ../shared/testbed/cluster.sh up once, or IDLE_SHIM=0" >&2; exit 1; }
        shim="--mca btl self,tcp --mca mpi_yield_when_idle 1 --mca opal_event_include epoll -x LD_PRELOAD=$so"
    fi
    export RUN="sh $here/cgroup_run.sh ${CORES:-1.0} mpirun.openmpi -np 2 $shim"
    ;;
*)
    echo "usage: $0 testbed|cgroup [BUILD_DIR]" >&2
    exit 2
    ;;
esac
export MPI=openmpi REC_RUN="mpirun.openmpi -np 2"
exec sh "$here/predict_accuracy.sh" "$B"
