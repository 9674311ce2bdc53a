#include "npy.h"

#include "cli.h"
#include "runtime/host_sharding.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "fmt/format.h"
#include "fmt/ranges.h"

namespace spmdc {
namespace {

// The numpy type string used for a dtype on write, and whether the data needs conversion.
struct NpyType {
  std::string descr;
  DType stored;  // the dtype whose storage matches descr
};

NpyType NpyTypeFor(DType t) {
  switch (t) {
    case DType::kPred: return {"|b1", DType::kPred};
    case DType::kS8: case DType::kS4: case DType::kS2: return {"|i1", DType::kS8};
    case DType::kS16: return {"<i2", t};
    case DType::kS32: return {"<i4", t};
    case DType::kS64: return {"<i8", t};
    case DType::kU8: case DType::kU4: case DType::kU2: return {"|u1", DType::kU8};
    case DType::kU16: return {"<u2", t};
    case DType::kU32: return {"<u4", t};
    case DType::kU64: return {"<u8", t};
    case DType::kF16: return {"<f2", t};
    case DType::kF64: return {"<f8", t};
    case DType::kC64: return {"<c8", t};
    case DType::kC128: return {"<c16", t};
    default: return {"<f4", DType::kF32};  // f32, bf16, f8 family
  }
}

std::optional<DType> DTypeForDescr(const std::string& d) {
  static const std::pair<const char*, DType> kTable[] = {
      {"b1", DType::kPred}, {"i1", DType::kS8},  {"i2", DType::kS16}, {"i4", DType::kS32},
      {"i8", DType::kS64},  {"u1", DType::kU8},  {"u2", DType::kU16}, {"u4", DType::kU32},
      {"u8", DType::kU64},  {"f2", DType::kF16}, {"f4", DType::kF32}, {"f8", DType::kF64},
      {"c8", DType::kC64},  {"c16", DType::kC128}};
  if (d.size() < 2) return std::nullopt;
  if (d[0] == '>' && d.substr(1) != "b1" && d.substr(1) != "i1" && d.substr(1) != "u1")
    return std::nullopt;  // big-endian data is not supported
  std::string body = d.substr(1);
  for (const auto& [name, t] : kTable)
    if (body == name) return t;
  return std::nullopt;
}

// Converts every element of `src` into a new literal of dtype `to` (same dims).
Literal ConvertLiteral(const Literal& src, DType to) {
  Shape s(to, src.shape().dims());
  Literal out(s);
  int64_t n = src.num_elements();
  DType from = src.shape().dtype();
  for (int64_t i = 0; i < n; ++i) {
    if (IsComplex(to)) out.SetComplex(i, src.GetComplex(i));
    else if (IsFloat(to)) out.SetDouble(i, src.GetDouble(i));
    else if (IsFloat(from) || IsComplex(from)) out.SetDouble(i, src.GetDouble(i));
    else out.SetInt(i, src.GetInt(i));
  }
  return out;
}

// Extracts the value of 'key' from the header dict text.
std::optional<std::string> HeaderField(const std::string& header, const std::string& key) {
  size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) return std::nullopt;
  size_t colon = header.find(':', k);
  if (colon == std::string::npos) return std::nullopt;
  size_t start = colon + 1;
  while (start < header.size() && header[start] == ' ') ++start;
  if (start >= header.size()) return std::nullopt;
  char open = header[start];
  if (open == '\'') {
    size_t end = header.find('\'', start + 1);
    if (end == std::string::npos) return std::nullopt;
    return header.substr(start + 1, end - start - 1);
  }
  if (open == '(') {
    size_t end = header.find(')', start);
    if (end == std::string::npos) return std::nullopt;
    return header.substr(start + 1, end - start - 1);
  }
  size_t end = header.find_first_of(",}", start);
  if (end == std::string::npos) return std::nullopt;
  return header.substr(start, end - start);
}

}  // namespace

namespace {

// What a .npy header says: the element type, the dims and where the data starts.
struct NpyHeader {
  DType dtype = DType::kF32;
  std::vector<int64_t> dims;
  int64_t payload = 0;
};

// Reads the magic, the version and the header dict of the .npy file open in `in` (at its start),
// and checks that the array has the dims of `want`; `in` is left at the data.
StatusOr<NpyHeader> ReadNpyHeader(std::istream& in, const std::string& path, const Shape& want) {
  auto bad = [&](const std::string& what) {
    return InvalidArgument("{}: not a valid .npy file: {}", path, what);
  };
  char head[12] = {};
  in.read(head, 10);
  if (in.gcount() < 10 || std::memcmp(head, "\x93NUMPY", 6) != 0) return bad("missing magic");
  const int major = static_cast<unsigned char>(head[6]);
  size_t header_len = 0, header_start = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(head[8]) | (static_cast<unsigned char>(head[9]) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    in.read(head + 10, 2);
    if (in.gcount() < 2) return bad("truncated header");
    for (int i = 0; i < 4; ++i)
      header_len |= static_cast<size_t>(static_cast<unsigned char>(head[8 + i])) << (8 * i);
    header_start = 12;
  } else {
    return bad(fmt::format("unsupported version {}", major));
  }
  if (header_len > (size_t{1} << 24)) return bad("header too long");
  std::string header(header_len, '\0');
  in.read(header.data(), header_len);
  if (static_cast<size_t>(in.gcount()) < header_len) return bad("truncated header");
  auto descr = HeaderField(header, "descr");
  auto order = HeaderField(header, "fortran_order");
  auto shape_text = HeaderField(header, "shape");
  if (!descr || !order || !shape_text) return bad("header lacks descr/fortran_order/shape");
  if (order->find("False") == std::string::npos) return bad("Fortran-ordered arrays are not supported");
  auto dtype = DTypeForDescr(*descr);
  if (!dtype) return bad(fmt::format("unsupported dtype '{}'", *descr));
  NpyHeader h;
  h.dtype = *dtype;
  std::stringstream ss(*shape_text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t b = item.find_first_not_of(' ');
    if (b == std::string::npos) continue;
    long long v = std::strtoll(item.c_str() + b, nullptr, 10);
    if (v < 0) return bad("negative dimension");
    h.dims.push_back(v);
  }
  if (h.dims != want.dims())
    return InvalidArgument("{}: array has shape ({}) but the parameter is {}", path,
                           fmt::join(h.dims, ", "), want.ToString(false));
  h.payload = static_cast<int64_t>(header_start + header_len);
  return h;
}

}  // namespace

