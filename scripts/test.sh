#!/usr/bin/env bash
# Installs what is needed, builds everything, and runs every test (unit, lit golden, differential).
# Suites labelled "slow" run too; `ctest -LE slow` skips them when iterating by hand.
# Then, where the project virtual environment .venv exists (scripts/install-deps.sh --python
# makes it; this script does not), installs the Python package into it and runs its pytest
# tests (python/tests); without .venv they are skipped with a note.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
(cd build && ctest --output-on-failure -j2 --timeout 1200)
if [ -x .venv/bin/python ]; then
  # Brings .venv up to python/requirements.lock (a no-op when it already is).
  scripts/install-deps.sh --python
  # The venv's pinned scikit-build-core and nanobind build the extension offline; its build
  # folder build-python/ is kept, so a second run recompiles only what changed.
  CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} \
    .venv/bin/python -m pip install -q --disable-pip-version-check --no-build-isolation .
  .venv/bin/python -m pytest -q python/tests
else
  echo "test.sh: note: no .venv, so the Python package's tests (python/tests) are skipped;" \
       "scripts/install-deps.sh --python makes it"
fi
