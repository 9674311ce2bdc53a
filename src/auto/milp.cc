#include "auto/milp.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include "auto/lagrangian.h"
#include "auto/local_search.h"
#include "coin/Cbc_C_Interface.h"

namespace spmdc::autoshard {
namespace {

int64_t AllowedPairs(const Model& m) {
  int64_t n = 0;
  for (Cost c : m.pair) n += !IsForbidden(c);
  return n;
}

// The column layout of the MILP: x[v][s] first, then one e column per allowed pair entry.
struct Layout {
  std::vector<int> x_col;        // per model strategy (unary index)
  std::vector<int> pair_col;     // per pair entry, -1 when forbidden
  int num_cols = 0;
};

Layout MakeLayout(const Model& m) {
  Layout l;
  l.x_col.resize(m.unary.size());
  for (size_t i = 0; i < m.unary.size(); ++i) l.x_col[i] = l.num_cols++;
  l.pair_col.assign(m.pair.size(), -1);
  for (size_t i = 0; i < m.pair.size(); ++i) {
    if (!IsForbidden(m.pair[i])) l.pair_col[i] = l.num_cols++;
  }
  return l;
}

}  // namespace

MilpSearch::MilpSearch(const Model& model) : model_(model) {}

// Messages from the child: a type byte, then for kSolution the assignment (int32 per variable),
// for kBound the bound (two int64: high, low), for kOptimal nothing.
namespace {
constexpr char kSolution = 1, kBound = 2, kOptimal = 3;

bool WriteAll(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}
}  // namespace

void MilpSearch::Send(int fd, int type) const {
  if (fd < 0) return;
  std::vector<char> msg(1, static_cast<char>(type));
  if (type == kSolution) {
    for (int v : best_x_) {
      int32_t s = v;
      msg.insert(msg.end(), reinterpret_cast<char*>(&s), reinterpret_cast<char*>(&s) + 4);
    }
  } else if (type == kBound) {
    int64_t hi = absl::Int128High64(lower_bound_);
    uint64_t lo = absl::Int128Low64(lower_bound_);
    msg.insert(msg.end(), reinterpret_cast<char*>(&hi), reinterpret_cast<char*>(&hi) + 8);
    msg.insert(msg.end(), reinterpret_cast<char*>(&lo), reinterpret_cast<char*>(&lo) + 8);
  }
  WriteAll(fd, msg.data(), msg.size());
}

bool MilpSearch::Start(std::chrono::steady_clock::time_point deadline, bool bounded_nodes) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return false;
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return false;
  }
  if (pid == 0) {  // the child: solve, report, leave without running the parent's exit handlers
    close(fds[0]);
    signal(SIGPIPE, SIG_IGN);
    // Nothing CBC prints may reach the parent's stdout, whose last line is the answer.
    int null_fd = open("/dev/null", O_WRONLY);
    if (null_fd >= 0) {
      dup2(null_fd, 1);
      dup2(null_fd, 2);
      close(null_fd);
    }
    Run(deadline, bounded_nodes, fds[1]);
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  child_ = pid;
  pipe_fd_ = fds[0];
  return true;
}

void MilpSearch::Collect(std::chrono::steady_clock::time_point deadline, const std::atomic<bool>* cancel) {
  if (child_ < 0) return;
  const Model& m = model_;
  std::vector<char> buf;
  bool eof = false;
  while (!eof) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline || (cancel && cancel->load())) break;
    const int wait_ms = static_cast<int>(std::min<int64_t>(
        100, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1));
    pollfd pfd{pipe_fd_, POLLIN, 0};
    int r = poll(&pfd, 1, wait_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    char chunk[1 << 16];
    ssize_t n = read(pipe_fd_, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof = true;
    } else {
      buf.insert(buf.end(), chunk, chunk + n);
    }
    // Decode the complete messages.
    size_t pos = 0;
    while (pos < buf.size()) {
      const char type = buf[pos];
      size_t need = type == kSolution ? 4 * static_cast<size_t>(m.num_vars()) : type == kBound ? 16 : 0;
      if (pos + 1 + need > buf.size()) break;
      const char* p = buf.data() + pos + 1;
      if (type == kSolution) {
        std::vector<int> x(m.num_vars());
        for (int v = 0; v < m.num_vars(); ++v) {
          int32_t s;
          std::memcpy(&s, p + 4 * v, 4);
          x[v] = s;
        }
        // Trust nothing from the pipe without checking it.
        bool valid = true;
        for (int v = 0; v < m.num_vars() && valid; ++v) valid = x[v] >= 0 && x[v] < m.k[v];
        if (valid && m.ForbiddenPairs(x) == 0) {
          const std::vector<Usage> load = m.Profile(x);
          valid = !m.has_limit || std::all_of(load.begin(), load.end(),
                                              [&](Usage u) { return u <= m.limit; });
          const TotalCost c = m.CostOf(x);
          if (valid && (!has_solution_ || c < best_cost_)) {
            has_solution_ = true;
            best_x_ = std::move(x);
            best_cost_ = c;
          }
        }
      } else if (type == kBound) {
        int64_t hi;
        uint64_t lo;
        std::memcpy(&hi, p, 8);
        std::memcpy(&lo, p + 8, 8);
        const TotalCost b = absl::MakeInt128(hi, lo);
        if (!has_bound_ || b > lower_bound_) {
          has_bound_ = true;
          lower_bound_ = b;
        }
      } else if (type == kOptimal) {
        optimal_ = true;
      }
      pos += 1 + need;
    }
    buf.erase(buf.begin(), buf.begin() + pos);
  }
  kill(child_, SIGKILL);
  int status;
  while (waitpid(child_, &status, 0) < 0 && errno == EINTR) {
  }
  close(pipe_fd_);
  child_ = -1;
  pipe_fd_ = -1;
  // "Optimal" only counts together with a solution that meets the bound.
  optimal_ = optimal_ && has_solution_ && has_bound_ && lower_bound_ >= best_cost_;
}

