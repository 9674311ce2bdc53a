"""spmdc: an automatic SPMD partitioner (GSPMD) for XLA HLO and StableHLO modules.

    import spmdc
    m = spmdc.Module.parse(open("model.hlo").read())       # HLO text or StableHLO MLIR
    p = m.propagate(mesh="data=2,model=4", shards={"x": "[data, None]"})
    print(p.explain("dot.1"))
    per_device = p.partition()                              # the SPMD program, one per device
    print(p.report()["step_time_seconds"]); p.verify()

Every failing call raises a subclass of spmdc.Error whose ``exit_code`` is the CLI's exit code
for the same failure: BadInputError 2 (malformed module, unknown name, bad mesh or spec),
UnsupportedError 3 (an operation spmdc cannot partition or execute yet), MismatchError 1
(verify found a difference), InternalError 4 (a bug). ``spmdc.jax`` works on JAX functions.
"""
from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _spmdc
from ._spmdc import (BadInputError, Error, InternalError, MismatchError,
                     UnsupportedError)

__all__ = ["Module", "Error", "BadInputError", "UnsupportedError", "MismatchError",
           "InternalError", "HARDWARE_DIR"]

# The hardware profiles installed with the package (report(hardware=NAME) finds NAME.json here).
HARDWARE_DIR = os.path.join(os.path.dirname(__file__), "hardware")


def _flags(value: Union[bool, Sequence[bool]]) -> List[bool]:
    if isinstance(value, bool):
        return [True] if value else []
    return [bool(v) for v in value]


