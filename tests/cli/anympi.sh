#!/bin/sh
# anympi.sh FLAVOUR HEAT_PROGRAM: perfskel finds the MPI by what it is, not
# by Debian's names (README.md, "Which MPI"). Needs PERFSKEL (path of the
# CLI). A bin directory first on PATH holds plain mpicc, mpirun and mpiexec of
# FLAVOUR, as a Spack or module-system MPI has them: first symlinks to
# Debian's programs (told by the names the links lead to), then small shell
# scripts running them (told only by what they say: mpirun --version, mpicc
# -show). Each way: record (the trace's job.json says the MPI the library was
# built for), predict and calibrate work. Then: a launcher whose name says
# nothing gets the library through -x / -genv, not into itself; an mpicc of
# the other MPI from $MPICC, --mpicc or beside the launcher is refused in one
# line (passed over for Debian's name when that is there); a launcher that
# says nothing of itself is refused, pointing at --mpi.
set -u
FL=$1
HEAT=$2
P=${PERFSKEL:?}
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/perfskel-anympi.XXXXXX")
trap 'rm -rf "$T"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset MPICC
case $FL in
openmpi) TITLE="Open MPI" OTHER=mpich OTITLE=MPICH EXTRA=--oversubscribe ;;
*) TITLE=MPICH OTHER=openmpi OTITLE="Open MPI" EXTRA= ;;
esac
ORIG_PATH=$PATH

# sym/: symlinks; wrap/: scripts whose names and contents say nothing of
# the MPI but what the programs they run answer; owrap/: the other MPI's
for prog in mpicc mpirun mpiexec; do
    for d in sym wrap owrap; do mkdir -p "$T/$d"; done
    ln -s "$(command -v "$prog.$FL")" "$T/sym/$prog"
    printf '#!/bin/sh\nexec %s "$@"\n' "$prog.$FL" >"$T/wrap/$prog"
    printf '#!/bin/sh\nexec %s "$@"\n' "$prog.$OTHER" >"$T/owrap/$prog"
    chmod +x "$T/wrap/$prog" "$T/owrap/$prog"
done
# MPICH's Hydra starts its proxy from the directory it was run from, as
# in an MPI's own bin directory
hp=$(command -v hydra_pmi_proxy) && ln -s "$hp" "$T/sym/hydra_pmi_proxy"

for way in sym wrap; do
    PATH="$T/$way:$ORIG_PATH"
    [ "$way" = sym ] && told="the name its link leads to" cctold="the name its link leads to"
    [ "$way" = wrap ] && told="its --version" cctold="its -show"
    # record: the library of FLAVOUR, as its job.json says
    if timeout 120 "$P" record -o "$T/$way.trace" -- mpirun $EXTRA -n 2 "$HEAT" 64 50 >/dev/null 2>"$T/err" &&
        grep -q "^perfskel: recording mpirun with $FL into" "$T/err" &&
        grep -q "\"flavour\": \"$FL\"" "$T/$way.trace/job.json"; then
        ok "$way: record -- mpirun: recorded with $FL's library"
    else
        bad "$way: record -- mpirun"; cat "$T/err"; continue
    fi
    # predict: the launcher told, the mpicc beside it
    # (sym: --json, which names them too)
    json=
    [ "$way" = sym ] && json=--json
    timeout 120 "$P" predict "$T/$way.trace" -K 2 --repeat 1 $json -- mpirun $EXTRA -n 2 >"$T/out" 2>"$T/err"
    st=$?
    if [ $st -eq 0 ] && { [ -n "$json" ] || grep -q "predicted run time" "$T/out"; } &&
        { [ -z "$json" ] || { grep -q "\"predicted_seconds\"" "$T/out" && grep -q "\"mpi\": \"$FL\"" "$T/out" &&
            grep -q "\"mpicc\": \"$T/$way/mpicc\"" "$T/out"; }; } &&
        grep -q "^predict: MPI: $TITLE (mpirun: $told); mpicc: $T/$way/mpicc (beside the launcher; $TITLE by $cctold)$" "$T/err" &&
        grep -q "^predict: building with mpicc \.\.\.$" "$T/err"; then
        ok "$way: predict -- mpirun: $TITLE told by $told, mpicc by $cctold"
    else
        bad "$way: predict -- mpirun: exit $st"; cat "$T/err"
    fi
    # calibrate, through mpiexec
    if timeout 120 "$P" calibrate -o "$T/$way.par" -- mpiexec $EXTRA -n 2 >"$T/out" 2>"$T/err" &&
        grep -q "^perfskel: measuring with mpiexec, $TITLE, built with mpicc " "$T/err" &&
        grep -q '^message cost = {' "$T/$way.par"; then
        ok "$way: calibrate -- mpiexec"
    else
        bad "$way: calibrate -- mpiexec"; cat "$T/err" "$T/out"
    fi
done
PATH=$ORIG_PATH

