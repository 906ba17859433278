#!/bin/sh
# sim_sharing.sh BUILD_DIR PROGRAMS_DIR: perfskel sim on recordings with more
# ranks than cores (docs/simulation.md, "Time-sharing"). For each program of
# bench/programs (built by bench/programs/build.sh into PROGRAMS_DIR/MPI)
# and each MPI (MPIS, default "openmpi mpich"): ROUNDS recordings (default
# 3) at NP ranks (default 4) on this machine, each simulated as it was
# recorded (no --machine), with a machine file `perfskel calibrate`
# measured with the same launcher, and with the model switched off (`time
# sharing = off`: the recorded gaps replayed as they are, as sim did
# before). Prints per program and MPI the median recorded run time (MPI_Init
# to MPI_Finalize, slowest rank) and the median error of each against its
# own recording; then the machine's cores and load. OFF (default `time
# sharing = off;`) is the machine file of the third column (NP=2 OFF='call
# floors = off;': the network model alone, without the recording's own call
# costs). The program `heat` is BUILD_DIR's examples/heat (Open MPI).
# BEFORE=PERFSKEL adds a column: that (older) binary's sim, no --machine.
# Environment: PROGS,
# ARGS_<prog>_<mpi> (or ARGS_<prog>), NP, ROUNDS, MPIS; PRIO=1 (as root)
# runs the calibration and the recordings in a scheduling group of their
# own at nice -20, so that other programs' load (a shared machine's) takes
# little of the cores: the sharing left is the job's own. MPICH's Hydra
# starts its ranks in a session (so a scheduling group) of their own: with
# PRIO=1 each MPICH rank runs the wrapper too (recorded with --mpi mpich).
# Errors are the median over the rounds, with the least and the greatest
# in brackets; recorded times the median, with the least and greatest;
# `others` the greatest share of the cores other programs took while a
# recording ran (/proc/stat's busy time less the job's own CPU time).
set -u
B=$(cd "$1" && pwd)
PD=$(cd "$2" && pwd)
NP=${NP:-4}
ROUNDS=${ROUNDS:-3}
P=$B/perfskel
. "$(dirname "$0")/cases.sh" # recorded_wall (its num and median are redefined below)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
printf '%s\n' "${OFF:-time sharing = off;}" >"$W/off.par"
PRE="" RPRE=""
if [ "${PRIO:-0}" = 1 ]; then
    printf '#!/bin/sh\necho -20 >/proc/self/autogroup 2>/dev/null\nexec nice -n -20 "$@"\n' >"$W/prio.sh"
    chmod +x "$W/prio.sh"
    PRE="setsid sh $W/prio.sh"
    RPRE="$W/prio.sh" # MPICH's ranks: in a session of their own
fi
# arguments for 1-3 s at 4 ranks on 2 cores (MPICH, polling busily, is slower)
: "${ARGS_polling_halo_openmpi:=384 300 8}" "${ARGS_polling_halo_mpich:=128 60 8}"
: "${ARGS_tagged_ring_openmpi:=800 120}" "${ARGS_tagged_ring_mpich:=300 30}"
: "${ARGS_redblack_openmpi:=250 300 1024}" "${ARGS_redblack_mpich:=100 60 256}"
: "${ARGS_vcycle_openmpi:=256 100}" "${ARGS_vcycle_mpich:=64 20}"
: "${ARGS_ring_openmpi:=20000 300 20}" "${ARGS_ring_mpich:=10000 60 20}"
: "${ARGS_coldstart_openmpi:=360 11 24}" "${ARGS_coldstart_mpich:=160 4 8}"
: "${ARGS_fft_transpose_openmpi:=512 20}" "${ARGS_fft_transpose_mpich:=256 6}"

num() { sed -n "s/.*\"$1\": *\([0-9.e+-]*\).*/\1/p" | head -n 1; }
err() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%+.1f%%", 100 * (b / a - 1); else printf "-" }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%s", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
# the CPU seconds this shell's children used, from `times >FILE` run in
# this shell itself (its second line; in a subshell it says nothing)
kids() { sed -n 2p "$1" | tr -d s | awk '{ split($1, u, "m"); split($2, s, "m"); print u[1] * 60 + u[2] + s[1] * 60 + s[2] }'; }
HZ=$(getconf CLK_TCK)

