// Shape inference: dispatch, shared helpers, elementwise ops and data movement (broadcast,
// reshape, transpose, slicing, padding, concatenation, tuples). The other families live in
// shape_inference_compute.cc and shape_inference_control.cc.
#include "ir/shape_inference.h"

#include <algorithm>
#include <numeric>

#include "ir/shape_inference_internal.h"

namespace spmdc {
namespace shape_inference {

// ---- Helpers -------------------------------------------------------------------------------

StatusOr<const Instruction*> Operand(const Instruction& instr, int64_t i) {
  if (i < 0 || i >= instr.operand_count() || instr.operand(i) == nullptr)
    return InvalidArgument("expected at least {} operand(s), got {}", i + 1, instr.operand_count());
  return instr.operand(i);
}

Status ExpectOperandCount(const Instruction& instr, int64_t n) {
  if (instr.operand_count() != n)
    return InvalidArgument("expected {} operand(s), got {}", n, instr.operand_count());
  for (Instruction* op : instr.operands())
    if (op == nullptr) return InvalidArgument("null operand");
  return absl::OkStatus();
}

Status ExpectMinOperandCount(const Instruction& instr, int64_t n) {
  if (instr.operand_count() < n)
    return InvalidArgument("expected at least {} operand(s), got {}", n, instr.operand_count());
  for (Instruction* op : instr.operands())
    if (op == nullptr) return InvalidArgument("null operand");
  return absl::OkStatus();
}

Shape StripLayout(const Shape& s) {
  Shape out = s;
  out.clear_layout();
  return out;
}

StatusOr<Shape> ArrayOperand(const Instruction& instr, int64_t i) {
  ASSIGN_OR_RETURN(const Instruction* op, Operand(instr, i));
  if (!op->shape().IsArray())
    return InvalidArgument("operand {} must be an array, got {}", i, ShapeText(op->shape()));
  return StripLayout(op->shape());
}

StatusOr<int64_t> RequiredInt(const Instruction& instr, AttrId id) {
  const int64_t* v = instr.attr<int64_t>(id);
  if (!v) return InvalidArgument("missing attribute {}", AttrName(id));
  return *v;
}

StatusOr<std::vector<int64_t>> RequiredInts(const Instruction& instr, AttrId id) {
  const auto* v = instr.attr<std::vector<int64_t>>(id);
  if (!v) return InvalidArgument("missing attribute {}", AttrName(id));
  return *v;
}

StatusOr<const Computation*> RequiredComputation(const Instruction& instr, AttrId id) {
  const Computation* c = instr.computation_attr(id);
  if (!c) return InvalidArgument("missing attribute {}", AttrName(id));
  return c;
}

Status CheckDimList(const std::vector<int64_t>& dims, int64_t rank, std::string_view what) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= rank)
      return InvalidArgument("{} {} out of range for rank {}", what, dims[i], rank);
    for (size_t j = 0; j < i; ++j)
      if (dims[j] == dims[i]) return InvalidArgument("{} contains {} twice", what, dims[i]);
  }
  return absl::OkStatus();
}

bool SameTypeIgnoringFpPrecision(DType a, DType b) {
  return a == b || (IsFloat(a) && IsFloat(b));
}

static bool DimMatches(const Shape& a, const Shape& b, int64_t i) {
  if (a.dim(i) == b.dim(i)) return true;
  return (a.is_dynamic_dim(i) && a.dim(i) == Shape::kUnbounded) ||
         (b.is_dynamic_dim(i) && b.dim(i) == Shape::kUnbounded);
}

bool SameDims(const Shape& a, const Shape& b) {
  if (a.rank() != b.rank()) return false;
  for (int64_t i = 0; i < a.rank(); ++i)
    if (!DimMatches(a, b, i)) return false;
  return true;
}

static bool SameShapeImpl(const Shape& a, const Shape& b, bool ignore_fp) {
  if (a.IsTuple() || b.IsTuple()) {
    if (!a.IsTuple() || !b.IsTuple() || a.tuple_size() != b.tuple_size()) return false;
    for (int64_t i = 0; i < a.tuple_size(); ++i)
      if (!SameShapeImpl(a.tuple_shape(i), b.tuple_shape(i), ignore_fp)) return false;
    return true;
  }
  if (a.IsToken() || b.IsToken()) return a.IsToken() && b.IsToken();
  if (ignore_fp ? !SameTypeIgnoringFpPrecision(a.dtype(), b.dtype()) : a.dtype() != b.dtype())
    return false;
  return SameDims(a, b);
}

bool SameShape(const Shape& a, const Shape& b) { return SameShapeImpl(a, b, false); }
bool SameShapeIgnoringFpPrecision(const Shape& a, const Shape& b) {
  return SameShapeImpl(a, b, true);
}

StatusOr<Shape> ComputationParam(const Computation& c, int64_t i) {
  if (i >= c.num_parameters() || c.parameter(i) == nullptr)
    return InvalidArgument("computation %{} has no parameter {}", c.name(), i);
  return StripLayout(c.parameter(i)->shape());
}

StatusOr<Shape> ComputationRoot(const Computation& c) {
  if (c.root() == nullptr) return InvalidArgument("computation %{} has no root", c.name());
  return StripLayout(c.root()->shape());
}

