#!/usr/bin/env python3
"""The MPI backend end to end: Open MPI jobs of 2, 4 and 8 ranks on loopback.

usage: mpi_test.py SPMDC_BINARY COMMUNICATOR_TEST_BINARY|- [--random-test BINARY] [--two-hosts]

1. mpi_communicator_test (MpiCommunicator against the thread backend, every collective and
   reduction) on 2 and 4 ranks, and on 2 ranks x 2 device threads.
2. `spmdc verify --backend mpi` on the example models (`spmdc example`): the transformer
   training step under data, Megatron and 2-D parallelism (on 4 and 8 ranks), the 2-D MLP, and
   on 2 ranks x 4 and 4 x 2 device threads; `run --outputs` on 2 ranks writes the same .npy bytes as the
   thread backend.
3. Faults: a rank killed with SIGKILL mid-run ends the job within 10 s, non-zero, with the killed
   rank named and no output file; a stopped rank (SIGSTOP) trips --collective-timeout (exit 5,
   the waiting device named), as does a rank stuck before the run; a device failing at run time ends the job with its exit code (3);
   ranks holding different programs, a rank whose input is missing and a job of the wrong size
   are clear errors (exit 2).
4. A bounded differential run over the lit corpus: the first `verify` RUN line of a sample of
   tests/lit/*/*.hlo (SPMDC_MPI_CORPUS_CASES of them, default 24; 0: all) under mpirun with
   --backend mpi must end as the thread backend's run does (same exit code; "verify: ok").
   With --random-test (partition_random_test), likewise a bounded run of the random
   differential tester: the cases it generates, partitions and matches on threads
   (SPMDC_MPI_RANDOM_CASES per random test, default 10; seeds from SPMDC_MPI_RANDOM_SEED), each
   verified under mpirun on as many ranks as it has devices.

With --two-hosts, instead: two "hosts", network namespaces joined by a veth pair (ip netns,
Debian iproute2), one rank in each (mpirun starts the second through an rsh agent that enters
its namespace); Open MPI's TCP transport and out-of-band channel are restricted to the veth
subnet, so the program crosses a real network stack. The test checks that the ranks sit in
different namespaces and that the veth pair carried the collectives' bytes. Namespaces that
cannot be made (not root, no CAP_NET_ADMIN) skip it (77), or fail it under CI=true.

Traffic stays on loopback (btl self,tcp on lo; oob on lo). As root, Open MPI needs
OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM), which this test sets. Exit 77 (ctest: skipped) when mpirun is
not installed or spmdc was built without MPI; under CI=true that is a failure instead.
"""
import glob
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SKIP = 77
MCA = ["--oversubscribe", "--mca", "btl", "self,tcp", "--mca", "btl_tcp_if_include", "lo",
       "--mca", "oob_tcp_if_include", "lo"]


