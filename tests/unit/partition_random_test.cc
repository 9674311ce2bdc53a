// Seeded random-program differential tester for the SPMD partitioner: generates small modules
// (uneven shapes, chains of elementwise / broadcast / transpose / reshape / reduce / dot / slice /
// pad / concatenate (rolls too) / reverse / sort (variadic with iota indices; sort + slice as
// top-k) / topk / dynamic-(update-)slice at out-of-range indices / convolution (grouped, filter
// gradients) / reduce-window / select-and-scatter ops, mixed-precision bf16 dots and convolutions
// with bf16 or f32 results, and in a second test gather / scatter
// with data-dependent, partly out-of-range indices; random shardings over random device counts
// and device orders),
// partitions them (PartitionModule + RunCleanup; a third of them after sharding propagation),
// runs them on N in-process devices and compares with the single-device interpreter.
//
// SPMDC_RANDOM_CASES=K runs K cases (default: a bounded number that keeps ctest fast);
// SPMDC_RANDOM_SEED=S picks the first seed (case i uses seed S+i). A failure prints the module.
// SPMDC_RANDOM_DUMP=DIR also writes each case that partitions and matches as
// DIR/KIND-seed-S-nN[-propagate].hlo (KIND: random or gather-scatter, the two generators; N
// devices; -propagate: partitioned after propagation), so that
// other runners (tests/mpi: `spmdc verify --backend mpi`) repeat the same differential cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <functional>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "fmt/format.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "interpreter/device_context.h"
#include "interpreter/interpreter.h"
#include "partitioner/partitioner.h"
#include "passes/passes.h"
#include "propagation/propagation.h"
#include "runtime/executor.h"
#include "sharding/sharding.h"

namespace spmdc {
namespace {

struct Value {
  std::string name;
  std::vector<int64_t> dims;
};

std::string ShapeText(const std::vector<int64_t>& dims) { return fmt::format("f32[{}]", fmt::join(dims, ",")); }

class Generator {
 public:
  // `devices` > 0 fixes the device count (else a random one).
  explicit Generator(uint64_t seed, bool gather_scatter = false, int64_t devices = 0)
      : rng_(seed), gather_scatter_(gather_scatter) {
    static const int64_t kDevices[] = {1, 2, 2, 3, 4, 4, 4, 6, 8, 8};
    n_ = kDevices[Rand(0, 9)];
    if (devices > 0) n_ = devices;
  }
  int64_t num_devices() const { return n_; }

  std::string Build() {
    std::string params;
    int64_t nparams = Rand(1, 2);
    for (int64_t i = 0; i < nparams; ++i) {
      std::vector<int64_t> dims = RandomDims(Rand(1, 3));
      std::string name = fmt::format("p{}", i);
      params += fmt::format("  %{} = {} parameter({}){}\n", name, ShapeText(dims), i, MaybeSharding(dims, 0.8));
      pool_.push_back({name, dims});
    }
    next_param_ = nparams;
    int64_t steps = Rand(3, 10);
    for (int64_t i = 0; i < steps; ++i) Step();
    // Root: the last value, sometimes with an earlier one.
    std::vector<std::string> outs = {pool_.back().name};
    root_dims_ = {pool_.back().dims};
    std::vector<std::string> shapes = {ShapeText(pool_.back().dims)};
    for (int64_t extra = Rand(0, 2); extra > 0 && pool_.size() > 2; --extra) {
      const Value& v = pool_[Rand(0, pool_.size() - 2)];
      outs.push_back(v.name);
      shapes.push_back(ShapeText(v.dims));
      root_dims_.push_back(v.dims);
    }
    std::string root = fmt::format("  ROOT %out = ({}) tuple({}){}\n", fmt::join(shapes, ", "),
                                   fmt::join(Prefixed(outs), ", "), RootSharding(outs.size(), shapes));
    std::string text = "HloModule random\n\n";
    text += "%add { %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n  ROOT %z = f32[] add(%x, %y) }\n";
    text += "%lt { %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n  ROOT %z = pred[] compare(%x, %y), direction=LT }\n";
    text += "%lt_index { %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n  %i = s32[] parameter(2)\n"
            "  %j = s32[] parameter(3)\n  ROOT %z = pred[] compare(%x, %y), direction=LT }\n";
    text += "%max { %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n  ROOT %z = f32[] maximum(%x, %y) }\n";
    text += "%ge { %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n  ROOT %z = pred[] compare(%x, %y), direction=GE }\n\n";
    text += "%set { %x = f32[] parameter(0)\n  ROOT %y = f32[] parameter(1) }\n";
    text += "%argmax { %a = f32[] parameter(0)\n  %ai = s32[] parameter(1)\n  %b = f32[] parameter(2)\n"
            "  %bi = s32[] parameter(3)\n  %gt = pred[] compare(%a, %b), direction=GE\n  %m = f32[] select(%gt, %a, %b)\n"
            "  %mi = s32[] select(%gt, %ai, %bi)\n  ROOT %t = (f32[], s32[]) tuple(%m, %mi) }\n";
    text += computations_;
    text += "ENTRY %main {\n" + params + extra_params_ + body_ + root + "}\n";
    return text;
  }

 private:
  int64_t Rand(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }
  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  static std::vector<std::string> Prefixed(const std::vector<std::string>& names) {
    std::vector<std::string> out;
    for (const auto& n : names) out.push_back("%" + n);
    return out;
  }
  std::vector<int64_t> RandomDims(int64_t rank) {
    std::vector<int64_t> dims;
    for (int64_t i = 0; i < rank; ++i) dims.push_back(Rand(1, 9));
    return dims;
  }

  // A random sharding of `dims` over n_ devices: tile counts on random dims whose product
  // divides n_, the rest replicated (last_tile_dim_replicate); device order iota, transposed iota
  // or a random permutation.
  std::string RandomSharding(const std::vector<int64_t>& dims) {
    if (n_ == 1) return Chance(0.5) ? "{replicated}" : "{maximal device=0}";
    if (Chance(0.05)) return fmt::format("{{maximal device={}}}", Rand(0, n_ - 1));
    if (Chance(0.12) || dims.empty()) return "{replicated}";
    int64_t rank = dims.size();
    std::vector<int64_t> tiles(rank, 1);
    int64_t left = n_;
    for (int64_t attempt = 0; attempt < 3 && left > 1; ++attempt) {
      int64_t d = Rand(0, rank - 1);
      std::vector<int64_t> divisors;
      for (int64_t f = 2; f <= left; ++f)
        if (left % f == 0) divisors.push_back(f);
      int64_t f = divisors[Rand(0, divisors.size() - 1)];
      tiles[d] *= f;
      left /= f;
    }
    if (Chance(0.5) && left > 1) {  // use every device on the data dims
      tiles[Rand(0, rank - 1)] *= left;
      left = 1;
    }
    std::vector<int64_t> all = tiles;
    if (left > 1) all.push_back(left);
    std::string suffix = left > 1 ? " last_tile_dim_replicate" : "";
    std::string devices;
    int64_t kind = Rand(0, 2);
    if (kind == 0 || n_ == 1) {
      devices = fmt::format("<=[{}]", n_);
    } else if (kind == 1) {
      // Iota with a transpose: reshape n_ into two factors and swap them.
      std::vector<int64_t> fs;
      for (int64_t f = 2; f < n_; ++f)
        if (n_ % f == 0) fs.push_back(f);
      if (fs.empty()) {
        devices = fmt::format("<=[{}]", n_);
      } else {
        int64_t f = fs[Rand(0, fs.size() - 1)];
        devices = fmt::format("<=[{},{}]T(1,0)", f, n_ / f);
      }
    } else {
      std::vector<int64_t> perm(n_);
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), rng_);
      devices = fmt::format("{}", fmt::join(perm, ","));
    }
    return fmt::format("{{devices=[{}]{}{}}}", fmt::join(all, ","), devices, suffix);
  }
  // Sometimes the root tuple is sharded too (each output assembled from its shards).
  std::string RootSharding(size_t count, const std::vector<std::string>&) {
    if (!Chance(0.4)) return "";
    std::vector<std::string> leaves;
    for (size_t i = 0; i < count; ++i) {
      const std::vector<int64_t>& dims = root_dims_[i];
      leaves.push_back(RandomSharding(dims));
    }
    return fmt::format(", sharding={{{}}}", fmt::join(leaves, ", "));
  }
  std::string MaybeSharding(const std::vector<int64_t>& dims, double p) {
    if (!Chance(p)) return "";
    return ", sharding=" + RandomSharding(dims);
  }

