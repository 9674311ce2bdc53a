#!/usr/bin/env bash
# The main job on in-process devices: install, build, emit an example model (an MLP training
# step), check it, run it, and print its outputs' summary.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
mkdir -p out
build/spmdc example mlp -o out/mlp.hlo
build/spmdc check out/mlp.hlo
build/spmdc run out/mlp.hlo --seed 1 --outputs out/mlp_outputs