def fail(msg):
    print(f"mpi_test: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def skip(msg, environment=False):
    # Inside the fresh-machine test's chroot (SPMDC_FRESH_INNER=1) the outer run has already run
    # this test on the machine itself; what the chroot lacks (network namespaces under a private
    # mount namespace) is a limit of the chroot, not of the install being tested.
    if environment and os.environ.get("SPMDC_FRESH_INNER") == "1":
        print(f"mpi_test: SKIPPED inside the fresh-machine root: {msg}")
        sys.exit(SKIP)
    if os.environ.get("CI") == "true":
        fail(f"{msg} (CI=true: the MPI tests must run; scripts/install-deps.sh installs Open MPI)")
    print(f"mpi_test: SKIPPED: {msg}")
    sys.exit(SKIP)


def env():
    e = dict(os.environ)
    e["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
    e["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    e["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
    return e


def mpirun(mpi, np_args, timeout=300, extra_env=None):
    e = env()
    if extra_env:
        e.update(extra_env)
    cmd = [mpi] + MCA + np_args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=e)


def expect(result, rc, what, needles=()):
    out = result.stdout + result.stderr
    if result.returncode != rc:
        fail(f"{what}: exit {result.returncode}, expected {rc}\n{out[-3000:]}")
    for n in needles:
        if n not in out:
            fail(f"{what}: output lacks {n!r}\n{out[-3000:]}")
    print(f"mpi_test: ok: {what}")


LOOP = """HloModule spin, num_partitions=4

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

cond {
  p = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(ITERATIONS)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[64] get-tuple-element(p), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  r = f32[64] all-reduce(x), replica_groups={{0,1,2,3}}, channel_id=1, use_global_device_ids=true, to_apply=add
  q = f32[] constant(0.25)
  qb = f32[64] broadcast(q), dimensions={}
  y = f32[64] multiply(r, qb)
  ROOT t = (s32[], f32[64]) tuple(j, y)
}

ENTRY main {
  x = f32[64] parameter(0), sharding={replicated}
  z = s32[] constant(0)
  t = (s32[], f32[64]) tuple(z, x)
  w = (s32[], f32[64]) while(t), condition=cond, body=body
  ROOT o = f32[64] get-tuple-element(w), index=1, sharding={replicated}
}
"""


CUSTOM_CALL = """HloModule cc, num_partitions=2

ENTRY main {
  x = f32[8] parameter(0), sharding={devices=[2]<=[2]}
  y = f32[8] custom-call(x), custom_call_target="mystery", sharding={devices=[2]<=[2]}
  ROOT z = f32[8] add(y, y), sharding={devices=[2]<=[2]}
}
"""


# Tiled parameters with uneven tiles (7 rows over 2, 5 columns over 2), one read from an f64 .npy
# file (converted to f32), one from an f32 file, one random; each rank reads only its boxes.
BOXES = """HloModule boxes, num_partitions=4

ENTRY main {
  a = f32[7,5] parameter(0), sharding={devices=[2,2]<=[4]}
  b = f32[7,5] parameter(1), sharding={devices=[4,1]<=[4]}
  c = f32[7,5] parameter(2), sharding={devices=[1,2,2]<=[4] last_tile_dim_replicate}
  ab = f32[7,5] multiply(a, b), sharding={devices=[2,2]<=[4]}
  ROOT r = f32[7,5] add(ab, c), sharding={replicated}
}
"""


SHARDS = """HloModule shards, num_partitions=4

ENTRY main {
  a = f32[8,6] parameter(0), sharding={devices=[2,2]<=[4]}
  b = f32[8,6] multiply(a, a), sharding={devices=[2,2]<=[4]}
  s = f32[] constant(2)
  c = f32[8,6] broadcast(s), dimensions={}, sharding={devices=[2,2]<=[4]}
  d = f32[8,6] add(b, c), sharding={devices=[2,2]<=[4]}
  ROOT t = (f32[8,6], f32[8,6]) tuple(d, a), sharding={{devices=[2,2]<=[4]}, {replicated}}
}
"""


def npy_payload(path):
    """(dims, raw data bytes) of a little-endian C-order .npy file."""
    import ast
    data = open(path, "rb").read()
    n = data[8] | (data[9] << 8)
    header = ast.literal_eval(data[10:10 + n].decode())
    return tuple(header["shape"]), data[10 + n:]


def write_npy(path, descr, fmt, dims, values):
    import struct
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else ""))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def rank_pids(tag, rank):
    """PIDs of the processes of the job tagged `tag` (an environment variable) with `rank`."""
    pids = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/environ", "rb") as f:
                items = f.read().split(b"\0")
        except OSError:
            continue
        if f"SPMDC_MPI_TEST_TAG={tag}".encode() in items and \
                f"OMPI_COMM_WORLD_RANK={rank}".encode() in items:
            pids.append(int(p))
    return pids


