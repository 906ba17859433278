#!/bin/sh
# perfskel under a real Slurm (README.md, "Under Slurm"):
# slurm.sh HEAT_OPENMPI HEAT_MPICH.
# Needs PERFSKEL. Starts a single-node Slurm with scripts/slurm.sh (Debian's
# slurmctld, slurmd and munged, stopped again at the end, also on failure),
# then for each MPI records examples/heat.c on 4 ranks started by srun
# itself (Open MPI through --mpi=pmix, MPICH through --mpi=pmi2), without
# --mpi to perfskel: the MPI is the one the program links. Checks: one job
# of 4 ranks (heat says so, the trace has 4 ranks), srun itself not
# preloaded (an srun on PATH before the real one notes its LD_PRELOAD), the
# trace merged and folded (the main loop is heat's STEPS/10 residual
# checks), and predict through srun (the skeleton built with the trace's
# MPI). Then --merge inside a job started by srun, record -- tune -- srun,
# a user's own --export, and record and predict inside an allocation
# (salloc -n 4 perfskel record -- mpirun ...). Exits 77 (ctest: skipped) with a line saying why when
# Slurm is not installed, this is not root, or its daemons do not start.
set -u
P=${PERFSKEL:?}
HEAT_openmpi=$1
HEAT_mpich=$2
HERE=$(cd "$(dirname "$0")" && pwd)
SLURM_SH="$HERE/../../scripts/slurm.sh"
T=$(mktemp -d)
chmod 755 "$T" # munged's socket directory must be searchable by all
trap 'sh "$SLURM_SH" stop "$T/slurm" 2>/dev/null; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM HUP
. "$HERE/lib.sh"
STEPS=60

sh "$SLURM_SH" start "$T/slurm" >"$T/env" 2>"$T/start.err"
st=$?
if [ $st -eq 3 ] || [ $st -eq 4 ]; then
    grep -v '^slurm.sh: ' "$T/start.err"
    skipped slurm "cli.slurm: no Slurm to run under: $(grep 'slurm.sh:' "$T/start.err" | tail -n 1)"
    [ "$fails" -eq 0 ] && exit 77
    exit 1
fi
[ $st -eq 0 ] || { echo "FAIL scripts/slurm.sh start: exit $st"; cat "$T/start.err"; exit 1; }
. "$T/env"
grep "Slurm up" "$T/start.err"

# an srun ahead of the real one on PATH, noting the LD_PRELOAD it was given
REAL_SRUN=$(command -v srun)
mkdir "$T/bin"
cat >"$T/bin/srun" <<EOF
#!/bin/sh
echo "LD_PRELOAD=\${LD_PRELOAD:-}" >>"$T/srun.env"
exec "$REAL_SRUN" "\$@"
EOF
chmod 755 "$T/bin/srun"
export PATH="$T/bin:$PATH"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# main_loop DIR: the main loop's iteration count fold finds in DIR
main_loop() {
    "$P" fold "$1" --json 2>/dev/null | sed -n '/"main_loop"/,/}/s/.*"count": \([0-9]*\).*/\1/p' | head -n 1
}

