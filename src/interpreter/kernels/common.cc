#include "interpreter/kernels/common.h"

#include <dlfcn.h>

#include <thread>

namespace spmdc::kernels {

namespace {

// The parameter number of `i` if it is a parameter of `comp` with a scalar shape, else -1.
int64_t ScalarParam(const Instruction* i) {
  if (i->opcode() != Opcode::kParameter || !i->shape().IsArray() || i->shape().rank() != 0)
    return -1;
  return i->parameter_number();
}

}  // namespace

BinOp RecognizeBinary(const Computation* comp) {
  if (comp == nullptr || comp->num_parameters() != 2) return BinOp::kNone;
  const Instruction* p0 = comp->parameter(0);
  const Instruction* p1 = comp->parameter(1);
  if (!p0->shape().IsArray() || p0->shape().rank() != 0 || !(p0->shape() == p1->shape()))
    return BinOp::kNone;
  const Instruction* root = comp->root();
  if (root == nullptr || !(root->shape() == p0->shape())) return BinOp::kNone;
  if (root->opcode() == Opcode::kParameter) {
    return root->parameter_number() == 0 ? BinOp::kTakeOld : BinOp::kTakeNew;
  }
  if (root->operand_count() != 2) return BinOp::kNone;
  int64_t a = ScalarParam(root->operand(0)), b = ScalarParam(root->operand(1));
  if (!((a == 0 && b == 1) || (a == 1 && b == 0))) return BinOp::kNone;
  switch (root->opcode()) {
    case Opcode::kAdd: return BinOp::kAdd;
    case Opcode::kMultiply: return BinOp::kMul;
    case Opcode::kMaximum: return BinOp::kMax;
    case Opcode::kMinimum: return BinOp::kMin;
    case Opcode::kAnd: return BinOp::kAnd;
    case Opcode::kOr: return BinOp::kOr;
    case Opcode::kXor: return BinOp::kXor;
    default: return BinOp::kNone;
  }
}

bool BinOpSupported(BinOp op, DType t) {
  if (op == BinOp::kNone || !IsArrayType(t)) return false;
  if (op == BinOp::kTakeOld || op == BinOp::kTakeNew) return true;
  if (IsComplex(t)) return op == BinOp::kAdd || op == BinOp::kMul;
  if (IsFloat(t)) return op != BinOp::kAnd && op != BinOp::kOr && op != BinOp::kXor;
  return true;
}

Comparator RecognizeComparator(const Computation* comp) {
  Comparator c;
  if (comp == nullptr || comp->num_parameters() % 2 != 0 || comp->num_parameters() == 0) return c;
  const Instruction* root = comp->root();
  if (root == nullptr || root->opcode() != Opcode::kCompare) return c;
  int64_t a = ScalarParam(root->operand(0)), b = ScalarParam(root->operand(1));
  if (a < 0 || b < 0 || a / 2 != b / 2 || a == b) return c;
  // Both parameters of a pair must have the same dtype (the verifier ensures it).
  DType t = root->operand(0)->shape().dtype();
  if (IsComplex(t)) return c;
  const std::string& dir = root->string_attr(AttrId::kDirection);
  CmpDir d;
  if (dir == "LT") d = CmpDir::kLt;
  else if (dir == "GT") d = CmpDir::kGt;
  else if (dir == "LE") d = CmpDir::kLe;
  else if (dir == "GE") d = CmpDir::kGe;
  else if (dir == "EQ") d = CmpDir::kEq;
  else if (dir == "NE") d = CmpDir::kNe;
  else return c;
  if (a > b) {  // compare(p[2k+1], p[2k]): swap the direction.
    switch (d) {
      case CmpDir::kLt: d = CmpDir::kGt; break;
      case CmpDir::kGt: d = CmpDir::kLt; break;
      case CmpDir::kLe: d = CmpDir::kGe; break;
      case CmpDir::kGe: d = CmpDir::kLe; break;
      default: break;
    }
  }
  c.recognised = true;
  c.operand = static_cast<int>(std::min(a, b) / 2);
  c.dir = d;
  c.total_order = root->string_attr(AttrId::kCompareType) == "TOTALORDER";
  return c;
}

Literal ScalarAt(const Literal& src, int64_t i) {
  Literal out(Shape::Scalar(src.shape().dtype()));
  int bytes = DTypeByteSize(src.shape().dtype());
  std::memcpy(out.mutable_raw(), src.raw() + i * bytes, bytes);
  return out;
}

void SetFromScalar(Literal& dst, int64_t i, const Literal& value) {
  int bytes = DTypeByteSize(dst.shape().dtype());
  std::memcpy(dst.mutable_raw() + i * bytes, value.raw(), bytes);
}

std::vector<const Literal*> Leaves(const Literal& l) {
  std::vector<const Literal*> out;
  if (l.shape().IsTuple()) {
    for (const Literal& e : l.elements()) out.push_back(&e);
  } else {
    out.push_back(&l);
  }
  return out;
}

StatusOr<Literal> AllocateResult(const Shape& shape, const KernelContext& ctx, bool overwrite) {
  if (shape.byte_size() > ctx.max_value_bytes) {
    return InvalidArgument("value of shape {} ({} bytes) exceeds the limit of {} bytes",
                           shape.ToString(false), shape.byte_size(), ctx.max_value_bytes);
  }
  if (overwrite && shape.IsArray()) return Literal::ForOverwrite(shape);
  return Literal(shape);
}

void SetIntraOpThreads(const KernelContext& ctx) {
  SetOmpThreads(ctx.intra_op_threads > 0 ? ctx.intra_op_threads
                                         : static_cast<int>(std::thread::hardware_concurrency()));
}

void SetOmpThreads(int n) {
  // libdnnl is built on OpenMP (libgomp); the setting is per calling thread. Looked up at run
  // time so that this library does not need to link OpenMP itself.
  using SetFn = void (*)(int);
  static SetFn set_fn = reinterpret_cast<SetFn>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  if (set_fn == nullptr) return;
  set_fn(std::max(n, 1));
}

void ParallelFor(int64_t n, int64_t work, const KernelContext& ctx,
                 const std::function<void(int64_t, int64_t)>& f) {
  int64_t threads = ctx.intra_op_threads > 0
                        ? ctx.intra_op_threads
                        : static_cast<int64_t>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::min<int64_t>({threads, n, std::max<int64_t>(1, work >> 20)});
  if (threads <= 1) {
    if (n > 0) f(0, n);
    return;
  }
  std::vector<std::thread> pool;
  const int64_t chunk = (n + threads - 1) / threads;
  for (int64_t t = 1; t < threads; ++t) {
    const int64_t b = t * chunk, e = std::min(n, b + chunk);
    if (b < e) pool.emplace_back([&f, b, e] { f(b, e); });
  }
  f(0, std::min(n, chunk));
  for (std::thread& th : pool) th.join();
}

Literal ConvertLiteral(const Literal& in, DType t) {
  Shape s = in.shape();
  s.set_dtype(t);
  s.set_layout(std::nullopt);
  Literal out(s);
  int64_t n = in.num_elements();
  DType from = in.shape().dtype();
  if (from == t) return in;
  if (t == DType::kF32 && (from == DType::kBF16 || from == DType::kF16)) {
    const uint16_t* src = in.data<uint16_t>();
    float* dst = out.mutable_data<float>();
    if (from == DType::kBF16) {
      for (int64_t i = 0; i < n; ++i) dst[i] = BF16ToFloat(src[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) dst[i] = HalfToFloat(src[i]);
    }
    return out;
  }
  if (IsComplex(t)) {
    for (int64_t i = 0; i < n; ++i) out.SetComplex(i, in.GetComplex(i));
  } else if (IsFloat(t)) {
    for (int64_t i = 0; i < n; ++i) out.SetDouble(i, in.GetDouble(i));
  } else {
    for (int64_t i = 0; i < n; ++i) out.SetInt(i, in.GetInt(i));
  }
  return out;
}

}  // namespace spmdc::kernels
