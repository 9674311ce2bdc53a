#!/usr/bin/env bash
# Installs what is needed, builds everything, and runs every test (unit, lit golden, differential).
# Suites labelled "slow" run too; `ctest -LE slow` skips them when iterating by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
cd build
ctest --output-on-failure -j2 --timeout 1200
