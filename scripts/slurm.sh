#!/bin/sh
# A single-node Slurm on this machine, for trying and testing perfskel under
# srun and salloc: Debian's slurmctld, slurmd and munged started directly (no
# systemd), everything they keep (munge key and socket, slurm.conf, state,
# spool, logs, pid files) in one directory, removed by stop.
#
#   sh scripts/slurm.sh start [DIR]   start; prints "export SLURM_CONF=DIR/slurm.conf"
#   sh scripts/slurm.sh stop DIR      cancel its jobs, stop its daemons, remove DIR
#   sh scripts/slurm.sh status DIR    sinfo and squeue of it
#
# DIR defaults to a new /tmp/perfskel-slurm.XXXXXX. The node is "localhost"
# with max(4, cores) CPUs (SLURM_CPUS overrides), so that 4 tasks fit on a
# 2-core machine; its partition is "debug". The ports are the first free
# pair from 6817 up. Must run as root (slurmd starts tasks as their user).
# Exit status of start: 0 once sinfo shows the node idle; 3 if the Slurm or
# munge programs are missing or this is not root; 4 if a daemon did not come
# up (the end of its log is shown); 2 for a bad command line.
set -u
PATH=$PATH:/usr/sbin:/sbin # the daemons, for a PATH without them

die() { echo "slurm.sh: $*" >&2; exit "${code:-4}"; }

# port_free N: nothing on this machine listens on TCP port N
port_free() {
    hex=$(printf '%04X' "$1")
    ! cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
        awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 } END { exit !f }'
}

# the node's state as sinfo says it ("idle", "down", ...), empty if no answer
node_state() { SLURM_CONF="$1/slurm.conf" timeout 5 sinfo -h -n localhost -o %T 2>/dev/null | head -n 1; }

# stop_pid FILE: ends the daemon whose pid FILE holds (ours: we started it)
stop_pid() {
    [ -s "$1" ] || return 0
    pid=$(cat "$1")
    case $pid in '' | *[!0-9]*) return 0 ;; esac
    kill "$pid" 2>/dev/null || return 0
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do
        # a daemon reparented to init that has exited is a zombie until reaped
        grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null && return 0
        sleep 0.1
        i=$((i + 1))
    done
    kill -KILL "$pid" 2>/dev/null
    return 0
}

start() {
    code=3
    for prog in munged slurmctld slurmd sinfo srun; do
        command -v "$prog" >/dev/null 2>&1 || die "$prog not found (sh scripts/deps.sh installs Slurm and munge)"
    done
    [ "$(id -u)" -eq 0 ] || die "must run as root (slurmd starts tasks as their user)"
    code=4
    D=${1:-}
    if [ -z "$D" ]; then
        D=$(mktemp -d /tmp/perfskel-slurm.XXXXXX) || die "cannot make a directory in /tmp"
    else
        mkdir -p "$D" || die "$D: cannot make it"
        D=$(cd "$D" && pwd)
    fi
    [ -e "$D/slurm.conf" ] && die "$D: already holds a Slurm (stop it first: sh $0 stop $D)"
    # munged wants its socket's directory searchable by all, the key its own
    chmod 755 "$D"
    mkdir -p "$D/state" "$D/spool"
    head -c 1024 /dev/urandom >"$D/munge.key" && chmod 400 "$D/munge.key"
    munged --socket="$D/munge.socket" --key-file="$D/munge.key" --log-file="$D/munged.log" \
        --pid-file="$D/munged.pid" --seed-file="$D/munged.seed" </dev/null >>"$D/munged.out" 2>&1 ||
        { cat "$D/munged.out" >&2; die "munged did not start (log: $D/munged.log)"; }
    ctl=6817
    while ! port_free $ctl || ! port_free $((ctl + 1)); do
        ctl=$((ctl + 2))
        [ $ctl -gt 6999 ] && die "no two free TCP ports from 6817 to 7000"
    done
    cpus=${SLURM_CPUS:-$(nproc)}
    [ "$cpus" -lt 4 ] && [ -z "${SLURM_CPUS:-}" ] && cpus=4
    # no cgroups, no accounting: proctrack/linuxproc and task/none work in a
    # container; config_overrides lets the node claim more CPUs than it has
    cat >"$D/slurm.conf" <<EOF
# written by perfskel's scripts/slurm.sh; removed by its stop
ClusterName=perfskel
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctl
SlurmdPort=$((ctl + 1))
AuthType=auth/munge
AuthInfo=socket=$D/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
SchedulerType=sched/builtin
KillWait=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
    slurmctld -f "$D/slurm.conf" </dev/null >>"$D/slurmctld.out" 2>&1 ||
        { tail -n 5 "$D/slurmctld.out" "$D/slurmctld.log" >&2 2>/dev/null; die "slurmctld did not start"; }
    slurmd -f "$D/slurm.conf" -N localhost </dev/null >>"$D/slurmd.out" 2>&1 ||
        { tail -n 5 "$D/slurmd.out" "$D/slurmd.log" >&2 2>/dev/null; die "slurmd did not start"; }
    i=0
    while [ "$(node_state "$D")" != idle ]; do
        i=$((i + 1))
        if [ $i -gt 60 ]; then
            for f in slurmctld.log slurmd.log; do
                echo "== $D/$f" >&2
                tail -n 5 "$D/$f" >&2 2>/dev/null
            done
            die "the node did not become idle in 15 s (sinfo: '$(node_state "$D")'); stop it with: sh $0 stop $D"
        fi
        sleep 0.25
    done
    echo "slurm.sh: Slurm up in $D (node localhost, $cpus CPUs, ports $ctl-$((ctl + 1)))" >&2
    echo "export SLURM_CONF=$D/slurm.conf"
}

stop() {
    D=${1:-}
    code=2
    [ -n "$D" ] || die "stop: which directory? (sh $0 stop DIR)"
    [ -d "$D" ] || return 0
    [ -e "$D/slurm.conf" ] || [ -e "$D/munge.key" ] || die "$D: not a directory slurm.sh made"
    if [ -s "$D/slurmctld.pid" ] && [ -s "$D/slurmd.pid" ]; then
        # its jobs first, so that no step is left running without its slurmd
        jobs=$(SLURM_CONF="$D/slurm.conf" timeout 5 squeue -h -o %i 2>/dev/null)
        if [ -n "$jobs" ]; then
            # shellcheck disable=SC2086 # one argument per job id
            SLURM_CONF="$D/slurm.conf" timeout 5 scancel $jobs 2>/dev/null
            i=0
            while [ -n "$(SLURM_CONF="$D/slurm.conf" timeout 5 squeue -h -o %i 2>/dev/null)" ] && [ $i -lt 40 ]; do
                sleep 0.25
                i=$((i + 1))
            done
        fi
    fi
    stop_pid "$D/slurmd.pid"
    stop_pid "$D/slurmctld.pid"
    stop_pid "$D/munged.pid"
    rm -rf "$D"
}

case ${1:-} in
start) start "${2:-}" ;;
stop) stop "${2:-}" ;;
status)
    [ -n "${2:-}" ] && [ -e "$2/slurm.conf" ] || { code=2; die "status: which directory? (sh $0 status DIR)"; }
    SLURM_CONF="$2/slurm.conf" sinfo && SLURM_CONF="$2/slurm.conf" squeue
    ;;
*)
    echo "usage: sh $0 start [DIR] | stop DIR | status DIR" >&2
    exit 2
    ;;
esac
