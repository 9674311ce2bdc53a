// Helpers for the interpreter tests: run HLO text, build and read literals.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "hlo/parser.h"
#include "interpreter/interpreter.h"

namespace spmdc::testing {

inline std::string StatusText(const Status& s) {
  return std::string(s.message().data(), s.message().size());
}

// Parses and runs `hlo`; on failure returns the status.
inline StatusOr<Literal> RunHlo(const std::string& hlo, std::vector<Literal> args = {},
                                const InterpreterOptions& options = {}) {
  auto m = ParseHloModule(hlo);
  if (!m.ok()) return m.status();
  return Execute(**m, args, nullptr, options);
}

// Runs and returns the result as HLO literal text ("{1, 2}"), or "ERROR: <message>".
inline std::string RunText(const std::string& hlo, std::vector<Literal> args = {}) {
  auto r = RunHlo(hlo, std::move(args));
  if (!r.ok()) return "ERROR: " + StatusText(r.status());
  return r->ToHloText();
}

// Wraps a body of instructions into a module with an ENTRY computation.
inline std::string Entry(const std::string& body) {
  return "HloModule t\nENTRY e {\n" + body + "\n}\n";
}

// A literal of `shape` from raw storage values (T must be the storage type).
template <typename T>
Literal Lit(DType t, std::vector<int64_t> dims, const std::vector<T>& values) {
  Literal l(Shape(t, std::move(dims)));
  EXPECT_EQ(static_cast<int64_t>(values.size() * sizeof(T)), l.size_bytes());
  if (!values.empty()) std::memcpy(l.mutable_raw(), values.data(), values.size() * sizeof(T));
  return l;
}

template <typename T>
std::vector<T> Values(const Literal& l) {
  std::vector<T> out(l.size_bytes() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), l.raw(), out.size() * sizeof(T));
  return out;
}

}  // namespace spmdc::testing
