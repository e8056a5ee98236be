#!/usr/bin/env bash
# Runs the same unmodified gcc -fopenmp binary on stock libgomp, then on libomp-lite both ways an
# existing binary can reach it (LD_PRELOAD, and as libgomp.so.1 on LD_LIBRARY_PATH).
# Usage: demo.sh BUILD_DIR [STEPS]
set -euo pipefail
build=$(cd "${1:?usage: demo.sh BUILD_DIR [STEPS]}" && pwd)
steps=${2:-20000}
bin=$build/demo/heat
lite=$build/.libs/libomp-lite.so.0
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
echo "== one binary, three runs (OMP_NUM_THREADS=$OMP_NUM_THREADS): same results, different runtimes"
"$bin" "$steps"
LD_PRELOAD=$lite "$bin" "$steps"
LD_LIBRARY_PATH=$build/omp-lite "$bin" "$steps"