static std::string ShapesText(const std::vector<Shape>& shapes) {
  std::string out = "(";
  for (size_t i = 0; i < shapes.size(); ++i) out += (i ? ", " : "") + ShapeText(shapes[i]);
  return out + ")";
}

StatusOr<Shape> CheckSignature(const Computation& c, const std::vector<Shape>& params,
                               std::string_view role, bool ignore_fp_precision) {
  std::vector<Shape> actual;
  for (Instruction* p : c.parameters()) {
    if (p == nullptr) return InvalidArgument("{} %{} has a gap in its parameter numbers", role, c.name());
    actual.push_back(StripLayout(p->shape()));
  }
  bool ok = actual.size() == params.size();
  for (size_t i = 0; ok && i < params.size(); ++i)
    ok = ignore_fp_precision ? SameShapeIgnoringFpPrecision(actual[i], params[i])
                             : SameShape(actual[i], params[i]);
  if (!ok)
    return InvalidArgument("{} %{} takes {} but is applied to {}", role, c.name(),
                           ShapesText(actual), ShapesText(params));
  return ComputationRoot(c);
}

Status CheckReducer(const Computation& c, const std::vector<Shape>& accumulators,
                    std::string_view role) {
  return CheckReducer(c, accumulators, role, /*allow_tuple_of_one=*/false).status();
}

StatusOr<bool> CheckReducer(const Computation& c, const std::vector<Shape>& accumulators,
                            std::string_view role, bool allow_tuple_of_one) {
  std::vector<Shape> params = accumulators;
  params.insert(params.end(), accumulators.begin(), accumulators.end());
  ASSIGN_OR_RETURN(Shape root, CheckSignature(c, params, role, /*ignore_fp_precision=*/true));
  const bool tuple_of_one = allow_tuple_of_one && accumulators.size() == 1 && root.IsTuple();
  Shape expected = tuple_of_one ? Shape::Tuple(accumulators) : TupleOrSingle(accumulators);
  if (!SameShapeIgnoringFpPrecision(root, expected)) {
    std::string want = ShapeText(TupleOrSingle(accumulators));
    if (allow_tuple_of_one && accumulators.size() == 1)
      want += " or " + ShapeText(Shape::Tuple(accumulators));
    return InvalidArgument("{} %{} returns {} but must return {}", role, c.name(), ShapeText(root),
                           want);
  }
  return root.IsTuple();
}

StatusOr<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_mul_overflow(a, b, &out)) return InvalidArgument("dimension size overflows");
  return out;
}

Status CheckWindow(const Window& window, int64_t rank) {
  if (static_cast<int64_t>(window.dims.size()) != rank)
    return InvalidArgument("window has {} dimensions but the operand has rank {}",
                           window.dims.size(), rank);
  for (const WindowDim& w : window.dims) {
    if (w.size < 0) return InvalidArgument("window size {} is negative", w.size);
    if (w.stride < 1) return InvalidArgument("window stride {} must be positive", w.stride);
    if (w.base_dilation < 1 || w.window_dilation < 1)
      return InvalidArgument("window dilations must be positive");
  }
  return absl::OkStatus();
}

StatusOr<int64_t> WindowedOutputSize(int64_t input, const WindowDim& w, int64_t dim) {
  if (input < 0) return input;  // unbounded dynamic: stays unknown
  auto big = [](int64_t v) { return v > (int64_t{1} << 60) || v < -(int64_t{1} << 60); };
  if (big(input) || big(w.size) || big(w.padding_low) || big(w.padding_high) ||
      big(w.base_dilation) || big(w.window_dilation))
    return InvalidArgument("window dimension {} is too large", dim);
  ASSIGN_OR_RETURN(int64_t dilated_base, CheckedMul(input > 0 ? input - 1 : 0, w.base_dilation));
  if (input > 0) dilated_base += 1;
  int64_t padded = dilated_base + w.padding_low + w.padding_high;
  ASSIGN_OR_RETURN(int64_t dilated_window, CheckedMul(w.size > 0 ? w.size - 1 : 0, w.window_dilation));
  if (w.size > 0) dilated_window += 1;
  if (padded < 0)
    return InvalidArgument("window padding in dimension {} makes the input size negative", dim);
  if (padded < dilated_window) return 0;
  return (padded - dilated_window) / w.stride + 1;
}

std::string ShapeText(const Shape& s) { return s.ToString(/*print_layout=*/false); }

Shape TupleOrSingle(std::vector<Shape> shapes) {
  if (shapes.size() == 1) return std::move(shapes[0]);
  return Shape::Tuple(std::move(shapes));
}

// ---- Elementwise ---------------------------------------------------------------------------

