// src/sweep/memory_budget.cpp — the chunk of a device sweep from the memory it really has
// (sweep/memory_budget.hpp).
#include "fivsim/sweep/memory_budget.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace fivsim::sweep {
namespace {

std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", bytes / double(1u << 30));
  return text;
}

}  // namespace

ChunkBudget chunk_budget(const MemoryFigures& m, const ChunkFootprint& f) {
  ChunkBudget b;
  const double free_bytes = static_cast<double>(m.device_free_bytes);
  const int ranks = std::max(1, m.device_ranks);
  b.reserve_bytes = std::max(static_cast<double>(kDeviceReserveBytes), kDeviceReserveShare * free_bytes);
  const double resident = static_cast<double>(m.multiprocessors) * static_cast<double>(m.threads_per_multiprocessor);
  b.local_bytes = static_cast<double>(f.local_bytes_per_thread) * resident;
  // every rank's kernels reserve their own local memory
  b.device_bytes = (free_bytes - b.reserve_bytes) / ranks - b.local_bytes - kPipelineSlots * f.device_fixed_bytes;
  b.host_bytes = kHostShare * static_cast<double>(m.host_available_bytes) / ranks;
  const double by_device = std::floor(b.device_bytes / (kPipelineSlots * f.device_bytes));
  const double by_host = m.host_available_bytes > 0
                             ? std::floor(b.host_bytes / (kPipelineSlots * (f.pinned_bytes + f.host_bytes)))
                             : by_device;
  b.bound = by_host < by_device ? "host memory" : "device memory";
  const double cases = std::min(by_device, by_host);
  b.cases = cases >= 1.0 ? static_cast<long>(std::min(cases, 1e15)) : 0;
  if (b.cases == 0)
    b.why = std::string("not one case fits in ") + b.bound + ": " + gib(free_bytes) + " free on the device, " +
            gib(b.reserve_bytes) + " kept for the runtime, " + gib(b.local_bytes) + " of local memory (" +
            std::to_string(f.local_bytes_per_thread) + " bytes a thread for " +
            std::to_string(static_cast<long>(resident)) + " resident threads), " + std::to_string(ranks) +
            " rank(s) on the device, " + gib(static_cast<double>(m.host_available_bytes)) + " available on the host";
  return b;
}

long fewest_cases_for_device(int multiprocessors, int host_threads, bool pinn) {
  const long per_thread = 2L * std::max(multiprocessors, 0) * std::max(host_threads, 1);
  return pinn ? per_thread / 8 : per_thread;
}

std::size_t host_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    std::size_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

long sweep_chunk_cases(long requested, long cases, const ChunkFootprint& f, const MemoryFigures* device, long steps,
                       int threads, bool pinn) {
  long chunk = requested;
  if (chunk <= 0 && device) {
    const ChunkBudget budget = chunk_budget(*device, f);
    if (budget.cases == 0)
      throw std::runtime_error("CUDA backend: " + budget.why + " (--device cpu runs it on the CPU)");
    // at least four chunks where each still fills a device (2^16 cases), so that one chunk's copies
    // and columns overlap the next ones' stepping
    chunk = std::min({budget.cases, 1L << 21, std::max((cases + 3) / 4, kFullDeviceChunk)});
  } else if (chunk <= 0) {
    const long t = threads;
    chunk = pinn ? 4L * t : std::clamp((1L << 26) / std::max(1L, steps), 256L * t, std::max(256L * t, 1L << 16));
  }
  return std::max(1L, std::min(chunk, cases));
}

}  // namespace fivsim::sweep