  const Value& Pick() {
    if (Chance(0.3)) return pool_[Rand(0, pool_.size() - 1)];
    return pool_[Rand(std::max<int64_t>(0, pool_.size() - 3), pool_.size() - 1)];
  }
  std::string Fresh() { return fmt::format("v{}", counter_++); }
  // A new parameter (used as the second operand of dots and concatenates).
  std::string NewParam(const std::vector<int64_t>& dims) {
    std::string name = fmt::format("p{}", next_param_);
    extra_params_ += fmt::format("  %{} = {} parameter({}){}\n", name, ShapeText(dims), next_param_,
                                 MaybeSharding(dims, 0.7));
    ++next_param_;
    return name;
  }
  void Emit(const std::vector<int64_t>& dims, const std::string& rhs) {
    std::string name = Fresh();
    body_ += fmt::format("  %{} = {} {}{}\n", name, ShapeText(dims), rhs, MaybeSharding(dims, 0.75));
    pool_.push_back({name, dims});
  }

  // gather or scatter on v with indices computed from another value (values in about
  // (-size-2, size+2): clamped / dropped on both sides), one indexed operand dim.
  bool GatherScatterStep(const Value& v) {
    int64_t rank = v.dims.size();
    const Value& w = pool_[Rand(0, pool_.size() - 1)];
    int64_t brank = w.dims.size();
    bool collapse = Chance(0.7);
    if (brank + rank - (collapse ? 1 : 0) > 3) return false;
    int64_t a = Rand(0, rank - 1);
    std::string shape_w = fmt::format("[{}]", fmt::join(w.dims, ","));
    std::string k = Fresh(), kb = Fresh(), m = Fresh(), idx = Fresh();
    body_ += fmt::format("  %{} = f32[] constant({})\n", k, v.dims[a] + 2);
    body_ += fmt::format("  %{} = f32{} broadcast(%{}), dimensions={{}}\n", kb, shape_w, k);
    body_ += fmt::format("  %{} = f32{} multiply(%{}, %{})\n", m, shape_w, w.name, kb);
    body_ += fmt::format("  %{} = s32{} convert(%{}){}\n", idx, shape_w, m, MaybeSharding(w.dims, 0.7));
    std::vector<int64_t> sizes = v.dims, window;
    std::vector<int64_t> window_dims, offset_dims;
    for (int64_t d = 0; d < rank; ++d) {
      if (d == a) sizes[d] = collapse ? 1 : Rand(1, v.dims[d]);
      else if (Chance(0.4)) sizes[d] = Rand(1, v.dims[d]);
      if (d == a && collapse) continue;
      offset_dims.push_back(brank + static_cast<int64_t>(window.size()));
      window.push_back(sizes[d]);
    }
    std::vector<int64_t> out = w.dims;
    out.insert(out.end(), window.begin(), window.end());
    std::string collapsed = collapse ? fmt::format("{}", a) : "";
    if (Chance(0.5)) {
      Emit(out, fmt::format("gather(%{}, %{}), offset_dims={{{}}}, collapsed_slice_dims={{{}}}, start_index_map={{{}}}, "
                            "index_vector_dim={}, slice_sizes={{{}}}",
                            v.name, idx, fmt::join(offset_dims, ","), collapsed, a, brank, fmt::join(sizes, ",")));
    } else {
      static const char* kCombiner[] = {"add", "max", "set"};
      std::string u = NewParam(out);
      Emit(v.dims, fmt::format("scatter(%{}, %{}, %{}), update_window_dims={{{}}}, inserted_window_dims={{{}}}, "
                               "scatter_dims_to_operand_dims={{{}}}, index_vector_dim={}, to_apply=%{}",
                               v.name, idx, u, fmt::join(offset_dims, ","), collapsed, a, brank, kCombiner[Rand(0, 2)]));
    }
    return true;
  }

  // gather or scatter on v (rank >= 2) whose dim 0 is a parallel dim: the indices [D0, K, ...]
  // carry either an iota along dim 0 as the index of operand dim 0 (concatenated with computed
  // indices of dim 1), or dim 0 is an explicit batching dim.
  bool ParallelGatherScatterStep(const Value& v) {
    int64_t rank = v.dims.size();
    if (rank < 2) return false;
    bool explicit_batching = Chance(0.5);
    int64_t d0 = v.dims[0], k = Rand(1, 4);
    std::string p = NewParam({d0, k});
    std::string c = Fresh(), cb = Fresh(), m = Fresh(), idx = Fresh(), r = Fresh(), io = Fresh(), pidx = Fresh();
    std::string s2 = fmt::format("[{},{}]", d0, k), s3 = fmt::format("[{},{},1]", d0, k);
    body_ += fmt::format("  %{} = f32[] constant({})\n", c, v.dims[1] + 2);
    body_ += fmt::format("  %{} = f32{} broadcast(%{}), dimensions={{}}\n", cb, s2, c);
    body_ += fmt::format("  %{} = f32{} multiply(%{}, %{})\n", m, s2, p, cb);
    body_ += fmt::format("  %{} = s32{} convert(%{}){}\n", idx, s2, m, MaybeSharding({d0, k}, 0.6));
    body_ += fmt::format("  %{} = s32{} reshape(%{})\n", r, s3, idx);
    std::string dims;
    if (explicit_batching) {
      pidx = r;
      dims = "operand_batching_dims={0}, start_indices_batching_dims={0}, start_index_map={1}";
    } else {
      body_ += fmt::format("  %{} = s32{} iota(), iota_dimension=0{}\n", io, s3, MaybeSharding({d0, k, 1}, 0.5));
      body_ += fmt::format("  %{} = s32[{},{},2] concatenate(%{}, %{}), dimensions={{2}}{}\n", pidx, d0, k, io, r,
                           MaybeSharding({d0, k, 2}, 0.5));
      dims = "start_index_map={0,1}";
    }
    std::vector<int64_t> sizes = v.dims, out = {d0, k}, window_dims;
    sizes[0] = sizes[1] = 1;
    for (int64_t d = 2; d < rank; ++d) {
      if (Chance(0.3)) sizes[d] = Rand(1, v.dims[d]);
      window_dims.push_back(static_cast<int64_t>(out.size()));
      out.push_back(sizes[d]);
    }
    std::string collapsed = explicit_batching ? "1" : "0,1";
    if (Chance(0.5)) {
      Emit(out, fmt::format("gather(%{}, %{}), offset_dims={{{}}}, collapsed_slice_dims={{{}}}, {}, index_vector_dim=2, "
                            "slice_sizes={{{}}}",
                            v.name, pidx, fmt::join(window_dims, ","), collapsed, dims, fmt::join(sizes, ",")));
    } else {
      static const char* kCombiner[] = {"add", "max", "set"};
      std::string u = NewParam(out);
      std::string sd = explicit_batching ? "input_batching_dims={0}, scatter_indices_batching_dims={0}, "
                                           "scatter_dims_to_operand_dims={1}"
                                         : "scatter_dims_to_operand_dims={0,1}";
      Emit(v.dims, fmt::format("scatter(%{}, %{}, %{}), update_window_dims={{{}}}, inserted_window_dims={{{}}}, {}, "
                               "index_vector_dim=2, to_apply=%{}",
                               v.name, pidx, u, fmt::join(window_dims, ","), collapsed, sd, kCombiner[Rand(0, 2)]));
    }
    return true;
  }

