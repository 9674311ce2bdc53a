"""Prints every lit module that `spmdc check` accepts, prints the result again, and requires
the two prints to be identical and the first print to pass `check` too (print is idempotent and
its output is valid input). Usage: print_twice.py SPMDC TESTS_ROOT TMPDIR"""
import os
import subprocess
import sys

spmdc, root, tmp = sys.argv[1:4]
os.makedirs(tmp, exist_ok=True)
checked = failures = 0
for folder, _, files in sorted(os.walk(root)):
    for name in sorted(files):
        if not name.endswith(".hlo"):
            continue
        path = os.path.join(folder, name)
        if subprocess.run([spmdc, "check", path], capture_output=True).returncode != 0:
            continue  # an invalid module (error tests)
        first = os.path.join(tmp, "1.hlo")
        second = os.path.join(tmp, "2.hlo")
        a = subprocess.run([spmdc, "print", path, "-o", first], capture_output=True)
        b = subprocess.run([spmdc, "print", first, "-o", second], capture_output=True)
        checked += 1
        if a.returncode or b.returncode:
            failures += 1
            print(f"FAIL {path}: {a.stderr.decode()}{b.stderr.decode()}")
        elif open(first).read() != open(second).read():
            failures += 1
            print(f"FAIL {path}: the second print differs from the first")
print(f"{checked} valid modules, {failures} not idempotent")
sys.exit(1 if failures or checked == 0 else 0)