for FL in openmpi mpich; do
    case $FL in openmpi) PMI=pmix HEAT=$HEAT_openmpi TITLE="Open MPI" ;; *) PMI=pmi2 HEAT=$HEAT_mpich TITLE=MPICH ;; esac
    : >"$T/srun.env"
    if timeout -k 5 60 "$P" record -o "$T/$FL" -- srun --mpi=$PMI -n 4 "$HEAT" 64 $STEPS \
        </dev/null >"$T/out" 2>"$T/err" &&
        grep -q "on 4 ranks" "$T/out" && grep -q "^perfskel: recording srun with $FL into " "$T/err" &&
        grep -q "^perfskel: 4 ranks, [0-9]* events recorded" "$T/err"; then
        ok "$FL: record -- srun --mpi=$PMI -n 4: one job of 4 ranks, its MPI found by the program's libmpi"
    else
        bad "$FL: record -- srun --mpi=$PMI -n 4"; cat "$T/out" "$T/err"
    fi
    grep -q '^LD_PRELOAD=' "$T/srun.env" && ! grep -q '^LD_PRELOAD=.' "$T/srun.env" && ok "$FL: srun itself not preloaded" ||
        { bad "$FL: srun was preloaded"; cat "$T/srun.env"; }
    "$P" stats "$T/$FL" --json 2>/dev/null | grep -q '"ranks": 4,' && ok "$FL: the trace has 4 ranks" ||
        bad "$FL: the trace does not have 4 ranks"
    "$P" merge "$T/$FL" -o "$T/$FL.pskm" -q 2>"$T/err" && "$P" dump "$T/$FL" >"$T/a" && "$P" dump "$T/$FL.pskm" >"$T/b" &&
        cmp -s "$T/a" "$T/b" && ok "$FL: merged, every rank rebuilt from the merge" ||
        { bad "$FL: merge"; cat "$T/err"; }
    n=$(main_loop "$T/$FL.pskm")
    [ "${n:-0}" -eq $((STEPS / 10)) ] && ok "$FL: folded, the main loop runs $n times" ||
        bad "$FL: folded main loop runs '${n:-}' times, not $((STEPS / 10))"
    if timeout -k 5 120 "$P" predict "$T/$FL" -K 2 --repeat 1 -- srun --mpi=$PMI -n 4 \
        </dev/null >"$T/out" 2>"$T/err" &&
        grep -q "^predicted run time: " "$T/out" && grep -q "^predict: MPI: $TITLE (srun: the trace's MPI); mpicc: .*; $TITLE by " "$T/err" &&
        grep -q "^predict: running 1 of 1 with srun, K = 2" "$T/err"; then
        ok "$FL: predict -- srun --mpi=$PMI -n 4: $(grep '^predicted run time' "$T/out")"
    else
        bad "$FL: predict through srun"; cat "$T/out" "$T/err"
    fi
done

# the merge inside the job, its ranks started by srun (PSK_MERGE reaches them)
if timeout -k 5 60 "$P" record --merge -o "$T/merge" -- srun --mpi=pmi2 -n 4 "$HEAT_mpich" 64 $STEPS \
    </dev/null >"$T/out" 2>"$T/err" && grep -q "^perfskel: merged 4 ranks in the job" "$T/err" &&
    [ "$(main_loop "$T/merge/merged.pskm")" = $((STEPS / 10)) ]; then
    ok "record --merge -- srun: merged in the job, the main loop found"
else
    bad "record --merge -- srun"; cat "$T/err"
fi

# the tuning library and the recorder stacked, the MPI found by the inner tune
if timeout -k 5 60 "$P" record -o "$T/tune" -- "$P" tune -- srun --mpi=pmi2 -n 4 "$HEAT_mpich" 64 $STEPS \
    </dev/null >"$T/out" 2>"$T/err" && grep -q "^perfskel: tuning srun with mpich" "$T/err" &&
    grep -q "^perfskel: 4 ranks, [0-9]* events recorded" "$T/err"; then
    ok "record -- tune -- srun: 4 tuned ranks recorded"
else
    bad "record -- tune -- srun"; cat "$T/err"
fi

# the user's own --export=ALL: the preload goes through the environment
if timeout -k 5 60 "$P" record -o "$T/export" -- srun --export=ALL --mpi=pmix -n 4 "$HEAT_openmpi" 64 $STEPS \
    </dev/null >"$T/out" 2>"$T/err" && grep -q "^perfskel: 4 ranks, [0-9]* events recorded" "$T/err"; then
    ok "record -- srun --export=ALL: 4 ranks recorded"
else
    bad "record -- srun --export=ALL"; cat "$T/err"
fi

# inside an allocation: salloc runs perfskel, which runs mpirun on its 4 CPUs
if timeout -k 5 60 salloc -n 4 "$P" record -o "$T/salloc" -- mpirun.openmpi "$HEAT_openmpi" 64 $STEPS \
    </dev/null >"$T/out" 2>"$T/err" && grep -q "on 4 ranks" "$T/out" &&
    grep -q "^perfskel: 4 ranks, [0-9]* events recorded" "$T/err"; then
    ok "salloc -n 4 perfskel record -- mpirun.openmpi: 4 ranks recorded"
else
    bad "salloc -n 4 perfskel record -- mpirun.openmpi"; cat "$T/out" "$T/err"
fi
if timeout -k 5 120 salloc -n 4 "$P" predict "$T/salloc" -K 2 --repeat 1 -- mpirun.openmpi \
    </dev/null >"$T/out" 2>"$T/err" && grep -q "^predicted run time: " "$T/out"; then
    ok "salloc -n 4 perfskel predict -- mpirun.openmpi"
else
    bad "salloc -n 4 perfskel predict -- mpirun.openmpi"; cat "$T/out" "$T/err"
fi

[ "$fails" -eq 0 ]