namespace {

Status CheckUnaryType(Opcode op, DType t) {
  auto bad = [&]() {
    return InvalidArgument("{} does not accept element type {}", OpcodeName(op), DTypeName(t));
  };
  switch (op) {
    case Opcode::kNot:
      if (t != DType::kPred && !IsInteger(t)) return bad();
      break;
    case Opcode::kPopulationCount: case Opcode::kClz:
      if (!IsInteger(t)) return bad();
      break;
    case Opcode::kAbs: case Opcode::kNegate: case Opcode::kSign:
      if (t == DType::kPred) return bad();
      break;
    case Opcode::kCeil: case Opcode::kFloor: case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven: case Opcode::kIsFinite: case Opcode::kReducePrecision:
      if (!IsFloat(t)) return bad();
      break;
    case Opcode::kCbrt: case Opcode::kCos: case Opcode::kErf: case Opcode::kExp:
    case Opcode::kExpm1: case Opcode::kLog: case Opcode::kLog1p: case Opcode::kLogistic:
    case Opcode::kRsqrt: case Opcode::kSin: case Opcode::kSqrt: case Opcode::kTan:
    case Opcode::kTanh: case Opcode::kAcos: case Opcode::kAcosh: case Opcode::kAsin:
    case Opcode::kAsinh: case Opcode::kAtan: case Opcode::kAtanh: case Opcode::kCosh:
    case Opcode::kSinh:
      if (!IsFloat(t) && !IsComplex(t)) return bad();
      break;
    case Opcode::kReal: case Opcode::kImag:
      if (!IsFloat(t) && !IsComplex(t)) return bad();
      break;
    default:
      break;
  }
  return absl::OkStatus();
}

StatusOr<Shape> InferUnary(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 1));
  // As in XLA, a copy takes any shape, tuples included (e.g. `ROOT %copy = (..) copy(%while)`).
  if (instr.opcode() == Opcode::kCopy) {
    ASSIGN_OR_RETURN(const Instruction* op, Operand(instr, 0));
    return StripLayout(op->shape());
  }
  ASSIGN_OR_RETURN(Shape s, ArrayOperand(instr, 0));
  Opcode op = instr.opcode();
  DType t = s.dtype();
  switch (op) {
    case Opcode::kConvert: {
      // The target type is the declared one; every array type converts to every other.
      const Shape& declared = instr.shape();
      if (!declared.IsArray())
        return InvalidArgument("convert must produce an array, got {}", ShapeText(declared));
      s.set_dtype(declared.dtype());
      return s;
    }
    case Opcode::kCopy:
      return s;
    case Opcode::kIsFinite:
      RETURN_IF_ERROR(CheckUnaryType(op, t));
      s.set_dtype(DType::kPred);
      return s;
    case Opcode::kAbs: case Opcode::kReal: case Opcode::kImag:
      RETURN_IF_ERROR(CheckUnaryType(op, t));
      if (IsComplex(t)) s.set_dtype(ComplexComponentType(t));
      return s;
    case Opcode::kReducePrecision: {
      RETURN_IF_ERROR(CheckUnaryType(op, t));
      ASSIGN_OR_RETURN(int64_t e, RequiredInt(instr, AttrId::kExponentBits));
      ASSIGN_OR_RETURN(int64_t m, RequiredInt(instr, AttrId::kMantissaBits));
      if (e < 1) return InvalidArgument("exponent_bits must be at least 1, got {}", e);
      if (m < 0) return InvalidArgument("mantissa_bits must be non-negative, got {}", m);
      return s;
    }
    default:
      RETURN_IF_ERROR(CheckUnaryType(op, t));
      return s;
  }
}

StatusOr<Shape> InferBinary(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 2));
  ASSIGN_OR_RETURN(Shape lhs, ArrayOperand(instr, 0));
  ASSIGN_OR_RETURN(Shape rhs, ArrayOperand(instr, 1));
  if (!SameDims(lhs, rhs))
    return InvalidArgument("operand shapes {} and {} do not match", ShapeText(lhs), ShapeText(rhs));
  DType lt = lhs.dtype(), rt = rhs.dtype();
  if (!SameTypeIgnoringFpPrecision(lt, rt))
    return InvalidArgument("operand element types {} and {} do not match", DTypeName(lt),
                           DTypeName(rt));
  // The result keeps the higher precision; a dimension is dynamic when either side's is.
  Shape out = DTypeBitWidth(rt) > DTypeBitWidth(lt) ? rhs : lhs;
  for (int64_t i = 0; i < out.rank(); ++i)
    if (lhs.is_dynamic_dim(i) || rhs.is_dynamic_dim(i)) out.set_dynamic_dim(i, true);
  auto bad = [&]() {
    return InvalidArgument("{} does not accept element type {}", OpcodeName(instr.opcode()),
                           DTypeName(lt));
  };
  switch (instr.opcode()) {
    case Opcode::kCompare: {
      const std::string& dir = instr.string_attr(AttrId::kDirection);
      if (dir.empty()) return InvalidArgument("missing attribute direction");
      static const char* kDirs[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
      if (std::find(std::begin(kDirs), std::end(kDirs), dir) == std::end(kDirs))
        return InvalidArgument("unknown comparison direction {}", dir);
      if (IsComplex(lt) && dir != "EQ" && dir != "NE")
        return InvalidArgument("complex values can only be compared with EQ or NE");
      out.set_dtype(DType::kPred);
      return out;
    }
    case Opcode::kComplex:
      if (lt != DType::kF32 && lt != DType::kF64) return bad();
      if (lt != rt) return InvalidArgument("complex operands must have the same element type");
      out.set_dtype(lt == DType::kF32 ? DType::kC64 : DType::kC128);
      return out;
    case Opcode::kAnd: case Opcode::kOr: case Opcode::kXor:
      if (lt != DType::kPred && !IsInteger(lt)) return bad();
      return out;
    case Opcode::kShiftLeft: case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical: case Opcode::kMulhi:
      if (!IsInteger(lt)) return bad();
      return out;
    case Opcode::kAtan2:
      if (!IsFloat(lt) && !IsComplex(lt)) return bad();
      return out;
    case Opcode::kAdd: case Opcode::kSubtract: case Opcode::kMultiply: case Opcode::kDivide:
    case Opcode::kRemainder: case Opcode::kMaximum: case Opcode::kMinimum:
      // XLA accepts pred here (add/multiply as or/and); so do we, except for division.
      if ((instr.opcode() == Opcode::kDivide || instr.opcode() == Opcode::kRemainder) &&
          lt == DType::kPred)
        return bad();
      return out;
    case Opcode::kPower:
      if (lt == DType::kPred) return bad();
      return out;
    default:
      return out;
  }
}

