#!/usr/bin/env python3
"""Checks an IOPDDL solution vector against its problem, independently of spmdc's C++ reader.

    iopddl_evaluate.py PROBLEM.json[.gz] SOLUTION

SOLUTION is a file whose last line is `[s0, s1, ...]` (what `spmdc solve` prints on stdout), or
`-` for standard input. Prints `cost C` (Python integers: no overflow) and exits 0 when the
solution is valid; prints what is wrong and exits 1 otherwise: a wrong length, an index out of a
node's range, a forbidden strategy (cost >= 10^18, XLA's marker), or the usage profile above the
limit at some time point. Semantics are the contest's `Evaluate` (github.com/google/iopddl
iopddl.cc, described in reference/AUTO.md §2.1): node i costs costs[i][s_i] and uses usages[i][s_i]
over [lower, upper) (half-open); edge k over (u, v) costs costs[k][s_u * |S_v| + s_v]; several
edges over one pair all count.
"""
import gzip
import json
import sys

FORBIDDEN = 10**18


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)["problem"]


def evaluate(problem, solution):
    nodes, edges = problem["nodes"], problem["edges"]
    costs, usages, intervals = nodes["costs"], nodes["usages"], nodes["intervals"]
    if len(solution) != len(costs):
        return None, f"the solution has {len(solution)} entries, the problem {len(costs)} nodes"
    total = 0
    for i, s in enumerate(solution):
        if not 0 <= s < len(costs[i]):
            return None, f"node {i}: strategy {s} out of range [0, {len(costs[i])})"
        if costs[i][s] >= FORBIDDEN:
            return None, f"node {i}: strategy {s} is forbidden (cost {costs[i][s]})"
        total += costs[i][s]
    for k, (u, v) in enumerate(edges["nodes"]):
        c = edges["costs"][k][solution[u] * len(costs[v]) + solution[v]]
        if c >= FORBIDDEN:
            return None, f"edge {k} ({u}, {v}): pair ({solution[u]}, {solution[v]}) is forbidden"
        total += c
    limit = problem.get("usage_limit")
    if limit is not None:
        end = max((hi for _, hi in intervals), default=0)
        delta = [0] * (end + 1)
        for i, (lo, hi) in enumerate(intervals):
            if lo < hi:
                delta[lo] += usages[i][solution[i]]
                delta[hi] -= usages[i][solution[i]]
        live = 0
        for t in range(end):
            live += delta[t]
            if live > limit:
                return None, f"usage {live} at time {t} exceeds the limit {limit}"
    return total, None


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    text = sys.stdin.read() if argv[2] == "-" else open(argv[2]).read()
    lines = [l for l in text.splitlines() if l.strip()]
    if not lines:
        print("no solution line", file=sys.stderr)
        return 1
    try:
        solution = json.loads(lines[-1])
    except json.JSONDecodeError as e:
        print(f"the last line is not a JSON list: {e}", file=sys.stderr)
        return 1
    cost, error = evaluate(load(argv[1]), solution)
    if error:
        print(f"invalid: {error}")
        return 1
    print(f"cost {cost}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