StatusOr<Literal> ReadNpy(const std::string& path, const Shape& want) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgument("{}: cannot open file", path);
  ASSIGN_OR_RETURN(NpyHeader h, ReadNpyHeader(in, path, want));
  const Shape file_shape(h.dtype, h.dims);
  const int64_t bytes = file_shape.byte_size();
  Literal lit(file_shape);
  if (bytes > 0) {
    in.read(reinterpret_cast<char*>(lit.mutable_raw()), bytes);
    if (in.gcount() < bytes) return InvalidArgument("{}: not a valid .npy file: truncated data", path);
  }
  if (h.dtype == want.dtype()) return lit;
  return ConvertLiteral(lit, want.dtype());
}

StatusOr<Literal> ReadNpyBox(const std::string& path, const Shape& want,
                             const std::vector<int64_t>& lo, const std::vector<int64_t>& hi,
                             const Shape& out_shape) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgument("{}: cannot open file", path);
  auto bad = [&](const std::string& what) {
    return InvalidArgument("{}: not a valid .npy file: {}", path, what);
  };
  ASSIGN_OR_RETURN(NpyHeader h, ReadNpyHeader(in, path, want));
  const std::vector<int64_t>& dims = h.dims;
  const Shape file_shape(h.dtype, dims);
  const int64_t eb = DTypeByteSize(h.dtype);
  const int64_t payload = h.payload;
  in.seekg(0, std::ios::end);
  if (static_cast<int64_t>(in.tellg()) - payload < file_shape.byte_size())
    return bad("truncated data");
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> extent(rank);
  for (int64_t d = 0; d < rank; ++d) extent[d] = hi[d] - lo[d];
  Literal box(Shape(h.dtype, extent));
  bool empty = false;
  for (int64_t e : extent) empty |= e <= 0;
  if (!empty) {
    // Runs along the last dim (whole trailing dims merged), one seek and read each.
    int64_t m = rank, run = 1;
    while (m > 0) {
      run *= extent[m - 1];
      --m;
      if (extent[m] != dims[m]) break;
    }
    const std::vector<int64_t> fs = RowMajorStrides(dims);
    const std::vector<int64_t> bs = RowMajorStrides(extent);
    std::vector<int64_t> idx(m, 0);
    std::byte* dst = box.mutable_raw();
    for (;;) {
      int64_t f = 0, b = 0;
      for (int64_t d = 0; d < rank; ++d) {
        const int64_t i = d < m ? idx[d] : 0;
        f += (lo[d] + i) * fs[d];
        b += i * bs[d];
      }
      in.seekg(payload + f * eb);
      in.read(reinterpret_cast<char*>(dst + b * eb), run * eb);
      if (in.gcount() < run * eb) return bad("truncated data");
      int64_t d = m - 1;
      for (; d >= 0; --d) {
        if (++idx[d] < extent[d]) break;
        idx[d] = 0;
      }
      if (d < 0) break;
    }
  }
  if (h.dtype != want.dtype()) box = ConvertLiteral(box, want.dtype());
  Literal out(out_shape);
  if (!empty)
    CopyBox(box.raw(), extent, std::vector<int64_t>(rank, 0), out.mutable_raw(), out_shape.dims(),
            std::vector<int64_t>(rank, 0), extent, DTypeByteSize(want.dtype()));
  return out;
}

Status WriteNpy(const std::string& path, const Literal& value) {
  if (!value.shape().IsArray()) return InvalidArgument("cannot write a non-array value as .npy");
  NpyType type = NpyTypeFor(value.shape().dtype());
  Literal stored = type.stored == value.shape().dtype() ? value : ConvertLiteral(value, type.stored);
  std::string shape_text = fmt::format("{}", fmt::join(value.shape().dims(), ", "));
  if (value.shape().rank() == 1) shape_text += ",";
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}",
                                   type.descr, shape_text);
  // Pad so that the data starts at a multiple of 64 bytes; the header ends with '\n'.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(1);
  out += static_cast<char>(0);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  return cli::WriteFile(path, out, std::string_view(reinterpret_cast<const char*>(stored.raw()),
                                                    stored.shape().byte_size()));
}

}  // namespace spmdc