StatusOr<Shape> InferTernary(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 3));
  ASSIGN_OR_RETURN(Shape a, ArrayOperand(instr, 0));
  ASSIGN_OR_RETURN(Shape b, ArrayOperand(instr, 1));
  ASSIGN_OR_RETURN(Shape c, ArrayOperand(instr, 2));
  if (instr.opcode() == Opcode::kSelect) {
    if (a.dtype() != DType::kPred)
      return InvalidArgument("select predicate must be pred, got {}", ShapeText(a));
    if (!SameShapeIgnoringFpPrecision(b, c))
      return InvalidArgument("select branch shapes {} and {} do not match", ShapeText(b),
                             ShapeText(c));
    if (a.rank() != 0 && !SameDims(a, b))
      return InvalidArgument("select predicate shape {} does not match branch shape {}",
                             ShapeText(a), ShapeText(b));
    return b;
  }
  // clamp(min, operand, max): min and max are scalars or have the operand's shape.
  for (const Shape* bound : {&a, &c}) {
    if (!SameTypeIgnoringFpPrecision(bound->dtype(), b.dtype()))
      return InvalidArgument("clamp bound {} does not match operand type {}", ShapeText(*bound),
                             ShapeText(b));
    if (bound->rank() != 0 && !SameDims(*bound, b))
      return InvalidArgument("clamp bound shape {} must be a scalar or match operand shape {}",
                             ShapeText(*bound), ShapeText(b));
  }
  return b;
}

}  // namespace

StatusOr<Shape> InferElementwise(const Instruction& instr) {
  switch (OpcodeKind(instr.opcode())) {
    case OpKind::kUnary: return InferUnary(instr);
    case OpKind::kBinary: return InferBinary(instr);
    case OpKind::kTernary: return InferTernary(instr);
    default: return Internal("{} is not elementwise", OpcodeName(instr.opcode()));
  }
}

// ---- Data movement -------------------------------------------------------------------------

namespace {

// The declared shape, required to be an array (ops whose result dims are not derivable).
StatusOr<Shape> DeclaredArray(const Instruction& instr) {
  if (!instr.shape().IsArray())
    return InvalidArgument("{} must produce an array, got {}", OpcodeName(instr.opcode()),
                           ShapeText(instr.shape()));
  return StripLayout(instr.shape());
}

int64_t StaticElementCount(const Shape& s, bool* unknown) {
  int64_t n = 1;
  for (int64_t d : s.dims()) {
    if (d < 0) {
      *unknown = true;
      return 0;
    }
    if (__builtin_mul_overflow(n, d, &n)) {
      *unknown = true;
      return 0;
    }
  }
  return n;
}

StatusOr<Shape> InferBroadcast(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 1));
  ASSIGN_OR_RETURN(Shape operand, ArrayOperand(instr, 0));
  ASSIGN_OR_RETURN(Shape out, DeclaredArray(instr));
  const std::vector<int64_t>& dims = instr.dimensions();
  if (static_cast<int64_t>(dims.size()) != operand.rank())
    return InvalidArgument("broadcast dimensions {{{}}} must list one output dimension per operand "
                           "dimension (operand rank {})", fmt::join(dims, ","), operand.rank());
  RETURN_IF_ERROR(CheckDimList(dims, out.rank(), "broadcast dimension"));
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (operand.dim(i) != out.dim(dims[i]) && operand.dim(i) != Shape::kUnbounded)
      return InvalidArgument("broadcast operand dimension {} (size {}) does not match output "
                             "dimension {} (size {})", i, operand.dim(i), dims[i], out.dim(dims[i]));
  }
  out.set_dtype(operand.dtype());
  return out;
}

StatusOr<Shape> InferReshape(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 1));
  ASSIGN_OR_RETURN(Shape operand, ArrayOperand(instr, 0));
  ASSIGN_OR_RETURN(Shape out, DeclaredArray(instr));
  bool unknown = false;
  int64_t a = StaticElementCount(operand, &unknown), b = StaticElementCount(out, &unknown);
  if (!unknown && a != b)
    return InvalidArgument("reshape from {} to {} changes the element count ({} vs {})",
                           ShapeText(operand), ShapeText(out), a, b);
  out.set_dtype(operand.dtype());
  return out;
}

