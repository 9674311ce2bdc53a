# pytest configuration of the spmdc package's tests (python/tests): the package must be installed
# (`.venv/bin/pip install .`; scripts/test.sh does it). JAX's CPU backend gets 8 host devices
# before anything imports jax, for spmdc.jax's tests.
import os
import pathlib

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

REPO = pathlib.Path(__file__).resolve().parents[2]
