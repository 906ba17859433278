# Shared by the CLI test scripts (sourced): pass/fail counting, the
# one-line-error check, flipping a byte of a file, and each MPI's launcher.
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }

# expect STATUS PATTERN NAME -- command...: the exit status, a stderr line
# matching PATTERN, and for errors only one-line "perfskel: ..." messages
# (one per damaged file)
expect() {
    st=$1 pat=$2 name=$3
    shift 4
    "$@" >"$T/out" 2>"$T/err"
    got=$?
    if [ "$got" -ne "$st" ]; then
        bad "$name: exit $got, expected $st"; cat "$T/err"; return
    fi
    if [ -n "$pat" ] && ! grep -q -- "$pat" "$T/err"; then
        bad "$name: stderr lacks '$pat'"; cat "$T/err"; return
    fi
    if [ "$st" -ne 0 ] && grep -qv '^perfskel: ' "$T/err"; then
        bad "$name: stderr has more than perfskel's one-line messages"; cat "$T/err"; return
    fi
    ok "$name"
}

# flip FILE OFFSET: inverts every bit of one byte (so the file surely changes)
flip() {
    v=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
    printf "$(printf '\\%03o' $((255 - v)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

# mpirun_of FLAVOUR: MPIRUN set to the launcher of openmpi or mpich, able to
# run as root and more ranks than cores
mpirun_of() {
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    case $1 in
    openmpi) MPIRUN="mpirun.openmpi --allow-run-as-root --oversubscribe" ;;
    *) MPIRUN="mpirun.mpich" ;;
    esac
}