StatusOr<Shape> InferBitcast(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 1));
  ASSIGN_OR_RETURN(const Instruction* op, Operand(instr, 0));
  const Shape& declared = instr.shape();
  // XLA's default (layout-insensitive) verifier lets an array bitcast change the byte size (its
  // evaluator copies the leading bytes of the operand into a smaller result), so any array-to-
  // array bitcast is valid; what runs is the interpreter's business (a larger result is
  // unsupported there, exit 3).
  if (op->shape().IsArray() && declared.IsArray()) return StripLayout(declared);
  if (!SameShape(op->shape(), declared))
    return InvalidArgument("bitcast from {} to {} is not an array bitcast",
                           ShapeText(op->shape()), ShapeText(declared));
  return StripLayout(declared);
}

StatusOr<Shape> InferBitcastConvert(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 1));
  ASSIGN_OR_RETURN(Shape operand, ArrayOperand(instr, 0));
  ASSIGN_OR_RETURN(Shape declared, DeclaredArray(instr));
  DType from = operand.dtype(), to = declared.dtype();
  if (IsComplex(from) != IsComplex(to) && (IsComplex(from) || IsComplex(to)) &&
      DTypeBitWidth(from) != DTypeBitWidth(to))
    return InvalidArgument("bitcast-convert between {} and {} is not supported", DTypeName(from),
                           DTypeName(to));
  int in_bits = DTypeBitWidth(from), out_bits = DTypeBitWidth(to);
  Shape out = operand;
  out.set_dtype(to);
  if (in_bits == out_bits) return out;
  if (in_bits > out_bits) {
    if (in_bits % out_bits != 0)
      return InvalidArgument("bitcast-convert from {} to {}: bit widths do not divide",
                             DTypeName(from), DTypeName(to));
    out.mutable_dims().push_back(in_bits / out_bits);
    Shape fresh(to, out.dims());
    for (int64_t i = 0; i < operand.rank(); ++i)
      if (operand.is_dynamic_dim(i)) fresh.set_dynamic_dim(i, true);
    return fresh;
  }
  if (out_bits % in_bits != 0)
    return InvalidArgument("bitcast-convert from {} to {}: bit widths do not divide",
                           DTypeName(from), DTypeName(to));
  int64_t ratio = out_bits / in_bits;
  if (operand.rank() == 0 || operand.dim(operand.rank() - 1) != ratio)
    return InvalidArgument("bitcast-convert from {} to {} needs a minor dimension of size {}",
                           ShapeText(operand), DTypeName(to), ratio);
  std::vector<int64_t> dims(operand.dims().begin(), operand.dims().end() - 1);
  Shape fresh(to, dims);
  for (int64_t i = 0; i + 1 < operand.rank(); ++i)
    if (operand.is_dynamic_dim(i)) fresh.set_dynamic_dim(i, true);
  return fresh;
}

StatusOr<Shape> InferTranspose(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 1));
  ASSIGN_OR_RETURN(Shape operand, ArrayOperand(instr, 0));
  const std::vector<int64_t>& perm = instr.dimensions();
  if (static_cast<int64_t>(perm.size()) != operand.rank())
    return InvalidArgument("transpose dimensions {{{}}} are not a permutation of rank {}",
                           fmt::join(perm, ","), operand.rank());
  RETURN_IF_ERROR(CheckDimList(perm, operand.rank(), "transpose dimension"));
  Shape out(operand.dtype(), {});
  for (int64_t p : perm) out.mutable_dims().push_back(operand.dim(p));
  for (int64_t i = 0; i < operand.rank(); ++i)
    if (operand.is_dynamic_dim(perm[i])) out.set_dynamic_dim(i, true);
  return out;
}

StatusOr<Shape> InferSlice(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 1));
  ASSIGN_OR_RETURN(Shape operand, ArrayOperand(instr, 0));
  const SliceSpec* spec = instr.attr<SliceSpec>(AttrId::kSlice);
  if (!spec) return InvalidArgument("missing attribute slice");
  int64_t rank = operand.rank();
  if (static_cast<int64_t>(spec->starts.size()) != rank ||
      static_cast<int64_t>(spec->limits.size()) != rank ||
      (!spec->strides.empty() && static_cast<int64_t>(spec->strides.size()) != rank))
    return InvalidArgument("slice has {} entries but the operand has rank {}", spec->starts.size(),
                           rank);
  Shape out = operand;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t start = spec->starts[i], limit = spec->limits[i];
    int64_t stride = spec->strides.empty() ? 1 : spec->strides[i];
    if (stride < 1) return InvalidArgument("slice stride {} in dimension {} must be positive", stride, i);
    bool unbounded = operand.dim(i) < 0;
    if (start < 0 || limit < start || (!unbounded && limit > operand.dim(i)))
      return InvalidArgument("slice [{}:{}] is out of bounds for dimension {} of size {}", start,
                             limit, i, operand.dim(i));
    out.set_dim(i, (limit - start + stride - 1) / stride);
    // XLA keeps the dynamic flag only for full slices of dynamic dimensions.
  }
  return out;
}

