"""spmdc.Module: parse/print, propagate, explain, partition, report, verify, and the exceptions."""
import pathlib

import pytest

import spmdc

REPO = pathlib.Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "realclient" / "corpus"

MLP = """HloModule mlp, num_partitions=8

ENTRY main {
  x = f32[16,32] parameter(0)
  w1 = f32[32,64] parameter(1)
  w2 = f32[64,8] parameter(2)
  h = f32[16,64] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  a = f32[16,64] tanh(h)
  ROOT y = f32[16,8] dot(a, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
"""


def mlp():
    return spmdc.Module.parse(MLP, "mlp.hlo")


def by_name(module):
    return {i["name"]: i for i in module.instructions()}


def test_parse_and_print_round_trip():
    m = mlp()
    assert m.name == "mlp"
    assert m.num_partitions == 8
    assert m.num_parameters == 3
    assert m.parameter_names() == ["x", "w1", "w2"]
    again = spmdc.Module.parse(m.text())
    assert again.text() == m.text()
    assert "ROOT %y = f32[16,8] dot(%a, %w2)" in m.text()


def test_propagate_from_a_partition_spec():
    m = mlp().propagate(mesh="data=2,model=4", shards={"x": "[data, None]", "w1": "[None, model]"})
    assert m.mesh == "data=2,model=4"
    inst = by_name(m)
    # h is split as both operands say: rows over data, columns over model.
    assert inst["h"]["sharding"] == "{devices=[2,4]<=[8]}"
    assert inst["a"]["sharding"] == "{devices=[2,4]<=[8]}"
    # The original is unchanged: every transformation returns a new Module.
    assert by_name(mlp())["h"]["sharding"] is None
    params, results = m.entry_specs()
    assert params[0] == [["data"], []]
    assert params[1] == [[], ["model"]]
    assert "sharding={devices=[2,4]<=[8]}" in m.text()


def test_explain_names_the_rule_chain():
    m = mlp().propagate(mesh="data=2,model=4", shards={"x": "[data, None]", "w1": "[None, model]"})
    text = m.explain("a")
    assert "h" in text and "x" in text
    assert "on mesh {data=2, model=4}: f32[16@data,64@model]" in text
    # explain() on an unpropagated module propagates a copy itself.
    annotated = mlp().annotate(mesh="data=2,model=4", shards={"x": "[data, None]"})
    assert "f32[16@data,64]" in annotated.explain("h")
    with pytest.raises(spmdc.BadInputError, match="no instruction named 'nope'"):
        m.explain("nope")


def test_partition_gives_the_per_device_program():
    m = mlp().propagate(mesh="data=2,model=4", shards={"x": "[data, None]", "w1": "[None, model]"})
    per_device = m.partition()
    text = per_device.text()
    # Each device holds its 8x16 tile of h and sums y's partial products over model.
    assert "f32[8,16]" in text
    kinds = per_device.collectives()
    assert "all-reduce" in kinds
    count, nbytes = kinds["all-reduce"]
    assert count >= 1 and nbytes > 0


def test_report_is_the_json_report():
    m = mlp().annotate(mesh="data=2,model=4", shards={"x": "[data, None]", "w1": "[None, model]"})
    r = m.report()
    assert r["num_partitions"] == 8
    assert r["peak_memory_bytes"] > 0
    assert r["flops_per_device"] > 0
    assert r["mesh"]["axes"] == [{"name": "data", "size": 2}, {"name": "model", "size": 4}]
    assert any(c["kind"] == "all-reduce" and c["mesh_axes"] == ["model"] for c in r["collectives"])
    assert r["hardware"]["name"] == "h100"
    assert m.report(hardware="tpu-v5p")["hardware"]["name"] == "tpu-v5p"
    with pytest.raises(spmdc.BadInputError):
        m.report(hardware="no-such-machine")


def test_verify_compares_one_device_with_eight():
    m = mlp().annotate(mesh="data=2,model=4", shards={"x": "[data, None]", "w1": "[None, model]"})
    v = m.verify(propagate=True)
    assert v["num_partitions"] == 8 and v["outputs"] == 1
    assert v["max_rel_error"] < 1e-4
    # As annotated, without propagation, too.
    assert m.verify()["outputs"] == 1


def test_stablehlo_and_hlo_text_give_the_same_shardings():
    # JAX's HLO export does not print num_partitions; its MLIR does (mhlo.num_partitions).
    mlir = spmdc.Module.parse((CORPUS / "gpt2_adamw" / "shardy.mlir").read_text(), "shardy.mlir")
    hlo = spmdc.Module.parse((CORPUS / "gpt2_adamw" / "shardy.hlo").read_text(), "shardy.hlo")
    assert mlir.num_partitions == 8 and hlo.num_partitions == 1
    a, b = mlir.propagate(), hlo.propagate()

    def signature(m):
        shardings = {i["name"]: i["sharding"] for i in m.instructions() if i["entry"]}
        return [shardings[n] for n in m.parameter_names()]

    assert signature(a) == signature(b)
    assert any(s and "devices=" in s for s in signature(a))
    assert a.partition().collectives() == b.partition(8).collectives()
    with pytest.raises(spmdc.BadInputError, match="num_partitions is required"):
        b.partition()
    with pytest.raises(spmdc.BadInputError, match="disagrees"):
        a.partition(4)