def signal_rank(mpi, spmdc, tmp, tag, sig, extra, ranks=4, delay=2.0):
    """Starts a 4-rank run of the loop module, sends `sig` to rank 1 after `delay` seconds;
    returns (exit code, output, seconds from the signal to the job's end)."""
    hlo = os.path.join(tmp, "loop.hlo")
    with open(hlo, "w") as f:
        f.write(LOOP.replace("ITERATIONS", "1000000"))
    outdir = os.path.join(tmp, f"out-{tag}")
    e = env()
    e["SPMDC_MPI_TEST_TAG"] = tag
    cmd = [mpi] + MCA + ["-x", "SPMDC_MPI_TEST_TAG", "-np", str(ranks), spmdc, "run", hlo,
                         "--backend", "mpi", "--outputs", outdir] + extra
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=e)
    deadline = time.time() + 60
    victims = []
    while time.time() < deadline and not victims:
        time.sleep(0.2)
        victims = rank_pids(tag, 1)
    if not victims:
        p.kill()
        fail(f"{tag}: rank 1 never started")
    time.sleep(delay)
    if p.poll() is not None:
        fail(f"{tag}: the job ended before the signal (make the loop longer)\n{p.stdout.read()}")
    for v in victims:
        os.kill(v, sig)
    t0 = time.time()
    try:
        out, _ = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        for r in range(ranks):
            for v in rank_pids(tag, r):
                os.kill(v, signal.SIGKILL)
        fail(f"{tag}: the job still runs 60 s after the signal")
    elapsed = time.time() - t0
    # Every rank must be gone (a moment's grace for the last ones to be reaped).
    for _ in range(30):
        left = [v for r in range(ranks) for v in rank_pids(tag, r)]
        if not left:
            break
        time.sleep(0.1)
    if left:
        for v in left:
            os.kill(v, signal.SIGKILL)
        fail(f"{tag}: ranks left running after the job ended: {left}")
    if os.path.exists(outdir) and os.listdir(outdir):
        fail(f"{tag}: a failed run left output files: {os.listdir(outdir)}")
    return p.returncode, out, elapsed


def ip(*args, check=True):
    return subprocess.run(["ip"] + list(args), capture_output=True, text=True, check=check)


def veth_bytes(ns, dev):
    out = ip("-n", ns, "-s", "link", "show", dev).stdout.splitlines()
    # "RX: bytes packets ..." then the numbers; TX likewise.
    rx = int(out[3].split()[0])
    tx = int(out[5].split()[0])
    return rx + tx


