#!/bin/sh
# The whole pipeline that exists so far, on the bundled example (a heat
# solver, 1024 x 1024 grid, 4000 steps: about 2 s on 2 ranks): build,
# first check how far perfskel's predictions hold for it on this machine
# (perfskel check: plain runs against a recording, a skeleton's prediction
# and a simulation on a machine calibrated here; build/demo-check), then
# record examples/heat.c with 2 ranks under Open MPI (blocks compressed,
# the ranks merged into one sequence inside the job, over MPI, and its
# loops folded there into build/demo-trace/merged.fold.json), print its profile,
# merge the ranks again offline (the same bytes), over two MPI processes
# (the same bytes), and with summarised times (a merged trace whose size
# stops growing with the ranks), fold its loops, predict its run time
# from a performance skeleton scaled down 10 times, and simulate it on a
# model of this machine (text summary, and an HTML report with the interval
# tree, per-rank tables and SVG plots in build/demo-report.html), then
# again from its folded trace, with its loops as intervals, skipping the
# iterations that repeat (build/demo-report-folded.html), and
# on two bundled machine files side by side (build/demo-compare.html),
# exported to OTF2 (for Vampir; read by otf2-print) and imported back,
# and extrapolated to 8 ranks (weak scaling). Last, the
# self-tuning collectives: an alltoall benchmark run twice under `perfskel
# tune`, the second run starting from the decisions the first one kept
# (reports in build/demo-tune-{1,2}.txt, their summaries printed). And
# the advisor: how to distribute a Jacobi relaxation over 16 processors.
set -e
cd "$(dirname "$0")/.."
sh scripts/build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
HEAT="build/examples/heat 1024 4000"
rm -rf build/demo-check
echo "== perfskel check -o build/demo-check -- mpirun.openmpi -np 2 $HEAT"
build/perfskel check -o build/demo-check -- mpirun.openmpi -np 2 $HEAT
echo "== perfskel record --merge --zstd -o build/demo-trace -- mpirun.openmpi -np 2 $HEAT"
build/perfskel record --merge --zstd -o build/demo-trace -- mpirun.openmpi -np 2 $HEAT
echo "== perfskel stats build/demo-trace"
build/perfskel stats build/demo-trace
echo "== perfskel merge build/demo-trace -o build/demo-offline.pskm (as the merge in the job did)"
build/perfskel merge build/demo-trace -o build/demo-offline.pskm
cmp build/demo-trace/merged.pskm build/demo-offline.pskm && echo "the same bytes as build/demo-trace/merged.pskm"
echo "== mpirun.openmpi -np 2 perfskel merge --mpi build/demo-trace -o build/demo-mpi.pskm"
mpirun.openmpi -np 2 build/perfskel merge --mpi build/demo-trace -o build/demo-mpi.pskm
cmp build/demo-trace/merged.pskm build/demo-mpi.pskm && echo "the same bytes again"
echo "== perfskel merge build/demo-trace --times summary -o build/demo-summary.pskm"
build/perfskel merge build/demo-trace --times summary -o build/demo-summary.pskm
echo "every rank's times: $(wc -c <build/demo-offline.pskm) bytes; summarised: $(wc -c <build/demo-summary.pskm) bytes"
echo "== perfskel fold build/demo-trace/merged.pskm"
build/perfskel fold build/demo-trace/merged.pskm
echo "== perfskel predict build/demo-trace -K 10 -- mpirun.openmpi -np 2"
build/perfskel predict build/demo-trace -K 10 -- mpirun.openmpi -np 2
echo "== perfskel sim build/demo-trace --html build/demo-report.html"
build/perfskel sim build/demo-trace --html build/demo-report.html
echo "== perfskel sim build/demo-trace --folded --intervals loops --html build/demo-report-folded.html"
build/perfskel sim build/demo-trace --folded --intervals loops --html build/demo-report-folded.html
echo "== perfskel sim build/demo-trace --machine examples/machines/cluster.par --machine examples/machines/ethernet.par --html build/demo-compare.html"
build/perfskel sim build/demo-trace --intervals loops --machine examples/machines/cluster.par \
    --machine examples/machines/ethernet.par --html build/demo-compare.html | sed -n 1,4p
echo "== perfskel export --otf2 build/demo-trace -o build/demo-otf2 (then otf2-print, and back)"
rm -rf build/demo-otf2 build/demo-imported
build/perfskel export --otf2 build/demo-trace -o build/demo-otf2
echo "otf2-print: $(otf2-print build/demo-otf2/traces.otf2 | grep -c '^ENTER') Enter records, $(otf2-print build/demo-otf2/traces.otf2 | grep -c '^MPI_SEND\|^MPI_ISEND ') sends"
build/perfskel import --otf2 build/demo-otf2/traces.otf2 -o build/demo-imported
build/perfskel sim build/demo-imported -q | sed -n 1p
echo "== perfskel sim build/demo-trace/merged.pskm --ranks 8 --scale weak"
build/perfskel sim build/demo-trace/merged.pskm --ranks 8 --scale weak | sed -n 1,6p
rm -f build/demo-tune.db
A2A="build/bench/tune/openmpi/a2a_bench -b 1024 -B 1048576 -f 8 -n 200 -r 1"
for run in 1 2; do
    echo "== perfskel tune --db build/demo-tune.db --report build/demo-tune-$run.txt -- mpirun.openmpi -np 2 $A2A"
    build/perfskel tune --db build/demo-tune.db --report build/demo-tune-$run.txt -- mpirun.openmpi -np 2 $A2A
    sed -n 1,2p build/demo-tune-$run.txt
done
echo "== perfskel advise examples/advise/jacobi.adv --top 2"
build/perfskel advise examples/advise/jacobi.adv --top 2
