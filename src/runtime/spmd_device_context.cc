#include "runtime/spmd_device_context.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "ir/attributes.h"
#include "ir/collective_groups.h"
#include "ir/computation.h"
#include "runtime/host_sharding.h"

namespace spmdc {
namespace {

// The array operands of a collective (a single tuple operand counts as its elements).
StatusOr<std::vector<Literal>> ArrayOperands(const Instruction& instr,
                                             const std::vector<Literal>& operands) {
  std::vector<Literal> out;
  for (const Literal& l : operands) {
    if (l.shape().IsTuple()) {
      for (const Literal& e : l.elements()) out.push_back(e);
    } else {
      out.push_back(l);
    }
  }
  for (const Literal& l : out)
    if (!l.shape().IsArray())
      return InvalidArgument("{} '{}' has a non-array operand {}", OpcodeName(instr.opcode()),
                             instr.name(), l.shape().ToString(false));
  if (out.empty())
    return InvalidArgument("{} '{}' has no operands", OpcodeName(instr.opcode()), instr.name());
  return out;
}

// The result shape of array operand k (the instruction's shape, or its tuple element k).
StatusOr<Shape> ResultShape(const Instruction& instr, size_t k, size_t count) {
  const Shape& s = instr.shape();
  if (s.IsTuple()) {
    if (static_cast<size_t>(s.tuple_size()) != count)
      return InvalidArgument("{} '{}': {} operands for the result {}", OpcodeName(instr.opcode()),
                             instr.name(), count, s.ToString(false));
    return s.tuple_shape(k);
  }
  if (count != 1)
    return InvalidArgument("{} '{}': {} operands for the array result {}",
                           OpcodeName(instr.opcode()), instr.name(), count, s.ToString(false));
  return s;
}

Literal Pack(const Instruction& instr, std::vector<Literal> results) {
  if (instr.shape().IsTuple()) return Literal::Tuple(std::move(results));
  return std::move(results[0]);
}

Reduction MakeReduction(const Instruction& instr, DType dtype, const DeviceContext::ReduceFn& fn) {
  Reduction r;
  r.kind = ReductionKind::kCustom;
  if (const Computation* c = instr.to_apply())
    if (auto kind = MatchReductionComputation(*c)) r.kind = *kind;
  const int64_t eb = DTypeByteSize(dtype);
  r.combine = [&fn, dtype, eb, &instr](void* acc, const void* in, int64_t count) -> Status {
    std::byte* a = static_cast<std::byte*>(acc);
    const std::byte* b = static_cast<const std::byte*>(in);
    Literal x{Shape::Scalar(dtype)}, y{Shape::Scalar(dtype)};
    for (int64_t i = 0; i < count; ++i) {
      std::memcpy(x.mutable_raw(), a + i * eb, eb);
      std::memcpy(y.mutable_raw(), b + i * eb, eb);
      ASSIGN_OR_RETURN(Literal r, fn(x, y));
      if (!r.shape().IsArray() || r.shape().dtype() != dtype || r.num_elements() != 1)
        return InvalidArgument("the reduction of {} '{}' returned {} for {} operands",
                               OpcodeName(instr.opcode()), instr.name(), r.shape().ToString(false),
                               DTypeName(dtype));
      std::memcpy(a + i * eb, r.raw(), eb);
    }
    return absl::OkStatus();
  };
  return r;
}

int64_t Product(const std::vector<int64_t>& dims, int64_t from, int64_t to) {
  int64_t p = 1;
  for (int64_t i = from; i < to; ++i) p *= dims[i];
  return p;
}

StatusOr<int64_t> SingleDimension(const Instruction& instr, int64_t rank) {
  const auto& dims = instr.dimensions();
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= rank)
    return InvalidArgument("{} '{}' needs dimensions={{d}} with 0 <= d < {}",
                           OpcodeName(instr.opcode()), instr.name(), rank);
  return dims[0];
}

}  // namespace

SpmdDeviceContext::SpmdDeviceContext(Communicator* comm, int64_t num_partitions,
                                     int64_t replica_count)
    : comm_(comm),
      num_partitions_(std::max<int64_t>(1, num_partitions)),
      replica_count_(std::max<int64_t>(1, replica_count)),
      replica_(comm->rank() / num_partitions_),
      partition_(comm->rank() % num_partitions_) {}

StatusOr<DeviceGroup> SpmdDeviceContext::GroupOf(const Instruction& instr) const {
  return DeviceGroupOf(instr, replica_count_, num_partitions_, comm_->rank());
}