  // `x` (f32) as a bf16 value of -1, 0 or 1 (round(2x) clamped): exact in bf16, and so are the
  // sums of their products that the dots below form (at most kMaxTerms terms), so a partitioned
  // bf16 computation must match the single-device one exactly, whatever order it sums in.
  static constexpr int64_t kMaxTerms = 256;
  std::string ToSmallBf16(const std::string& x, const std::vector<int64_t>& dims) {
    std::string two = Fresh(), twob = Fresh(), m = Fresh(), one = Fresh(), neg = Fresh(), cl = Fresh(), r = Fresh(),
                b = Fresh();
    std::string f = ShapeText(dims), bf = fmt::format("bf16[{}]", fmt::join(dims, ","));
    body_ += fmt::format("  %{} = f32[] constant(2)\n  %{} = {} broadcast(%{}), dimensions={{}}\n", two, twob, f, two);
    body_ += fmt::format("  %{} = {} multiply(%{}, %{})\n", m, f, x, twob);
    body_ += fmt::format("  %{} = {} round-nearest-even(%{})\n", r, f, m);
    body_ += fmt::format("  %{} = f32[] constant(1)\n  %{} = f32[] negate(%{})\n", one, neg, one);
    body_ += fmt::format("  %{} = {} clamp(%{}, %{}, %{})\n", cl, f, neg, r, one);
    body_ += fmt::format("  %{} = {} convert(%{}){}\n", b, bf, cl, MaybeSharding(dims, 0.5));
    return b;
  }

  // Mixed precision: a dot (or a 1-D convolution) of bf16 operands whose result is bf16 or
  // accumulates into f32 (preferred_element_type), tiled on up to all its dims; converted back
  // to f32 for the rest of the program. The partitioned form must keep both result types.
  bool LowPrecisionStep(const Value& v) {
    int64_t rank = v.dims.size();
    bool f32_result = Chance(0.5);
    std::string rt = f32_result ? "f32" : "bf16";
    std::string lhs = ToSmallBf16(v.name, v.dims);
    std::vector<int64_t> out;
    std::string rhs, op;
    if (rank == 3 && Chance(0.4)) {
      // b0f_0io->b0f with a window of k (halos when the spatial dim is tiled).
      int64_t k = Rand(1, 3), o = Rand(1, 3), lo = Rand(0, 1), hi = Rand(0, 1);
      if (v.dims[1] + lo + hi < k || k * v.dims[2] > kMaxTerms) return false;
      rhs = ToSmallBf16(NewParam({k, v.dims[2], o}), {k, v.dims[2], o});
      out = {v.dims[0], v.dims[1] + lo + hi - k + 1, o};
      op = fmt::format("convolution(%{}, %{}), window={{size={} pad={}_{}}}, dim_labels=b0f_0io->b0f", lhs, rhs, k, lo,
                       hi);
    } else {
      int64_t c = Rand(0, rank - 1), m = Rand(1, 7);
      bool batch = rank >= 2 && c != 0 && Chance(0.4);
      std::vector<int64_t> rdims;
      if (batch) rdims.push_back(v.dims[0]);
      rdims.push_back(v.dims[c]);
      rdims.push_back(m);
      if (batch) out.push_back(v.dims[0]);
      for (int64_t d = 0; d < rank; ++d)
        if (d != c && !(batch && d == 0)) out.push_back(v.dims[d]);
      out.push_back(m);
      if (out.size() > 3 || v.dims[c] > kMaxTerms) return false;
      rhs = ToSmallBf16(NewParam(rdims), rdims);
      std::string dn = batch ? fmt::format("lhs_batch_dims={{0}}, rhs_batch_dims={{0}}, lhs_contracting_dims={{{}}}, "
                                           "rhs_contracting_dims={{1}}", c)
                             : fmt::format("lhs_contracting_dims={{{}}}, rhs_contracting_dims={{0}}", c);
      op = fmt::format("dot(%{}, %{}), {}", lhs, rhs, dn);
    }
    std::string d = Fresh();
    body_ += fmt::format("  %{} = {}[{}] {}{}\n", d, rt, fmt::join(out, ","), op, MaybeSharding(out, 0.85));
    Emit(out, fmt::format("convert(%{})", d));
    return true;
  }