bool MilpSearch::Suitable(const Model& m) {
  return m.num_vars() <= 5000 && AllowedPairs(m) <= 150000;
}

void MilpSearch::Run(std::chrono::steady_clock::time_point deadline, bool bounded_nodes,
                     int report_fd) {
  const Model& m = model_;
  const int P = m.num_points();
  // A start for CBC and for choosing the first memory rows.
  {
    LocalSearch ls(m);
    ls.Set(LeastUsageAssignment(m));
    if (ls.Repair(8 * static_cast<int64_t>(m.num_vars()) + 1000)) {
      int64_t work = 0;
      ls.Descend(work);
      has_solution_ = true;
      best_x_ = ls.x();
      best_cost_ = m.offset + ls.cost();
      Send(report_fd, kSolution);
    }
  }
  std::vector<char> in_rows(P, 0);
  std::vector<int> rows;
  {
    const std::vector<Usage> load = m.Profile(has_solution_ ? best_x_ : LeastUsageAssignment(m));
    std::vector<int> order(P);
    for (int p = 0; p < P; ++p) order[p] = p;
    std::sort(order.begin(), order.end(), [&](int a, int b) {
      return load[a] != load[b] ? load[a] > load[b] : a < b;
    });
    for (int i = 0; i < std::min(P, 64); ++i) {
      in_rows[order[i]] = 1;
      rows.push_back(order[i]);
    }
  }
  const Layout layout = MakeLayout(m);
  // Column-major matrix of the fixed rows: one-hot (row v) and marginals.
  struct Entry {
    int row;
    double value;
  };
  std::vector<std::vector<Entry>> cols(layout.num_cols);
  int num_rows = 0;
  for (int v = 0; v < m.num_vars(); ++v, ++num_rows) {
    for (int s = 0; s < m.k[v]; ++s) cols[layout.x_col[m.unary_offset[v] + s]].push_back({num_rows, 1.0});
  }
  for (const Model::Edge& e : m.edges) {
    const int ku = m.k[e.u], kv = m.k[e.v];
    const int row_u = num_rows, row_v = num_rows + ku;
    num_rows += ku + kv;
    for (int s = 0; s < ku; ++s) cols[layout.x_col[m.unary_offset[e.u] + s]].push_back({row_u + s, -1.0});
    for (int t = 0; t < kv; ++t) cols[layout.x_col[m.unary_offset[e.v] + t]].push_back({row_v + t, -1.0});
    for (int s = 0; s < ku; ++s) {
      for (int t = 0; t < kv; ++t) {
        const int c = layout.pair_col[e.offset + static_cast<int64_t>(s) * kv + t];
        if (c < 0) continue;
        cols[c].push_back({row_u + s, 1.0});
        cols[c].push_back({row_v + t, 1.0});
      }
    }
  }
  const int fixed_rows = num_rows;
  std::vector<double> obj(layout.num_cols, 0.0), lb(layout.num_cols, 0.0), ub(layout.num_cols, 1.0);
  for (size_t i = 0; i < m.unary.size(); ++i) obj[layout.x_col[i]] = static_cast<double>(m.unary[i]);
  for (size_t i = 0; i < m.pair.size(); ++i) {
    if (layout.pair_col[i] >= 0) obj[layout.pair_col[i]] = static_cast<double>(m.pair[i]);
  }

  while (std::chrono::steady_clock::now() < deadline) {
    const double remaining =
        std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (remaining < 0.2) break;
    // Memory rows for the chosen points: sum over covering segments of usage * x <= limit - base.
    std::vector<std::vector<Entry>> extra(layout.num_cols);
    std::vector<double> row_lb(fixed_rows, 0.0), row_ub(fixed_rows, 0.0);
    for (int v = 0; v < m.num_vars(); ++v) row_lb[v] = row_ub[v] = 1.0;
    for (size_t r = 0; r < rows.size(); ++r) {
      const int p = rows[r];
      const int row = fixed_rows + static_cast<int>(r);
      m.ForEachSegmentAt(p, [&](int i) {
        const int v = m.seg_var[i];
        for (int s = 0; s < m.k[v]; ++s) {
          const Usage u = m.SegUsage(m.segments[i], s);
          if (u != 0) extra[layout.x_col[m.unary_offset[v] + s]].push_back({row, static_cast<double>(u)});
        }
      });
      row_lb.push_back(-std::numeric_limits<double>::max());
      row_ub.push_back(static_cast<double>(m.limit - m.baseline[p]));
    }
    std::vector<CoinBigIndex> start(layout.num_cols + 1, 0);
    std::vector<int> index;
    std::vector<double> value;
    for (int c = 0; c < layout.num_cols; ++c) {
      for (const Entry& en : cols[c]) index.push_back(en.row), value.push_back(en.value);
      for (const Entry& en : extra[c]) index.push_back(en.row), value.push_back(en.value);
      start[c + 1] = static_cast<CoinBigIndex>(index.size());
    }
    Cbc_Model* cbc = Cbc_newModel();
    Cbc_setLogLevel(cbc, 0);
    Cbc_loadProblem(cbc, layout.num_cols, static_cast<int>(row_lb.size()), start.data(), index.data(),
                    value.data(), lb.data(), ub.data(), obj.data(), row_lb.data(), row_ub.data());
    for (size_t i = 0; i < m.unary.size(); ++i) Cbc_setInteger(cbc, layout.x_col[i]);
    Cbc_setMaximumSeconds(cbc, remaining);
    if (bounded_nodes) Cbc_setMaximumNodes(cbc, 20000);
    Cbc_setAllowableGap(cbc, 0.999);  // integer costs: a gap below 1 proves optimality
    Cbc_setAllowableFractionGap(cbc, 0.0);
    Cbc_setParameter(cbc, "threads", "1");
    if (has_solution_) {
      std::vector<int> idx;
      std::vector<double> val;
      for (int v = 0; v < m.num_vars(); ++v) {
        idx.push_back(layout.x_col[m.unary_offset[v] + best_x_[v]]);
        val.push_back(1.0);
      }
      for (const Model::Edge& e : m.edges) {
        const int c = layout.pair_col[e.offset + static_cast<int64_t>(best_x_[e.u]) * m.k[e.v] + best_x_[e.v]];
        if (c >= 0) idx.push_back(c), val.push_back(1.0);
      }
      Cbc_setMIPStartI(cbc, static_cast<int>(idx.size()), idx.data(), val.data());
    }
    Cbc_solve(cbc);
    const double bound = Cbc_getBestPossibleObjValue(cbc);
    const bool proven = Cbc_isProvenOptimal(cbc);
    const double* sol = Cbc_bestSolution(cbc);
    std::vector<int> x;
    if (sol != nullptr) {
      x.assign(m.num_vars(), 0);
      for (int v = 0; v < m.num_vars(); ++v) {
        for (int s = 1; s < m.k[v]; ++s) {
          if (sol[layout.x_col[m.unary_offset[v] + s]] > sol[layout.x_col[m.unary_offset[v] + x[v]]]) x[v] = s;
        }
      }
    }
    Cbc_deleteModel(cbc);
    // CBC's bound is a floating-point value: keep a safety margin below it.
    if (std::isfinite(bound) && std::fabs(bound) < 1e30) {
      const double safe = std::floor(bound - 1e-9 * std::fabs(bound) - 1.0);
      const TotalCost b = m.offset + absl::int128(static_cast<long double>(safe));
      if (!has_bound_ || b > lower_bound_) {
        has_bound_ = true;
        lower_bound_ = b;
        Send(report_fd, kBound);
      }
    }
    if (x.empty()) break;
    const std::vector<Usage> load = m.Profile(x);
    std::vector<std::pair<Usage, int>> over;
    for (int p = 0; p < P; ++p) {
      if (load[p] > m.limit && !in_rows[p]) over.push_back({load[p] - m.limit, p});
    }
    if (over.empty()) {
      const TotalCost c = m.CostOf(x);
      if (m.ForbiddenPairs(x) == 0 && (!has_solution_ || c < best_cost_)) {
        has_solution_ = true;
        best_x_ = x;
        best_cost_ = c;
        Send(report_fd, kSolution);
      }
      if (proven) {
        optimal_ = has_solution_ && best_cost_ == c;
        if (optimal_) {
          has_bound_ = true;
          lower_bound_ = c;
          Send(report_fd, kBound);
          Send(report_fd, kOptimal);
        }
      }
      break;
    }
    std::sort(over.begin(), over.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (size_t i = 0; i < std::min<size_t>(over.size(), 64); ++i) {
      in_rows[over[i].second] = 1;
      rows.push_back(over[i].second);
    }
  }
}

}  // namespace spmdc::autoshard
