#include "models/graph.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "fmt/format.h"
#include "models/hlo_writer.h"
#include "support/check.h"

namespace spmdc::graph {
namespace {

bool IsFloatType(const std::string& t) {
  return t == "f32" || t == "f64" || t == "f16" || t == "bf16";
}

std::string JoinInts(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    s += fmt::format("{}", v[i]);
  }
  return s;
}

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Dims of [0, rank) not in a or b, ascending.
std::vector<int64_t> FreeDims(int64_t rank, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d)
    if (!Contains(a, d) && !Contains(b, d)) out.push_back(d);
  return out;
}

std::vector<int64_t> Range(int64_t begin, int64_t end) {
  std::vector<int64_t> r;
  for (int64_t i = begin; i < end; ++i) r.push_back(i);
  return r;
}

std::string ConstantLiteral(double v, const std::string& dtype) {
  if (dtype == "pred") return v != 0 ? "true" : "false";
  if (!IsFloatType(dtype)) return fmt::format("{}", static_cast<int64_t>(v));
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (dtype == "f64") return fmt::format("{}", v);
  return fmt::format("{}", static_cast<float>(v));
}

const char* OpName(Op op) {
  switch (op) {
    case Op::kParameter: return "parameter";
    case Op::kConstant: return "constant";
    case Op::kIota: return "iota";
    case Op::kDot: return "dot";
    case Op::kAdd: return "add";
    case Op::kSub: return "subtract";
    case Op::kMul: return "multiply";
    case Op::kDiv: return "divide";
    case Op::kMax: return "maximum";
    case Op::kNeg: return "negate";
    case Op::kExp: return "exponential";
    case Op::kLog: return "log";
    case Op::kTanh: return "tanh";
    case Op::kRsqrt: return "rsqrt";
    case Op::kSqrt: return "sqrt";
    case Op::kSelect: return "select";
    case Op::kCompare: return "compare";
    case Op::kBroadcast: return "broadcast";
    case Op::kTranspose: return "transpose";
    case Op::kReshape: return "reshape";
    case Op::kReduceSum: return "reduce";
    case Op::kReduceMax: return "reduce";
    case Op::kConvert: return "convert";
    case Op::kSlice: return "slice";
    case Op::kPad: return "pad";
    case Op::kConcatenate: return "concatenate";
    case Op::kReverse: return "reverse";
    case Op::kConvolution: return "convolution";
    case Op::kGather: return "gather";
    case Op::kScatterAdd: return "scatter";
    case Op::kShardingConstraint: return "custom-call";
    case Op::kTuple: return "tuple";
  }
  return "?";
}

// One operand's part of a convolution's dim_labels: where its two named dims ('b'/'f' of lhs and
// output, 'i'/'o' of rhs) and its spatial dims '0', '1', ... sit.
struct ConvOperandLabels {
  int64_t first = -1, second = -1;
  std::vector<int64_t> spatial;
};

ConvOperandLabels ParseConvOperand(const std::string& text, char first, char second) {
  ConvOperandLabels l;
  l.spatial.assign(text.size() >= 2 ? text.size() - 2 : 0, -1);
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == first) {
      l.first = static_cast<int64_t>(i);
    } else if (c == second) {
      l.second = static_cast<int64_t>(i);
    } else {
      SPMDC_CHECK_MSG(c >= '0' && c - '0' < static_cast<int>(l.spatial.size()) && l.spatial[c - '0'] < 0,
                      "bad convolution dim_labels");
      l.spatial[c - '0'] = static_cast<int64_t>(i);
    }
  }
  SPMDC_CHECK_MSG(l.first >= 0 && l.second >= 0, "bad convolution dim_labels");
  return l;
}

struct ConvLabels {
  ConvOperandLabels lhs, rhs, out;  // lhs/out: first = b, second = f; rhs: first = i, second = o
};

ConvLabels ParseConvLabels(const std::string& labels) {
  const size_t u = labels.find('_'), arrow = labels.find("->");
  SPMDC_CHECK_MSG(u != std::string::npos && arrow != std::string::npos && u < arrow, "bad convolution dim_labels");
  ConvLabels l{ParseConvOperand(labels.substr(0, u), 'b', 'f'), ParseConvOperand(labels.substr(u + 1, arrow - u - 1), 'i', 'o'),
               ParseConvOperand(labels.substr(arrow + 2), 'b', 'f')};
  SPMDC_CHECK_MSG(l.lhs.spatial.size() == l.rhs.spatial.size() && l.lhs.spatial.size() == l.out.spatial.size(),
                  "bad convolution dim_labels");
  return l;
}

// "b01f_01io->b01f" for `spatial` spatial dims (channels last).
std::string ChannelsLastLabels(int64_t spatial) {
  std::string digits;
  for (int64_t i = 0; i < spatial; ++i) digits += static_cast<char>('0' + i);
  return "b" + digits + "f_" + digits + "io->b" + digits + "f";
}

int64_t At(const std::vector<int64_t>& v, size_t i, int64_t fallback) { return i < v.size() ? v[i] : fallback; }

}  // namespace

int64_t TensorShape::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::string TensorShape::ToString() const { return fmt::format("{}[{}]", dtype, JoinInts(dims)); }

int64_t Mesh::num_devices() const {
  int64_t n = 1;
  for (const auto& a : axes) n *= a.second;
  return n;
}

// ---------------------------------------------------------------------------------------------
// Builders.

Value Graph::AddNode(Node n) {
  for (Value o : n.operands) SPMDC_CHECK_MSG(o.valid() && o.id < size(), "operand from another graph");
  nodes_.push_back(std::move(n));
  return Value{static_cast<int32_t>(nodes_.size() - 1)};
}