  void Step() {
    Value v = Pick();
    int64_t rank = v.dims.size();
    if (gather_scatter_ && Chance(0.15) && ParallelGatherScatterStep(v)) return;
    if (gather_scatter_ && Chance(0.4) && GatherScatterStep(v)) return;
    switch (Rand(0, 20)) {
      case 0: {  // binary with a same-shaped value, or unary
        const Value* other = nullptr;
        for (const Value& w : pool_)
          if (w.dims == v.dims && w.name != v.name && Chance(0.7)) other = &w;
        static const char* kBinary[] = {"add", "subtract", "maximum", "minimum", "multiply"};
        if (other) Emit(v.dims, fmt::format("{}(%{}, %{})", kBinary[Rand(0, 4)], v.name, other->name));
        else Emit(v.dims, fmt::format("{}(%{})", Chance(0.5) ? "negate" : "tanh", v.name));
        return;
      }
      case 1: {  // compare + select
        std::string c = Fresh();
        std::string s = fmt::format(", sharding={}", RandomSharding(v.dims));
        body_ += fmt::format("  %{} = pred[{}] compare(%{}, %{}){}, direction=GT{}\n", c, fmt::join(v.dims, ","), v.name,
                             v.name, "", Chance(0.5) ? s : "");
        std::string neg = Fresh();
        body_ += fmt::format("  %{} = {} negate(%{})\n", neg, ShapeText(v.dims), v.name);
        Emit(v.dims, fmt::format("select(%{}, %{}, %{})", c, v.name, neg));
        return;
      }
      case 2: {  // broadcast: a new dim
        if (rank >= 3) break;
        int64_t pos = Rand(0, rank);
        std::vector<int64_t> dims = v.dims, map;
        dims.insert(dims.begin() + pos, Rand(1, 6));
        for (int64_t i = 0; i <= rank; ++i)
          if (i != pos) map.push_back(i);
        Emit(dims, fmt::format("broadcast(%{}), dimensions={{{}}}", v.name, fmt::join(map, ",")));
        return;
      }
      case 3: {  // transpose
        if (rank < 2) break;
        std::vector<int64_t> perm(rank);
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng_);
        std::vector<int64_t> dims;
        for (int64_t p : perm) dims.push_back(v.dims[p]);
        Emit(dims, fmt::format("transpose(%{}), dimensions={{{}}}", v.name, fmt::join(perm, ",")));
        return;
      }
      case 4: {  // reshape: merge two adjacent dims or split one
        std::vector<int64_t> dims = v.dims;
        if (rank >= 2 && Chance(0.5)) {
          int64_t d = Rand(0, rank - 2);
          dims[d] *= dims[d + 1];
          dims.erase(dims.begin() + d + 1);
        } else if (rank < 3) {
          int64_t d = Rand(0, rank - 1);
          std::vector<int64_t> fs;
          for (int64_t f = 2; f < dims[d]; ++f)
            if (dims[d] % f == 0) fs.push_back(f);
          if (fs.empty()) break;
          int64_t f = fs[Rand(0, fs.size() - 1)];
          dims[d] /= f;
          dims.insert(dims.begin() + d, f);
        } else {
          break;
        }
        Emit(dims, fmt::format("reshape(%{})", v.name));
        return;
      }
      case 5: {  // reduce over a random non-empty subset of dims
        std::vector<int64_t> reduced, kept;
        for (int64_t d = 0; d < rank; ++d) (Chance(0.5) ? reduced : kept).push_back(d);
        if (reduced.empty()) reduced.push_back(kept.back()), kept.pop_back();
        if (kept.empty()) break;  // keep rank >= 1 values in the pool
        std::vector<int64_t> dims;
        for (int64_t d : kept) dims.push_back(v.dims[d]);
        bool max = Chance(0.3);
        std::string init = Fresh();
        body_ += fmt::format("  %{} = f32[] constant({})\n", init, max ? "-inf" : "0");
        Emit(dims, fmt::format("reduce(%{}, %{}), dimensions={{{}}}, to_apply=%{}", v.name, init,
                               fmt::join(reduced, ","), max ? "max" : "add"));
        return;
      }
      case 6: case 7: {  // dot with a fresh parameter: contract one dim, optional batch dim 0
        if (Chance(0.3) && LowPrecisionStep(v)) return;
        int64_t c = Rand(0, rank - 1);
        bool batch = rank >= 2 && c != 0 && Chance(0.4);
        int64_t m = Rand(1, 7);
        std::vector<int64_t> rdims;
        if (batch) rdims.push_back(v.dims[0]);
        rdims.push_back(v.dims[c]);
        rdims.push_back(m);
        std::string p = NewParam(rdims);
        std::vector<int64_t> out;
        if (batch) out.push_back(v.dims[0]);
        for (int64_t d = 0; d < rank; ++d)
          if (d != c && !(batch && d == 0)) out.push_back(v.dims[d]);
        out.push_back(m);
        if (out.size() > 3) break;
        std::string dn = batch ? fmt::format("lhs_batch_dims={{0}}, rhs_batch_dims={{0}}, lhs_contracting_dims={{{}}}, "
                                             "rhs_contracting_dims={{1}}", c)
                               : fmt::format("lhs_contracting_dims={{{}}}, rhs_contracting_dims={{0}}", c);
        Emit(out, fmt::format("dot(%{}, %{}), {}", v.name, p, dn));
        return;
      }
      case 8: {  // slice
        int64_t d = Rand(0, rank - 1);
        std::vector<std::string> spec;
        std::vector<int64_t> dims = v.dims;
        for (int64_t i = 0; i < rank; ++i) {
          if (i != d) {
            spec.push_back(fmt::format("[0:{}]", v.dims[i]));
            continue;
          }
          int64_t start = Rand(0, v.dims[i] - 1), limit = Rand(start + 1, v.dims[i]), stride = Rand(1, 2);
          spec.push_back(fmt::format("[{}:{}:{}]", start, limit, stride));
          dims[i] = (limit - start + stride - 1) / stride;
        }
        Emit(dims, fmt::format("slice(%{}), slice={{{}}}", v.name, fmt::join(spec, ", ")));
        return;
      }
      case 9: {  // concatenate with a fresh parameter or itself, or a roll (two slices of v, wrapped)
        int64_t d = Rand(0, rank - 1);
        if (v.dims[d] >= 2 && Chance(0.3)) {
          int64_t k = Rand(1, v.dims[d] - 1);
          std::string hi = Fresh(), lo = Fresh();
          std::vector<std::string> shi, slo;
          std::vector<int64_t> dhi = v.dims, dlo = v.dims;
          for (int64_t i = 0; i < rank; ++i) {
            shi.push_back(i == d ? fmt::format("[{}:{}]", k, v.dims[i]) : fmt::format("[0:{}]", v.dims[i]));
            slo.push_back(i == d ? fmt::format("[0:{}]", k) : fmt::format("[0:{}]", v.dims[i]));
          }
          dhi[d] = v.dims[d] - k;
          dlo[d] = k;
          body_ += fmt::format("  %{} = {} slice(%{}), slice={{{}}}{}\n", hi, ShapeText(dhi), v.name, fmt::join(shi, ", "),
                               MaybeSharding(dhi, 0.5));
          body_ += fmt::format("  %{} = {} slice(%{}), slice={{{}}}{}\n", lo, ShapeText(dlo), v.name, fmt::join(slo, ", "),
                               MaybeSharding(dlo, 0.5));
          Emit(v.dims, fmt::format("concatenate(%{}, %{}), dimensions={{{}}}", hi, lo, d));
          return;
        }
        std::vector<int64_t> other = v.dims;
        other[d] = Rand(1, 5);
        std::string p = Chance(0.3) ? v.name : NewParam(other);
        if (p == v.name) other = v.dims;
        std::vector<int64_t> dims = v.dims;
        dims[d] += other[d];
        Emit(dims, fmt::format("concatenate(%{}, %{}), dimensions={{{}}}", v.name, p, d));
        return;
      }
      case 10: {  // pad (low/high may be negative, interior on one dim)
        std::vector<std::string> cfg;
        std::vector<int64_t> dims = v.dims;
        for (int64_t i = 0; i < rank; ++i) {
          int64_t lo = Rand(-1, 2), hi = Rand(-1, 2), in = Chance(0.2) ? Rand(1, 2) : 0;
          int64_t size = v.dims[i] + lo + hi + in * (v.dims[i] - 1);
          if (size < 1) lo = hi = 0, size = v.dims[i] + in * (v.dims[i] - 1);
          dims[i] = size;
          cfg.push_back(in ? fmt::format("{}_{}_{}", lo, hi, in) : fmt::format("{}_{}", lo, hi));
        }
        std::string z = Fresh();
        body_ += fmt::format("  %{} = f32[] constant(0.5)\n", z);
        Emit(dims, fmt::format("pad(%{}, %{}), padding={}", v.name, z, fmt::join(cfg, "x")));
        return;
      }
      case 11: {  // reverse
        int64_t d = Rand(0, rank - 1);
        if (rank > 1 && Chance(0.3)) {
          int64_t e = (d + 1) % rank;
          Emit(v.dims, fmt::format("reverse(%{}), dimensions={{{},{}}}", v.name, std::min(d, e), std::max(d, e)));
        } else {
          Emit(v.dims, fmt::format("reverse(%{}), dimensions={{{}}}", v.name, d));
        }
        return;
      }
      case 12: {  // iota (offset by the tile) added to the value
        int64_t d = Rand(0, rank - 1);
        std::string io = Fresh();
        body_ += fmt::format("  %{} = {} iota(), iota_dimension={}{}\n", io, ShapeText(v.dims), d,
                             MaybeSharding(v.dims, 0.7));
        Emit(v.dims, fmt::format("add(%{}, %{})", v.name, io));
        return;
      }
      case 13: case 14: {  // dynamic-slice / dynamic-update-slice at constant (clamped) indices
        std::vector<int64_t> sizes = v.dims;
        std::vector<std::string> idx;
        for (int64_t i = 0; i < rank; ++i) {
          if (Chance(0.5)) sizes[i] = Rand(1, v.dims[i]);
          std::string c = Fresh();
          body_ += fmt::format("  %{} = s32[] constant({})\n", c, Rand(-3, v.dims[i] + 2));
          idx.push_back("%" + c);
        }
        if (Rand(0, 1) == 0) {
          Emit(sizes, fmt::format("dynamic-slice(%{}, {}), dynamic_slice_sizes={{{}}}", v.name, fmt::join(idx, ", "),
                                  fmt::join(sizes, ",")));
        } else {
          std::string u = NewParam(sizes);
          Emit(v.dims, fmt::format("dynamic-update-slice(%{}, %{}, {})", v.name, u, fmt::join(idx, ", ")));
        }
        return;
      }
      case 16: {  // argmax-style variadic reduce over one dim
        if (rank < 2) break;
        int64_t d = Rand(0, rank - 1);
        std::vector<int64_t> dims = v.dims;
        dims.erase(dims.begin() + d);
        std::string io = Fresh(), ninf = Fresh(), zero = Fresh(), r = Fresh();
        std::string is = fmt::format("s32[{}]", fmt::join(v.dims, ","));
        body_ += fmt::format("  %{} = {} iota(), iota_dimension={}{}\n", io, is, d, MaybeSharding(v.dims, 0.5));
        body_ += fmt::format("  %{} = f32[] constant(-inf)\n  %{} = s32[] constant(0)\n", ninf, zero);
        std::string rs = fmt::format("({}, s32[{}])", ShapeText(dims), fmt::join(dims, ","));
        std::string sh;
        if (Chance(0.6)) {
          std::string leaf = RandomSharding(dims);
          sh = fmt::format(", sharding={{{}, {}}}", leaf, leaf);
        }
        body_ += fmt::format("  %{} = {} reduce(%{}, %{}, %{}, %{}), dimensions={{{}}}, to_apply=%argmax{}\n", r, rs,
                             v.name, io, ninf, zero, d, sh);
        Emit(dims, fmt::format("get-tuple-element(%{}), index=0", r));
        std::string idx = Fresh();
        body_ += fmt::format("  %{} = s32[{}] get-tuple-element(%{}), index=1\n", idx, fmt::join(dims, ","), r);
        Emit(dims, fmt::format("convert(%{})", idx));
        return;
      }
      case 17: {  // while loop: x = x * 0.5 + 1, three times, with a sharded state
        std::string t = Fresh(), w = Fresh(), zero = Fresh();
        std::string st = fmt::format("(s32[], {})", ShapeText(v.dims));
        std::string sh = RandomSharding(v.dims);
        body_ += fmt::format("  %{} = s32[] constant(0)\n", zero);
        body_ += fmt::format("  %{} = {} tuple(%{}, %{})\n", t, st, zero, v.name);
        body_ += fmt::format("  %{} = {} while(%{}), condition=%cond{}, body=%body{}, sharding={{{{replicated}}, {}}}\n", w,
                             st, t, loops_, loops_, sh);
        computations_ += fmt::format(
            "%cond{0} {{ %p = {1} parameter(0)\n  %i = s32[] get-tuple-element(%p), index=0\n"
            "  %n = s32[] constant(3)\n  ROOT %c = pred[] compare(%i, %n), direction=LT }}\n"
            "%body{0} {{ %p = {1} parameter(0)\n  %i = s32[] get-tuple-element(%p), index=0\n"
            "  %x = {2} get-tuple-element(%p), index=1\n  %one = s32[] constant(1)\n  %i2 = s32[] add(%i, %one)\n"
            "  %h = f32[] constant(0.5)\n  %hb = {2} broadcast(%h), dimensions={{}}\n"
            "  %m = {2} multiply(%x, %hb){3}\n  %o = f32[] constant(1)\n  %ob = {2} broadcast(%o), dimensions={{}}\n"
            "  %y = {2} add(%m, %ob)\n  ROOT %t = {1} tuple(%i2, %y) }}\n",
            loops_, st, ShapeText(v.dims), MaybeSharding(v.dims, 0.5));
        ++loops_;
        Emit(v.dims, fmt::format("get-tuple-element(%{}), index=1", w));
        return;
      }
      case 18: {  // conditional on a parameter-derived predicate
        std::string c = Fresh(), z = Fresh(), r = Fresh(), pred = Fresh();
        body_ += fmt::format("  %{} = f32[] constant(0)\n", z);
        std::vector<std::string> all(rank, "0");
        std::string first = Fresh();
        std::vector<int64_t> ones(rank, 1);
        std::vector<std::string> zeros, lim;
        for (int64_t i = 0; i < rank; ++i) lim.push_back("[0:1]");
        body_ += fmt::format("  %{} = f32[{}] slice(%{}), slice={{{}}}\n", first, fmt::join(ones, ","), v.name,
                             fmt::join(lim, ", "));
        body_ += fmt::format("  %{} = f32[] reshape(%{})\n", r, first);
        body_ += fmt::format("  %{} = pred[] compare(%{}, %{}), direction=GT\n", pred, r, z);
        computations_ += fmt::format("%then{0} {{ %x = {1} parameter(0)\n  ROOT %n = {1} negate(%x){2} }}\n"
                                     "%else{0} {{ %x = {1} parameter(0)\n  ROOT %n = {1} tanh(%x) }}\n",
                                     loops_, ShapeText(v.dims), MaybeSharding(v.dims, 0.5));
        Emit(v.dims, fmt::format("conditional(%{}, %{}, %{}), true_computation=%then{}, false_computation=%else{}", pred,
                                 v.name, v.name, loops_, loops_));
        ++loops_;
        return;
      }
      case 19: {  // 1-D convolution (batch, spatial, feature) with a fresh kernel, maybe strided or
                  // input-dilated (a transposed convolution); or grouped (feature_group_count), or
                  // a filter gradient (f0b_i0o->0bf: the batch contracted, batch_group_count
                  // sometimes)
        if (rank != 3) break;
        if (Chance(0.3)) {
          int64_t b = v.dims[0], s = v.dims[1], f = v.dims[2];
          if (Chance(0.5)) {
            // Grouped: g divides f; o = g * m output features.
            int64_t g = f % 2 == 0 && Chance(0.5) ? 2 : f;
            int64_t k = Rand(1, std::min<int64_t>(3, s)), m = Rand(1, 2);
            std::string kern = NewParam({k, f / g, g * m});
            Emit({b, s - k + 1, g * m},
                 fmt::format("convolution(%{}, %{}), window={{size={}}}, dim_labels=b0f_0io->b0f, "
                             "feature_group_count={}", v.name, kern, k, g));
            return;
          }
          // Filter gradient: lhs (batch b, spatial s, feature f) read as f0b (b contracted), a
          // fresh gradient [b, s2, o] read as i0o; batch_group_count g splits f and o.
          int64_t s2 = Rand(1, s), g = f % 2 == 0 && Chance(0.4) ? 2 : 1, o = g * Rand(1, 2);
          std::string grad = NewParam({b, s2, o});
          Emit({s - s2 + 1, f / g, o},
               fmt::format("convolution(%{}, %{}), window={{size={}}}, dim_labels=f0b_i0o->0bf{}", v.name, grad, s2,
                           g > 1 ? fmt::format(", batch_group_count={}", g) : ""));
          return;
        }
        int64_t k = Rand(1, 4), o = Rand(1, 4), stride = Rand(1, 2);
        std::string kern = NewParam({k, v.dims[2], o});
        int64_t lo = Rand(0, 2), hi = Rand(0, 2), lhs_dilate = stride == 1 && Chance(0.25) ? 2 : 1;
        int64_t padded = (v.dims[1] - 1) * lhs_dilate + 1 + lo + hi - k;
        if (padded < 0) break;
        int64_t out = padded / stride + 1;
        Emit({v.dims[0], out, o},
             fmt::format("convolution(%{}, %{}), window={{size={} stride={} pad={}_{} lhs_dilate={}}}, "
                         "dim_labels=b0f_0io->b0f", v.name, kern, k, stride, lo, hi, lhs_dilate));
        return;
      }
      case 20: {  // reduce-window (max or add; size 1-4, stride 1-3, padding 0-2, sometimes dilated), or
                  // select-and-scatter (max-pool backward)
        // Max windows always reach some data (padding < size, no dilation): a window of -inf
        // only would feed infinities and NaNs to the ops after it.
        bool max = Chance(0.5);
        std::vector<std::string> size, stride, pad, dilate;
        std::vector<int64_t> dims;
        for (int64_t i = 0; i < rank; ++i) {
          int64_t k = Rand(1, 4), st = Rand(1, 3), wd = !max && Chance(0.2) ? 2 : 1;
          int64_t lo = Rand(0, max ? std::min<int64_t>(2, k - 1) : 2), hi = Rand(0, max ? std::min<int64_t>(2, k - 1) : 2);
          int64_t span = (k - 1) * wd + 1;
          if (v.dims[i] + lo + hi < span) k = 1, wd = 1, span = 1, lo = hi = 0;
          size.push_back(std::to_string(k));
          stride.push_back(std::to_string(st));
          pad.push_back(fmt::format("{}_{}", lo, hi));
          dilate.push_back(std::to_string(wd));
          dims.push_back((v.dims[i] + lo + hi - span) / st + 1);
        }
        std::string init = Fresh();
        if (max && Chance(0.3)) {
          // Its backward: select-and-scatter of a fresh source (the pooled gradient).
          std::string src = NewParam(dims);
          body_ += fmt::format("  %{} = f32[] constant(0)\n", init);
          Emit(v.dims, fmt::format("select-and-scatter(%{}, %{}, %{}), window={{size={} stride={} pad={}}}, select=%ge, "
                                   "scatter=%add", v.name, src, init, fmt::join(size, "x"), fmt::join(stride, "x"),
                                   fmt::join(pad, "x")));
          return;
        }
        body_ += fmt::format("  %{} = f32[] constant({})\n", init, max ? "-inf" : "0");
        Emit(dims, fmt::format("reduce-window(%{}, %{}), window={{size={} stride={} pad={} rhs_dilate={}}}, to_apply=%{}",
                               v.name, init, fmt::join(size, "x"), fmt::join(stride, "x"), fmt::join(pad, "x"),
                               fmt::join(dilate, "x"), max ? "max" : "add"));
        return;
      }
      case 15: {  // sort along a dim; or values with their iota indices (variadic, both outputs used);
                  // or topk along the last dim (values plus the converted indices)
        int64_t d = Rand(0, rank - 1);
        if (Chance(0.15)) {
          // top-k written as a sort whose only use is a slice of its first k along the sort dim
          std::vector<int64_t> out = v.dims;
          out[d] = Rand(1, std::min<int64_t>(v.dims[d], 3));
          std::string st = Fresh();
          std::vector<std::string> spec;
          for (int64_t i = 0; i < rank; ++i) spec.push_back(fmt::format("[0:{}]", out[i]));
          body_ += fmt::format("  %{} = {} sort(%{}), dimensions={{{}}}, to_apply=%lt{}\n", st, ShapeText(v.dims), v.name,
                               d, MaybeSharding(v.dims, 0.9));
          Emit(out, fmt::format("slice(%{}), slice={{{}}}", st, fmt::join(spec, ", ")));
          return;
        }
        if (rank >= 1 && Chance(0.25)) {
          std::vector<int64_t> out = v.dims;
          out.back() = Rand(1, std::min<int64_t>(v.dims.back(), 4));
          std::string tk = Fresh(), g0 = Fresh(), g1 = Fresh(), cv = Fresh();
          std::string shape = ShapeText(out), ishape = shape;
          ishape.replace(0, 3, "s32");
          std::string sharding = Chance(0.75) ? RandomSharding(out) : "";
          body_ += fmt::format("  %{} = ({}, {}) topk(%{}), k={}, largest={}{}\n", tk, shape, ishape, v.name, out.back(),
                               Chance(0.5) ? "true" : "false",
                               sharding.empty() ? "" : fmt::format(", sharding={{{}, {}}}", sharding, sharding));
          body_ += fmt::format("  %{} = {} get-tuple-element(%{}), index=0\n", g0, shape, tk);
          body_ += fmt::format("  %{} = {} get-tuple-element(%{}), index=1\n", g1, ishape, tk);
          body_ += fmt::format("  %{} = {} convert(%{})\n", cv, shape, g1);
          Emit(out, fmt::format("add(%{}, %{})", g0, cv));
          return;
        }
        if (Chance(0.5)) {
          Emit(v.dims, fmt::format("sort(%{}), dimensions={{{}}}, to_apply=%lt", v.name, d));
          return;
        }
        std::string io = Fresh(), st = Fresh(), g0 = Fresh(), g1 = Fresh();
        std::string shape = ShapeText(v.dims), ishape = shape;
        ishape.replace(0, 3, "s32");
        std::string sharding = Chance(0.75) ? RandomSharding(v.dims) : "";
        body_ += fmt::format("  %{} = {} iota(), iota_dimension={}{}\n", io, ishape, d, MaybeSharding(v.dims, 0.5));
        body_ += fmt::format("  %{} = ({}, {}) sort(%{}, %{}), dimensions={{{}}}, to_apply=%lt_index{}\n", st, shape,
                             ishape, v.name, io, d,
                             sharding.empty() ? "" : fmt::format(", sharding={{{}, {}}}", sharding, sharding));
        body_ += fmt::format("  %{} = {} get-tuple-element(%{}), index=0\n", g0, shape, st);
        body_ += fmt::format("  %{} = {} get-tuple-element(%{}), index=1\n", g1, ishape, st);
        std::string cv = Fresh();
        body_ += fmt::format("  %{} = {} convert(%{})\n", cv, shape, g1);
        Emit(v.dims, fmt::format("add(%{}, %{})", g0, cv));
        return;
      }
    }
    Emit(v.dims, fmt::format("negate(%{})", v.name));
  }

  std::mt19937_64 rng_;
  bool gather_scatter_ = false;
  int64_t n_ = 1;
  std::vector<Value> pool_;
  std::vector<std::vector<int64_t>> root_dims_;
  std::string body_, extra_params_, computations_;
  int64_t loops_ = 0;
  int64_t counter_ = 0, next_param_ = 0;
};

