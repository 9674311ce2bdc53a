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
# Inside the fresh-machine test (tests/fresh sets SPMDC_FRESH_INNER) the suites labelled slow are
# left out: the outer ctest run, of which `fresh` is one test, runs them on this same tree, and
# what the fresh root proves is that the packages, the build and the tests run there, not the
# slow suites' answers a second time (the zoo-wide auto check alone is minutes of CPU).
labels=()
if [ -n "${SPMDC_FRESH_INNER:-}" ]; then labels=(-LE slow); fi
(cd build && ctest --output-on-failure -j2 --timeout 1200 "${labels[@]}")
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