echo "| program | MPI | ranks | recorded (s) | others | sim | sim, calibrated machine | sim, \`${OFF:-time sharing = off;}\` |${BEFORE:+ sim before |}"
echo "|---|---|---|---|---|---|---|---|${BEFORE:+---|}"
for mpi in ${MPIS:-openmpi mpich}; do
    if [ "$mpi" = openmpi ]; then RUN="mpirun.openmpi --oversubscribe -np $NP" RR="" MOPT=""
    else RUN="mpirun.mpich -np $NP" RR=$RPRE MOPT="--mpi mpich"; fi
    $PRE "$P" calibrate -o "$W/m.par" -- $RUN >/dev/null 2>&1 || echo "sim_sharing: calibrate failed with $mpi" >&2
    for prog in ${PROGS:-polling_halo tagged_ring redblack vcycle ring coldstart fft_transpose}; do
        exe=$PD/$mpi/$prog
        [ "$prog" = heat ] && [ "$mpi" = openmpi ] && exe=$B/examples/heat
        [ -x "$exe" ] || { echo "sim_sharing: $exe missing" >&2; continue; }
        args=$(eval echo "\${ARGS_${prog}_$mpi:-\${ARGS_$prog:-}}")
        : >"$W/rec"; : >"$W/e1"; : >"$W/e2"; : >"$W/e3"; : >"$W/e4"; : >"$W/fo"
        for i in $(seq "$ROUNDS"); do
            rm -rf "$W/t"
            times >"$W/tm0"
            b0=$(busy) t0=$(date +%s.%N)
            $PRE "$P" record $MOPT -o "$W/t" -- $RUN $RR "$exe" $args </dev/null >/dev/null 2>&1 || continue
            b1=$(busy) t1=$(date +%s.%N)
            times >"$W/tm1"
            k0=$(kids "$W/tm0") k1=$(kids "$W/tm1")
            awk -v b="$((b1 - b0))" -v k0="$k0" -v k1="$k1" -v t0="$t0" -v t1="$t1" -v hz="$HZ" -v n="$(nproc)" \
                'BEGIN { f = (b / hz - (k1 - k0)) / (n * (t1 - t0)); print f < 0 ? 0 : f }' >>"$W/fo"
            rec=$(recorded_wall "$B" "$W/t")
            echo "$rec" >>"$W/rec"
            for k in 1 2 3 ${BEFORE:+4}; do
                case $k in 1) m="" ;; 2) m="--machine $W/m.par" ;; 3) m="--machine $W/off.par" ;; 4) m="" ;; esac
                b=$P
                [ "$k" = 4 ] && b=$BEFORE
                p=$("$b" sim "$W/t" $m --json -q 2>/dev/null | num predicted_seconds)
                awk -v a="$rec" -v b="${p:-0}" 'BEGIN { if (a > 0 && b > 0) print 100 * (b / a - 1) }' >>"$W/e$k"
            done
        done
        e() { printf '%s [%s, %s]' "$(median <"$W/e$1" | awk '{ printf "%+.1f %%", $1 }')" \
            "$(sort -g "$W/e$1" | head -n 1 | awk '{ printf "%+.1f", $1 }')" "$(sort -g "$W/e$1" | tail -n 1 | awk '{ printf "%+.1f", $1 }')"; }
        r() { printf '%.3f [%.3f, %.3f]' "$(median <"$W/rec")" "$(sort -g "$W/rec" | head -n 1)" "$(sort -g "$W/rec" | tail -n 1)"; }
        echo "| $prog | $mpi | $NP | $(r) | $(sort -g "$W/fo" | tail -n 1 | awk '{ printf "%.2f", $1 }') | $(e 1) | $(e 2) | $(e 3) |${BEFORE:+ $(e 4) |}"
    done
done
echo
echo "$(nproc) cores; $(uptime | sed 's/.*load/load/'); $(date -u +%Y-%m-%d)"
