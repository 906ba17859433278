#!/bin/sh
# Writes perfskel's man pages from the text its --help prints, so the two
# never differ: OUTDIR/man1/perfskel.1 from `perfskel --help` (and
# DESCRIPTION, the project's one-line summary), and perfskel-CMD.1 from
# `perfskel CMD --help` for every command that text lists.
# usage: manpages.sh PERFSKEL OUTDIR VERSION DESCRIPTION
set -e
PSK=$1 OUT=$2/man1 VERSION=$3 DESC=$4
mkdir -p "$OUT"
rm -f "$OUT"/perfskel.1 "$OUT"/perfskel-*.1 # a command gone leaves no page
tmp=$OUT/.help.$$
trap 'rm -f "$tmp"' EXIT
"$PSK" --help >"$tmp"
# the commands: the entries of "commands:", two spaces in
cmds=$(awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' "$tmp")
[ -n "$cmds" ] || { echo "manpages.sh: no commands in $PSK --help" >&2; exit 1; }

# roff from help text: page is "main" (perfskel --help) or the command
roff() {
    awk -v page="$1" -v version="$VERSION" -v desc="$DESC" -v cmds="$cmds" '
    function esc(s) {
        gsub(/\\/, "\\e", s)
        gsub(/-/, "\\-", s)
        if (s ~ /^[.\047]/)
            s = "\\&" s
        return s
    }
    function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
    # a synopsis line goes on: [options], -opt, (alternatives) or an
    # upper-case operand (LAUNCHER, PROGRAM)
    function is_synopsis(s,   w) {
        s = trim(s)
        if (s ~ /^[-[(]/)
            return 1
        w = s; sub(/ .*/, "", w)
        return w ~ /^[A-Z][A-Z0-9_.|]*$/
    }
    # the first phrase of a description, for NAME: up to the first ; : , or .
    # outside parentheses
    function phrase(s,   i, c, d) {
        d = 0
        for (i = 1; i <= length(s); i++) {
            c = substr(s, i, 1)
            if (c == "(") d++
            else if (c == ")") d--
            else if (d == 0 && (c == ";" || c == ":" || c == "," || c == ".") && substr(s, i + 1, 1) == " ")
                return substr(s, 1, i - 1)
        }
        sub(/[.;:,]$/, "", s)
        return s
    }
    { line[++n] = $0 }
    END {
        name = page == "main" ? "perfskel" : "perfskel-" page
        up = toupper(name)
        print ".\\\" Generated from `" (page == "main" ? "perfskel" : "perfskel " page) " --help` by cmake/manpages.sh: do not edit."
        print ".TH " up " 1 \"\" \"perfskel " version "\" \"perfskel manual\""
        # the synopsis: the usage line and the lines that go on with it
        syn = line[1]; sub(/^usage: /, "", syn)
        i = 2
        while (i <= n && line[i] != "" && is_synopsis(line[i]))
            syn = syn "\n" line[i++]
        # NAME
        if (page == "main")
            summary = desc
        else {
            d = ""
            for (j = i; j <= n; j++) {
                if (line[j] == "" && d != "") break
                if (line[j] != "") d = d (d == "" ? "" : " ") trim(line[j])
            }
            summary = phrase(d)
        }
        print ".SH NAME"
        print name " \\- " esc(summary)
        print ".SH SYNOPSIS"
        print ".nf"
        ns = split(syn, sl, "\n")
        for (j = 1; j <= ns; j++) print esc(sl[j])
        print ".fi"
        started = 0; sect = 0
        for (; i <= n; i++) {
            s = line[i]
            if (s == "") {
                if (started) print ".PP"
                continue
            }
            if (s ~ /^[a-z][a-z ]*:$/) {            # "commands:", "options:"
                sub(/:$/, "", s)
                print ".SH " toupper(s)
                started = 0; sect = 1
                continue
            }
            if (!sect) { print ".SH DESCRIPTION"; sect = 1 }
            if (page == "main" && s ~ /^  [a-z]/) {  # a command and what it does, on one line
                s = substr(s, 3); nm = s; sub(/ .*/, "", nm); sub(/^[a-z]+ +/, "", s)
                print ".TP"; print ".B " esc(nm); print esc(s)
                started = 1
                continue
            }
            if (page != "main" && s ~ /^  -/) {      # an option and what it does
                s = substr(s, 3)
                spec = s; text = ""
                if (match(s, /   */)) { spec = substr(s, 1, RSTART - 1); text = substr(s, RSTART + RLENGTH) }
                print ".TP"; print ".B \"" esc(spec) "\""
                if (text != "") print esc(text)
                started = 1
                continue
            }
            print esc(trim(s)); started = 1
        }
        print ".SH SEE ALSO"
        if (page == "main") {
            m = split(cmds, cl, "\n")
            for (j = 1; j <= m; j++)
                print ".BR perfskel\\-" cl[j] " (1)" (j < m ? "," : "")
        } else
            print ".BR perfskel (1)"
    }'
}

roff main <"$tmp" >"$OUT/perfskel.1"
for c in $cmds; do
    "$PSK" "$c" --help >"$tmp"
    roff "$c" <"$tmp" >"$OUT/perfskel-$c.1"
done
