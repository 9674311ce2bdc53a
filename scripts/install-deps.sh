#!/usr/bin/env bash
# Installs the Debian 12 packages spmdc needs (as root, or through sudo). Idempotent: does
# nothing when every package is already installed.
# usage: scripts/install-deps.sh [--sanitizers] [--python]
#   --sanitizers  adds clang for scripts/fuzz.sh and scripts/sanitize.sh
#   --python      adds python3-venv and makes the project virtual environment .venv (git-ignored)
#                 from python/requirements.lock: JAX (CPU), Flax, Optax, Equinox, pytest, NumPy,
#                 for tests/realclient/generate.py. Not needed to build or test spmdc: the corpus
#                 it generates is committed. Cold: about 2.5 min and 760 MB (PyPI downloads).
set -euo pipefail
cd "$(dirname "$0")/.."
# ocl-icd-opencl-dev: Debian's oneDNN CMake package (dnnl-config.cmake) requires the OpenCL
# headers and loader, but libdnnl-dev only Recommends them, and --no-install-recommends skips
# Recommends. ccache: CMakeLists.txt compiles through it when installed (rebuilds of a clean tree,
# and the fresh-machine test's build, hit its cache). coinor-libcbc-dev: the MILP solver of
# src/auto (found through pkg-config); zlib1g-dev: gzip-compressed IOPDDL problems.
# libopenmpi-dev, openmpi-bin: the MPI backend (--backend mpi) and its tests; iproute2: the
# two-namespace MPI test (ip netns).
packages=(cmake ninja-build ccache g++ libgtest-dev libgmock-dev libbenchmark-dev libdnnl-dev
          ocl-icd-opencl-dev libfmt-dev libabsl-dev libgoogle-perftools-dev llvm-14-tools python3
          libcli11-dev nlohmann-json3-dev coinor-libcbc-dev pkg-config zlib1g-dev
          libopenmpi-dev openmpi-bin iproute2)
# Test only: tests/html/report_html_test.py renders `spmdc report --format html` in headless
# Chromium (skipped without it, a failure under CI=true). Nothing spmdc builds or runs needs it.
packages+=(chromium)
want_python=0
for arg in "$@"; do
  case "$arg" in
    # Only for the sanitizer and fuzzing steps: clang and its runtime libraries (libFuzzer, ASan,
    # UBSan for clang).
    --sanitizers) packages+=(clang-14 libclang-rt-14-dev) ;;
    # Debian's python3 has no venv module without python3-venv (ensurepip lives there).
    --python) packages+=(python3-venv); want_python=1 ;;
    *) echo "install-deps.sh: unknown option '$arg' (known: --sanitizers, --python)" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -ne 0 ]; then
  echo "installing: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
[ "$want_python" -eq 1 ] || exit 0

# The venv is made from Debian's interpreter (/usr/bin/python3), not whichever python3 comes
# first on PATH, so every machine gets the same Python. A stamp holding the lock's hash makes a
# second run a no-op, and a changed lock reinstalls.
lock=python/requirements.lock
stamp=.venv/.spmdc-lock-sha256
want=$(sha256sum "$lock" | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x .venv/bin/python ]; then
  exit 0
fi
echo "making .venv from $lock"
rm -rf .venv
/usr/bin/python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -r "$lock"
echo "$want" > "$stamp"
