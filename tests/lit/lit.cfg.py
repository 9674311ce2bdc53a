# lit configuration for spmdc's golden tests: each .hlo file carries RUN lines that drive
# build/spmdc and check its output with FileCheck.
import os
import lit.formats

config.name = "spmdc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".hlo", ".test"]
config.test_source_root = os.path.dirname(__file__)
bin_dir = lit_config.params.get("spmdc_bin_dir", os.path.join(config.test_source_root, "..", "..", "build"))
filecheck = lit_config.params.get("filecheck", "/usr/lib/llvm-14/bin/FileCheck")
# Test outputs go to the build tree, never into the sources.
config.test_exec_root = os.path.join(bin_dir, "lit-out")
config.substitutions.append(("%spmdc", os.path.join(bin_dir, "spmdc")))
config.substitutions.append(("FileCheck", filecheck))
config.substitutions.append(("%not", os.path.join(os.path.dirname(filecheck), "not")))
config.excludes = ["Inputs"]
config.environment["OMP_NUM_THREADS"] = "1"
