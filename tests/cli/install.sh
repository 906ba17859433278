#!/bin/sh
# CLI test of an installed perfskel (README.md, Installing): `cmake --install`
# of this build into a temporary prefix, the prefix then moved (nothing may
# depend on where it was built or installed), and from another directory:
# every command's --help, the man pages (man --warnings, and found by name
# through MANPATH), pkg-config's flags (the headers compile with them, a
# program linked with the recorder records itself), no build path in the
# installed programs, and the demo's pipeline on the bundled example with 2
# ranks under Open MPI: record (merged in the job), stats, merge (also over
# MPI processes: the installed merge driver), fold, sim, predict, tune, and a
# tuned job recorded, all by the installed perfskel.
# usage: install.sh BUILD_DIR SOURCE_DIR HEAT; needs CMAKE (cmake's path).
set -u
B=$(cd "$1" && pwd) S=$(cd "$2" && pwd) HEAT=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
mpirun_of openmpi
unset PERFSKEL_LIBDIR

"${CMAKE:?}" --install "$B" --prefix "$T/inst" >"$T/install.log" 2>&1 || { bad "cmake --install"; cat "$T/install.log"; exit 1; }
mv "$T/inst" "$T/moved"
I=$T/moved
P=$I/bin/perfskel
for f in bin/perfskel lib/perfskel/libperfskel-record-openmpi.so lib/perfskel/libperfskel-record-mpich.so \
    lib/perfskel/libperfskel-tune-openmpi.so lib/perfskel/libperfskel-tune-mpich.so \
    lib/perfskel/perfskel-merge-mpi-openmpi lib/perfskel/perfskel-merge-mpi-mpich include/perfskel/trace.h \
    lib/pkgconfig/perfskel.pc lib/pkgconfig/perfskel-record-openmpi.pc share/man/man1/perfskel.1; do
    [ -e "$I/$f" ] || bad "installed: no $f"
done
# the programs and libraries name no build or source path (their debug
# information aside) and no RUNPATH into them
for f in "$I"/bin/* "$I"/lib/perfskel/*; do
    objcopy --strip-debug "$f" "$T/stripped" && strings -a "$T/stripped" >"$T/strings" || { bad "$f: cannot read"; continue; }
    readelf -d "$f" | grep -i 'r.*path' >>"$T/strings"
    if grep -q -e "$B" -e "$S" "$T/strings"; then bad "$(basename "$f"): names $(grep -m1 -e "$B" -e "$S" "$T/strings")"; fi
done
ok "installed files present, no build path in them"

mkdir "$T/work" && cd "$T/work" || exit 1
# every command's --help: exit 0, its usage on stdout, nothing on stderr;
# a man page for each, clean for man --warnings
cmds=$("$P" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ "$(echo $cmds | wc -w)" -ge 12 ] || bad "perfskel --help lists only: $cmds"
for c in $cmds; do
    "$P" "$c" --help >"$T/o" 2>"$T/e"
    [ $? -eq 0 ] && head -1 "$T/o" | grep -q "^usage: perfskel $c" && [ ! -s "$T/e" ] || bad "$c --help"
    m=$I/share/man/man1/perfskel-$c.1
    [ -f "$m" ] || { bad "no man page for $c"; continue; }
    command -v man >/dev/null || { skipped man-db "the man page of $c read by man --warnings"; continue; }
    MANWIDTH=80 man --warnings -l "$m" >"$T/man" 2>"$T/e"
    [ ! -s "$T/e" ] && grep -q "perfskel $c" "$T/man" || { bad "man page of $c"; cat "$T/e"; }
done
ok "--help of $(echo $cmds | wc -w) commands, their man pages"
if command -v man >/dev/null; then
    MANWIDTH=80 man --warnings -l "$I/share/man/man1/perfskel.1" >"$T/man" 2>"$T/e" && [ ! -s "$T/e" ] &&
        grep -q 'perfskel-stats(1)' "$T/man" && ok "man perfskel.1" || { bad "man perfskel.1"; cat "$T/e"; }
    MANPATH=$I/share/man man -P cat perfskel-record 2>/dev/null | grep -q 'recorded into DIR' &&
        ok "man perfskel-record found through MANPATH" || bad "man perfskel-record through MANPATH"
fi

# pkg-config: the headers compile with --cflags; a program linked with
# --libs perfskel-record-openmpi records itself (no preload, no LD_LIBRARY_PATH)
export PKG_CONFIG_PATH=$I/lib/pkgconfig
cf=$(pkg-config --cflags perfskel) && lf=$(pkg-config --libs perfskel-record-openmpi) || bad "pkg-config"
for h in "$I"/include/perfskel/*.h; do echo "#include \"perfskel/$(basename "$h")\""; done >"$T/all.c"
# shellcheck disable=SC2086
cc -std=c11 -Wall -Wextra -Werror -fsyntax-only $cf "$T/all.c" && ok "headers compile with pkg-config --cflags perfskel ($cf)" ||
    bad "headers with $cf"
# shellcheck disable=SC2086
mpicc.openmpi -O1 -o "$T/linked" "$S/examples/heat.c" -lm $lf 2>"$T/e" || { bad "linking with $lf"; cat "$T/e"; }
PSK_TRACE_DIR=$T/work/linked $MPIRUN -np 2 "$T/linked" >/dev/null 2>"$T/e" && [ -f linked/rank-000001.psk ] &&
    "$P" stats linked >/dev/null && ok "linked with pkg-config --libs perfskel-record-openmpi: recorded" ||
    { bad "a program linked with $lf"; cat "$T/e"; }

# the demo's pipeline, by the installed perfskel
expect 0 "2 ranks" "record --merge --zstd (installed recorder)" -- "$P" record --merge --zstd -o tr -- $MPIRUN -np 2 "$HEAT"
expect 0 "" "stats" -- "$P" stats tr
grep -q 'MPI_Allreduce' "$T/out" || bad "stats: no MPI_Allreduce in its profile"
expect 0 "" "merge offline" -- "$P" merge tr -o off.pskm -q
cmp -s tr/merged.pskm off.pskm && ok "merge: the same bytes as the merge in the job" || bad "merge: differs from the job's"
expect 0 "" "merge --mpi over 2 processes (installed merge driver)" -- $MPIRUN -np 2 "$P" merge --mpi tr -o mpi.pskm -q
cmp -s off.pskm mpi.pskm && ok "merge --mpi: the same bytes" || bad "merge --mpi: differs"
expect 0 "" "fold" -- "$P" fold off.pskm
grep -q '^main loop: x40' "$T/out" || bad "fold: no main loop x40"
expect 0 "" "sim --html" -- "$P" sim tr --html report.html
grep -q '^predicted run time' "$T/out" && [ -s report.html ] || bad "sim: no prediction or no report"
expect 0 "" "predict -K 10" -- "$P" predict tr -K 10 --repeat=1 -q -- $MPIRUN -np 2
grep -q '^predicted run time' "$T/out" || bad "predict: no prediction"
expect 0 "" "tune --policy=ring (installed tuning library)" -- "$P" tune --policy=ring --report=tune.txt -- $MPIRUN -np 2 "$HEAT"
[ -s tune.txt ] || bad "tune: no report"
expect 0 "" "record -- perfskel tune -- (both installed libraries preloaded)" -- \
    "$P" record -o stacked -- "$P" tune --policy=ring -- $MPIRUN -np 2 "$HEAT"
"$P" stats stacked >/dev/null 2>&1 || bad "stats of the tuned job's recording"
[ "$fails" -eq 0 ]