Value Graph::Param(const TensorShape& shape, const std::string& name, const std::string& sharding) {
  Node n{Op::kParameter, shape};
  n.parameter_number = static_cast<int64_t>(parameters_.size());
  n.name = name;
  n.sharding = sharding;
  Value v = AddNode(std::move(n));
  parameters_.push_back(v);
  return v;
}

Value Graph::Constant(double value, std::string dtype) {
  for (size_t i = 0; i < constant_keys_.size(); ++i) {
    const auto& k = constant_keys_[i];
    if (k.first == dtype && (k.second == value || (std::isnan(k.second) && std::isnan(value))))
      return constant_values_[i];
  }
  Node n{Op::kConstant, TensorShape{dtype, {}}};
  n.constant = value;
  Value v = AddNode(std::move(n));
  constant_keys_.push_back({dtype, value});
  constant_values_.push_back(v);
  return v;
}

Value Graph::Iota(const TensorShape& shape, int64_t dimension) {
  SPMDC_CHECK(dimension >= 0 && dimension < shape.rank());
  Node n{Op::kIota, shape};
  n.dims = {dimension};
  return AddNode(std::move(n));
}

Value Graph::Binary(Op op, Value a, Value b) {
  SPMDC_CHECK_MSG(shape(a) == shape(b), "elementwise operands must have identical shapes");
  return AddNode(Node{op, shape(a), {a, b}});
}

Value Graph::Unary(Op op, Value a) { return AddNode(Node{op, shape(a), {a}}); }

Value Graph::Add(Value a, Value b) { return Binary(Op::kAdd, a, b); }
Value Graph::Sub(Value a, Value b) { return Binary(Op::kSub, a, b); }
Value Graph::Mul(Value a, Value b) { return Binary(Op::kMul, a, b); }
Value Graph::Div(Value a, Value b) { return Binary(Op::kDiv, a, b); }
Value Graph::Max(Value a, Value b) { return Binary(Op::kMax, a, b); }
Value Graph::Neg(Value a) { return Unary(Op::kNeg, a); }
Value Graph::Exp(Value a) { return Unary(Op::kExp, a); }
Value Graph::Log(Value a) { return Unary(Op::kLog, a); }
Value Graph::Tanh(Value a) { return Unary(Op::kTanh, a); }
Value Graph::Rsqrt(Value a) { return Unary(Op::kRsqrt, a); }
Value Graph::Sqrt(Value a) { return Unary(Op::kSqrt, a); }

Value Graph::Select(Value pred, Value on_true, Value on_false) {
  SPMDC_CHECK(shape(pred).dtype == "pred" && shape(pred).dims == shape(on_true).dims);
  SPMDC_CHECK(shape(on_true) == shape(on_false));
  return AddNode(Node{Op::kSelect, shape(on_true), {pred, on_true, on_false}});
}