StatusOr<Shape> InferDynamicSlice(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectMinOperandCount(instr, 2));
  ASSIGN_OR_RETURN(Shape operand, ArrayOperand(instr, 0));
  int64_t rank = operand.rank();
  int64_t num_indices = instr.operand_count() - 1;
  // The legacy form (XLA's parser and shape inference): one rank-1 index operand holding every
  // start index, chosen by that operand's rank, so a rank-1 operand may take an s32[1] too.
  ASSIGN_OR_RETURN(Shape first_index, ArrayOperand(instr, 1));
  if (num_indices == 1 && (rank != 1 || first_index.rank() == 1)) {
    const Shape& idx = first_index;
    if (idx.rank() != 1 || idx.dim(0) != rank || !IsInteger(idx.dtype()))
      return InvalidArgument("dynamic-slice start index {} must be an integer vector of {} elements",
                             ShapeText(idx), rank);
  } else {
    if (num_indices != rank)
      return InvalidArgument("dynamic-slice of a rank-{} operand needs {} start indices, got {}",
                             rank, rank, num_indices);
    for (int64_t i = 1; i <= num_indices; ++i) {
      ASSIGN_OR_RETURN(Shape idx, ArrayOperand(instr, i));
      if (idx.rank() != 0 || !IsInteger(idx.dtype()))
        return InvalidArgument("dynamic-slice start index {} must be an integer scalar, got {}",
                               i - 1, ShapeText(idx));
    }
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> sizes, RequiredInts(instr, AttrId::kDynamicSliceSizes));
  if (static_cast<int64_t>(sizes.size()) != rank)
    return InvalidArgument("dynamic_slice_sizes has {} entries but the operand has rank {}",
                           sizes.size(), rank);
  Shape out(operand.dtype(), sizes);
  for (int64_t i = 0; i < rank; ++i) {
    if (sizes[i] < 0 || (operand.dim(i) >= 0 && sizes[i] > operand.dim(i)))
      return InvalidArgument("dynamic_slice_sizes[{}] = {} is out of bounds for dimension size {}",
                             i, sizes[i], operand.dim(i));
  }
  return out;
}

StatusOr<Shape> InferDynamicUpdateSlice(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectMinOperandCount(instr, 3));
  ASSIGN_OR_RETURN(Shape operand, ArrayOperand(instr, 0));
  ASSIGN_OR_RETURN(Shape update, ArrayOperand(instr, 1));
  int64_t rank = operand.rank();
  if (update.rank() != rank)
    return InvalidArgument("dynamic-update-slice update {} must have the operand's rank {}",
                           ShapeText(update), rank);
  if (!SameTypeIgnoringFpPrecision(update.dtype(), operand.dtype()))
    return InvalidArgument("dynamic-update-slice update type {} does not match operand type {}",
                           DTypeName(update.dtype()), DTypeName(operand.dtype()));
  for (int64_t i = 0; i < rank; ++i)
    if (operand.dim(i) >= 0 && update.dim(i) > operand.dim(i))
      return InvalidArgument("dynamic-update-slice update {} does not fit in operand {}",
                             ShapeText(update), ShapeText(operand));
  int64_t num_indices = instr.operand_count() - 2;
  ASSIGN_OR_RETURN(Shape first_index, ArrayOperand(instr, 2));
  if (num_indices == 1 && (rank != 1 || first_index.rank() == 1)) {
    const Shape& idx = first_index;
    if (idx.rank() != 1 || idx.dim(0) != rank || !IsInteger(idx.dtype()))
      return InvalidArgument("dynamic-update-slice start index {} must be an integer vector of {} "
                             "elements", ShapeText(idx), rank);
  } else {
    if (num_indices != rank)
      return InvalidArgument("dynamic-update-slice of a rank-{} operand needs {} start indices, "
                             "got {}", rank, rank, num_indices);
    for (int64_t i = 2; i < instr.operand_count(); ++i) {
      ASSIGN_OR_RETURN(Shape idx, ArrayOperand(instr, i));
      if (idx.rank() != 0 || !IsInteger(idx.dtype()))
        return InvalidArgument("dynamic-update-slice start index {} must be an integer scalar, "
                               "got {}", i - 2, ShapeText(idx));
    }
  }
  return operand;
}

StatusOr<Shape> InferPad(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 2));
  ASSIGN_OR_RETURN(Shape operand, ArrayOperand(instr, 0));
  ASSIGN_OR_RETURN(Shape value, ArrayOperand(instr, 1));
  if (value.rank() != 0)
    return InvalidArgument("pad value must be a scalar, got {}", ShapeText(value));
  if (!SameTypeIgnoringFpPrecision(value.dtype(), operand.dtype()))
    return InvalidArgument("pad value type {} does not match operand type {}",
                           DTypeName(value.dtype()), DTypeName(operand.dtype()));
  const PaddingConfig* cfg = instr.attr<PaddingConfig>(AttrId::kPadding);
  if (!cfg) return InvalidArgument("missing attribute padding");
  if (static_cast<int64_t>(cfg->dims.size()) != operand.rank())
    return InvalidArgument("padding has {} dimensions but the operand has rank {}",
                           cfg->dims.size(), operand.rank());
  Shape out = operand;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    const PaddingDim& p = cfg->dims[i];
    int64_t d = operand.dim(i);
    if (d < 0) continue;
    if (p.interior < 0) return InvalidArgument("interior padding {} must be non-negative", p.interior);
    ASSIGN_OR_RETURN(int64_t interior, CheckedMul(d > 0 ? d - 1 : 0, p.interior));
    int64_t size;
    if (__builtin_add_overflow(d, interior, &size) || __builtin_add_overflow(size, p.low, &size) ||
        __builtin_add_overflow(size, p.high, &size))
      return InvalidArgument("padded dimension {} overflows", i);
    if (size < 0)
      return InvalidArgument("padding {}_{} makes dimension {} negative", p.low, p.high, i);
    out.set_dim(i, size);
  }
  return out;
}