class Module:
    """An HLO module. Every method that transforms returns a new Module."""

    __slots__ = ("_m",)

    def __init__(self, impl: _spmdc.Module):
        self._m = impl

    @staticmethod
    def parse(text: str, filename: str = "<input>") -> "Module":
        """Parses and verifies HLO text or StableHLO MLIR text (``module``/``func.func``/``#loc``
        first, or a filename ending in .mlir). Errors: BadInputError naming file:line:col,
        UnsupportedError for StableHLO ops with no HLO equivalent."""
        return Module(_spmdc.Module.parse(text, filename))

    @staticmethod
    def load(path: str) -> "Module":
        """parse() of a file's text; the path names it in diagnostics."""
        with open(path, encoding="utf-8") as f:
            return Module.parse(f.read(), path)

    def text(self) -> str:
        """The module in canonical HLO text (shardings included)."""
        return self._m.text()

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return (f"<spmdc.Module {self.name} num_partitions={self.num_partitions}"
                f"{' mesh=' + self.mesh if self.mesh else ''}>")

    @property
    def name(self) -> str:
        return self._m.name

    @property
    def num_partitions(self) -> int:
        return self._m.num_partitions

    @property
    def mesh(self) -> Optional[str]:
        """The mesh annotate()/propagate() applied ("data=2,model=4"), else None."""
        return self._m.mesh

    @property
    def num_parameters(self) -> int:
        return self._m.num_parameters

    def annotate(self, mesh: Optional[str] = None,
                 shards: Optional[Mapping[str, str]] = None) -> "Module":
        """A copy with ``mesh`` ("data=2,model=4": sets num_partitions) and ``shards``
        ({instruction: spec}, a PartitionSpec over the mesh "[data, None]" or an HLO sharding
        "{devices=[2,1]<=[2]}") applied, as the CLI's --mesh and --shard do."""
        return Module(self._m.annotate(mesh, dict(shards or {})))

    def propagate(self, mesh: Optional[str] = None, shards: Optional[Mapping[str, str]] = None,
                  *, to_output: Union[bool, Sequence[bool]] = False,
                  to_parameters: Union[bool, Sequence[bool]] = False,
                  calls: str = "inline") -> "Module":
        """A copy annotated as annotate() does, with a sharding inferred for every instruction
        (``spmdc propagate``). ``to_output``/``to_parameters`` let propagation change the entry
        result's / parameters' shardings: one flag for all, or one per result tuple element /
        per parameter. ``calls`` (the CLI's --calls): "inline" replaces every `call` by its
        callee's instructions first, as XLA's SPMD pipeline and every spmdc command do (the
        copy of a callee's root takes the call's name; explain() follows the names inlining
        changed); "flatten" gives every call its own callee instead; "keep" leaves the calls (a
        callee shared by several call sites is then propagated for one of them)."""
        return Module(self._m.propagate(mesh, dict(shards or {}), _flags(to_output),
                                        _flags(to_parameters), calls))

    def explain(self, name: str) -> str:
        """Why instruction ``name`` has its sharding: the rule chain back to the annotations
        (``spmdc explain``). On a module not made by propagate(), propagates a copy first."""
        return self._m.explain(name)

    def partition(self, num_partitions: Optional[int] = None, *,
                  replicate_custom_partitioning: bool = False) -> "Module":
        """The per-device SPMD program, partitioned as annotated: an instruction without a
        sharding is replicated (``spmdc partition``; call propagate() first to infer them).
        ``num_partitions`` defaults to the module's."""
        return Module(self._m.partition(num_partitions, replicate_custom_partitioning))

    def report(self, num_partitions: Optional[int] = None, *, hardware: str = "h100",
               partitioned: bool = False) -> Dict[str, Any]:
        """The cost model's report as a dict (``spmdc report --format json``): num_partitions,
        peak_memory_bytes, flops_per_device, step_time_seconds, collectives [{kind, count,
        bytes_per_device, wire_bytes_per_device, mesh_axes}], ... The module is propagated and
        partitioned first unless ``partitioned`` (it already is a per-device program).
        ``hardware``: a profile name (h100, a100, h200, tpu-v4, tpu-v5e, tpu-v5p) or a .json path."""
        return json.loads(self._m._report_json(num_partitions, hardware, HARDWARE_DIR,
                                               partitioned))

    def auto(self, mesh: Optional[str] = None, *, hardware: str = "h100",
             memory_limit: Optional[int] = None, time_limit: float = 60.0, work_limit: int = 0,
             keep_annotations: bool = True, search: str = "ilp") -> Tuple["Module", Dict[str, Any]]:
        """``spmdc auto``: a sharding for every instruction on ``mesh`` (default: the annotated
        mesh), chosen by the cost-model search and priced beside the standard plans (data
        parallel, FSDP, Megatron, 2-D, as annotated) under the same model and memory limit
        (bytes per device; default the profile's HBM). The module's shardings are constraints
        unless ``keep_annotations`` is False. Calls are inlined first. Returns (the chosen
        plan's annotated module, {chosen, step_time_seconds, peak_memory_bytes,
        memory_limit_bytes, search_estimate_seconds, lower_bound_seconds, gap, optimal,
        search_seconds, plans: [{name, step_time_seconds, compute_seconds,
        communication_seconds, collective_bytes_per_device, peak_memory_bytes, fits}]}).
        Raises UnsupportedError when no plan fits the memory limit or the search cannot take
        the module. ``work_limit`` > 0 bounds the search by work, not time (deterministic).
        ``search``: "ilp" (the default) or "mcts", the tactic search of ``spmdc auto --search
        mcts``; the dict names it (``search``) and lists the tactic search's ``tactics``
        ("w1[1] -> model", ...; empty for ilp), whose lower bound is 0 (it proves none)."""
        m, info = self._m._auto(mesh, hardware, HARDWARE_DIR, memory_limit, time_limit,
                                work_limit, keep_annotations, search)
        return Module(m), info

    def verify(self, num_partitions: Optional[int] = None, *, propagate: bool = False,
               seed: int = 0) -> Dict[str, float]:
        """Runs the module on one device and partitioned on ``num_partitions`` in-process devices
        on the same random inputs and compares every output (``spmdc verify``). Returns
        {num_partitions, outputs, max_abs_error, max_rel_error, manual_reference}; raises
        MismatchError when they differ. A module with manual regions (shard_map), which one
        device cannot run, needs ``propagate=True``: its reference is then the module sharded
        only as the regions require, on the same devices (manual_reference 1), as ``spmdc
        verify --propagate`` does. A manual entry signature raises UnsupportedError (the CLI
        runs those group by group)."""
        return self._m.verify(num_partitions, propagate, seed)

    def entry_specs(self, mesh: Optional[str] = None
                    ) -> Tuple[List[Optional[List[List[str]]]], List[Optional[List[List[str]]]]]:
        """(parameters, results): per array leaf of the entry parameters and of the entry
        result (pre-order), its PartitionSpec on ``mesh`` (default: the annotated mesh) as a
        list with, per dimension, the list of mesh axes it is split over; None for a leaf
        without a sharding or with one no PartitionSpec expresses."""
        return self._m.entry_specs(mesh)

    def parameter_names(self) -> List[str]:
        """The entry parameters' instruction names, in parameter order."""
        return self._m.parameter_names()

    def instructions(self) -> List[Dict[str, Any]]:
        """Every instruction as a dict: name, opcode, shape, computation, entry (bool),
        sharding (HLO text or None), op_name (JAX's metadata, "" when absent)."""
        return self._m.instructions()

    def collectives(self) -> Dict[str, tuple]:
        """Per collective opcode, (count, bytes per device) in this module (a per-device
        program from partition(); loop bodies count once)."""
        return self._m.collectives()
