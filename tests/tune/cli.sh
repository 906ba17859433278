#!/usr/bin/env bash
# cli.sh: perfskel tune's command line: --help, and usage errors (exit 2,
# one line) for an unknown arm or policy, both given, an unknown option, a
# missing launcher and an unknown MPI; an unrecognisable launcher needs
# --mpi.
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
expect 0 "^  tune \[--mpi" --help
expect 2 "^perfskel: tune: --force takes one of native spread pair ring bruck .* cycle, not 'paire'" \
    tune --force paire -- mpirun.openmpi -np 2 true
expect 2 "^perfskel: tune: --policy takes learn, star, or one of native spread .* cycle, not 'greedy'" \
    tune --policy greedy -- mpirun.openmpi -np 2 true
expect 2 "^perfskel: tune: --force and --policy are one choice" tune --force ring --policy star -- mpirun.openmpi true
expect 2 "^perfskel: tune: unknown option '--frobnicate'" tune --frobnicate -- mpirun.openmpi true
expect 2 "^perfskel: tune: no launcher given" tune --force ring
expect 2 "^perfskel: tune: --mpi takes openmpi or mpich, not 'lam'" tune --mpi lam -- mpirun true
expect 2 "cannot tell which MPI" tune -- ./no-such-launcher true
[ $fails -eq 0 ] && echo "ok [tune cli]"
exit $((fails != 0))
