#!/bin/sh
# Progress on stderr (programs/progress.c): plain lines for logs once a step
# has run PSK_PROGRESS_AFTER seconds (0 here, so that a short step shows
# them), each ending with a "done" line; a bar rewritten in place and wiped
# on a terminal (run under script(1)); nothing with -q or --json, nothing
# for a step shorter than the default 2 s; stdout never carries it.
# Needs PERFSKEL and GEN_TRACE in the environment.
set -u
P=${PERFSKEL:?} G=${GEN_TRACE:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"

"$G" "$T/t" --ranks 6 --events 300000 --seed 7 >/dev/null 2>&1 || bad "gen_trace"
"$G" "$T/small" --ranks 2 --events 300 --seed 3 >/dev/null 2>&1 || bad "gen_trace small"

# plain lines: the steps, a tenth at a time, a done line each; stdout unchanged
PSK_PROGRESS_AFTER=0 "$P" merge "$T/t" -o "$T/a.pskm" >"$T/out" 2>"$T/err" || bad "merge with progress"
"$P" merge "$T/t" -o "$T/b.pskm" -q >"$T/outq" 2>"$T/errq" || bad "merge -q"
if grep -q "^perfskel merge: reading the ranks' events: [0-9]* events" "$T/err" &&
    grep -q "^perfskel merge: writing the merged trace: [0-9]0 % (" "$T/err" &&
    grep -q "^perfskel merge: writing the merged trace: done (" "$T/err" &&
    ! grep -qv '^perfskel merge: ' "$T/err" && grep -q '^merged 6 ranks' "$T/out"; then
    ok "merge: plain progress lines on stderr"
else
    bad "merge: plain progress lines"; cat "$T/err"
fi
if [ ! -s "$T/errq" ] && [ ! -s "$T/outq" ] && cmp -s "$T/a.pskm" "$T/b.pskm"; then
    ok "merge -q: no progress, the same file"
else
    bad "merge -q: stderr or output differs"; cat "$T/errq"
fi
PSK_PROGRESS_AFTER=0 "$P" merge "$T/t" -o "$T/c.pskm" --json >"$T/outj" 2>"$T/errj" || bad "merge --json"
if [ ! -s "$T/errj" ] && grep -q '"merged_events"' "$T/outj"; then
    ok "merge --json: no progress"
else
    bad "merge --json: progress on stderr"; cat "$T/errj"
fi
# the default delay: a short merge says nothing
"$P" merge "$T/small" -o "$T/s.pskm" >/dev/null 2>"$T/errs" || bad "small merge"
if [ ! -s "$T/errs" ]; then ok "a short step says nothing"; else bad "a short step printed progress"; cat "$T/errs"; fi

# other commands: stats reading the ranks, fold merging a directory
PSK_PROGRESS_AFTER=0 "$P" stats "$T/t" >/dev/null 2>"$T/err" || bad "stats"
if grep -q "^perfskel stats: reading the ranks: done" "$T/err" && grep -q "^perfskel: merging: writing: done" "$T/err"; then
    ok "stats: progress of reading and of the merge"
else
    bad "stats: progress lines"; cat "$T/err"
fi
PSK_PROGRESS_AFTER=0 "$P" fold "$T/t" >/dev/null 2>"$T/err" || bad "fold"
if grep -q '^perfskel: merging: writing: done' "$T/err"; then
    ok "fold DIR: progress of the merge"
else
    bad "fold DIR: progress lines"; cat "$T/err"
fi

PSK_PROGRESS_AFTER=0 "$P" sim "$T/t" >/dev/null 2>"$T/err" || bad "sim"
PSK_PROGRESS_AFTER=0 "$P" sim "$T/t" -q >/dev/null 2>"$T/errq" || bad "sim -q"
if grep -q "^perfskel sim: replaying: [0-9]* events (" "$T/err" && grep -q "^perfskel sim: replaying: done" "$T/err" &&
    [ ! -s "$T/errq" ]; then
    ok "sim: progress of the replay, none with -q"
else
    bad "sim: progress lines"; cat "$T/err" "$T/errq"
fi
PSK_PROGRESS_AFTER=0 "$P" sim "$T/t" --folded >/dev/null 2>"$T/err" || bad "sim --folded"
if grep -q "^perfskel sim: building the folded program: [0-9]*0 % (" "$T/err" &&
    grep -q "^perfskel sim: building the folded program: done" "$T/err"; then
    ok "sim --folded: progress of the build"
else
    bad "sim --folded: progress lines"; cat "$T/err"
fi

PSK_PROGRESS_AFTER=0 "$P" export --otf2 "$T/small" -o "$T/otf2" >/dev/null 2>"$T/err" || bad "export --otf2"
PSK_PROGRESS_AFTER=0 "$P" import --otf2 "$T/otf2/traces.otf2" -o "$T/imported" >/dev/null 2>"$T/erri" ||
    bad "import --otf2"
if grep -q "^perfskel export: writing the ranks' events: done" "$T/err" &&
    grep -q "^perfskel import: converting the ranks' events: done" "$T/erri"; then
    ok "export and import --otf2: progress by rank"
else
    bad "export/import --otf2: progress lines"; cat "$T/err" "$T/erri"
fi

# steps timed by a thread (the library call says nothing while it runs):
# fold's folding, and reading a merged file then folding it (sim --folded)
PSK_PROGRESS_AFTER=0 "$P" fold "$T/a.pskm" >/dev/null 2>"$T/err" || bad "fold of a merged file"
"$P" merge "$T/t" --no-reorder -q -o "$T/n.pskm" || bad "merge --no-reorder"
PSK_PROGRESS_AFTER=0 "$P" sim "$T/n.pskm" --folded >/dev/null 2>"$T/errs" || bad "sim --folded of a merged file"
if grep -q "^perfskel fold: folding ... (" "$T/err" && grep -q "^perfskel fold: folding: done (" "$T/err" &&
    grep -q "^perfskel sim: reading the merged trace: done (" "$T/errs" &&
    grep -q "^perfskel sim: folding: done (" "$T/errs"; then
    ok "timed steps: folding, reading a merged file"
else
    bad "timed steps"; cat "$T/err" "$T/errs"
fi

# a terminal: a bar rewritten in place (\r, erase to the end of line), then wiped
if command -v script >/dev/null; then
    PSK_PROGRESS_AFTER=0 script -qec "'$P' merge '$T/t' -o '$T/d.pskm'" /dev/null >"$T/tty" 2>&1
    if grep -q 'writing the merged trace \[#*-*\] *[0-9]* %' "$T/tty" && grep -q "$(printf '\r')" "$T/tty" &&
        ! grep -q 'done (' "$T/tty" && cmp -s "$T/a.pskm" "$T/d.pskm"; then
        ok "merge on a terminal: a bar, wiped"
    else
        bad "merge on a terminal: no bar"; od -c "$T/tty" | head -20
    fi
else
    skipped bsdextrautils "merge on a terminal (script(1))"
fi
[ "$fails" -eq 0 ]
