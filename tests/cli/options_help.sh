#!/bin/sh
# CLI test: each command's table of options (the psk_cli_opt opts[] of
# programs/cmd_<name>.c, which drives its parser and main's normalise step)
# and the options its --help shows are the same set, both ways. The help's
# options: those of its synopsis (the usage line and the lines that go on
# with it, as cmake/manpages.sh reads them) and of every line that starts
# with an option, indented 8 at most (a usage's "--otf2 DIR -o OUTDIR:
# ...", predict's and check's option list), up to its ": " or its column
# of text. Each long option of the table is, to the binary, what the
# table says: one taking a value or a flag. Needs PERFSKEL and SRC (paths).
set -u
P=${PERFSKEL:?}
S=${SRC:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"

# the options named in text on stdin: words starting - or -- then a letter
names() { grep -oE -- '(^|[][ (|,])--?[A-Za-z][A-Za-z0-9-]*' | sed 's/^[][ (|,]//'; }

cmds=$("$P" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ -n "$cmds" ] || bad "no commands in perfskel --help"
for c in $cmds; do
    src=$S/programs/cmd_$c.c
    if ! grep -q "^const psk_cli_opts cmd_${c}_opts = " "$src" 2>/dev/null; then
        bad "$c: no cmd_${c}_opts in programs/cmd_$c.c"
        continue
    fi
    awk '/psk_cli_opt opts\[\] = \{/ { on = 1; next } on && /^\};/ { on = 0 } on' "$src" >"$T/table"
    grep -oE '"-[^"]*"' "$T/table" | tr -d '"' | sort -u >"$T/tab"
    "$P" "$c" --help >"$T/help" 2>&1 || bad "$c --help: exit $?"
    awk '
    function trim(s) { sub(/^[ \t]+/, "", s); return s }
    function is_synopsis(s,   w) {
        s = trim(s)
        if (s ~ /^[-[(]/) return 1
        w = s; sub(/ .*/, "", w)
        return w ~ /^[A-Z][A-Z0-9_.|]*$/
    }
    NR == 1 { syn = 1; print; next }
    syn && $0 != "" && is_synopsis($0) { print; next }
    { syn = 0 }
    /^ *-/ && match($0, /^ */) && RLENGTH <= 8 {
        s = trim($0)
        if ((i = index(s, ": ")) > 0) s = substr(s, 1, i - 1)
        if ((i = index(s, "  ")) > 0) s = substr(s, 1, i - 1)
        print s
    }' "$T/help" | names | grep -vxE -- '-h|--help' | sort -u >"$T/hlp"
    missing=$(comm -23 "$T/tab" "$T/hlp" | tr '\n' ' ')
    extra=$(comm -13 "$T/tab" "$T/hlp" | tr '\n' ' ')
    [ -z "$missing" ] && ok "$c: every option of its table in its --help ($(wc -l <"$T/tab"))" ||
        bad "$c: in its table, not in its --help: $missing"
    [ -z "$extra" ] && ok "$c: every option of its --help in its table" ||
        bad "$c: in its --help, not in its table: $extra"
    # the binary reads the table the source shows: --opt=1 split (a value)
    # or refused (a flag)
    wrong=""
    grep -oE '\{"--[^"]*", [^}]*\}' "$T/table" >"$T/entries"
    while IFS= read -r e; do
        o=$(echo "$e" | sed 's/^{"\([^"]*\)".*/\1/')
        "$P" "$c" --help "$o=1" >"$T/o" 2>"$T/e"
        st=$?
        case $e in
        *PSK_OPT_VALUE*) [ "$st" -eq 0 ] && grep -q '^usage:' "$T/o" || wrong="$wrong $o(value)" ;;
        *) [ "$st" -eq 2 ] && grep -q "takes no value" "$T/e" || wrong="$wrong $o(flag)" ;;
        esac
    done <"$T/entries"
    [ -s "$T/entries" ] || [ "$(grep -c '"--' "$T/table")" -eq 0 ] || bad "$c: its table's entries not read"
    [ -z "$wrong" ] && ok "$c: its long options taken as its table says" || bad "$c: not as its table says:$wrong"
done
[ "$fails" -eq 0 ]