int64_t EnvOr(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoll(v, nullptr, 10) : fallback;
}

Literal RandomInput(const Shape& shape, std::mt19937_64& rng) {
  Literal lit(shape);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int64_t i = 0; i < lit.num_elements(); ++i) lit.SetDouble(i, u(rng));
  return lit;
}

void Flatten(const Literal& l, std::vector<const Literal*>& out) {
  if (l.shape().IsTuple()) {
    for (const Literal& e : l.elements()) Flatten(e, out);
  } else {
    out.push_back(&l);
  }
}

struct Totals {
  int64_t cases = 0, collectives = 0, remats = 0, elements = 0, unsupported = 0;
};

// An empty string when every output of `got` matches `want` (NaNs at the same places).
std::string CompareOutputs(const Literal& got, const Literal& want) {
  std::vector<const Literal*> a, b;
  Flatten(got, a);
  Flatten(want, b);
  if (a.size() != b.size()) return "output count differs";
  for (size_t k = 0; k < a.size(); ++k) {
    if (!(a[k]->shape().dims() == b[k]->shape().dims())) return fmt::format("output {} shape differs", k);
    for (int64_t i = 0; i < b[k]->num_elements(); ++i) {
      double x = a[k]->GetDouble(i), y = b[k]->GetDouble(i);
      if (std::isnan(x) && std::isnan(y)) continue;
      if (x == y) continue;
      if (!(std::fabs(x - y) <= 1e-4 * (1 + std::fabs(y))))
        return fmt::format("output {} element {}: got {} want {}", k, i, x, y);
    }
  }
  return "";
}

