#!/bin/sh
# compute_fidelity.sh BUILD_DIR PROGRAMS_DIR [NP]: how faithfully a K = 1
# skeleton emulates the compute it stands for (docs/benchmarks.md,
# "Emulated compute"). For each program of bench/programs (built by
# bench/programs/build.sh into PROGRAMS_DIR/openmpi), with NP ranks (2):
# record it, generate and build its K = 1 skeleton, record the skeleton
# too, and compare the compute of the two recordings (the time outside MPI
# calls, summed over the ranks) for the whole program and for each
# outermost loop, as `perfskel sim --intervals loops --json` counts it on
# the recording machine (power 1). Prints one row per interval:
#   program interval recorded_s emulated_s error
# Environment: RUN (launcher, default "mpirun.openmpi -np NP"), ARGS_<prog>
# (arguments for a program, default its own), ROUNDS (recordings per
# program, default 1).
set -u
B=$(cd "$1" && pwd)
PD=$(cd "$2" && pwd)
NP=${3:-2}
RUN=${RUN:-mpirun.openmpi -np $NP}
ROUNDS=${ROUNDS:-1}
P=$B/perfskel
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# name and summed cpu of the program and of each outermost loop
cpu_of() {
    "$P" sim "$1" --intervals loops --json -q 2>/dev/null | awk '
        /"name":/ { n = $0; sub(/.*"name": "/, "", n); sub(/".*/, "", n)
                    l = $0; sub(/.*"level": /, "", l); sub(/,.*/, "", l); want = (l <= 1) }
        /"totals":/ && want { c = $0; sub(/.*"cpu": /, "", c); sub(/,.*/, "", c)
                    gsub(/ /, "_", n); print n, c; want = 0 }'
}

echo "program interval recorded_s emulated_s error"
for prog in ${PROGS:-polling_halo tagged_ring redblack vcycle ring coldstart fft_transpose}; do
    exe=$PD/openmpi/$prog
    [ -x "$exe" ] || { echo "compute_fidelity: $exe missing" >&2; continue; }
    args=$(eval echo "\${ARGS_$prog:-}")
    r=0
    while [ $r -lt "$ROUNDS" ]; do
        r=$((r + 1))
        rm -rf "$W/t" "$W/s"
        "$P" record -o "$W/t" -- $RUN "$exe" $args </dev/null >/dev/null 2>&1 || { echo "$prog: recording failed" >&2; continue; }
        "$P" gen "$W/t" -K 1 -o "$W/s.c" >/dev/null 2>&1 || { echo "$prog: gen failed" >&2; continue; }
        mpicc.openmpi -O1 -Wno-stringop-overflow -o "$W/s1" "$W/s.c" -lm 2>/dev/null || { echo "$prog: build failed" >&2; continue; }
        "$P" record -o "$W/s" -- $RUN "$W/s1" </dev/null >/dev/null 2>&1 || { echo "$prog: skeleton failed" >&2; continue; }
        cpu_of "$W/t" >"$W/a"
        cpu_of "$W/s" >"$W/b"
        [ -n "${DEBUG:-}" ] && cat "$W/a" "$W/b" >&2
        # pair the intervals in order while their names (iteration counts) agree
        paste -d' ' "$W/a" "$W/b" | awk -v p="$prog" '
            NF == 4 && $1 == $3 { printf "%s %s %.4f %.4f %+.1f%%\n", p, $1, $2, $4, ($2 > 0 ? 100 * ($4 / $2 - 1) : 0) }'
    done
done
