// Typed instruction (and module-header) attributes, keyed by AttrId from attributes.def.
//
// An instruction holds a short list of (AttrId, AttrValue). The attribute table fixes each
// attribute's kind, i.e. its text syntax and its C++ storage type:
//
//   kind             storage                                   text
//   kInt             int64_t                                   3
//   kBool            bool                                      true
//   kFloat           double                                    0.001
//   kIntList         std::vector<int64_t>                      {0,2}
//   kBoolList        std::vector<bool>                         {true,false} (or a bare bool)
//   kString          std::string (unescaped)                   "text"
//   kIdent           std::string                               LT, kLoop, FFT
//   kIdentList       std::vector<std::string>                  {default,highest}
//   kWindow          Window                                    {size=3x3 stride=2x2 pad=1_1x1_1}
//   kConvDims        ConvDims                                  b01f_01io->b01f
//   kPadding         PaddingConfig                             0_1x2_2_1
//   kSlice           SliceSpec                                 {[0:2], [1:9:2]}
//   kReplicaGroups   ReplicaGroups                             {{0,1},{2,3}}, [2,2]<=[4] or
//                                                              mesh['x'=2,'y'=2] {'y'}
//   kPairs           std::vector<std::pair<int64_t,int64_t>>   {{0,1},{1,0}}
//   kComputation     Computation*                              %comp
//   kComputationList std::vector<Computation*>                 {%a, %b}
//   kShape           Shape                                     (f32[2], token[])
//   kShapeList       std::vector<Shape>                        {f32[2]{0}, s32[]}
//   kMetadata        KeyValueList (values are raw tokens)       {op_type="dot" op_name="x"}
//   kKeyValues       KeyValueList (values are raw tokens)       {k="v", k2="w"}
//   kRaw             std::string: canonical token text          anything balanced
//   kInstrList       std::vector<Instruction*>                 {%a, %b}
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ir/shape.h"

namespace spmdc {

class Computation;
class Instruction;

enum class AttrId : uint8_t {
#define V(e, name, kind) e,
#include "ir/attributes.def"
#undef V
};

enum class AttrKind : uint8_t {
  kInt, kBool, kFloat, kIntList, kBoolList, kString, kIdent, kIdentList, kWindow, kConvDims,
  kPadding, kSlice, kReplicaGroups, kPairs, kComputation, kComputationList, kShape, kShapeList,
  kMetadata, kKeyValues, kRaw, kInstrList,
};

std::string_view AttrName(AttrId id);
AttrKind AttrKindOf(AttrId id);
std::optional<AttrId> AttrIdFromName(std::string_view name);
int NumAttrIds();

struct WindowDim {
  int64_t size = 1;
  int64_t stride = 1;
  int64_t padding_low = 0;
  int64_t padding_high = 0;
  int64_t window_dilation = 1;
  int64_t base_dilation = 1;
  bool window_reversal = false;
  bool operator==(const WindowDim&) const = default;
};
struct Window {
  std::vector<WindowDim> dims;
  bool operator==(const Window&) const = default;
};

// Convolution dimension numbers (dim_labels). Spatial vectors are in spatial-index order.
struct ConvDims {
  int64_t input_batch = 0, input_feature = 1;
  std::vector<int64_t> input_spatial;
  int64_t kernel_input_feature = 0, kernel_output_feature = 1;
  std::vector<int64_t> kernel_spatial;
  int64_t output_batch = 0, output_feature = 1;
  std::vector<int64_t> output_spatial;
  bool operator==(const ConvDims&) const = default;
};

struct PaddingDim {
  int64_t low = 0, high = 0, interior = 0;
  bool operator==(const PaddingDim&) const = default;
};
struct PaddingConfig {
  std::vector<PaddingDim> dims;
  bool operator==(const PaddingConfig&) const = default;
};

struct SliceSpec {
  std::vector<int64_t> starts, limits, strides;
  bool operator==(const SliceSpec&) const = default;
};

// Replica groups: either explicit lists, or the iota form [G,S]<=[reshape]T(perm), meaning
// arange(G*S).reshape(reshape).transpose(perm).reshape(G,S).
struct ReplicaGroups {
  std::vector<std::vector<int64_t>> groups;  // explicit form (empty when iota is set)
  struct Iota {
    int64_t num_groups = 0, group_size = 0;
    std::vector<int64_t> reshape_dims, transpose_perm;
    bool operator==(const Iota&) const = default;
  };
  std::optional<Iota> iota;
  // The mesh-axes form (SHARDY.md §3.3), `mesh['x'=2,'y'=4] {'y'}`, in canonical text; when set,
  // `groups` holds its expansion (the same lists the explicit form would give) and the printer
  // writes this text back.
  std::string mesh_form;
  // The groups as explicit lists, whatever the form.
  std::vector<std::vector<int64_t>> Expanded() const;
  bool operator==(const ReplicaGroups&) const = default;
};

using KeyValueList = std::vector<std::pair<std::string, std::string>>;
using PairList = std::vector<std::pair<int64_t, int64_t>>;

using AttrValue =
    std::variant<int64_t, bool, double, std::string, std::vector<int64_t>, std::vector<bool>,
                 std::vector<std::string>, Window, ConvDims, PaddingConfig, SliceSpec,
                 ReplicaGroups, PairList, Computation*, std::vector<Computation*>, Shape,
                 std::vector<Shape>, KeyValueList, std::vector<Instruction*>>;

// A small ordered list of attributes. Order of insertion is irrelevant: printing follows the
// attribute table.
class Attributes {
 public:
  bool Has(AttrId id) const { return Find(id) != nullptr; }
  const AttrValue* Find(AttrId id) const;
  AttrValue* Find(AttrId id);
  template <typename T>
  const T* Get(AttrId id) const {
    const AttrValue* v = Find(id);
    return v ? std::get_if<T>(v) : nullptr;
  }
  template <typename T>
  T* GetMutable(AttrId id) {
    AttrValue* v = Find(id);
    return v ? std::get_if<T>(v) : nullptr;
  }
  void Set(AttrId id, AttrValue value);
  void Remove(AttrId id);
  const std::vector<std::pair<AttrId, AttrValue>>& entries() const { return entries_; }
  std::vector<std::pair<AttrId, AttrValue>>& mutable_entries() { return entries_; }

  // Attributes whose names are not in the table: (name, canonical raw text), in input order.
  KeyValueList& unknown() { return unknown_; }
  const KeyValueList& unknown() const { return unknown_; }

 private:
  std::vector<std::pair<AttrId, AttrValue>> entries_;
  KeyValueList unknown_;
};

// Unquotes a raw string token ("a\"b" -> a"b); returns the input unchanged if not quoted.
std::string UnquoteRaw(std::string_view raw);
// Quotes and escapes `s` as an HLO string token.
std::string QuoteString(std::string_view s);

}  // namespace spmdc
