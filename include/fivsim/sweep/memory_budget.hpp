// fivsim/sweep/memory_budget.hpp — how many cases a chunk of a device sweep may hold: the pipeline's
// two slots of device buffers, the local memory the driver reserves for every thread the device
// keeps resident, a reserve for the runtime, and the pinned and pageable host copies within the
// host's memory. Pure (the figures in, the cases out), so that the sizing is tested on any machine
// with the figures of the cards users have.
#pragma once

#include <cstddef>
#include <string>

#include "fivsim/cases/case_runner.hpp"

namespace fivsim::sweep {

// slots of the CUDA pipeline (CudaPipeline): each holds a chunk's buffers
constexpr int kPipelineSlots = 2;
// device memory kept for the runtime after the sweep has measured what is free (kernel modules
// loaded lazily, the device heaps, the stack limit a launch raises, fragmentation): the larger of
// this and kDeviceReserveShare of the free memory
constexpr std::size_t kDeviceReserveBytes = std::size_t(512) << 20;
constexpr double kDeviceReserveShare = 0.05;
// the share of the host's available memory a sweep's chunk copies may take (the rest for the
// files' blocks, the OS and whatever else runs)
constexpr double kHostShare = 0.5;

// what one case of a chunk needs, per slot
struct ChunkFootprint {
  // device buffers: its setup and step map where it has its own, its row, results, point rings
  double device_bytes = 0.0;
  double pinned_bytes = 0.0;               // pinned host copies: results and point rings
  double host_bytes = 0.0;                 // pageable host memory: the prepared case, results, point rings, its columns
  double device_fixed_bytes = 0.0;         // per slot, whatever the cases: the shared setup, a reference series
  std::size_t local_bytes_per_thread = 0;  // the kernel's local memory (cudaFuncGetAttributes)
};

// what the device and its host offer
struct MemoryFigures {
  std::size_t device_free_bytes = 0;
  int multiprocessors = 0;
  int threads_per_multiprocessor = 0;
  std::size_t host_available_bytes = 0;
  int device_ranks = 1;  // processes of this node sharing the device (and its host)
};

// the chunk: its cases (0 where not one fits, with why) and what bounds it
struct ChunkBudget {
  long cases = 0;
  const char* bound = "";      // "device memory" or "host memory"
  double reserve_bytes = 0.0;  // kept for the runtime
  double local_bytes = 0.0;    // reserved for the resident threads' local memory
  double device_bytes = 0.0;   // one rank's share for its slots
  double host_bytes = 0.0;     // one rank's share of the host for its copies
  std::string why;
};

ChunkBudget chunk_budget(const MemoryFigures& m, const ChunkFootprint& f);

// the cases that fill a device's threads several times over: a device chunk is no smaller unless
// the sweep is
inline constexpr long kFullDeviceChunk = 1L << 16;

// the cases of a sweep's chunk: `requested` where given; on a device (`device` set) what its memory
// holds (chunk_budget: both slots, the kernels' local memory, the runtime's reserve, the host
// copies), at most 2^21 and a quarter of the sweep (not below kFullDeviceChunk), a std::runtime_error where not one
// case fits; on the CPU some 2^26 case-steps (a chunk of short cases costs its fsyncs and its manifest, not its
// stepping), at least 256 cases per thread and at most 2^16 cases (4 a thread for the PINN methods): small enough for
// the progress line to move, large enough that a chunk's overhead vanishes. At most `cases`
long sweep_chunk_cases(long requested, long cases, const ChunkFootprint& f, const MemoryFigures* device, long steps,
                       int threads, bool pinn);

// the footprint of a case of instantiation D: own_setup / own_map where the plan makes each case
// its own (else one is shared), n_params swept values, points_per_case values of point rings,
// case_columns columns of its row, extra_device_bytes of its own on the device (the PINN blocks)
template <class D>
ChunkFootprint case_footprint(bool own_setup, bool own_map, int n_params, long points_per_case, int case_columns,
                              double extra_device_bytes, std::size_t local_bytes_per_thread) {
  ChunkFootprint f;
  const double setup = static_cast<double>(sizeof(CaseSetup<D>)), map = static_cast<double>(sizeof(RkStepMap<D>));
  const double result = static_cast<double>(sizeof(CaseResult<D>)), points = 8.0 * static_cast<double>(points_per_case);
  const double own = (own_setup ? setup : 0.0) + (own_map ? map : 0.0) + 8.0 * n_params;
  f.device_bytes = own + result + points + extra_device_bytes;
  f.pinned_bytes = result + points;
  // the chunk's prepared case, results and rings, then its row and its points as columns
  f.host_bytes = own + result + points + 8.0 * case_columns + points;
  f.device_fixed_bytes = (own_setup ? 0.0 : setup) + (own_map ? 0.0 : map);
  f.local_bytes_per_thread = local_bytes_per_thread;
  return f;
}

// the fewest cases for which `--device auto` takes the GPU: with fewer, the device's threads are
// too few to hide each case's serial work and the host's cores finish first. Measured on an H200
// (132 multiprocessors) against 16 host threads (BENCHMARKS.md, every bundled sweep on both
// backends): the crossover lies near two cases a multiprocessor per host thread for the belt and
// general kernels, and near an eighth of that for the PINN sweep, whose every case keeps a group of
// lanes busy training its networks
long fewest_cases_for_device(int multiprocessors, int host_threads, bool pinn);

// the memory this host has available (MemAvailable of /proc/meminfo; 0 where unknown)
std::size_t host_available_bytes();

}  // namespace fivsim::sweep