# a launcher whose name says nothing (told by --version) is an mpirun: the
# library goes to the ranks by -x or -genv, not into the launcher itself
printf '#!/bin/sh\nprintf "%%s\\n" "$@" >"%s"\necho "env LD_PRELOAD=${LD_PRELOAD:-}" >>"%s"\nexec mpirun.%s "$@"\n' \
    "$T/job.log" "$T/job.log" "$FL" >"$T/wrap/job"
chmod +x "$T/wrap/job"
[ "$FL" = openmpi ] && opt=-x || opt=-genv
if timeout 120 "$P" record -o "$T/job.trace" -- "$T/wrap/job" $EXTRA -n 2 "$HEAT" 64 20 >/dev/null 2>"$T/err" &&
    grep -q "\"flavour\": \"$FL\"" "$T/job.trace/job.json" && grep -qx -- "$opt" "$T/job.log" &&
    grep -v "^env " "$T/job.log" | grep -q "libperfskel-record-$FL.so" && ! grep -q "^env LD_PRELOAD=.*perfskel" "$T/job.log"; then
    ok "a launcher named job: told by --version, the library preloaded with $opt"
else
    bad "a launcher named job"; cat "$T/err" "$T/job.log"
fi

# a launcher that says nothing of itself
printf '#!/bin/sh\necho "a launcher 1.0"\n' >"$T/launch"
chmod +x "$T/launch"
expect 2 "^perfskel: $T/launch: cannot tell which MPI this launcher belongs to .*; say --mpi openmpi or --mpi mpich$" \
    "an unknown launcher: refused, pointing at --mpi" -- "$P" record -o "$T/u" -- "$T/launch" -n 2 "$HEAT"
expect 2 "cannot tell which MPI this launcher belongs to" "predict, an unknown launcher" -- \
    "$P" predict "$T/sym.trace" -K 2 -- "$T/launch" -n 2
expect 2 "^perfskel: no-such-mpirun: no such program on PATH; cannot tell which MPI it belongs to$" \
    "a launcher that is not there" -- "$P" record -o "$T/u" -- no-such-mpirun -n 2 "$HEAT"
expect 0 "" "predict --help documents --mpicc" -- "$P" predict --help
grep -q -- "^  --mpicc PATH" "$T/out" || bad "predict --help lacks --mpicc"

# an mpicc of the other MPI, named by the user: refused in one line
if ! command -v "mpicc.$OTHER" >/dev/null; then
    skipped "$OTHER" "an mpicc of the other MPI refused (mpicc.$OTHER)"
    [ "$fails" -eq 0 ]
    exit
fi
PATH="$T/sym:$ORIG_PATH"
expect 2 "^perfskel: mpicc.$OTHER ($(command -v "mpicc.$OTHER"), from \$MPICC) is $OTITLE but mpirun is $TITLE; give --mpicc or --mpi$" \
    "\$MPICC of $OTHER, mpirun of $FL: refused" -- env MPICC="mpicc.$OTHER" "$P" predict "$T/sym.trace" -K 2 -- mpirun -n 2
expect 2 "^perfskel: $T/owrap/mpicc (from --mpicc) is $OTITLE but mpiexec is $TITLE; give --mpicc or --mpi$" \
    "--mpicc of $OTHER (a script told by -show): refused" -- "$P" calibrate --mpicc "$T/owrap/mpicc" -o "$T/x.par" -- mpiexec -n 2
[ ! -e "$T/x.par" ] && ok "no machine file after the refusal" || bad "a machine file after the refusal"
# beside the launcher: passed over for Debian's mpicc.FLAVOUR; without it, refused
mkdir "$T/mix"
ln -s "$(command -v "mpirun.$FL")" "$T/mix/mpirun"
ln -s "$(command -v "mpicc.$OTHER")" "$T/mix/mpicc"
[ -n "$hp" ] && ln -s "$hp" "$T/mix/hydra_pmi_proxy"
PATH="$T/mix:$ORIG_PATH"
timeout 120 "$P" predict "$T/sym.trace" -K 2 --repeat 1 -- mpirun $EXTRA -n 2 >"$T/out" 2>"$T/err"
st=$?
if [ $st -eq 0 ] && grep -q "^predict: MPI: $TITLE (mpirun: the name its link leads to); mpicc: $(command -v "mpicc.$FL") (Debian's name; $TITLE by its name)$" "$T/err"; then
    ok "mpicc of $OTHER beside mpirun of $FL: mpicc.$FL used"
else
    bad "mpicc of $OTHER beside mpirun of $FL: exit $st"; cat "$T/err"
fi
expect 2 "^perfskel: mpicc ($T/mix/mpicc) is $OTITLE but mpirun is $TITLE; give --mpicc or --mpi$" \
    "mpicc of $OTHER beside mpirun of $FL, no other: refused" -- env PATH="$T/mix" "$P" predict "$T/sym.trace" -K 2 -- mpirun -n 2
PATH=$ORIG_PATH

[ "$fails" -eq 0 ] && echo "anympi.sh $FL: all passed" || echo "anympi.sh $FL: $fails failed"
[ "$fails" -eq 0 ]
