#include "hlo/op_attributes.h"

#include <algorithm>
#include <string>

#include "absl/container/flat_hash_map.h"

namespace spmdc::hlo {
namespace {

using Names = std::vector<std::string_view>;

// `split_dimension` on all-to-all is spmdc's own (the partitioner's array all-to-all with
// distinct split and concat dimensions); XLA writes the split dimension as dimensions={d}.
// `sparsity` on dot is the older XLA sparse-dot form, still read.
const absl::flat_hash_map<std::string, OpAttributes>& Table() {
  static const auto* table = [] {
    auto* t = new absl::flat_hash_map<std::string, OpAttributes>();
    auto add = [&](std::initializer_list<std::string_view> names, Names required, Names optional,
                   bool needs_shape = false) {
      for (std::string_view n : names) (*t)[std::string(n)] = {required, optional, needs_shape};
    };
    const Names collective = {"replica_groups", "channel_id", "constrain_layout",
                              "use_global_device_ids"};
    auto plus = [](Names a, Names b) {
      a.insert(a.end(), b.begin(), b.end());
      return a;
    };
    add({"parameter"}, {}, {}, true);
    add({"constant"}, {}, {}, true);
    add({"iota"}, {"iota_dimension"}, {}, true);
    add({"topk"}, {"k"}, {"largest"});
    add({"acos", "acosh", "asin", "asinh", "atanh", "exponential-minus-one", "log",
         "log-plus-one", "logistic", "sqrt", "cbrt", "rsqrt", "tanh", "erf", "sine", "sinh",
         "cosine", "cosh", "tan", "exponential"},
        {}, {"result_accuracy"});
    add({"abs", "all-gather-done", "all-reduce-done", "round-nearest-afz", "round-nearest-even",
         "ceil", "count-leading-zeros", "collective-permute-done", "copy", "copy-done",
         "opt-barrier", "imag", "is-finite", "floor", "not", "negate", "popcnt", "real", "sign"},
        {}, {});
    add({"bitcast"}, {}, {}, true);
    add({"add", "divide", "multiply", "subtract", "atan2", "complex", "maximum", "minimum",
         "power", "remainder", "and", "or", "xor", "shift-left", "shift-right-arithmetic",
         "shift-right-logical"},
        {}, {});
    add({"stochastic-convert"}, {}, {}, true);
    add({"clamp", "select"}, {}, {});
    add({"convert", "bitcast-convert"}, {}, {}, true);
    add({"all-gather", "all-gather-start"}, {"dimensions"}, collective, true);
    add({"all-reduce", "all-reduce-start"}, {"to_apply"}, plus(collective, {"mode"}), true);
    add({"reduce-scatter"}, {"to_apply", "dimensions"}, plus(collective, {"mode"}), true);
    add({"all-to-all"}, {},
        {"replica_groups", "channel_id", "dimensions", "constrain_layout", "split_dimension"},
        true);
    add({"ragged-all-to-all"}, {}, {"replica_groups", "channel_id", "dimensions"}, true);
    add({"collective-broadcast"}, {}, {"replica_groups", "channel_id"}, true);
    add({"collective-permute", "collective-permute-start"}, {"source_target_pairs"},
        {"channel_id", "slice_sizes"}, true);
    add({"copy-start"}, {}, {"cross_program_prefetch_index"}, true);
    add({"replica-id", "partition-id"}, {}, {});
    add({"dynamic-reshape"}, {}, {}, true);
    add({"reshape"}, {}, {"inferred_dimension"}, true);
    add({"after-all", "add-dependency", "tuple", "dynamic-update-slice"}, {}, {});
    add({"sort"}, {"dimensions", "to_apply"}, {"is_stable"});
    add({"while"}, {"condition", "body"}, {});
    add({"recv", "recv-done", "send", "send-done"}, {}, {"channel_id", "is_host_transfer"}, true);
    add({"get-tuple-element"}, {"index"}, {});
    add({"call"}, {"to_apply"}, {"is_composite"});
    add({"reduce-window"}, {"to_apply"}, {"window"});
    add({"convolution"}, {"dim_labels"},
        {"window", "feature_group_count", "batch_group_count", "conv_kind", "operand_precision"});
    add({"fft"}, {"fft_type", "fft_length"}, {});
    add({"triangular-solve"}, {}, {"left_side", "lower", "unit_diagonal", "transpose_a"});
    add({"compare"}, {"direction"}, {"type"});
    add({"cholesky"}, {}, {"lower"});
    add({"broadcast"}, {}, {"dimensions"});  // required unless the operand is a scalar
    add({"concatenate"}, {"dimensions"}, {});
    add({"map"}, {"to_apply"}, {"dimensions"});
    add({"scan"}, {"to_apply", "dimensions", "num_carries"}, {"is_reverse", "is_associative"});
    add({"reduce"}, {"to_apply", "dimensions"}, {});
    add({"reverse", "transpose"}, {"dimensions"}, {});
    add({"select-and-scatter"}, {"select", "scatter"}, {"window"});
    add({"slice"}, {"slice"}, {}, true);
    add({"dynamic-slice"}, {"dynamic_slice_sizes"}, {}, true);
    add({"batch-norm-training", "batch-norm-inference", "batch-norm-grad"},
        {"epsilon", "feature_index"}, {});
    add({"pad"}, {"padding"}, {});
    add({"fusion"}, {"calls", "kind"}, {"output_to_operand_aliasing"}, true);
    add({"infeed"}, {}, {"infeed_config"}, true);
    add({"outfeed"}, {}, {"outfeed_config", "outfeed_shape"}, true);
    add({"rng"}, {"distribution"}, {}, true);
    add({"rng-get-and-update-state"}, {"delta"}, {}, true);
    add({"rng-bit-generator"}, {"algorithm"}, {}, true);
    add({"reduce-precision"}, {"exponent_bits", "mantissa_bits"}, {}, true);
    // true/false_computation (pred index) or branch_computations (s32 index): parser rule.
    add({"conditional"}, {}, {"true_computation", "false_computation", "branch_computations"});
    add({"custom-call"}, {"custom_call_target"},
        {"window", "dim_labels", "feature_group_count", "batch_group_count",
         "operand_layout_constraints", "custom_call_has_side_effect", "to_apply",
         "called_computations", "output_to_operand_aliasing", "padding_type", "literal",
         "operand_precision", "schedule", "api_version"},
        true);
    add({"dot", "scaled-dot"}, {},
        {"lhs_contracting_dims", "rhs_contracting_dims", "lhs_batch_dims", "rhs_batch_dims",
         "operand_precision", "algorithm", "sparsity"});
    add({"ragged-dot"}, {},
        {"lhs_contracting_dims", "rhs_contracting_dims", "lhs_batch_dims", "rhs_batch_dims",
         "lhs_ragged_dims", "rhs_group_dims", "operand_precision"});
    add({"gather"},
        {"offset_dims", "collapsed_slice_dims", "start_index_map", "index_vector_dim",
         "slice_sizes"},
        {"indices_are_sorted", "operand_batching_dims", "start_indices_batching_dims"});
    add({"scatter"},
        {"update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims",
         "index_vector_dim", "to_apply"},
        {"indices_are_sorted", "unique_indices", "input_batching_dims",
         "scatter_indices_batching_dims"});
    add({"domain"}, {"domain"}, {});
    add({"get-dimension-size"}, {"dimensions"}, {});
    add({"set-dimension-size"}, {"dimensions"}, {});
    add({"async-start"}, {"calls"}, {"async_execution_thread", "output_to_operand_aliasing"}, true);
    add({"async-update", "async-done"}, {}, {"calls", "async_execution_thread"}, true);
    return t;
  }();
  return *table;
}

}  // namespace

const OpAttributes* OpAttributesFor(std::string_view opcode_name) {
  const auto& t = Table();
  auto it = t.find(std::string(opcode_name));
  return it == t.end() ? nullptr : &it->second;
}

bool IsCommonAttribute(std::string_view name) {
  // `origin` is XLA's current name of `original_value`, which older text carries.
  static constexpr std::string_view kCommon[] = {
      "sharding", "frontend_attributes", "statistics", "parameter_replication",
      "control-predecessors", "origin", "original_value", "metadata", "backend_config"};
  return std::find(std::begin(kCommon), std::end(kCommon), name) != std::end(kCommon);
}

bool IsAllowedAttribute(const OpAttributes* row, std::string_view name) {
  if (row == nullptr || IsCommonAttribute(name)) return true;
  auto has = [&](const Names& v) { return std::find(v.begin(), v.end(), name) != v.end(); };
  return has(row->required) || has(row->optional);
}

bool IsAsyncWrapperAttribute(std::string_view name, bool is_start) {
  return name == "async_execution_thread" || (is_start && name == "output_to_operand_aliasing");
}

}  // namespace spmdc::hlo
