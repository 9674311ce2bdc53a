// A tiny traced-graph layer for model builders: a Graph of array-valued nodes over the handful
// of HLO ops the builders need, an emitter to HLO text (through HloWriter) and reverse-mode
// automatic differentiation (Grad), so that backward passes are correct by construction.
//
// Semantics follow XLA: elementwise binary ops take operands of identical shape (no implicit
// broadcasting; use Broadcast / BroadcastScalar), Broadcast maps operand dim i to output dim
// dimensions[i], Dot is dot_general (output = batch dims, lhs free dims, rhs free dims).
// Builder functions CHECK their arguments (a builder bug is a programming error).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace spmdc::graph {

enum class Op {
  kParameter,
  kConstant,  // scalar
  kIota,
  kDot,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMax,
  kNeg,
  kExp,
  kLog,
  kTanh,
  kRsqrt,
  kSqrt,
  kSelect,
  kCompare,
  kBroadcast,
  kTranspose,
  kReshape,
  kReduceSum,
  kReduceMax,
  kConvert,
  kSlice,
  kPad,
  kConcatenate,
  kReverse,
  kConvolution,
  kGather,      // rows of a table: table[V, ...] at indices s32[...] -> [indices..., ...]
  kScatterAdd,  // the transpose of kGather: operand + updates summed into the rows at indices
  kShardingConstraint,  // custom-call "Sharding"
  kTuple,
};

struct TensorShape {
  std::string dtype = "f32";
  std::vector<int64_t> dims;
  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  int64_t num_elements() const;
  std::string ToString() const;  // "f32[2,3]"
  bool operator==(const TensorShape& o) const = default;
};

// A handle to a node of a Graph (its index).
struct Value {
  int32_t id = -1;
  bool valid() const { return id >= 0; }
  bool operator==(const Value& o) const = default;
};

struct DotDims {
  std::vector<int64_t> lhs_batch, rhs_batch, lhs_contracting, rhs_contracting;
};

// A convolution's window and dimension labels (XLA's `window={...}` and `dim_labels=`), per
// spatial dim in label order ('0', '1', ...). Empty vectors mean stride 1, no padding, no
// dilation.
struct ConvWindow {
  std::vector<int64_t> stride, pad_lo, pad_hi, lhs_dilation, rhs_dilation;
};

struct Node {
  Op op;
  TensorShape shape;  // for kTuple: unused (tuple_shapes of operands)
  std::vector<Value> operands;
  // Attributes (meaning depends on op):
  //   broadcast: output dim of each operand dim; transpose: permutation; reduce: reduced dims;
  //   concatenate, reverse: its dims; iota: {iota_dimension}.
  std::vector<int64_t> dims;
  DotDims dot;
  ConvWindow window;      // convolution
  std::string dim_labels;  // convolution, e.g. "b01f_01io->b01f"
  std::vector<int64_t> starts, limits, strides;  // slice; pad: low, high, interior
  std::string direction;                          // compare: EQ NE LT LE GT GE
  double constant = 0;                            // scalar constant
  int64_t parameter_number = -1;
  std::string name;      // name hint
  std::string sharding;  // full sharding text "{...}" or empty
};

class Graph {
 public:
  const Node& node(Value v) const { return nodes_[v.id]; }
  Node& mutable_node(Value v) { return nodes_[v.id]; }
  // References into the graph are invalidated by adding nodes: copy before building more.
  const TensorShape& shape(Value v) const { return nodes_[v.id].shape; }
  int64_t size() const { return static_cast<int64_t>(nodes_.size()); }
  const std::vector<Value>& parameters() const { return parameters_; }

  // Leaves.
  Value Param(const TensorShape& shape, const std::string& name = "", const std::string& sharding = "");
  Value Constant(double value, std::string dtype = "f32");  // scalar (cached per dtype)
  Value Iota(const TensorShape& shape, int64_t dimension);

  // Elementwise.
  Value Add(Value a, Value b);
  Value Sub(Value a, Value b);
  Value Mul(Value a, Value b);
  Value Div(Value a, Value b);
  Value Max(Value a, Value b);
  Value Neg(Value a);
  Value Exp(Value a);
  Value Log(Value a);
  Value Tanh(Value a);
  Value Rsqrt(Value a);
  Value Sqrt(Value a);
  Value Select(Value pred, Value on_true, Value on_false);
  Value Compare(Value a, Value b, const std::string& direction);
  Value Convert(Value a, std::string dtype);

