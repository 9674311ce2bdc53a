#include "ir/literal.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include <sys/mman.h>

#include "fmt/format.h"

#include "absl/container/flat_hash_map.h"
#include "ir/float_types.h"
#include "ir/memory_account.h"
#include "support/check.h"

namespace spmdc {

namespace {
// Buffers at least this big come straight from mmap, 2 MiB aligned with transparent huge pages
// (512 times fewer page faults on first touch), and are recycled through a small process-wide
// cache: a program that allocates and frees the same big value repeatedly (every step of a
// loop, every run of a benchmark) then reuses memory that is already mapped.
constexpr int64_t kMmapThreshold = int64_t{4} << 20;
constexpr int64_t kHugePage = int64_t{2} << 20;
constexpr int64_t kCacheBytes = int64_t{1} << 30;
constexpr size_t kCacheEntries = 16;

int64_t MappedLength(int64_t size) { return (size + kHugePage - 1) / kHugePage * kHugePage; }

struct MappedCache {
  std::mutex mu;
  std::vector<std::pair<int64_t, void*>> free;  // (mapped length, address)
  int64_t bytes = 0;
};
MappedCache& Cache() {
  static auto* cache = new MappedCache();
  return *cache;
}

// Returns a mapping of `len` bytes and whether it is fresh (then zero-filled by the kernel).
std::pair<void*, bool> MapLarge(int64_t len) {
  {
    MappedCache& c = Cache();
    std::lock_guard<std::mutex> lock(c.mu);
    for (size_t i = 0; i < c.free.size(); ++i) {
      if (c.free[i].first == len) {
        void* p = c.free[i].second;
        c.free.erase(c.free.begin() + i);
        c.bytes -= len;
        return {p, false};
      }
    }
  }
  void* p = mmap(nullptr, len + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                 -1, 0);
  SPMDC_CHECK_MSG(p != MAP_FAILED, "out of memory");
  // Keep a huge-page aligned window of `len` bytes; return the rest.
  const uintptr_t base = reinterpret_cast<uintptr_t>(p);
  const uintptr_t aligned = (base + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > base) munmap(p, aligned - base);
  const uintptr_t end = base + len + kHugePage;
  if (end > aligned + len) munmap(reinterpret_cast<void*>(aligned + len), end - aligned - len);
  madvise(reinterpret_cast<void*>(aligned), len, MADV_HUGEPAGE);
  return {reinterpret_cast<void*>(aligned), true};
}

// Buffers charged to a MemoryAccount: data pointer -> (account, bytes). Only touched while some
// account is in use (tracked > 0), so untracked programs pay one relaxed load per free.
struct ChargedBuffers {
  std::mutex mu;
  absl::flat_hash_map<const void*, std::pair<MemoryAccount*, int64_t>> map;
  std::atomic<int64_t> tracked{0};
};
ChargedBuffers& Charged() {
  static auto* charged = new ChargedBuffers();
  return *charged;
}
thread_local MemoryAccount* current_account = nullptr;

void Charge(const void* data, int64_t bytes) {
  MemoryAccount* a = current_account;
  if (a == nullptr) return;
  ChargedBuffers& c = Charged();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    c.map[data] = {a, bytes};
    c.tracked.fetch_add(1, std::memory_order_relaxed);
  }
  a->Allocate(bytes);
}

void Credit(const void* data) {
  ChargedBuffers& c = Charged();
  if (c.tracked.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard<std::mutex> lock(c.mu);
  auto it = c.map.find(data);
  if (it == c.map.end()) return;
  it->second.first->Free(it->second.second);
  c.map.erase(it);
  c.tracked.fetch_sub(1, std::memory_order_relaxed);
}

void UnmapLarge(void* p, int64_t len) {
  {
    MappedCache& c = Cache();
    std::lock_guard<std::mutex> lock(c.mu);
    if (c.bytes + len <= kCacheBytes && c.free.size() < kCacheEntries) {
      c.free.emplace_back(len, p);
      c.bytes += len;
      return;
    }
  }
  munmap(p, len);
}
}  // namespace

Buffer::Buffer(int64_t size_bytes, bool zero_fill) : size_(size_bytes) {
  if (size_bytes >= kMmapThreshold) {
    auto [p, fresh] = MapLarge(MappedLength(size_bytes));
    data_ = static_cast<std::byte*>(p);
    if (!fresh && zero_fill) std::memset(data_, 0, size_bytes);
    Charge(data_, size_bytes);
    return;
  }
  int64_t alloc = ((std::max<int64_t>(size_bytes, 1) + 63) / 64) * 64;
  data_ = static_cast<std::byte*>(std::aligned_alloc(64, alloc));
  SPMDC_CHECK_MSG(data_ != nullptr, "out of memory");
  if (zero_fill) std::memset(data_, 0, alloc);
  Charge(data_, size_bytes);
}

Buffer::~Buffer() {
  Credit(data_);
  if (size_ >= kMmapThreshold) {
    UnmapLarge(data_, MappedLength(size_));
  } else {
    std::free(data_);
  }
}

MemoryAccount::~MemoryAccount() {
  ChargedBuffers& c = Charged();
  std::lock_guard<std::mutex> lock(c.mu);
  for (auto it = c.map.begin(); it != c.map.end();) {
    if (it->second.first == this) {
      c.map.erase(it++);
      c.tracked.fetch_sub(1, std::memory_order_relaxed);
    } else {
      ++it;
    }
  }
}

void MemoryAccount::Allocate(int64_t bytes) {
  const int64_t now = live_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

MemoryAccount* CurrentMemoryAccount() { return current_account; }

ScopedMemoryAccount::ScopedMemoryAccount(MemoryAccount* account) : previous_(current_account) {
  current_account = account;
}
ScopedMemoryAccount::~ScopedMemoryAccount() { current_account = previous_; }

Literal::Literal(const Shape& shape) : shape_(shape) {
  if (shape.IsTuple()) {
    elements_.reserve(shape.tuple_size());
    for (const Shape& s : shape.tuple_shapes()) elements_.emplace_back(s);
  } else if (shape.IsArray()) {
    buffer_ = std::make_shared<Buffer>(shape.byte_size());
  }
}

Literal Literal::ForOverwrite(const Shape& shape) {
  SPMDC_CHECK(shape.IsArray());
  Literal out;
  out.shape_ = shape;
  out.buffer_ = std::make_shared<Buffer>(shape.byte_size(), /*zero_fill=*/false);
  return out;
}

Literal Literal::Tuple(std::vector<Literal> elements) {
  std::vector<Shape> shapes;
  shapes.reserve(elements.size());
  for (const Literal& e : elements) shapes.push_back(e.shape());
  Literal out;
  out.shape_ = Shape::Tuple(std::move(shapes));
  out.elements_ = std::move(elements);
  return out;
}

std::byte* Literal::mutable_raw() {
  elided_ = false;  // the contents are now meant
  if (!buffer_) return nullptr;
  if (buffer_.use_count() > 1) {
    auto copy = std::make_shared<Buffer>(buffer_->size());
    std::memcpy(copy->data(), buffer_->data(), buffer_->size());
    buffer_ = std::move(copy);
  }
  return buffer_->data();
}

Literal Literal::Reshaped(const Shape& shape) const {
  SPMDC_CHECK(shape.IsArray() && shape.dtype() == shape_.dtype() &&
              shape.num_elements() == shape_.num_elements());
  Literal out = *this;
  out.shape_ = shape;
  return out;
}

Literal Literal::BitcastTo(const Shape& shape) const {
  SPMDC_CHECK(shape.IsArray() && shape.byte_size() == shape_.byte_size());
  Literal out = *this;
  out.shape_ = shape;
  return out;
}

namespace {

template <typename F>
auto DispatchRead(DType t, const std::byte* p, int64_t i, F&& f) {
  switch (t) {
    case DType::kPred: return f(static_cast<double>(reinterpret_cast<const uint8_t*>(p)[i] != 0),
                                static_cast<int64_t>(reinterpret_cast<const uint8_t*>(p)[i] != 0), true);
    case DType::kS1: case DType::kS2: case DType::kS4: case DType::kS8: {
      auto v = reinterpret_cast<const int8_t*>(p)[i];
      return f(static_cast<double>(v), static_cast<int64_t>(v), true);
    }
    case DType::kS16: { auto v = reinterpret_cast<const int16_t*>(p)[i]; return f(double(v), int64_t(v), true); }
    case DType::kS32: { auto v = reinterpret_cast<const int32_t*>(p)[i]; return f(double(v), int64_t(v), true); }
    case DType::kS64: { auto v = reinterpret_cast<const int64_t*>(p)[i]; return f(double(v), int64_t(v), true); }
    case DType::kU1: case DType::kU2: case DType::kU4: case DType::kU8: {
      auto v = reinterpret_cast<const uint8_t*>(p)[i];
      return f(double(v), int64_t(v), true);
    }
    case DType::kU16: { auto v = reinterpret_cast<const uint16_t*>(p)[i]; return f(double(v), int64_t(v), true); }
    case DType::kU32: { auto v = reinterpret_cast<const uint32_t*>(p)[i]; return f(double(v), int64_t(v), true); }
    case DType::kU64: { auto v = reinterpret_cast<const uint64_t*>(p)[i]; return f(double(v), static_cast<int64_t>(v), true); }
    case DType::kF16: return f(double(HalfToFloat(reinterpret_cast<const uint16_t*>(p)[i])), int64_t(0), false);
    case DType::kBF16: return f(double(BF16ToFloat(reinterpret_cast<const uint16_t*>(p)[i])), int64_t(0), false);
    case DType::kF32: return f(double(reinterpret_cast<const float*>(p)[i]), int64_t(0), false);
    case DType::kF64: return f(reinterpret_cast<const double*>(p)[i], int64_t(0), false);
    case DType::kC64: return f(double(reinterpret_cast<const float*>(p)[2 * i]), int64_t(0), false);
    case DType::kC128: return f(reinterpret_cast<const double*>(p)[2 * i], int64_t(0), false);
    default:
      SPMDC_CHECK(IsF8(t));
      return f(double(F8ToFloat(t, reinterpret_cast<const uint8_t*>(p)[i])), int64_t(0), false);
  }
}

// Truncating float-to-int conversion that saturates like XLA's convert (NaN -> 0).
int64_t SaturatingToInt(double d) {
  if (std::isnan(d)) return 0;
  if (d >= 9.2233720368547758e18) return INT64_MAX;
  if (d <= -9.2233720368547758e18) return INT64_MIN;
  return static_cast<int64_t>(d);
}

}  // namespace

double Literal::GetDouble(int64_t i) const {
  return DispatchRead(shape_.dtype(), raw(), i, [](double d, int64_t, bool) { return d; });
}

int64_t Literal::GetInt(int64_t i) const {
  return DispatchRead(shape_.dtype(), raw(), i, [](double d, int64_t v, bool is_int) {
    return is_int ? v : SaturatingToInt(d);
  });
}

uint64_t Literal::GetUint(int64_t i) const {
  if (shape_.dtype() == DType::kU64) return data<uint64_t>()[i];
  return static_cast<uint64_t>(GetInt(i));
}

std::complex<double> Literal::GetComplex(int64_t i) const {
  if (shape_.dtype() == DType::kC64) {
    const float* p = data<float>();
    return {p[2 * i], p[2 * i + 1]};
  }
  if (shape_.dtype() == DType::kC128) {
    const double* p = data<double>();
    return {p[2 * i], p[2 * i + 1]};
  }
  return {GetDouble(i), 0.0};
}

void Literal::SetDouble(int64_t i, double v) {
  std::byte* p = mutable_raw();
  DType t = shape_.dtype();
  switch (t) {
    case DType::kF16: reinterpret_cast<uint16_t*>(p)[i] = FloatToHalf(static_cast<float>(v)); return;
    case DType::kBF16: reinterpret_cast<uint16_t*>(p)[i] = FloatToBF16(static_cast<float>(v)); return;
    case DType::kF32: reinterpret_cast<float*>(p)[i] = static_cast<float>(v); return;
    case DType::kF64: reinterpret_cast<double*>(p)[i] = v; return;
    case DType::kC64: reinterpret_cast<float*>(p)[2 * i] = static_cast<float>(v);
                      reinterpret_cast<float*>(p)[2 * i + 1] = 0; return;
    case DType::kC128: reinterpret_cast<double*>(p)[2 * i] = v;
                       reinterpret_cast<double*>(p)[2 * i + 1] = 0; return;
    case DType::kPred: reinterpret_cast<uint8_t*>(p)[i] = v != 0; return;
    default:
      if (IsF8(t)) {
        reinterpret_cast<uint8_t*>(p)[i] = FloatToF8(t, static_cast<float>(v));
        return;
      }
      SetInt(i, SaturatingToInt(v));
  }
}

void Literal::SetInt(int64_t i, int64_t v) {
  std::byte* p = mutable_raw();
  DType t = shape_.dtype();
  switch (t) {
    case DType::kPred: reinterpret_cast<uint8_t*>(p)[i] = v != 0; return;
    case DType::kS1: reinterpret_cast<int8_t*>(p)[i] = static_cast<int8_t>(static_cast<int8_t>(v << 7) >> 7); return;
    case DType::kS2: reinterpret_cast<int8_t*>(p)[i] = static_cast<int8_t>(static_cast<int8_t>(v << 6) >> 6); return;
    case DType::kS4: reinterpret_cast<int8_t*>(p)[i] = static_cast<int8_t>(static_cast<int8_t>(v << 4) >> 4); return;
    case DType::kS8: reinterpret_cast<int8_t*>(p)[i] = static_cast<int8_t>(v); return;
    case DType::kS16: reinterpret_cast<int16_t*>(p)[i] = static_cast<int16_t>(v); return;
    case DType::kS32: reinterpret_cast<int32_t*>(p)[i] = static_cast<int32_t>(v); return;
    case DType::kS64: reinterpret_cast<int64_t*>(p)[i] = v; return;
    case DType::kU1: reinterpret_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(v & 1); return;
    case DType::kU2: reinterpret_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(v & 3); return;
    case DType::kU4: reinterpret_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(v & 15); return;
    case DType::kU8: reinterpret_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(v); return;
    case DType::kU16: reinterpret_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(v); return;
    case DType::kU32: reinterpret_cast<uint32_t*>(p)[i] = static_cast<uint32_t>(v); return;
    case DType::kU64: reinterpret_cast<uint64_t*>(p)[i] = static_cast<uint64_t>(v); return;
    default: SetDouble(i, static_cast<double>(v));
  }
}

void Literal::SetComplex(int64_t i, std::complex<double> v) {
  if (shape_.dtype() == DType::kC64) {
    float* p = mutable_data<float>();
    p[2 * i] = static_cast<float>(v.real());
    p[2 * i + 1] = static_cast<float>(v.imag());
  } else if (shape_.dtype() == DType::kC128) {
    double* p = mutable_data<double>();
    p[2 * i] = v.real();
    p[2 * i + 1] = v.imag();
  } else {
    SetDouble(i, v.real());
  }
}

bool Literal::BitwiseEqual(const Literal& o) const {
  if (!shape_.Equal(o.shape_, /*compare_layout=*/false)) return false;
  if (shape_.IsTuple()) {
    for (size_t i = 0; i < elements_.size(); ++i)
      if (!elements_[i].BitwiseEqual(o.elements_[i])) return false;
    return true;
  }
  if (!shape_.IsArray()) return true;
  return std::memcmp(raw(), o.raw(), shape_.byte_size()) == 0;
}

namespace {
std::string FormatFloat(double v, DType t) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // Shortest text that reads back to the same value of the dtype.
  int digits = t == DType::kF64 ? 17 : 9;
  for (int p = 1; p <= digits; ++p) {
    std::string s = fmt::format("{:.{}g}", v, p);
    double back = std::strtod(s.c_str(), nullptr);
    if (t == DType::kF64 ? back == v : RoundToDType(t, back) == RoundToDType(t, v)) return s;
  }
  return fmt::format("{:.17g}", v);
}
}  // namespace

std::string Literal::ElementToString(int64_t i) const {
  DType t = shape_.dtype();
  if (t == DType::kPred) return GetInt(i) ? "true" : "false";
  if (IsComplex(t)) {
    auto c = GetComplex(i);
    DType ct = ComplexComponentType(t);
    return fmt::format("({}, {})", FormatFloat(c.real(), ct), FormatFloat(c.imag(), ct));
  }
  if (IsFloat(t)) return FormatFloat(GetDouble(i), t);
  if (t == DType::kU64) return std::to_string(GetUint(i));
  return std::to_string(GetInt(i));
}

std::string Literal::ToHloText() const {
  if (shape_.IsTuple()) {
    std::string out = "(";
    for (size_t i = 0; i < elements_.size(); ++i) {
      if (i) out += ", ";
      out += elements_[i].ToHloText();
    }
    return out + ")";
  }
  if (shape_.IsToken()) return "token";
  if (shape_.rank() == 0) return ElementToString(0);
  std::string out;
  const auto& dims = shape_.dims();
  int64_t rank = shape_.rank();
  std::vector<int64_t> idx(rank, 0);
  int64_t n = num_elements();
  if (n == 0) {
    // Some dim is 0: nest braces down to the first empty dim, e.g. f32[2,0] -> {{}, {}}.
    std::function<std::string(int64_t)> empty = [&](int64_t d) -> std::string {
      if (dims[d] == 0 || d == rank - 1) return "{}";
      std::string s = "{";
      for (int64_t i = 0; i < dims[d]; ++i) s += (i ? ", " : "") + empty(d + 1);
      return s + "}";
    };
    return empty(0);
  }
  for (int64_t lin = 0; lin < n; ++lin) {
    // Open braces for every dim whose index just became 0.
    int64_t opened = 0;
    for (int64_t d = rank - 1; d >= 0 && idx[d] == 0; --d) ++opened;
    if (lin > 0) out += ", ";
    out.append(opened, '{');
    out += ElementToString(lin);
    int64_t closed = 0;
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
      ++closed;
    }
    out.append(closed, '}');
  }
  return out;
}

std::string Literal::Summary(int max_values) const {
  if (shape_.IsTuple()) {
    std::string out = "(";
    for (size_t i = 0; i < elements_.size(); ++i) {
      if (i) out += ", ";
      out += elements_[i].Summary(max_values);
    }
    return out + ")";
  }
  std::string out = shape_.ToString(false);
  if (!shape_.IsArray()) return out;
  out += " [";
  int64_t n = num_elements();
  for (int64_t i = 0; i < n && i < max_values; ++i) {
    if (i) out += ", ";
    out += ElementToString(i);
  }
  if (n > max_values) out += ", ...";
  return out + "]";
}

}  // namespace spmdc