def test_bad_input_is_located_and_exit_code_2():
    with pytest.raises(spmdc.BadInputError) as e:
        spmdc.Module.parse("HloModule m\n\nENTRY e {\n  ROOT p = f32[2 parameter(0)\n}\n", "bad.hlo")
    assert e.value.exit_code == 2
    assert "bad.hlo:4:" in str(e.value)
    with pytest.raises(spmdc.BadInputError) as e:
        spmdc.Module.parse((REPO / "tests/lit/stablehlo/Inputs/malformed.mlir").read_text(),
                           "malformed.mlir")
    assert "malformed.mlir:4:" in str(e.value)
    with pytest.raises(spmdc.BadInputError, match="no instruction named 'zz'"):
        mlp().propagate(mesh="data=2,model=4", shards={"zz": "[data]"})
    with pytest.raises(spmdc.BadInputError, match="mesh"):
        mlp().annotate(mesh="data=3")  # 3 devices, the module has 8


def test_unsupported_is_exit_code_3():
    with pytest.raises(spmdc.UnsupportedError) as e:
        spmdc.Module.parse((REPO / "tests/lit/stablehlo/Inputs/unsupported.mlir").read_text(),
                           "unsupported.mlir")
    assert e.value.exit_code == 3
    assert "stablehlo.cholesky" in str(e.value)


def test_exception_classes():
    assert spmdc.MismatchError.exit_code == 1
    assert spmdc.BadInputError.exit_code == 2
    assert spmdc.UnsupportedError.exit_code == 3
    assert spmdc.InternalError.exit_code == 4
    for cls in (spmdc.MismatchError, spmdc.BadInputError, spmdc.UnsupportedError,
                spmdc.InternalError):
        assert issubclass(cls, spmdc.Error) and issubclass(cls, Exception)


def test_verify_of_manual_regions_compares_on_the_devices():
    # A shard_map program: one device cannot run its manual region, so the reference is the
    # module sharded only as the region requires, on the same 8 devices.
    for model in ("ring_allgather_matmul", "ring_attention"):
        m = spmdc.Module.parse((CORPUS / model / "shardy.hlo").read_text(), "shardy.hlo")
        with pytest.raises(spmdc.UnsupportedError, match="manual regions"):
            m.verify(8)
        v = m.verify(8, propagate=True)
        assert v["manual_reference"] == 1 and v["outputs"] >= 1, model
        assert v["max_rel_error"] < 1e-4


def test_the_stubs_cover_the_extension():
    import inspect
    stub = (pathlib.Path(spmdc.__file__).parent / "_spmdc.pyi").read_text()
    for name, _ in inspect.getmembers(spmdc._spmdc.Module):
        if not name.startswith("__"):
            assert f"def {name}(" in stub, name


SHARED_CALLEE = """HloModule m, num_partitions=4

%relu (a: f32[8,16]) -> f32[8,16] {
  %a = f32[8,16] parameter(0)
  %z = f32[] constant(0)
  %zb = f32[8,16] broadcast(%z), dimensions={}
  ROOT %r = f32[8,16] maximum(%a, %zb)
}

ENTRY %e {
  %x = f32[8,16] parameter(0), sharding={devices=[4,1]<=[4]}
  %w = f32[16,16] parameter(1)
  %h1 = f32[8,16] dot(%x, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %a1 = f32[8,16] call(%h1), to_apply=%relu
  %h2 = f32[8,16] dot(%a1, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT %a2 = f32[8,16] call(%h2), to_apply=%relu
}
"""


def test_propagate_inlines_calls_and_explain_follows_the_names():
    m = spmdc.Module.parse(SHARED_CALLEE)
    inlined = m.propagate(to_output=True)
    assert " call(" not in inlined.text() and "%relu" not in inlined.text()
    inst = by_name(inlined)
    # The callee's root copies take the calls' names; the first call site keeps the callee's
    # other names, the second gets fresh ones.
    for name in ("a1", "h2", "a2", "zb", "zb.1"):
        assert inst[name]["sharding"] == "{devices=[4,1]<=[4]}", name
    assert "its value is now a1, a2" in inlined.explain("r")
    assert "the other copies: zb.1" in inlined.explain("zb")
    with pytest.raises(spmdc.BadInputError):
        inlined.explain("no_such_name")
    assert inlined.verify()["outputs"] == 1


def test_propagate_flattens_or_keeps_calls_on_request():
    m = spmdc.Module.parse(SHARED_CALLEE)
    flat = m.propagate(to_output=True, calls="flatten")
    assert "%relu.clone" in flat.text()
    inst = by_name(flat)
    for name in ("a1", "h2", "a2"):
        assert inst[name]["sharding"] == "{devices=[4,1]<=[4]}", name
    shared = m.propagate(to_output=True, calls="keep")
    assert "relu.clone" not in shared.text() and " call(" in shared.text()
    assert flat.verify()["outputs"] == 1
    with pytest.raises(spmdc.BadInputError):
        m.propagate(calls="sideways")


CORPUS_FILES = sorted(str(p.relative_to(CORPUS)) for p in CORPUS.glob("*/shardy.*")
                      if p.suffix in (".hlo", ".mlir") and not p.name.endswith(".xla.hlo"))


@pytest.mark.parametrize("path", CORPUS_FILES)
def test_corpus_module_propagates_partitions_and_verifies(path):
    text = (CORPUS / path).read_text()
    m = spmdc.Module.parse(text, path)
    per_device = m.propagate().partition(8)
    assert per_device.num_partitions == 8
    v = m.verify(8, propagate=True)
    assert v["outputs"] >= 1
