// MemoryAccount: live and peak bytes of the buffers (ir/literal.h's Buffer) allocated while an
// account is current on the allocating thread. The SPMD runtime keeps one per device, so tests
// can compare the cost model's predicted peak with what each device really held.
//
// A buffer is charged to the account current on the thread that allocates it and credited back
// to that same account when it is freed, on whatever thread. Accounting costs nothing while no
// buffer is tracked (one relaxed atomic load per free).
#pragma once

#include <atomic>
#include <cstdint>

namespace spmdc {

class MemoryAccount {
 public:
  MemoryAccount() = default;
  // Forgets the buffers still charged to it (they outlive the account without being counted).
  ~MemoryAccount();
  MemoryAccount(const MemoryAccount&) = delete;
  MemoryAccount& operator=(const MemoryAccount&) = delete;

  int64_t live_bytes() const { return live_.load(std::memory_order_relaxed); }
  int64_t peak_bytes() const { return peak_.load(std::memory_order_relaxed); }

  void Allocate(int64_t bytes);
  void Free(int64_t bytes) { live_.fetch_sub(bytes, std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> live_{0};
  std::atomic<int64_t> peak_{0};
};

// The account new buffers on this thread are charged to (null: none).
MemoryAccount* CurrentMemoryAccount();

// Makes `account` current on this thread for the scope (null: none), then restores the previous.
class ScopedMemoryAccount {
 public:
  explicit ScopedMemoryAccount(MemoryAccount* account);
  ~ScopedMemoryAccount();
  ScopedMemoryAccount(const ScopedMemoryAccount&) = delete;
  ScopedMemoryAccount& operator=(const ScopedMemoryAccount&) = delete;

 private:
  MemoryAccount* previous_;
};

}  // namespace spmdc