StatusOr<Literal> SpmdDeviceContext::AllReduce(const Instruction& instr,
                                               const std::vector<Literal>& operands,
                                               const ReduceFn& reduce) {
  ASSIGN_OR_RETURN(DeviceGroup group, GroupOf(instr));
  ASSIGN_OR_RETURN(std::vector<Literal> ins, ArrayOperands(instr, operands));
  std::vector<Literal> outs;
  for (size_t k = 0; k < ins.size(); ++k) {
    ASSIGN_OR_RETURN(Shape rs, ResultShape(instr, k, ins.size()));
    const Shape& s = ins[k].shape();
    if (!rs.Compatible(s))
      return InvalidArgument("all-reduce '{}': operand {} does not match the result {}",
                             instr.name(), s.ToString(false), rs.ToString(false));
    Literal out(s);
    const Reduction red = MakeReduction(instr, s.dtype(), reduce);
    RETURN_IF_ERROR(
        comm_->AllReduce(group, s.dtype(), ins[k].raw(), out.mutable_raw(), s.num_elements(), red));
    outs.push_back(std::move(out));
  }
  return Pack(instr, std::move(outs));
}

StatusOr<Literal> SpmdDeviceContext::AllGather(const Instruction& instr,
                                               const std::vector<Literal>& operands) {
  ASSIGN_OR_RETURN(DeviceGroup group, GroupOf(instr));
  ASSIGN_OR_RETURN(std::vector<Literal> ins, ArrayOperands(instr, operands));
  const int64_t n = static_cast<int64_t>(group.size());
  std::vector<Literal> outs;
  for (size_t k = 0; k < ins.size(); ++k) {
    ASSIGN_OR_RETURN(Shape rs, ResultShape(instr, k, ins.size()));
    const Shape& s = ins[k].shape();
    ASSIGN_OR_RETURN(int64_t d, SingleDimension(instr, s.rank()));
    Shape expect = s;
    expect.set_dim(d, s.dim(d) * n);
    if (!rs.Compatible(expect))
      return InvalidArgument(
          "all-gather '{}': {} gathered over {} devices on dim {} gives {}, "
          "not {}",
          instr.name(), s.ToString(false), n, d, expect.ToString(false), rs.ToString(false));
    Literal out(expect);
    const int64_t eb = DTypeByteSize(s.dtype());
    const int64_t bytes = s.num_elements() * eb;
    const int64_t outer = Product(s.dims(), 0, d);
    if (outer == 1) {
      RETURN_IF_ERROR(comm_->AllGather(group, ins[k].raw(), out.mutable_raw(), bytes));
    } else {
      std::vector<std::byte> tmp(n * bytes);
      RETURN_IF_ERROR(comm_->AllGather(group, ins[k].raw(), tmp.data(), bytes));
      const int64_t inner = bytes / outer;
      std::byte* o = out.mutable_raw();
      for (int64_t j = 0; j < n; ++j)
        for (int64_t q = 0; q < outer; ++q)
          std::memcpy(o + (q * n + j) * inner, tmp.data() + j * bytes + q * inner, inner);
    }
    outs.push_back(std::move(out));
  }
  return Pack(instr, std::move(outs));
}

StatusOr<Literal> SpmdDeviceContext::ReduceScatter(const Instruction& instr,
                                                   const std::vector<Literal>& operands,
                                                   const ReduceFn& reduce) {
  ASSIGN_OR_RETURN(DeviceGroup group, GroupOf(instr));
  ASSIGN_OR_RETURN(std::vector<Literal> ins, ArrayOperands(instr, operands));
  const int64_t n = static_cast<int64_t>(group.size());
  std::vector<Literal> outs;
  for (size_t k = 0; k < ins.size(); ++k) {
    ASSIGN_OR_RETURN(Shape rs, ResultShape(instr, k, ins.size()));
    const Shape& s = ins[k].shape();
    ASSIGN_OR_RETURN(int64_t d, SingleDimension(instr, s.rank()));
    if (s.dim(d) % n != 0)
      return InvalidArgument("reduce-scatter '{}': dim {} of {} does not split over {} devices",
                             instr.name(), d, s.ToString(false), n);
    Shape expect = s;
    expect.set_dim(d, s.dim(d) / n);
    if (!rs.Compatible(expect))
      return InvalidArgument(
          "reduce-scatter '{}': {} scattered over {} devices on dim {} gives "
          "{}, not {}",
          instr.name(), s.ToString(false), n, d, expect.ToString(false), rs.ToString(false));
    Literal out(expect);
    const int64_t eb = DTypeByteSize(s.dtype());
    const int64_t outer = Product(s.dims(), 0, d);
    const int64_t chunk_elems = expect.num_elements();
    const std::byte* send = ins[k].raw();
    std::vector<std::byte> tmp;
    if (outer > 1 && chunk_elems > 0) {
      // [outer][n][inner] -> [n][outer][inner]
      const int64_t inner = chunk_elems / outer * eb;
      tmp.resize(n * chunk_elems * eb);
      for (int64_t j = 0; j < n; ++j)
        for (int64_t q = 0; q < outer; ++q)
          std::memcpy(tmp.data() + (j * outer + q) * inner, send + (q * n + j) * inner, inner);
      send = tmp.data();
    }
    const Reduction red = MakeReduction(instr, s.dtype(), reduce);
    RETURN_IF_ERROR(
        comm_->ReduceScatter(group, s.dtype(), send, out.mutable_raw(), chunk_elems, red));
    outs.push_back(std::move(out));
  }
  return Pack(instr, std::move(outs));
}

