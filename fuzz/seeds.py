#!/usr/bin/env python3
"""Seed corpora and dictionaries for the fuzz targets, made from the sources (tests/lit, the
opcode and attribute tables), so that they never go stale.

usage: seeds.py OUT_DIR
writes OUT_DIR/hlo/       one file per tests/lit .hlo file (for hlo_parser and pipeline)
       OUT_DIR/sharding/  one file per distinct `sharding={...}` value found in tests/lit
       OUT_DIR/mlir/      the StableHLO modules of tests/lit, of the stablehlo reader's unit test
                          (its raw-string modules) and the corpus modules under 32 KB (stablehlo)
       OUT_DIR/hlo.dict, OUT_DIR/sharding.dict   libFuzzer dictionaries (-dict=)

The .hlo seeds keep their `// RUN:` lines and drop every other whole-line `//` comment: the RUN
lines are where the pipeline target reads `--num-partitions N` and the propagation flags, and they
keep the lexer's comment path exercised; the FileCheck lines are expected output, bytes the
mutator would spend its edits on for nothing but more comment skipping.
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def lit_files(suffix):
    for d, _, files in sorted(os.walk(os.path.join(ROOT, "tests", "lit"))):
        for f in sorted(files):
            if f.endswith(suffix):
                yield os.path.join(d, f)


# The first token of a StableHLO module as the reader recognises one (stablehlo.h).
MLIR_START = re.compile(r"\s*(module\b|func\.func\b|#loc)")


def mlir_files():
    """The .mlir files of tests/lit, and those of tests/realclient/corpus under 32 KB: larger
    seeds slow every execution without adding forms the small ones lack."""
    yield from lit_files(".mlir")
    corpus = os.path.join(ROOT, "tests", "realclient", "corpus")
    for d, _, files in sorted(os.walk(corpus)):
        for f in sorted(files):
            path = os.path.join(d, f)
            if f.endswith(".mlir") and os.path.getsize(path) < 32 * 1024:
                yield path


def shardings(text):
    """Every balanced {...} value following `sharding=`."""
    for m in re.finditer(r"sharding=\{", text):
        start = m.end() - 1
        depth = 0
        for i in range(start, len(text)):
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    yield text[start:i + 1]
                    break


def dict_line(token):
    return '"' + token.replace("\\", "\\\\").replace('"', '\\"') + '"\n'


def main():
    out = sys.argv[1]
    os.makedirs(os.path.join(out, "hlo"), exist_ok=True)
    os.makedirs(os.path.join(out, "sharding"), exist_ok=True)
    seen = set()
    for path in list(lit_files(".hlo")) + list(lit_files(".test")):
        text = open(path, encoding="utf-8", errors="replace").read()
        for s in shardings(text):
            seen.add(s)
        if not path.endswith(".hlo"):
            continue
        kept = [l for l in text.splitlines(True)
                if not l.lstrip().startswith("//") or "RUN:" in l]
        name = os.path.relpath(path, os.path.join(ROOT, "tests", "lit")).replace(os.sep, "_")
        with open(os.path.join(out, "hlo", name), "w", encoding="utf-8") as f:
            f.write("".join(kept))
    for i, s in enumerate(sorted(seen)):
        with open(os.path.join(out, "sharding", "s%04d" % i), "w", encoding="utf-8") as f:
            f.write(s)

    mlir = os.path.join(out, "mlir")
    os.makedirs(mlir, exist_ok=True)
    for path in mlir_files():
        name = os.path.relpath(path, os.path.join(ROOT, "tests")).replace(os.sep, "_")
        with open(os.path.join(mlir, name), "w", encoding="utf-8") as f:
            f.write(open(path, encoding="utf-8", errors="replace").read())
    unit = os.path.join(ROOT, "tests", "unit", "stablehlo_reader_test.cc")
    if os.path.exists(unit):
        raw = re.findall(r'R"\((.*?)\)"', open(unit, encoding="utf-8").read(), re.S)
        for i, text in enumerate(t for t in raw if MLIR_START.match(t)):
            with open(os.path.join(mlir, "unit%03d.mlir" % i), "w", encoding="utf-8") as f:
                f.write(text)

    # Dictionaries: the names the tables define, and the sharding text's keywords.
    words = set()
    for table, pattern in (("opcodes.def", r'^V\(\w+, "([^"]+)"'), ("attributes.def", r'^V\(\w+, "([^"]+)"')):
        for line in open(os.path.join(ROOT, "src", "ir", table), encoding="utf-8"):
            m = re.match(pattern, line)
            if m:
                words.add(m.group(1))
    sharding_words = ["{", "}", "[", "]", "<=", "T(", ")", ",", "=", "replicated", "manual",
                      "maximal", "unknown", "unreduced", "device=", "devices=", "last_tile_dim_replicate",
                      "last_tile_dims=", "metadata=", "op_name=", "shard_as", "shard_like", "mesh",
                      "maximal_mesh", "device_id=", "replicated=", "manual=", "unreduced=",
                      "replicated}", "manual}"]
    hlo_words = ["HloModule", "ENTRY", "ROOT", "parameter(", "sharding=", "metadata=",
                 "num_partitions=", "to_apply=", "calls=", "condition=", "body=", "f32[", "s32[",
                 "bf16[", "pred[", "token[]", "{1,0}", "//", "/*", "*/", "--num-partitions ",
                 "--propagate-to-output", "--propagate-to-parameters", "FileNames", "StackFrames"]
    mlir_words = ["module", "func.func", "@main", "tensor<", "xf32>", "xbf16>", "xi32>", "->",
                  "return", "stablehlo.", "sdy.mesh", "sdy.sharding", "sdy.manual_computation",
                  "sdy.sharding_constraint", "mhlo.sharding", "#sdy.sharding<", "loc(", "#loc",
                  "dense<", "{jax.result_info", "attributes", "%arg0", "%0", "^bb0", ":"]
    with open(os.path.join(out, "hlo.dict"), "w", encoding="utf-8") as f:
        for w in sorted(words | set(hlo_words) | set(sharding_words)):
            f.write(dict_line(w))
    with open(os.path.join(out, "mlir.dict"), "w", encoding="utf-8") as f:
        for w in sorted(words | set(mlir_words) | set(sharding_words)):
            f.write(dict_line(w))
    with open(os.path.join(out, "sharding.dict"), "w", encoding="utf-8") as f:
        for w in sharding_words:
            f.write(dict_line(w))
    print("seeds: %d hlo files, %d shardings, %d mlir modules, %d dictionary words" %
          (len(os.listdir(os.path.join(out, "hlo"))), len(seen), len(os.listdir(mlir)),
           len(words) + len(hlo_words)))


if __name__ == "__main__":
    main()
