// fivsim/sweep/host_memory.hpp — a sweep's large host buffers (a chunk's results, point rings and
// columns, results.h5's chunks) on transparent huge pages where the kernel gives them on request
// (its "madvise" mode, Debian's default): tens of megabytes a chunk are otherwise faulted in 4 KiB
// at a time, which on a virtual machine took a quarter of a small sweep's command
// (BENCHMARKS.md, the host's cost per case).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace fivsim::sweep {

// asks for huge pages over the 2 MiB-aligned part of [p, p + bytes), before it is first written
// (a request only: nothing changes where the kernel or the platform has none)
inline void advise_huge_pages(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHuge = std::uintptr_t(1) << 21;
  const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t begin = (at + kHuge - 1) & ~(kHuge - 1), end = (at + bytes) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

// v with n elements whose values the caller writes before it reads them (what v held is not
// kept); storage that must grow is asked for huge pages before anything touches it
template <class T>
void resize_for_writing(std::vector<T>& v, std::size_t n) {
  if (n > v.capacity()) {
    std::vector<T>().swap(v);
    v.reserve(n);
    advise_huge_pages(v.data(), n * sizeof(T));
  }
  v.resize(n);
}

}  // namespace fivsim::sweep