StatusOr<Literal> SpmdDeviceContext::AllToAll(const Instruction& instr,
                                              const std::vector<Literal>& operands) {
  ASSIGN_OR_RETURN(DeviceGroup group, GroupOf(instr));
  ASSIGN_OR_RETURN(std::vector<Literal> ins, ArrayOperands(instr, operands));
  const int64_t n = static_cast<int64_t>(group.size());
  // XLA's array form writes its one split (= concatenation) dimension as dimensions={d};
  // split_dimension is accepted too.
  const bool array_form = instr.attrs().Has(AttrId::kSplitDimension) ||
                          (ins.size() == 1 && instr.attrs().Has(AttrId::kDimensions));
  if (!array_form) {
    // Tuple form: operand j goes to member j; result element i comes from member i.
    if (static_cast<int64_t>(ins.size()) != n)
      return InvalidArgument("all-to-all '{}' (tuple form) has {} operands for a group of {}",
                             instr.name(), ins.size(), n);
    const int64_t bytes = ins[0].shape().byte_size();
    for (const Literal& l : ins)
      if (l.shape().byte_size() != bytes)
        return InvalidArgument("all-to-all '{}' (tuple form) needs operands of equal size",
                               instr.name());
    std::vector<std::byte> send(n * bytes), recv(n * bytes);
    for (int64_t j = 0; j < n; ++j)
      if (bytes > 0) std::memcpy(send.data() + j * bytes, ins[j].raw(), bytes);
    RETURN_IF_ERROR(comm_->AllToAll(group, send.data(), recv.data(), bytes));
    std::vector<Literal> outs;
    for (int64_t i = 0; i < n; ++i) {
      ASSIGN_OR_RETURN(Shape rs, ResultShape(instr, i, ins.size()));
      if (!rs.IsArray() || rs.byte_size() != bytes)
        return InvalidArgument("all-to-all '{}': result element {} is {}", instr.name(), i,
                               rs.ToString(false));
      rs.clear_layout();
      Literal out(rs);
      if (bytes > 0) std::memcpy(out.mutable_raw(), recv.data() + i * bytes, bytes);
      outs.push_back(std::move(out));
    }
    return Pack(instr, std::move(outs));
  }
  // Array form: split along split_dimension, concatenate what arrives along dimensions={c}.
  if (ins.size() != 1)
    return Unimplemented("all-to-all '{}' with split_dimension and {} operands", instr.name(),
                         ins.size());
  const Literal& in = ins[0];
  const Shape& s = in.shape();
  ASSIGN_OR_RETURN(int64_t cd, SingleDimension(instr, s.rank()));
  const int64_t sd = instr.int_attr(AttrId::kSplitDimension, cd);
  if (sd < 0 || sd >= s.rank() || s.dim(sd) % n != 0)
    return InvalidArgument(
        "all-to-all '{}': split_dimension {} of {} does not split over {} "
        "devices",
        instr.name(), sd, s.ToString(false), n);
  std::vector<int64_t> chunk = s.dims();
  chunk[sd] /= n;
  Shape expect(s.dtype(), chunk);
  expect.set_dim(cd, chunk[cd] * n);
  ASSIGN_OR_RETURN(Shape rs, ResultShape(instr, 0, 1));
  if (!rs.Compatible(expect))
    return InvalidArgument("all-to-all '{}': the result should be {}, not {}", instr.name(),
                           expect.ToString(false), rs.ToString(false));
  Literal out(expect);
  const int64_t eb = DTypeByteSize(s.dtype());
  int64_t chunk_elems = 1;
  for (int64_t c : chunk) chunk_elems *= c;
  const int64_t bytes = chunk_elems * eb;
  const std::vector<int64_t> zeros(s.rank(), 0);
  // Chunks are contiguous in the input when every dim before sd has size 1, and land contiguously
  // in the output when every dim before cd has size 1.
  const bool send_direct = Product(s.dims(), 0, sd) == 1;
  const bool recv_direct = Product(expect.dims(), 0, cd) == 1;
  std::vector<std::byte> send_buf, recv_buf;
  const std::byte* send = in.raw();
  if (!send_direct && bytes > 0) {
    send_buf.resize(n * bytes);
    for (int64_t j = 0; j < n; ++j) {
      std::vector<int64_t> start = zeros;
      start[sd] = j * chunk[sd];
      CopyBox(in.raw(), s.dims(), start, send_buf.data() + j * bytes, chunk, zeros, chunk, eb);
    }
    send = send_buf.data();
  }
  std::byte* recv = out.mutable_raw();
  if (!recv_direct && bytes > 0) {
    recv_buf.resize(n * bytes);
    recv = recv_buf.data();
  }
  RETURN_IF_ERROR(comm_->AllToAll(group, send, recv, bytes));
  if (!recv_direct && bytes > 0) {
    for (int64_t i = 0; i < n; ++i) {
      std::vector<int64_t> start = zeros;
      start[cd] = i * chunk[cd];
      CopyBox(recv_buf.data() + i * bytes, chunk, zeros, out.mutable_raw(), expect.dims(), start,
              chunk, eb);
    }
  }
  return out;
}

