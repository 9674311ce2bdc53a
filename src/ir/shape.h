// Shapes of HLO values: arrays (element type + dims, optionally a layout), tuples and tokens.
//
// Layouts are kept so that printing reproduces them, but they carry no meaning for spmdc: every
// buffer the interpreter and runtime hold is row-major (dims listed major to minor).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace spmdc {

struct Layout {
  std::vector<int64_t> minor_to_major;
  // Everything after ':' inside the braces (tiles, memory space, ...), kept verbatim.
  std::string tail;
  bool operator==(const Layout&) const = default;
};

class Shape {
 public:
  Shape() = default;
  // An array shape.
  Shape(DType type, std::vector<int64_t> dims);
  static Shape Tuple(std::vector<Shape> elements);
  static Shape Token();
  static Shape Scalar(DType type) { return Shape(type, {}); }

  DType dtype() const { return dtype_; }
  void set_dtype(DType t) { dtype_ = t; }
  bool IsArray() const { return IsArrayType(dtype_); }
  bool IsTuple() const { return dtype_ == DType::kTuple; }
  bool IsToken() const { return dtype_ == DType::kToken; }

  // Array accessors.
  int64_t rank() const { return static_cast<int64_t>(dims_.size()); }
  const std::vector<int64_t>& dims() const { return dims_; }
  std::vector<int64_t>& mutable_dims() { return dims_; }
  int64_t dim(int64_t i) const { return dims_[i]; }
  void set_dim(int64_t i, int64_t v) { dims_[i] = v; }
  // Dimension i is dynamic: `<=N` (bounded, dim(i)=N) or `?` (unbounded, dim(i)=kUnbounded).
  bool is_dynamic_dim(int64_t i) const { return !dynamic_.empty() && dynamic_[i]; }
  void set_dynamic_dim(int64_t i, bool d);
  bool is_static() const;
  static constexpr int64_t kUnbounded = -1;

  // Element count of an array shape (1 for a scalar).
  int64_t num_elements() const;
  // Bytes of the array's dense storage (see dtype.h); tuples sum their leaves.
  int64_t byte_size() const;

  const std::optional<Layout>& layout() const { return layout_; }
  void set_layout(std::optional<Layout> l) { layout_ = std::move(l); }
  void clear_layout();  // recursively for tuples

  // Tuple accessors.
  const std::vector<Shape>& tuple_shapes() const { return tuple_; }
  std::vector<Shape>& mutable_tuple_shapes() { return tuple_; }
  const Shape& tuple_shape(int64_t i) const { return tuple_[i]; }
  int64_t tuple_size() const { return static_cast<int64_t>(tuple_.size()); }
  // The subshape at `index` (a path of tuple indices).
  const Shape& subshape(const std::vector<int64_t>& index) const;
  // Number of array/token leaves (pre-order).
  int64_t leaf_count() const;

  // Text as in HLO: f32[2,3]{1,0}, (f32[], s32[4]), token[].
  std::string ToString(bool print_layout = true) const;

  // Equality including dynamic flags; layout compared only by Equal(..., true).
  bool operator==(const Shape& o) const { return Equal(o, /*compare_layout=*/false); }
  bool Equal(const Shape& o, bool compare_layout) const;
  // Same dims and element type ignoring dynamic flags and layout.
  bool Compatible(const Shape& o) const;
  // Same dims (arrays) / structure, ignoring element types.
  bool CompatibleIgnoringElementType(const Shape& o) const;

 private:
  // dims_ and tuple_ first: they are what graph walks read (see Instruction's field order).
  DType dtype_ = DType::kF32;
  std::vector<int64_t> dims_;
  std::vector<Shape> tuple_;
  std::vector<bool> dynamic_;  // empty when static
  std::optional<Layout> layout_;
};

// Row-major strides (in elements) of `dims`.
std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims);

}  // namespace spmdc
