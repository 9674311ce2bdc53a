#!/usr/bin/env bash
# The main job on in-process devices: install, build, emit an example model (a 2-layer
# transformer training step annotated for 2-D data x tensor parallelism on 8 devices), check it,
# propagate shardings, partition it, run it on 8 in-process devices, verify it against the
# single-device program, and print the partitioned program's communication report.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
mkdir -p out
build/spmdc example transformer-2d -o out/transformer.hlo
build/spmdc check out/transformer.hlo
build/spmdc compile out/transformer.hlo --num-partitions 8 --propagate-to-output --stats -o out/transformer.spmd.hlo
build/spmdc run out/transformer.hlo --num-partitions 8 --seed 1 --outputs out/transformer_outputs | head -4
build/spmdc verify out/transformer.hlo --num-partitions 8 --propagate --propagate-to-output --seed 1
