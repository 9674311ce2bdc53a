// HLO texts shared by the parser and printer tests: the forms XLA's test modules and JAX dumps
// use (GSPMD.md §4). Every entry parses; the printer tests round-trip all of them.
#pragma once

#include <string_view>

namespace spmdc::testing {

inline constexpr std::string_view kHloCorpus[] = {
    // 0: XLA test style: reducer computation, ROOT, % names, layouts, metadata.
    R"(HloModule reduce_module, is_scheduled=true, entry_computation_layout={(f32[8,16]{1,0})->f32[8]{0}}

%add.clone (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %add = f32[] add(f32[] %x, f32[] %y)
}

ENTRY %main.5 (Arg_0.1: f32[8,16]) -> f32[8] {
  %Arg_0.1 = f32[8,16]{1,0} parameter(0), sharding={devices=[2,1]<=[2]}, metadata={op_name="x"}
  %constant.2 = f32[] constant(0)
  ROOT %reduce.4 = f32[8]{0} reduce(f32[8,16]{1,0} %Arg_0.1, f32[] %constant.2), dimensions={1}, to_apply=%add.clone, metadata={op_type="reduce_sum" op_name="jit(f)/reduce_sum" source_file="/tmp/x.py" source_line=12}
}
)",
    // 1: no ENTRY, no ROOT, no %, omitted tuple shape, f32[3]parameter(0) without a space.
    R"(HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

main {
  p0 = f32[3]parameter(0)
  p1 = f32[3] parameter(1)
  sum = f32[3] add(p0, p1)
  t = tuple(sum, p1)
  g = f32[3] get-tuple-element(t), index=0
})",
    // 2: JAX dump header with propagation permissions, iota shardings, custom calls.
    R"(HloModule jit_f, is_scheduled=true, entry_computation_layout={(f32[8,4]{1,0}, f32[4,16]{1,0})->f32[8,16]{1,0}}, allow_spmd_sharding_propagation_to_parameters={true,false}, allow_spmd_sharding_propagation_to_output={true}, num_partitions=8, frontend_attributes={xla.sdy.meshes="{mesh = #sdy.mesh<[\"x\"=2, \"y\"=4]>}"}

ENTRY %main.10 (Arg_0.1: f32[8,4], Arg_1.2: f32[4,16]) -> f32[8,16] {
  %Arg_0.1 = f32[8,4]{1,0} parameter(0), sharding={devices=[2,4]<=[8]}
  %Arg_1.2 = f32[4,16]{1,0} parameter(1), sharding={devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}
  %dot.3 = f32[8,16]{1,0} dot(%Arg_0.1, %Arg_1.2), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={default,highest}, frontend_attributes={_xla_compute_type="host", k="v"}
  %custom-call.4 = f32[8,16]{1,0} custom-call(%dot.3), custom_call_target="Sharding", sharding={devices=[8,1]<=[8]}, backend_config="unspecified_dims=[1]"
  %custom-call.5 = f32[4,16]{1,0} custom-call(%custom-call.4), custom_call_target="SPMDFullToShardShape", sharding={manual}
  %custom-call.6 = f32[8,16]{1,0} custom-call(%custom-call.5), custom_call_target="SPMDShardToFullShape", sharding={devices=[2,1,4]<=[8] last_tile_dims={manual}}, api_version=API_VERSION_STATUS_RETURNING, custom_call_has_side_effect=true, operand_layout_constraints={f32[4,16]{1,0}}, output_to_operand_aliasing={{}: (0, {})}, schedule=SCHEDULE_LATEST
  ROOT %copy.7 = f32[8,16]{1,0} copy(%custom-call.6), sharding={replicated}
}
)",
    // 3: shapes: layouts with tiles, dynamic dims, tuples, token, all element types.
    R"(HloModule shapes, replica_count=2, alias_passthrough_params=true