// Cleans up `partitioned` (of `module`), adds its collectives and full rematerializations to
// `totals` and runs it on `n` devices; nullopt (and `*error`) on failure.
std::optional<Literal> CleanUpAndRun(PartitionResult& partitioned, const Module& module, int64_t n,
                                     const std::vector<Literal>& args, Totals& totals, std::string* error) {
  auto cleaned = RunCleanup(*partitioned.module);
  if (!cleaned.ok()) {
    *error = fmt::format("cleanup failed: {}", cleaned.status().message());
    return std::nullopt;
  }
  for (const auto& [kind, c] : partitioned.stats.collectives) totals.collectives += c.count;
  totals.remats += partitioned.stats.warnings.size();
  SpmdOptions options;
  options.global_result_shape = module.entry()->root()->shape();
  options.cores = 1;
  auto got = ExecuteSpmd(*partitioned.module, n, args, partitioned.parameter_shardings, partitioned.result_sharding,
                         options);
  if (!got.ok()) {
    *error = fmt::format("SPMD execution failed: {}", got.status().message());
    return std::nullopt;
  }
  return std::move(*got);
}

// With SPMDC_RANDOM_DUMP set, writes a case that matched (see the header).
void DumpCase(std::string_view kind, uint64_t seed, int64_t n, bool propagated, const std::string& text) {
  const char* dir = std::getenv("SPMDC_RANDOM_DUMP");
  if (!dir || !*dir) return;
  std::string path = fmt::format("{}/{}-seed-{}-n{}{}.hlo", dir, kind, seed, n, propagated ? "-propagate" : "");
  std::ofstream out(path);
  out << text;
  if (!out) ADD_FAILURE() << "cannot write " << path;
}

// Runs one case; returns an empty string on success, else a description.
std::string RunCase(uint64_t seed, Totals& totals, bool gather_scatter = false) {
  Generator g(seed, gather_scatter);
  std::string text = g.Build();
  int64_t n = g.num_devices();
  if (EnvOr("SPMDC_RANDOM_VERBOSE", 0)) std::printf("seed %llu on %lld devices:\n%s\n", static_cast<unsigned long long>(seed), static_cast<long long>(n), text.c_str());
  auto fail = [&](const std::string& why) {
    return fmt::format("seed {} on {} devices: {}\n{}", seed, n, why, text);
  };
  auto parsed = ParseHloModule(text, "random");
  if (!parsed.ok()) return fail(fmt::format("generator produced invalid HLO: {}", parsed.status().message()));
  std::unique_ptr<Module> module = std::move(*parsed);
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  std::vector<Literal> args;
  for (int64_t i = 0; i < module->entry()->num_parameters(); ++i)
    args.push_back(RandomInput(module->entry()->parameter(i)->shape(), rng));
  SingleDeviceContext device;
  auto reference = Execute(*module, args, &device);
  if (!reference.ok()) return fail(fmt::format("reference failed: {}", reference.status().message()));
  module->set_num_partitions(n);
  // A third of the cases partition propagated shardings (as `spmdc compile` does): every
  // instruction sharded, in the forms propagation produces.
  if (seed % 3 == 0) {
    auto propagated = PropagateShardings(*module);
    if (!propagated.ok()) return fail(fmt::format("propagation failed: {}", propagated.status().message()));
  }
  auto partitioned = PartitionModule(*module, PartitionOptions{n});
  if (!partitioned.ok()) return fail(fmt::format("partition failed: {}", partitioned.status().message()));
  std::string error;
  std::optional<Literal> got = CleanUpAndRun(*partitioned, *module, n, args, totals, &error);
  if (!got) return fail(error);
  std::string diff = CompareOutputs(*got, *reference);
  if (!diff.empty()) return fail(diff);
  ++totals.cases;
  std::vector<const Literal*> outputs;
  Flatten(*reference, outputs);
  for (const Literal* l : outputs) totals.elements += l->num_elements();
  DumpCase(gather_scatter ? "gather-scatter" : "random", seed, n, seed % 3 == 0, text);
  return "";
}