Value Graph::Compare(Value a, Value b, const std::string& direction) {
  SPMDC_CHECK(shape(a) == shape(b));
  static const char* kDirs[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  SPMDC_CHECK(std::find(std::begin(kDirs), std::end(kDirs), direction) != std::end(kDirs));
  Node n{Op::kCompare, TensorShape{"pred", shape(a).dims}, {a, b}};
  n.direction = direction;
  return AddNode(std::move(n));
}

Value Graph::Convert(Value a, std::string dtype) {
  if (shape(a).dtype == dtype) return a;
  return AddNode(Node{Op::kConvert, TensorShape{dtype, shape(a).dims}, {a}});
}

Value Graph::Dot(Value lhs, Value rhs, const DotDims& d) {
  const TensorShape& a = shape(lhs);
  const TensorShape& b = shape(rhs);
  SPMDC_CHECK(a.dtype == b.dtype);
  SPMDC_CHECK(d.lhs_batch.size() == d.rhs_batch.size());
  SPMDC_CHECK(d.lhs_contracting.size() == d.rhs_contracting.size());
  for (size_t i = 0; i < d.lhs_batch.size(); ++i)
    SPMDC_CHECK(a.dims.at(d.lhs_batch[i]) == b.dims.at(d.rhs_batch[i]));
  for (size_t i = 0; i < d.lhs_contracting.size(); ++i)
    SPMDC_CHECK(a.dims.at(d.lhs_contracting[i]) == b.dims.at(d.rhs_contracting[i]));
  TensorShape out{a.dtype, {}};
  for (int64_t x : d.lhs_batch) out.dims.push_back(a.dims[x]);
  for (int64_t x : FreeDims(a.rank(), d.lhs_batch, d.lhs_contracting)) out.dims.push_back(a.dims[x]);
  for (int64_t x : FreeDims(b.rank(), d.rhs_batch, d.rhs_contracting)) out.dims.push_back(b.dims[x]);
  Node n{Op::kDot, out, {lhs, rhs}};
  n.dot = d;
  return AddNode(std::move(n));
}

Value Graph::MatMul(Value lhs, Value rhs) {
  SPMDC_CHECK(shape(lhs).rank() == 2 && shape(rhs).rank() == 2);
  return Dot(lhs, rhs, DotDims{{}, {}, {1}, {0}});
}

Value Graph::Broadcast(Value a, const std::vector<int64_t>& out_dims, const std::vector<int64_t>& dimensions) {
  const TensorShape& s = shape(a);
  SPMDC_CHECK(static_cast<int64_t>(dimensions.size()) == s.rank());
  for (size_t i = 0; i < dimensions.size(); ++i)
    SPMDC_CHECK(dimensions[i] >= 0 && dimensions[i] < static_cast<int64_t>(out_dims.size()) &&
                out_dims[dimensions[i]] == s.dims[i]);
  Node n{Op::kBroadcast, TensorShape{s.dtype, out_dims}, {a}};
  n.dims = dimensions;
  return AddNode(std::move(n));
}

Value Graph::BroadcastScalar(double value, TensorShape s) {
  Value c = Constant(value, s.dtype);
  if (s.rank() == 0) return c;
  return Broadcast(c, s.dims, {});
}

Value Graph::Transpose(Value a, const std::vector<int64_t>& perm) {
  const TensorShape& s = shape(a);
  SPMDC_CHECK(static_cast<int64_t>(perm.size()) == s.rank());
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  SPMDC_CHECK(sorted == Range(0, s.rank()));
  if (perm == sorted) return a;
  TensorShape out{s.dtype, {}};
  for (int64_t p : perm) out.dims.push_back(s.dims[p]);
  Node n{Op::kTranspose, out, {a}};
  n.dims = perm;
  return AddNode(std::move(n));
}

Value Graph::Reshape(Value a, const std::vector<int64_t>& dims) {
  TensorShape out{shape(a).dtype, dims};
  SPMDC_CHECK(out.num_elements() == shape(a).num_elements());
  if (dims == shape(a).dims) return a;
  return AddNode(Node{Op::kReshape, out, {a}});
}

Value Graph::Reduce(Op op, Value a, const std::vector<int64_t>& dims) {
  const TensorShape s = shape(a);
  TensorShape out{s.dtype, {}};
  for (int64_t d : dims) SPMDC_CHECK(d >= 0 && d < s.rank());
  for (int64_t d = 0; d < s.rank(); ++d)
    if (!Contains(dims, d)) out.dims.push_back(s.dims[d]);
  std::vector<int64_t> sorted = dims;
  std::sort(sorted.begin(), sorted.end());
  SPMDC_CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
  Node n{op, out, {a, Constant(op == Op::kReduceSum ? 0.0 : -INFINITY, s.dtype)}};
  n.dims = sorted;
  return AddNode(std::move(n));
}

Value Graph::ReduceSum(Value a, const std::vector<int64_t>& dims) {
  if (dims.empty()) return a;
  return Reduce(Op::kReduceSum, a, dims);
}
Value Graph::ReduceMax(Value a, const std::vector<int64_t>& dims) {
  if (dims.empty()) return a;
  return Reduce(Op::kReduceMax, a, dims);
}

Value Graph::Slice(Value a, const std::vector<int64_t>& starts, const std::vector<int64_t>& limits,
                   const std::vector<int64_t>& strides_in) {
  const TensorShape& s = shape(a);
  std::vector<int64_t> strides = strides_in.empty() ? std::vector<int64_t>(s.rank(), 1) : strides_in;
  SPMDC_CHECK(static_cast<int64_t>(starts.size()) == s.rank() &&
              static_cast<int64_t>(limits.size()) == s.rank() &&
              static_cast<int64_t>(strides.size()) == s.rank());
  TensorShape out{s.dtype, {}};
  for (int64_t d = 0; d < s.rank(); ++d) {
    SPMDC_CHECK(0 <= starts[d] && starts[d] <= limits[d] && limits[d] <= s.dims[d] && strides[d] >= 1);
    out.dims.push_back((limits[d] - starts[d] + strides[d] - 1) / strides[d]);
  }
  Node n{Op::kSlice, out, {a}};
  n.starts = starts;
  n.limits = limits;
  n.strides = strides;
  return AddNode(std::move(n));
}

Value Graph::Pad(Value a, Value padding_value, const std::vector<int64_t>& low,
                 const std::vector<int64_t>& high, const std::vector<int64_t>& interior_in) {
  const TensorShape& s = shape(a);
  std::vector<int64_t> interior = interior_in.empty() ? std::vector<int64_t>(s.rank(), 0) : interior_in;
  SPMDC_CHECK(shape(padding_value).rank() == 0 && shape(padding_value).dtype == s.dtype);
  SPMDC_CHECK(static_cast<int64_t>(low.size()) == s.rank() && static_cast<int64_t>(high.size()) == s.rank() &&
              static_cast<int64_t>(interior.size()) == s.rank());
  TensorShape out{s.dtype, {}};
  for (int64_t d = 0; d < s.rank(); ++d) {
    SPMDC_CHECK(low[d] >= 0 && high[d] >= 0 && interior[d] >= 0);
    out.dims.push_back(low[d] + high[d] + s.dims[d] + std::max<int64_t>(s.dims[d] - 1, 0) * interior[d]);
  }
  Node n{Op::kPad, out, {a, padding_value}};
  n.starts = low;
  n.limits = high;
  n.strides = interior;
  return AddNode(std::move(n));
}

Value Graph::Concatenate(const std::vector<Value>& parts, int64_t dim) {
  SPMDC_CHECK(!parts.empty());
  TensorShape out = shape(parts[0]);
  SPMDC_CHECK(dim >= 0 && dim < out.rank());
  for (size_t i = 1; i < parts.size(); ++i) {
    const TensorShape& p = shape(parts[i]);
    SPMDC_CHECK(p.dtype == out.dtype && p.rank() == out.rank());
    for (int64_t d = 0; d < out.rank(); ++d)
      if (d != dim) SPMDC_CHECK(p.dims[d] == out.dims[d]);
    out.dims[dim] += p.dims[dim];
  }
  if (parts.size() == 1) return parts[0];
  Node n{Op::kConcatenate, out, parts};
  n.dims = {dim};
  return AddNode(std::move(n));
}

Value Graph::Reverse(Value a, const std::vector<int64_t>& dims) {
  for (int64_t d : dims) SPMDC_CHECK(d >= 0 && d < shape(a).rank());
  if (dims.empty()) return a;
  Node n{Op::kReverse, shape(a), {a}};
  n.dims = dims;
  return AddNode(std::move(n));
}

Value Graph::Conv(Value lhs, Value rhs, const ConvWindow& window, const std::string& dim_labels) {
  const TensorShape a = shape(lhs), k = shape(rhs);
  SPMDC_CHECK(a.dtype == k.dtype && a.rank() == k.rank() && a.rank() >= 3);
  const std::string labels = dim_labels.empty() ? ChannelsLastLabels(a.rank() - 2) : dim_labels;
  const ConvLabels l = ParseConvLabels(labels);
  SPMDC_CHECK_MSG(static_cast<int64_t>(l.lhs.spatial.size()) == a.rank() - 2, "dim_labels do not match the rank");
  SPMDC_CHECK_MSG(a.dims[l.lhs.second] == k.dims[l.rhs.first], "convolution: input features differ");
  TensorShape out{a.dtype, std::vector<int64_t>(a.rank(), 0)};
  out.dims[l.out.first] = a.dims[l.lhs.first];
  out.dims[l.out.second] = k.dims[l.rhs.second];
  for (size_t i = 0; i < l.lhs.spatial.size(); ++i) {
    const int64_t in = a.dims[l.lhs.spatial[i]], size = k.dims[l.rhs.spatial[i]];
    const int64_t dilated_in = (in - 1) * At(window.lhs_dilation, i, 1) + 1;
    const int64_t extent = (size - 1) * At(window.rhs_dilation, i, 1) + 1;
    const int64_t padded = dilated_in + At(window.pad_lo, i, 0) + At(window.pad_hi, i, 0);
    SPMDC_CHECK_MSG(padded >= extent && At(window.stride, i, 1) >= 1, "convolution: window larger than its input");
    out.dims[l.out.spatial[i]] = (padded - extent) / At(window.stride, i, 1) + 1;
  }
  Node n{Op::kConvolution, out, {lhs, rhs}};
  n.window = window;
  n.dim_labels = labels;
  return AddNode(std::move(n));
}

Value Graph::Gather(Value table, Value indices) {
  const TensorShape t = shape(table), i = shape(indices);
  SPMDC_CHECK(t.rank() >= 1 && i.dtype == "s32");
  TensorShape out{t.dtype, i.dims};
  out.dims.insert(out.dims.end(), t.dims.begin() + 1, t.dims.end());
  return AddNode(Node{Op::kGather, out, {table, indices}});
}

Value Graph::ScatterAdd(Value operand, Value indices, Value updates) {
  const TensorShape o = shape(operand), i = shape(indices), u = shape(updates);
  SPMDC_CHECK(o.rank() >= 1 && i.dtype == "s32" && u.dtype == o.dtype);
  std::vector<int64_t> want = i.dims;
  want.insert(want.end(), o.dims.begin() + 1, o.dims.end());
  SPMDC_CHECK_MSG(u.dims == want, "scatter-add: updates must be [indices..., row...]");
  return AddNode(Node{Op::kScatterAdd, o, {operand, indices, updates}});
}

Value Graph::ShardingConstraint(Value a, const std::string& sharding) {
  Node n{Op::kShardingConstraint, shape(a), {a}};
  n.sharding = sharding;
  return AddNode(std::move(n));
}

Value Graph::Tuple(const std::vector<Value>& elements) {
  return AddNode(Node{Op::kTuple, TensorShape{"tuple", {}}, elements});
}

// ---------------------------------------------------------------------------------------------
// Reverse mode.

std::vector<Value> Graph::Grad(Value loss, const std::vector<Value>& wrt) {
  SPMDC_CHECK_MSG(shape(loss).rank() == 0 && IsFloatType(shape(loss).dtype), "loss must be a float scalar");
  const int64_t n = loss.id + 1;
  // needs[i]: node i depends (differentiably) on one of `wrt`.
  std::vector<char> needs(n, 0);
  for (Value w : wrt)
    if (w.id < n) needs[w.id] = 1;
  for (int64_t i = 0; i < n; ++i) {
    const Node& nd = nodes_[i];
    if (needs[i] || !IsFloatType(nd.shape.dtype)) continue;
    if (nd.op == Op::kParameter || nd.op == Op::kConstant || nd.op == Op::kIota) continue;
    for (Value o : nd.operands)
      if (needs[o.id] && IsFloatType(shape(o).dtype)) needs[i] = 1;
  }
  std::vector<Value> adj(n);
  adj[loss.id] = Constant(1.0, shape(loss).dtype);
  for (int64_t i = n - 1; i >= 0; --i) {
    if (!needs[i] || !adj[i].valid()) continue;
    if (nodes_[i].op == Op::kParameter) continue;
    Backprop(Value{static_cast<int32_t>(i)}, adj[i], adj, needs);
  }
  std::vector<Value> grads;
  for (Value w : wrt) {
    if (w.id < n && adj[w.id].valid()) {
      grads.push_back(adj[w.id]);
    } else {
      grads.push_back(BroadcastScalar(0.0, shape(w)));
    }
  }
  return grads;
}

void Graph::Backprop(Value v, Value g, std::vector<Value>& adj, const std::vector<char>& needs) {
  // Copy what we need: adding nodes may reallocate nodes_.
  const Node nd = nodes_[v.id];
  auto acc = [&](Value x, Value gx) {
    if (!needs[x.id]) return;
    adj[x.id] = adj[x.id].valid() ? Add(adj[x.id], gx) : gx;
  };
  auto need = [&](int i) { return needs[nd.operands[i].id] != 0; };
  auto zeros = [&](const TensorShape& s) { return BroadcastScalar(0.0, s); };
  // Transposes `x` (whose dim r holds target dim src[r]) into target dim order.
  auto arrange = [&](Value x, const std::vector<int64_t>& src) {
    std::vector<int64_t> perm(src.size());
    for (size_t r = 0; r < src.size(); ++r) perm[src[r]] = static_cast<int64_t>(r);
    return Transpose(x, perm);
  };
  const Value a = nd.operands.empty() ? Value{} : nd.operands[0];
  const Value b = nd.operands.size() > 1 ? nd.operands[1] : Value{};
  switch (nd.op) {
    case Op::kParameter:
    case Op::kConstant:
    case Op::kIota:
    case Op::kCompare:
      return;
    case Op::kAdd:
      acc(a, g);
      acc(b, g);
      return;
    case Op::kSub:
      acc(a, g);
      if (need(1)) acc(b, Neg(g));
      return;
    case Op::kMul:
      if (need(0)) acc(a, Mul(g, b));
      if (need(1)) acc(b, Mul(g, a));
      return;
    case Op::kDiv:
      if (need(0)) acc(a, Div(g, b));
      if (need(1)) acc(b, Neg(Div(Mul(g, v), b)));  // d(a/b)/db = -(a/b)/b
      return;
    case Op::kMax: {
      Value z = zeros(nd.shape);
      Value ge = Compare(a, b, "GE");
      if (need(0)) acc(a, Select(ge, g, z));
      if (need(1)) acc(b, Select(ge, z, g));
      return;
    }
    case Op::kNeg:
      acc(a, Neg(g));
      return;
    case Op::kExp:
      acc(a, Mul(g, v));
      return;
    case Op::kLog:
      acc(a, Div(g, a));
      return;
    case Op::kTanh: {
      Value one = BroadcastScalar(1.0, nd.shape);
      acc(a, Mul(g, Sub(one, Mul(v, v))));
      return;
    }
    case Op::kRsqrt: {  // d/dx x^-1/2 = -1/2 x^-3/2 = -1/2 r^3
      Value c = BroadcastScalar(-0.5, nd.shape);
      acc(a, Mul(g, Mul(c, Mul(v, Mul(v, v)))));
      return;
    }
    case Op::kSqrt: {  // 1 / (2 sqrt(x))
      Value c = BroadcastScalar(0.5, nd.shape);
      acc(a, Div(Mul(g, c), v));
      return;
    }
    case Op::kSelect: {
      Value z = zeros(nd.shape);
      if (need(1)) acc(nd.operands[1], Select(a, g, z));
      if (need(2)) acc(nd.operands[2], Select(a, z, g));
      return;
    }
    case Op::kConvert:
      acc(a, Convert(g, shape(a).dtype));
      return;
    case Op::kShardingConstraint:
      acc(a, ShardingConstraint(g, nd.sharding));
      return;
    case Op::kReshape:
      acc(a, Reshape(g, shape(a).dims));
      return;
    case Op::kTranspose: {
      std::vector<int64_t> inv(nd.dims.size());
      for (size_t i = 0; i < nd.dims.size(); ++i) inv[nd.dims[i]] = static_cast<int64_t>(i);
      acc(a, Transpose(g, inv));
      return;
    }
    case Op::kBroadcast: {
      std::vector<int64_t> reduced;
      for (int64_t d = 0; d < nd.shape.rank(); ++d)
        if (!Contains(nd.dims, d)) reduced.push_back(d);
      Value r = ReduceSum(g, reduced);
      // r's dims are the mapped output dims in ascending order; operand dim i is dims[i].
      std::vector<int64_t> sorted = nd.dims;
      std::sort(sorted.begin(), sorted.end());
      std::vector<int64_t> src(sorted.size());  // r dim -> operand dim
      for (size_t i = 0; i < nd.dims.size(); ++i)
        src[std::find(sorted.begin(), sorted.end(), nd.dims[i]) - sorted.begin()] = static_cast<int64_t>(i);
      acc(a, arrange(r, src));
      return;
    }
    case Op::kReduceSum: {
      std::vector<int64_t> kept = FreeDims(shape(a).rank(), nd.dims, {});
      acc(a, Broadcast(g, shape(a).dims, kept));
      return;
    }
    case Op::kReduceMax: {
      const TensorShape sa = shape(a);
      std::vector<int64_t> kept = FreeDims(sa.rank(), nd.dims, {});
      Value mask = Compare(a, Broadcast(v, sa.dims, kept), "EQ");
      acc(a, Select(mask, Broadcast(g, sa.dims, kept), zeros(sa)));
      return;
    }
    case Op::kSlice: {
      const TensorShape sa = shape(a);
      std::vector<int64_t> low, high, interior;
      for (int64_t d = 0; d < sa.rank(); ++d) {
        int64_t out = nd.shape.dims[d];
        SPMDC_CHECK(out > 0);
        low.push_back(nd.starts[d]);
        interior.push_back(nd.strides[d] - 1);
        high.push_back(sa.dims[d] - (nd.starts[d] + (out - 1) * nd.strides[d] + 1));
      }
      acc(a, Pad(g, Constant(0.0, sa.dtype), low, high, interior));
      return;
    }
    case Op::kPad: {
      const TensorShape sa = shape(a);
      std::vector<int64_t> starts, limits, strides;
      for (int64_t d = 0; d < sa.rank(); ++d) {
        starts.push_back(nd.starts[d]);
        strides.push_back(nd.strides[d] + 1);
        limits.push_back(nd.starts[d] + std::max<int64_t>(sa.dims[d] - 1, 0) * (nd.strides[d] + 1) +
                         (sa.dims[d] > 0 ? 1 : 0));
      }
      Value ga = Slice(g, starts, limits, strides);
      if (need(0)) acc(a, ga);
      if (need(1)) {
        std::vector<int64_t> all = Range(0, sa.rank());
        acc(b, Sub(ReduceSum(g, all), ReduceSum(ga, all)));
      }
      return;
    }
    case Op::kConcatenate: {
      int64_t dim = nd.dims[0];
      int64_t offset = 0;
      for (size_t i = 0; i < nd.operands.size(); ++i) {
        const TensorShape sp = shape(nd.operands[i]);
        if (needs[nd.operands[i].id]) {
          std::vector<int64_t> starts(sp.rank(), 0), limits = nd.shape.dims;
          starts[dim] = offset;
          limits[dim] = offset + sp.dims[dim];
          acc(nd.operands[i], Slice(g, starts, limits));
        }
        offset += sp.dims[dim];
      }
      return;
    }
    case Op::kReverse:
      acc(a, Reverse(g, nd.dims));
      return;
    case Op::kGather:
      if (need(0)) acc(a, ScatterAdd(zeros(shape(a)), b, g));
      return;
    case Op::kScatterAdd:
      if (need(0)) acc(a, g);
      if (need(2)) acc(nd.operands[2], Gather(g, b));
      return;
    case Op::kConvolution: {
      // out[y] = sum_k in'[y*s + k] w[k], where in' is the input dilated by d (lhs_dilation) and
      // padded by (lo, hi); per spatial dim, with K taps, input size H and output size Ho.
      //   d in  = conv(g dilated by s, w reversed with i/o swapped), padded (K-1-lo, hi'), strided
      //           by d: the entries of the dilated input's gradient at the input's positions;
      //   d w   = conv(in, g) with the batch contracted: in as [feature=N, spatial, batch=C],
      //           g as the window [i=N, spatial, o=O] dilated by s, padded (lo, hi'') so that K
      //           positions come out, [spatial=K, b=C, f=O].
      const std::string canonical = ChannelsLastLabels(nd.shape.rank() - 2);
      SPMDC_CHECK_MSG(nd.dim_labels == canonical && nd.window.rhs_dilation.empty(),
                      "only channels-last convolutions without rhs dilation are differentiable");
      const TensorShape sa = shape(a), sb = shape(b);
      const int64_t ns = sa.rank() - 2;
      ConvWindow din, dw;
      std::vector<int64_t> spatial;
      for (int64_t i = 0; i < ns; ++i) {
        const int64_t H = sa.dims[1 + i], K = sb.dims[i], Ho = nd.shape.dims[1 + i];
        const int64_t s = At(nd.window.stride, i, 1), d = At(nd.window.lhs_dilation, i, 1);
        const int64_t lo = At(nd.window.pad_lo, i, 0);
        const int64_t lo_in = K - 1 - lo, hi_in = (H - 1) * d + K - 1 - (Ho - 1) * s - lo_in;
        const int64_t hi_w = K + (Ho - 1) * s - (H - 1) * d - 1 - lo;
        SPMDC_CHECK_MSG(lo_in >= 0 && hi_in >= 0 && hi_w >= 0,
                        "convolution VJP: padding outside [0, K-1] (it would need negative padding)");
        din.stride.push_back(d);
        din.lhs_dilation.push_back(s);
        din.pad_lo.push_back(lo_in);
        din.pad_hi.push_back(hi_in);
        dw.lhs_dilation.push_back(d);
        dw.rhs_dilation.push_back(s);
        dw.pad_lo.push_back(lo);
        dw.pad_hi.push_back(hi_w);
        spatial.push_back(i);
      }
      std::string digits;
      for (int64_t i = 0; i < ns; ++i) digits += static_cast<char>('0' + i);
      if (need(0)) acc(a, Conv(g, Reverse(b, spatial), din, "b" + digits + "f_" + digits + "oi->b" + digits + "f"));
      if (need(1)) acc(b, Conv(a, g, dw, "f" + digits + "b_i" + digits + "o->" + digits + "bf"));
      return;
    }
    case Op::kDot: {
      const DotDims& D = nd.dot;
      const TensorShape sa = shape(a), sb = shape(b);
      const int64_t nb = static_cast<int64_t>(D.lhs_batch.size());
      std::vector<int64_t> lf = FreeDims(sa.rank(), D.lhs_batch, D.lhs_contracting);
      std::vector<int64_t> rf = FreeDims(sb.rank(), D.rhs_batch, D.rhs_contracting);
      const int64_t nlf = static_cast<int64_t>(lf.size());
      const int64_t ng = nd.shape.rank();
      if (need(0)) {
        // g[batch, lf, rf] . b contracting rf  -> [batch, lf, b's contracting dims ascending].
        DotDims d{Range(0, nb), D.rhs_batch, Range(nb + nlf, ng), rf};
        Value r = Dot(g, b, d);
        std::vector<int64_t> src(D.lhs_batch);
        src.insert(src.end(), lf.begin(), lf.end());
        for (int64_t bd = 0; bd < sb.rank(); ++bd) {
          auto it = std::find(D.rhs_contracting.begin(), D.rhs_contracting.end(), bd);
          if (it != D.rhs_contracting.end()) src.push_back(D.lhs_contracting[it - D.rhs_contracting.begin()]);
        }
        acc(a, arrange(r, src));
      }
      if (need(1)) {
        // a . g contracting lf -> [batch, a's contracting dims ascending, rf].
        DotDims d{D.lhs_batch, Range(0, nb), lf, Range(nb, nb + nlf)};
        Value r = Dot(a, g, d);
        std::vector<int64_t> src(D.rhs_batch);
        for (int64_t ad = 0; ad < sa.rank(); ++ad) {
          auto it = std::find(D.lhs_contracting.begin(), D.lhs_contracting.end(), ad);
          if (it != D.lhs_contracting.end()) src.push_back(D.rhs_contracting[it - D.lhs_contracting.begin()]);
        }
        src.insert(src.end(), rf.begin(), rf.end());
        acc(b, arrange(r, src));
      }
      return;
    }
    case Op::kTuple:
      SPMDC_CHECK_MSG(false, "cannot differentiate through a tuple");
      return;
  }
}

// ---------------------------------------------------------------------------------------------
// Emission.

std::string Graph::EmitHlo(Value root, const std::string& module_name, const std::string& header_attrs) const {
  const int64_t n = root.id + 1;
  std::vector<char> live(n, 0);
  live[root.id] = 1;
  for (int64_t i = n - 1; i >= 0; --i) {
    if (!live[i]) continue;
    for (Value o : nodes_[i].operands) live[o.id] = 1;
  }
  for (Value p : parameters_) SPMDC_CHECK_MSG(p.id < n, "parameter created after the root");

  HloWriter w;
  std::vector<std::string> names(n);
  w.BeginComputation(module_name, /*entry=*/true);
  for (Value p : parameters_) {
    const Node& nd = nodes_[p.id];
    names[p.id] = w.Parameter(nd.parameter_number, nd.shape.ToString(), nd.name.empty() ? "param" : nd.name,
                              nd.sharding.empty() ? "" : ", sharding=" + nd.sharding);
  }
  for (int64_t i = 0; i < n; ++i) {
    const Node& nd = nodes_[i];
    if (!live[i] || nd.op == Op::kParameter) continue;
    if (nd.op == Op::kConstant) {
      names[i] = w.Constant(nd.shape.ToString(), ConstantLiteral(nd.constant, nd.shape.dtype));
      continue;
    }
    std::vector<std::string> ops;
    ops.reserve(nd.operands.size());
    for (Value o : nd.operands) ops.push_back(names[o.id]);
    std::string shape_text = nd.shape.ToString();
    std::string attrs;
    switch (nd.op) {
      case Op::kIota:
        attrs = fmt::format(", iota_dimension={}", nd.dims[0]);
        break;
      case Op::kDot:
        if (!nd.dot.lhs_batch.empty())
          attrs += fmt::format(", lhs_batch_dims={{{}}}", JoinInts(nd.dot.lhs_batch));
        attrs += fmt::format(", lhs_contracting_dims={{{}}}", JoinInts(nd.dot.lhs_contracting));
        if (!nd.dot.rhs_batch.empty())
          attrs += fmt::format(", rhs_batch_dims={{{}}}", JoinInts(nd.dot.rhs_batch));
        attrs += fmt::format(", rhs_contracting_dims={{{}}}", JoinInts(nd.dot.rhs_contracting));
        break;
      case Op::kCompare:
        attrs = fmt::format(", direction={}", nd.direction);
        break;
      case Op::kBroadcast:
      case Op::kTranspose:
      case Op::kConcatenate:
      case Op::kReverse:
        attrs = fmt::format(", dimensions={{{}}}", JoinInts(nd.dims));
        break;
      case Op::kConvolution: {
        const ConvLabels l = ParseConvLabels(nd.dim_labels);
        const TensorShape& k = shape(nd.operands[1]);
        const ConvWindow& win = nd.window;
        const size_t ns = l.rhs.spatial.size();
        auto field = [&](const char* name, const std::vector<int64_t>& v, int64_t fallback) {
          bool any = false;
          std::string text;
          for (size_t i = 0; i < ns; ++i) {
            text += fmt::format("{}{}", i ? "x" : "", At(v, i, fallback));
            any |= At(v, i, fallback) != fallback;
          }
          return any ? fmt::format(" {}={}", name, text) : std::string();
        };
        std::string size, pad;
        bool padded = false;
        for (size_t i = 0; i < ns; ++i) {
          size += fmt::format("{}{}", i ? "x" : "", k.dims[l.rhs.spatial[i]]);
          pad += fmt::format("{}{}_{}", i ? "x" : "", At(win.pad_lo, i, 0), At(win.pad_hi, i, 0));
          padded |= At(win.pad_lo, i, 0) != 0 || At(win.pad_hi, i, 0) != 0;
        }
        attrs = fmt::format(", window={{size={}{}{}{}{}}}, dim_labels={}", size, field("stride", win.stride, 1),
                            padded ? " pad=" + pad : "", field("lhs_dilate", win.lhs_dilation, 1),
                            field("rhs_dilate", win.rhs_dilation, 1), nd.dim_labels);
        break;
      }
      case Op::kGather: {
        const TensorShape& t = shape(nd.operands[0]);
        const int64_t ir = shape(nd.operands[1]).rank();
        std::vector<int64_t> slice = t.dims;
        slice[0] = 1;
        attrs = fmt::format(", offset_dims={{{}}}, collapsed_slice_dims={{0}}, start_index_map={{0}}, "
                            "index_vector_dim={}, slice_sizes={{{}}}",
                            JoinInts(Range(ir, ir + t.rank() - 1)), ir, JoinInts(slice));
        break;
      }
      case Op::kScatterAdd: {
        const int64_t ir = shape(nd.operands[1]).rank();
        attrs = fmt::format(", update_window_dims={{{}}}, inserted_window_dims={{0}}, "
                            "scatter_dims_to_operand_dims={{0}}, index_vector_dim={}, to_apply={}",
                            JoinInts(Range(ir, ir + nd.shape.rank() - 1)), ir, w.AddReducer(nd.shape.dtype));
        break;
      }
      case Op::kReduceSum:
      case Op::kReduceMax: {
        const std::string& t = nd.shape.dtype;
        std::string reducer = nd.op == Op::kReduceSum ? w.AddReducer(t) : w.MaxReducer(t);
        attrs = fmt::format(", dimensions={{{}}}, to_apply={}", JoinInts(nd.dims), reducer);
        break;
      }
      case Op::kSlice: {
        attrs = ", slice={";
        for (size_t d = 0; d < nd.starts.size(); ++d) {
          attrs += fmt::format("{}[{}:{}", d ? ", " : "", nd.starts[d], nd.limits[d]);
          if (nd.strides[d] != 1) attrs += fmt::format(":{}", nd.strides[d]);
          attrs += "]";
        }
        attrs += "}";
        break;
      }
      case Op::kPad: {
        attrs = ", padding=";
        for (size_t d = 0; d < nd.starts.size(); ++d) {
          attrs += fmt::format("{}{}_{}", d ? "x" : "", nd.starts[d], nd.limits[d]);
          if (nd.strides[d] != 0) attrs += fmt::format("_{}", nd.strides[d]);
        }
        break;
      }
      case Op::kShardingConstraint:
        attrs = ", custom_call_target=\"Sharding\"";
        break;
      case Op::kTuple: {
        shape_text = "(";
        for (size_t k = 0; k < nd.operands.size(); ++k)
          shape_text += (k ? ", " : "") + shape(nd.operands[k]).ToString();
        shape_text += ")";
        break;
      }
      default:
        break;
    }
    if (!nd.sharding.empty()) attrs += ", sharding=" + nd.sharding;
    std::string hint = nd.name.empty() ? OpName(nd.op) : nd.name;
    if (nd.op == Op::kReduceSum && nd.name.empty()) hint = "reduce_sum";
    if (nd.op == Op::kReduceMax && nd.name.empty()) hint = "reduce_max";
    names[i] = w.Emit(shape_text, OpName(nd.op), ops, attrs, hint);
  }
  w.EndComputation(names[root.id]);
  return w.Finish(module_name, header_attrs);
}

// ---------------------------------------------------------------------------------------------
// Sharding text.

std::string ShardingText(const Mesh& mesh, const std::vector<std::vector<std::string>>& spec) {
  const int64_t naxes = static_cast<int64_t>(mesh.axes.size());
  auto axis_index = [&](const std::string& name) {
    for (int64_t i = 0; i < naxes; ++i)
      if (mesh.axes[i].first == name) return i;
    SPMDC_CHECK_MSG(false, "unknown mesh axis");
    return int64_t{-1};
  };
  std::vector<char> used(naxes, 0);
  std::vector<int64_t> tile_dims, order;  // order: mesh axes in tile-array order
  for (const auto& dim_axes : spec) {
    int64_t t = 1;
    for (const std::string& name : dim_axes) {
      int64_t a = axis_index(name);
      SPMDC_CHECK_MSG(!used[a], "mesh axis used twice");
      used[a] = 1;
      t *= mesh.axes[a].second;
      order.push_back(a);
    }
    tile_dims.push_back(t);
  }
  int64_t replicated = 1;
  for (int64_t a = 0; a < naxes; ++a) {
    if (used[a]) continue;
    replicated *= mesh.axes[a].second;
    order.push_back(a);
  }
  int64_t total = mesh.num_devices();
  if (replicated == total) return "{replicated}";
  bool partial = replicated > 1;
  if (partial) tile_dims.push_back(replicated);

  // Canonical iota form: drop size-1 axes, then merge runs of consecutive axes.
  std::vector<int64_t> perm;  // over kept axes, in tile order
  std::vector<int64_t> kept_sizes;
  std::vector<int64_t> remap(naxes, -1);
  for (int64_t a = 0; a < naxes; ++a)
    if (mesh.axes[a].second > 1) {
      remap[a] = static_cast<int64_t>(kept_sizes.size());
      kept_sizes.push_back(mesh.axes[a].second);
    }
  for (int64_t a : order)
    if (remap[a] >= 0) perm.push_back(remap[a]);
  // Runs in perm of consecutive increasing axes.
  std::vector<std::vector<int64_t>> runs;
  for (int64_t p : perm) {
    if (!runs.empty() && runs.back().back() + 1 == p) {
      runs.back().push_back(p);
    } else {
      runs.push_back({p});
    }
  }
  // New axes: runs sorted by first original axis.
  std::vector<int64_t> run_order(runs.size());
  std::iota(run_order.begin(), run_order.end(), 0);
  std::sort(run_order.begin(), run_order.end(), [&](int64_t x, int64_t y) { return runs[x][0] < runs[y][0]; });
  std::vector<int64_t> reshape(runs.size()), new_index(runs.size());
  for (size_t k = 0; k < run_order.size(); ++k) {
    int64_t size = 1;
    for (int64_t p : runs[run_order[k]]) size *= kept_sizes[p];
    reshape[k] = size;
    new_index[run_order[k]] = static_cast<int64_t>(k);
  }
  std::vector<int64_t> new_perm;
  for (size_t r = 0; r < runs.size(); ++r) new_perm.push_back(new_index[r]);
  std::string text = fmt::format("{{devices=[{}]<=[", JoinInts(tile_dims));
  if (runs.size() <= 1) {
    text += fmt::format("{}]", total);
  } else {
    text += fmt::format("{}]T({})", JoinInts(reshape), JoinInts(new_perm));
  }
  if (partial) text += " last_tile_dim_replicate";
  text += "}";
  return text;
}

}  // namespace spmdc::graph
