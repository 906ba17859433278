# cases.sh: sourced by the benchmarks that run the test programs of
# tests/mpi sized to run for seconds (predict_accuracy.sh, sim_accuracy.sh,
# smpi_compare.sh; build_case needs SRC (tests/mpi) and W (a scratch
# directory)), and for recorded_wall by sim_sharing.sh and sim_turns.sh.

# name  iteration macro  iterations  work per iteration (PS_WORK sweeps)
CASELIST="stencil NITER 5000 600
persistent NITER 5000 600
transpose NITER 3000 1000
vcoll NITER 2000 1500
wavefront NSWEEP 1000 600
subcomm NRING 5000 600
masterworker R2 300 10000"

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# num KEY FILE: the first number after "KEY": in a JSON file
num() { awk -F: -v k="\"$1\"" '$1 ~ k { gsub(/[ ,]/, "", $2); print $2; exit }' "$2"; }
# recorded_wall BUILD TRACE: the slowest rank's MPI_Init exit to MPI_Finalize entry
recorded_wall() {
    "$1/perfskel" stats "$2" --json --no-fold | awk -F: '/"wall_seconds"/ { gsub(/[ ,]/, "", $2); print $2 }' | sort -g | tail -n 1
}
# build_case PROG MACRO N WORK LANG FLAVOUR EXE: C, or Fortran with use mpi
build_case() {
    if [ "$5" = c ]; then
        "mpicc.$6" -O2 -D"$2=$3" -DPS_WORK="$4" -I"$SRC" -o "$7" "$SRC/$1.c"
    else
        "mpif90.$6" -cpp -O2 -DPS_MPI -D"PS_$2=$3" -DPS_WORK="$4" -I"$SRC" -J"$W" -o "$7" "$SRC/$1.F90"
    fi
}
