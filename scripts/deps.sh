#!/bin/sh
# Installs the Debian packages perfskel needs, if any is missing (as root on
# Debian 12; with sudo otherwise). apt-get update runs once, only when
# something has to be installed. chromium: the tests open perfskel sim's
# HTML report in it, headless; locales: a test records a program in a
# decimal-comma locale made with localedef; clang and its runtimes: the
# libFuzzer targets (bench/fuzz.sh); man-db and groff-base: a test reads the
# installed man pages with man --warnings; slurmctld, slurmd, slurm-client
# and munge: a single-node Slurm for cli.slurm (scripts/slurm.sh);
# libotf2-trace-dev, otf2-tools and python3-otf2: export/import --otf2 and
# its test (otf2-print, an independent writer); python3-mpi4py and
# python3-numpy: an mpi4py program recorded (Debian's /usr/bin/python3);
# libsimgrid-dev: SimGrid's smpirun replays the SMPI export; bsdextrautils:
# script(1), a progress bar on a terminal; strace: perfskel's second
# start (huge pages) seen by cli.hugepages. tests/CMakeLists.txt fails
# configure naming any of them that is missing.
set -e
PKGS="build-essential cmake pkg-config man-db groff-base gfortran openmpi-bin libopenmpi-dev mpich libmpich-dev libjansson-dev zlib1g-dev libzstd-dev zstd libcmocka-dev chromium locales clang libclang-rt-14-dev slurmctld slurmd slurm-client munge libotf2-trace-dev otf2-tools python3-otf2 python3-mpi4py python3-numpy libsimgrid-dev bsdextrautils strace"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "perfskel: installing$missing" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
