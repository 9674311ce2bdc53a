#include "ir/dtype.h"

#include <array>

namespace spmdc {
namespace {
struct DTypeInfo {
  std::string_view name;
  int bytes;
  DTypeFamily family;
};
constexpr DTypeInfo kInfos[] = {
#define SPMDC_DTYPE_INFO(e, name, bytes, family) {name, bytes, DTypeFamily::family},
    SPMDC_DTYPE_LIST(SPMDC_DTYPE_INFO)
#undef SPMDC_DTYPE_INFO
};
}  // namespace

std::string_view DTypeName(DType t) { return kInfos[static_cast<int>(t)].name; }
int DTypeByteSize(DType t) { return kInfos[static_cast<int>(t)].bytes; }
DTypeFamily DTypeFamilyOf(DType t) { return kInfos[static_cast<int>(t)].family; }

std::optional<DType> DTypeFromName(std::string_view name) {
  for (size_t i = 0; i < std::size(kInfos); ++i) {
    if (kInfos[i].name == name && static_cast<DType>(i) != DType::kTuple) return static_cast<DType>(i);
  }
  return std::nullopt;
}

int DTypeBitWidth(DType t) {
  switch (t) {
    case DType::kPred: return 1;
    case DType::kS1: case DType::kU1: return 1;
    case DType::kS2: case DType::kU2: return 2;
    case DType::kS4: case DType::kU4: case DType::kF4E2M1FN: return 4;
    default: return DTypeByteSize(t) * 8;
  }
}

bool IsF8(DType t) {
  switch (t) {
    case DType::kF8E5M2: case DType::kF8E4M3FN: case DType::kF8E4M3B11FNUZ:
    case DType::kF8E5M2FNUZ: case DType::kF8E4M3FNUZ: case DType::kF8E4M3: case DType::kF8E3M4:
    case DType::kF4E2M1FN: case DType::kF8E8M0FNU:
      return true;
    default: return false;
  }
}

DType ComplexComponentType(DType t) { return t == DType::kC128 ? DType::kF64 : DType::kF32; }

}  // namespace spmdc
