#!/usr/bin/env bash
# Configures and builds everything into build/ (Release). Leaves the CLI at build/spmdc.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