StatusOr<Literal> SpmdDeviceContext::CollectivePermute(const Instruction& instr,
                                                       const std::vector<Literal>& operands) {
  if (operands.size() != 1)
    return Unimplemented("collective-permute '{}' with {} operands (in-place form)", instr.name(),
                         operands.size());
  ASSIGN_OR_RETURN(auto pairs, GlobalPermutePairs(instr, replica_count_, num_partitions_));
  // Only the devices connected to this one through pairs take part (as with XLA's pairwise
  // send/recv): pairs that never meet run independently, e.g. one set per manual group of a
  // partial-manual region, where the groups may take different branches of a conditional.
  DeviceGroup participants = {replica_ * num_partitions_ + partition_};
  for (size_t grown = 0; grown < participants.size(); ++grown)
    for (const auto& [a, b] : pairs)
      for (int64_t x : {a, b})
        if ((a == participants[grown] || b == participants[grown]) &&
            std::find(participants.begin(), participants.end(), x) == participants.end())
          participants.push_back(x);
  std::sort(participants.begin(), participants.end());
  ASSIGN_OR_RETURN(std::vector<Literal> ins, ArrayOperands(instr, operands));
  std::vector<Literal> outs;
  for (size_t k = 0; k < ins.size(); ++k) {
    ASSIGN_OR_RETURN(Shape rs, ResultShape(instr, k, ins.size()));
    if (!rs.Compatible(ins[k].shape()))
      return InvalidArgument("collective-permute '{}': operand {} does not match the result {}",
                             instr.name(), ins[k].shape().ToString(false), rs.ToString(false));
    Literal out(ins[k].shape());
    RETURN_IF_ERROR(comm_->CollectivePermute(participants, pairs, ins[k].raw(), out.mutable_raw(),
                                             ins[k].shape().byte_size()));
    outs.push_back(std::move(out));
  }
  return Pack(instr, std::move(outs));
}

StatusOr<Literal> SpmdDeviceContext::CollectiveBroadcast(const Instruction& instr,
                                                         const std::vector<Literal>& operands) {
  ASSIGN_OR_RETURN(DeviceGroup group, GroupOf(instr));
  ASSIGN_OR_RETURN(std::vector<Literal> ins, ArrayOperands(instr, operands));
  std::vector<Literal> outs;
  for (size_t k = 0; k < ins.size(); ++k) {
    ASSIGN_OR_RETURN(Shape rs, ResultShape(instr, k, ins.size()));
    if (!rs.Compatible(ins[k].shape()))
      return InvalidArgument("collective-broadcast '{}': operand {} does not match the result {}",
                             instr.name(), ins[k].shape().ToString(false), rs.ToString(false));
    Literal out(ins[k].shape());
    RETURN_IF_ERROR(comm_->CollectiveBroadcast(group, 0, ins[k].raw(), out.mutable_raw(),
                                               ins[k].shape().byte_size()));
    outs.push_back(std::move(out));
  }
  return Pack(instr, std::move(outs));
}

}  // namespace spmdc
