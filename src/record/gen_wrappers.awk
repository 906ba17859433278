# gen_wrappers.awk: expands src/record/mpi_functions.def (the one table) into
#   out=ids    psk_fn_ids.h        enum of function ids
#   out=table  psk_fn_table.c      names, field masks, classes (trace format),
#                                  ops, collectives and forms (psk_fn_op...),
#                                  polls and what ends them, sync, frees
#   out=c      record_wrap_c.c     C wrappers MPI_X -> PMPI_X
#   out=f      record_wrap_f.c     Fortran wrappers: mpi_x_, mpi_x__, mpi_x,
#                                  MPI_X -> pmpi_x_, and the mpi_f08 entries
# A function flagged next or tune forwards instead to the next definition of
# its own name (dlsym(RTLD_NEXT), resolved once: record_stack.c), so that a
# library preloaded after the recorder (libperfskel-tune) still gets the
# call; without one that is the MPI's own. tune: the call's event also
# carries the arm the tuning library ran it with (trace format 2).
# Each argument kind says how the C and Fortran wrappers declare, convert
# and record that argument; record_call.h provides the psk_* helpers used.
# Usage: awk -v out=c -f gen_wrappers.awk mpi_functions.def > file

function init_kinds() {
    # C parameter types; "%s" marks where the name goes when not at the end
    split("i1 i2 int count rcount count_root rcount_root dest src rsrc tag rtag root nreq ndims", a, " ")
    for (i in a) CT[a[i]] = "int"
    split("provided flag indexout outcount indices", a, " ")
    for (i in a) CT[a[i]] = "int *"
    split("ints counts rcounts counts_root rcounts_root displs dims periods", a, " ")
    for (i in a) CT[a[i]] = "const int *"
    CT["dimsio"] = "int *"
    split("dtype rdtype dtype_root rdtype_root", a, " ")
    for (i in a) CT[a[i]] = "MPI_Datatype"
    CT["argcp"] = "int *"; CT["argvp"] = "char ***"; CT["ranges"] = "int (*%s)[3]"
    CT["dtypes"] = "const MPI_Datatype *"; CT["rdtypes"] = "const MPI_Datatype *"
    CT["comm"] = "MPI_Comm"; CT["comm2"] = "MPI_Comm"
    CT["newcomm"] = "MPI_Comm *"; CT["commfree"] = "MPI_Comm *"
    CT["group"] = "MPI_Group"; CT["group2"] = "MPI_Group"
    CT["newgroup"] = "MPI_Group *"; CT["groupfree"] = "MPI_Group *"
    CT["op"] = "MPI_Op"; CT["info"] = "MPI_Info"
    CT["status"] = "MPI_Status *"; CT["statuses"] = "MPI_Status *"
    CT["reqnew"] = "MPI_Request *"; CT["preqnew"] = "MPI_Request *"
    CT["req"] = "MPI_Request *"; CT["reqs"] = "MPI_Request *"
    CT["msg"] = "MPI_Message *"; CT["msgin"] = "MPI_Message *"
    CT["sbuf"] = "const void *"; CT["rbuf"] = "void *"

    # C value of a Fortran argument f (input kinds only)
    split("i1 i2 count rcount count_root rcount_root dest src rsrc tag rtag root nreq ndims", a, " ")
    for (i in a) FCONV[a[i]] = "(int)*@F"
    # (Fortran LOGICAL periods: any non-zero MPI_Fint is true)
    split("dims periods", a, " ")
    for (i in a) FCONV[a[i]] = "(const int *)@F"
    FCONV["dimsio"] = "(int *)@F"
    split("dtype rdtype dtype_root rdtype_root", a, " ")
    for (i in a) FCONV[a[i]] = "PMPI_Type_f2c(*@F)"
    split("counts rcounts counts_root rcounts_root", a, " ")
    for (i in a) FCONV[a[i]] = "(const int *)@F"
    FCONV["comm"] = "PMPI_Comm_f2c(*@F)"; FCONV["op"] = "PMPI_Op_f2c(*@F)"
    FCONV["group"] = "PMPI_Group_f2c(*@F)"

    # before the call (V = C value, F = Fortran pointer, N = request count,
    # D = the ndims argument)
    PRE["dimsio"] = "psk_post_ints(&call, PSK_F_DIMSIN, @D, @V, 0);"
    PRE["src"] = "call.wild_src |= (@V == MPI_ANY_SOURCE);"
    PRE["rsrc"] = PRE["src"]
    PRE["rtag"] = "call.wild_tag |= (@V == MPI_ANY_TAG);"
    PRE["tag"] = PRE["rtag"]
    PRE["msgin"] = "call.wild_src = call.wild_tag = 1;"
    PRE["comm"] = "psk_set_comm(&call, @V);"
    PRE["root"] = "call.root = @V;"
    PRE["status"] = "if (@V == MPI_STATUS_IGNORE) @V = &call.st;"
    FPRE["status"] = "if (psk_fstatus_ignored(@F)) @F = call.fst;"
    PRE["statuses"] = "@V = psk_pre_statuses(&call, @V);"
    FPRE["statuses"] = "@F = psk_pre_fstatuses(&call, @F);"
    PRE["req"] = "psk_pre_reqs(&call, 1, @V);"
    FPRE["req"] = "psk_pre_freqs(&call, 1, @F);"
    PRE["reqs"] = "psk_pre_reqs(&call, @N, @V);"
    FPRE["reqs"] = "psk_pre_freqs(&call, @N, @F);"
    PRE["commfree"] = "psk_pre_commfree(&call, *@V);"
    FPRE["commfree"] = "psk_pre_commfree(&call, PMPI_Comm_f2c(*@F));"
    PRE["groupfree"] = "psk_pre_groupfree(&call, *@V);"
    FPRE["groupfree"] = "psk_pre_groupfree(&call, PMPI_Group_f2c(*@F));"

    # after the call
    POST["count"] = "E(COUNT) = @V;"
    POST["rcount"] = "E(RCOUNT) = @V;"
    POST["count_root"] = "E(COUNT) = psk_at_root(&call) ? @V : 0;"
    POST["rcount_root"] = "E(RCOUNT) = psk_at_root(&call) ? @V : 0;"
    POST["dtype"] = "E(DTSIZE) = psk_type_size(@V);"
    POST["rdtype"] = "E(RDTSIZE) = psk_type_size(@V);"
    POST["dtype_root"] = "E(DTSIZE) = psk_at_root(&call) ? psk_type_size(@V) : 0;"
    POST["rdtype_root"] = "E(RDTSIZE) = psk_at_root(&call) ? psk_type_size(@V) : 0;"
    POST["dest"] = "E(PEER) = psk_rank(@V);"
    POST["src"] = "E(PEER) = psk_rank(@V);"
    POST["rsrc"] = "E(RPEER) = psk_rank(@V);"
    POST["tag"] = "E(TAG) = psk_tag(@V);"
    POST["rtag"] = "E(RTAG) = psk_tag(@V);"
    POST["root"] = "E(ROOT) = psk_root(@V);"
    POST["op"] = "E(OP) = psk_op_id(@V);"
    POST["i1"] = "E(I1) = @V;"
    POST["i2"] = "E(I2) = @V;"
    POST["provided"] = "E(I2) = *@V;"; FPOST["provided"] = "E(I2) = *@F;"
    POST["status"] = "call.stp = @V;"; FPOST["status"] = "call.fstp = @F;"
    POST["statuses"] = "call.stsp = @V;"; FPOST["statuses"] = "call.fstsp = @F;"
    POST["reqnew"] = "psk_post_reqnew(&call, *@V, 0);"
    FPOST["reqnew"] = "psk_post_reqnew(&call, PMPI_Request_f2c(*@F), 0);"
    POST["preqnew"] = "psk_post_reqnew(&call, *@V, 1);"
    FPOST["preqnew"] = "psk_post_reqnew(&call, PMPI_Request_f2c(*@F), 1);"
    POST["flag"] = "call.flag = *@V;"; FPOST["flag"] = "call.flag = (*@F != 0);"
    POST["indexout"] = "call.index = *@V;"
    FPOST["indexout"] = "call.index = (*@F == MPI_UNDEFINED || *@F < ibase) ? MPI_UNDEFINED : *@F - ibase;"
    POST["outcount"] = "call.outcount = *@V;"; FPOST["outcount"] = "call.outcount = *@F;"
    POST["indices"] = "call.indices = @V; call.ibase = 0;"
    FPOST["indices"] = "call.indices = @F; call.ibase = ibase;"
    POST["counts"] = "psk_post_counts(&call, PSK_F_COUNTS, @V, 0);"
    POST["rcounts"] = "psk_post_counts(&call, PSK_F_RCOUNTS, @V, 0);"
    POST["counts_root"] = "psk_post_counts(&call, PSK_F_COUNTS, @V, 1);"
    POST["rcounts_root"] = "psk_post_counts(&call, PSK_F_RCOUNTS, @V, 1);"
    POST["dtypes"] = "psk_post_dtypes(&call, PSK_F_DTSIZES, @V);"
    FPOST["dtypes"] = "psk_post_fdtypes(&call, PSK_F_DTSIZES, @F);"
    POST["rdtypes"] = "psk_post_dtypes(&call, PSK_F_RDTSIZES, @V);"
    FPOST["rdtypes"] = "psk_post_fdtypes(&call, PSK_F_RDTSIZES, @F);"
    POST["dims"] = "psk_post_ints(&call, PSK_F_DIMS, @D, @V, 0);"
    POST["dimsio"] = POST["dims"]
    POST["periods"] = "psk_post_ints(&call, PSK_F_PERIODS, @D, @V, 1);"
    POST["newcomm"] = "psk_post_newcomm(&call, *@V);"
    FPOST["newcomm"] = "psk_post_newcomm(&call, PMPI_Comm_f2c(*@F));"
    POST["newgroup"] = "psk_post_newgroup(&call, *@V);"
    FPOST["newgroup"] = "psk_post_newgroup(&call, PMPI_Group_f2c(*@F));"
    POST["group"] = "E(GROUP) = psk_group_id(@V);"
    POST["commfree"] = "psk_post_commfree(&call);"; FPOST["commfree"] = POST["commfree"]
    POST["groupfree"] = "psk_post_groupfree(&call);"; FPOST["groupfree"] = POST["groupfree"]

    # trace fields each kind fills
    FLD["count"] = "COUNT"; FLD["count_root"] = "COUNT"
    FLD["rcount"] = "RCOUNT"; FLD["rcount_root"] = "RCOUNT"
    FLD["dtype"] = "DTSIZE"; FLD["dtype_root"] = "DTSIZE"
    FLD["rdtype"] = "RDTSIZE"; FLD["rdtype_root"] = "RDTSIZE"
    FLD["dest"] = "PEER"; FLD["src"] = "PEER"; FLD["tag"] = "TAG"
    FLD["rsrc"] = "RPEER"; FLD["rtag"] = "RTAG"; FLD["comm"] = "COMM"
    FLD["root"] = "ROOT"; FLD["op"] = "OP"; FLD["i1"] = "I1"; FLD["i2"] = "I2"
    FLD["provided"] = "I2"; FLD["reqnew"] = "REQ"; FLD["preqnew"] = "REQ"
    FLD["req"] = "REQ"; FLD["reqs"] = "REQS"; FLD["flag"] = "FLAG"
    FLD["indexout"] = "INDEX"; FLD["indices"] = "INDICES"
    FLD["counts"] = "COUNTS"; FLD["counts_root"] = "COUNTS"
    FLD["rcounts"] = "RCOUNTS"; FLD["rcounts_root"] = "RCOUNTS"
    FLD["dtypes"] = "DTSIZES"; FLD["rdtypes"] = "RDTSIZES"
    FLD["newcomm"] = "NEWID MEMBERS"; FLD["newgroup"] = "NEWID MEMBERS"
    FLD["dims"] = "DIMS"; FLD["periods"] = "PERIODS"; FLD["dimsio"] = "DIMSIN DIMS"
    FLD["commfree"] = "COMM"; FLD["group"] = "GROUP"; FLD["groupfree"] = "GROUP"

    split("wait waitall waitany waitsome test testall testany testsome", a, " ")
    for (i in a) WAITMODE[a[i]] = 1
    # the op of the call that waits for what a call of the op polls for
    BLOCKING["test"] = "wait"; BLOCKING["testall"] = "waitall"; BLOCKING["testany"] = "waitany"
    BLOCKING["testsome"] = "waitsome"; BLOCKING["iprobe"] = "probe"; BLOCKING["improbe"] = "mprobe"
    CONLY["argcp"] = 1; CONLY["argvp"] = 1
}