ENTRY e {
  p0 = (f32[8,128]{1,0:T(8,128)}, s32[<=4,?]{1,0}, token[], (pred[], u8[2])) parameter(0)
  p1 = s2[1] parameter(1)
  p2 = s4[1] parameter(2)
  p3 = s8[1] parameter(3)
  p4 = s16[1] parameter(4)
  p5 = s64[1] parameter(5)
  p6 = u2[1] parameter(6)
  p7 = u4[1] parameter(7)
  p8 = u16[1] parameter(8)
  p9 = u32[1] parameter(9)
  p10 = u64[1] parameter(10)
  p11 = f16[1] parameter(11)
  p12 = bf16[1] parameter(12)
  p13 = f64[1] parameter(13)
  p14 = f8e5m2[1] parameter(14)
  p15 = f8e4m3fn[1] parameter(15)
  p16 = f8e4m3b11fnuz[1] parameter(16)
  p17 = f8e5m2fnuz[1] parameter(17)
  p18 = f8e4m3fnuz[1] parameter(18)
  p19 = c64[1] parameter(19)
  p20 = c128[1]{0:T(128)S(1)} parameter(20), parameter_replication={false}
  ROOT gte = f32[8,128]{1,0:T(8,128)} get-tuple-element(p0), index=0
}
)",
    // 4: constants of every kind.
    R"(HloModule constants

ENTRY c {
  c0 = f32[] constant(-1.5e3)
  c1 = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  c2 = pred[3] constant({true, false, true})
  c3 = c64[2] constant({(1, 2), (-0.5, 3)})
  c4 = bf16[3] constant({0.1, 1.5, -2})
  c5 = f16[3] constant({65504, 0.0001, -0})
  c6 = f8e4m3fn[2] constant({0.5, 448})
  c7 = f32[5] constant({nan, inf, -inf, -nan, nan(0x1234)})
  c8 = f64[2] constant({1e-300, nan(0x7)})
  c9 = s32[4] constant({0x10, -2147483648, 2147483647, 0})
  c10 = u64[1] constant({18446744073709551615})
  c11 = f32[2,2] constant({...})
  c12 = f32[0] constant({})
  c13 = f32[2,0] constant({{}, {}})
  c14 = (f32[], (s32[2], pred[])) constant((1, ({1, 2}, true)))
  c15 = s4[2] constant({-8, 7})
  c16 = c128[] constant((1e300, -2))
  c17 = f32[] constant(3)
  c18 = bf16[2] constant({nan, -inf})
  ROOT t = (f32[], f32[2,3]) tuple(c0, c1)
}
)",
    // 5: attribute kinds.
    R"(HloModule attrs, num_partitions=4

%max (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %m = f32[] maximum(%a, %b)
}

%ge (a: f32[], b: f32[]) -> pred[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %c = pred[] compare(%a, %b), direction=GE, type=TOTALORDER
}

%cond (p: (s32[], f32[4])) -> pred[] {
  %p = (s32[], f32[4]) parameter(0)
  %i = s32[] get-tuple-element(%p), index=0
  %n = s32[] constant(10)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}

%body (p: (s32[], f32[4])) -> (s32[], f32[4]) {
  %p = (s32[], f32[4]) parameter(0)
  %i = s32[] get-tuple-element(%p), index=0
  %v = f32[4] get-tuple-element(%p), index=1
  %one = s32[] constant(1)
  %i2 = s32[] add(%i, %one)
  ROOT %t = (s32[], f32[4]) tuple(%i2, %v)
}