StatusOr<Shape> InferConcatenate(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectMinOperandCount(instr, 1));
  const std::vector<int64_t>& dims = instr.dimensions();
  if (dims.size() != 1)
    return InvalidArgument("concatenate needs exactly one dimension in dimensions, got {}",
                           dims.size());
  ASSIGN_OR_RETURN(Shape out, ArrayOperand(instr, 0));
  int64_t d = dims[0];
  if (d < 0 || d >= out.rank())
    return InvalidArgument("concatenate dimension {} out of range for rank {}", d, out.rank());
  for (int64_t i = 1; i < instr.operand_count(); ++i) {
    ASSIGN_OR_RETURN(Shape s, ArrayOperand(instr, i));
    bool ok = s.rank() == out.rank() && SameTypeIgnoringFpPrecision(s.dtype(), out.dtype());
    for (int64_t k = 0; ok && k < s.rank(); ++k)
      ok = k == d || s.dim(k) == out.dim(k);
    if (!ok)
      return InvalidArgument("concatenate operand {} has shape {}, incompatible with {} along "
                             "dimension {}", i, ShapeText(s), ShapeText(instr.operand(0)->shape()), d);
    if (s.dim(d) < 0 || out.dim(d) < 0) {
      out.set_dim(d, Shape::kUnbounded);
      out.set_dynamic_dim(d, true);
    } else if (__builtin_add_overflow(out.dim(d), s.dim(d), &out.mutable_dims()[d])) {
      return InvalidArgument("concatenated dimension overflows");
    }
    if (s.is_dynamic_dim(d)) out.set_dynamic_dim(d, true);
  }
  return out;
}

StatusOr<Shape> InferReverse(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 1));
  ASSIGN_OR_RETURN(Shape operand, ArrayOperand(instr, 0));
  RETURN_IF_ERROR(CheckDimList(instr.dimensions(), operand.rank(), "reverse dimension"));
  return operand;
}

StatusOr<Shape> InferTuple(const Instruction& instr) {
  std::vector<Shape> elements;
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    ASSIGN_OR_RETURN(const Instruction* op, Operand(instr, i));
    elements.push_back(StripLayout(op->shape()));
  }
  return Shape::Tuple(std::move(elements));
}

StatusOr<Shape> InferGetTupleElement(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 1));
  const Shape& t = instr.operand(0)->shape();
  if (!t.IsTuple())
    return InvalidArgument("get-tuple-element operand must be a tuple, got {}", ShapeText(t));
  ASSIGN_OR_RETURN(int64_t index, RequiredInt(instr, AttrId::kIndex));
  if (index < 0 || index >= t.tuple_size())
    return InvalidArgument("tuple index {} out of range for {}", index, ShapeText(t));
  return StripLayout(t.tuple_shape(index));
}

StatusOr<Shape> InferIota(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 0));
  ASSIGN_OR_RETURN(Shape out, DeclaredArray(instr));
  if (out.rank() == 0) return InvalidArgument("iota must have rank at least 1");
  ASSIGN_OR_RETURN(int64_t d, RequiredInt(instr, AttrId::kIotaDimension));
  if (d < 0 || d >= out.rank())
    return InvalidArgument("iota_dimension {} out of range for rank {}", d, out.rank());
  return out;
}

StatusOr<Shape> InferConstant(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 0));
  if (instr.literal() == nullptr) return InvalidArgument("constant has no literal");
  return StripLayout(instr.literal()->shape());
}

StatusOr<Shape> InferParameter(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 0));
  if (instr.parameter_number() < 0) return InvalidArgument("parameter has no number");
  return StripLayout(instr.shape());
}

StatusOr<Shape> InferGetDimensionSize(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 1));
  ASSIGN_OR_RETURN(Shape operand, ArrayOperand(instr, 0));
  const std::vector<int64_t>& dims = instr.dimensions();
  if (dims.size() != 1) return InvalidArgument("get-dimension-size needs one dimension in dimensions");
  RETURN_IF_ERROR(CheckDimList(dims, operand.rank(), "dimension"));
  return Shape::Scalar(DType::kS32);
}

StatusOr<Shape> InferSetDimensionSize(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 2));
  ASSIGN_OR_RETURN(Shape operand, ArrayOperand(instr, 0));
  ASSIGN_OR_RETURN(Shape size, ArrayOperand(instr, 1));
  if (size.rank() != 0 || size.dtype() != DType::kS32)
    return InvalidArgument("set-dimension-size size must be s32[], got {}", ShapeText(size));
  const std::vector<int64_t>& dims = instr.dimensions();
  if (dims.size() != 1) return InvalidArgument("set-dimension-size needs one dimension in dimensions");
  RETURN_IF_ERROR(CheckDimList(dims, operand.rank(), "dimension"));
  operand.set_dynamic_dim(dims[0], true);
  return operand;
}

