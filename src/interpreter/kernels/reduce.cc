// reduce, reduce-window and select-and-scatter. Every output element combines its inputs in the
// order of XLA's evaluator (row-major over the reduced dims / window), starting from the init
// value; narrow types are rounded after every step, as the reducer computation would.
#include <algorithm>

#include "interpreter/kernels/common.h"

namespace spmdc {
namespace kernels {
namespace {

template <typename Tr>
inline typename Tr::Compute RoundStep(typename Tr::Compute c) {
  if constexpr (std::is_same_v<typename Tr::Storage, typename Tr::Compute>) {
    return c;
  } else {
    return Tr::Load(Tr::Store(c));
  }
}

// Calls `comp` on (accs..., xs...) and returns the leaves of its result.
StatusOr<std::vector<Literal>> CallCombiner(const KernelContext& ctx, const Computation& comp,
                                            std::vector<Literal> args, size_t n) {
  if (!ctx.call) return Unimplemented("kernel needs KernelContext::call for {}", comp.name());
  auto called = ctx.call(comp, args);
  if (!called.ok()) return called.status();
  Literal r = std::move(called).value();
  std::vector<Literal> out;
  if (r.shape().IsTuple()) {
    out = r.elements();
  } else {
    out.push_back(std::move(r));
  }
  if (out.size() != n) return InvalidArgument("{}: reducer returns {} values, expected {}",
                                              comp.name(), out.size(), n);
  for (size_t k = 0; k < n; ++k)
    if (!out[k].shape().IsArray() || out[k].shape().rank() != 0 ||
        out[k].shape().dtype() != args[k].shape().dtype())
      return InvalidArgument("{}: reducer result {} has the wrong type", comp.name(), k);
  return out;
}

// --- window geometry shared by reduce-window and select-and-scatter -------------------------
struct WindowGeom {
  int64_t rank = 0;
  std::vector<int64_t> out_dims, win_dims;
  // pos[i][o * W_i + w]: operand offset along dim i (times its stride), or -1 when the position
  // is padding or a base-dilation hole.
  std::vector<std::vector<int64_t>> pos;
  int64_t nwin = 0;
  std::vector<int64_t> wpos;  // nwin x rank window positions, row-major
};

StatusOr<WindowGeom> MakeWindowGeom(const Window* window, const std::vector<int64_t>& in_dims,
                                    const std::vector<int64_t>& out_dims) {
  WindowGeom g;
  g.rank = static_cast<int64_t>(in_dims.size());
  if (static_cast<int64_t>(out_dims.size()) != g.rank)
    return InvalidArgument("window op: output rank differs from operand rank");
  std::vector<WindowDim> wd(g.rank);
  if (window != nullptr) {
    if (static_cast<int64_t>(window->dims.size()) != g.rank)
      return InvalidArgument("window op: window rank differs from operand rank");
    wd = window->dims;
  }
  g.out_dims = out_dims;
  std::vector<int64_t> strides = RowMajorStrides(in_dims);
  g.pos.resize(g.rank);
  for (int64_t i = 0; i < g.rank; ++i) {
    if (wd[i].size < 0 || wd[i].stride < 1 || wd[i].window_dilation < 1 || wd[i].base_dilation < 1)
      return InvalidArgument("window op: invalid window");
    g.win_dims.push_back(wd[i].size);
    const int64_t eff = wd[i].size == 0 ? 0 : (wd[i].size - 1) * wd[i].window_dilation + 1;
    const int64_t dilated = in_dims[i] == 0 ? 0 : (in_dims[i] - 1) * wd[i].base_dilation + 1;
    const int64_t padded = dilated + wd[i].padding_low + wd[i].padding_high;
    const int64_t expect = padded < eff ? 0 : (padded - eff) / wd[i].stride + 1;
    if (expect != out_dims[i])
      return InvalidArgument("window op: output size {} of dim {} differs from the window count {}",
                             out_dims[i], i, expect);
    g.pos[i].assign(out_dims[i] * wd[i].size, -1);
    for (int64_t o = 0; o < out_dims[i]; ++o) {
      for (int64_t w = 0; w < wd[i].size; ++w) {
        int64_t p = o * wd[i].stride + w * wd[i].window_dilation - wd[i].padding_low;
        if (wd[i].base_dilation > 1) {
          if (p % wd[i].base_dilation != 0) continue;
          p /= wd[i].base_dilation;
        }
        if (p < 0 || p >= in_dims[i]) continue;
        g.pos[i][o * wd[i].size + w] = p * strides[i];
      }
    }
  }
  g.nwin = Product(g.win_dims);
  g.wpos.resize(g.nwin * g.rank);
  std::vector<int64_t> w(g.rank, 0);
  for (int64_t j = 0; j < g.nwin; ++j) {
    std::copy(w.begin(), w.end(), g.wpos.begin() + j * g.rank);
    NextIndex(w, g.win_dims);
  }
  return g;
}

// Calls f(operand_linear_index) for each in-bounds window element of output index `o`.
template <typename F>
inline void ForEachInWindow(const WindowGeom& g, const std::vector<int64_t>& o, F&& f) {
  for (int64_t j = 0; j < g.nwin; ++j) {
    const int64_t* w = &g.wpos[j * g.rank];
    int64_t off = 0;
    bool ok = true;
    for (int64_t i = 0; i < g.rank; ++i) {
      int64_t p = g.pos[i][o[i] * g.win_dims[i] + w[i]];
      if (p < 0) { ok = false; break; }
      off += p;
    }
    if (ok) f(off);
  }
}

}  // namespace
}  // namespace kernels

// ---------------------------------------------------------------------------------------------
StatusOr<Literal> ReduceKernel(const Instruction& reduce, const std::vector<Literal>& operands,
                               const KernelContext& ctx) {
  using namespace kernels;
  if (operands.empty() || operands.size() % 2 != 0)
    return InvalidArgument("reduce: expects inputs and as many init values");
  const size_t n = operands.size() / 2;
  const Computation* comp = reduce.to_apply();
  if (comp == nullptr) return InvalidArgument("reduce: missing to_apply");
  const Shape& in_shape = operands[0].shape();
  const std::vector<int64_t>& in_dims = in_shape.dims();
  const int64_t rank = in_shape.rank();
  std::vector<bool> reduced(rank, false);
  for (int64_t d : reduce.dimensions()) {
    if (d < 0 || d >= rank || reduced[d]) return InvalidArgument("reduce: bad dimensions");
    reduced[d] = true;
  }
  std::vector<int64_t> out_dims, kept;
  for (int64_t d = 0; d < rank; ++d)
    if (!reduced[d]) { out_dims.push_back(in_dims[d]); kept.push_back(d); }
  for (size_t k = 0; k < n; ++k) {
    if (operands[k].shape().dims() != in_dims) return InvalidArgument("reduce: input dims differ");
    if (operands[n + k].shape().rank() != 0 ||
        operands[n + k].shape().dtype() != operands[k].shape().dtype())
      return InvalidArgument("reduce: init value {} must be a scalar of the input's type", k);
  }
  std::vector<Literal> outs;
  for (size_t k = 0; k < n; ++k) {
    ASSIGN_OR_RETURN(Literal o, AllocateResult(Shape(operands[k].shape().dtype(), out_dims), ctx));
    outs.push_back(std::move(o));
  }
  const int64_t n_out = Product(out_dims);
  const int64_t n_in = in_shape.num_elements();
  // Output stride of each input dim (0 for reduced dims).
  std::vector<int64_t> ostr(rank, 0);
  {
    std::vector<int64_t> s = RowMajorStrides(out_dims);
    for (size_t j = 0; j < kept.size(); ++j) ostr[kept[j]] = s[j];
  }
  // One input gives an array, unless the reducer returns a 1-tuple (then so does the op).
  auto pack = [&]() -> Literal {
    if (n == 1 && !reduce.shape().IsTuple()) return std::move(outs[0]);
    return Literal::Tuple(std::move(outs));
  };

  BinOp op = n == 1 ? RecognizeBinary(comp) : BinOp::kNone;
  if (op != BinOp::kNone && BinOpSupported(op, in_shape.dtype()) &&
      comp->parameter(0)->shape().dtype() == in_shape.dtype()) {
    DispatchDType(in_shape.dtype(), [&](auto tr) {
      using Tr = decltype(tr);
      using S = typename Tr::Storage;
      using C = typename Tr::Compute;
      std::vector<C> acc(n_out, Tr::Load(operands[1].data<S>()[0]));
      const S* x = operands[0].data<S>();
      if (n_in > 0) {
        if (rank == 0) {
          acc[0] = RoundStep<Tr>(ApplyBinOp<Tr>(op, acc[0], Tr::Load(x[0])));
        } else {
          const int64_t inner = in_dims[rank - 1];
          const int64_t inner_ostr = ostr[rank - 1];
          std::vector<int64_t> outer_dims(in_dims.begin(), in_dims.end() - 1);
          std::vector<int64_t> idx(rank - 1, 0);
          int64_t i = 0;
          do {
            int64_t o = 0;
            for (int64_t d = 0; d + 1 < rank; ++d) o += idx[d] * ostr[d];
            if (inner_ostr == 0) {
              C a = acc[o];
              for (int64_t j = 0; j < inner; ++j)
                a = RoundStep<Tr>(ApplyBinOp<Tr>(op, a, Tr::Load(x[i + j])));
              acc[o] = a;
            } else {
              for (int64_t j = 0; j < inner; ++j)
                acc[o + j] = RoundStep<Tr>(ApplyBinOp<Tr>(op, acc[o + j], Tr::Load(x[i + j])));
            }
            i += inner;
          } while (NextIndex(idx, outer_dims));
        }
      }
      S* dst = outs[0].template mutable_data<S>();
      for (int64_t k = 0; k < n_out; ++k) dst[k] = Tr::Store(acc[k]);
    });
    return pack();
  }

  // Generic: call the reducer for every element.
  std::vector<int64_t> red_dims;
  std::vector<int64_t> red_axes;
  for (int64_t d = 0; d < rank; ++d)
    if (reduced[d]) { red_dims.push_back(in_dims[d]); red_axes.push_back(d); }
  const int64_t n_red = Product(red_dims);
  std::vector<int64_t> in_strides = RowMajorStrides(in_dims);
  std::vector<int64_t> oidx(out_dims.size(), 0);
  for (int64_t o = 0; o < n_out; ++o) {
    int64_t base = 0;
    for (size_t j = 0; j < kept.size(); ++j) base += oidx[j] * in_strides[kept[j]];
    std::vector<Literal> acc;
    for (size_t k = 0; k < n; ++k) acc.push_back(operands[n + k]);
    std::vector<int64_t> ridx(red_dims.size(), 0);
    for (int64_t r = 0; r < n_red && n_in > 0; ++r) {
      int64_t off = base;
      for (size_t j = 0; j < red_axes.size(); ++j) off += ridx[j] * in_strides[red_axes[j]];
      std::vector<Literal> args = acc;
      for (size_t k = 0; k < n; ++k) args.push_back(ScalarAt(operands[k], off));
      ASSIGN_OR_RETURN(acc, CallCombiner(ctx, *comp, std::move(args), n));
      NextIndex(ridx, red_dims);
    }
    for (size_t k = 0; k < n; ++k) SetFromScalar(outs[k], o, acc[k]);
    NextIndex(oidx, out_dims);
  }
  return pack();
}

// ---------------------------------------------------------------------------------------------
StatusOr<Literal> ReduceWindowKernel(const Instruction& rw, const std::vector<Literal>& operands,
                                     const KernelContext& ctx) {
  using namespace kernels;
  if (operands.empty() || operands.size() % 2 != 0)
    return InvalidArgument("reduce-window: expects inputs and as many init values");
  const size_t n = operands.size() / 2;
  const Computation* comp = rw.to_apply();
  if (comp == nullptr) return InvalidArgument("reduce-window: missing to_apply");
  const Shape& out0 = rw.shape().IsTuple() ? rw.shape().tuple_shape(0) : rw.shape();
  const std::vector<int64_t>& in_dims = operands[0].shape().dims();
  ASSIGN_OR_RETURN(WindowGeom g, MakeWindowGeom(rw.attr<Window>(AttrId::kWindow), in_dims,
                                                out0.dims()));
  std::vector<Literal> outs;
  for (size_t k = 0; k < n; ++k) {
    if (operands[k].shape().dims() != in_dims)
      return InvalidArgument("reduce-window: input dims differ");
    if (operands[n + k].shape().rank() != 0 ||
        operands[n + k].shape().dtype() != operands[k].shape().dtype())
      return InvalidArgument("reduce-window: init value {} must be a scalar of the input's type", k);
    ASSIGN_OR_RETURN(Literal o, AllocateResult(Shape(operands[k].shape().dtype(), out0.dims()), ctx));
    outs.push_back(std::move(o));
  }
  auto pack = [&]() -> Literal {
    if (n == 1 && !rw.shape().IsTuple()) return std::move(outs[0]);
    return Literal::Tuple(std::move(outs));
  };
  const int64_t n_out = Product(out0.dims());
  const DType t = operands[0].shape().dtype();
  BinOp op = n == 1 ? RecognizeBinary(comp) : BinOp::kNone;
  std::vector<int64_t> oidx(g.rank, 0);
  if (op != BinOp::kNone && BinOpSupported(op, t) && comp->parameter(0)->shape().dtype() == t) {
    DispatchDType(t, [&](auto tr) {
      using Tr = decltype(tr);
      using S = typename Tr::Storage;
      using C = typename Tr::Compute;
      const S* x = operands[0].data<S>();
      const C init = Tr::Load(operands[1].data<S>()[0]);
      S* dst = outs[0].template mutable_data<S>();
      for (int64_t o = 0; o < n_out; ++o) {
        C acc = init;
        ForEachInWindow(g, oidx, [&](int64_t off) {
          acc = RoundStep<Tr>(ApplyBinOp<Tr>(op, acc, Tr::Load(x[off])));
        });
        dst[o] = Tr::Store(acc);
        NextIndex(oidx, g.out_dims);
      }
    });
    return pack();
  }
  for (int64_t o = 0; o < n_out; ++o) {
    std::vector<Literal> acc;
    for (size_t k = 0; k < n; ++k) acc.push_back(operands[n + k]);
    Status st = absl::OkStatus();
    ForEachInWindow(g, oidx, [&](int64_t off) {
      if (!st.ok()) return;
      std::vector<Literal> args = acc;
      for (size_t k = 0; k < n; ++k) args.push_back(ScalarAt(operands[k], off));
      auto r = CallCombiner(ctx, *comp, std::move(args), n);
      if (!r.ok()) { st = r.status(); return; }
      acc = std::move(r).value();
    });
    RETURN_IF_ERROR(st);
    for (size_t k = 0; k < n; ++k) SetFromScalar(outs[k], o, acc[k]);
    NextIndex(oidx, g.out_dims);
  }
  return pack();
}

// ---------------------------------------------------------------------------------------------
StatusOr<Literal> SelectAndScatterKernel(const Instruction& sas, const Literal& operand,
                                         const Literal& source, const Literal& init,
                                         const KernelContext& ctx) {
  using namespace kernels;
  const Computation* select = sas.computation_attr(AttrId::kSelect);
  const Computation* scatter = sas.computation_attr(AttrId::kScatter);
  if (select == nullptr || scatter == nullptr)
    return InvalidArgument("select-and-scatter: missing select or scatter computation");
  ASSIGN_OR_RETURN(WindowGeom g, MakeWindowGeom(sas.attr<Window>(AttrId::kWindow),
                                                operand.shape().dims(), source.shape().dims()));
  const DType t = operand.shape().dtype();
  if (source.shape().dtype() != t || init.shape().dtype() != t || init.shape().rank() != 0)
    return InvalidArgument("select-and-scatter: source and init must have the operand's type");
  Shape out_shape(t, operand.shape().dims());
  ASSIGN_OR_RETURN(Literal out, AllocateResult(out_shape, ctx));
  const int64_t n_out = out.num_elements();
  const int bytes = DTypeByteSize(t);
  for (int64_t i = 0; i < n_out; ++i)
    std::memcpy(out.mutable_raw() + i * bytes, init.raw(), bytes);
  const int64_t n_src = source.num_elements();
  std::vector<int64_t> sidx(g.rank, 0);
  Comparator cmp = RecognizeComparator(select);
  BinOp op = RecognizeBinary(scatter);
  const bool native = cmp.recognised && select->num_parameters() == 2 && op != BinOp::kNone &&
                      BinOpSupported(op, t) && source.shape().dtype() == t &&
                      select->parameter(0)->shape().dtype() == t;
  if (native) {
    DispatchDType(t, [&](auto tr) {
      using Tr = decltype(tr);
      using S = typename Tr::Storage;
      using C = typename Tr::Compute;
      if constexpr (!IsComplexT<C>::value) {
        const S* x = operand.data<S>();
        const S* src = source.data<S>();
        S* dst = out.template mutable_data<S>();
        for (int64_t s = 0; s < n_src; ++s) {
          int64_t sel = -1;
          C sel_v{};
          ForEachInWindow(g, sidx, [&](int64_t off) {
            C v = Tr::Load(x[off]);
            if (sel < 0 || !CompareValues<C>(cmp.dir, cmp.total_order, sel_v, v)) {
              sel = off;
              sel_v = v;
            }
          });
          if (sel >= 0)
            dst[sel] = Tr::Store(ApplyBinOp<Tr>(op, Tr::Load(dst[sel]), Tr::Load(src[s])));
          NextIndex(sidx, g.out_dims);
        }
      }
    });
    return out;
  }
  if (!ctx.call) return Unimplemented("select-and-scatter needs KernelContext::call");
  for (int64_t s = 0; s < n_src; ++s) {
    int64_t sel = -1;
    Literal sel_v;
    Status st = absl::OkStatus();
    ForEachInWindow(g, sidx, [&](int64_t off) {
      if (!st.ok()) return;
      Literal v = ScalarAt(operand, off);
      if (sel < 0) {
        sel = off;
        sel_v = std::move(v);
        return;
      }
      auto r = ctx.call(*select, {sel_v, v});
      if (!r.ok()) { st = r.status(); return; }
      if (r->shape().dtype() != DType::kPred || r->shape().rank() != 0) {
        st = InvalidArgument("select-and-scatter: select must return pred[]");
        return;
      }
      if (r->data<uint8_t>()[0] == 0) {
        sel = off;
        sel_v = std::move(v);
      }
    });
    RETURN_IF_ERROR(st);
    if (sel >= 0) {
      ASSIGN_OR_RETURN(Literal r, ctx.call(*scatter, {ScalarAt(out, sel), ScalarAt(source, s)}));
      if (r.shape().dtype() != t || r.shape().rank() != 0)
        return InvalidArgument("select-and-scatter: scatter must return a scalar of the operand's type");
      SetFromScalar(out, sel, r);
    }
    NextIndex(sidx, g.out_dims);
  }
  return out;
}

}  // namespace spmdc
