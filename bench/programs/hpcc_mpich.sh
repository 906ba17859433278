#!/bin/sh
# hpcc_mpich.sh [OUTDIR]: HPC Challenge 1.5.0 built against MPICH, for the
# tuning benchmarks under MPICH (bench/tune_bench.sh, scenario apps):
# Debian builds its hpcc package with Open MPI only. The source is
# Debian's (the upstream tarball of its hpcc 1.5.0-3 source package,
# fetched from deb.debian.org and checked against the SHA-256 its .dsc
# gives), built with mpicc.mpich and Debian's reference BLAS (libblas-dev;
# the Debian package uses ATLAS, which only changes HPL's speed, not the
# MPI FFT's). The binary is OUTDIR/hpcc (default ./bench-hpcc-mpich);
# an existing one is kept. Needs curl, mpicc.mpich and libblas-dev.
set -eu
out=${1:-bench-hpcc-mpich}
url=https://deb.debian.org/debian/pool/main/h/hpcc/hpcc_1.5.0.orig.tar.gz
sum=0a6fef7ab9f3347e549fed65ebb98234feea9ee18aea0c8f59baefbe3cf7ffb8
if [ -x "$out/hpcc" ]; then
    echo "hpcc_mpich.sh: $out/hpcc exists" >&2
    exit 0
fi
for t in curl mpicc.mpich; do
    command -v "$t" >/dev/null 2>&1 || { echo "hpcc_mpich.sh: $t not found" >&2; exit 1; }
done
[ -e /usr/lib/x86_64-linux-gnu/libblas.so ] || [ -n "$(ls /usr/lib/*/libblas.so 2>/dev/null)" ] ||
    { echo "hpcc_mpich.sh: no libblas.so (apt-get install libblas-dev)" >&2; exit 1; }
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/hpcc-mpich.XXXXXX")
trap 'rm -rf "$work"' EXIT
curl -fsSL -o "$work/src.tar.gz" "$url" || { echo "hpcc_mpich.sh: cannot fetch $url" >&2; exit 1; }
echo "$sum  $work/src.tar.gz" | sha256sum -c --quiet - ||
    { echo "hpcc_mpich.sh: $url: not the tarball Debian's source package names" >&2; exit 1; }
tar -xzf "$work/src.tar.gz" -C "$work"
# an HPL make include for this machine: MPICH's compiler wrapper, the
# Fortran BLAS called with a trailing underscore
cat >"$work/hpcc-1.5.0/hpl/Make.psk_mpich" <<'EOF'
SHELL        = /bin/sh
CD           = cd
CP           = cp
LN_S         = ln -s
MKDIR        = mkdir
RM           = /bin/rm -f
TOUCH        = touch
ARCH         = $(arch)
TOPdir       = ../../..
INCdir       = $(TOPdir)/include
BINdir       = $(TOPdir)/bin/$(ARCH)
LIBdir       = $(TOPdir)/lib/$(ARCH)
HPLlib       = $(LIBdir)/libhpl.a
LAlib        = -lblas
F2CDEFS      = -DAdd_ -DF77_INTEGER=int -DStringSunStyle
HPL_INCLUDES = -I$(INCdir) -I$(INCdir)/$(ARCH)
HPL_LIBS     = $(HPLlib) $(LAlib) -lm
HPL_DEFS     = $(F2CDEFS) $(HPL_INCLUDES)
CC           = mpicc.mpich
CCNOOPT      = $(HPL_DEFS)
CCFLAGS      = $(HPL_DEFS) -O2 -fcommon
LINKER       = mpicc.mpich
LINKFLAGS    = $(CCFLAGS)
ARCHIVER     = ar
ARFLAGS      = r
RANLIB       = echo
EOF
(cd "$work/hpcc-1.5.0" && make arch=psk_mpich >"$work/build.log" 2>&1) ||
    { tail -n 20 "$work/build.log" >&2; echo "hpcc_mpich.sh: the build failed" >&2; exit 1; }
cp "$work/hpcc-1.5.0/hpcc" "$out/hpcc"
cp "$work/hpcc-1.5.0/_hpccinf.txt" "$out/_hpccinf.txt"
echo "hpcc_mpich.sh: $out/hpcc" >&2