// ---- partial-manual regions -------------------------------------------------------------------
// A random module generated for G devices becomes the body of a partial-manual region on G*M
// devices: M manual groups of G devices (a random device order), every sharding S of the body
// lifted to the manual subgroup sharding that applies S inside each group, the entry parameters
// entering through SPMDFullToShardShape (replicated across groups, so the shapes stay) and the
// outputs leaving through SPMDShardToFullShape. Every group computes the whole program, so the
// single-device run is the reference.

struct Lifter {
  std::vector<std::vector<int64_t>> groups;  // groups[m][l]
  int64_t M() const { return static_cast<int64_t>(groups.size()); }
  int64_t G() const { return static_cast<int64_t>(groups[0].size()); }

  // Tile array dims (data dims, replication) and device at each position of `s` over G devices;
  // tile-maximal shardings count as replicated.
  void Layout(const Sharding& s, int64_t rank, std::vector<int64_t>* data, int64_t* r,
              std::vector<int64_t>* ids) const {
    data->assign(rank, 1);
    *r = G();
    ids->resize(G());
    std::iota(ids->begin(), ids->end(), 0);
    if (!s.IsTiled()) return;
    const TileAssignment& ta = s.tile_assignment();
    *data = std::vector<int64_t>(ta.dims().begin(), ta.dims().begin() + s.TiledDataRank());
    *r = s.ReplicateOnLastTileDim() ? ta.dim(ta.num_dimensions() - 1) : 1;
    ids->clear();
    for (int64_t i = 0; i < ta.num_elements(); ++i) ids->push_back(ta.At(i));
  }
  Sharding LiftLeaf(const Sharding& s, int64_t rank) const {
    std::vector<int64_t> data, ids;
    int64_t r = 1;
    Layout(s, rank, &data, &r, &ids);
    int64_t tiles = static_cast<int64_t>(ids.size()) / r;
    std::vector<int64_t> dims = data, devices;
    dims.push_back(M());
    dims.push_back(r);
    for (int64_t t = 0; t < tiles; ++t)
      for (int64_t m = 0; m < M(); ++m)
        for (int64_t k = 0; k < r; ++k) devices.push_back(groups[m][ids[t * r + k]]);
    return Sharding::Subgroup(TileAssignment::FromDevices(dims, devices),
                              {SubgroupType::kManual, SubgroupType::kReplicated});
  }
  // The full value's sharding: the groups replicate it, or (`split`) hold its blocks along dim 0
  // (group m the m-th block).
  Sharding UnliftLeaf(const Sharding& s, int64_t rank, bool split = false) const {
    std::vector<int64_t> data, ids;
    int64_t r = 1;
    Layout(s, rank, &data, &r, &ids);
    int64_t tiles = static_cast<int64_t>(ids.size()) / r;
    std::vector<int64_t> dims = data, devices;
    if (split) {
      dims[0] *= M();
      dims.push_back(r);
      for (int64_t m = 0; m < M(); ++m)
        for (int64_t t = 0; t < tiles; ++t)
          for (int64_t k = 0; k < r; ++k) devices.push_back(groups[m][ids[t * r + k]]);
    } else {
      dims.push_back(M() * r);
      for (int64_t t = 0; t < tiles; ++t)
        for (int64_t m = 0; m < M(); ++m)
          for (int64_t k = 0; k < r; ++k) devices.push_back(groups[m][ids[t * r + k]]);
    }
    return Sharding::PartialTile(TileAssignment::FromDevices(dims, devices));
  }
  Sharding Lift(const Instruction* i) const {
    Sharding s = i->has_sharding() ? i->sharding()->NormalizeTupleSharding(i->shape()) : Sharding::Replicate();
    if (!i->shape().IsTuple()) return LiftLeaf(s, i->shape().IsArray() ? i->shape().rank() : 0);
    std::vector<Sharding> leaves;
    std::vector<Shape> shapes;
    FlattenShapes(i->shape(), shapes);
    for (size_t k = 0; k < shapes.size(); ++k) {
      Sharding leaf = s.IsTuple() ? s.tuple_elements()[k] : s;
      leaves.push_back(LiftLeaf(leaf, shapes[k].IsArray() ? shapes[k].rank() : 0));
    }
    return Sharding::Tuple(std::move(leaves));
  }
  static void FlattenShapes(const Shape& s, std::vector<Shape>& out) {
    if (!s.IsTuple()) {
      out.push_back(s);
      return;
    }
    for (int64_t i = 0; i < s.tuple_size(); ++i) FlattenShapes(s.tuple_shape(i), out);
  }
};

void Annotate(Instruction* i, const Sharding& s) { i->set_sharding(std::make_shared<const Sharding>(s)); }

// Rewrites `module` (generated for G devices) into the partial-manual form described above.
// With `split`, every entry parameter and output gets M times its dim 0 and each group takes its
// own block (so the groups compute on different data).
void MakePartialManual(Module& module, const Lifter& lift, bool split) {
  Computation* entry = module.entry();
  auto original = [](const Instruction* i) {
    return i->has_sharding() ? i->sharding()->NormalizeTupleSharding(i->shape()) : Sharding::Replicate();
  };
  std::vector<Sharding> param_shardings;
  for (Instruction* p : entry->parameters()) param_shardings.push_back(original(p));
  Instruction* root = entry->root();
  Sharding root_sharding = original(root);
  for (Computation* c : module.computations()) {
    bool region = c->IsEntry() || c->name().rfind("cond", 0) == 0 || c->name().rfind("body", 0) == 0 ||
                  c->name().rfind("then", 0) == 0 || c->name().rfind("else", 0) == 0;
    if (!region) continue;
    for (Instruction* i : c->instructions()) Annotate(i, lift.Lift(i));
  }
  std::vector<Instruction*> params = entry->parameters();
  for (size_t k = 0; k < params.size(); ++k) {
    Instruction* p = params[k];
    int64_t rank = p->shape().rank();
    Instruction* enter = entry->AddInstruction(Opcode::kCustomCall, p->shape(), p->name() + ".manual");
    enter->attrs().Set(AttrId::kCustomCallTarget, std::string("SPMDFullToShardShape"));
    p->ReplaceAllUsesWith(enter);
    enter->AppendOperand(p);
    Annotate(enter, lift.LiftLeaf(param_shardings[k], rank));
    Annotate(p, lift.UnliftLeaf(param_shardings[k], rank, split));
    if (split) p->mutable_shape()->set_dim(0, p->shape().dim(0) * lift.M());
  }
  std::vector<Instruction*> outs;
  std::vector<Shape> out_shapes;
  for (int64_t k = 0; k < root->shape().tuple_size(); ++k) {
    const Shape& shape = root->shape().tuple_shape(k);
    Sharding leaf = root_sharding.IsTuple() ? root_sharding.tuple_elements()[k] : root_sharding;
    Instruction* g = entry->AddInstruction(Opcode::kGetTupleElement, shape, fmt::format("leaf{}", k));
    g->AppendOperand(root);
    g->attrs().Set(AttrId::kIndex, k);
    Annotate(g, lift.LiftLeaf(leaf, shape.rank()));
    Shape full = shape;
    if (split) full.set_dim(0, shape.dim(0) * lift.M());
    Instruction* leave = entry->AddInstruction(Opcode::kCustomCall, full, fmt::format("leaf{}.full", k));
    leave->attrs().Set(AttrId::kCustomCallTarget, std::string("SPMDShardToFullShape"));
    leave->AppendOperand(g);
    Annotate(leave, lift.UnliftLeaf(leaf, shape.rank(), split));
    outs.push_back(leave);
    out_shapes.push_back(full);
  }
  Instruction* t = entry->AddInstruction(Opcode::kTuple, Shape::Tuple(out_shapes), "outputs");
  for (Instruction* o : outs) t->AppendOperand(o);
  entry->set_root(t);
}

