#!/usr/bin/env bash
# cli.sh: perfskel tune's command line: --help (every arm by its
# collective), and usage errors (exit 2,
# one line) for an unknown arm or policy, both given, an unknown option, a
# missing launcher and an unknown MPI; an unrecognisable launcher needs
# --mpi; perfskel tune or record inside itself refused, and an inner
# command's error not followed by the outer one's.
set -u
: "${PERFSKEL:?PERFSKEL must name the perfskel CLI}"
fails=0
expect() { # expect CODE PATTERN ARGS...: exit status CODE, stderr (or stdout) matching PATTERN
    local code=$1 pat=$2
    shift 2
    local out rc
    out=$("$PERFSKEL" "$@" 2>&1 </dev/null)
    rc=$?
    if [ $rc -ne "$code" ] || ! grep -q -- "$pat" <<<"$out"; then
        echo "FAIL: perfskel $*: exit $rc (want $code), output: $out" >&2
        fails=$((fails + 1))
    fi
}
expect 0 "^usage: perfskel tune \[--mpi openmpi|mpich\] \[--policy P | --force ARM\] \[--report FILE\] \[--db FILE\]" tune --help
expect 0 "^  tune  *run an MPI job with four collectives tuned" --help
# tune --help: the four collectives, and each one's arms from the tuning
# library's table
expect 0 "with MPI_Alltoall, MPI_Bcast, MPI_Allreduce and MPI_Allgather" tune --help
expect 0 "^  MPI_Alltoall  *spread, pair, ring, bruck, pair_lb, ring_lb, pair_mb, ring_mb, pair_ob, ring_ob$" tune --help
expect 0 "^  MPI_Bcast  *bc_binomial, bc_scatter_ring$" tune --help
expect 0 "^  MPI_Allreduce  *ar_recdbl, ar_ring, ar_rabenseifner$" tune --help
expect 0 "^  MPI_Allgather  *ag_ring, ag_recdbl, ag_bruck$" tune --help
expect 2 "^perfskel: tune: --force takes one of native spread pair ring bruck .* cycle, not 'paire'" \
    tune --force paire -- mpirun.openmpi -np 2 true
expect 2 "^perfskel: tune: --policy takes learn, star, or one of native spread .* cycle, not 'greedy'" \
    tune --policy greedy -- mpirun.openmpi -np 2 true
expect 2 "^perfskel: tune: --force and --policy are one choice" tune --force ring --policy star -- mpirun.openmpi true
expect 2 "^perfskel: tune: unknown option '--frobnicate'" tune --frobnicate -- mpirun.openmpi true
expect 2 "^perfskel: tune: no launcher given" tune --force ring
expect 2 "^perfskel: tune: --mpi takes openmpi or mpich, not 'lam'" tune --mpi lam -- mpirun true
expect 2 "cannot tell which MPI" tune -- ./no-such-launcher true
# stacked with perfskel record (docs/tune.md, "Recording a tuned job"): a
# command inside itself is refused, and an inner error is the only message
d=$(mktemp -d "${TMPDIR:-/tmp}/perfskel-tunecli.XXXXXX")
expect 2 "^perfskel: tune: perfskel tune inside perfskel tune: give it once" \
    tune -- "$PERFSKEL" tune -- mpirun.openmpi -np 1 true
expect 2 "^perfskel: record: perfskel record inside perfskel record: give it once" \
    record -o "$d/t" -- "$PERFSKEL" record -- mpirun.openmpi -np 1 true
out=$("$PERFSKEL" record -o "$d/t" -- "$PERFSKEL" tune -- ./no-such-launcher true 2>&1 </dev/null)
rc=$?
if [ $rc -ne 2 ] || [ "$(grep -c '^perfskel: ' <<<"$out")" -ne 2 ] || ! grep -q "cannot tell which MPI" <<<"$out"; then
    echo "FAIL: record -- perfskel tune -- ./no-such-launcher: exit $rc, output: $out" >&2
    fails=$((fails + 1))
fi
rm -rf "$d"
[ $fails -eq 0 ] && echo "ok [tune cli]"
exit $((fails != 0))
