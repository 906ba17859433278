# Shared by the CLI test scripts (sourced): pass/fail counting, the
# one-line-error check, flipping a byte of a file, each MPI's launcher, and
# a recording's replays (sim, sim --folded, predict) against its time.
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }

# a sanitizer's report in a program's output (grep -E), for the
# sanitizer build's tests
SANITIZER='ERROR: AddressSanitizer|ERROR: LeakSanitizer|AddressSanitizer:DEADLYSIGNAL|runtime error:|SUMMARY: [A-Za-z]*Sanitizer'

# skipped NAME WHAT: a check cannot run here for want of NAME (a Debian
# package, or a condition: root, cores). Allowed only when PSK_ALLOW_SKIP
# (names, comma or space separated) names it: then said on a SKIP line and
# noted in $PSK_SKIP_LOG (scripts/test.sh counts them); otherwise a failure
skipped() {
    case ",$(printf '%s' "${PSK_ALLOW_SKIP:-}" | tr ' ' ','),"  in
    *",$1,"*)
        echo "SKIP $2: no $1 (PSK_ALLOW_SKIP)"
        [ -z "${PSK_SKIP_LOG:-}" ] || echo "$1: $2" >>"$PSK_SKIP_LOG"
        ;;
    *) bad "$2: no $1 here (sh scripts/deps.sh installs every package a test needs; PSK_ALLOW_SKIP=$1 runs without)" ;;
    esac
}

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

# num FILE KEY: the first number of "KEY": in a JSON file
num() { sed -n "s/.*\"$2\": *\([-0-9.e+]*\).*/\1/p" "$1" | head -n 1; }
# near NAME GOT WANT: GOT within 25 % of WANT (WANT above 0)
near() {
    if awk -v g="$2" -v w="$3" 'BEGIN { exit !(w > 0 && g >= 0.75 * w && g <= 1.25 * w) }'; then
        ok "$1: $2 s for a recorded $3 s"
    else
        bad "$1: $2 s, not within 25 % of the recorded $3 s"
    fi
}
# replays TRACE WHAT [folded]: sim replays every event of TRACE (WHAT names
# it in messages) within 25 % of the recorded time, sim --folded predicts
# the same (with "folded"), and predict -K 10 (under MPIRUN, 2 ranks) within
# 25 % too; needs P, T and MPIRUN
replays() {
    "$P" stats "$1" --json >"$T/stats.json" 2>"$T/err" || { bad "stats of $2 failed"; cat "$T/err"; }
    wall=$(num "$T/stats.json" wall_seconds)
    events=$(num "$T/stats.json" events)
    if "$P" sim "$1" --json -q >"$T/sim.json" 2>"$T/err"; then
        [ "$(num "$T/sim.json" events_replayed)" = "$events" ] && ok "sim replayed all $events events" ||
            bad "sim replayed $(num "$T/sim.json" events_replayed) events of $events"
        near "sim" "$(num "$T/sim.json" predicted_seconds)" "$wall"
    else
        bad "sim refused $2"; cat "$T/err"
    fi
    if [ "${3:-}" = folded ]; then
        if "$P" sim "$1" --folded --no-skip --json -q >"$T/simf.json" 2>"$T/err"; then
            a=$(num "$T/sim.json" predicted_seconds) b=$(num "$T/simf.json" predicted_seconds)
            awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d <= 1e-6 * a) }' &&
                ok "sim --folded predicts what sim does" || bad "sim --folded predicted $b, sim $a"
        else
            bad "sim --folded refused $2"; cat "$T/err"
        fi
    fi
    # shellcheck disable=SC2086
    if timeout 300 "$P" predict "$1" -K 10 --timeout 240 -q --json -- $MPIRUN -np 2 >"$T/pred.json" 2>"$T/err"; then
        near "predict -K 10" "$(num "$T/pred.json" predicted_seconds)" "$wall"
    else
        bad "predict -K 10 failed on $2"; cat "$T/err"
    fi
}