BEGIN { init_kinds(); nfn = 0 }

/^[ \t]*#/ || /^[ \t]*$/ { next }

{
    split($0, halves, ":")
    nh = split(halves[1], h, " ")
    if (nh != 8) { print "gen_wrappers: bad line " NR ": " $0 > "/dev/stderr"; exit 1 }
    nfn++
    ID[nfn] = h[1]; NAME[nfn] = h[2]; CLS[nfn] = h[3]; BYTES[nfn] = h[4]
    MODE[nfn] = h[5]; OP[nfn] = h[6]; COLL[nfn] = h[7]; FLAGS[nfn] = h[8]
    if ((OP[nfn] == "coll" || OP[nfn] == "icoll" || OP[nfn] == "ncoll") && COLL[nfn] == "-") { print "gen_wrappers: " h[2] ": a collective without its coll, line " NR > "/dev/stderr"; exit 1 }
    NARG[nfn] = split(halves[2], k, " ")
    for (i = 1; i <= NARG[nfn]; i++) {
        if (!(k[i] in CT)) { print "gen_wrappers: unknown kind " k[i] " line " NR > "/dev/stderr"; exit 1 }
        KIND[nfn, i] = k[i]
    }
}

function has_flag(f, flag) { return index("," FLAGS[f] ",", "," flag ",") > 0 }
function fwd_next(f) { return has_flag(f, "next") || has_flag(f, "tune") }
# the C entry a wrapper of f forwards to: PMPI_X, or the next MPI_X
function cfwd(f) {
    if (!fwd_next(f)) return "PMPI_" NAME[f]
    return "((psk_ct_" NAME[f] " *)psk_next(&psk_cnext_" NAME[f] ", \"MPI_" NAME[f] "\", (void *)PMPI_" NAME[f] "))"
}
# the Fortran entry: pmpi (the MPI's own), or the next of the name called
function ffwd(f, called, pmpi,   l) {
    if (!fwd_next(f)) return pmpi
    l = tolower(NAME[f])
    return "(psk_ft_" l " *)psk_next(&psk_fnext_" l "[" (called ~ /f08/ ? 1 : 0) "], \"" called "\", (void *)" pmpi ")"
}

