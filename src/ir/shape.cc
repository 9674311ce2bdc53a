#include "ir/shape.h"

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "support/check.h"

namespace spmdc {

Shape::Shape(DType type, std::vector<int64_t> dims) : dtype_(type), dims_(std::move(dims)) {}

Shape Shape::Tuple(std::vector<Shape> elements) {
  Shape s;
  s.dtype_ = DType::kTuple;
  s.tuple_ = std::move(elements);
  return s;
}

Shape Shape::Token() {
  Shape s;
  s.dtype_ = DType::kToken;
  return s;
}

void Shape::set_dynamic_dim(int64_t i, bool d) {
  if (dynamic_.empty()) {
    if (!d) return;
    dynamic_.assign(dims_.size(), false);
  }
  dynamic_[i] = d;
}

bool Shape::is_static() const {
  if (IsTuple()) {
    for (const Shape& s : tuple_) if (!s.is_static()) return false;
    return true;
  }
  for (bool d : dynamic_) if (d) return false;
  return true;
}

int64_t Shape::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

int64_t Shape::byte_size() const {
  if (IsTuple()) {
    int64_t n = 0;
    for (const Shape& s : tuple_) n += s.byte_size();
    return n;
  }
  if (!IsArray()) return 0;
  return num_elements() * DTypeByteSize(dtype_);
}

void Shape::clear_layout() {
  layout_.reset();
  for (Shape& s : tuple_) s.clear_layout();
}

const Shape& Shape::subshape(const std::vector<int64_t>& index) const {
  const Shape* s = this;
  for (int64_t i : index) {
    SPMDC_CHECK(s->IsTuple() && i >= 0 && i < s->tuple_size());
    s = &s->tuple_[i];
  }
  return *s;
}

int64_t Shape::leaf_count() const {
  if (!IsTuple()) return 1;
  int64_t n = 0;
  for (const Shape& s : tuple_) n += s.leaf_count();
  return n;
}

std::string Shape::ToString(bool print_layout) const {
  if (IsTuple()) {
    std::string out = "(";
    for (size_t i = 0; i < tuple_.size(); ++i) {
      if (i) out += ", ";
      out += tuple_[i].ToString(print_layout);
    }
    return out + ")";
  }
  if (IsToken()) return "token[]";
  std::string out = fmt::format("{}[", DTypeName(dtype_));
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) out += ",";
    if (is_dynamic_dim(i)) {
      out += dims_[i] == kUnbounded ? "?" : fmt::format("<={}", dims_[i]);
    } else {
      out += std::to_string(dims_[i]);
    }
  }
  out += "]";
  if (print_layout && layout_) {
    out += fmt::format("{{{}", fmt::join(layout_->minor_to_major, ","));
    if (!layout_->tail.empty()) out += ":" + layout_->tail;
    out += "}";
  }
  return out;
}

bool Shape::Equal(const Shape& o, bool compare_layout) const {
  if (dtype_ != o.dtype_) return false;
  if (IsTuple()) {
    if (tuple_.size() != o.tuple_.size()) return false;
    for (size_t i = 0; i < tuple_.size(); ++i)
      if (!tuple_[i].Equal(o.tuple_[i], compare_layout)) return false;
    return true;
  }
  if (dims_ != o.dims_) return false;
  for (size_t i = 0; i < dims_.size(); ++i)
    if (is_dynamic_dim(i) != o.is_dynamic_dim(i)) return false;
  if (compare_layout && layout_ != o.layout_) return false;
  return true;
}

bool Shape::Compatible(const Shape& o) const {
  if (dtype_ != o.dtype_) return false;
  if (IsTuple()) {
    if (tuple_.size() != o.tuple_.size()) return false;
    for (size_t i = 0; i < tuple_.size(); ++i)
      if (!tuple_[i].Compatible(o.tuple_[i])) return false;
    return true;
  }
  return dims_ == o.dims_;
}

bool Shape::CompatibleIgnoringElementType(const Shape& o) const {
  if (IsTuple() != o.IsTuple()) return false;
  if (IsTuple()) {
    if (tuple_.size() != o.tuple_.size()) return false;
    for (size_t i = 0; i < tuple_.size(); ++i)
      if (!tuple_[i].CompatibleIgnoringElementType(o.tuple_[i])) return false;
    return true;
  }
  if (IsToken() != o.IsToken()) return false;
  return dims_ == o.dims_;
}

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * dims[i + 1];
  return strides;
}

}  // namespace spmdc
