#!/usr/bin/env bash
# Installs the Debian 12 packages spmdc needs (as root, or through sudo). Idempotent: does
# nothing when every package is already installed.
# usage: scripts/install-deps.sh [--sanitizers]   (--sanitizers adds clang for scripts/fuzz.sh)
set -euo pipefail
# ocl-icd-opencl-dev: Debian's oneDNN CMake package (dnnl-config.cmake) requires the OpenCL
# headers and loader, but libdnnl-dev only Recommends them, and --no-install-recommends skips
# Recommends. ccache: CMakeLists.txt compiles through it when installed (rebuilds of a clean tree,
# and the fresh-machine test's build, hit its cache). coinor-libcbc-dev: the MILP solver of
# src/auto (found through pkg-config); zlib1g-dev: gzip-compressed IOPDDL problems.
packages=(cmake ninja-build ccache g++ libgtest-dev libgmock-dev libbenchmark-dev libdnnl-dev
          ocl-icd-opencl-dev libfmt-dev libabsl-dev libgoogle-perftools-dev llvm-14-tools python3
          libcli11-dev nlohmann-json3-dev coinor-libcbc-dev pkg-config zlib1g-dev)
# Only for the sanitizer and fuzzing steps (scripts/sanitize.sh, scripts/fuzz.sh pass
# --sanitizers): clang and its runtime libraries (libFuzzer, ASan, UBSan for clang).
if [ "${1:-}" = "--sanitizers" ]; then
  packages+=(clang-14 libclang-rt-14-dev)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