function cparam(t, name) {
    if (index(t, "%s")) return sprintf(t, name)
    if (t ~ /\*$/) return t name
    return t " " name
}

# C parameter list / argument list of function f
function cparams(f,   i, s) {
    s = ""
    for (i = 1; i <= NARG[f]; i++) s = s (i > 1 ? ", " : "") cparam(CT[KIND[f, i]], "a" (i - 1))
    if (has_flag(f, "variadic")) s = s ", ..."
    return s == "" ? "void" : s
}
function cargs(f,   i, s) {
    s = ""
    for (i = 1; i <= NARG[f]; i++) s = s (i > 1 ? ", " : "") "a" (i - 1)
    return s
}
# Fortran: every argument by reference
function fparams(f,   i, s, kd) {
    s = ""
    for (i = 1; i <= NARG[f]; i++) {
        kd = KIND[f, i]
        if (kd in CONLY) continue
        s = s (s != "" ? ", " : "") ((kd == "sbuf" || kd == "rbuf") ? "void *" : "MPI_Fint *") "f" (i - 1)
    }
    if (!has_flag(f, "noierr")) s = s (s != "" ? ", " : "") "MPI_Fint *ierr"
    return s == "" ? "void" : s
}
function fargs(f,   i, s) {
    s = ""
    for (i = 1; i <= NARG[f]; i++) {
        if (KIND[f, i] in CONLY) continue
        s = s (s != "" ? ", " : "") "f" (i - 1)
    }
    if (!has_flag(f, "noierr")) s = s (s != "" ? ", " : "") "ierr"
    return s
}