  // Shape ops.
  Value Dot(Value lhs, Value rhs, const DotDims& dims);
  Value MatMul(Value lhs, Value rhs);  // [m,k] x [k,n]
  Value Broadcast(Value a, const std::vector<int64_t>& out_dims, const std::vector<int64_t>& dimensions);
  Value BroadcastScalar(double value, TensorShape shape);  // constant + broadcast
  Value Transpose(Value a, const std::vector<int64_t>& permutation);
  Value Reshape(Value a, const std::vector<int64_t>& dims);
  Value ReduceSum(Value a, const std::vector<int64_t>& dims);
  Value ReduceMax(Value a, const std::vector<int64_t>& dims);
  Value Slice(Value a, const std::vector<int64_t>& starts, const std::vector<int64_t>& limits,
              const std::vector<int64_t>& strides = {});
  Value Pad(Value a, Value padding_value, const std::vector<int64_t>& low,
            const std::vector<int64_t>& high, const std::vector<int64_t>& interior = {});
  Value Concatenate(const std::vector<Value>& parts, int64_t dim);
  Value Reverse(Value a, const std::vector<int64_t>& dims);
  // convolution(lhs, rhs) with feature_group_count 1. Empty `dim_labels`: channels last,
  // lhs [N, spatial..., C], rhs [spatial..., C, O] -> [N, spatial'..., O] ("b01f_01io->b01f").
  // Only that form with rhs_dilation 1 is differentiable (the forward convs of a model; strided
  // and transposed ones, i.e. lhs_dilation > 1, included); the convs its VJP emits are not.
  Value Conv(Value lhs, Value rhs, const ConvWindow& window = {}, const std::string& dim_labels = "");
  // Embedding lookup: rows of table[V, ...] at `indices` (s32, any rank; values in [0, V)).
  Value Gather(Value table, Value indices);
  // `operand` with `updates` [indices..., ...] added into the rows at `indices` (duplicates sum).
  Value ScatterAdd(Value operand, Value indices, Value updates);
  // custom-call(x), custom_call_target="Sharding", sharding=<sharding>. Its VJP constrains the
  // cotangent with the same sharding.
  Value ShardingConstraint(Value a, const std::string& sharding);
  Value Tuple(const std::vector<Value>& elements);

  // Attaches a sharding ("{...}") to a node; printed as `sharding=...`.
  void SetSharding(Value v, const std::string& sharding) { nodes_[v.id].sharding = sharding; }
  void SetName(Value v, const std::string& name) { nodes_[v.id].name = name; }

  // Reverse-mode gradient of the scalar `loss` with respect to each of `wrt` (in order). A
  // parameter the loss does not depend on gets a zero gradient. Adds nodes to the graph.
  std::vector<Value> Grad(Value loss, const std::vector<Value>& wrt);

  // HLO text of the module whose entry computation has every Param (numbered in creation
  // order) and the nodes reachable from `root`. `header_attrs` is appended to the HloModule
  // line (e.g. ", num_partitions=8").
  std::string EmitHlo(Value root, const std::string& module_name, const std::string& header_attrs = "") const;

 private:
  Value AddNode(Node n);
  Value Binary(Op op, Value a, Value b);
  Value Unary(Op op, Value a);
  Value Reduce(Op op, Value a, const std::vector<int64_t>& dims);
  // Accumulates the VJP of node `v` (cotangent `g`) into `adj`.
  void Backprop(Value v, Value g, std::vector<Value>& adj, const std::vector<char>& needs);

  std::vector<Node> nodes_;
  std::vector<Value> parameters_;
  std::vector<std::pair<std::string, double>> constant_keys_;
  std::vector<Value> constant_values_;
};

// A device mesh with named axes, devices in iota order (row-major over the axes).
struct Mesh {
  std::vector<std::pair<std::string, int64_t>> axes;
  int64_t num_devices() const;
};

// XLA sharding text for a tensor of rank spec.size() whose dim i is split over the mesh axes
// named in spec[i] (empty: not split; several: major to minor). Mesh axes that no dim uses
// replicate (last_tile_dim_replicate). Examples on mesh {data:2, model:4}:
//   {{"data"}, {}, {}}      -> {devices=[2,1,1,4]<=[8] last_tile_dim_replicate}
//   {{}, {"model"}}         -> {devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}
//   {{}, {}}                -> {replicated}
std::string ShardingText(const Mesh& mesh, const std::vector<std::vector<std::string>>& spec);

}  // namespace spmdc::graph