def two_hosts(mpi, spmdc):
    if not shutil.which("ip"):
        skip("ip (iproute2) not found")
    tag = f"{os.getpid() % 100000}"
    na, nb = f"spmdc-mpi-{tag}-a", f"spmdc-mpi-{tag}-b"
    va, vb = f"smva{tag}", f"smvb{tag}"
    subnet = f"10.213.{os.getpid() % 250}"
    made = []
    try:
        for ns in (na, nb):
            r = ip("netns", "add", ns, check=False)
            if r.returncode != 0:
                skip(f"cannot create network namespaces here: {r.stderr.strip()}", environment=True)
            made.append(ns)
        ip("link", "add", va, "type", "veth", "peer", "name", vb)
        ip("link", "set", va, "netns", na)
        ip("link", "set", vb, "netns", nb)
        ip("-n", na, "addr", "add", f"{subnet}.1/24", "dev", va)
        ip("-n", nb, "addr", "add", f"{subnet}.2/24", "dev", vb)
        for ns, dev in ((na, va), (nb, vb)):
            ip("-n", ns, "link", "set", dev, "up")
            ip("-n", ns, "link", "set", "lo", "up")
        with tempfile.TemporaryDirectory(prefix="spmdc-mpi-hosts-") as tmp:
            agent = os.path.join(tmp, "agent.sh")
            with open(agent, "w") as f:
                f.write("#!/bin/sh\n# Open MPI's rsh agent: the host is the namespace " + nb +
                        "\nshift\nexec ip netns exec " + nb + " /bin/sh -c \"$*\"\n")
            os.chmod(agent, 0o755)
            hosts = os.path.join(tmp, "hosts")
            with open(hosts, "w") as f:
                f.write(f"{subnet}.1 slots=1\n{subnet}.2 slots=1\n")
            base = ["ip", "netns", "exec", na, mpi, "--hostfile", hosts, "-np", "2",
                    "--mca", "plm_rsh_agent", agent, "--mca", "btl", "self,tcp",
                    "--mca", "btl_tcp_if_include", f"{subnet}.0/24",
                    "--mca", "oob_tcp_if_include", f"{subnet}.0/24",
                    "-x", "OMPI_ALLOW_RUN_AS_ROOT", "-x", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"]
            r = subprocess.run(base + ["/bin/sh", "-c", "readlink /proc/self/ns/net"],
                               capture_output=True, text=True, env=env(), timeout=120)
            expect(r, 0, "a rank in each namespace")
            spaces = set(r.stdout.split())
            if len(spaces) != 2:
                fail(f"the two ranks are not in two network namespaces: {r.stdout!r}")
            for name in ("transformer-dp", "transformer-2d"):
                subprocess.run([spmdc, "example", name, "-o", os.path.join(tmp, name + ".hlo")],
                               check=True)
            for name, k in (("transformer-dp", 2), ("transformer-2d", 4)):
                before = veth_bytes(na, va)
                r = subprocess.run(base + [spmdc, "verify", os.path.join(tmp, name + ".hlo"),
                                           "--propagate", "--backend", "mpi",
                                           "--devices-per-rank", str(k)],
                                   capture_output=True, text=True, env=env(), timeout=600)
                expect(r, 0, f"verify {name} on 2 hosts x {k} devices",
                       [f"(MPI: 2 ranks x {k} devices)", "verify: ok"])
                moved = veth_bytes(na, va) - before
                if moved < 100000:
                    fail(f"verify {name}: only {moved} bytes crossed the veth pair")
                print(f"mpi_test: ok: {moved} bytes crossed the veth pair")
    finally:
        for ns in made:
            ip("netns", "del", ns, check=False)
    print("mpi_test: two hosts passed")


def corpus(mpi, spmdc):
    lit = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lit")
    cases = []
    for path in sorted(glob.glob(os.path.join(lit, "*", "*.hlo"))):
        with open(path) as f:
            text = f.read()
        if "replica_count" in text:
            continue
        for line in text.splitlines():
            m = re.search(r"RUN:\s*(not\s+)?%spmdc verify %s([^|]*)", line)
            if not m or m.group(1):
                continue
            args = shlex.split(m.group(2))
            if any("%" in a for a in args) or "--num-partitions" not in args:
                continue
            n = int(args[args.index("--num-partitions") + 1])
            if n <= 8:
                cases.append((path, args, n))
            break
    limit = int(os.environ.get("SPMDC_MPI_CORPUS_CASES", "24"))
    if 0 < limit < len(cases):
        step = len(cases) / limit
        cases = [cases[int(i * step)] for i in range(limit)]
    same_as_threads(mpi, spmdc, [(os.path.relpath(p, lit), p, a, n) for p, a, n in cases],
                    "lit corpus modules")


def same_as_threads(mpi, spmdc, cases, what):
    """Each (name, path, verify args, devices): `spmdc verify` under mpirun with --backend mpi
    must end as the thread backend's run does (same exit code; "verify: ok" when it passes)."""
    for name, path, args, n in cases:
        t = subprocess.run([spmdc, "verify", path] + args, capture_output=True, text=True,
                           timeout=600)
        r = mpirun(mpi, ["-np", str(n), spmdc, "verify", path] + args + ["--backend", "mpi"],
                   timeout=600)
        if r.returncode != t.returncode:
            fail(f"{name} {' '.join(args)}: MPI exit {r.returncode}, threads "
                 f"{t.returncode}\n{(r.stdout + r.stderr)[-3000:]}")
        if t.returncode == 0 and "verify: ok" not in r.stdout:
            fail(f"{name}: no 'verify: ok' under MPI\n{r.stdout[-2000:]}")
    print(f"mpi_test: ok: {len(cases)} {what} end the same on MPI ranks as on threads")


def random_cases(mpi, spmdc, random_test, tmp):
    """The random differential tester's cases (tests/unit/partition_random_test.cc, which writes
    the cases it partitioned and matched with SPMDC_RANDOM_DUMP) repeated under MPI: each must
    verify on as many ranks as it has devices, as on the thread backend."""
    dump = os.path.join(tmp, "random")
    os.makedirs(dump)
    per_test = os.environ.get("SPMDC_MPI_RANDOM_CASES", "10")
    e = dict(os.environ, SPMDC_RANDOM_DUMP=dump, SPMDC_RANDOM_CASES=per_test,
             SPMDC_RANDOM_SEED=os.environ.get("SPMDC_MPI_RANDOM_SEED", "1"))
    g = subprocess.run([random_test, "--gtest_filter=PartitionRandom.MatchesSingleDevice:"
                        "PartitionRandom.GatherScatterMatchesSingleDevice"],
                       capture_output=True, text=True, env=e, timeout=600)
    if g.returncode != 0:
        fail(f"the random tester failed on threads\n{(g.stdout + g.stderr)[-3000:]}")
    cases = []
    for path in sorted(glob.glob(os.path.join(dump, "*.hlo"))):
        m = re.fullmatch(r"[a-z-]+-seed-(\d+)-n(\d+)(-propagate)?\.hlo", os.path.basename(path))
        args = ["--num-partitions", m.group(2)] + (["--propagate"] if m.group(3) else [])
        cases.append((os.path.basename(path), path, args, int(m.group(2))))
    if len(cases) < 2 * int(per_test):  # each case it runs matches, or the tester failed above
        fail(f"the random tester wrote {len(cases)} cases, expected {2 * int(per_test)}")
    same_as_threads(mpi, spmdc, cases, "random differential cases")


def main():
    if len(sys.argv) < 3:
        fail("usage: mpi_test.py SPMDC_BINARY COMMUNICATOR_TEST_BINARY|- [--random-test BINARY] "
             "[--two-hosts]")
    spmdc, comm_test = sys.argv[1], sys.argv[2]
    rest = sys.argv[3:]
    random_test = rest[rest.index("--random-test") + 1] if "--random-test" in rest else None
    mpi = shutil.which("mpirun")
    if not mpi:
        skip("mpirun not found (Debian: openmpi-bin)")
    probe = subprocess.run([spmdc, "run", "-", "--backend", "mpi", "--num-partitions", "1"],
                           input="HloModule m\nENTRY e {\n  ROOT c = f32[] constant(1)\n}\n",
                           capture_output=True, text=True, env=env(), timeout=120)
    if probe.returncode == 3 and "built without MPI" in probe.stderr:
        skip("spmdc was built without MPI (libopenmpi-dev missing at configure time)")
    expect(probe, 0, "singleton run (no mpirun) on one rank")
    if "--two-hosts" in sys.argv[3:]:
        two_hosts(mpi, spmdc)
        return

    # 1. The communicator against the thread backend.
    if comm_test != "-":
        for np_, k in ((2, 1), (4, 1), (2, 2)):
            r = mpirun(mpi, ["-np", str(np_), comm_test], timeout=600,
                       extra_env={"SPMDC_TEST_DEVICES_PER_RANK": str(k)})
            expect(r, 0, f"mpi_communicator_test on {np_} ranks x {k} devices", ["PASSED"])

    with tempfile.TemporaryDirectory(prefix="spmdc-mpi-test-") as tmp:
        # 2. The example models.
        for name in ("mlp", "transformer", "mlp-2d", "transformer-dp", "transformer-tp", "transformer-2d"):
            subprocess.run([spmdc, "example", name, "-o", os.path.join(tmp, name + ".hlo")],
                           check=True)
        # The data- and Megatron-parallel steps on 8 devices: the 4-way examples' shardings
        # widened to 8.
        for name in ("transformer-dp", "transformer-tp"):
            with open(os.path.join(tmp, name + ".hlo")) as f:
                text = f.read()
            for old, new in (("<=[4]", "<=[8]"), ("devices=[4", "devices=[8"),
                             ("devices=[1,4", "devices=[1,8"),
                             ("num_partitions=4", "num_partitions=8")):
                text = text.replace(old, new)
            with open(os.path.join(tmp, name + "-8.hlo"), "w") as f:
                f.write(text)
        cases = [("mlp", 2, 1, ["--num-partitions", "2"]),
                 ("transformer-dp-8", 8, 1, []),
                 ("transformer-tp-8", 8, 1, []),
                 ("transformer-dp", 4, 1, []),
                 ("transformer-tp", 4, 1, []),
                 ("transformer-2d", 8, 1, []),
                 ("mlp-2d", 8, 1, []),
                 ("transformer-dp", 2, 2, []),
                 ("transformer-2d", 2, 4, []),
                 ("transformer-2d", 4, 2, [])]
        for name, np_, k, extra in cases:
            r = mpirun(mpi, ["-np", str(np_), spmdc, "verify", os.path.join(tmp, name + ".hlo"),
                             "--propagate", "--backend", "mpi", "--devices-per-rank", str(k)]
                       + extra, timeout=600)
            expect(r, 0, f"verify {name} on {np_} ranks x {k} devices",
                   [f"(MPI: {np_} ranks x {k} devices)", "verify: ok"])
            if r.stdout.count("verify:") != 1:
                fail(f"verify {name}: expected one summary line (rank 0's), got:\n{r.stdout}")

        mlp = os.path.join(tmp, "mlp.hlo")
        r = mpirun(mpi, ["-np", "2", spmdc, "run", mlp, "--num-partitions", "2", "--backend",
                         "mpi", "--outputs", os.path.join(tmp, "o-mpi")])
        expect(r, 0, "run mlp --outputs on 2 ranks")
        t = subprocess.run([spmdc, "run", mlp, "--num-partitions", "2", "--outputs",
                            os.path.join(tmp, "o-threads")], capture_output=True, text=True)
        expect(t, 0, "run mlp --outputs on 2 threads")
        for f in sorted(os.listdir(os.path.join(tmp, "o-threads"))):
            a = open(os.path.join(tmp, "o-mpi", f), "rb").read()
            b = open(os.path.join(tmp, "o-threads", f), "rb").read()
            if a != b:
                fail(f"run mlp: {f} differs between the MPI and the thread backend")
        print("mpi_test: ok: MPI and thread outputs are the same bytes")

        # Inputs read box by box: the same bytes as the thread backend's whole-array run.
        boxes = os.path.join(tmp, "boxes.hlo")
        with open(boxes, "w") as f:
            f.write(BOXES)
        a_npy, b_npy = os.path.join(tmp, "a.npy"), os.path.join(tmp, "b.npy")
        write_npy(a_npy, "<f8", "d", (7, 5), [0.25 * i - 3 for i in range(35)])
        write_npy(b_npy, "<f4", "f", (7, 5), [1.5 - 0.125 * i for i in range(35)])
        for np_, k in ((4, 1), (2, 2)):
            r = mpirun(mpi, ["-np", str(np_), spmdc, "run", boxes, "--backend", "mpi",
                             "--devices-per-rank", str(k), "--inputs", f"{a_npy},{b_npy}",
                             "--seed", "7", "--outputs", os.path.join(tmp, f"ob-{np_}")])
            expect(r, 0, f"run with .npy inputs read by box on {np_} ranks x {k} devices")
        t = subprocess.run([spmdc, "run", boxes, "--inputs", f"{a_npy},{b_npy}", "--seed", "7",
                            "--outputs", os.path.join(tmp, "ob-threads")],
                           capture_output=True, text=True)
        expect(t, 0, "run with .npy inputs on one device")
        want = open(os.path.join(tmp, "ob-threads", "output_0.npy"), "rb").read()
        for np_ in (4, 2):
            if open(os.path.join(tmp, f"ob-{np_}", "output_0.npy"), "rb").read() != want:
                fail(f"inputs read by box on {np_} ranks: the result differs from one device's")
        print("mpi_test: ok: boxes of .npy and random inputs give one device's result")

        # --outputs-per-shard: every rank writes its devices' shards; they tile the result.
        shards = os.path.join(tmp, "shards.hlo")
        with open(shards, "w") as f:
            f.write(SHARDS)
        r = mpirun(mpi, ["-np", "2", spmdc, "run", shards, "--backend", "mpi",
                         "--devices-per-rank", "2", "--outputs", os.path.join(tmp, "os"),
                         "--outputs-per-shard"])
        expect(r, 0, "run --outputs-per-shard on 2 ranks x 2 devices",
               ["output_0: f32[8,6] {devices=[2,2]<=[4]}: 4 shards"])
        t = subprocess.run([spmdc, "run", shards, "--outputs", os.path.join(tmp, "os-whole")],
                           capture_output=True, text=True)
        expect(t, 0, "run the shards module on one device")
        dims, whole = npy_payload(os.path.join(tmp, "os-whole", "output_0.npy"))
        rebuilt = bytearray(len(whole))
        for p in range(4):
            sd, part = npy_payload(os.path.join(tmp, "os", f"output_0.partition_{p}.npy"))
            if sd != (4, 3):
                fail(f"--outputs-per-shard: partition {p} holds {sd}, expected (4, 3)")
            r0, c0 = (p // 2) * 4, (p % 2) * 3
            for i in range(4):
                at = ((r0 + i) * 6 + c0) * 4
                rebuilt[at:at + 12] = part[i * 12:(i + 1) * 12]
        if bytes(rebuilt) != whole:
            fail("--outputs-per-shard: the shards do not tile one device's result")
        for p in range(4):
            if npy_payload(os.path.join(tmp, "os", f"output_1.partition_{p}.npy"))[1] != \
                    npy_payload(os.path.join(tmp, "os-whole", "output_1.npy"))[1]:
                fail(f"--outputs-per-shard: replicated output_1 differs on partition {p}")
        print("mpi_test: ok: --outputs-per-shard shards tile one device's result")

        # 3. Faults.
        rc, out, secs = signal_rank(mpi, spmdc, tmp, f"kill{os.getpid()}", signal.SIGKILL, [])
        if rc == 0:
            fail(f"SIGKILL of rank 1: the job exited 0\n{out}")
        if secs > 10:
            fail(f"SIGKILL of rank 1: the job took {secs:.1f} s to end (> 10 s)\n{out}")
        if "rank 1" not in out:
            fail(f"SIGKILL of rank 1: the output does not name rank 1\n{out}")
        print(f"mpi_test: ok: SIGKILL of rank 1 ended the job in {secs:.2f} s, exit {rc}")

        rc, out, secs = signal_rank(mpi, spmdc, tmp, f"stop{os.getpid()}", signal.SIGSTOP,
                                    ["--collective-timeout", "2"])
        if rc != 5 or "collective timeout" not in out:
            fail(f"SIGSTOP of rank 1 with --collective-timeout 2: exit {rc}\n{out}")
        if secs > 10:
            fail(f"SIGSTOP of rank 1: the job took {secs:.1f} s to end (> 10 s)\n{out}")
        print(f"mpi_test: ok: a stopped rank tripped the collective timeout in {secs:.2f} s")

        # A rank stuck before the run (reading its module from a FIFO nobody writes): the
        # others' collective timeout covers the agreement before the run too.
        fifo = os.path.join(tmp, "stuck.fifo")
        os.mkfifo(fifo)
        r = subprocess.run([mpi] + MCA + ["-np", "1", spmdc, "run", mlp, "--backend", "mpi",
                                          "--num-partitions", "2", "--collective-timeout", "2",
                                          ":", "-np", "1", spmdc, "run", fifo, "--backend", "mpi",
                                          "--num-partitions", "2", "--collective-timeout", "2"],
                           capture_output=True, text=True, env=env(), timeout=120)
        expect(r, 5, "a rank stuck before the run, --collective-timeout 2",
               ["waited more than 2 s for the other ranks to load"])
        other = os.path.join(tmp, "transformer.hlo")
        r = subprocess.run([mpi] + MCA + ["-np", "1", spmdc, "run", mlp, "--backend", "mpi",
                                          "--num-partitions", "2", ":", "-np", "1", spmdc, "run",
                                          other, "--backend", "mpi", "--num-partitions", "2"],
                           capture_output=True, text=True, env=env(), timeout=300)
        expect(r, 2, "ranks holding different programs",
               ["do not hold the same per-device program", "rank 1"])
        r = subprocess.run([mpi] + MCA + ["-np", "1", spmdc, "run", mlp, "--backend", "mpi",
                                          "--num-partitions", "2", ":", "-np", "1", spmdc, "run",
                                          mlp, "--backend", "mpi", "--num-partitions", "2",
                                          "--inputs", os.path.join(tmp, "missing.npy")],
                           capture_output=True, text=True, env=env(), timeout=300)
        expect(r, 2, "one rank's input missing", ["rank 1 of 2", "missing.npy"])
        # A device that fails while running (an opaque custom call) ends the job with its code.
        cc = os.path.join(tmp, "custom_call.hlo")
        with open(cc, "w") as f:
            f.write(CUSTOM_CALL)
        r = mpirun(mpi, ["-np", "2", spmdc, "run", cc, "--backend", "mpi"])
        expect(r, 3, "a device failing at run time",
               ["device 0 (replica 0, partition 0) failed", "cannot be executed"])
        r = mpirun(mpi, ["-np", "2", spmdc, "run", os.path.join(tmp, "transformer-dp.hlo"),
                         "--backend", "mpi"])
        expect(r, 2, "a job of the wrong size", ["start it with mpirun -np 4"])

    # 4. The lit corpus and the random tester's cases, differentially.
    corpus(mpi, spmdc)
    if random_test:
        with tempfile.TemporaryDirectory(prefix="spmdc-mpi-random-") as tmp:
            random_cases(mpi, spmdc, random_test, tmp)
    print("mpi_test: all passed")


if __name__ == "__main__":
    main()