# 1 if function f has an argument of kind kd
function has_kind(f, kd,   i) {
    for (i = 1; i <= NARG[f]; i++) if (KIND[f, i] == kd) return 1
    return 0
}
# 1 if function f makes a communicator (its NEWID names one, not a group)
function makes_comm(f) { return has_kind(f, "newcomm") }
# 1 if function f frees a communicator or a group
function frees(f) { return has_kind(f, "commfree") || has_kind(f, "groupfree") }
function fieldmask(f,   i, s, n, parts, j, m) {
    s = ""
    for (i = 1; i <= NARG[f]; i++) {
        if (!(KIND[f, i] in FLD)) continue
        n = split(FLD[KIND[f, i]], parts, " ")
        for (j = 1; j <= n; j++) if (!((f, parts[j]) in seen)) { seen[f, parts[j]] = 1; s = s " | B(" parts[j] ")" }
    }
    m = MODE[f]
    if (m == "status" || m == "probe") s = s " | B(ASRC) | B(ATAG)"
    if (m in WAITMODE) s = s " | B(STATUSES)"
    return s == "" ? "0" : substr(s, 4)
}

function subst(code, v, fp, n, d) {
    gsub(/E\(/, "PSK_E(", code)
    gsub(/@V/, v, code)
    gsub(/@F/, fp, code)
    gsub(/@N/, n, code)
    gsub(/@D/, d, code)
    return code
}

# lines of pre/post code for f; lang = "c" or "f"
function body(f, lang, which,   i, kd, v, fp, code, s, n, d) {
    s = ""; n = "0"; d = "0"
    for (i = 1; i <= NARG[f]; i++) if (KIND[f, i] == "nreq") n = "a" (i - 1)
    for (i = 1; i <= NARG[f]; i++) if (KIND[f, i] == "ndims") d = "a" (i - 1)
    for (i = 1; i <= NARG[f]; i++) {
        kd = KIND[f, i]; v = "a" (i - 1); fp = "f" (i - 1)
        code = ""
        if (which == "pre") code = (lang == "f" && (kd in FPRE)) ? FPRE[kd] : PRE[kd]
        else code = (lang == "f" && (kd in FPOST)) ? FPOST[kd] : POST[kd]
        if (code != "") s = s "    " subst(code, v, fp, n, d) "\n"
    }
    return s
}

function upper(s) { return toupper(s) }
# the op, collective and form of f as C initialisers
function opcoll(f,   p, n) {
    if (COLL[f] == "-") return sprintf("PSK_FNOP_%s, -1, PSK_FORM_PLAIN", upper(OP[f]))
    n = split(COLL[f], p, "/")
    return sprintf("PSK_FNOP_%s, PSK_COLL_%s, PSK_FORM_%s", upper(OP[f]), upper(p[1]), n > 1 ? upper(p[2]) : "PLAIN")
}

END {
    if (out == "ids") {
        print "/* Generated by gen_wrappers.awk from mpi_functions.def: do not edit. */"
        print "#ifndef PSK_FN_IDS_H\n#define PSK_FN_IDS_H\nenum psk_fn_id {"
        for (f = 1; f <= nfn; f++) printf "    PSK_FN_%s = %s,\n", NAME[f], ID[f]
        maxid = 0
        for (f = 1; f <= nfn; f++) if (ID[f] + 0 > maxid) maxid = ID[f] + 0
        printf "    PSK_FN_LIMIT = %d\n};\n#endif\n", maxid + 1
    } else if (out == "table") {
        print "/* Generated by gen_wrappers.awk from mpi_functions.def: do not edit. */"
        print "#include \"perfskel/coll.h\"\n#include \"trace_format.h\"\n#define B(x) (1u << PSK_F_##x)"
        print "const psk_fn_info psk_fn_table[] = {"
        for (f = 1; f <= nfn; f++) BYNAME[NAME[f]] = f
        # a polled call: its poll function, and the call of the blocking op
        # (BLOCKING) that ends a run of its polls by waiting
        for (f = 1; f <= nfn; f++) {
            if (!has_flag(f, "poll")) continue
            base = NAME[f]; sub(/_poll$/, "", base)
            if (!(base in BYNAME)) { print "gen_wrappers: " NAME[f] ": no function " base > "/dev/stderr"; exit 1 }
            b = BYNAME[base]; POLL[b] = ID[f]; POLLOF[f] = ID[b]; POLLNAME[f] = base
            if (!(OP[b] in BLOCKING)) { print "gen_wrappers: " base ": polled, but op " OP[b] " has no blocking op" > "/dev/stderr"; exit 1 }
            n = 0
            for (w = 1; w <= nfn; w++) if (OP[w] == BLOCKING[OP[b]] && !has_flag(w, "poll")) { POLLWAIT[b] = ID[w]; n++ }
            if (n != 1) { print "gen_wrappers: " base ": " n " functions of op " BLOCKING[OP[b]] " end its polls, not 1" > "/dev/stderr"; exit 1 }
        }
        for (f = 1; f <= nfn; f++) {
            if (has_flag(f, "poll"))
                printf "    [%s] = {\"poll:MPI_%s\", %s, PSK_CLASS_%s, PSK_BYTES_%s, %s, 0, 0, 0, 0, 0, 0, %s},\n", ID[f], POLLNAME[f], fieldmask(f), upper(CLS[f]), upper(BYTES[f]), POLLOF[f], opcoll(f)
            else
                printf "    [%s] = {\"MPI_%s\", %s, PSK_CLASS_%s, PSK_BYTES_%s, 0, %d, %d, %d, %d, %d, %d, %s},\n", ID[f], NAME[f], fieldmask(f), upper(CLS[f]), upper(BYTES[f]), has_flag(f, "tune"), makes_comm(f), frees(f), has_flag(f, "sync"), (f in POLL) ? POLL[f] : 0, (f in POLLWAIT) ? POLLWAIT[f] : 0, opcoll(f)
        }
        print "};"
        print "const unsigned psk_fn_count_ = sizeof psk_fn_table / sizeof psk_fn_table[0];"
    } else if (out == "c") {
        print "/* Generated by gen_wrappers.awk from mpi_functions.def: do not edit."
        print " * C wrappers: record each call around the PMPI_ entry point. */"
        print "#include \"record_call.h\"\n"
        for (f = 1; f <= nfn; f++) if (!has_flag(f, "poll")) emit_c(f)
    } else if (out == "f") {
        print "/* Generated by gen_wrappers.awk from mpi_functions.def: do not edit."
        print " * Fortran wrappers (mpif.h and `use mpi`: four manglings; mpi_f08:"
        print " * each MPI's own names). They forward to the MPI's Fortran PMPI entry"
        print " * unchanged, so sentinels, 1-based indices and handles stay the MPI's"
        print " * business; psk_fguard stops MPICH's Fortran-to-C layering from"
        print " * recording a call twice. */"
        print "#include \"record_call.h\"\n"
        for (f = 1; f <= nfn; f++) if (!has_flag(f, "poll")) emit_f(f)
    }
}

function emit_c(f,   n, m) {
    n = NAME[f]; m = MODE[f]
    if (fwd_next(f))
        printf "typedef int psk_ct_%s(%s);\nstatic void *_Atomic psk_cnext_%s;\n", n, cparams(f), n
    printf "PSK_EXPORT int MPI_%s(%s)\n{\n", n, cparams(f)
    if (m == "init" || m == "initthread") {
        printf "    if (psk_fguard)\n        return PMPI_%s(%s);\n", n, cargs(f)
        printf "    uint64_t t0 = psk_now();\n    int rc = PMPI_%s(%s);\n", n, cargs(f)
        printf "    psk_rec_start(PSK_FN_%s, t0, %s);\n    return rc;\n}\n\n", n, (m == "init" ? "MPI_THREAD_SINGLE, MPI_THREAD_SINGLE" : "a2, *a3")
        return
    }
    if (m == "finalize") {
        # every rank that started takes part in pre_finalize's collective
        # exchange, recording or not (one whose writes failed has stopped)
        printf "    if (psk_fguard)\n        return %s();\n", cfwd(f)
        printf "    uint64_t t0 = psk_now();\n    int on = psk_rec_on();\n    psk_rec_pre_finalize(PSK_FN_Finalize, t0);\n"
        printf "    int rc = %s();\n    if (on)\n        psk_rec_stop(PSK_FN_Finalize, t0);\n    return rc;\n}\n\n", cfwd(f)
        return
    }
    if (has_flag(f, "tune"))
        printf "    psk_pass_site(__builtin_return_address(0));\n"
    printf "    if (!psk_rec_on())\n        return %s(%s);\n", cfwd(f), (has_flag(f, "variadic") ? "a0" : cargs(f))
    if (m == "abort") {
        printf "    psk_rec_abort(PSK_FN_Abort, a0, a1);\n    return PMPI_Abort(a0, a1);\n}\n\n"
        return
    }
    printf "    psk_call call;\n    psk_call_begin(&call, PSK_FN_%s, PSK_MODE_%s);\n", n, upper(m)
    printf "%s", body(f, "c", "pre")
    printf "    call.t0 = psk_stamp();\n    int rc = %s(%s);\n    call.t1 = psk_stamp();\n", cfwd(f), (has_flag(f, "variadic") ? "a0" : cargs(f))
    if (has_flag(f, "tune"))
        printf "    call.arm = psk_call_arm();\n"
    printf "%s", body(f, "c", "post")
    printf "    psk_call_finish(&call);\n    return rc;\n}\n\n"
}

function emit_f(f,   n, l, m, i, kd, fp, f08, f08fwd, site) {
    n = NAME[f]; l = tolower(n); m = MODE[f]
    printf "typedef void psk_ft_%s(%s);\n", l, fparams(f)
    f08 = has_flag(f, "ts") ? "f08ts_" : "f08_"
    printf "extern psk_ft_%s pmpi_%s_;\n", l, l
    printf "#if defined(OPEN_MPI)\nextern psk_ft_%s pmpi_%s_f08_;\n#else\nextern psk_ft_%s pmpir_%s_%s;\n#endif\n", l, l, l, l, f08
    if (fwd_next(f))
        printf "static void *_Atomic psk_fnext_%s[2]; /* mpif.h and use mpi; mpi_f08 */\n", l
    printf "static void fb_%s(psk_ft_%s *fwd, int ibase, %s)\n{\n    (void)ibase;\n", l, l, fparams(f)
    if (m == "init" || m == "initthread") {
        printf "    uint64_t t0 = psk_now();\n    psk_fguard++;\n    fwd(%s);\n    psk_fguard--;\n", fargs(f)
        printf "    psk_rec_start(PSK_FN_%s, t0, %s);\n}\n", n, (m == "init" ? "MPI_THREAD_SINGLE, MPI_THREAD_SINGLE" : "(int)*f2, (int)*f3")
    } else if (m == "finalize") {
        printf "    uint64_t t0 = psk_now();\n    int on = psk_rec_on();\n    psk_rec_pre_finalize(PSK_FN_Finalize, t0);\n"
        printf "    psk_fguard++;\n    fwd(%s);\n    psk_fguard--;\n", fargs(f)
        printf "    if (on)\n        psk_rec_stop(PSK_FN_Finalize, t0);\n}\n"
    } else if (m == "abort") {
        printf "    if (psk_rec_on())\n        psk_rec_abort(PSK_FN_Abort, PMPI_Comm_f2c(*f0), (int)*f1);\n"
        printf "    psk_fguard++;\n    fwd(%s);\n    psk_fguard--;\n}\n", fargs(f)
    } else {
        printf "    if (!psk_rec_on()) {\n        fwd(%s);\n        return;\n    }\n", fargs(f)
        printf "    psk_call call;\n    psk_call_begin(&call, PSK_FN_%s, PSK_MODE_%s);\n", n, upper(m)
        for (i = 1; i <= NARG[f]; i++) {
            kd = KIND[f, i]
            if (kd in FCONV) { fp = FCONV[kd]; gsub(/@F/, "f" (i - 1), fp); printf "    %s = %s;\n", cparam(CT[kd], "a" (i - 1)), fp }
        }
        printf "%s", body(f, "f", "pre")
        printf "    psk_fguard++;\n    call.t0 = psk_stamp();\n    fwd(%s);\n    call.t1 = psk_stamp();\n    psk_fguard--;\n", fargs(f)
        if (has_flag(f, "tune"))
            printf "    call.arm = psk_call_arm();\n"
        printf "%s", body(f, "f", "post")
        printf "    psk_call_finish(&call);\n}\n"
    }
    site = has_flag(f, "tune") ? "    psk_pass_site(__builtin_return_address(0));\n" : ""
    printf "PSK_EXPORT void mpi_%s_(%s)\n{\n%s    fb_%s(%s, 1, %s);\n}\n", l, fparams(f), site, l, ffwd(f, "mpi_" l "_", "pmpi_" l "_"), fargs(f)
    printf "PSK_EXPORT void mpi_%s__(%s) __attribute__((alias(\"mpi_%s_\")));\n", l, fparams(f), l
    printf "PSK_EXPORT void mpi_%s(%s) __attribute__((alias(\"mpi_%s_\")));\n", l, fparams(f), l
    printf "PSK_EXPORT void MPI_%s(%s) __attribute__((alias(\"mpi_%s_\")));\n", upper(n), fparams(f), l
    printf "#if defined(OPEN_MPI)\nPSK_EXPORT void mpi_%s_f08_(%s)\n{\n%s    fb_%s(%s, PSK_F08_IBASE, %s);\n}\n", l, fparams(f), site, l, ffwd(f, "mpi_" l "_f08_", "pmpi_" l "_f08_"), fargs(f)
    printf "#else\nPSK_EXPORT void mpi_%s_%s(%s)\n{\n%s    fb_%s(%s, PSK_F08_IBASE, %s);\n}\n#endif\n\n", l, f08, fparams(f), site, l, ffwd(f, "mpi_" l "_" f08, "pmpir_" l "_" f08), fargs(f)
}