// One partial-manual case; an empty string on success (or when the partitioner reports the
// module as unsupported, which is counted), else a description.
std::string RunManualCase(uint64_t seed, Totals& totals) {
  std::mt19937_64 pick(seed * 7919 + 13);
  static const int64_t kLayouts[][2] = {{1, 2}, {1, 4}, {2, 2}, {2, 4}, {4, 2}, {2, 2}, {4, 2}, {1, 8}};  // G, M
  const int64_t* layout = kLayouts[pick() % 8];
  Generator g(seed, /*gather_scatter=*/false, layout[0]);
  std::string text = g.Build();
  int64_t n = layout[0] * layout[1];
  Lifter lift;
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (pick() % 3 != 0) std::shuffle(order.begin(), order.end(), pick);
  for (int64_t m = 0; m < layout[1]; ++m)
    lift.groups.emplace_back(order.begin() + m * layout[0], order.begin() + (m + 1) * layout[0]);
  auto parsed = ParseHloModule(text, "random");
  if (!parsed.ok()) return fmt::format("seed {}: generator produced invalid HLO: {}", seed, parsed.status().message());
  std::unique_ptr<Module> module = std::move(*parsed);
  std::unique_ptr<Module> original = std::move(*ParseHloModule(text, "random"));
  const bool split = seed % 2 == 1;
  MakePartialManual(*module, lift, split);
  std::string manual_text = PrintModule(*module);
  auto fail = [&](const std::string& why) {
    return fmt::format("partial-manual seed {} on {} devices ({} groups): {}\n{}", seed, n, layout[1], why,
                       manual_text);
  };
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  std::vector<Literal> args;
  for (int64_t i = 0; i < module->entry()->num_parameters(); ++i)
    args.push_back(RandomInput(module->entry()->parameter(i)->shape(), rng));
  SingleDeviceContext device;
  StatusOr<Literal> reference = Literal();
  if (!split) {
    reference = Execute(*module, args, &device);
  } else {
    // Group m runs the original program on the m-th block (rows) of every input; the outputs
    // are the groups' results stacked along dim 0.
    std::vector<Literal> per_group;
    for (int64_t m = 0; m < lift.M() && reference.ok(); ++m) {
      std::vector<Literal> block;
      for (const Literal& a : args) {
        Shape part = a.shape();
        part.set_dim(0, part.dim(0) / lift.M());
        Literal b(part);
        for (int64_t i = 0; i < b.num_elements(); ++i) b.SetDouble(i, a.GetDouble(m * b.num_elements() + i));
        block.push_back(std::move(b));
      }
      StatusOr<Literal> r = Execute(*original, block, &device);
      if (!r.ok()) reference = r.status();
      else per_group.push_back(std::move(*r));
    }
    if (reference.ok()) {
      std::vector<Literal> outs;
      for (int64_t k = 0; k < static_cast<int64_t>(per_group[0].elements().size()); ++k) {
        Shape full = per_group[0].elements()[k].shape();
        full.set_dim(0, full.dim(0) * lift.M());
        Literal o(full);
        for (int64_t m = 0; m < lift.M(); ++m) {
          const Literal& e = per_group[m].elements()[k];
          for (int64_t i = 0; i < e.num_elements(); ++i) o.SetDouble(m * e.num_elements() + i, e.GetDouble(i));
        }
        outs.push_back(std::move(o));
      }
      reference = Literal::Tuple(std::move(outs));
    }
  }
  if (!reference.ok()) return fail(fmt::format("reference failed: {}", reference.status().message()));
  module->set_num_partitions(n);
  if (seed % 3 == 0) {
    // A third of the cases keep only some region shardings (always the conversions') and let
    // propagation fill in the rest, as `spmdc compile` does.
    for (Computation* c : module->computations())
      for (Instruction* i : c->instructions())
        if (i->opcode() != Opcode::kParameter && i->opcode() != Opcode::kCustomCall && c->IsEntry() &&
            i != module->entry()->root() && pick() % 2 == 0)
          i->set_sharding(nullptr);
    manual_text = PrintModule(*module);
    if (EnvOr("SPMDC_RANDOM_VERBOSE", 0)) std::printf("seed %llu, to propagate:\n%s\n", static_cast<unsigned long long>(seed), manual_text.c_str());
    auto propagated = PropagateShardings(*module);
    if (!propagated.ok()) return fail(fmt::format("propagation failed: {}", propagated.status().message()));
  }
  if (EnvOr("SPMDC_RANDOM_VERBOSE", 0)) std::printf("seed %llu:\n%s\n", static_cast<unsigned long long>(seed), manual_text.c_str());
  auto partitioned = PartitionModule(*module, PartitionOptions{n});
  if (!partitioned.ok()) {
    if (partitioned.status().code() == absl::StatusCode::kUnimplemented) {
      ++totals.unsupported;
      if (EnvOr("SPMDC_RANDOM_VERBOSE", 0)) std::printf("unsupported: %s\n", std::string(partitioned.status().message()).c_str());
      return "";
    }
    return fail(fmt::format("partition failed: {}", partitioned.status().message()));
  }
  std::string error;
  std::optional<Literal> got = CleanUpAndRun(*partitioned, *module, n, args, totals, &error);
  if (!got) return fail(error);
  ++totals.cases;
  std::string diff = CompareOutputs(*got, *reference);
  return diff.empty() ? "" : fail(diff);
}

// Runs `run(seed)` for `cases` consecutive seeds from SPMDC_RANDOM_SEED; a non-empty result is a
// failure (the first five are reported). An exception is spmdc crashing on the case: `describe`
// says which.
void ForEachSeed(int64_t cases, const std::function<std::string(uint64_t)>& run,
                 const std::function<std::string(uint64_t, const char*)>& describe_crash) {
  uint64_t seed = EnvOr("SPMDC_RANDOM_SEED", 1);
  int64_t failures = 0;
  for (int64_t i = 0; i < cases; ++i) {
    std::string problem;
    try {
      problem = run(seed + i);
    } catch (const std::exception& e) {
      problem = describe_crash(seed + i, e.what());
    }
    if (!problem.empty()) {
      ADD_FAILURE() << problem;
      if (++failures >= 5) break;
    }
  }
}

TEST(PartitionRandom, PartialManualRegions) {
  int64_t cases = EnvOr("SPMDC_RANDOM_MANUAL_CASES", 300);
  Totals totals;
  ForEachSeed(
      cases, [&](uint64_t seed) { return RunManualCase(seed, totals); },
      [](uint64_t seed, const char* what) {
        return fmt::format("partial-manual seed {}: internal error (crash in spmdc): {}", seed, what);
      });
  std::printf("partial-manual cases: %lld compared, %lld unsupported (exit 3), %lld collectives\n",
              static_cast<long long>(totals.cases), static_cast<long long>(totals.unsupported),
              static_cast<long long>(totals.collectives));
  // Most cases must partition; unsupported ones only fail cleanly.
  EXPECT_GE(totals.cases * 2, cases);
}

void RunCases(int64_t cases, bool gather_scatter) {
  Totals totals;
  ForEachSeed(
      cases, [&](uint64_t seed) { return RunCase(seed, totals, gather_scatter); },
      [&](uint64_t seed, const char* what) {
        // Internal CHECK failures: spmdc would crash on this module.
        Generator g(seed, gather_scatter);
        return fmt::format("seed {}: internal error (crash in spmdc): {}\n{}", seed, what, g.Build());
      });
  std::printf("random partition cases: %lld compared (%lld output elements), %lld collectives, %lld full "
              "rematerializations\n", static_cast<long long>(totals.cases), static_cast<long long>(totals.elements),
              static_cast<long long>(totals.collectives), static_cast<long long>(totals.remats));
}

TEST(PartitionRandom, MatchesSingleDevice) { RunCases(EnvOr("SPMDC_RANDOM_CASES", 1500), false); }

// Programs with gathers and scatters (embedding-like lookups, scatter-add / max / assign).
TEST(PartitionRandom, GatherScatterMatchesSingleDevice) { RunCases(EnvOr("SPMDC_RANDOM_CASES", 800), true); }

}  // namespace
}  // namespace spmdc