ENTRY %main (x: f32[1,8,8,4], k: f32[3,3,4,2]) -> f32[1,4,4,2] {
  %x = f32[1,8,8,4]{3,2,1,0} parameter(0)
  %k = f32[3,3,4,2]{3,2,1,0} parameter(1)
  %conv = f32[1,4,4,2] convolution(%x, %k), window={size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=1x1}, dim_labels=b01f_01io->b01f, feature_group_count=1
  %zero = f32[] constant(0)
  %rw = f32[1,4,4,2] reduce-window(%conv, %zero), window={size=1x3x3x1 pad=0_0x1_1x1_1x0_0 rhs_reversal=0x0x1x0}, to_apply=%max
  %sas = f32[1,4,4,2] select-and-scatter(%rw, %rw, %zero), window={size=1x1x1x1}, select=%ge, scatter=%max
  %pad = f32[1,6,6,2] pad(%sas, %zero), padding=0_0x1_1x0_2_1x0_0
  %slice = f32[1,3,3,2] slice(%pad), slice={[0:1], [0:6:2], [1:4], [0:2]}
  %i0 = s32[] constant(0)
  %ds = f32[1,2,2,2] dynamic-slice(%slice, %i0, %i0, %i0, %i0), dynamic_slice_sizes={1,2,2,2}
  %ar = f32[1,3,3,2] all-reduce(%slice), channel_id=1, replica_groups={{0,1},{2,3}}, use_global_device_ids=true, to_apply=%max
  %ag = f32[2,3,3,2] all-gather(%ar), channel_id=2, replica_groups=[2,2]<=[4], dimensions={0}, use_global_device_ids=true
  %cp = f32[2,3,3,2] collective-permute(%ag), channel_id=3, source_target_pairs={{0,1},{1,0}}
  %a2a = f32[2,3,3,2] all-to-all(%cp), replica_groups=[2,2]<=[2,2]T(1,0), dimensions={0}
  %bc = f32[2,3,3,2,5] broadcast(%a2a), dimensions={0,1,2,3}
  %tr = f32[5,2,3,3,2] transpose(%bc), dimensions={4,0,1,2,3}
  %io = s32[4] iota(), iota_dimension=0
  %x4 = f32[4] constant({1, 2, 3, 4})
  %init = (s32[], f32[4]) tuple(%i0, %x4)
  %w = (s32[], f32[4]) while(%init), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":"10"}}
  %rp = f32[4] reduce-precision(%x4), exponent_bits=5, mantissa_bits=10
  %c8 = c64[8] constant({...})
  %fft = c64[8] fft(%c8), fft_type=FFT, fft_length={8}
  %after = token[] after-all()
  %pid = u32[] partition-id(), control-predecessors={%after}
  %rng = f32[4] rng(%zero, %zero), distribution=rng_uniform
  %srt = f32[4] sort(%x4), dimensions={0}, is_stable=true, to_apply=%ge
  ROOT %out = f32[1,4,4,2] copy(%conv), statistics={visualizing_index=1,stat-name=0.5}
}
)",
    // 6: async forms and execution threads.
    R"(HloModule async, is_scheduled=true

%called (p: f32[4]) -> f32[4] {
  %p = f32[4] parameter(0)
  ROOT %n = f32[4] negate(%p)
}, execution_thread="host"

ENTRY %main (x: f32[4]) -> (f32[8], f32[4], f32[4], f32[4], f32[4], f32[4]) {
  %x = f32[4] parameter(0)
  %ags = (f32[4], f32[8]) all-gather-start(%x), channel_id=1, replica_groups={{0,1}}, dimensions={0}
  %agd = f32[8] all-gather-done(%ags)
  %ars = f32[4] all-reduce-start(%x), replica_groups={}, to_apply=%called
  %ard = f32[4] all-reduce-done(%ars)
  %cps = (f32[4], f32[4], u32[], u32[]) collective-permute-start(%x), source_target_pairs={{0,1}}
  %cpd = f32[4] collective-permute-done(%cps)
  %cs = (f32[4], f32[4], u32[]) copy-start(%x)
  %cd = f32[4] copy-done(%cs)
  %as = ((f32[4]), f32[4], s32[]) async-start(%x), calls=%called, async_execution_thread="host"
  %au = ((f32[4]), f32[4], s32[]) async-update(%as)
  %ad = f32[4] async-done(%au)
  %call-start = ((f32[4]), f32[4], s32[]) call-start(%x), async_execution_thread="host", to_apply=%called
  %call-done = f32[4] call-done(%call-start)
  ROOT %r = (f32[8], f32[4], f32[4], f32[4], f32[4], f32[4]) tuple(%agd, %ard, %cpd, %cd, %ad, %call-done)
}
)",
    // 7: header module attributes, spanning lines, comments.
    R"(// A comment before the module.
HloModule header, input_output_alias={ {0}: (0, {}, may-alias) }, buffer_donor={ (1, {}) }, allow_spmd_sharding_propagation_to_output=true

/* a block
   comment */
ENTRY %e (a: f32[2], b: f32[2]) -> (f32[2], f32[2]) {
  %a = f32[2]
       parameter(0)
  %b = f32[2] parameter(1)  // trailing comment
  ROOT %t = (f32[2], f32[2]) tuple(
      %a,
      /*index=1*/%b)
}
)",
};

}  // namespace spmdc::testing