StatusOr<Shape> InferDynamicReshape(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectMinOperandCount(instr, 1));
  ASSIGN_OR_RETURN(Shape operand, ArrayOperand(instr, 0));
  ASSIGN_OR_RETURN(Shape out, DeclaredArray(instr));
  if (instr.operand_count() - 1 != out.rank())
    return InvalidArgument("dynamic-reshape to rank {} needs {} size operands, got {}", out.rank(),
                           out.rank(), instr.operand_count() - 1);
  for (int64_t i = 1; i < instr.operand_count(); ++i) {
    ASSIGN_OR_RETURN(Shape s, ArrayOperand(instr, i));
    if (s.rank() != 0 || !IsInteger(s.dtype()))
      return InvalidArgument("dynamic-reshape size operand {} must be an integer scalar", i);
  }
  out.set_dtype(operand.dtype());
  return out;
}

}  // namespace

StatusOr<Shape> InferDataMovement(const Instruction& instr) {
  switch (instr.opcode()) {
    case Opcode::kBroadcast: return InferBroadcast(instr);
    case Opcode::kReshape: return InferReshape(instr);
    case Opcode::kBitcast: return InferBitcast(instr);
    case Opcode::kBitcastConvert: return InferBitcastConvert(instr);
    case Opcode::kTranspose: return InferTranspose(instr);
    case Opcode::kSlice: return InferSlice(instr);
    case Opcode::kDynamicSlice: return InferDynamicSlice(instr);
    case Opcode::kDynamicUpdateSlice: return InferDynamicUpdateSlice(instr);
    case Opcode::kPad: return InferPad(instr);
    case Opcode::kConcatenate: return InferConcatenate(instr);
    case Opcode::kReverse: return InferReverse(instr);
    case Opcode::kTuple: return InferTuple(instr);
    case Opcode::kGetTupleElement: return InferGetTupleElement(instr);
    case Opcode::kIota: return InferIota(instr);
    case Opcode::kConstant: return InferConstant(instr);
    case Opcode::kParameter: return InferParameter(instr);
    case Opcode::kGetDimensionSize: return InferGetDimensionSize(instr);
    case Opcode::kSetDimensionSize: return InferSetDimensionSize(instr);
    case Opcode::kDynamicReshape: return InferDynamicReshape(instr);
    default: return Unimplemented("no data-movement rule for {}", OpcodeName(instr.opcode()));
  }
}

}  // namespace shape_inference

StatusOr<Shape> InferShape(const Instruction& instr) {
  using namespace shape_inference;
  Opcode op = instr.opcode();
  if (IsElementwiseOpcode(op)) return InferElementwise(instr);
  switch (op) {
    case Opcode::kBroadcast: case Opcode::kReshape: case Opcode::kBitcast:
    case Opcode::kBitcastConvert: case Opcode::kTranspose: case Opcode::kSlice:
    case Opcode::kDynamicSlice: case Opcode::kDynamicUpdateSlice: case Opcode::kPad:
    case Opcode::kConcatenate: case Opcode::kReverse: case Opcode::kTuple:
    case Opcode::kGetTupleElement: case Opcode::kIota: case Opcode::kConstant:
    case Opcode::kParameter: case Opcode::kGetDimensionSize: case Opcode::kSetDimensionSize:
    case Opcode::kDynamicReshape:
      return InferDataMovement(instr);
    case Opcode::kReduce: case Opcode::kReduceWindow: case Opcode::kSelectAndScatter:
    case Opcode::kDot: case Opcode::kConvolution: case Opcode::kGather: case Opcode::kScatter:
    case Opcode::kSort: case Opcode::kFft: case Opcode::kCholesky: case Opcode::kTriangularSolve:
    case Opcode::kRng: case Opcode::kRngBitGenerator: case Opcode::kRngGetAndUpdateState:
    case Opcode::kBatchNormTraining: case Opcode::kBatchNormInference:
    case Opcode::kBatchNormGrad: case Opcode::kTopK: case Opcode::kStochasticConvert:
    case Opcode::kMap: case Opcode::kRaggedDot: case Opcode::kScaledDot: case Opcode::kScan:
    case Opcode::kShuffle:
      return InferCompute(instr);
    case Opcode::kCustomCall:
      // Annotations are their operand (XLA's Sharding, shard barriers and layout constraints are
      // identities; layouts are not compared); any other target's shape is its own.
      if (const std::string& target = instr.string_attr(AttrId::kCustomCallTarget);
          (target == "Sharding" || target == "ShardBarrierFrom" || target == "ShardBarrierTo" ||
           target == "LayoutConstraint") &&
          instr.operand_count() == 1)
        return instr.operand(0)->shape();
      // XLA's TopK custom call: (values, s32 indices) of the operand's dims with the last one
      // k (which only the declared shape gives), values of the operand's type.
      if (instr.string_attr(AttrId::kCustomCallTarget) == "TopK" && instr.operand_count() == 1 &&
          instr.operand(0)->shape().IsArray() && !instr.operand(0)->shape().dims().empty() &&
          instr.shape().IsTuple() && instr.shape().tuple_size() == 2 &&
          instr.shape().tuple_shapes()[0].IsArray() && !instr.shape().tuple_shapes()[0].dims().empty()) {
        const Shape& in = instr.operand(0)->shape();
        std::vector<int64_t> dims = in.dims();
        dims.back() = instr.shape().tuple_shapes()[0].dims().back();
        return Shape::Tuple({Shape(in.dtype(), dims), Shape(DType::kS32, dims)});
      }
      return Unimplemented("custom-call shapes are not inferred");
    default:
      return InferControl(instr);
  }
}

}  // namespace spmdc
