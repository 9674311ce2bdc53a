// Literal: a dense host value of any Shape: a row-major typed buffer for arrays, a list of
// literals for tuples, nothing for tokens. Storage per dtype is described in dtype.h.
//
// Buffers are shared and immutable once published: copying a Literal, or Reshaped(), shares the
// buffer (so reshape/bitcast/get-tuple-element never copy data). mutable_data() copies first if
// the buffer is shared (copy on write).
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/shape.h"

namespace spmdc {

// A 64-byte aligned byte buffer.
class Buffer {
 public:
  explicit Buffer(int64_t size_bytes, bool zero_fill = true);  // zero-filled unless told not to
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  std::byte* data() { return data_; }
  const std::byte* data() const { return data_; }
  int64_t size() const { return size_; }

 private:
  std::byte* data_ = nullptr;
  int64_t size_ = 0;
};

class Literal {
 public:
  Literal() : shape_(Shape::Tuple({})) {}
  // A zero-filled array (or tuple of zero-filled arrays, or token) of `shape`.
  explicit Literal(const Shape& shape);
  static Literal Tuple(std::vector<Literal> elements);
  // An array of `shape` whose contents are unspecified, for producers that write every element
  // (skips zero-filling big buffers). Array shapes only.
  static Literal ForOverwrite(const Shape& shape);
  // A literal with uninitialised contents would be a footgun; every constructor zero-fills.

  const Shape& shape() const { return shape_; }
  int64_t num_elements() const { return shape_.num_elements(); }
  int64_t size_bytes() const { return buffer_ ? buffer_->size() : 0; }

  // Typed views (T must be the storage type of the dtype; see dtype.h).
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(buffer_ ? buffer_->data() : nullptr);
  }
  template <typename T>
  T* mutable_data() {
    return reinterpret_cast<T*>(mutable_raw());
  }
  const std::byte* raw() const { return buffer_ ? buffer_->data() : nullptr; }
  std::byte* mutable_raw();

  // Same data, new dims (element count and dtype must match). Shares the buffer.
  Literal Reshaped(const Shape& shape) const;
  // Same bytes reinterpreted as another array shape of equal byte size. Shares the buffer.
  Literal BitcastTo(const Shape& shape) const;

  // Tuples.
  const std::vector<Literal>& elements() const { return elements_; }
  std::vector<Literal>& mutable_elements() { return elements_; }
  const Literal& element(int64_t i) const { return elements_[i]; }

  // Generic element access by linear index, converting from/to the stored dtype.
  double GetDouble(int64_t i) const;
  int64_t GetInt(int64_t i) const;   // integers/pred exactly; floats truncated
  uint64_t GetUint(int64_t i) const;
  std::complex<double> GetComplex(int64_t i) const;
  void SetDouble(int64_t i, double v);  // rounds to the dtype (nearest even)
  void SetInt(int64_t i, int64_t v);    // wraps to the dtype's width
  void SetComplex(int64_t i, std::complex<double> v);

  // Exact equality of shape (ignoring layout) and bytes; NaN bit patterns must match too.
  bool BitwiseEqual(const Literal& o) const;

  // A constant written `{...}` in HLO text (XLA's elided constants): its contents are
  // deterministic placeholders, and the printer writes `{...}` again rather than inventing a
  // value. Copies and reshapes keep the mark; writing any element (mutable_raw) clears it.
  bool elided() const { return elided_; }
  void set_elided(bool elided) { elided_ = elided; }

  // Short human text: shape and the first few values.
  std::string Summary(int max_values = 8) const;
  // Full HLO text of the literal's value (without the shape), e.g. {{1, 2}, {3, 4}}.
  std::string ToHloText() const;
  // Text of element i as HLO prints it (1, -1.5, inf, nan, true, (1, 2)).
  std::string ElementToString(int64_t i) const;

 private:
  Shape shape_;
  std::shared_ptr<Buffer> buffer_;
  std::vector<Literal> elements_;
  bool elided_ = false;
};

}  // namespace spmdc
